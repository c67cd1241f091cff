// The Graph tab's input: dragging pans, the wheel zooms about the pointer,
// a click selects (a node, a graph input or output) or opens and folds a
// group, keys zoom, pan and step along edges, the overview moves the view,
// the find box searches. Every handler only records the wanted view: the
// view's one animation frame draws it (GraphView.draw), however many
// events came before it; hovering is read once a frame too.
import { tip } from './dom.js';
import { typeShape } from './format.js';
import { opTitle } from './graph-model.js';
import { fitView, hitTest } from './graph-geometry.js';

export function bindInput(view) {
  const cv = view.canvas;
  let drag = null;
  const at = (e) => { const r = cv.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
  // The cursor, set only when it changes (a style change costs a recalc).
  let cursor = '';
  const setCursor = (c) => { if (c !== cursor) { cursor = c; cv.style.cursor = c; } };
  const hitAt = (px, py) => (view.g ? hitTest(view.g, ...view.toWorld(px, py), view.v.k) : null);
  cv.addEventListener('pointerdown', (e) => {
    cv.focus({ preventScroll: true });
    drag = { x: e.clientX, y: e.clientY, moved: false };
    cv.setPointerCapture(e.pointerId);
  });
  // The last pointer position over the canvas, looked at once a frame.
  let hover = null, hoverFrame = 0;
  const showHover = () => {
    hoverFrame = 0;
    if (!hover || drag) return;
    const hit = hitAt(...at(hover));
    setCursor(hit ? 'pointer' : 'grab');
    if (hit && hit.node) tip((hit.node.name || `[${hit.node.i}]`) + '\n' + opTitle(hit.node), hover);
    else if (hit && hit.port) tip(`graph ${hit.port.side} ${hit.port.name || ''}\n${typeShape(hit.port)}`, hover);
    else if (hit && hit.group) tip(`${hit.group.folded ? 'open' : 'fold'} ${hit.group.path} (${hit.group.nodes} nodes)`, hover);
    else tip(null);
  };
  cv.addEventListener('pointermove', (e) => {
    if (drag) {
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) { drag.x = e.clientX; drag.y = e.clientY; setCursor('grabbing'); view.panBy(dx, dy); }
      return;
    }
    hover = e;
    if (!hoverFrame) hoverFrame = requestAnimationFrame(showHover);
  });
  cv.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = null;
    setCursor('grab');
    if (!d || d.moved) return;
    const hit = hitAt(...at(e));
    tip(null);
    if (!hit) view.select(null);
    else if (hit.node) view.select(hit.node);
    else if (hit.group) view.toggleGroup(hit.group);
    else if (hit.port) view.showPort(hit.port);
  });
  cv.addEventListener('pointerleave', () => { hover = null; tip(null); });
  cv.addEventListener('wheel', (e) => {
    e.preventDefault();
    // A wheel zooms about the pointer; a sideways swipe pans.
    if (e.ctrlKey || Math.abs(e.deltaY) >= Math.abs(e.deltaX)) {
      view.zoomBy(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)), ...at(e));
    } else view.panBy(-e.deltaX, 0);
  }, { passive: false });
  cv.addEventListener('keydown', (e) => onKey(view, e));
  // The overview centres the window where it is clicked or dragged to.
  let miniDrag = false;
  const miniGo = (e) => {
    const r = view.mini.getBoundingClientRect();
    const x = (e.clientX - r.left) / view.msx, y = (e.clientY - r.top) / view.msy;
    view.setView({ k: view.v.k, tx: view.cw / 2 - x * view.v.k, ty: view.ch / 2 - y * view.v.k });
  };
  view.mini.addEventListener('pointerdown', (e) => { miniDrag = true; view.mini.setPointerCapture(e.pointerId); miniGo(e); });
  view.mini.addEventListener('pointermove', (e) => { if (miniDrag) miniGo(e); });
  view.mini.addEventListener('pointerup', () => { miniDrag = false; });
  if ('ResizeObserver' in window) {
    let size = '';
    const ro = new ResizeObserver(() => {
      if (!view.wrap.isConnected) { ro.disconnect(); return; }
      const r = view.wrap.getBoundingClientRect();
      const now = Math.floor(r.width) + 'x' + Math.floor(r.height);
      if (now !== size) { size = now; view.resize(); }
    });
    ro.observe(view.wrap);
  }
  // Colours follow the system's light and dark.
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  const recolour = () => { if (!view.wrap.isConnected) { scheme.removeEventListener('change', recolour); return; } view.col = null; view.draw(); };
  scheme.addEventListener('change', recolour);
}

