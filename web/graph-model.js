// A graph as the Graph tab draws it, from the server's /api/graph answer
// (docs/json-contract.md, "The graph of a model"): boxes as x, y (top
// left), w, h or null (a node inside a folded group), edges with the box
// around their polyline, the groups by id, who makes and who reads each
// value. Pure (no DOM, no request), tested under node.

export const opTitle = (n) => n.op || '?';

// The answer completed for drawing.
export function adoptGraph(r) {
  const g = r.graph || {};
  const num = (v) => Number(v) || 0;
  const box = (b) => (b ? { x: num(b.x), y: num(b.y), w: num(b.w), h: num(b.h) } : null);
  // The answer's own objects, completed in place: a graph of 20,000 nodes
  // is not copied.
  const nodes = g.nodes || [];
  nodes.forEach((n, k) => {
    n.box = box(n.box);
    n.i = n.index !== undefined ? n.index : k;
    n.weights = n.weights || []; n.inputs = n.inputs || []; n.outputs = n.outputs || [];
    n.attributes = n.attributes || []; n.subgraphs = n.subgraphs || []; n.calls = n.calls || [];
    if (!n.label || !n.label.length) n.label = [n.op || '?'];
  });
  const ios = [];
  for (const [list, side] of [[g.inputs || [], 'input'], [g.outputs || [], 'output']]) {
    for (const v of list) { v.box = box(v.box); v.side = side; if (v.box) ios.push(v); }
  }
  const edges = g.edges || [];
  for (const e of edges) {
    const pts = e.points || [];
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const [x, y] of pts) { if (x < x0) x0 = x; if (y < y0) y0 = y; if (x > x1) x1 = x; if (y > y1) y1 = y; }
    e.pts = pts; e.bx = x0; e.by = y0; e.bx1 = x1; e.by1 = y1;
  }
  const groups = g.groups || [];
  for (const gr of groups) gr.box = box(gr.box);
  const groupById = new Map(groups.map((gr) => [gr.id, gr]));
  let W = num(g.width), H = num(g.height);
  for (const list of [nodes, ios, groups]) for (const b of list) if (b.box) { W = Math.max(W, b.box.x + b.box.w); H = Math.max(H, b.box.y + b.box.h); }
  const byIndex = new Map(nodes.map((n) => [n.i, n]));
  // Who makes and who reads each value, over every node (folded or not).
  const values = new Map();
  const entry = (v) => { let e = values.get(v); if (!e) { e = { producer: null, consumers: [], type: '', shape: '' }; values.set(v, e); } return e; };
  for (const n of nodes) for (const o of n.outputs) if (o.name) entry(o.name).producer = n.i;
  for (const n of nodes) for (const x of n.inputs) if (x.name) { const e = entry(x.name); if (e.consumers[e.consumers.length - 1] !== n.i) e.consumers.push(n.i); }
  const declare = (name, x) => { const v = values.get(name); if (v && !v.type && !v.shape) { v.type = x.type || ''; v.shape = x.shape || ''; } };
  for (const e of edges) if (e.value) declare(e.value, e);
  for (const n of nodes) for (const w of n.weights) if (w.name) declare(w.name, w);
  for (const p of [...(g.inputs || []), ...(g.outputs || [])]) if (p.name) { entry(p.name); declare(p.name, p); }
  const counts = g.counts || {};
  return {
    id: g.id, name: g.name, kind: g.kind, fold: g.fold,
    nodes, ios, edges, groups, groupById, byIndex, values, W, H,
    nodeCount: counts.nodes !== undefined ? counts.nodes : nodes.length,
    edgeCount: counts.edges !== undefined ? counts.edges : edges.length,
    graphs: r.graphs || [],
  };
}
