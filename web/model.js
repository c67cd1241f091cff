// The overview of a file with graphs (the server's `overview: model`): its
// summary, then its nodes as the contract JSON holds them, one line each
// (a graph under `graph`, as a ModelProto's, with its subgraphs under
// their nodes and its functions; or nodes at the top, as a GraphDef's),
// its initializers. A model whose JSON holds neither (a SavedModel) shows
// its text first (its signatures), then its tensors.
import { h } from './dom.js';
import { attrText, tfAttr, typeText } from './format.js';
import { go, state } from './state.js';
import { findTensor, summaryCard, tensorLink, tensorTable } from './tensor-list.js';
import { renderText } from './text.js';

export function renderModel(body, tensors) {
  const v = state.open.decoded.value || {};
  if (v.graph) renderGraphNodes(body, v, tensors);
  else if (Array.isArray(v.node)) renderNodeTable(body, v.node, tensors);
  else renderSummary(body, tensors, true);
}

// The summary, the tensors and the text view: the overview of a file
// without nodes to list (`textFirst`: a model's text, its signatures, first).
export function renderSummary(body, tensors, textFirst) {
  const o = state.open;
  const d = o.decoded;
  body.append(h('div', { class: 'card' }, h('h3', null, o.title),
    h('dl', { class: 'kv' }, h('dt', null, 'type'), h('dd', { class: 'mono' }, d.type || '—'),
      d.also ? [h('dt', null, 'also valid as'), h('dd', { class: 'mono' }, d.also.join(', '))] : null)));
  body.append(summaryCard('Summary') || '');
  const text = h('div');
  const textCard = h('div', { class: 'card' }, h('h3', null, 'As the command line shows it'), text);
  const list = tensors.length ? h('div', { class: 'card' }, h('h3', null, `Tensors (${tensors.length})`), tensorTable(tensors, 30)) : '';
  if (textFirst) body.append(textCard, list); else body.append(list, textCard);
  renderText(text, true);
}

function renderGraphNodes(body, m, tensors) {
  const inits = tensors.filter((t) => t.initializer);
  body.append(summaryCard(state.open.title) || '');
  body.append(graphBlock(m.graph, 0));
  if (inits.length) body.append(h('div', { class: 'card', id: 'initializers' }, h('h3', null, `Initializers (${inits.length})`), h('div', { class: 'scrollbox' }, tensorTable(inits, 500))));
  (m.functions || []).forEach((f, fi) => {
    const det = h('details', { class: 'card', 'data-sub': `F${fi}/` }, h('summary', null, h('b', null, 'function '), (f.domain ? f.domain + '.' : '') + f.name + '(' + (f.input || []).join(', ') + ') → (' + (f.output || []).join(', ') + ')'));
    det.fill = () => {};
    det.append(graphBlock({ node: f.node }, 1, `F${fi}/`));
    body.append(det);
  });
}

