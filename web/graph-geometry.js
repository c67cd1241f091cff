// The Graph tab's geometry, apart from any drawing: where the view goes
// (the first view, the whole graph, a box shown), what is on screen (the
// culling every frame draws from), and what is under a point (hit
// testing). A view is {k, tx, ty}: a point (x, y) of the graph is drawn at
// (tx + x k, ty + y k) of the canvas. Pure functions of the laid-out graph
// (graph-data.js's adoptGraph), tested under node.

// The node titles are drawn at 12 px and the lines under them at 11 px
// (graph-paint.js): at this zoom and above every label is 10 px or more.
export const READABLE_ZOOM = 10 / 11;
// The first view shows the whole graph when it fits at this zoom or more.
export const WHOLE_ZOOM = 0.8;
// Zooms the view keeps to.
export const MIN_ZOOM = 0.0005, MAX_ZOOM = 6;
// Room left around what a view shows.
const PAD = 24;

const boxesOf = (g) => [g.nodes, g.ios, g.groups];

// The whole graph in a canvas of cw x ch, no larger than life.
export function fitView(g, cw, ch) {
  const whole = Math.min((cw - 2 * PAD) / Math.max(1, g.W), (ch - 2 * PAD) / Math.max(1, g.H), 1);
  const k = Math.max(whole, MIN_ZOOM);
  return { k, tx: (cw - g.W * k) / 2, ty: Math.max(PAD, (ch - g.H * k) / 2) };
}

// The first view of a graph: the whole of it when that is readable (at
// WHOLE_ZOOM or more), else its top at a readable zoom (as wide as the
// window allows up to life size), the boxes of that first screenful
// centred across (or from their left when wider than the window).
export function firstView(g, cw, ch) {
  const fit = fitView(g, cw, ch);
  if (fit.k >= WHOLE_ZOOM) return fit;
  const k = Math.min(1, Math.max(READABLE_ZOOM, (cw - 2 * PAD) / Math.max(1, g.W)));
  let top = Infinity;
  for (const list of boxesOf(g)) for (const b of list) if (b.box && b.box.y < top) top = b.box.y;
  if (top === Infinity) return fit;
  const bottom = top + (ch - 2 * PAD) / k;
  let x0 = Infinity, x1 = -Infinity;
  for (const list of boxesOf(g)) {
    for (const b of list) {
      if (!b.box || b.box.y > bottom || (list === g.groups && !b.folded)) continue;
      x0 = Math.min(x0, b.box.x); x1 = Math.max(x1, b.box.x + b.box.w);
    }
  }
  const tx = (x1 - x0) * k <= cw - 2 * PAD ? (cw - (x0 + x1) * k) / 2 : PAD - x0 * k;
  return { k, tx, ty: PAD - top * k };
}

// A view that shows box `b` in the part of the canvas left of a panel
// `panel` px wide: at zoom `k` (life size when `zoomIn` and `k` is below
// readable), centred, or from its top left when it is bigger than that part.
export function showBox(b, k, cw, ch, panel = 0, zoomIn = false) {
  if (zoomIn && k < READABLE_ZOOM) k = 1;
  const w = Math.max(50, cw - panel);
  const tx = b.w * k <= w - 2 * PAD ? w / 2 - (b.x + b.w / 2) * k : PAD - b.x * k;
  const ty = b.h * k <= ch - 2 * PAD ? ch / 2 - (b.y + b.h / 2) * k : PAD - b.y * k;
  return { k, tx, ty };
}

// The view zoomed by `f` about the canvas point (cx, cy), within the zooms kept.
export function zoomAbout(v, f, cx, cy) {
  const k = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, v.k * f));
  return { k, tx: cx - (cx - v.tx) * (k / v.k), ty: cy - (cy - v.ty) * (k / v.k) };
}

// The canvas rectangle (0, 0)-(cw, ch) in the graph's coordinates.
export function worldRect(v, cw, ch) {
  return { x0: -v.tx / v.k, y0: -v.ty / v.k, x1: (cw - v.tx) / v.k, y1: (ch - v.ty) / v.k };
}

const meets = (b, r) => b && b.x + b.w >= r.x0 && b.x <= r.x1 && b.y + b.h >= r.y0 && b.y <= r.y1;

// What a frame draws of `g` within the graph rectangle `r` (worldRect):
// the open groups' frames, the edges (by their bounding box), the nodes,
// the graph's inputs and outputs and the folded groups that meet it.
export function cull(g, r) {
  const out = { frames: [], edges: [], nodes: [], ios: [], folded: [] };
  for (const gr of g.groups) if (meets(gr.box, r)) (gr.folded ? out.folded : out.frames).push(gr);
  for (const e of g.edges) {
    if (e.pts.length >= 2 && !(e.bx1 < r.x0 || e.bx > r.x1 || e.by1 < r.y0 || e.by > r.y1)) out.edges.push(e);
  }
  for (const n of g.nodes) if (meets(n.box, r)) out.nodes.push(n);
  for (const p of g.ios) if (meets(p.box, r)) out.ios.push(p);
  return out;
}

// What is at the graph point (x, y) at zoom k: a folded group, a node, a
// graph input or output, or the title line of the innermost open group
// there (20 px high on screen, its box's top at least); null for none.
export function hitTest(g, x, y, k) {
  const inside = (b) => b && x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h;
  for (const gr of g.groups) if (gr.folded && inside(gr.box)) return { group: gr };
  for (const n of g.nodes) if (inside(n.box)) return { node: n };
  for (const p of g.ios) if (inside(p.box)) return { port: p };
  let best = null;
  for (const gr of g.groups) {
    if (gr.folded || !gr.box) continue;
    const b = gr.box;
    if (x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + 20 / Math.min(1, k) && (!best || b.w * b.h < best.box.w * best.box.h)) best = gr;
  }
  return best ? { group: best } : null;
}

// Where node `n` is drawn: its own box, or, inside folded groups, the box
// of the folded group that is drawn (the outermost folded one around it);
// with the group, or null when the node is drawn itself.
export function drawnBoxOf(g, n) {
  if (n.box) return { box: n.box, group: null };
  let found = null;
  for (let id = n.group, steps = 0; id !== null && id !== undefined && steps <= g.groups.length; steps++) {
    const gr = g.groupById.get(id);
    if (!gr) break;
    if (gr.folded && gr.box) found = gr;
    id = gr.parent;
  }
  return found ? { box: found.box, group: found } : null;
}

// The groups around node `n`, outermost first.
export function scopesOf(g, n) {
  const out = [];
  for (let id = n.group, steps = 0; id !== null && id !== undefined && steps <= g.groups.length; steps++) {
    const gr = g.groupById.get(id);
    if (!gr) break;
    out.unshift(gr);
    id = gr.parent;
  }
  return out;
}
