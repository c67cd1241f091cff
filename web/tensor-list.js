// The open file's tensors as a table (each opens in the tensor view), a
// tensor found by its name, and the file's summary as the server writes
// it: what every overview starts from.
import { h } from './dom.js';
import { grouped } from './format.js';
import { go, state } from './state.js';

export const openTensor = (t) => go({ tab: 'tensor', t: t.index, at: null });

// A tensor table: the first `limit` tensors (all without one), and how
// many more there are.
export function tensorTable(tensors, limit) {
  const rows = tensors.slice(0, limit || tensors.length);
  return h('table', { class: 't', id: 'tensor-table' },
    h('thead', null, h('tr', null, h('th', null, 'name'), h('th', null, 'type'), h('th', null, 'shape'), h('th', null, 'elements'), h('th', null, 'storage'))),
    h('tbody', null, rows.map(tensorRow)),
    tensors.length > rows.length ? h('tfoot', null, h('tr', null, h('td', { colspan: 5, class: 'muted' }, `… ${tensors.length - rows.length} more in the Tensors tab (the search box finds any of them)`))) : null);
}

export function tensorRow(t) {
  return h('tr', { class: 'click', 'data-tensor': t.name, onclick: () => openTensor(t) },
    h('td', null, h('span', { class: 'link' }, t.name)),
    h('td', { class: 'mono' }, t.dtype),
    h('td', { class: 'mono' }, t.dims === null ? '?' : '[' + t.dims.join(', ') + ']'),
    h('td', { class: 'num' }, grouped(t.elements)),
    h('td', null, t.storage));
}

export function renderTensorList(body, tensors) {
  body.append(h('div', { class: 'card' }, tensorTable(tensors, 2000)));
}

// The open file's tensors by name (the first of a name), built once per file.
const byName = new WeakMap();
export function findTensor(name) {
  const o = state.open;
  if (!o) return undefined;
  let m = byName.get(o);
  if (!m) {
    m = new Map();
    for (const t of o.tensors || []) if (t && !m.has(t.name)) m.set(t.name, t);
    byName.set(o, m);
  }
  return m.get(name);
}

// A value's name, a link to its tensor when the file holds one of that name.
export function tensorLink(name) {
  const t = findTensor(name);
  return t ? h('span', { class: 'link', onclick: () => openTensor(t) }, name) : name;
}

// The format's summary as the server sends it: the lines the text view
// prints as its header, made by the same Rust code (nothing is counted or
// formatted here, so the page and the command line cannot disagree).
export function summaryCard(title) {
  const lines = state.open.summary_lines || [];
  if (!lines.length) return null;
  return h('div', { class: 'card', id: 'summary', 'data-file': state.key }, h('h3', null, title),
    h('dl', { class: 'kv' }, lines.map((l) => [h('dt', null, l.label), h('dd', { 'data-key': l.key }, l.text)])));
}
