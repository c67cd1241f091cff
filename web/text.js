// The JSON and Text tabs: the decoded file's contract JSON as a tree
// opened a page at a time (a file read without a schema: its field tree),
// and the text view as the command line prints it.
import { api, backend } from './backend.js';
import { h, moreButton } from './dom.js';
import { fieldTree } from './fields.js';
import { state } from './state.js';

// Members are drawn a page at a time, a branch when it opens: a list of
// 100,000 items costs the DOM of one page until asked for more.
const TREE_PAGE = 200;
// The branches a tree opens with: level by level from the top, as long as
// the members they show stay within `budget` (a page per list at most).
function openedBranches(v, budget, maxDepth) {
  const open = new Set();
  let level = [v];
  for (let depth = 0; depth < maxDepth && level.length; depth++) {
    const next = [];
    for (const x of level) {
      if (x === null || typeof x !== 'object') continue;
      const members = Array.isArray(x) ? x : Object.values(x);
      const shown = Math.min(members.length, TREE_PAGE);
      if (!shown || shown > budget) continue;
      budget -= shown;
      open.add(x);
      next.push(...members.slice(0, shown));
    }
    level = next;
  }
  return open;
}
// A JSON tree opened as far as some 400 members go (`open`), or at its
// top level only.
export function jsonTree(v, open) {
  const root = h('div', { class: 'tree', id: 'json-tree' });
  root.append(treeNode(null, v, open ? openedBranches(v, 400, 8) : new Set([v])));
  return root;
}
function treeNode(key, v, opened) {
  const label = key === null ? null : h('span', { class: 'k' }, key + ': ');
  if (v !== null && typeof v === 'object') {
    const isArr = Array.isArray(v);
    const keys = isArr ? null : Object.keys(v);
    const n = isArr ? v.length : keys.length;
    if (n === 0) return h('div', { class: 'leaf' }, label, isArr ? '[]' : '{}');
    const det = h('details', null, h('summary', null, label, h('span', { class: 'c' }, isArr ? `[${n}]` : (v.name !== undefined && typeof v.name === 'string' ? `{${v.name}}` : `{${n}}`))));
    let shown = 0;
    const drawPage = () => {
      const end = Math.min(n, shown + TREE_PAGE);
      for (; shown < end; shown++) {
        const k = isArr ? String(shown) : keys[shown];
        det.append(treeNode(k, isArr ? v[shown] : v[k], opened));
      }
      if (shown < n) det.append(moreButton(n - shown, (b) => { b.remove(); drawPage(); }));
    };
    det.addEventListener('toggle', () => { if (det.open && shown === 0) drawPage(); });
    if (opened.has(v)) { det.open = true; drawPage(); }
    return det;
  }
  return h('div', { class: 'leaf' }, label, h('span', { class: typeof v === 'string' ? 's' : '' }, typeof v === 'string' ? JSON.stringify(v) : String(v)));
}
export function renderTree(body) {
  // A file read without a schema: the field tree, a page at a time.
  if (state.open.overview === 'fields') body.append(h('div', { class: 'card' }, fieldTree(state.open.decoded).box));
  else body.append(h('div', { class: 'card' }, jsonTree(state.open.decoded, true)));
}

// A text-format file's lines: a window of them (the back end's
// /api/source), numbered, the line `mark` highlighted; earlier and later
// windows a click away.
const SOURCE_PAGE = 200;
export async function renderSource(body, mark) {
  const box = h('div', { class: 'source', id: 'source' });
  body.append(box);
  const show = async (from) => {
    try {
      // Through api(): the static site's back end answers with text() only.
      const r = await api('/api/source', { f: state.key, from, count: SOURCE_PAGE });
      const rows = r.lines.map((text, k) => {
        const n = r.from + k;
        return h('div', { class: n === mark ? 'row fault' : 'row', 'data-line': n },
          h('span', { class: 'ln' }, String(n)), h('span', { class: 'code' }, text));
      });
      const nav = h('div', { class: 'nav' },
        r.from > 1 ? h('button', { class: 'btn small', onclick: () => show(Math.max(1, r.from - SOURCE_PAGE)) }, 'earlier lines') : null,
        h('span', { class: 'muted' }, ` lines ${r.from}–${r.from + r.lines.length - 1} of ${r.total} `),
        r.from + r.lines.length <= r.total ? h('button', { class: 'btn small', onclick: () => show(r.from + SOURCE_PAGE) }, 'later lines') : null);
      box.replaceChildren(nav, ...rows);
      const hit = box.querySelector('.fault');
      if (hit) hit.scrollIntoView({ block: 'center' });
    } catch (e) { box.textContent = e.message; }
  };
  await show(mark ? Math.max(1, mark - 20) : 1);
}

// The text view: the command line's text of the file (a file in
// protobuf's text format: its own lines first).
export async function renderText(body, inline) {
  if (!inline && state.open.file && state.open.file.syntax === 'text') {
    const card = h('div', { class: 'card' }, h('h3', null, 'The file (protobuf text format)'));
    body.append(card);
    renderSource(card, null);
  }
  const pre = h('pre', { class: 'text', id: 'text-view' }, 'Reading…');
  body.append(inline ? pre : h('div', { class: 'card' }, pre));
  try {
    const r = await backend.fetch('/api/text', { f: state.key, as: state.as });
    pre.textContent = await r.text();
  } catch (e) { pre.textContent = e.message; }
}
