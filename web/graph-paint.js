// The Graph tab's drawing on a canvas: only what is on screen (cull),
// batched by colour when too small to read, labels as canvas text; the
// overview's picture. Colours by op family, as Netron made familiar.
import { typeShape } from './format.js';
import { cull, worldRect } from './graph-geometry.js';

// The op families people expect to tell apart at a glance: convolutions
// blue, activations red, normalisation green, pooling teal, shape and data
// movement grey-violet.
const KIND_COLOURS = {
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
export const FRAME_FILL = 'rgba(59, 91, 219, 0.05)', FRAME_STROKE = '#aab3c8', FRAME_INK = '#4a5468';

// A node kind's [fill, ink].
export function kindColours(kind) {
  return KIND_COLOURS[String(kind || '').toLowerCase()] || ['#e4e7ee', '#1d2330'];
}
// A node's [fill, ink], looked up once.
const nodeColours = new WeakMap();
function coloursOf(n) {
  let c = nodeColours.get(n);
  if (!c) { c = kindColours(n.kind); nodeColours.set(n, c); }
  return c;
}

// Where an edge's label goes: beside the middle of its polyline.
export function edgeLabelAt(e) {
  const m = Math.floor((e.pts.length - 1) / 2);
  const [ax, ay] = e.pts[m], [bx, by] = e.pts[m + 1] || e.pts[m];
  return [(ax + bx) / 2, (ay + by) / 2];
}

// Draws `g` on context `c` of a canvas cw x ch (CSS pixels, `dpr` device
// pixels each) in view `v`, with the page's colours `col` (bg, text,
// muted, line, panel, accent, mono, sans), the selection's box `sel`
// lit. Returns how many boxes and edges were drawn.
export function paintGraph(c, g, v, cw, ch, dpr, col, sel) {
  const k = v.k;
  c.setTransform(dpr, 0, 0, dpr, 0, 0);
  c.fillStyle = col.bg;
  c.fillRect(0, 0, cw, ch);
  c.setTransform(dpr * k, 0, 0, dpr * k, dpr * v.tx, dpr * v.ty);
  const on = cull(g, worldRect(v, cw, ch));
  const detail = k >= 0.3; // words readable
  const labels = k >= 0.65; // edge labels readable

  // Open groups' frames under everything, outer ones first (groups come
  // after their parents): a light fill that deepens with nesting, the
  // scope's name on the top edge (a click there folds it).
  c.lineWidth = 1 / k;
  c.strokeStyle = FRAME_STROKE;
  c.fillStyle = FRAME_FILL;
  for (const gr of on.frames) { roundRect(c, gr.box.x, gr.box.y, gr.box.w, gr.box.h, 8); c.fill(); c.stroke(); }
  if (detail) {
    c.fillStyle = FRAME_INK; c.font = '600 11px ' + col.sans; c.textBaseline = 'middle'; c.textAlign = 'left';
    for (const gr of on.frames) fitText(c, gr, 2, '▾ ' + (gr.name || gr.path), gr.box.x + 8, gr.box.y + 11, gr.box.w - 16);
  }
  // Edges: one path for all, their heads, then their labels. Lines a
  // pixel wide however far out, a little more close up.
  c.strokeStyle = col.muted; c.lineWidth = k >= 1 ? 1.2 : 1 / k;
  c.beginPath();
  for (const e of on.edges) {
    c.moveTo(e.pts[0][0], e.pts[0][1]);
    for (let q = 1; q < e.pts.length; q++) c.lineTo(e.pts[q][0], e.pts[q][1]);
  }
  c.stroke();
  if (detail) {
    c.fillStyle = col.muted;
    c.beginPath();
    for (const e of on.edges) {
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
    for (const e of on.edges) {
      const t = typeShape(e);
      if (!t) continue;
      const [x, y] = edgeLabelAt(e);
      c.fillText(t, x + 5, y);
    }
  }
  if (detail) paintBoxes(c, on, k, col); else paintBlocks(c, on, k, col);
  // Folded groups: one box each, over their place.
  for (const gr of on.folded) {
    const b = gr.box;
    c.fillStyle = col.panel; c.strokeStyle = col.accent; c.lineWidth = 1.5 / Math.max(k, 0.2);
    roundRect(c, b.x, b.y, b.w, b.h, 6); c.fill(); c.stroke();
    if (!detail) continue;
    c.fillStyle = col.text; c.textAlign = 'center'; c.textBaseline = 'middle';
    const two = b.h >= 34;
    shrinkText(c, gr, 0, gr.name || gr.path, b.x + b.w / 2, b.y + b.h / 2 - (two ? 7 : 0), b.w - 8, '600 ', col.sans);
    if (two) { c.fillStyle = col.muted; c.font = '11px ' + col.sans; fitText(c, gr, 1, Number(gr.nodes).toLocaleString('en-US') + ' nodes', b.x + b.w / 2, b.y + b.h / 2 + 9, b.w - 10); }
    c.textAlign = 'left';
  }
  // The selection (a node, or the folded group that holds it).
  if (sel) {
    c.strokeStyle = col.accent; c.lineWidth = 3 / k;
    roundRect(c, sel.x - 3 / k, sel.y - 3 / k, sel.w + 6 / k, sel.h + 6 / k, 7); c.stroke();
  }
  return { nodes: on.nodes.length + on.folded.length, edges: on.edges.length };
}

// Boxes too small to read: filled rectangles, one path per colour.
function paintBlocks(c, on, k, col) {
  const byFill = new Map();
  for (const n of on.nodes) {
    const [fill] = coloursOf(n);
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
  for (const p of on.ios) c.rect(p.box.x, p.box.y, p.box.w, p.box.h);
  c.fill(); c.stroke();
}

// Boxes to read: a coloured head with the op, the weights under it; the
// graph's inputs and outputs with their name and type.
function paintBoxes(c, on, k, col) {
  c.textBaseline = 'middle';
  for (const n of on.nodes) {
    const b = n.box;
    const [fill, ink] = coloursOf(n);
    const head = Math.min(b.h, 22);
    c.fillStyle = col.panel;
    roundRect(c, b.x, b.y, b.w, b.h, 5); c.fill();
    c.fillStyle = fill;
    roundRect(c, b.x, b.y, b.w, head, 5, b.h > head + 2 ? 'top' : 'all'); c.fill();
    c.strokeStyle = col.line; c.lineWidth = 1 / k;
    roundRect(c, b.x, b.y, b.w, b.h, 5); c.stroke();
    c.fillStyle = ink; c.textAlign = 'center';
    shrinkText(c, n, 0, n.label[0], b.x + b.w / 2, b.y + head / 2 + 0.5, b.w - 8, '600 ', col.sans);
    // The weights inside, a line each: W<16x3x3x3> B<16>.
    c.textAlign = 'left'; c.font = '11px ' + col.mono; c.fillStyle = col.text;
    let y = b.y + head + 9;
    for (let q = 1; q < n.label.length; q++) {
      if (y > b.y + b.h - 3) break;
      fitText(c, n, q, n.label[q], b.x + 6, y, b.w - 12);
      y += 14;
    }
  }
  for (const p of on.ios) {
    const b = p.box;
    c.fillStyle = col.panel; c.strokeStyle = col.text; c.lineWidth = 1.2 / Math.max(k, 1);
    roundRect(c, b.x, b.y, b.w, b.h, Math.min(12, b.h / 2)); c.fill(); c.stroke();
    c.fillStyle = col.text; c.font = '600 11px ' + col.mono; c.textAlign = 'center';
    const two = b.h >= 30 && typeShape(p);
    fitText(c, p, 0, p.name || '', b.x + b.w / 2, b.y + b.h / 2 - (two ? 7 : 0), b.w - 12);
    if (two) { c.fillStyle = col.muted; c.font = '10px ' + col.mono; fitText(c, p, 1, typeShape(p), b.x + b.w / 2, b.y + b.h / 2 + 8, b.w - 12); }
    c.textAlign = 'left';
  }
}

// The whole graph in a picture of W x H pixels, at `sx` x `sy` pixels per
// unit (a pixel or more per box, written straight into the image: 20,000
// boxes cost a few milliseconds), for the overview.
export function overviewImage(c, g, W, H, sx, sy) {
  const img = c.createImageData(W, H);
  const px = img.data;
  const fillBox = (b, [r, gg, bb]) => {
    const x0 = Math.max(0, Math.floor(b.x * sx)), y0 = Math.max(0, Math.floor(b.y * sy));
    const x1 = Math.min(W, Math.max(x0 + 1, Math.ceil((b.x + b.w) * sx))), y1 = Math.min(H, Math.max(y0 + 1, Math.ceil((b.y + b.h) * sy)));
    for (let y = y0; y < y1; y++) {
      for (let x = x0, at = (y * W + x0) * 4; x < x1; x++, at += 4) { px[at] = r; px[at + 1] = gg; px[at + 2] = bb; px[at + 3] = 255; }
    }
  };
  const light = new Set(['#e4e7ee', '#d9dde5', '#f1f3f6']);
  const rgbOf = new Map();
  const rgb = (fill) => {
    if (!rgbOf.has(fill)) { const hex = light.has(fill) ? '#9aa3b5' : fill; rgbOf.set(fill, [1, 3, 5].map((q) => parseInt(hex.slice(q, q + 2), 16))); }
    return rgbOf.get(fill);
  };
  for (const gr of g.groups) if (gr.folded && gr.box) fillBox(gr.box, rgb('#3b5bdb'));
  for (const n of g.nodes) if (n.box) fillBox(n.box, rgb(kindColours(n.kind)[0]));
  return img;
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
// Texts fitted to their boxes, kept per box and line: measuring text is
// most of what drawing a box costs, and a box's texts do not change as
// the view moves. (Keyed by the font and width asked for.)
const fitted = new WeakMap();
function remembered(owner, line, key, make) {
  let m = fitted.get(owner);
  if (!m) { m = new Map(); fitted.set(owner, m); }
  const got = m.get(line);
  if (got && got.key === key) return got;
  const made = { key, ...make() };
  m.set(line, made);
  return made;
}
// A box's title: in a smaller font (12 px down to 9) rather than cut, as
// the server sized the box for its own font's widths.
function shrinkText(c, owner, line, t, x, y, max, weight, family) {
  const f = remembered(owner, line, `${weight}${family}|${max}|${t}`, () => {
    for (let px = 12; px >= 9; px--) {
      c.font = `${weight}${px}px ${family}`;
      if (c.measureText(t).width <= max) return { font: c.font, text: t };
    }
    return { font: c.font, text: cut(c, t, max) };
  });
  c.font = f.font;
  if (f.text) c.fillText(f.text, x, y);
}
// Text cut with … at the end to fit `max` pixels, in the font set now.
function fitText(c, owner, line, t, x, y, max) {
  const f = remembered(owner, line, `${c.font}|${max}|${t}`, () => ({ text: cut(c, t, max) }));
  if (f.text) c.fillText(f.text, x, y);
}
function cut(c, t, max) {
  if (max <= 4 || !t) return '';
  if (c.measureText(t).width <= max) return t;
  let lo = 0, hi = t.length;
  while (lo < hi) { const mid = Math.ceil((lo + hi) / 2); if (c.measureText(t.slice(0, mid) + '…').width <= max) lo = mid; else hi = mid - 1; }
  return t.slice(0, lo) + '…';
}
