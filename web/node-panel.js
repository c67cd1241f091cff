// The Graph tab's node panel, over the right of the drawing: a node's op
// (its version, its operator docs), its name scopes (each foldable), its
// inputs and outputs by their formal names with where each value comes
// from and goes, its attributes as the text view writes them (tensors and
// graphs they hold one click away), the subgraphs it opens; a graph
// input's or output's type. A node folded away into a scope keeps its
// panel, which says so and opens the scope.
import { h, kids } from './dom.js';
import { attrValueText, show, typeShape } from './format.js';
import { opTitle } from './graph-model.js';
import { drawnBoxOf, scopesOf } from './graph-geometry.js';
import { go, state } from './state.js';

export class NodePanel {
  // `view` is the GraphView the panel belongs to (its graph `g`, and the
  // moves it makes: goTo, openGraph, toggleGroup, reveal, select).
  constructor(view) {
    this.view = view;
    this.el = h('aside', { class: 'graph-panel', id: 'node-panel', hidden: true });
  }
  get g() { return this.view.g; }
  hide() {
    this.el.hidden = true;
    delete this.el.dataset.node;
    delete this.el.dataset.index;
  }

  nodeLink(i) {
    const n = this.g.byIndex.get(i);
    if (!n) return h('span', { class: 'muted' }, `[${i}]`);
    return h('span', { class: 'link', 'data-goto': n.name || String(n.i), title: opTitle(n), onclick: () => this.view.goTo(n) }, n.name || `[${n.i}] ${opTitle(n)}`);
  }
  // The node that makes a value, or the nodes that read it, one click away.
  valueLinks(name, side) {
    const v = this.g.values.get(name);
    if (!v) return null;
    if (side === 'from') {
      if (v.producer === null) {
        const input = this.g.ios.some((p) => p.side === 'input' && p.name === name);
        const weight = this.g.nodes.some((n) => n.weights.some((w) => w.name === name));
        return h('span', { class: 'muted' }, input ? 'graph input' : weight ? 'initializer' : this.g.kind === 'subgraph' ? 'from the enclosing graph' : 'made by no node');
      }
      return h('span', null, 'from ', this.nodeLink(v.producer));
    }
    const out = this.g.ios.some((p) => p.side === 'output' && p.name === name);
    if (!v.consumers.length) return h('span', { class: 'muted' }, out ? 'graph output' : 'read by no node');
    const first = v.consumers.slice(0, 12);
    return h('span', null, 'to ', first.map((i, q) => [q ? ', ' : '', this.nodeLink(i)]),
      v.consumers.length > first.length ? ` and ${v.consumers.length - first.length} more` : '', out ? ' and the graph output' : '');
  }
  tensorLink(t, label) {
    return h('span', { class: 'link', 'data-tensor-id': t, title: 'open in the tensor view', onclick: () => go({ tab: 'tensor', t: Number(t), at: null }) }, label);
  }

