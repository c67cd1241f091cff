// The Bytes tab: the file's bytes a page at a time (offsets, hex,
// ASCII), a byte's place on hover; the bytes of a decode error's offset,
// or of a field, lit.
import { api } from './backend.js';
import { h, tip } from './dom.js';
import { hex8 } from './format.js';
import { state } from './state.js';

const HEX_PAGE = 1024;
export async function renderBytes(body, opts) {
  opts = opts || {};
  const size = state.open.file.size;
  let at = opts.at !== undefined ? Math.max(0, opts.at - (opts.at % 16) - 16 * 8) : state.hexAt || 0;
  const hexBox = h('div', { class: 'hex', id: 'hex' });
  const pos = h('input', { type: 'text', value: hex8(at), 'aria-label': 'offset', size: 10 });
  const load = async () => {
    at = Math.max(0, Math.min(at, Math.max(0, size - 1)));
    at -= at % 16;
    pos.value = hex8(at);
    const r = await api('/api/hex', { f: state.key, offset: at, count: HEX_PAGE });
    drawHex(hexBox, r, opts);
  };
  pos.addEventListener('change', () => { at = parseInt(pos.value, pos.value.startsWith('0x') ? 16 : 10) || 0; load(); });
  const bar = h('div', { class: 'hexbar' },
    h('button', { class: 'btn small', onclick: () => { at -= HEX_PAGE; load(); } }, '◀'),
    h('button', { class: 'btn small', onclick: () => { at += HEX_PAGE; load(); } }, '▶'),
    h('label', { class: 'muted' }, 'offset ', pos), h('span', { class: 'muted' }, `${size.toLocaleString('en-US')} bytes`));
  body.append(bar, hexBox);
  body.hexGoto = (o) => { at = Math.max(0, o - (o % 16) - 16 * 4); return load(); };
  await load();
}
function drawHex(box, r, opts) {
  const bytes = r.hex;
  const rows = [];
  for (let i = 0; i < bytes.length / 2; i += 16) {
    const off = r.offset + i;
    const b = h('span', { class: 'bytes' });
    const a = h('span', { class: 'ascii' });
    for (let k = 0; k < 16; k++) {
      const j = i + k;
      if (j >= bytes.length / 2) { b.append(h('span', { class: k === 8 ? 'gap' : '' }, '  ')); continue; }
      const pair = bytes.substr(j * 2, 2);
      const code = parseInt(pair, 16);
      const o = off + k;
      const cls = (k === 8 ? 'gap' : '') + (opts.error === o ? ' err' : '');
      b.append(h('span', { class: cls, 'data-o': o }, pair));
      a.append(h('span', { 'data-o': o, class: opts.error === o ? 'err' : '' }, code >= 32 && code < 127 ? String.fromCharCode(code) : '·'));
    }
    rows.push(h('div', { class: 'row' }, h('span', { class: 'off' }, off.toString(16).padStart(8, '0')), b, a));
  }
  box.replaceChildren(...rows);
  box.onmousemove = (e) => {
    const o = e.target.dataset && e.target.dataset.o;
    if (o === undefined) return;
    if (opts.onByte) opts.onByte(Number(o), e);
    else tip(`byte ${hex8(o)} (${o})`, e);
  };
  box.onmouseleave = () => { tip(null); if (opts.onByte) opts.onByte(null); };
  if (opts.onDraw) opts.onDraw();
}
export function highlightBytes(box, from, to) {
  for (const s of box.querySelectorAll('span.on')) s.classList.remove('on');
  if (from === null) return;
  for (const s of box.querySelectorAll('span[data-o]')) {
    const o = Number(s.dataset.o);
    if (o >= from && o < to) s.classList.add('on');
  }
}
