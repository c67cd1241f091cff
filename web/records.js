// A record file (the server's `overview: records`): its summary, a fault
// it ends in, tf.train.Example records as a table of their features
// (pictures drawn, text quoted), an event file's tags, scalars,
// histograms and pictures, and the text view.
import { api } from './backend.js';
import { h, errorCard } from './dom.js';
import { grouped, pictureURI, utf8OrBase64 } from './format.js';
import { state } from './state.js';
import { renderText } from './text.js';

function featureCell(f) {
  if (!f) return h('td', { class: 'muted' }, '—');
  return h('td', { class: 'mono' }, featureContent(f));
}
// A Feature's values: pictures drawn, text quoted, numbers listed.
function featureContent(f) {
  const [kind, list] = f.bytes_list ? ['bytes', f.bytes_list] : f.float_list ? ['float', f.float_list] : f.int64_list ? ['int64', f.int64_list] : ['none', {}];
  const vals = list.value || [];
  if (kind === 'bytes') {
    return [vals.slice(0, 4).map((b) => {
      const uri = pictureURI(b);
      if (uri) return h('img', { class: 'feature-picture', src: uri, alt: 'picture' });
      // Quoted text, or base64 for bytes that are not UTF-8.
      const text = utf8OrBase64(b);
      return h('div', null, text.length > 64 ? text.slice(0, 63) + '…' : text);
    }), vals.length > 4 ? h('div', { class: 'muted' }, `… ${vals.length - 4} more`) : null];
  }
  const shown = vals.slice(0, 8).map((v) => String(v)).join(', ');
  return [`${kind}[${vals.length}] [${shown}${vals.length > 8 ? ', …' : ''}]`];
}
// A SequenceExample's feature list: a line per step (the first 8), each
// with its step number and values.
function featureListCell(fl) {
  if (!fl) return h('td', { class: 'muted' }, '—');
  const steps = fl.feature || [];
  return h('td', { class: 'mono feature-list' }, steps.slice(0, 8).map((f, t) =>
    h('div', { class: 'step', 'data-step': t }, h('span', { class: 'muted' }, `[${t}] `), featureContent(f))),
  steps.length > 8 ? h('div', { class: 'muted' }, `… ${steps.length - 8} more steps`) : null);
}
function lineChart(points, title) {
  const W = 360, H = 180, P = 34;
  const c = h('canvas', { width: W, height: H, class: 'chart', 'data-tag': title });
  const g = c.getContext('2d');
  const xs = points.map((p) => Number(p[0])), ys = points.map((p) => Number(p[1]));
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const sx = (x) => P + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (W - 2 * P);
  const sy = (y) => H - P + 6 - (y1 === y0 ? 0.5 : (y - y0) / (y1 - y0)) * (H - 2 * P);
  g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
  g.strokeStyle = '#bbb'; g.beginPath(); g.moveTo(P, 8); g.lineTo(P, H - P + 6); g.lineTo(W - 8, H - P + 6); g.stroke();
  g.fillStyle = '#555'; g.font = '11px sans-serif';
  g.fillText(String(y1.toPrecision(4)), 2, 14); g.fillText(String(y0.toPrecision(4)), 2, H - P + 4);
  g.fillText('step ' + x0, P, H - 6); g.fillText(String(x1), W - 30, H - 6);
  g.strokeStyle = '#1f6feb'; g.lineWidth = 2; g.beginPath();
  points.forEach((p, i) => { const X = sx(Number(p[0])), Y = sy(Number(p[1])); if (i) g.lineTo(X, Y); else g.moveTo(X, Y); });
  g.stroke();
  g.fillStyle = '#1f6feb';
  for (const p of points.slice(0, 200)) { g.beginPath(); g.arc(sx(Number(p[0])), sy(Number(p[1])), 2.5, 0, 7); g.fill(); }
  return c;
}
function histogramChart(buckets, title) {
  const W = 360, H = 180, P = 24;
  const c = h('canvas', { width: W, height: H, class: 'chart', 'data-tag': title });
  const g = c.getContext('2d');
  g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
  if (!buckets.length) return c;
  const lo = Number(buckets[0][0]), hi = Number(buckets[buckets.length - 1][1]);
  const top = Math.max(...buckets.map((b) => Number(b[2])), 1);
  const sx = (x) => P + (hi === lo ? 0.5 : (x - lo) / (hi - lo)) * (W - 2 * P);
  g.fillStyle = '#e8710a';
  for (const [l, r, n] of buckets) {
    const x = sx(Number(l)), w = Math.max(1, sx(Number(r)) - x - 1), bh = (Number(n) / top) * (H - 2 * P);
    g.fillRect(x, H - P - bh, w, bh);
  }
  g.fillStyle = '#555'; g.font = '11px sans-serif';
  g.fillText(String(lo.toPrecision(3)), P, H - 6); g.fillText(String(hi.toPrecision(3)), W - 40, H - 6);
  return c;
}
export function renderRecords(body) {
  const o = state.open, d = o.decoded, s = d.summary || {};
  const types = Object.entries(s.payload_types || {}).map(([t, n]) => `${t} ${grouped(n)}`).join(', ') || 'none';
  body.append(h('div', { class: 'card', id: 'records-summary' }, h('h3', null, o.title),
    h('dl', { class: 'kv' },
      h('dt', null, 'compression'), h('dd', { 'data-key': 'compression' }, s.compression),
      h('dt', null, 'records'), h('dd', { 'data-key': 'records' }, grouped(s.records)),
      h('dt', null, 'payload types'), h('dd', { 'data-key': 'payload_types' }, types),
      h('dt', null, 'payload bytes'), h('dd', { 'data-key': 'payload_bytes' }, grouped(s.payload_bytes)))));
  if (d.fault) body.append(errorCard({ check: d.fault.check, path: d.fault.path, offset: d.fault.offset, reason: d.fault.message }, 'The file ends in a fault (every whole record before it is read)'));
  const records = d.records || [];
  if (s.features) {
    body.append(h('div', { class: 'card', id: 'feature-schema' }, h('h3', null, 'Features'),
      h('table', { class: 't' }, h('thead', null, h('tr', null, ['name', 'kind', 'length', 'missing'].map((x) => h('th', null, x)))),
        h('tbody', null, s.features.map((f) => h('tr', null,
          h('td', { class: 'mono' }, f.name + (f.feature_list ? ' (list)' : '')), h('td', null, f.kind),
          h('td', { class: 'num' }, f.min_length === f.max_length ? String(f.min_length) : `${f.min_length}..${f.max_length}`),
          h('td', { class: 'num' }, grouped(f.missing))))))));
    const names = s.features.filter((f) => !f.feature_list).map((f) => f.name);
    const lists = s.features.filter((f) => f.feature_list).map((f) => f.name);
    const featuresOf = (r) => ((r.value || {}).features || (r.value || {}).context || {}).feature || {};
    const listsOf = (r) => (((r.value || {}).feature_lists || {}).feature_list) || {};
    body.append(h('div', { class: 'card', id: 'examples' }, h('h3', null, `Records (the first ${records.length} of ${grouped(s.records)})`),
      h('div', { class: 'scrollbox' }, h('table', { class: 't' },
        h('thead', null, h('tr', null, h('th', null, '#'), names.map((n) => h('th', { class: 'mono' }, n)),
          lists.map((n) => h('th', { class: 'mono', 'data-list': n }, n + ' (list)')))),
        h('tbody', null, records.map((r) => h('tr', { 'data-record': r.index }, h('td', { class: 'num' }, String(r.index)),
          names.map((n) => featureCell(featuresOf(r)[n])),
          lists.map((n) => featureListCell(listsOf(r)[n])))))))));
  }
  if (s.tags) {
    body.append(h('div', { class: 'card', id: 'tags' }, h('h3', null, `Tags (${s.tags.length})`),
      h('table', { class: 't' }, h('thead', null, h('tr', null, ['tag', 'plugin', 'values', 'steps', 'last value'].map((x) => h('th', null, x)))),
        h('tbody', null, s.tags.map((t) => h('tr', null, h('td', { class: 'mono' }, t.tag), h('td', null, t.plugin || '—'),
          h('td', { class: 'num' }, grouped(t.values)), h('td', { class: 'num' }, t.first_step === t.last_step ? String(t.first_step) : `${t.first_step}..${t.last_step}`),
          h('td', { class: 'mono' }, t.last_value)))))));
    const plots = h('div', { class: 'card', id: 'plots' }, h('h3', null, 'Scalars, histograms and pictures'), h('div', { class: 'muted' }, 'Reading…'));
    body.append(plots);
    api('/api/series', { f: state.key, as: state.as }).then((r) => {
      const grid = h('div', { class: 'charts' });
      for (const sc of r.scalars) grid.append(h('figure', { class: 'plot', 'data-kind': 'scalar' }, lineChart(sc.points, sc.tag), h('figcaption', null, `${sc.tag} (${sc.points.length} steps)`)));
      for (const hi of r.histograms) grid.append(h('figure', { class: 'plot', 'data-kind': 'histogram' }, histogramChart(hi.buckets, hi.tag), h('figcaption', null, `${hi.tag} at step ${hi.step} (${hi.buckets.length} buckets)`)));
      for (const im of r.images) {
        const uri = pictureURI(im.base64);
        if (uri) grid.append(h('figure', { class: 'plot', 'data-kind': 'image' }, h('img', { class: 'event-picture', src: uri, alt: im.tag }), h('figcaption', null, `${im.tag} at step ${im.step}`)));
      }
      plots.replaceChildren(h('h3', null, 'Scalars, histograms and pictures'), grid);
    }).catch((e) => plots.append(h('div', { class: 'error' }, e.message)));
  }
  const text = h('div');
  body.append(h('div', { class: 'card' }, h('h3', null, 'As the command line shows it'), text));
  renderText(text, true);
}
