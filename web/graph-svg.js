// "Export SVG": the whole graph (as folded now), not just the window, as
// an SVG document drawn as the canvas draws it.
import { xmlText } from './escape.js';
import { typeShape } from './format.js';
import { FRAME_FILL, FRAME_INK, FRAME_STROKE, edgeLabelAt, kindColours } from './graph-paint.js';

// Every box and edge of a laid-out graph as an SVG document, drawn as the
// canvas draws them. Every text a file controls goes through xmlText
// (escape.js), the rule of `decode --graph svg`.
export function graphSvg(g) {
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
