// The Graph tab's view of one file's graphs: the toolbar, the drawing
// (graph-paint.js) with its overview, the node panel (node-panel.js). It
// keeps what is shown (graph, folding, view, selection) and makes every
// change of graph end with a view that shows what was asked: a graph
// opened (picked, from a node, from the address) at its first view, the
// way back to the view it was left at, a folding changed around the
// selected node (or the group just opened or folded), a node found
// centred (or the folded group that holds it, lit, its panel kept). Input
// only records the wanted view; one animation frame draws it, however
// many events came (graph-input.js).
import { h } from './dom.js';
import { graphFetch } from './graph-data.js';
import { drawnBoxOf, firstView, fitView, showBox, zoomAbout } from './graph-geometry.js';
import { bindInput, searchGraph } from './graph-input.js';
import { overviewImage, paintGraph } from './graph-paint.js';
import { graphSvg } from './graph-svg.js';
import { NodePanel } from './node-panel.js';
import { graphAddress, state, update } from './state.js';

export class GraphView {
  constructor(body, key, as, graphs) {
    this.key = key; this.as = as; this.graphs = graphs || [];
    this.g = null;
    this.back = [];
    this.fold = 'auto'; this.open = new Set();
    this.v = { k: 1, tx: 0, ty: 0 };
    this.sel = null;
    this.hits = []; this.hitAt = -1; this.hitQ = '';
    this.frame = 0;
    this.paints = 0; // frames drawn (tests count them against input events)
    this.lastPaint = null;
    const btn = (label, title, fn, id) => h('button', { class: 'btn small', type: 'button', title, onclick: fn, id }, label);
    this.pick = h('select', { id: 'graph-pick', 'aria-label': 'Which graph' });
    this.pick.addEventListener('change', () => this.openGraph(Number(this.pick.value)));
    this.backBtn = btn('← back', 'Back to the graph this one was opened from (Backspace)', () => this.goBack(), 'graph-back');
    this.find = h('input', { type: 'search', id: 'graph-find', placeholder: 'find node, op, value', 'aria-label': 'Find in the graph', autocomplete: 'off' });
    this.find.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { searchGraph(this, this.find.value, e.shiftKey ? -1 : 1); e.preventDefault(); }
      if (e.key === 'Escape') { this.find.value = ''; this.canvas.focus(); }
    });
    this.find.addEventListener('input', () => { this.hits = []; this.hitAt = -1; this.findNote.textContent = ''; });
    this.findNote = h('span', { class: 'muted', id: 'graph-find-note' });
    this.bar = h('div', { class: 'graphbar' },
      this.backBtn, this.pick,
      btn('Fit', 'The whole graph in the window (0)', () => this.setView(fitView(this.g, this.cw, this.ch)), 'graph-fit'),
      btn('−', 'Zoom out (-)', () => this.zoomBy(1 / 1.25), 'graph-zoom-out'),
      btn('+', 'Zoom in (+)', () => this.zoomBy(1.25), 'graph-zoom-in'),
      btn('Fold scopes', 'Fold every name scope into one box', () => this.refold('all', []), 'graph-fold'),
      btn('Unfold all', 'Draw every node', () => this.refold('none', []), 'graph-unfold'),
      btn('Export SVG', 'The whole graph as an SVG file', () => this.exportSvg(), 'graph-svg'),
      h('span', { class: 'grow' }), this.find, this.findNote);
    this.canvas = h('canvas', { id: 'graph-canvas', tabindex: 0, 'aria-label': 'The graph: drag to pan, wheel or + and - to zoom, arrows to move' });
    this.mini = h('canvas', { class: 'graph-mini', id: 'graph-mini', 'aria-hidden': 'true' });
    this.panel = new NodePanel(this);
    this.status = h('div', { class: 'graph-status', id: 'graph-status' });
    this.wrap = h('div', { class: 'graph-wrap', id: 'graph' }, this.canvas, this.mini, this.panel.el, this.status);
    this.fnBox = h('div', { class: 'graph-fns', id: 'graph-functions' });
    body.replaceChildren(this.bar, this.wrap, this.fnBox);
    this.listGraphs();
    bindInput(this);
  }
  // The view's zoom and place (scripts and tests read them).
  get k() { return this.v.k; }
  get tx() { return this.v.tx; }
  get ty() { return this.v.ty; }

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
    if (!fns.length) return;
    this.fnBox.classList.add('card');
    this.fnBox.replaceChildren(h('h3', null, `Functions (${fns.length})`),
      h('ul', null, fns.map((f) => h('li', null,
        h('span', { class: 'link', 'data-graph': f.id, onclick: () => { this.openGraph(f.id); this.wrap.scrollIntoView({ block: 'nearest' }); } }, f.name || String(f.id)),
        f.nodes !== undefined ? h('span', { class: 'muted' }, '  ' + Number(f.nodes).toLocaleString('en-US') + ' nodes') : null))));
  }

  // ---------- changes of graph ----------
  // Another graph of the file (a subgraph, a function), the way back kept.
  async openGraph(id) {
    if (this.g && id === this.g.id) return;
    if (this.g) this.back.push({ id: this.g.id, fold: this.fold, open: [...this.open], sel: this.sel ? this.sel.i : null, view: { ...this.v } });
    this.fold = 'auto'; this.open = new Set();
    await this.show(id, {});
  }
  async goBack() {
    const b = this.back.pop();
    if (!b) return;
    this.fold = b.fold; this.open = new Set(b.open);
    await this.show(b.id, { select: b.sel, view: b.view });
  }
  // Folds or opens groups: the server lays the graph out again, the
  // selection kept.
  async refold(fold, open, then = {}) {
    this.fold = fold; this.open = new Set(open);
    await this.show(this.g.id, { select: this.sel ? this.sel.i : null, ...then });
  }
  // The groups shown open now.
  openGroups() { return this.g.groups.filter((gr) => !gr.folded).map((gr) => gr.id); }
  // Opens a folded group, or folds an open one; the view shows it.
  toggleGroup(gr) {
    const open = new Set(this.openGroups());
    if (gr.folded) open.add(gr.id); else open.delete(gr.id);
    return this.refold('all', [...open], { centre: gr.id });
  }
  // Opens the groups that hide node `n`, then selects it.
  async reveal(n) {
    const open = new Set(this.openGroups());
    for (let id = n.group, steps = 0; id !== null && id !== undefined && steps <= this.g.groups.length; steps++) {
      open.add(id);
      const gr = this.g.groupById.get(id);
      id = gr ? gr.parent : null;
    }
    await this.refold('all', [...open], { select: n.i });
  }

  // Shows graph `id` as folded now. opts: `select` (a node index: centred,
  // its panel open), `view` (the view to restore: the way back), `centre`
  // (a group id: shown). Without any, the graph's first view.
  async show(id, opts) {
    this.wrap.dataset.ready = '';
    this.status.textContent = 'laying the graph out…';
    let g;
    try { g = await graphFetch(this.key, this.as, id, this.fold, this.open); } catch (e) { this.status.textContent = e.message; this.wrap.dataset.ready = 'error'; return; }
    if (!this.wrap.isConnected) return;
    this.g = g;
    update({ graphId: g.id });
    this.pick.value = String(g.id);
    this.backBtn.hidden = !this.back.length;
    this.sel = null; this.siblings = null;
    this.panel.hide();
    this.hits = []; this.hitAt = -1;
    // Everything the graph holds, drawn or folded away: what tests and
    // scripts read.
    this.wrap.dataset.nodes = g.nodeCount;
    this.wrap.dataset.edges = g.edgeCount;
    this.wrap.dataset.graph = g.id;
    this.wrap.dataset.boxes = g.nodes.filter((n) => n.box).length;
    this.resize(false);
    const kindText = g.kind === 'function' ? 'function' : g.kind === 'subgraph' ? 'subgraph' : 'graph';
    const folded = g.groups.filter((gr) => gr.folded).length;
    this.status.textContent = `${kindText} ${g.name || ''}: ${Number(g.nodeCount).toLocaleString('en-US')} nodes, ${Number(g.edgeCount).toLocaleString('en-US')} edges` +
      (folded ? ` (${folded} scopes folded: click one to open it)` : '');
    const n = opts.select !== undefined && opts.select !== null ? g.byIndex.get(Number(opts.select)) : null;
    const gr = opts.centre !== undefined ? g.groupById.get(opts.centre) : null;
    if (opts.view) this.v = { ...opts.view };
    else if (gr && gr.box) this.v = showBox(gr.box, this.v.k, this.cw, this.ch);
    else if (!n || !drawnBoxOf(g, n)) this.v = firstView(g, this.cw, this.ch);
    if (n) this.select(n, !opts.view && !(gr && gr.box));
    else { update({ graphNode: null }); graphAddress(); this.draw(); }
    this.wrap.dataset.ready = '1';
  }

  // ---------- the node panel ----------
  // Selects node `n` (null: none), its panel open; `centre`: the view
  // shows it (or the folded group it is drawn as).
  select(n, centre) {
    this.sel = n;
    this.siblings = null;
    if (!n) { this.panel.hide(); update({ graphNode: null }); graphAddress(); this.draw(); return; }
    update({ graphNode: n.i });
    graphAddress();
    this.panel.show(n);
    const drawn = drawnBoxOf(this.g, n);
    if (centre && drawn) this.setView(showBox(drawn.box, this.v.k, this.cw, this.ch, this.panelWidth(), true));
    else this.draw();
  }
  showPort(port) {
    this.sel = null;
    this.panel.showPort(port);
    this.draw();
  }
  panelWidth() { return this.panel.el.hidden ? 0 : this.panel.el.offsetWidth; }
  // Selects a node, opening the groups that hide it; `keepSiblings` keeps
  // the choice the last step up or down offered.
  goTo(n, keepSiblings) {
    const sib = this.siblings;
    if (!n.box) { this.reveal(n); return; }
    this.select(n, true);
    if (keepSiblings) this.siblings = sib;
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

  // ---------- the view ----------
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
  setView(v) { this.v = v; this.draw(); }
  zoomBy(f, cx = this.cw / 2, cy = this.ch / 2) { this.setView(zoomAbout(this.v, f, cx, cy)); }
  panBy(dx, dy) { this.setView({ k: this.v.k, tx: this.v.tx + dx, ty: this.v.ty + dy }); }
  centreOn(b, zoomIn) { this.setView(showBox(b, this.v.k, this.cw, this.ch, this.panelWidth(), zoomIn)); }
  toWorld(px, py) { return [(px - this.v.tx) / this.v.k, (py - this.v.ty) / this.v.k]; }
  // Where a node's centre is on the page (for tests and the panel).
  screenOf(n) {
    const r = this.canvas.getBoundingClientRect();
    return n.box ? [r.left + this.v.tx + (n.box.x + n.box.w / 2) * this.v.k, r.top + this.v.ty + (n.box.y + n.box.h / 2) * this.v.k] : null;
  }

  // ---------- drawing ----------
  // Asks for a frame: one draws the view as it is then, however many
  // changes asked before it.
  draw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.paint(); });
  }
  // The page's colours, read once (and again when the theme changes).
  colours() {
    if (!this.col) {
      const css = getComputedStyle(document.documentElement);
      const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
      this.col = {
        bg: v('--panel2', '#f1f3f6'), text: v('--text', '#1d2330'), muted: v('--muted', '#667085'), line: v('--line', '#dfe3ea'),
        panel: v('--panel', '#fff'), accent: v('--accent', '#3b5bdb'), mono: v('--mono', 'monospace'), sans: v('--sans', 'sans-serif'),
      };
    }
    return this.col;
  }
  paint() {
    const g = this.g;
    if (!g || !this.wrap.isConnected) return;
    const t0 = performance.now();
    const sel = this.sel ? drawnBoxOf(g, this.sel) : null;
    const drawn = paintGraph(this.canvas.getContext('2d'), g, this.v, this.cw, this.ch, this.dpr, this.colours(), sel && sel.box);
    this.canvas.dataset.drawnNodes = drawn.nodes;
    this.canvas.dataset.drawnEdges = drawn.edges;
    this.paintMini();
    this.paints++;
    // How long drawing took (scripts/bench_graph_page.mjs reads it).
    this.lastPaint = { at: performance.now(), ms: performance.now() - t0, nodes: drawn.nodes, edges: drawn.edges };
  }
  paintMini() {
    if (this.mini.hidden || !this.g) return;
    const c = this.mini.getContext('2d');
    if (!this.mini.bitmap) {
      const off = document.createElement('canvas');
      off.width = this.mini.width; off.height = this.mini.height;
      off.getContext('2d').putImageData(overviewImage(c, this.g, off.width, off.height, this.msx * this.dpr, this.msy * this.dpr), 0, 0);
      this.mini.bitmap = off;
    }
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.clearRect(0, 0, this.mini.width, this.mini.height);
    c.drawImage(this.mini.bitmap, 0, 0);
    const [x0, y0] = this.toWorld(0, 0), [x1, y1] = this.toWorld(this.cw, this.ch);
    // The window's rectangle in the overview's pixels (its two scales).
    const { msx: sx, msy: sy } = this;
    c.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    c.strokeStyle = this.colours().accent; c.lineWidth = 1.5;
    c.fillStyle = 'rgba(59, 91, 219, .12)';
    c.fillRect(x0 * sx, y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy);
    c.strokeRect(x0 * sx, y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy);
  }

  // The whole graph (as folded now) as an SVG file.
  exportSvg() {
    const base = state.open ? state.open.file.name.split('/').pop() : 'graph';
    const name = base + (this.g.kind === 'main' ? '' : '.' + String(this.g.name || this.g.id).replace(/[^\w.-]+/g, '_')) + '.svg';
    const blob = new Blob([graphSvg(this.g)], { type: 'image/svg+xml' });
    const a = h('a', { href: URL.createObjectURL(blob), download: name });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
}
