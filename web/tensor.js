// The tensor view: its type, shape and storage, the value grid (grid.js),
// its statistics and histogram, its picture (hovered, a pixel's values;
// clicked, its element in the grid), and the nodes that make or read it
// in the file's graphs.
import { api, backend } from './backend.js';
import { h, tip } from './dom.js';
import { grouped, parseJSON, show } from './format.js';
import { graphTensorLinks } from './graph-data.js';
import { Grid } from './grid.js';
import { state } from './state.js';
import { jsonTree } from './text.js';

export async function renderTensor(body, index) {
  body.replaceChildren(h('p', { class: 'spin' }, 'Reading the tensor…'));
  // The grid starts from what the file's answer already says about the
  // tensor; its other facts (picture layout, other fields) come alongside.
  const infoP = api('/api/tensor', { f: state.key, as: state.as, t: index });
  let t = (state.open.tensors || []).find((x) => x && x.index === index);
  let info = null;
  try {
    if (!t) { info = await infoP; t = info.tensor; }
  } catch (e) {
    body.replaceChildren(h('div', { class: 'card error-card' }, e.message));
    return;
  }
  const dims = t.dims;
  const shape = dims === null ? 'unknown rank' : '[' + dims.join(', ') + ']';
  body.replaceChildren();
  const chips = h('div', { class: 'chips' },
    h('span', { class: 'chip', id: 'dtype' }, 'type ', h('b', null, t.dtype)),
    h('span', { class: 'chip', id: 'shape' }, 'shape ', h('b', { class: 'mono' }, shape)),
    h('span', { class: 'chip', id: 'count' }, 'elements ', h('b', null, grouped(t.elements))),
    h('span', { class: 'chip', id: 'storage' }, 'storage ', h('b', null, t.storage)));
  body.append(h('div', { class: 'tensor-title', id: 'tensor-head' },
    h('h2', null, t.name),
    h('span', { class: 'badge plain' }, t.message)), chips);
  const notes = h('div');
  const left = h('div');
  const right = h('div');
  body.append(notes, h('div', { class: 'cols' }, left, right));
  graphTensorLinks(notes, t);
  const gridCard = h('div', { class: 'card' }, h('h3', null, 'Values'));
  left.append(gridCard);
  const grid = new Grid(gridCard, t, index);
  if (t.elements !== 0 && t.storage !== 'unavailable') grid.start(state.at);
  const statsCard = h('div', { class: 'card stats', id: 'stats' }, h('h3', null, 'Statistics'), h('p', { class: 'spin' }, 'computing…'));
  right.append(statsCard);
  loadStats(statsCard, index);
  try {
    info = info || await infoP;
  } catch (e) {
    notes.append(h('div', { class: 'note' }, e.message));
    return;
  }
  if (!body.isConnected) return;
  if (info.unavailable) notes.append(h('div', { class: 'note' }, 'values unavailable: ' + info.unavailable));
  if (info.picture) {
    chips.append(h('span', { class: 'chip' }, 'picture ', h('b', null, info.picture.layout + ', ' + info.picture.describe)));
    right.prepend(pictureCard(info.picture, t, index, grid));
  } else if (info.slice_picture) {
    // No picture of the whole: the 2-D slice the grid shows.
    chips.append(h('span', { class: 'chip' }, 'picture ', h('b', null, 'the slice shown, ' + info.slice_picture.describe)));
    right.prepend(pictureCard(info.slice_picture, t, index, grid, true));
  }
  const other = Object.keys(info.value || {}).filter((k) => !['dims', 'data_type', 'values', 'values_total', 'name', 'dtype', 'tensor_shape'].includes(k));
  if (other.length) {
    left.append(h('div', { class: 'card' }, h('h3', null, 'Other fields'), jsonTree(Object.fromEntries(other.map((k) => [k, info.value[k]])), true)));
  }
}

async function loadStats(card, index) {
  let r;
  try { r = await api('/api/stats', { f: state.key, as: state.as, t: index }); } catch (e) {
    card.replaceChildren(h('h3', null, 'Statistics'), h('p', { class: 'muted' }, e.message));
    return;
  }
  card.replaceChildren(h('h3', null, 'Statistics'));
  const s = r.stats;
  if (!s) { card.append(h('p', { class: 'muted' }, 'none (not a numeric tensor)')); return; }
  card.append(h('dl', { class: 'kv' },
    // Counts grouped, the mean and std as the text view writes them.
    [['count', grouped(s.count)], ['min', s.min], ['max', s.max], ['mean', r.text ? r.text.mean : s.mean], ['std', r.text ? r.text.std : s.std],
      ['NaN', grouped(s.nan)], ['+Inf', grouped(s.pos_inf)], ['-Inf', grouped(s.neg_inf)], ['zeros', grouped(s.zeros)]]
      .map(([k, v]) => [h('dt', null, k), h('dd', { class: 'mono', 'data-stat': k }, v === null || v === '' ? '—' : show(v))]),
    s.of ? [h('dt', null, 'of'), h('dd', null, s.of)] : null));
  if (r.histogram) {
    const bins = r.histogram.bins;
    const top = Math.max(1, ...bins.map((b) => b.count));
    const bars = h('div', { class: 'hist', id: 'histogram' }, bins.map((b) => {
      const d = h('div', { title: b.label + ': ' + grouped(b.count) });
      d.style.height = (b.count ? Math.max(2, 100 * b.count / top) : 0) + '%';
      d.addEventListener('mousemove', (e) => tip(b.label + '  ' + grouped(b.count), e));
      d.addEventListener('mouseleave', () => tip(null));
      return d;
    }));
    card.append(bars, h('div', { class: 'hist-axis' }, h('span', null, show(s.min)), h('span', null, show(s.max))));
  }
}

