// The explorer's Graph tab: a model's graphs drawn from the server's
// layout (/api/graph: boxes, edges as polylines, name-scope groups, all
// placed by the same Rust code as `decode --graph svg`). Only what is on
// screen is drawn, on a canvas, so a graph of 20,000 nodes pans and zooms
// as one of twenty does. Loaded after escape.js (xmlText) and before
// app.js, whose helpers (h, $, api, go, S, toast, tip) it uses when called.
'use strict';

// ---------- the server's answer, kept per file ----------
// One file's graph list and the layouts fetched so far (per graph and
// folding): a graph shown again, or a fold undone, draws at once.
const GraphCache = { key: null, as: null, list: null, answers: new Map() };
function graphCacheFor(key, as) {
  if (GraphCache.key !== key || GraphCache.as !== as) {
    GraphCache.key = key; GraphCache.as = as; GraphCache.list = null; GraphCache.answers = new Map();
  }
  return GraphCache;
}
// Graph `id` laid out with `fold` (auto, none, all) and the groups of
// `open` shown open: the server folds and places, the page draws.
function graphFetch(key, as, id, fold = 'auto', open = []) {
  const c = graphCacheFor(key, as);
  const openText = [...open].map(Number).sort((a, b) => a - b).join(',');
  const ck = `${id}|${fold}|${openText}`;
  if (!c.answers.has(ck)) {
    const params = { f: key, as, g: id };
    if (fold !== 'auto') params.fold = fold;
    if (openText) params.open = openText;
    c.answers.set(ck, api('/api/graph', params).then((r) => {
      c.list = c.list || r.graphs || [];
      return adoptGraph(r);
    }).catch((e) => { c.answers.delete(ck); throw e; }));
  }
  return c.answers.get(ck);
}

// The answer as the drawing code reads it: boxes as x, y (top left), w, h
// or null (a node inside a folded group); edges with a bounding box for
// drawing only what is on screen; producers and consumers per value.
function adoptGraph(r) {
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

// ---------- colours ----------
// The op families people expect to tell apart at a glance, in the colours
// Netron made familiar: convolutions blue, activations red, normalisation
// green, pooling teal, shape and data movement grey-violet.
const GRAPH_KIND_COLOURS = {
  conv: ['#335f9e', '#fff'], layer: ['#335f9e', '#fff'], linear: ['#335f9e', '#fff'], matmul: ['#335f9e', '#fff'],
  activation: ['#8c2f2f', '#fff'], normalization: ['#2f6f3e', '#fff'], normalisation: ['#2f6f3e', '#fff'],
  pooling: ['#2e6a6d', '#fff'], pool: ['#2e6a6d', '#fff'],
  shape: ['#6c5c84', '#fff'], transform: ['#6c5c84', '#fff'], tensor: ['#6c5c84', '#fff'], data: ['#6c5c84', '#fff'],
  recurrent: ['#7a4a1f', '#fff'], rnn: ['#7a4a1f', '#fff'], attention: ['#7a4a1f', '#fff'],
  control: ['#5b3f8c', '#fff'], function: ['#5b3f8c', '#fff'],
  constant: ['#d9dde5', '#1d2330'], quantization: ['#7d6a1f', '#fff'], quantize: ['#7d6a1f', '#fff'],
  math: ['#e4e7ee', '#1d2330'], elementwise: ['#e4e7ee', '#1d2330'], reduce: ['#4f5d75', '#fff'],
  logic: ['#e4e7ee', '#1d2330'], io: ['#f1f3f6', '#1d2330'], input: ['#f1f3f6', '#1d2330'],
  variable: ['#7a3e62', '#fff'],
};
// Open name scopes' frames: a translucent fill (nested frames deepen), a
// grey-blue edge and title.
const FRAME_FILL = 'rgba(59, 91, 219, 0.05)', FRAME_STROKE = '#aab3c8', FRAME_INK = '#4a5468';
function kindColours(kind) {
  return GRAPH_KIND_COLOURS[String(kind || '').toLowerCase()] || ['#e4e7ee', '#1d2330'];
}
function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

// A weight or value's type and shape as one text: FLOAT 1x3x224x224.
function typeShape(x) {
  if (!x) return '';
  return [x.type || '', x.shape || ''].filter(Boolean).join(' ');
}
const opTitle = (n) => n.op || '?';
// Elements of nested lists, the empty places left out (for the DOM's own
// append and replaceChildren).
const kids = (...xs) => xs.flat(Infinity).filter((x) => x !== null && x !== undefined && x !== false);
// An attribute's value without the `name=` the text view writes first.
function attrValueText(a) {
  const t = a.text === undefined || a.text === null ? '' : String(a.text);
  return t.startsWith(a.name + '=') ? t.slice(a.name.length + 1) : t;
}

// ---------- the tab ----------
// The Graph tab shown now (one at a time), for the page's search.
let graphView = null;

async function renderGraphTab(body) {
  const key = S.key, as = S.as;
  body.replaceChildren(h('p', { class: 'spin' }, 'Reading the graph…'));
  // The graph and node the address names, else the ones shown last.
  const r = readHash();
  if (r.g !== null) { S.graphId = r.g; S.graphNode = r.n !== null ? r.n : undefined; }
  const want = S.graphId !== undefined ? S.graphId : 0;
  let g;
  try { g = await graphFetch(key, as, want); } catch (e) {
    if (want !== 0) { S.graphId = undefined; try { g = await graphFetch(key, as, 0); } catch (e2) { e = e2; } }
    if (!g) { body.replaceChildren(h('div', { class: 'card error-card', id: 'graph-error' }, 'No graph: ' + e.message)); return; }
  }
  if (!body.isConnected || key !== S.key) return;
  const view = new GraphView(body, key, as, g.graphs);
  graphView = view;
  await view.show(g.id, { select: S.graphNode });
}
// The address names the graph and node shown (bookmarkable), replaced in
// place: moving about the graph adds no history.
function graphAddress() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.get('tab') !== 'graph') return;
  if (S.graphId !== undefined && S.graphId !== null) p.set('g', S.graphId); else p.delete('g');
  if (S.graphNode !== undefined && S.graphNode !== null) p.set('n', S.graphNode); else p.delete('n');
  const next = '#' + p.toString();
  if (next !== location.hash) history.replaceState(null, '', next);
}