function onKey(view, e) {
  const k = e.key;
  if (k === '+' || k === '=') { view.zoomBy(1.25); e.preventDefault(); return; }
  if (k === '-' || k === '_') { view.zoomBy(1 / 1.25); e.preventDefault(); return; }
  if (k === '0') { view.setView(fitView(view.g, view.cw, view.ch)); e.preventDefault(); return; }
  if (k === 'Escape') { view.select(null); e.preventDefault(); return; }
  if (k === 'Backspace' && view.back.length) { view.goBack(); e.preventDefault(); return; }
  const sel = view.sel;
  if (k === 'Enter' && sel) {
    const sub = [...sel.subgraphs, ...sel.calls];
    if (sub.length) { view.openGraph(sub[0]); e.preventDefault(); }
    return;
  }
  const dir = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [1, 0], ArrowRight: [-1, 0] }[k];
  if (!dir) return;
  e.preventDefault();
  if (!sel || e.shiftKey) { view.panBy(dir[0] * 80, dir[1] * 80); return; }
  // Between connected nodes: up to what feeds the selected node, down to
  // what reads it, left and right among the nodes that step offered
  // (or, with no choice, to the nearest node that side).
  if (k === 'ArrowUp' || k === 'ArrowDown') {
    const next = k === 'ArrowUp' ? producersOf(view.g, sel) : consumersOf(view.g, sel);
    if (!next.length) return;
    const sx = sel.box ? sel.box.x : 0;
    next.sort((a, b) => (a.box && b.box ? Math.abs(a.box.x - sx) - Math.abs(b.box.x - sx) : 0));
    view.goTo(next[0]);
    view.siblings = next;
    return;
  }
  if (view.siblings && view.siblings.length > 1 && view.siblings.includes(sel)) {
    const ordered = [...view.siblings].sort((a, b) => (a.box && b.box ? a.box.x - b.box.x : 0));
    const n = ordered[ordered.indexOf(sel) + (k === 'ArrowRight' ? 1 : -1)];
    if (n) view.goTo(n, true);
    return;
  }
  const s = sel.box;
  if (!s) return;
  const right = k === 'ArrowRight';
  let best = null, bd = Infinity;
  for (const n of view.g.nodes) {
    if (n === sel || !n.box) continue;
    const dx = (n.box.x + n.box.w / 2) - (s.x + s.w / 2);
    if (right ? dx <= 0 : dx >= 0) continue;
    const d = Math.abs(dx) + 3 * Math.abs((n.box.y + n.box.h / 2) - (s.y + s.h / 2));
    if (d < bd) { bd = d; best = n; }
  }
  if (best) view.goTo(best, true);
}

function producersOf(g, n) {
  const out = [];
  for (const x of n.inputs) {
    const v = g.values.get(x.name);
    const p = v && v.producer !== null ? g.byIndex.get(v.producer) : null;
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}
function consumersOf(g, n) {
  const out = [];
  for (const o of n.outputs) {
    const v = g.values.get(o.name);
    for (const i of (v && v.consumers) || []) { const c = g.byIndex.get(i); if (c && !out.includes(c)) out.push(c); }
  }
  return out;
}

// The find box: by node name, op or value name (exact matches first);
// Enter goes to the next hit, shift+Enter back, each shown and its panel
// opened.
export function searchGraph(view, q, step) {
  q = q.trim().toLowerCase();
  if (!q || !view.g) return;
  if (!view.hits.length || view.hitQ !== q) {
    const exact = [], part = [];
    for (const n of view.g.nodes) {
      const names = [n.name || '', opTitle(n), ...n.outputs.map((o) => o.name || ''), ...n.inputs.map((o) => o.name || '')].map((x) => x.toLowerCase());
      if (names.includes(q)) exact.push(n); else if (names.some((x) => x.includes(q))) part.push(n);
    }
    view.hits = [...exact, ...part]; view.hitQ = q; view.hitAt = -1;
  }
  if (!view.hits.length) { view.findNote.textContent = 'not found'; return; }
  view.hitAt = (view.hitAt + step + view.hits.length) % view.hits.length;
  view.findNote.textContent = `${view.hitAt + 1} of ${view.hits.length}`;
  view.goTo(view.hits[view.hitAt]);
}