// The picture the server draws (the whole tensor, or with `sliced` the
// 2-D slice the grid shows, drawn again when the grid moves to another).
// The layout's strides say which element a pixel is.
function pictureCard(p, t, index, grid, sliced) {
  const img = h('img', { alt: 'the tensor drawn as a picture', id: 'picture' });
  let slice = sliced ? grid.sliceOf(grid.leadIdx) : null;
  const title = h('h3', null, 'Picture');
  const sliceTitle = () => { if (sliced) title.textContent = 'Picture of ' + grid.indexText(slice * p.height * p.width).replace(/, \d+, \d+\]$/, ', :, :]'); };
  sliceTitle();
  const note = h('div', { class: 'muted' });
  const [cw, ch] = p.canvas;
  const zoom = Math.max(1, Math.min(16, Math.floor(300 / Math.max(cw, ch))));
  img.width = cw * zoom; img.height = ch * zoom;
  if (cw * zoom > 300) { img.style.width = '100%'; img.style.height = 'auto'; }
  const frame = h('div', { class: 'frame' }, img);
  const card = h('div', { class: 'card pic' }, title, frame, note);
  const draw = () => backend.fetch('/api/picture', { f: state.key, as: state.as, t: index, ...(sliced ? { slice } : {}) }).then(async (r) => {
    if (!r.ok) { const b = parseJSON(await r.text()); note.textContent = b.error; img.remove(); return; }
    if (sliced) img.dataset.slice = slice;
    const nan = Number(r.headers.get('X-Nan-Pixels') || 0);
    const what = r.headers.get('X-Picture') || p.describe;
    note.textContent = (what.includes(p.layout) ? what : `${p.layout}: ${what}`) + (zoom > 1 ? `, zoom ${zoom}×` : '') + (nan && !/NaN/.test(what) ? `, ${nan} NaN pixels in magenta` : '');
    if (img.src) URL.revokeObjectURL(img.src);
    img.src = URL.createObjectURL(await r.blob());
    img.dataset.ready = '1';
  });
  if (sliced) grid.onSlice = (s) => { if (s !== slice) { slice = s; sliceTitle(); draw(); } };
  // A big picture (over 4 megapixels) is drawn when asked for.
  if (cw * ch > 4e6) {
    img.hidden = true;
    frame.append(h('button', { class: 'btn', onclick: (e) => { e.target.remove(); img.hidden = false; note.textContent = 'drawing…'; draw(); } }, `Draw the picture (${cw} × ${ch} pixels)`));
  } else draw();
  const gap = p.tiles > 1 ? 1 : 0;
  let pending = 0;
  const place = (e) => {
    const rect = img.getBoundingClientRect();
    const x = Math.floor((e.clientX - rect.left) * cw / rect.width);
    const y = Math.floor((e.clientY - rect.top) * ch / rect.height);
    const tx = Math.floor(x / (p.width + gap)), ty = Math.floor(y / (p.height + gap));
    const px = x - tx * (p.width + gap), py = y - ty * (p.height + gap);
    const n = ty * p.columns + tx;
    if (px >= p.width || py >= p.height || n >= p.tiles || x < 0 || y < 0) return null;
    const st = p.strides, inner = p.inner || 1;
    const base = sliced ? slice * p.height * p.width : 0;
    const first = base + Math.floor(n / inner) * st.tile + (n % inner) * st.tile_inner + py * st.y + px * st.x;
    return { x: px, y: py, n, first, stride: st.channel };
  };
  img.addEventListener('mousemove', async (e) => {
    const at = place(e);
    if (!at) { tip(null); return; }
    const my = ++pending;
    const r = await api('/api/values', { f: state.key, as: state.as, t: index, offset: at.first, count: 1, rows: p.channels, stride: at.stride }).catch(() => null);
    if (my !== pending || !r || !img.isConnected) return;
    const vals = r.text.map((row) => row[0]);
    const names = p.channels === 1 ? [''] : p.channels === 3 ? ['R ', 'G ', 'B '] : ['R ', 'G ', 'B ', 'A '];
    const tile = p.inner > 1 ? ` of filter ${Math.floor(at.n / p.inner)}, in-channel ${at.n % p.inner}` : /OIHW|HWIO/.test(p.layout) ? ` of filter ${at.n}` : ` of tile ${at.n}`;
    tip(`pixel (${at.x}, ${at.y})` + (p.tiles > 1 ? tile : '') + `\nindex ${grid.indexText(at.first)}` +
      (p.channels > 1 ? ' (first channel)' : '') + '\n' + vals.map((v, k) => names[k] + v).join('  '), e);
  });
  img.addEventListener('mouseleave', () => { pending++; tip(null); });
  img.addEventListener('click', (e) => { const at = place(e); if (at) grid.goto(at.first); });
  return card;
}