class GraphView {
  constructor(body, key, as, graphs) {
    this.key = key; this.as = as; this.graphs = graphs || [];
    this.back = [];
    this.fold = 'auto'; this.open = new Set();
    this.k = 1; this.tx = 0; this.ty = 0;
    this.sel = null;
    this.hits = []; this.hitAt = -1;
    const btn = (label, title, fn, id) => h('button', { class: 'btn small', type: 'button', title, onclick: fn, id }, label);
    this.pick = h('select', { id: 'graph-pick', 'aria-label': 'Which graph' });
    this.pick.addEventListener('change', () => this.openGraph(Number(this.pick.value)));
    this.backBtn = btn('← back', 'Back to the graph this one was opened from (Backspace)', () => this.goBack(), 'graph-back');
    this.find = h('input', { type: 'search', id: 'graph-find', placeholder: 'find node, op, value', 'aria-label': 'Find in the graph', autocomplete: 'off' });
    this.find.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { this.search(this.find.value, e.shiftKey ? -1 : 1); e.preventDefault(); }
      if (e.key === 'Escape') { this.find.value = ''; this.canvas.focus(); }
    });
    this.find.addEventListener('input', () => { this.hits = []; this.hitAt = -1; this.findNote.textContent = ''; });
    this.findNote = h('span', { class: 'muted', id: 'graph-find-note' });
    this.bar = h('div', { class: 'graphbar' },
      this.backBtn, this.pick,
      btn('Fit', 'Fit the graph to the window (0)', () => this.fit(), 'graph-fit'),
      btn('−', 'Zoom out (-)', () => this.zoomBy(1 / 1.25), 'graph-zoom-out'),
      btn('+', 'Zoom in (+)', () => this.zoomBy(1.25), 'graph-zoom-in'),
      btn('Fold scopes', 'Fold every name scope into one box', () => this.refold('all', []), 'graph-fold'),
      btn('Unfold all', 'Draw every node', () => this.refold('none', []), 'graph-unfold'),
      btn('Export SVG', 'The whole graph as an SVG file', () => this.exportSvg(), 'graph-svg'),
      h('span', { class: 'grow' }), this.find, this.findNote);
    this.canvas = h('canvas', { id: 'graph-canvas', tabindex: 0, 'aria-label': 'The graph: drag to pan, wheel or + and - to zoom, arrows to move' });
    this.mini = h('canvas', { class: 'graph-mini', id: 'graph-mini', 'aria-hidden': 'true' });
    this.panel = h('aside', { class: 'graph-panel', id: 'node-panel', hidden: true });
    this.status = h('div', { class: 'graph-status', id: 'graph-status' });
    this.wrap = h('div', { class: 'graph-wrap', id: 'graph' }, this.canvas, this.mini, this.panel, this.status);
    this.fnBox = h('div', { class: 'graph-fns', id: 'graph-functions' });
    body.replaceChildren(this.bar, this.wrap, this.fnBox);
    this.listGraphs();
    this.bind();
  }

  graphEntry(id) { return this.graphs.find((x) => x.id === id); }
  graphLabel(e) {
    if (!e) return '?';
    if (e.kind === 'subgraph' && e.owner) {
      const o = e.owner;
      const parent = this.graphEntry(o.graph);
      return `${o.attribute} of node [${o.node}]` + (parent && parent.kind !== 'main' ? ' in ' + (parent.name || parent.id) : '') + (e.name && e.name !== o.attribute ? ` "${e.name}"` : '');
    }
    return e.name || String(e.id);
  }
  listGraphs() {
    const kinds = { main: 'graph', subgraph: 'subgraph', function: 'function' };
    this.pick.replaceChildren(...this.graphs.map((g) => h('option', { value: g.id },
      (kinds[g.kind] || g.kind || 'graph') + ': ' + this.graphLabel(g) + (g.nodes !== undefined ? '  · ' + Number(g.nodes).toLocaleString('en-US') + ' nodes' : ''))));
    this.pick.hidden = this.graphs.length < 2;
    const fns = this.graphs.filter((g) => g.kind === 'function');
    if (fns.length) {
      this.fnBox.classList.add('card');
      this.fnBox.replaceChildren(h('h3', null, `Functions (${fns.length})`),
        h('ul', null, fns.map((f) => h('li', null,
          h('span', { class: 'link', 'data-graph': f.id, onclick: () => { this.openGraph(f.id); this.wrap.scrollIntoView({ block: 'nearest' }); } }, f.name || String(f.id)),
          f.nodes !== undefined ? h('span', { class: 'muted' }, '  ' + Number(f.nodes).toLocaleString('en-US') + ' nodes') : null))));
    }
  }

  // Another graph of the file (a subgraph, a function), the way back kept.
  async openGraph(id) {
    if (this.g && id === this.g.id) return;
    if (this.g) this.back.push({ id: this.g.id, fold: this.fold, open: [...this.open], sel: this.sel ? this.sel.i : null, view: [this.k, this.tx, this.ty] });
    this.fold = 'auto'; this.open = new Set();
    await this.show(id, {});
  }
  async goBack() {
    const b = this.back.pop();
    if (!b) return;
    this.fold = b.fold; this.open = new Set(b.open);
    await this.show(b.id, { select: b.sel, view: b.view });
  }
  // Folds or opens groups: the server lays the graph out again.
  async refold(fold, open, then) {
    this.fold = fold; this.open = new Set(open);
    await this.show(this.g.id, { keep: true, select: this.sel ? this.sel.i : null, ...then });
  }
  // The groups shown open now.
  openGroups() {
    return this.g.groups.filter((gr) => !gr.folded).map((gr) => gr.id);
  }
  toggleGroup(gr) {
    const open = new Set(this.openGroups());
    if (gr.folded) open.add(gr.id); else open.delete(gr.id);
    return this.refold('all', [...open], { centre: gr.id });
  }
  // Opens the groups that hide node `n`, then selects it.
  async reveal(n) {
    const open = new Set(this.openGroups());
    for (let id = n.group; id !== null && id !== undefined;) {
      open.add(id);
      const gr = this.g.groupById.get(id);
      id = gr ? gr.parent : null;
    }
    await this.refold('all', [...open], { select: n.i, centreSel: true });
  }

  // opts: select (a node index), keep (the view stays), view ([k, tx,
  // ty]), centre (a group id), centreSel.
  async show(id, opts) {
    this.wrap.dataset.ready = '';
    this.status.textContent = 'laying the graph out…';
    let g;
    try { g = await graphFetch(this.key, this.as, id, this.fold, this.open); } catch (e) { this.status.textContent = e.message; this.wrap.dataset.ready = 'error'; return; }
    if (!this.wrap.isConnected) return;
    const had = this.g;
    this.g = g;
    S.graphId = g.id;
    this.pick.value = String(g.id);
    this.backBtn.hidden = !this.back.length;
    this.sel = null; this.siblings = null;
    this.panel.hidden = true; delete this.panel.dataset.node;
    this.hits = []; this.hitAt = -1;
    // Everything the graph holds, drawn or folded away: what tests and
    // scripts read.
    this.wrap.dataset.nodes = g.nodeCount;
    this.wrap.dataset.edges = g.edgeCount;
    this.wrap.dataset.graph = g.id;
    this.wrap.dataset.boxes = g.nodes.filter((n) => n.box).length;
    this.resize(false);
    if (opts.view) [this.k, this.tx, this.ty] = opts.view;
    else if (!opts.keep || !had || had.id !== g.id) this.start();
    if (opts.centre !== undefined) { const gr = g.groupById.get(opts.centre); const b = gr && (gr.box || null); if (b) this.centreOn(b, false); }
    const kindText = g.kind === 'function' ? 'function' : g.kind === 'subgraph' ? 'subgraph' : 'graph';
    this.status.textContent = `${kindText} ${g.name || ''}: ${Number(g.nodeCount).toLocaleString('en-US')} nodes, ${Number(g.edgeCount).toLocaleString('en-US')} edges` +
      (g.groups.some((gr) => gr.folded) ? ` (${g.groups.filter((gr) => gr.folded).length} scopes folded: click one to open it)` : '');
    const n = opts.select !== undefined && opts.select !== null ? g.byIndex.get(Number(opts.select)) : null;
    if (n) this.select(n, opts.centreSel || !opts.keep); else { S.graphNode = undefined; graphAddress(); this.draw(); }
    this.wrap.dataset.ready = '1';
  }

  // ---------- view transform ----------
  resize(redraw = true) {
    const r = this.wrap.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.cw = Math.max(50, Math.floor(r.width) - 2); this.ch = Math.max(50, Math.floor(r.height) - 2);
    this.canvas.width = Math.round(this.cw * dpr); this.canvas.height = Math.round(this.ch * dpr);
    this.canvas.style.width = this.cw + 'px'; this.canvas.style.height = this.ch + 'px';
    this.dpr = dpr;
    if (this.g) {
      // The overview: the graph's proportions within 150 x 200 px, shown
      // when the graph is much larger than the window; a very long or
      // wide graph stretched across to at least 40 px.
      const s = Math.min(150 / Math.max(1, this.g.W), 200 / Math.max(1, this.g.H));
      this.msx = Math.max(s, 40 / Math.max(1, this.g.W)); this.msy = Math.max(s, 40 / Math.max(1, this.g.H));
      const mw = Math.max(24, Math.ceil(this.g.W * this.msx)), mh = Math.max(24, Math.ceil(this.g.H * this.msy));
      this.mini.width = Math.round(mw * dpr); this.mini.height = Math.round(mh * dpr);
      this.mini.style.width = mw + 'px'; this.mini.style.height = mh + 'px';
      this.mini.bitmap = null;
      this.mini.hidden = this.g.W < this.cw * 1.5 && this.g.H < this.ch * 1.5;
    }
    if (redraw) this.draw();
  }
  // The whole graph in the window; a long one no smaller than makes its
  // boxes readable as shapes, from the top.
  fit(redraw = true) {
    if (!this.g) return;
    const pad = 24;
    const whole = Math.min((this.cw - 2 * pad) / Math.max(1, this.g.W), (this.ch - 2 * pad) / Math.max(1, this.g.H), 1);
    this.k = Math.max(whole, 0.0005);
    this.tx = (this.cw - this.g.W * this.k) / 2;
    this.ty = Math.max(pad, (this.ch - this.g.H * this.k) / 2);
    if (redraw) this.draw();
  }
  // The first view: the whole graph when it is readable so, else its top
  // at a readable size, as wide as the window allows.
  start() {
    this.fit(false);
    if (this.k >= 0.6) return;
    const pad = 24;
    this.k = Math.max(0.6, Math.min(1, (this.cw - 2 * pad) / Math.max(1, this.g.W)));
    // The graph flows down from its inputs: the topmost box (an input
    // first) centred across, at the top.
    let top = null;
    for (const list of [this.g.ios, this.g.nodes, this.g.groups]) {
      for (const b of list) if (b.box && (!top || b.box.y < top.y)) top = b.box;
      if (top && list === this.g.ios) break;
    }
    this.tx = top ? this.cw / 2 - (top.x + top.w / 2) * this.k : Math.max(pad, (this.cw - this.g.W * this.k) / 2);
    this.ty = 2 * pad - (top ? top.y * this.k : 0);
  }
  zoomBy(f, cx, cy) {
    cx = cx ?? this.cw / 2; cy = cy ?? this.ch / 2;
    const k = Math.min(6, Math.max(0.0005, this.k * f));
    this.tx = cx - (cx - this.tx) * (k / this.k);
    this.ty = cy - (cy - this.ty) * (k / this.k);
    this.k = k;
    this.draw();
  }
  panBy(dx, dy) { this.tx += dx; this.ty += dy; this.draw(); }
  centreOn(b, zoomIn) {
    if (zoomIn && this.k < 0.8) this.k = 1;
    // Beside the node panel when it is open.
    const w = this.panel.hidden ? this.cw : this.cw - this.panel.offsetWidth;
    this.tx = w / 2 - (b.x + b.w / 2) * this.k;
    this.ty = this.ch / 2 - (b.y + b.h / 2) * this.k;
    this.draw();
  }
  toWorld(px, py) { return [(px - this.tx) / this.k, (py - this.ty) / this.k]; }
  // Where a node's centre is on the page (for tests and the panel).
  screenOf(n) {
    const r = this.canvas.getBoundingClientRect();
    return n.box ? [r.left + this.tx + (n.box.x + n.box.w / 2) * this.k, r.top + this.ty + (n.box.y + n.box.h / 2) * this.k] : null;
  }

  // ---------- drawing ----------
  draw() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.paint(); });
  }
  paint() {
    const g = this.g;
    if (!g) return;
    const t0 = performance.now();
    const c = this.canvas.getContext('2d');
    const k = this.k;
    const col = {
      bg: cssVar('--panel2') || '#f1f3f6', text: cssVar('--text') || '#1d2330', muted: cssVar('--muted') || '#667085',
      line: cssVar('--line') || '#dfe3ea', panel: cssVar('--panel') || '#fff', accent: cssVar('--accent') || '#3b5bdb',
      mono: cssVar('--mono') || 'monospace', sans: cssVar('--sans') || 'sans-serif',
    };
    c.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    c.fillStyle = col.bg;
    c.fillRect(0, 0, this.cw, this.ch);
    c.setTransform(this.dpr * k, 0, 0, this.dpr * k, this.dpr * this.tx, this.dpr * this.ty);
    // What is on screen, in the graph's coordinates.
    const [vx0, vy0] = this.toWorld(0, 0);
    const [vx1, vy1] = this.toWorld(this.cw, this.ch);
    const on = (b) => b && b.x + b.w >= vx0 && b.x <= vx1 && b.y + b.h >= vy0 && b.y <= vy1;
    const detail = k >= 0.3;   // words readable
    const labels = k >= 0.65;  // edge labels readable
    let drawnNodes = 0, drawnEdges = 0;

    // Open groups' frames under everything, outer ones first (groups come
    // after their parents): a light fill that deepens with nesting, the
    // scope's name on the top edge (a click there folds it).
    c.lineWidth = 1 / k;
    c.strokeStyle = FRAME_STROKE;
    c.fillStyle = FRAME_FILL;
    for (const gr of g.groups) {
      if (gr.folded || !on(gr.box)) continue;
      roundRect(c, gr.box.x, gr.box.y, gr.box.w, gr.box.h, 8); c.fill(); c.stroke();
    }
    if (detail) {
      c.fillStyle = FRAME_INK; c.font = '600 11px ' + col.sans; c.textBaseline = 'middle'; c.textAlign = 'left';
      for (const gr of g.groups) if (!gr.folded && on(gr.box)) fitText(c, '▾ ' + (gr.name || gr.path), gr.box.x + 8, gr.box.y + 11, gr.box.w - 16);
    }
    // Edges: one path for all, their heads, then their labels.
    // Lines a pixel wide however far out, a little more close up.
    c.strokeStyle = col.muted; c.lineWidth = k >= 1 ? 1.2 : 1 / k;
    c.beginPath();
    const shown = [];
    for (const e of g.edges) {
      if (e.pts.length < 2 || e.bx1 < vx0 || e.bx > vx1 || e.by1 < vy0 || e.by > vy1) continue;
      drawnEdges++;
      shown.push(e);
      c.moveTo(e.pts[0][0], e.pts[0][1]);
      for (let q = 1; q < e.pts.length; q++) c.lineTo(e.pts[q][0], e.pts[q][1]);
    }
    c.stroke();
    if (detail) {
      c.fillStyle = col.muted;
      c.beginPath();
      for (const e of shown) {
        const n = e.pts.length;
        const [x1, y1] = e.pts[n - 1], [x0, y0] = e.pts[n - 2];
        const a = Math.atan2(y1 - y0, x1 - x0), s = 7;
        c.moveTo(x1, y1);
        c.lineTo(x1 - s * Math.cos(a - 0.4), y1 - s * Math.sin(a - 0.4));
        c.lineTo(x1 - s * Math.cos(a + 0.4), y1 - s * Math.sin(a + 0.4));
        c.closePath();
      }
      c.fill();
    }
    if (labels) {
      c.font = '10px ' + col.mono; c.fillStyle = col.muted; c.textBaseline = 'middle'; c.textAlign = 'left';
      for (const e of shown) {
        const t = typeShape(e);
        if (!t) continue;
        const [x, y] = edgeLabelAt(e);
        c.fillText(t, x + 5, y);
      }
    }
    // Boxes: batched by colour when too small to read.
    const visible = [];
    for (const n of g.nodes) if (on(n.box)) visible.push(n);
    drawnNodes = visible.length;
    if (!detail) {
      const byFill = new Map();
      for (const n of visible) {
        const [fill] = kindColours(n.kind);
        if (!byFill.has(fill)) byFill.set(fill, []);
        byFill.get(fill).push(n.box);
      }
      for (const [fill, list] of byFill) {
        c.fillStyle = fill;
        c.beginPath();
        for (const b of list) c.rect(b.x, b.y, b.w, b.h);
        c.fill();
      }
      c.fillStyle = col.panel; c.strokeStyle = col.muted; c.lineWidth = 1 / k;
      c.beginPath();
      for (const p of g.ios) if (on(p.box)) c.rect(p.box.x, p.box.y, p.box.w, p.box.h);
      c.fill(); c.stroke();
    } else {
      c.textBaseline = 'middle';
      for (const n of visible) {
        const b = n.box;
        const [fill, ink] = kindColours(n.kind);
        const head = Math.min(b.h, 22);
        c.fillStyle = col.panel;
        roundRect(c, b.x, b.y, b.w, b.h, 5); c.fill();
        c.fillStyle = fill;
        roundRect(c, b.x, b.y, b.w, head, 5, b.h > head + 2 ? 'top' : 'all'); c.fill();
        c.strokeStyle = col.line; c.lineWidth = 1 / k;
        roundRect(c, b.x, b.y, b.w, b.h, 5); c.stroke();
        c.fillStyle = ink; c.textAlign = 'center';
        shrinkText(c, n.label[0], b.x + b.w / 2, b.y + head / 2 + 0.5, b.w - 8, '600 ', col.sans);
        // The weights inside, a line each: W<16x3x3x3> B<16>.
        c.textAlign = 'left'; c.font = '11px ' + col.mono; c.fillStyle = col.text;
        let y = b.y + head + 9;
        for (const line of n.label.slice(1)) {
          if (y > b.y + b.h - 3) break;
          fitText(c, line, b.x + 6, y, b.w - 12);
          y += 14;
        }
      }
      // Graph inputs and outputs: their own rounded boxes, name and type.
      for (const p of g.ios) {
        if (!on(p.box)) continue;
        const b = p.box;
        c.fillStyle = col.panel; c.strokeStyle = col.text; c.lineWidth = 1.2 / Math.max(k, 1);
        roundRect(c, b.x, b.y, b.w, b.h, Math.min(12, b.h / 2)); c.fill(); c.stroke();
        c.fillStyle = col.text; c.font = '600 11px ' + col.mono; c.textAlign = 'center';
        const two = b.h >= 30 && typeShape(p);
        fitText(c, p.name || '', b.x + b.w / 2, b.y + b.h / 2 - (two ? 7 : 0), b.w - 12);
        if (two) { c.fillStyle = col.muted; c.font = '10px ' + col.mono; fitText(c, typeShape(p), b.x + b.w / 2, b.y + b.h / 2 + 8, b.w - 12); }
        c.textAlign = 'left';
      }
    }
    // Folded groups: one box each, over their place.
    for (const gr of g.groups) {
      if (!gr.folded || !on(gr.box)) continue;
      const b = gr.box;
      drawnNodes++;
      c.fillStyle = col.panel; c.strokeStyle = col.accent; c.lineWidth = 1.5 / Math.max(k, 0.2);
      roundRect(c, b.x, b.y, b.w, b.h, 6); c.fill(); c.stroke();
      if (detail) {
        c.fillStyle = col.text; c.textAlign = 'center'; c.textBaseline = 'middle';
        const two = b.h >= 34;
        shrinkText(c, gr.name || gr.path, b.x + b.w / 2, b.y + b.h / 2 - (two ? 7 : 0), b.w - 8, '600 ', col.sans);
        if (two) { c.fillStyle = col.muted; c.font = '11px ' + col.sans; fitText(c, Number(gr.nodes).toLocaleString('en-US') + ' nodes', b.x + b.w / 2, b.y + b.h / 2 + 9, b.w - 10); }
        c.textAlign = 'left';
      }
    }
    // The selection, and what it connects to.
    if (this.sel && this.sel.box) {
      const b = this.sel.box;
      c.strokeStyle = col.accent; c.lineWidth = 3 / k;
      roundRect(c, b.x - 3 / k, b.y - 3 / k, b.w + 6 / k, b.h + 6 / k, 7); c.stroke();
    }
    this.canvas.dataset.drawnNodes = drawnNodes;
    this.canvas.dataset.drawnEdges = drawnEdges;
    this.paintMini();
    // How long drawing took (scripts/bench_graph_page.mjs reads it).
    this.lastPaint = { at: performance.now(), ms: performance.now() - t0, nodes: drawnNodes, edges: drawnEdges };
  }
  paintMini() {
    if (this.mini.hidden || !this.g) return;
    const g = this.g, sx = this.msx, sy = this.msy, dpr = this.dpr;
    const c = this.mini.getContext('2d');
    if (!this.mini.bitmap) {
      // The whole graph once, a pixel or more per box written straight
      // into the picture (20,000 boxes cost a few milliseconds); the
      // window's rectangle is drawn over it each time.
      const off = document.createElement('canvas');
      const W = off.width = this.mini.width, H = off.height = this.mini.height;
      const o = off.getContext('2d');
      const img = o.createImageData(W, H);
      const px = img.data;
      const fillBox = (b, [r, gg, bb]) => {
        const x0 = Math.max(0, Math.floor(b.x * sx * dpr)), y0 = Math.max(0, Math.floor(b.y * sy * dpr));
        const x1 = Math.min(W, Math.max(x0 + 1, Math.ceil((b.x + b.w) * sx * dpr))), y1 = Math.min(H, Math.max(y0 + 1, Math.ceil((b.y + b.h) * sy * dpr)));
        for (let y = y0; y < y1; y++) {
          for (let x = x0, at = (y * W + x0) * 4; x < x1; x++, at += 4) { px[at] = r; px[at + 1] = gg; px[at + 2] = bb; px[at + 3] = 255; }
        }
      };
      const light = new Set(['#e4e7ee', '#d9dde5', '#f1f3f6']);
      const rgbOf = new Map();
      const rgb = (fill) => {
        if (!rgbOf.has(fill)) { const hex = light.has(fill) ? '#9aa3b5' : fill; rgbOf.set(fill, [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16))); }
        return rgbOf.get(fill);
      };
      for (const gr of g.groups) if (gr.folded && gr.box) fillBox(gr.box, rgb('#3b5bdb'));
      for (const n of g.nodes) if (n.box) fillBox(n.box, rgb(kindColours(n.kind)[0]));
      o.putImageData(img, 0, 0);
      this.mini.bitmap = off;
    }
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.clearRect(0, 0, this.mini.width, this.mini.height);
    c.drawImage(this.mini.bitmap, 0, 0);
    const [x0, y0] = this.toWorld(0, 0), [x1, y1] = this.toWorld(this.cw, this.ch);
    // The window's rectangle in the overview's pixels (its two scales).
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.strokeStyle = cssVar('--accent') || '#3b5bdb'; c.lineWidth = 1.5;
    c.fillStyle = 'rgba(59, 91, 219, .12)';
    c.fillRect(x0 * sx, y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy);
    c.strokeRect(x0 * sx, y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy);
  }

  // ---------- pointing ----------
  // What is under a point of the canvas: a node, a folded group, an open
  // group's title line, a graph input or output.
  hit(px, py) {
    const g = this.g;
    if (!g) return null;
    const [x, y] = this.toWorld(px, py);
    const inside = (b) => b && x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h;
    for (const gr of g.groups) if (gr.folded && inside(gr.box)) return { group: gr };
    for (const n of g.nodes) if (inside(n.box)) return { node: n };
    for (const p of g.ios) if (inside(p.box)) return { port: p };
    // The innermost open group whose title line is there.
    let best = null;
    for (const gr of g.groups) {
      if (gr.folded || !gr.box) continue;
      const b = gr.box;
      if (x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + 20 / Math.min(1, this.k) && (!best || b.w * b.h < best.box.w * best.box.h)) best = gr;
    }
    return best ? { group: best } : null;
  }
  bind() {
    const cv = this.canvas;
    let drag = null;
    cv.addEventListener('pointerdown', (e) => {
      cv.focus({ preventScroll: true });
      drag = { x: e.clientX, y: e.clientY, moved: false };
      cv.setPointerCapture(e.pointerId);
    });
    cv.addEventListener('pointermove', (e) => {
      if (drag) {
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
        if (drag.moved) { drag.x = e.clientX; drag.y = e.clientY; cv.style.cursor = 'grabbing'; this.panBy(dx, dy); }
        return;
      }
      const r = cv.getBoundingClientRect();
      const hit = this.hit(e.clientX - r.left, e.clientY - r.top);
      cv.style.cursor = hit ? 'pointer' : 'grab';
      if (hit && hit.node) tip((hit.node.name || `[${hit.node.i}]`) + '\n' + opTitle(hit.node), e);
      else if (hit && hit.port) tip(`graph ${hit.port.side} ${hit.port.name || ''}\n${typeShape(hit.port)}`, e);
      else if (hit && hit.group) tip(`${hit.group.folded ? 'open' : 'fold'} ${hit.group.path} (${hit.group.nodes} nodes)`, e);
      else tip(null);
    });
    cv.addEventListener('pointerup', (e) => {
      const d = drag;
      drag = null;
      cv.style.cursor = 'grab';
      if (!d || d.moved) return;
      const r = cv.getBoundingClientRect();
      const hit = this.hit(e.clientX - r.left, e.clientY - r.top);
      tip(null);
      if (!hit) this.select(null);
      else if (hit.node) this.select(hit.node);
      else if (hit.group) this.toggleGroup(hit.group);
      else if (hit.port) this.showPort(hit.port);
    });
    cv.addEventListener('pointerleave', () => tip(null));
    cv.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = cv.getBoundingClientRect();
      // A wheel zooms about the pointer; a sideways swipe pans.
      if (e.ctrlKey || Math.abs(e.deltaY) >= Math.abs(e.deltaX)) {
        this.zoomBy(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)), e.clientX - r.left, e.clientY - r.top);
      } else this.panBy(-e.deltaX, 0);
    }, { passive: false });
    cv.addEventListener('keydown', (e) => this.onKey(e));
    // The overview centres the window where it is clicked or dragged to.
    let miniDrag = false;
    const miniGo = (e) => {
      const r = this.mini.getBoundingClientRect();
      const x = (e.clientX - r.left) / this.msx, y = (e.clientY - r.top) / this.msy;
      this.tx = this.cw / 2 - x * this.k; this.ty = this.ch / 2 - y * this.k;
      this.draw();
    };
    this.mini.addEventListener('pointerdown', (e) => { miniDrag = true; this.mini.setPointerCapture(e.pointerId); miniGo(e); });
    this.mini.addEventListener('pointermove', (e) => { if (miniDrag) miniGo(e); });
    this.mini.addEventListener('pointerup', () => { miniDrag = false; });
    if ('ResizeObserver' in window) {
      let size = '';
      const ro = new ResizeObserver(() => {
        if (!this.wrap.isConnected) { ro.disconnect(); return; }
        const r = this.wrap.getBoundingClientRect();
        const now = Math.floor(r.width) + 'x' + Math.floor(r.height);
        if (now !== size) { size = now; this.resize(); }
      });
      ro.observe(this.wrap);
    }
  }
  onKey(e) {
    const k = e.key;
    if (k === '+' || k === '=') { this.zoomBy(1.25); e.preventDefault(); return; }
    if (k === '-' || k === '_') { this.zoomBy(1 / 1.25); e.preventDefault(); return; }
    if (k === '0') { this.fit(); e.preventDefault(); return; }
    if (k === 'Escape') { this.select(null); e.preventDefault(); return; }
    if (k === 'Backspace' && this.back.length) { this.goBack(); e.preventDefault(); return; }
    if (k === 'Enter' && this.sel) {
      const sub = [...this.sel.subgraphs, ...this.sel.calls];
      if (sub.length) { this.openGraph(sub[0]); e.preventDefault(); }
      return;
    }
    const dir = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [1, 0], ArrowRight: [-1, 0] }[k];
    if (!dir) return;
    e.preventDefault();
    if (!this.sel || e.shiftKey) { this.panBy(dir[0] * 80, dir[1] * 80); return; }
    // Between connected nodes: up to what feeds the selected node, down to
    // what reads it, left and right among the nodes that step offered
    // (or, with no choice, to the nearest node that side).
    if (k === 'ArrowUp' || k === 'ArrowDown') {
      const next = k === 'ArrowUp' ? this.producersOf(this.sel) : this.consumersOf(this.sel);
      if (!next.length) return;
      const sx = this.sel.box ? this.sel.box.x : 0;
      next.sort((a, b) => (a.box && b.box ? Math.abs(a.box.x - sx) - Math.abs(b.box.x - sx) : 0));
      this.siblings = next;
      this.goTo(next[0]);
      return;
    }
    if (this.siblings && this.siblings.length > 1 && this.siblings.includes(this.sel)) {
      const ordered = [...this.siblings].sort((a, b) => (a.box && b.box ? a.box.x - b.box.x : 0));
      const at = ordered.indexOf(this.sel);
      const n = ordered[at + (k === 'ArrowRight' ? 1 : -1)];
      if (n) this.goTo(n, true);
      return;
    }
    const s = this.sel.box;
    if (!s) return;
    const right = k === 'ArrowRight';
    let best = null, bd = Infinity;
    for (const n of this.g.nodes) {
      if (n === this.sel || !n.box) continue;
      const dx = (n.box.x + n.box.w / 2) - (s.x + s.w / 2);
      if (right ? dx <= 0 : dx >= 0) continue;
      const d = Math.abs(dx) + 3 * Math.abs((n.box.y + n.box.h / 2) - (s.y + s.h / 2));
      if (d < bd) { bd = d; best = n; }
    }
    if (best) this.goTo(best, true);
  }
  // Selects a node, opening the groups that hide it; `keepSiblings` keeps
  // the choice the last step up or down offered.
  goTo(n, keepSiblings) {
    const sib = this.siblings;
    if (!n.box) { this.reveal(n); return; }
    this.select(n, true);
    if (keepSiblings) this.siblings = sib;
  }
  producersOf(n) {
    const out = [];
    for (const x of n.inputs) {
      const v = this.g.values.get(x.name);
      const p = v && v.producer !== null ? this.g.byIndex.get(v.producer) : null;
      if (p && !out.includes(p)) out.push(p);
    }
    return out;
  }
  consumersOf(n) {
    const out = [];
    for (const o of n.outputs) {
      const v = this.g.values.get(o.name);
      for (const i of (v && v.consumers) || []) { const c = this.g.byIndex.get(i); if (c && !out.includes(c)) out.push(c); }
    }
    return out;
  }

  // ---------- search ----------
  // By node name, op or value name (exact matches first); Enter goes to
  // the next hit, shift+Enter back, each centred and its panel opened.
  search(q, step) {
    q = q.trim().toLowerCase();
    if (!q || !this.g) return;
    if (!this.hits.length || this.hitQ !== q) {
      const exact = [], part = [];
      for (const n of this.g.nodes) {
        const names = [n.name || '', opTitle(n), ...n.outputs.map((o) => o.name || ''), ...n.inputs.map((o) => o.name || '')].map((x) => x.toLowerCase());
        if (names.includes(q)) exact.push(n); else if (names.some((x) => x.includes(q))) part.push(n);
      }
      this.hits = [...exact, ...part]; this.hitQ = q; this.hitAt = -1;
    }
    if (!this.hits.length) { this.findNote.textContent = 'not found'; return; }
    this.hitAt = (this.hitAt + step + this.hits.length) % this.hits.length;
    this.findNote.textContent = `${this.hitAt + 1} of ${this.hits.length}`;
    this.goTo(this.hits[this.hitAt]);
  }
  // The graph a search result of the page names by its route: the main
  // graph, function `fn` (the model's k-th) or the TensorFlow function
  // named `tfFunction`, then down `steps`, each [node index, attribute]
  // as the graph list names a subgraph's owner (`body`, `graphs[1]`).
  // Null when the file's graph list has no such graph.
  graphOfRoute(route) {
    let at = null;
    if (route.tfFunction !== undefined) {
      const f = this.graphs.find((x) => x.kind === 'function' && x.name === route.tfFunction);
      at = f ? f.id : null;
    } else if (route.fn !== null && route.fn !== undefined) {
      const f = this.graphs.filter((x) => x.kind === 'function')[route.fn];
      at = f ? f.id : null;
    } else {
      const m = this.graphs.find((x) => x.kind === 'main');
      at = m ? m.id : null;
    }
    for (const [node, attribute] of route.steps || []) {
      if (at === null) break;
      const sub = this.graphs.find((x) => x.kind === 'subgraph' && x.owner && x.owner.graph === at && x.owner.node === node && x.owner.attribute === attribute);
      at = sub ? sub.id : null;
    }
    return at;
  }
  // Node `i` of graph `id` (the page's search box): that graph drawn (the
  // way back kept), the node centred and its panel opened.
  async showNode(id, i) {
    if (!this.g || this.g.id !== id) await this.openGraph(id);
    const n = this.g && this.g.id === id ? this.g.byIndex.get(i) : null;
    if (n) this.goTo(n);
  }

  // ---------- the node panel ----------
  select(n, centre) {
    this.sel = n;
    this.siblings = null;
    if (!n) { this.panel.hidden = true; delete this.panel.dataset.node; S.graphNode = undefined; graphAddress(); this.draw(); return; }
    S.graphNode = n.i;
    graphAddress();
    this.renderPanel(n);
    if (centre && n.box) this.centreOn(n.box, true); else this.draw();
  }
  nodeLink(i) {
    const n = this.g.byIndex.get(i);
    if (!n) return h('span', { class: 'muted' }, `[${i}]`);
    return h('span', { class: 'link', 'data-goto': n.name || String(n.i), title: opTitle(n), onclick: () => this.goTo(n) }, n.name || `[${n.i}] ${opTitle(n)}`);
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
  renderPanel(n) {
    const p = this.panel;
    p.hidden = false;
    p.dataset.node = n.name || '';
    p.dataset.index = n.i;
    const op = opTitle(n);
    const onnx = S.open && S.open.format === 'onnx-model';
    const kv = [];
    const row = (k, v, id) => kv.push(h('dt', null, k), h('dd', { id }, v));
    row('op', h('span', { class: 'mono' }, (n.domain ? n.domain + '.' : '') + op), 'node-op');
    if (n.version !== undefined && n.version !== null) row('version', h('span', { class: 'mono' }, (n.domain || 'ai.onnx') + ' opset ' + show(n.version)), 'node-version');
    row('index', h('span', { class: 'mono' }, `node[${n.i}]`));
    if (n.kind) row('kind', n.kind);
    // Its name scopes, innermost last, each foldable into one box.
    const scopes = [];
    for (let id = n.group; id !== null && id !== undefined;) {
      const gr = this.g.groupById.get(id);
      if (!gr) break;
      scopes.unshift(gr);
      id = gr.parent;
    }
    if (scopes.length) {
      row('scope', h('span', null, h('span', { class: 'mono' }, scopes[scopes.length - 1].path),
        h('span', { class: 'folds' }, scopes.map((gr) => h('button', { class: 'btn small', type: 'button', 'data-fold': gr.path, title: `fold ${gr.path} (${gr.nodes} nodes) into one box`, onclick: () => this.toggleGroup(gr) }, 'fold ' + (gr.name || gr.path))))), 'node-scope');
    }
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
    const tensorNames = new Map((S.open && S.open.tensors || []).filter(Boolean).map((t) => [t.index, t.name]));
    const attrOpens = (a) => {
      const links = [
        ...(a.tensors || []).map((t, k) => (t === null || t === undefined ? null : this.tensorLink(t, tensorNames.get(t) || `[${k}]`))),
        ...(a.graphs || []).map((id, k) => h('span', { class: 'link', 'data-attr-graph': id, title: 'open this graph', onclick: () => this.openGraph(id) },
          `graph ${(a.graphs.length > 1 ? `[${k}] ` : '')}"${(this.graphEntry(id) || {}).name || id}"`)),
      ].filter(Boolean);
      return links.length ? h('div', { class: 'attr-opens' }, 'open ', links.map((l, k) => [k ? ', ' : '', l])) : null;
    };
    const attrs = n.attributes.map((a) => h('tr', { 'data-attr': a.name },
      h('td', { class: 'mono nowrap' }, a.name),
      h('td', { class: 'mono attr-text', 'data-text': a.text }, a.tensor !== null && a.tensor !== undefined ? this.tensorLink(a.tensor, attrValueText(a)) : attrValueText(a), attrOpens(a))));
    const opens = [...n.subgraphs.map((id) => ['subgraph', id]), ...n.calls.map((id) => ['function', id])];
    p.replaceChildren(...kids(
      h('div', { class: 'ph' }, h('h2', { title: n.name || '' }, n.name || `[${n.i}]`),
        h('button', { class: 'x', type: 'button', title: 'Close (Esc)', onclick: () => this.select(null) }, '×')),
      h('dl', { class: 'kv' }, kv),
      onnx && (!n.domain || n.domain === 'ai.onnx') ? h('p', { class: 'oplink' }, h('a', { href: 'https://onnx.ai/onnx/operators/onnx__' + encodeURIComponent(op) + '.html', target: '_blank', rel: 'noopener noreferrer', id: 'op-doc' }, op + ' in ONNX\'s operator docs ↗')) : null,
      opens.length ? h('div', { class: 'opens' }, opens.map(([what, id]) => h('button', { class: 'btn small', type: 'button', 'data-open-graph': id, onclick: () => this.openGraph(id) }, `open ${what} ${this.graphLabel(this.graphEntry(id))}`))) : null,
      n.inputs.length ? [h('h3', null, `Inputs (${n.inputs.length})`), h('table', { class: 't io', id: 'node-inputs' }, h('tbody', null, n.inputs.map((x, k) => slot(x, k, 'from'))))] : null,
      n.outputs.length ? [h('h3', null, `Outputs (${n.outputs.length})`), h('table', { class: 't io', id: 'node-outputs' }, h('tbody', null, n.outputs.map((x, k) => slot(x, k, 'to'))))] : null,
      attrs.length ? [h('h3', null, `Attributes (${attrs.length})`), h('table', { class: 't io', id: 'node-attrs' }, h('tbody', null, attrs))] : null,
      n.doc ? [h('h3', null, 'Doc'), h('pre', { class: 'doc', id: 'node-doc' }, n.doc)] : null));
    p.scrollTop = 0;
  }
  showPort(port) {
    this.sel = null;
    const p = this.panel;
    p.hidden = false;
    p.dataset.node = '';
    p.replaceChildren(
      h('div', { class: 'ph' }, h('h2', null, port.name || ''), h('button', { class: 'x', type: 'button', title: 'Close (Esc)', onclick: () => this.select(null) }, '×')),
      h('dl', { class: 'kv' }, h('dt', null, 'graph ' + port.side), h('dd', { class: 'mono' }, typeShape(port) || 'type not declared')),
      h('p', { class: 'vl' }, this.valueLinks(port.name, port.side === 'input' ? 'to' : 'from')));
    this.draw();
  }

  // ---------- export ----------
  // The whole graph (as folded now), not just the window, as an SVG file.
  exportSvg() {
    const base = S.open ? S.open.file.name.split('/').pop() : 'graph';
    const name = base + (this.g.kind === 'main' ? '' : '.' + String(this.g.name || this.g.id).replace(/[^\w.-]+/g, '_')) + '.svg';
    const blob = new Blob([graphSvg(this.g)], { type: 'image/svg+xml' });
    const a = h('a', { href: URL.createObjectURL(blob), download: name });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
}

// Where an edge's label goes: beside the middle of its polyline.
function edgeLabelAt(e) {
  const m = Math.floor((e.pts.length - 1) / 2);
  const [ax, ay] = e.pts[m], [bx, by] = e.pts[m + 1] || e.pts[m];
  return [(ax + bx) / 2, (ay + by) / 2];
}

// Every box and edge of a laid-out graph as an SVG document, drawn as the
// canvas draws them. Every text a file controls through xmlText
// (escape.js), the rule of `decode --graph svg`.
function graphSvg(g) {
  const esc = xmlText;
  const W = Math.ceil(g.W) + 20, H = Math.ceil(g.H) + 20;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="-10 -10 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    '<defs><marker id="head" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L8 4L0 8z" fill="#667085"/></marker></defs>',
    `<rect x="-10" y="-10" width="${W}" height="${H}" fill="#f1f3f6"/>`];
  for (const gr of g.groups) {
    if (!gr.box || gr.folded) continue;
    const b = gr.box;
    out.push(`<g class="group"><rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="8" fill="${FRAME_FILL}" stroke="${FRAME_STROKE}"/><text x="${b.x + 8}" y="${b.y + 15}" fill="${FRAME_INK}" font-size="11" font-weight="600">${esc(gr.name || gr.path)}</text></g>`);
  }
  for (const e of g.edges) {
    if (e.pts.length < 2) continue;
    out.push(`<polyline class="edge" points="${e.pts.map((p) => p.join(',')).join(' ')}" fill="none" stroke="#667085" marker-end="url(#head)"><title>${esc(e.value || '')}</title></polyline>`);
    const t = typeShape(e);
    if (t) { const [x, y] = edgeLabelAt(e); out.push(`<text x="${x + 5}" y="${y + 3}" fill="#667085" font-size="10" font-family="monospace">${esc(t)}</text>`); }
  }
  for (const n of g.nodes) {
    if (!n.box) continue;
    const b = n.box;
    const [fill, ink] = kindColours(n.kind);
    const head = Math.min(b.h, 22);
    out.push(`<g class="node"><title>${esc(n.name || '')}</title><rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="5" fill="#fff" stroke="#dfe3ea"/><rect x="${b.x}" y="${b.y}" width="${b.w}" height="${head}" rx="5" fill="${fill}"/><text x="${b.x + b.w / 2}" y="${b.y + head / 2 + 4}" text-anchor="middle" fill="${ink}" font-weight="600">${esc(n.label[0])}</text>`);
    n.label.slice(1).forEach((line, q) => { if (head + 13 + q * 14 < b.h) out.push(`<text x="${b.x + 6}" y="${b.y + head + 13 + q * 14}" font-family="monospace" font-size="11">${esc(line)}</text>`); });
    out.push('</g>');
  }
  for (const gr of g.groups) {
    if (!gr.box || !gr.folded) continue;
    const b = gr.box;
    out.push(`<g class="folded"><rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="6" fill="#fff" stroke="#3b5bdb" stroke-width="1.5"/><text x="${b.x + b.w / 2}" y="${b.y + b.h / 2 + 4}" text-anchor="middle" font-weight="600">${esc((gr.name || gr.path) + ' (' + gr.nodes + ' nodes)')}</text></g>`);
  }
  for (const p of g.ios) {
    const b = p.box;
    out.push(`<g class="port"><rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="${Math.min(12, b.h / 2)}" fill="#fff" stroke="#1d2330"/><text x="${b.x + b.w / 2}" y="${b.y + b.h / 2 + 4}" text-anchor="middle" font-family="monospace" font-size="11">${esc(p.name || '')}</text></g>`);
  }
  out.push('</svg>');
  return out.join('\n');
}

