// Text the page writes itself: counts grouped, sizes, offsets, names cut
// to a width, the compact forms of types and attributes the overview
// lists. Values never: they arrive as the text the command line writes.
// Pure functions (no DOM), tested under node (tests/web/format.test.mjs).

// JSON with 64-bit integers kept exact: a number that does not fit a
// double is kept as the text the server wrote.
export function parseJSON(text) {
  // The reviver costs several times the parse: only when a long number is
  // there at all.
  if (!/[0-9]{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(text, (k, v, ctx) => {
    if (typeof v === 'number' && ctx && typeof ctx.source === 'string' &&
        Number.isInteger(v) && !Number.isSafeInteger(v)) return ctx.source;
    return v;
  });
}

export const show = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

// A count as the command line writes it: 67,108,864. Counts past 2^53
// arrive as strings (parseJSON) and are grouped as text.
export function grouped(v) {
  const t = typeof v === 'number' ? String(v) : v;
  return typeof t === 'string' && /^-?\d+$/.test(t) ? t.replace(/\B(?=(\d{3})+$)/g, ',') : show(v);
}

// A name cut in the middle to at most `max` characters, so that both its
// start and its end (the extension, the last path component) stay:
// image_rgb_…_uint8.pb.expect.json.
export function shortName(name, max = 32) {
  const chars = [...name];
  if (chars.length <= max) return name;
  const tail = Math.floor((max - 1) * 2 / 3);
  return chars.slice(0, max - 1 - tail).join('') + '…' + chars.slice(chars.length - tail).join('');
}

export function bytesText(n) {
  if (n < 1024) return n + ' B';
  const u = ['KiB', 'MiB', 'GiB', 'TiB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
  return n.toFixed(n < 10 ? 1 : 0) + ' ' + u[i];
}

export const hex8 = (n) => '0x' + Number(n).toString(16);

// A weight or value's type and shape as one text: FLOAT 1x3x224x224.
export function typeShape(x) {
  if (!x) return '';
  return [x.type || '', x.shape || ''].filter(Boolean).join(' ');
}

// An attribute's value without the `name=` the text view writes first.
export function attrValueText(a) {
  const t = a.text === undefined || a.text === null ? '' : String(a.text);
  return t.startsWith(a.name + '=') ? t.slice(a.name.length + 1) : t;
}

// ---------- the contract JSON of a model, compactly ----------
// An ONNX TypeProto: FLOAT[1, 3, N], seq(...), map(...), optional(...).
export function typeText(t) {
  if (!t) return '?';
  if (t.tensor_type || t.sparse_tensor_type) {
    const tt = t.tensor_type || t.sparse_tensor_type;
    let s = show(tt.elem_type || 'UNDEFINED');
    if (tt.shape) s += '[' + (tt.shape.dim || []).map((d) => (d.dim_value !== undefined ? show(d.dim_value) : d.dim_param !== undefined ? d.dim_param : '?')).join(', ') + ']';
    return t.sparse_tensor_type ? 'sparse(' + s + ')' : s;
  }
  if (t.sequence_type) return 'seq(' + typeText(t.sequence_type.elem_type) + ')';
  if (t.optional_type) return 'optional(' + typeText(t.optional_type.elem_type) + ')';
  if (t.map_type) return 'map(' + show(t.map_type.key_type) + ', ' + typeText(t.map_type.value_type) + ')';
  return '?';
}

// An ONNX AttributeProto as `name=value` (a tensor or graph by its kind).
export function attrText(a) {
  for (const k of ['f', 'i', 's', 'floats', 'ints', 'strings']) if (a[k] !== undefined) return a.name + '=' + show(a[k]);
  if (a.t) return a.name + '=tensor';
  if (a.g) return a.name + '=graph';
  if (a.graphs) return a.name + '=graphs';
  if (a.sparse_tensor) return a.name + '=sparse tensor';
  if (a.ref_attr_name) return a.name + '=$' + a.ref_attr_name;
  return a.name;
}

// A TensorFlow TensorShapeProto: [2, ?, 3].
export function tfShape(sh) {
  if (!sh) return '[]';
  if (sh.unknown_rank) return '<unknown rank>';
  return '[' + (sh.dim || []).map((d) => (Number(d.size) === -1 ? '?' : show(d.size ?? 0))).join(', ') + ']';
}

// Base64 bytes as quoted UTF-8 text, or `b64:...` when they are not text.
export function utf8OrBase64(b64) {
  try { return JSON.stringify(new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)))); } catch { return 'b64:' + b64; }
}

// A TensorFlow AttrValue written compactly, as the text view does.
export function tfAttr(v) {
  if (!v || typeof v !== 'object') return show(v);
  if (v.list) {
    const k = Object.keys(v.list)[0];
    return k ? '[' + v.list[k].map((x) => tfAttr({ [k]: x })).join(', ') + ']' : '[]';
  }
  if (v.type !== undefined) return show(v.type);
  if (v.shape !== undefined) return tfShape(v.shape);
  if (v.tensor) return 'tensor ' + v.tensor.dtype + ' ' + tfShape(v.tensor.tensor_shape);
  if (v.func) return v.func.name + (v.func.attr && Object.keys(v.func.attr).length ? '{…}' : '');
  if (v.placeholder !== undefined) return '$' + v.placeholder;
  if (v.s !== undefined) return utf8OrBase64(v.s);
  for (const k of ['i', 'f', 'b']) if (v[k] !== undefined) return show(v[k]);
  return '{}';
}

// A picture stored in a bytes value (base64): its data URI, or null.
export function pictureURI(b64) {
  if (typeof b64 !== 'string') return null;
  if (b64.startsWith('iVBORw0KGgo')) return 'data:image/png;base64,' + b64;
  if (b64.startsWith('/9j/')) return 'data:image/jpeg;base64,' + b64;
  if (b64.startsWith('R0lGOD')) return 'data:image/gif;base64,' + b64;
  return null;
}

// A field of the schemaless tree as its line shows it: the value (a packed
// list's first 8), and the other ways its bytes read.
export function fieldText(f) {
  let valText = '';
  if (Array.isArray(f.value)) valText = `${f.count} ${f.as || 'values'} [` + f.value.slice(0, 8).map(show).join(', ') + (f.value.length < f.count ? ', …' : '') + ']';
  else valText = typeof f.value === 'string' && f.kind === 'string' ? JSON.stringify(f.value) : show(f.value);
  if (f.cut !== undefined) valText += ` … (${f.cut.toLocaleString('en-US')} bytes)`;
  if (f.zigzag !== undefined) valText += `  (sint ${show(f.zigzag)})`;
  if (f.float !== undefined) valText += `  (float ${show(f.float)})`;
  if (f.double !== undefined) valText += `  (double ${show(f.double)})`;
  return valText;
}
