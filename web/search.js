// The page's search box: the open file's nodes, op types, values,
// initializers, other tensors and attributes, found by any part of their
// name, listed by kind with counts (the files list filtered by the same
// text below). A node found opens in the overview's node list or, in the
// Graph tab, centred in the drawing of the graph that holds it.
import { $, h, fitName } from './dom.js';
import { attrText, tfAttr } from './format.js';
import { renderFiles } from './files.js';
import { currentGraphView } from './graph-tab.js';
import { go, state, update } from './state.js';
import { findTensor } from './tensor-list.js';

// The open file's nodes, op types, values, initializers, other tensors and
// attributes, found by any part of their name (an op type, an attribute's
// name or value), listed by kind with counts. The results belong to the
// file they were found in: each carries its file's key, the list is
// searched again whenever a file opens, and a result of another file opens
// nothing.
const SEARCH_KINDS = [
  ['node', 'nodes'], ['op', 'nodes by op type'], ['value', 'values'],
  ['initializer', 'initializers'], ['tensor', 'tensors'], ['attribute', 'attributes'],
];
const SEARCH_FIRST = 8, SEARCH_MORE = 50;
// What can be found in the open file, built once per file: each item has
// a kind, the text shown, the text searched (lower case) and what opening
// it does.
const indexes = new WeakMap();
function searchIndex() {
  if (!state.open || !state.open.ok) return [];
  if (indexes.has(state.open)) return indexes.get(state.open);
  const items = [];
  indexes.set(state.open, items);
  const key = state.key, as = state.as;
  const add = (kind, text, detail, open) => items.push({ kind, text, detail, find: text.toLowerCase(), key, open });
  const openTensor = (t) => () => go({ f: key, as, tab: 'tensor', t: t.index, at: null });
  const named = new Set();
  for (const t of state.open.tensors || []) {
    if (!t) continue;
    named.add(t.name);
    add(t.initializer ? 'initializer' : 'tensor', t.name, t.dtype + (t.dims ? ' [' + t.dims.join(', ') + ']' : ''), openTensor(t));
  }
  const v = state.open.decoded.value;
  // A graph as the contract JSON holds it: under `graph` (a ModelProto's)
  // or at the top (a GraphDef's nodes).
  const top = v && (v.graph || (Array.isArray(v.node) ? v : null));
  if (!top) return items;
  const opOf = (n) => (n.domain ? n.domain + '.' : '') + (n.op_type || n.op || '');
  const nodeName = (n, i) => n.name || `[${i}]`;
  // Every graph: the main one, its nodes' subgraphs (If, Loop, Scan
  // bodies) and the functions, walked with a list rather than recursion.
  // `at` is the graph's place (see graphBlock), `where` names it for
  // people ('' for the main graph), `route` for the Graph tab (see
  // GraphView.graphOfRoute).
  const graphs = [{ g: top, at: '', where: '', route: { fn: null, steps: [] } }];
  (v.functions || []).forEach((f, fi) => graphs.push({ g: { node: f.node, input: (f.input || []).map((name) => ({ name })), output: (f.output || []).map((name) => ({ name })) }, at: `F${fi}/`, where: 'function ' + f.name, route: { fn: fi, steps: [] } }));
  const lib = top === v && top.library ? top.library.function || [] : [];
  // TensorFlow's functions are not in the overview: their nodes open it,
  // or in the Graph tab the function's drawing.
  lib.forEach((f) => { const name = (f.signature || {}).name || ''; graphs.push({ g: { node: f.node_def }, at: null, where: 'function ' + name, route: { tfFunction: name, steps: [] } }); });
  const values = new Map(); // value name -> { at: the node that makes it (or null), name, where }
  const value = (name, maker, where) => { if (name && !values.has(name)) values.set(name, { maker, where }); };
  for (let gi = 0; gi < graphs.length; gi++) {
    const { g, at, where, route } = graphs[gi];
    const nodes = g.node || [];
    const inWhere = where ? ' · in ' + where : '';
    for (const io of g.input || []) value(io.name, null, where);
    nodes.forEach((n, i) => {
      const op = opOf(n);
      const path = at === null ? null : at + i;
      const focus = () => focusNode(key, path, { ...route, node: i });
      add('node', nodeName(n, i), op + inWhere, focus);
      add('op', op, nodeName(n, i) + inWhere, focus);
      for (const o of n.output || []) value(o, { path, name: nodeName(n, i), route: { ...route, node: i } }, where);
      for (const x of n.input || []) value(x, null, where);
      if (Array.isArray(n.attribute)) {
        n.attribute.forEach((a, ai) => {
          add('attribute', attrText(a), nodeName(n, i) + inWhere, focus);
          const subs = a.g ? [a.g] : a.graphs || [];
          // The route names the attribute as the graph list's owner does:
          // `body`, or `graphs[1]` for a GRAPHS attribute.
          subs.forEach((sg, k) => graphs.push({ g: sg, at: at === null ? null : `${path}.${ai}.${k}/`, where: (where ? where + ' › ' : '') + nodeName(n, i) + '.' + a.name + (subs.length > 1 ? `[${k}]` : ''),
            route: { ...route, steps: [...route.steps, [i, a.g ? a.name : `${a.name}[${k}]`]] } }));
        });
      } else for (const [k, a] of Object.entries(n.attr || {})) add('attribute', k + '=' + tfAttr(a), nodeName(n, i) + inWhere, focus);
    });
    for (const io of g.output || []) value(io.name, null, where);
    for (const io of g.value_info || []) value(io.name, null, where);
  }
  for (const [name, { maker, where }] of values) {
    if (named.has(name)) continue;
    const t = findTensor(name);
    const inWhere = where ? (maker ? ' in ' : 'in ') + where : '';
    add('value', name, (maker ? 'output of ' + maker.name : '') + inWhere,
      t ? openTensor(t) : maker ? () => focusNode(key, maker.path, maker.route) : () => go({ f: key, as, tab: 'overview', t: null, at: null }));
  }
  return items;
}
// Shows the node at `path` (see graphBlock: '3' is node 3 of the main
// graph, '3.1.0/2' node 2 of the first graph of its second attribute,
// 'F0/2' node 2 of the first function): its lists drawn and its subgraphs
// opened down to it, scrolled to and lit, once the overview is drawn.
// A path of null (a TensorFlow function's node) opens the overview. In
// the Graph tab, the node is centred in the drawing of the graph that
// holds it (`route`, see GraphView.graphOfRoute), a subgraph's or a
// function's too.
function focusNode(key, path, route) {
  if (key !== state.key) return;
  const focus = () => {
    if (path === null || path === undefined) return;
    const parts = String(path).split('/');
    let prefix = '';
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k];
      if (/^F\d+$/.test(part)) {
        const det = document.querySelector(`details[data-sub="${part}/"]`);
        if (!det) return;
        det.open = true;
      } else {
        const list = document.querySelector(`.nodes[data-graph="${prefix}"]`);
        if (list && list.drawTo) list.drawTo(Number(part.split('.')[0]) + 1);
        if (k < parts.length - 1) {
          const det = document.querySelector(`details[data-sub="${prefix}${part}/"]`);
          if (!det) return;
          det.open = true;
          det.fill();
        }
      }
      prefix += part + '/';
    }
    const el = document.querySelector(`.node[data-path="${path}"]`);
    if (el) { el.classList.add('hit'); el.scrollIntoView({ block: 'center' }); setTimeout(() => el.classList.remove('hit'), 2500); }
  };
  const view = currentGraphView();
  if (state.tab === 'graph' && route && view) {
    const id = view.graphOfRoute(route);
    if (id !== null) { view.showNode(id, route.node); return; }
  }
  if (state.tab !== 'overview' || state.tensorIndex !== null) { update({ focus }); go({ tab: 'overview', t: null, at: null }); } else focus();
}
// Opens a result if it is of the file open now.
export function openResult(it) {
  if (!it || it.key !== state.key) { runSearch(); return; }
  it.open();
}
export function runSearch() {
  const q = $('#search').value.trim().toLowerCase();
  const box = $('#results');
  renderFiles(q);
  box.firstHit = null;
  box.dataset.file = state.key || '';
  if (!q) { box.hidden = true; box.replaceChildren(); return; }
  const groups = new Map(SEARCH_KINDS.map(([k]) => [k, []]));
  for (const it of searchIndex()) if (it.find.includes(q)) groups.get(it.kind).push(it);
  const row = (it) => h('div', { class: 'r', 'data-file': it.key, 'data-kind': it.kind, 'data-name': it.text, onclick: () => openResult(it) },
    h('span', { class: 'n', title: it.text, 'data-full': it.text }, it.text), it.detail ? h('span', { class: 'd', title: it.detail, 'data-full': it.detail }, it.detail) : null);
  // Names too long for their place cut in the middle, once drawn.
  // (The details first: the names take the room they leave.)
  const fit = (el) => { for (const x of el.querySelectorAll('.d[data-full], .n[data-full]')) if (x.scrollWidth > x.clientWidth) fitName(x, x.dataset.full); };
  const parts = [];
  for (const [kind, title] of SEARCH_KINDS) {
    const hits = groups.get(kind);
    if (!hits.length) continue;
    box.firstHit = box.firstHit || hits[0];
    const group = h('div', { class: 'group', 'data-kind': kind }, h('div', { class: 'gh' }, title, h('span', { class: 'count' }, hits.length.toLocaleString('en-US'))));
    let shown = 0;
    const more = h('button', { class: 'btn small more', type: 'button' });
    const draw = (n) => {
      const end = Math.min(hits.length, shown + n);
      const rows = hits.slice(shown, end).map(row);
      more.before(...rows);
      if (group.isConnected) for (const r of rows) fit(r);
      shown = end;
      if (shown < hits.length) more.textContent = `show more (${(hits.length - shown).toLocaleString('en-US')} left)`; else more.remove();
    };
    more.addEventListener('click', () => draw(SEARCH_MORE));
    group.append(more);
    draw(SEARCH_FIRST);
    parts.push(group);
  }
  box.replaceChildren(...(parts.length ? parts : [h('div', { class: 'none' }, state.open ? 'nothing of this name in this file; files are filtered below' : 'files are filtered below')]));
  const first = box.querySelector('.r');
  if (first) first.classList.add('sel');
  box.hidden = false;
  fit(box);
}