// A rectangle with rounded corners (all four, or the top two).
function roundRect(c, x, y, w, hh, r, which = 'all') {
  r = Math.max(0, Math.min(r, w / 2, hh / 2));
  c.beginPath();
  c.moveTo(x + r, y);
  c.lineTo(x + w - r, y); c.quadraticCurveTo(x + w, y, x + w, y + r);
  if (which === 'top') { c.lineTo(x + w, y + hh); c.lineTo(x, y + hh); } else {
    c.lineTo(x + w, y + hh - r); c.quadraticCurveTo(x + w, y + hh, x + w - r, y + hh);
    c.lineTo(x + r, y + hh); c.quadraticCurveTo(x, y + hh, x, y + hh - r);
  }
  c.lineTo(x, y + r); c.quadraticCurveTo(x, y, x + r, y);
  c.closePath();
}
// A box's title: in a smaller font (12 px down to 9) rather than cut, as
// the server sized the box for its own font's widths.
function shrinkText(c, t, x, y, max, weight, family) {
  for (let px = 12; px >= 9; px--) {
    c.font = `${weight}${px}px ${family}`;
    if (c.measureText(t).width <= max) break;
  }
  fitText(c, t, x, y, max);
}
// Text cut with … at the end to fit `max` pixels.
function fitText(c, t, x, y, max) {
  if (max <= 4 || !t) return;
  if (c.measureText(t).width <= max) { c.fillText(t, x, y); return; }
  let lo = 0, hi = t.length;
  while (lo < hi) { const mid = Math.ceil((lo + hi) / 2); if (c.measureText(t.slice(0, mid) + '…').width <= max) lo = mid; else hi = mid - 1; }
  c.fillText(t.slice(0, lo) + '…', x, y);
}

