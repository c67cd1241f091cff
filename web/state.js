// The page's state, declared in one place: every field is here (the object
// is sealed, so a view cannot add one on the side), the views read it, and
// a view that changes it says so with `update`, which tells the views that
// watch those fields once, after the change (however many fields or
// updates it takes). The address (after #) names what a bookmark must
// bring back: the file, the format it is read as, the tab, the tensor and
// element, the graph and node; `go` changes it, and the page follows.

export const state = Object.seal({
  files: [],          // the /api/files answer's list
  open: null,         // the /api/open answer of the file shown
  key: null,          // its key, and the format asked for
  as: 'auto',
  tab: 'overview',    // the tab shown: overview, graph, tensors, tensor, tree, text, bytes
  tensorIndex: null,  // the tensor the tensor tab shows, and its element
  at: null,
  hexAt: 0,           // where the bytes tab was left
  graphId: null,      // the graph the Graph tab shows, and its node
  graphNode: null,
  focus: null,        // a search result's node, shown once the overview is drawn
  sideOpen: false,    // the file list shown over the Graph tab
  busy: 0,            // requests the back end is answering
});

// ---------- watching ----------
const watchers = [];
let pending = new Set();
let scheduled = false;

// Calls `fn(state, changed)` after an update of any of `fields` (a list of
// field names), once per batch of updates.
export function watch(fields, fn) {
  watchers.push({ fields, fn });
}

// Sets fields of the state (`change`: name -> value) and schedules the
// watchers of those that changed. A name the state does not declare is
// an error.
export function update(change) {
  for (const [k, v] of Object.entries(change)) {
    if (!Object.hasOwn(state, k)) throw new Error('the page\'s state has no field ' + k);
    if (state[k] === v) continue;
    state[k] = v;
    pending.add(k);
  }
  schedule();
}

// Asks the watchers of `fields` to draw again (what they read changed in
// place, e.g. a list they show).
export function redraw(...fields) {
  for (const k of fields) pending.add(k);
  schedule();
}

function schedule() {
  if (scheduled || !pending.size) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    const changed = pending;
    pending = new Set();
    for (const w of watchers) if (w.fields.some((k) => changed.has(k))) w.fn(state, changed);
  });
}

// ---------- the address ----------
const num = (p, k) => (p.get(k) !== null && p.get(k) !== '' && Number.isFinite(Number(p.get(k))) ? Number(p.get(k)) : null);

// What an address (`#f=KEY&tab=graph&g=2&n=7`) names; a part not named is
// null (the tab: overview, the format: auto).
export function parseAddress(hash) {
  const p = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  return {
    f: p.get('f'), as: p.get('as') || 'auto', tab: p.get('tab') || 'overview',
    t: num(p, 't'), at: num(p, 'at'), hex: num(p, 'hex'), g: num(p, 'g'), n: num(p, 'n'),
  };
}

// The address of `current` (a parsed address) with `change` applied: the
// parts at their default left out; the graph and node kept only in the
// Graph tab of the same file.
export function addressOf(current, change) {
  const next = { ...current, ...change };
  const p = new URLSearchParams();
  const given = (v) => v !== null && v !== undefined;
  if (next.f) p.set('f', next.f);
  if (next.as && next.as !== 'auto') p.set('as', next.as);
  if (next.tab && next.tab !== 'overview') p.set('tab', next.tab);
  if (given(next.t)) p.set('t', next.t);
  if (given(next.at)) p.set('at', next.at);
  if (given(next.hex)) p.set('hex', next.hex);
  if (next.tab === 'graph' && next.f === current.f) {
    if (given(next.g)) p.set('g', next.g);
    if (given(next.n)) p.set('n', next.n);
  }
  return '#' + p.toString();
}

let follow = () => {};
// `fn` shows what the address names (the page's router).
export function onAddress(fn) {
  follow = fn;
  window.addEventListener('hashchange', () => follow());
}

// Goes to the address with `change` applied (a new history entry, or with
// `replace` the current one replaced); the page follows it.
export function go(change, replace) {
  const next = addressOf(parseAddress(location.hash), change);
  if (next === location.hash) { follow(); return; }
  if (replace) { history.replaceState(null, '', next); follow(); } else location.hash = next;
}

// The address with the Graph tab's graph and node, replaced in place:
// moving about a graph adds no history.
export function graphAddress() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.get('tab') !== 'graph') return;
  if (state.graphId !== null) p.set('g', state.graphId); else p.delete('g');
  if (state.graphNode !== null) p.set('n', state.graphNode); else p.delete('n');
  const next = '#' + p.toString();
  if (next !== location.hash) history.replaceState(null, '', next);
}

// The tensor grid's element, replaced in place.
export function elementAddress(i) {
  const p = new URLSearchParams(location.hash.slice(1));
  p.set('at', i);
  history.replaceState(null, '', '#' + p.toString());
}
