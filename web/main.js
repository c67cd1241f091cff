// The pbdecode explorer page. Everything it shows comes from its back end
// (backend.js: the server, or the WebAssembly build of the same endpoints
// on the static site), which uses the same library as the `decode`
// command: the JSON contract, the text view, the picture code. Values
// arrive as the contract's text and are shown as they are; nothing here
// decodes bytes or formats numbers. What a file can show (its overview,
// whether it has graphs) is the server's answer too.
//
// This module starts the page and follows the address: the file opened,
// its header and tabs, and the view of the tab (one module each).
import { api, backend, isStatic, token } from './backend.js';
import { renderBytes } from './bytes.js';
import { renderCheckpoint } from './checkpoint.js';
import { $, h, errorCard, fitName, tip } from './dom.js';
import { renderFields } from './fields.js';
import { installFileInputs, loadFiles, needToken, renderFiles } from './files.js';
import { bytesText } from './format.js';
import { graphFetch } from './graph-data.js';
import { currentGraphView, renderGraphTab } from './graph-tab.js';
import { renderModel, renderSummary } from './model.js';
import { renderRecords } from './records.js';
import { openResult, runSearch } from './search.js';
import { go, onAddress, parseAddress, state, update, watch } from './state.js';
import { renderTensor } from './tensor.js';
import { renderTensorList } from './tensor-list.js';
import { renderSource, renderText, renderTree } from './text.js';

// The overviews, by the server's `overview`.
const OVERVIEWS = {
  tensor: (body) => renderTensor(body, 0),
  model: renderModel,
  fields: renderFields,
  records: renderRecords,
  checkpoint: renderCheckpoint,
  summary: (body, tensors) => renderSummary(body, tensors, false),
};

// ---------- routing ----------
let routing = 0;
async function route() {
  const my = ++routing;
  const r = parseAddress(location.hash);
  if (!r.f) {
    update({ key: null, open: null, tab: 'overview' });
    document.title = 'pbdecode explorer';
    $('#welcome').hidden = false; $('#view').hidden = true; $('#as-box').hidden = true;
    $('#crumbs').replaceChildren();
    layout();
    runSearch();
    return;
  }
  if (r.f !== state.key || r.as !== state.as || !state.open) {
    $('#welcome').hidden = true; $('#view').hidden = false;
    $('#view').replaceChildren(h('p', { class: 'spin' }, 'Reading…'));
    // A graph's layout is asked for beside the file's answer, not after it.
    if (r.tab === 'graph') graphFetch(r.f, r.as, r.g !== null ? r.g : 0).catch(() => {});
    try {
      const o = await api('/api/open', { f: r.f, as: r.as });
      if (my !== routing) return;
      update({ open: o, key: r.f, as: r.as, graphId: null, graphNode: null });
    } catch (e) {
      if (my !== routing) return;
      update({ open: null, key: r.f });
      $('#view').replaceChildren(h('div', { class: 'card error-card' }, h('div', { class: 'big' }, 'Cannot open this file'), e.message));
      runSearch();
      return;
    }
  }
  // (Going somewhere folds the file list away over the Graph tab.)
  update({ tab: r.tab, tensorIndex: r.t, at: r.at, sideOpen: false, ...(r.hex !== null ? { hexAt: r.hex } : {}) });
  // The results are the open file's: searched again on every open.
  runSearch();
  const active = $('#files li.active');
  if (active) active.scrollIntoView({ block: 'nearest' });
  renderOpen();
}

// ---------- the open file ----------
function renderHeader() {
  const o = state.open;
  document.title = o.file.name + ' — pbdecode explorer';
  const fname = h('span', { class: 'fname', title: o.file.name }, o.file.name);
  $('#crumbs').replaceChildren(
    fname,
    h('span', { class: 'muted' }, bytesText(o.file.size)),
    o.ok ? h('span', { class: 'badge', title: o.title }, o.format) : h('span', { class: 'badge bad' }, 'not decoded'),
  );
  // Cut in the middle to the room the bar leaves, as the file list does.
  fitName(fname, o.file.name);
  const sel = $('#as');
  sel.replaceChildren(h('option', { value: 'auto' }, 'auto (detect)'),
    ...o.formats.map((f) => {
      const passed = (o.passed_over || []).find((p) => p.format === f.id);
      const tried = (o.tried || []).find((p) => p.format === f.id);
      const why = passed ? passed.error.message : tried ? tried.error.message : '';
      return h('option', { value: f.id, title: why ? 'does not fit: ' + why : f.title }, f.id + (why ? '  ✗' : ''));
    }));
  sel.value = state.as;
  $('#as-box').hidden = false;
}

function tabs(list) {
  return h('nav', { class: 'tabs', role: 'tablist' }, list.map(([id, label]) =>
    h('button', { class: state.tab === id ? 'on' : '', role: 'tab', 'data-tab': id, onclick: () => go({ tab: id, t: id === 'tensor' ? state.tensorIndex : null, at: null }) }, label)));
}