// A graph's nodes; `prefix` is the graph's place, so that a search result
// finds its node: '' for the main graph, `F<k>/` for function k, and
// `<node>.<attribute>.<graph>/` after its parent's for a subgraph.
function graphBlock(g, depth, prefix = '') {
  const wrap = h('div');
  const ioRow = (v) => h('tr', null, h('td', { class: 'mono' }, tensorLink(v.name)), h('td', { class: 'mono' }, typeText(v.type)));
  const ios = (label, list) => {
    if (!list || !list.length) return null;
    const table = h('table', { class: 't' }, h('tbody', null, list.slice(0, 12).map(ioRow)));
    const card = h('div', { class: 'card' }, h('h3', null, `${label} (${list.length})`), table);
    if (list.length > 12) {
      const more = h('button', { class: 'btn small', onclick: () => { table.tBodies[0].append(...list.slice(12).map(ioRow)); more.remove(); } }, `show ${list.length - 12} more`);
      card.append(more);
    }
    return card;
  };
  if (depth === 0) wrap.append(h('div', { class: 'cols2' }, ios('Inputs', g.input), ios('Outputs', g.output)));
  const nodes = g.node || [];
  const list = h('div', { class: 'nodes', 'data-graph': prefix });
  const attrLink = (n, a) => h('span', { class: 'link', onclick: () => { const t = findTensor(a.t.name || (n.output || [])[0]); if (t) go({ tab: 'tensor', t: t.index, at: null }); } }, attrText(a));
  const nodeLine = (n, i) => {
    const outs = (n.output || []).join(', ');
    const ins = (n.input || []).map((x) => (x === '' ? '""' : x));
    const op = (n.domain ? n.domain + '.' : '') + n.op_type;
    list.append(h('div', { class: 'node', 'data-node': n.name || '', 'data-op': n.op_type, 'data-i': depth === 0 ? i : null, 'data-path': prefix + i },
      h('span', { class: 'muted' }, `[${i}] `), outs, ' = ', h('span', { class: 'op' }, op), '(',
      ins.map((x, k) => [k ? ', ' : '', tensorLink(x)]), ')',
      (n.attribute || []).length ? h('span', { class: 'attrs' }, ' {', n.attribute.map((a, k) => [k ? ', ' : '', a.t ? attrLink(n, a) : attrText(a)]), '}') : null,
      n.name ? h('span', { class: 'nm' }, '  # ' + n.name) : null));
    (n.attribute || []).forEach((a, ai) => {
      const subs = a.g ? [a.g] : a.graphs || [];
      subs.forEach((sg, k) => {
        const sub = `${prefix}${i}.${ai}.${k}/`;
        const det = h('details', { class: 'sub', 'data-sub': sub }, h('summary', null, `${a.name}${subs.length > 1 ? '[' + k + ']' : ''}: graph "${sg.name || ''}" (${(sg.node || []).length} nodes)`));
        det.fill = () => { if (det.children.length === 1) det.append(graphBlock(sg, depth + 1, sub)); };
        det.addEventListener('toggle', () => { if (det.open) det.fill(); });
        list.append(det);
      });
    });
  };
  // Nodes are drawn 300 at a time, more as the list scrolls into view: a
  // graph of 20,000 nodes opens at once.
  let drawn = 0;
  const more = h('button', { class: 'btn small more' });
  const drawTo = (n) => {
    while (drawn < Math.min(n, nodes.length)) { nodeLine(nodes[drawn], drawn); drawn++; }
    if (drawn < nodes.length) { more.textContent = `show more (${nodes.length - drawn} nodes left)`; list.append(more); } else more.remove();
  };
  more.addEventListener('click', () => drawTo(drawn + 1000));
  // The top-level list scrolls in its own box, so that drawing more nodes
  // never pushes what follows it away.
  if (depth === 0) list.classList.add('scrollbox');
  if ('IntersectionObserver' in window) {
    new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) drawTo(drawn + 300); }, { root: depth === 0 ? list : null }).observe(more);
  }
  list.drawTo = drawTo;
  drawTo(300);
  wrap.append(depth === 0 ? h('div', { class: 'card' }, h('h3', null, `Nodes (${nodes.length})`), list) : list);
  return wrap;
}

// Nodes at the top of the decoded value (a GraphDef's), in a table.
function renderNodeTable(body, nodes, tensors) {
  body.append(summaryCard(state.open.title) || '');
  body.append(h('div', { class: 'card' }, h('h3', null, `Nodes (${nodes.length})`),
    h('table', { class: 't' }, h('thead', null, h('tr', null, h('th', null, 'name'), h('th', null, 'op'), h('th', null, 'inputs'), h('th', null, 'attributes'))),
      h('tbody', null, nodes.slice(0, 1000).map((n, i) => h('tr', { class: 'node', 'data-node': n.name, 'data-i': i },
        h('td', { class: 'mono' }, n.op === 'Const' ? tensorLink(n.name) : n.name),
        h('td', { class: 'mono op' }, n.op),
        h('td', { class: 'mono' }, (n.input || []).join(', ')),
        h('td', { class: 'mono attrs' }, Object.entries(n.attr || {}).map(([k, v]) => k + '=' + tfAttr(v)).join(', '))))))));
  if (tensors.length) body.append(h('div', { class: 'card' }, h('h3', null, 'Tensors'), tensorTable(tensors, 200)));
}