  show(n) {
    const p = this.el;
    const view = this.view;
    p.hidden = false;
    p.dataset.node = n.name || '';
    p.dataset.index = n.i;
    const op = opTitle(n);
    // An op of ONNX's default domain (the answer gives ONNX nodes their opset).
    const onnxOp = n.version !== undefined && n.version !== null && (!n.domain || n.domain === 'ai.onnx');
    const kv = [];
    const row = (k, v, id) => kv.push(h('dt', null, k), h('dd', { id }, v));
    row('op', h('span', { class: 'mono' }, (n.domain ? n.domain + '.' : '') + op), 'node-op');
    if (n.version !== undefined && n.version !== null) row('version', h('span', { class: 'mono' }, (n.domain || 'ai.onnx') + ' opset ' + show(n.version)), 'node-version');
    row('index', h('span', { class: 'mono' }, `node[${n.i}]`));
    if (n.kind) row('kind', n.kind);
    // Folded away: drawn as its scope's box, which the view shows lit.
    const drawn = drawnBoxOf(this.g, n);
    // Its name scopes, innermost last, each drawn open foldable into one box.
    const scopes = scopesOf(this.g, n);
    const foldable = drawn && drawn.group ? scopes.slice(0, scopes.indexOf(drawn.group)) : scopes;
    if (scopes.length) {
      row('scope', h('span', null, h('span', { class: 'mono' }, scopes[scopes.length - 1].path),
        h('span', { class: 'folds' }, foldable.map((gr) => h('button', { class: 'btn small', type: 'button', 'data-fold': gr.path, title: `fold ${gr.path} (${gr.nodes} nodes) into one box`, onclick: () => view.toggleGroup(gr) }, 'fold ' + (gr.name || gr.path))))), 'node-scope');
    }
    const folded = drawn && drawn.group ? h('div', { class: 'note folded-in', id: 'node-folded' }, 'Folded into ',
      h('span', { class: 'mono' }, drawn.group.path), ' (lit in the drawing). ',
      h('button', { class: 'btn small', type: 'button', id: 'node-unfold', onclick: () => view.reveal(n) }, 'Open it')) : null;
    const weightOf = new Map(n.weights.map((w) => [w.input, w]));
    const slot = (x, k, side) => {
      const w = side === 'from' ? weightOf.get(k) : null;
      const v = x.name ? this.g.values.get(x.name) : null;
      const what = w ? typeShape(w) : typeShape(v);
      const name = x.name === '' ? h('span', { class: 'muted' }, '(omitted)')
        : w && w.tensor !== null && w.tensor !== undefined ? this.tensorLink(w.tensor, x.name) : (x.control ? '^' : '') + x.name;
      return h('tr', { 'data-value': x.name || '' },
        h('td', { class: 'mono nowrap formal' }, x.formal || (w && w.formal) || ''),
        h('td', { class: 'mono' }, name, w ? h('span', { class: 'badge plain' }, 'weight') : null,
          what ? h('div', { class: 'muted shape' }, what) : null,
          x.name ? h('div', { class: 'vl' }, this.valueLinks(x.name, side)) : null));
    };
    // A list of tensors or graphs: each one opens (the tensor view, the
    // graph's drawing), under the text the text view prints.
    const tensorNames = new Map(((state.open && state.open.tensors) || []).filter(Boolean).map((t) => [t.index, t.name]));
    const attrOpens = (a) => {
      const links = [
        ...(a.tensors || []).map((t, k) => (t === null || t === undefined ? null : this.tensorLink(t, tensorNames.get(t) || `[${k}]`))),
        ...(a.graphs || []).map((id, k) => h('span', { class: 'link', 'data-attr-graph': id, title: 'open this graph', onclick: () => view.openGraph(id) },
          `graph ${(a.graphs.length > 1 ? `[${k}] ` : '')}"${(view.graphEntry(id) || {}).name || id}"`)),
      ].filter(Boolean);
      return links.length ? h('div', { class: 'attr-opens' }, 'open ', links.map((l, k) => [k ? ', ' : '', l])) : null;
    };
    const attrs = n.attributes.map((a) => h('tr', { 'data-attr': a.name },
      h('td', { class: 'mono nowrap' }, a.name),
      h('td', { class: 'mono attr-text', 'data-text': a.text }, a.tensor !== null && a.tensor !== undefined ? this.tensorLink(a.tensor, attrValueText(a)) : attrValueText(a), attrOpens(a))));
    const opens = [...n.subgraphs.map((id) => ['subgraph', id]), ...n.calls.map((id) => ['function', id])];
    p.replaceChildren(...kids(
      h('div', { class: 'ph' }, h('h2', { title: n.name || '' }, n.name || `[${n.i}]`),
        h('button', { class: 'x', type: 'button', title: 'Close (Esc)', onclick: () => view.select(null) }, '×')),
      folded,
      h('dl', { class: 'kv' }, kv),
      onnxOp ? h('p', { class: 'oplink' }, h('a', { href: 'https://onnx.ai/onnx/operators/onnx__' + encodeURIComponent(op) + '.html', target: '_blank', rel: 'noopener noreferrer', id: 'op-doc' }, op + ' in ONNX\'s operator docs ↗')) : null,
      opens.length ? h('div', { class: 'opens' }, opens.map(([what, id]) => h('button', { class: 'btn small', type: 'button', 'data-open-graph': id, onclick: () => view.openGraph(id) }, `open ${what} ${view.graphLabel(view.graphEntry(id))}`))) : null,
      n.inputs.length ? [h('h3', null, `Inputs (${n.inputs.length})`), h('table', { class: 't io', id: 'node-inputs' }, h('tbody', null, n.inputs.map((x, k) => slot(x, k, 'from'))))] : null,
      n.outputs.length ? [h('h3', null, `Outputs (${n.outputs.length})`), h('table', { class: 't io', id: 'node-outputs' }, h('tbody', null, n.outputs.map((x, k) => slot(x, k, 'to'))))] : null,
      attrs.length ? [h('h3', null, `Attributes (${attrs.length})`), h('table', { class: 't io', id: 'node-attrs' }, h('tbody', null, attrs))] : null,
      n.doc ? [h('h3', null, 'Doc'), h('pre', { class: 'doc', id: 'node-doc' }, n.doc)] : null));
    p.scrollTop = 0;
  }

  // A graph input or output: its type and where its value goes or comes from.
  showPort(port) {
    const p = this.el;
    p.hidden = false;
    p.dataset.node = '';
    delete p.dataset.index;
    p.replaceChildren(
      h('div', { class: 'ph' }, h('h2', null, port.name || ''), h('button', { class: 'x', type: 'button', title: 'Close (Esc)', onclick: () => this.view.select(null) }, '×')),
      h('dl', { class: 'kv' }, h('dt', null, 'graph ' + port.side), h('dd', { class: 'mono' }, typeShape(port) || 'type not declared')),
      h('p', { class: 'vl' }, this.valueLinks(port.name, port.side === 'input' ? 'to' : 'from')));
  }
}