function renderOpen() {
  tip(null);
  const o = state.open;
  renderHeader();
  const view = $('#view');
  view.replaceChildren();
  // What a well-known file that is not protobuf is, first: the command
  // line's hint, from the server.
  if (o.looks_like) view.append(h('div', { class: 'card hint', id: 'looks-like' }, h('div', { class: 'big' }, 'This looks like ' + o.looks_like)));
  if (!o.ok) { update({ focus: null }); renderRejected(view); layout(); return; }
  for (const n of o.notes || []) view.append(h('div', { class: 'note' }, n));
  const tensors = (o.tensors || []).filter(Boolean);
  const single = o.overview === 'tensor';
  const list = [['overview', 'Overview']];
  if (o.graph) list.push(['graph', 'Graph']);
  if (tensors.length && !single) list.push(['tensors', `Tensors (${tensors.length})`]);
  if (state.tensorIndex !== null && !single) {
    const t = tensors.find((x) => x.index === state.tensorIndex);
    list.push(['tensor', 'Tensor: ' + (t ? t.name : state.tensorIndex)]);
  }
  list.push(['tree', 'JSON'], ['text', 'Text'], ['bytes', 'Bytes']);
  if (state.tensorIndex !== null && state.tab === 'overview' && !single) update({ tab: 'tensor' });
  if (!list.some(([id]) => id === state.tab)) update({ tab: 'overview' });
  view.append(tabs(list));
  const body = h('div', { id: 'tabbody' });
  view.append(body);
  layout();
  switch (state.tab) {
    case 'tensors': renderTensorList(body, tensors); break;
    case 'tensor': renderTensor(body, state.tensorIndex); break;
    case 'graph': renderGraphTab(body); break;
    case 'tree': renderTree(body); break;
    case 'text': renderText(body); break;
    case 'bytes': renderBytes(body, null); break;
    default: (OVERVIEWS[o.overview] || OVERVIEWS.summary)(body, tensors);
  }
  // A search result's node, now that the overview is drawn.
  if (state.focus) { const f = state.focus; update({ focus: null }); f(); }
}

function renderRejected(view) {
  const o = state.open;
  view.append(errorCard(o.error, o.format ? `Not ${o.format}` : 'Not decoded: no format fits'));
  if (o.tried && o.tried.length) {
    view.append(h('div', { class: 'card' }, h('h3', null, 'What each format said'),
      h('table', { class: 't' }, h('tbody', null, o.tried.map((t) =>
        h('tr', null, h('td', { class: 'mono' }, t.format), h('td', null, t.error.message)))))));
  }
  const body = h('div');
  if (o.error.line) {
    view.append(h('div', { class: 'card' }, h('h3', null, 'Text (the fault\'s line highlighted)'), body));
    renderSource(body, o.error.line);
    return;
  }
  view.append(h('div', { class: 'card' }, h('h3', null, 'Bytes (the fault highlighted)'), body));
  renderBytes(body, { at: o.error.offset, error: o.error.offset });
}

// ---------- the page's layout ----------
// The Graph tab takes the window: the file list folds away (the Files
// button, or / to search, brings it back over the drawing).
function layout() {
  const graph = Boolean(state.open && state.open.ok && state.tab === 'graph');
  document.body.classList.toggle('graph-mode', graph);
  $('#side-toggle').hidden = !graph;
  $('#side').classList.toggle('open', graph && state.sideOpen);
  $('#side-toggle').setAttribute('aria-expanded', String(graph && state.sideOpen));
}
watch(['sideOpen'], layout);
watch(['files', 'key'], () => renderFiles($('#search').value.trim().toLowerCase()));

// ---------- start ----------
function init() {
  installFileInputs();
  $('#as').addEventListener('change', (e) => go({ as: e.target.value, tab: 'overview', t: null, at: null }));
  $('#search').addEventListener('input', runSearch);
  $('#side-toggle').addEventListener('click', () => update({ sideOpen: !state.sideOpen }));
  // The top bar's file name cut again to the room a resized window leaves.
  window.addEventListener('resize', () => { const el = $('#crumbs .fname'); if (el) fitName(el, el.title); });
  $('#search').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && $('#results').firstHit) { update({ sideOpen: false }); openResult($('#results').firstHit); }
    if (e.key === 'Escape') { e.target.value = ''; runSearch(); e.target.blur(); update({ sideOpen: false }); }
  });
  $('#results').addEventListener('click', (e) => { if (e.target.closest('.r')) update({ sideOpen: false }); });
  document.addEventListener('keydown', (e) => {
    if (e.key === '/' && !['INPUT', 'SELECT', 'TEXTAREA'].includes(document.activeElement.tagName)) {
      e.preventDefault();
      update({ sideOpen: true });
      $('#search').focus();
    }
  });
  onAddress(route);
  // Scripts and tests read the page through this, and nothing else.
  window.pbdecode = { state, get graph() { return currentGraphView(); }, graphFetch, api, backend };
  if (!token && !isStatic) { needToken(); return; }
  loadFiles().then((ok) => (ok ? route() : needToken()));
}
init();