// ---------- the tensor view's links into the graph ----------
// The nodes that read a tensor and the node that makes it (a Constant,
// a Const), in every graph of the file, one click from its page.
async function graphTensorLinks(box, t) {
  const o = S.open;
  if (!o || !hasGraph(o)) return;
  const key = S.key, as = S.as;
  let r;
  try { r = await api('/api/graph', { f: key, as, tensor: t.index }); } catch { return; }
  if (!box.isConnected || key !== S.key) return;
  const uses = (r.uses || []).filter((u) => u.producer !== null || (u.consumers || []).length);
  if (!uses.length) return;
  const card = h('div', { class: 'card', id: 'tensor-nodes' }, h('h3', null, 'In the graph'));
  box.append(card);
  const dl = h('dl', { class: 'kv' });
  card.append(dl);
  for (const u of uses.slice(0, 6)) {
    // The nodes' names: from the graph's layout, fetched once per file.
    let g = null;
    try { g = await graphFetch(key, as, u.graph); } catch { /* indices only */ }
    if (!card.isConnected) return;
    const link = (i) => {
      const n = g && g.byIndex.get(i);
      return h('span', { class: 'link', 'data-goto': n ? n.name || String(i) : String(i), 'data-graph': u.graph,
        onclick: () => { S.graphId = u.graph; S.graphNode = i; go({ tab: 'graph', t: null, at: null, g: u.graph, n: i }); } },
      n ? n.name || `[${i}]` : `[${i}]`, n ? h('span', { class: 'muted' }, ' ' + opTitle(n)) : null);
    };
    const where = g && g.kind !== 'main' ? h('span', { class: 'muted' }, ` (in ${g.kind} ${g.name || u.graph})`) : null;
    const consumers = u.consumers || [];
    if (u.producer !== null && u.producer !== undefined) dl.append(h('dt', null, 'made by'), h('dd', { class: 'made-by' }, link(u.producer), where));
    if (consumers.length) {
      dl.append(h('dt', null, 'used by'), h('dd', { class: 'used-by' }, consumers.slice(0, 30).map((i, q) => [q ? ', ' : '', link(i)]),
        consumers.length > 30 ? ` and ${consumers.length - 30} more` : '', where));
    }
  }
}
