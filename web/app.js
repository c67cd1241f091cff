// The pbdecode explorer page. Everything it shows comes from its back end,
// which uses the same library as the `decode` command: the JSON contract,
// the text view, the picture code. Values arrive as the contract's text and
// are shown as they are; nothing here decodes bytes or formats numbers.
// The back end is the server (`decode serve`) or, on the static site, the
// WebAssembly build of the same endpoints in the page (web/wasm.js): both
// answer the same requests with the same bytes (see BACKEND below).
'use strict';

// Which back end: the static site's page says `wasm`.
const STATIC = (document.querySelector('meta[name=pbdecode-backend]') || {}).content === 'wasm';

// The server's token: embedded in the page when it was opened with
// ?token= or a one-time ?code=, then kept in this origin's localStorage
// (per port, unlike a cookie) and the query taken out of the address bar.
// Every request sends it in the Authorization header.
const TOKEN = STATIC ? '' : (() => {
  const given = document.querySelector('meta[name=pbdecode-token]').content;
  if (given) {
    try { localStorage.setItem('pbdecode-token', given); } catch { /* private mode: this tab only */ }
    history.replaceState(null, '', location.pathname + location.hash);
    return given;
  }
  try { return localStorage.getItem('pbdecode-token') || ''; } catch { return ''; }
})();
const AUTH = { Authorization: 'token ' + TOKEN };

// ---------- small helpers ----------
const $ = (sel, el = document) => el.querySelector(sel);
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else el.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === undefined || kid === null || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}
// JSON with 64-bit integers kept exact: a number that does not fit a
// double is kept as the text the server wrote.
function parseJSON(text) {
  // The reviver costs several times the parse: only when a long number is
  // there at all.
  if (!/[0-9]{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(text, (k, v, ctx) => {
    if (typeof v === 'number' && ctx && typeof ctx.source === 'string' &&
        Number.isInteger(v) && !Number.isSafeInteger(v)) return ctx.source;
    return v;
  });
}
const show = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
// A count as the command line writes it: 67,108,864. Counts past 2^53
// arrive as strings (parseJSON) and are grouped as text.
function grouped(v) {
  const t = typeof v === 'number' ? String(v) : v;
  return typeof t === 'string' && /^-?\d+$/.test(t) ? t.replace(/\B(?=(\d{3})+$)/g, ',') : show(v);
}
// A name cut in the middle to at most `max` characters, so that both its
// start and its end (the extension, the last path component) stay:
// image_rgb_…_uint8.pb.expect.json. The whole name goes in a title.
function shortName(name, max = 32) {
  const chars = [...name];
  if (chars.length <= max) return name;
  const tail = Math.floor((max - 1) * 2 / 3);
  return chars.slice(0, max - 1 - tail).join('') + '…' + chars.slice(chars.length - tail).join('');
}
// Cuts the name an element shows in the middle until it fits the
// element's width (drawn, with overflow hidden).
function fitName(el, name) {
  el.textContent = name;
  if (el.scrollWidth <= el.clientWidth) return;
  let lo = 4, hi = [...name].length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    el.textContent = shortName(name, mid);
    if (el.scrollWidth <= el.clientWidth) lo = mid; else hi = mid - 1;
  }
  el.textContent = shortName(name, lo);
}
function bytesText(n) {
  if (n < 1024) return n + ' B';
  const u = ['KiB', 'MiB', 'GiB', 'TiB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
  return n.toFixed(n < 10 ? 1 : 0) + ' ' + u[i];
}
const hex8 = (n) => '0x' + Number(n).toString(16);
function toast(msg, ms = 4000) {
  const t = $('#toast');
  t.textContent = msg;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, ms);
}
function tip(text, ev) {
  const t = $('#tip');
  if (!text) { t.hidden = true; return; }
  t.textContent = text;
  t.hidden = false;
  const x = Math.min(ev.clientX + 14, window.innerWidth - t.offsetWidth - 8);
  const y = Math.min(ev.clientY + 16, window.innerHeight - t.offsetHeight - 8);
  t.style.left = x + 'px';
  t.style.top = y + 'px';
}

// The back end's calls: `fetch(path, params)` answers a GET of the API
// with a fetch Response (or one like it), `upload(file, onProgress)` adds a
// file and resolves to its listing, `close(key)` closes an added one.
const httpBackend = {
  fetch: (path, params) => fetch(path + (params ? '?' + new URLSearchParams(params) : ''), { headers: AUTH }),
  close: (key) => fetch('/api/close?f=' + encodeURIComponent(key), { method: 'POST', headers: AUTH }),
  // Streamed to the server, with its progress.
  upload: (file, onProgress) => new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/upload?name=' + encodeURIComponent(file.name));
    xhr.setRequestHeader('Authorization', AUTH.Authorization);
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded, e.total); };
    xhr.onload = () => {
      let body;
      try { body = parseJSON(xhr.responseText); } catch { body = { error: xhr.responseText }; }
      if (xhr.status === 200) resolve(body); else reject(new Error(body.error || xhr.statusText));
    };
    xhr.onerror = () => reject(new Error('upload failed'));
    xhr.send(file);
  }),
};
// The module in the page: loaded once, on first use.
let wasmModule = null;
const wasmReady = () => (wasmModule ||= globalThis.pbdecodeWasm(fetch('pbdecode.wasm')));
const wasmBackend = {
  fetch: async (path, params) => (await wasmReady()).fetch(path, params),
  close: async (key) => (await wasmReady()).fetch('/api/close', { f: key }),
  // Read into the module's memory, with its progress.
  upload: async (file, onProgress) => {
    const r = await (await wasmReady()).add(file, onProgress);
    const body = parseJSON(await r.text());
    if (!r.ok) throw new Error(body.error);
    return body;
  },
  // Files dropped together, read as one folder (side files found among
  // them); resolves to their listings.
  uploadFolder: async (name, entries, onProgress) => {
    const answers = await (await wasmReady()).addFolder(name, entries, onProgress);
    const out = [];
    for (const r of answers) {
      const body = parseJSON(await r.text());
      if (r.ok) out.push(body); else toast(body.error, 8000);
    }
    return out;
  },
};
const BACKEND = STATIC ? wasmBackend : httpBackend;

async function api(path, params) {
  const r = await BACKEND.fetch(path, params);
  const text = await r.text();
  let body;
  try { body = parseJSON(text); } catch { body = { error: text }; }
  if (!r.ok) throw Object.assign(new Error(body.error || r.statusText), { status: r.status });
  return body;
}

// ---------- state and addresses ----------
// The address (after #) names the file, the format it is read as, the tab,
// the tensor and the element: bookmarkable for served files.
const S = {
  files: [],
  open: null,       // /api/open answer
  key: null, as: 'auto',
  tab: 'overview',
  tensorIndex: null,
  at: null,
  hexAt: 0,
};
function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  return {
    f: p.get('f'), as: p.get('as') || 'auto', tab: p.get('tab') || 'overview',
    t: p.get('t') !== null ? Number(p.get('t')) : null,
    at: p.get('at') !== null ? Number(p.get('at')) : null,
    hex: p.get('hex') !== null ? Number(p.get('hex')) : null,
    g: p.get('g') !== null ? Number(p.get('g')) : null,
    n: p.get('n') !== null ? Number(p.get('n')) : null,
  };
}
function go(change, replace) {
  const cur = readHash();
  const next = { ...cur, ...change };
  const p = new URLSearchParams();
  if (next.f) p.set('f', next.f);
  if (next.as && next.as !== 'auto') p.set('as', next.as);
  if (next.tab && next.tab !== 'overview') p.set('tab', next.tab);
  if (next.t !== null && next.t !== undefined) p.set('t', next.t);
  if (next.at !== null && next.at !== undefined) p.set('at', next.at);
  if (next.hex !== null && next.hex !== undefined) p.set('hex', next.hex);
  // The graph and node the Graph tab shows: kept while in that tab.
  if (next.tab === 'graph' && next.f === cur.f) {
    if (next.g !== null && next.g !== undefined) p.set('g', next.g);
    if (next.n !== null && next.n !== undefined) p.set('n', next.n);
  }
  const h2 = '#' + p.toString();
  if (h2 === location.hash) { route(); return; }
  if (replace) { history.replaceState(null, '', h2); route(); } else location.hash = h2;
}
window.addEventListener('hashchange', () => route());

// ---------- files ----------
async function loadFiles() {
  try {
    const r = await api('/api/files');
    S.files = r.files;
    renderFiles();
    return true;
  } catch (e) {
    if (e.status === 403) return false;
    toast('files: ' + e.message);
    return true;
  }
}
// Without the token (a fresh browser, or a token of an earlier run), the
// page says where to get it.
function needToken() {
  $('#welcome').replaceChildren(h('div', { class: 'drop-target' },
    h('h1', null, 'This page needs the token'),
    h('p', null, 'Open the address ', h('code', null, 'decode serve'), ' printed (it ends with ', h('code', null, '?token=…'), ').')));
  $('#welcome').hidden = false;
}
function renderFiles(filter) {
  const ul = $('#files');
  ul.replaceChildren();
  const q = (filter || '').toLowerCase();
  let shown = 0;
  let lastDir = null;
  for (const f of S.files) {
    if (q && !f.name.toLowerCase().includes(q)) continue;
    if (shown++ > 3000) { ul.append(h('li', { class: 'muted' }, '…')); break; }
    const upload = f.key.startsWith('u');
    const slash = f.name.lastIndexOf('/');
    const dir = upload ? 'dropped on the page' : slash >= 0 ? f.name.slice(0, slash) : '';
    if (dir !== lastDir) {
      lastDir = dir;
      if (dir) ul.append(h('li', { class: 'dirh', title: dir, 'data-full': dir + (upload ? '' : '/') }, dir + (upload ? '' : '/')));
    }
    const base = upload ? f.name : f.name.slice(slash + 1);
    const li = h('li', {
      class: f.key === S.key ? 'active' : '', title: f.name,
      'data-key': f.key,
      onclick: () => go({ f: f.key, as: 'auto', tab: 'overview', t: null, at: null, hex: null }),
    },
    h('span', { class: 'n', 'data-full': base }, base),
    h('span', { class: 'sz' }, bytesText(f.size)),
    upload ? h('button', { class: 'x', title: 'Close', onclick: (e) => { e.stopPropagation(); closeUpload(f.key); } }, '×') : null);
    ul.append(li);
  }
  if (!S.files.length) ul.append(h('li', { class: 'muted' }, 'No files yet: drop one on the page.'));
  for (const el of ul.querySelectorAll('[data-full]')) if (el.scrollWidth > el.clientWidth) fitName(el, el.dataset.full);
}
async function closeUpload(key) {
  await BACKEND.close(key);
  if (S.key === key) { location.hash = ''; }
  loadFiles();
}

// Drop or pick: the file is given to the back end (streamed to the
// server, or read into the page's module), then opened.
async function upload(file) {
  const bar = h('div');
  const t = $('#toast');
  t.replaceChildren(h('div', null, 'Opening ' + file.name + ' (' + bytesText(file.size) + ')…'), h('div', { class: 'progress' }, bar));
  t.hidden = false;
  try {
    return await BACKEND.upload(file, (done, total) => { bar.style.width = (100 * done / total) + '%'; });
  } finally { t.hidden = true; }
}
// The uploads of this page, by the dropped file's name, size and time: the
// same file dropped again opens the copy already listed.
const uploaded = new Map();
async function openLocal(file) {
  const same = file.name + '\n' + file.size + '\n' + file.lastModified;
  const listed = uploaded.get(same);
  if (listed && S.files.some((f) => f.key === listed)) {
    go({ f: listed, as: 'auto', tab: 'overview', t: null, at: null, hex: null });
    return;
  }
  try {
    const r = await upload(file);
    uploaded.set(same, r.key);
    await loadFiles();
    go({ f: r.key, as: 'auto', tab: 'overview', t: null, at: null, hex: null });
  } catch (e) { toast('Could not open ' + file.name + ': ' + e.message, 8000); }
}
// Files dropped together on the static page (a folder, or several files):
// read as one folder, as `decode serve FOLDER` reads one, so that a model
// finds its external data and a test folder its model. `entries` are
// {path, file}, paths inside the folder `name`.
async function openTogether(name, entries) {
  const bar = h('div');
  const t = $('#toast');
  const size = entries.reduce((n, e) => n + e.file.size, 0);
  t.replaceChildren(h('div', null, `Opening ${entries.length} files of ${name} (${bytesText(size)})…`), h('div', { class: 'progress' }, bar));
  t.hidden = false;
  try {
    const listed = await BACKEND.uploadFolder(name, entries, (done, total) => { bar.style.width = (100 * done / total) + '%'; });
    t.hidden = true;
    await loadFiles();
    toast(`${listed.length} files of ${name} listed on the left`);
  } catch (e) { t.hidden = true; toast('Could not open ' + name + ': ' + e.message, 8000); }
}
// The files under dropped entries (FileSystemEntry), walked without
// recursion: {path, file} with paths from the entries' parent.
async function entryFiles(entries) {
  const out = [];
  const stack = entries.map((e) => ({ e, prefix: '' }));
  while (stack.length) {
    const { e, prefix } = stack.pop();
    if (e.isFile) out.push({ path: prefix + e.name, file: await new Promise((ok, fail) => e.file(ok, fail)) });
    else if (e.isDirectory) {
      const reader = e.createReader();
      for (;;) {
        const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
        if (!batch.length) break;
        for (const c of batch) stack.push({ e: c, prefix: prefix + e.name + '/' });
      }
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
// One folder dropped: its files, inside it; anything else: the files and
// folders dropped, inside a folder of their own.
async function openEntries(entries) {
  const files = await entryFiles(entries);
  const one = entries.length === 1 && entries[0].isDirectory ? entries[0].name : null;
  if (one) openTogether(one, files.map((f) => ({ path: f.path.slice(one.length + 1), file: f.file })));
  else openTogether('dropped together', files);
}
let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; $('#dropmask').hidden = false; });
window.addEventListener('dragleave', (e) => { e.preventDefault(); if (--dragDepth <= 0) { dragDepth = 0; $('#dropmask').hidden = true; } });
window.addEventListener('dragover', (e) => { e.preventDefault(); });
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  $('#dropmask').hidden = true;
  const dt = e.dataTransfer;
  // The entries are read now: the drop's data is gone once it returns.
  const entries = STATIC && dt && dt.items ? [...dt.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean) : [];
  if (entries.length > 1 || entries.some((en) => en.isDirectory)) { openEntries(entries); return; }
  const f = dt && dt.files && dt.files[0];
  if (f) openLocal(f);
});

// ---------- routing ----------
let routing = 0;
async function route() {
  const my = ++routing;
  const r = readHash();
  if (!r.f) {
    S.key = null; S.open = null;
    document.title = 'pbdecode explorer';
    $('#welcome').hidden = false; $('#view').hidden = true; $('#as-box').hidden = true;
    $('#crumbs').replaceChildren();
    runSearch();
    return;
  }
  if (r.f !== S.key || r.as !== S.as || !S.open) {
    $('#welcome').hidden = true; $('#view').hidden = false;
    $('#view').replaceChildren(h('p', { class: 'spin' }, 'Reading…'));
    // A graph's layout is asked for beside the file's answer, not after it.
    if (r.tab === 'graph') graphFetch(r.f, r.as, r.g !== null ? r.g : 0).catch(() => {});
    try {
      const o = await api('/api/open', { f: r.f, as: r.as });
      if (my !== routing) return;
      S.open = o; S.key = r.f; S.as = r.as;
      S.graphId = undefined; S.graphNode = undefined;
    } catch (e) {
      if (my !== routing) return;
      S.open = null; S.key = r.f;
      $('#view').replaceChildren(h('div', { class: 'card error-card' }, h('div', { class: 'big' }, 'Cannot open this file'), e.message));
      runSearch();
      return;
    }
  }
  S.tab = r.tab; S.tensorIndex = r.t; S.at = r.at;
  if (r.hex !== null) S.hexAt = r.hex;
  // The results are the open file's: searched again on every open.
  runSearch();
  const active = $('#files li.active');
  if (active) active.scrollIntoView({ block: 'nearest' });
  renderOpen();
}

// ---------- the open file ----------
function renderHeader() {
  const o = S.open;
  document.title = o.file.name + ' — pbdecode explorer';
  const crumbs = $('#crumbs');
  const fname = h('span', { class: 'fname', title: o.file.name }, o.file.name);
  crumbs.replaceChildren(
    fname,
    h('span', { class: 'muted' }, bytesText(o.file.size)),
    o.ok ? h('span', { class: 'badge', title: o.title }, o.format) : h('span', { class: 'badge bad' }, 'not decoded'),
  );
  // Cut in the middle to the room the bar leaves, as the file list does.
  fitName(fname, o.file.name);
  const sel = $('#as');
  sel.replaceChildren(h('option', { value: 'auto' }, 'auto (detect)'),
    ...o.formats.map((f) => {
      const passed = (o.passed_over || []).find((p) => p.format === f.id);
      const tried = (o.tried || []).find((p) => p.format === f.id);
      const why = passed ? passed.error.message : tried ? tried.error.message : '';
      return h('option', { value: f.id, title: why ? 'does not fit: ' + why : f.title },
        f.id + (why ? '  ✗' : ''));
    }));
  sel.value = S.as;
  $('#as-box').hidden = false;
}

function tabs(list) {
  return h('nav', { class: 'tabs', role: 'tablist' }, list.map(([id, label]) =>
    h('button', { class: S.tab === id ? 'on' : '', role: 'tab', 'data-tab': id, onclick: () => go({ tab: id, t: id === 'tensor' ? S.tensorIndex : null, at: null }) }, label)));
}

function renderOpen() {
  tip(null);
  const o = S.open;
  renderHeader();
  const view = $('#view');
  view.replaceChildren();
  // What a well-known file that is not protobuf is, first: the command
  // line's hint, from the server.
  if (o.looks_like) view.append(h('div', { class: 'card hint', id: 'looks-like' }, h('div', { class: 'big' }, 'This looks like ' + o.looks_like)));
  if (!o.ok) { S.focus = null; renderRejected(view); return; }
  for (const n of o.notes || []) view.append(h('div', { class: 'note' }, n));
  const tensors = (o.tensors || []).filter(Boolean);
  const list = [['overview', 'Overview']];
  if (hasGraph(o)) list.push(['graph', 'Graph']);
  if (tensors.length && o.format !== 'onnx-tensor') list.push(['tensors', `Tensors (${tensors.length})`]);
  if (S.tensorIndex !== null && o.format !== 'onnx-tensor') {
    const t = tensors.find((x) => x.index === S.tensorIndex);
    list.push(['tensor', 'Tensor: ' + (t ? t.name : S.tensorIndex)]);
  }
  list.push(['tree', 'JSON'], ['text', 'Text'], ['bytes', 'Bytes']);
  if (S.tensorIndex !== null && S.tab === 'overview' && o.format !== 'onnx-tensor') S.tab = 'tensor';
  view.append(tabs(list));
  const body = h('div', { id: 'tabbody' });
  view.append(body);
  switch (S.tab) {
    case 'tensors': renderTensorList(body, tensors); break;
    case 'tensor': renderTensor(body, S.tensorIndex); break;
    case 'graph': renderGraphTab(body); break;
    case 'tree': renderTree(body); break;
    case 'text': renderText(body); break;
    case 'bytes': renderBytes(body, null); break;
    default: renderOverview(body, tensors);
  }
  // A search result's node, now that the overview is drawn.
  if (S.focus) { const f = S.focus; S.focus = null; f(); }
}

function errorCard(err, title) {
  return h('div', { class: 'card error-card', id: 'error' },
    h('div', { class: 'big' }, title),
    h('dl', { class: 'kv' },
      h('dt', null, 'check'), h('dd', { 'data-check': err.check }, err.check + ' check failed'),
      h('dt', null, 'field'), h('dd', { class: 'mono' }, err.path || '(the top-level message)'),
      h('dt', null, 'offset'), h('dd', { class: 'mono', 'data-offset': err.offset }, hex8(err.offset) + '  (byte ' + err.offset + ')'),
      // In a text-format file, where the fault is written.
      err.line ? h('dt', null, 'line') : null,
      err.line ? h('dd', { class: 'mono', 'data-line': err.line }, `line ${err.line}, column ${err.column}`) : null,
      h('dt', null, 'reason'), h('dd', null, err.reason)));
}

function renderRejected(view) {
  const o = S.open;
  const title = o.format ? `Not ${o.format}` : 'Not decoded: no format fits';
  view.append(errorCard(o.error, title));
  if (o.tried && o.tried.length) {
    view.append(h('div', { class: 'card' }, h('h3', null, 'What each format said'),
      h('table', { class: 't' }, h('tbody', null, o.tried.map((t) =>
        h('tr', null, h('td', { class: 'mono' }, t.format), h('td', null, t.error.message)))))));
  }
  const body = h('div');
  if (o.error.line) {
    view.append(h('div', { class: 'card' }, h('h3', null, 'Text (the fault\'s line highlighted)'), body));
    renderSource(body, o.error.line);
    return;
  }
  view.append(h('div', { class: 'card' }, h('h3', null, 'Bytes (the fault highlighted)'), body));
  renderBytes(body, { at: o.error.offset, error: o.error.offset });
}

// The formats whose files hold graphs the Graph tab draws.
const hasGraph = (o) => ['onnx-model', 'tf-graph-def', 'tf-saved-model'].includes(o.format);

function renderOverview(body, tensors) {
  const o = S.open;
  switch (o.format) {
    case 'onnx-tensor': renderTensor(body, 0); break;
    case 'onnx-model': renderModel(body, tensors); break;
    case 'tf-graph-def': renderGraphDef(body, tensors); break;
    case 'protobuf': renderSchemaless(body); break;
    case 'tf-record': renderRecords(body); break;
    default: renderGeneric(body, tensors);
  }
}

// A tensor list: every tensor of the file, openable.
function tensorTable(tensors, limit) {
  const rows = tensors.slice(0, limit || tensors.length);
  return h('table', { class: 't', id: 'tensor-table' },
    h('thead', null, h('tr', null, h('th', null, 'name'), h('th', null, 'type'), h('th', null, 'shape'), h('th', null, 'elements'), h('th', null, 'storage'))),
    h('tbody', null, rows.map((t) => h('tr', { class: 'click', 'data-tensor': t.name, onclick: () => go({ tab: 'tensor', t: t.index, at: null }) },
      h('td', null, h('span', { class: 'link' }, t.name)),
      h('td', { class: 'mono' }, t.dtype),
      h('td', { class: 'mono' }, t.dims === null ? '?' : '[' + t.dims.join(', ') + ']'),
      h('td', { class: 'num' }, grouped(t.elements)),
      h('td', null, t.storage)))),
    tensors.length > rows.length ? h('tfoot', null, h('tr', null, h('td', { colspan: 5, class: 'muted' }, `… ${tensors.length - rows.length} more in the Tensors tab (the search box finds any of them)`))) : null);
}
function renderTensorList(body, tensors) {
  body.append(h('div', { class: 'card' }, tensorTable(tensors, 2000)));
}

function renderGeneric(body, tensors) {
  const o = S.open;
  const d = o.decoded;
  body.append(h('div', { class: 'card' }, h('h3', null, o.title),
    h('dl', { class: 'kv' }, h('dt', null, 'type'), h('dd', { class: 'mono' }, d.type || '—'),
      d.also ? [h('dt', null, 'also valid as'), h('dd', { class: 'mono' }, d.also.join(', '))] : null)));
  body.append(summaryCard('Summary') || '');
  const text = h('div');
  const textCard = h('div', { class: 'card' }, h('h3', null, 'As the command line shows it'), text);
  const list = tensors.length ? h('div', { class: 'card' }, h('h3', null, `Tensors (${tensors.length})`), tensorTable(tensors, 30)) : null;
  // A SavedModel's signatures come first; a sequence's or sparse tensor's
  // elements.
  if (o.format === 'tf-saved-model') body.append(textCard, list || '');
  else body.append(list || '', textCard);
  renderText(text, true);
}

// ---------- ONNX model ----------
function typeText(t) {
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
function attrText(a) {
  for (const k of ['f', 'i', 's', 'floats', 'ints', 'strings']) if (a[k] !== undefined) return a.name + '=' + show(a[k]);
  if (a.t) return a.name + '=tensor';
  if (a.g) return a.name + '=graph';
  if (a.graphs) return a.name + '=graphs';
  if (a.sparse_tensor) return a.name + '=sparse tensor';
  if (a.ref_attr_name) return a.name + '=$' + a.ref_attr_name;
  return a.name;
}
function findTensor(name) {
  if (!S.byName || S.byNameOf !== S.open) {
    S.byName = new Map();
    S.byNameOf = S.open;
    for (const t of S.open.tensors || []) if (t && !S.byName.has(t.name)) S.byName.set(t.name, t);
  }
  return S.byName.get(name);
}
function tensorLink(name) {
  const t = findTensor(name);
  return t ? h('span', { class: 'link', onclick: () => go({ tab: 'tensor', t: t.index, at: null }) }, name) : name;
}
// A graph's nodes; `prefix` is the graph's place, so that a search result
// finds its node: '' for the main graph, `F<k>/` for function k, and
// `<node>.<attribute>.<graph>/` after its parent's for a subgraph.
function graphBlock(g, depth, prefix = '') {
  const wrap = h('div');
  const ioRow = (v) => h('tr', null, h('td', { class: 'mono' }, tensorLink(v.name)), h('td', { class: 'mono' }, typeText(v.type)));
  const ios = (label, list) => {
    if (!list || !list.length) return null;
    const table = h('table', { class: 't' }, h('tbody', null, list.slice(0, 12).map(ioRow)));
    const card = h('div', { class: 'card' }, h('h3', null, `${label} (${list.length})`), table);
    if (list.length > 12) {
      const more = h('button', { class: 'btn small', onclick: () => { table.tBodies[0].append(...list.slice(12).map(ioRow)); more.remove(); } }, `show ${list.length - 12} more`);
      card.append(more);
    }
    return card;
  };
  if (depth === 0) {
    wrap.append(h('div', { class: 'cols2' }, ios('Inputs', g.input), ios('Outputs', g.output)));
  }
  const nodes = g.node || [];
  const list = h('div', { class: 'nodes', 'data-graph': prefix });
  const nodeLine = (n, i) => {
    const outs = (n.output || []).join(', ');
    const ins = (n.input || []).map((x) => (x === '' ? '""' : x));
    const op = (n.domain ? n.domain + '.' : '') + n.op_type;
    const line = h('div', { class: 'node', 'data-node': n.name || '', 'data-op': n.op_type, 'data-i': depth === 0 ? i : null, 'data-path': prefix + i },
      h('span', { class: 'muted' }, `[${i}] `), outs, ' = ', h('span', { class: 'op' }, op), '(',
      ins.map((x, k) => [k ? ', ' : '', tensorLink(x)]), ')',
      (n.attribute || []).length ? h('span', { class: 'attrs' }, ' {', n.attribute.map((a, k) => [k ? ', ' : '', a.t ? h('span', { class: 'link', onclick: () => { const t = findTensor(a.t.name || (n.output || [])[0]); if (t) go({ tab: 'tensor', t: t.index, at: null }); } }, attrText(a)) : attrText(a)]), '}') : null,
      n.name ? h('span', { class: 'nm' }, '  # ' + n.name) : null);
    list.append(line);
    (n.attribute || []).forEach((a, ai) => {
      const subs = a.g ? [a.g] : a.graphs || [];
      subs.forEach((sg, k) => {
        const sub = `${prefix}${i}.${ai}.${k}/`;
        const det = h('details', { class: 'sub', 'data-sub': sub }, h('summary', null, `${a.name}${subs.length > 1 ? '[' + k + ']' : ''}: graph "${sg.name || ''}" (${(sg.node || []).length} nodes)`));
        det.fill = () => { if (det.children.length === 1) det.append(graphBlock(sg, depth + 1, sub)); };
        det.addEventListener('toggle', () => { if (det.open) det.fill(); });
        list.append(det);
      });
    });
  };
  // Nodes are drawn 300 at a time, more as the list scrolls into view: a
  // graph of 20,000 nodes opens at once.
  let drawn = 0;
  const more = h('button', { class: 'btn small more' });
  const drawTo = (n) => {
    while (drawn < Math.min(n, nodes.length)) { nodeLine(nodes[drawn], drawn); drawn++; }
    if (drawn < nodes.length) { more.textContent = `show more (${nodes.length - drawn} nodes left)`; list.append(more); } else more.remove();
  };
  more.addEventListener('click', () => drawTo(drawn + 1000));
  // The top-level list scrolls in its own box, so that drawing more nodes
  // never pushes what follows it away.
  if (depth === 0) list.classList.add('scrollbox');
  if ('IntersectionObserver' in window) {
    new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) drawTo(drawn + 300); }, { root: depth === 0 ? list : null }).observe(more);
  }
  list.drawTo = drawTo;
  drawTo(300);
  wrap.append(depth === 0 ? h('div', { class: 'card' }, h('h3', null, `Nodes (${nodes.length})`), list) : list);
  return wrap;
}
// The format's summary as the server sends it: the lines the text view
// prints as its header, made by the same Rust code (nothing is counted or
// formatted here, so the page and the command line cannot disagree).
function summaryCard(title) {
  const lines = S.open.summary_lines || [];
  if (!lines.length) return null;
  return h('div', { class: 'card', id: 'summary', 'data-file': S.key }, h('h3', null, title),
    h('dl', { class: 'kv' }, lines.map((l) => [h('dt', null, l.label), h('dd', { 'data-key': l.key }, l.text)])));
}
function renderModel(body, tensors) {
  const m = S.open.decoded.value;
  const g = m.graph || {};
  const inits = tensors.filter((t) => t.initializer);
  body.append(summaryCard('ONNX model') || '');
  body.append(graphBlock(g, 0));
  if (inits.length) body.append(h('div', { class: 'card', id: 'initializers' }, h('h3', null, `Initializers (${inits.length})`), h('div', { class: 'scrollbox' }, tensorTable(inits, 500))));
  (m.functions || []).forEach((f, fi) => {
    const det = h('details', { class: 'card', 'data-sub': `F${fi}/` }, h('summary', null, h('b', null, 'function '), (f.domain ? f.domain + '.' : '') + f.name + '(' + (f.input || []).join(', ') + ') → (' + (f.output || []).join(', ') + ')'));
    det.fill = () => {};
    det.append(graphBlock({ node: f.node }, 1, `F${fi}/`));
    body.append(det);
  });
}

// ---------- TensorFlow GraphDef ----------
function tfShape(sh) {
  if (!sh) return '[]';
  if (sh.unknown_rank) return '<unknown rank>';
  return '[' + (sh.dim || []).map((d) => (Number(d.size) === -1 ? '?' : show(d.size ?? 0))).join(', ') + ']';
}
function utf8OrBase64(b64) {
  try { return JSON.stringify(new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)))); } catch { return 'b64:' + b64; }
}
// An AttrValue written compactly, as the text view does.
function tfAttr(v) {
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
function renderGraphDef(body, tensors) {
  const g = S.open.decoded.value;
  const nodes = g.node || [];
  body.append(summaryCard(S.open.title) || '');
  body.append(h('div', { class: 'card' }, h('h3', null, `Nodes (${nodes.length})`),
    h('table', { class: 't' }, h('thead', null, h('tr', null, h('th', null, 'name'), h('th', null, 'op'), h('th', null, 'inputs'), h('th', null, 'attributes'))),
      h('tbody', null, nodes.slice(0, 1000).map((n, i) => h('tr', { class: 'node', 'data-node': n.name, 'data-i': i },
        h('td', { class: 'mono' }, n.op === 'Const' ? tensorLink(n.name) : n.name),
        h('td', { class: 'mono op' }, n.op),
        h('td', { class: 'mono' }, (n.input || []).join(', ')),
        h('td', { class: 'mono attrs' }, Object.entries(n.attr || {}).map(([k, v]) => k + '=' + tfAttr(v)).join(', ')))))))); 
  if (tensors.length) body.append(h('div', { class: 'card' }, h('h3', null, 'Tensors'), tensorTable(tensors, 200)));
}

// ---------- TensorFlow record files ----------
// A picture stored in a bytes value (base64): its data URI, or null.
function pictureURI(b64) {
  if (typeof b64 !== 'string') return null;
  if (b64.startsWith('iVBORw0KGgo')) return 'data:image/png;base64,' + b64;
  if (b64.startsWith('/9j/')) return 'data:image/jpeg;base64,' + b64;
  if (b64.startsWith('R0lGOD')) return 'data:image/gif;base64,' + b64;
  return null;
}
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
function renderRecords(body) {
  const o = S.open, d = o.decoded, s = d.summary || {};
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
    api('/api/series', { f: S.key, as: S.as }).then((r) => {
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

// ---------- tensor view ----------
async function renderTensor(body, index) {
  body.replaceChildren(h('p', { class: 'spin' }, 'Reading the tensor…'));
  // The grid starts from what the file's answer already says about the
  // tensor; its other facts (picture layout, other fields) come alongside.
  const infoP = api('/api/tensor', { f: S.key, as: S.as, t: index });
  let t = (S.open.tensors || []).find((x) => x && x.index === index);
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
  if (t.elements !== 0 && t.storage !== 'unavailable') grid.start(S.at);
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
  try { r = await api('/api/stats', { f: S.key, as: S.as, t: index }); } catch (e) {
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
  const draw = () => BACKEND.fetch('/api/picture', { f: S.key, as: S.as, t: index, ...(sliced ? { slice } : {}) }).then(async (r) => {
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
    const r = await api('/api/values', { f: S.key, as: S.as, t: index, offset: at.first, count: 1, rows: p.channels, stride: at.stride }).catch(() => null);
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

// A tensor of at most this many values is shown whole: every 2-D slice at
// once, stacked under its index.
const GRID_WHOLE = 4096;
// The value grid: the last two axes as rows and columns. A small tensor's
// slices are all drawn; a bigger one's leading axes are chosen with
// selectors, and the grid fetches only the window it shows.
class Grid {
  constructor(card, t, index) {
    this.card = card; this.t = t; this.index = index;
    const total = Number(t.elements);
    this.total = total;
    const dims = t.dims === null ? [total] : t.dims.map(Number);
    this.dims = dims;
    if (dims.length === 0) { this.R = 1; this.C = 1; this.lead = []; this.wrap = false; }
    else if (dims.length === 1) { this.C = Math.min(10, Math.max(1, dims[0])); this.R = Math.ceil(dims[0] / this.C); this.lead = []; this.wrap = true; }
    else { this.R = dims[dims.length - 2]; this.C = dims[dims.length - 1]; this.lead = dims.slice(0, -2); this.wrap = false; }
    this.leadIdx = this.lead.map(() => 0);
    this.whole = total <= GRID_WHOLE;
    this.slices = this.lead.reduce((a, b) => a * b, 1);
    this.VR = this.whole ? this.R : 32; this.VC = this.whole ? this.C : Math.min(this.C, 12);
    this.r0 = 0; this.c0 = 0; this.sr = 0; this.sc = 0;
    this.isString = t.dtype === 'STRING' || t.dtype === 'DT_STRING';
  }
  start(at) {
    const bar = h('div', { class: 'gridbar' });
    this.leadBox = h('div', { class: 'lead' });
    if (!this.whole) this.lead.forEach((d, k) => {
      const inp = h('input', { type: 'number', min: 0, max: d - 1, value: 0, 'aria-label': 'index of axis ' + k, 'data-axis': k });
      inp.addEventListener('change', () => { this.leadIdx[k] = Math.max(0, Math.min(d - 1, Number(inp.value) || 0)); inp.value = this.leadIdx[k]; this.load(); });
      this.leadBox.append(h('label', null, `axis ${k}`, inp, h('span', null, `/ ${d}`)));
    });
    const btn = (label, title, fn, id) => h('button', { class: 'btn small', title, onclick: fn, id }, label);
    this.gotoInput = h('input', { type: 'number', min: 0, max: Math.max(0, this.total - 1), placeholder: 'index', 'aria-label': 'go to flat index', id: 'goto' });
    this.gotoInput.addEventListener('change', () => this.goto(Math.max(0, Math.min(this.total - 1, Number(this.gotoInput.value) || 0))));
    bar.append(...[this.leadBox, h('span', { class: 'grow' }),
      btn('⇤', 'first value (Ctrl+Home)', () => this.goto(0), 'first'),
      this.whole ? null : btn('◀', 'previous rows (Page Up)', () => this.move(-this.VR, 0, true), 'prev'),
      this.whole ? null : btn('▶', 'next rows (Page Down)', () => this.move(this.VR, 0, true), 'next'),
      btn('⇥', 'last value (Ctrl+End)', () => this.goto(this.total - 1), 'last'),
      h('label', { class: 'muted' }, 'go to ', this.gotoInput)].filter(Boolean));
    this.box = h('div', { class: 'gridwrap', tabindex: 0, id: 'grid', 'aria-label': 'values; arrow keys move' });
    this.box.addEventListener('keydown', (e) => this.key(e));
    this.status = h('div', { class: 'status', id: 'grid-status' });
    this.card.append(bar, this.box, this.status);
    this.goto(at !== null && at !== undefined && at < this.total ? at : 0, true);
  }
  // flat index <-> (leading indices, row, column)
  flat(lead, r, c) {
    if (this.wrap) return r * this.C + c;
    let base = 0;
    lead.forEach((v, k) => { base = base * this.lead[k] + v; });
    return (base * this.R + r) * this.C + c;
  }
  unflat(i) {
    if (this.wrap) return { lead: [], r: Math.floor(i / this.C), c: i % this.C };
    const c = i % this.C; i = Math.floor(i / this.C);
    const r = i % this.R; i = Math.floor(i / this.R);
    const lead = [];
    for (let k = this.lead.length - 1; k >= 0; k--) { lead.unshift(i % this.lead[k]); i = Math.floor(i / this.lead[k]); }
    return { lead, r, c };
  }
  indexText(i) {
    if (this.dims.length <= 1) return '[' + i + ']';
    const u = this.unflat(i);
    return '[' + [...u.lead, u.r, u.c].join(', ') + ']';
  }
  // The number of the 2-D slice the leading indices pick.
  sliceOf(lead) {
    return lead.reduce((base, v, k) => base * this.lead[k] + v, 0);
  }
  goto(i, first) {
    const u = this.unflat(i);
    this.leadIdx = u.lead;
    [...this.leadBox.querySelectorAll('input')].forEach((inp, k) => { inp.value = u.lead[k]; });
    this.sr = u.r; this.sc = u.c;
    if (this.whole) { if (this.drawn) this.mark(first); else this.load(first); return; }
    this.r0 = Math.max(0, Math.min(this.sr - (this.sr % this.VR), this.R - this.VR));
    if (this.sr < this.r0 || this.sr >= this.r0 + this.VR) this.r0 = this.sr;
    this.c0 = Math.max(0, Math.min(this.sc - (this.sc % this.VC), this.C - this.VC));
    this.load(first);
  }
  move(dr, dc, page) {
    if (this.whole && !this.wrap) {
      // Up and down run on through the stacked slices.
      const rows = this.slices * this.R;
      const g = Math.max(0, Math.min(rows - 1, this.sliceOf(this.leadIdx) * this.R + this.sr + dr));
      this.goto(g * this.C + Math.max(0, Math.min(this.C - 1, this.sc + dc)));
      return;
    }
    let r = this.sr + dr, c = this.sc + dc;
    r = Math.max(0, Math.min(this.R - 1, r)); c = Math.max(0, Math.min(this.C - 1, c));
    if (this.wrap && this.flat([], r, c) >= this.total) { r = Math.floor((this.total - 1) / this.C); c = Math.min(c, (this.total - 1) % this.C); }
    this.sr = r; this.sc = c;
    let reload = false;
    if (page) { this.r0 = Math.max(0, Math.min(this.r0 + dr, this.R - this.VR)); reload = true; }
    if (this.sr < this.r0) { this.r0 = this.sr; reload = true; }
    if (this.sr >= this.r0 + this.VR) { this.r0 = this.sr - this.VR + 1; reload = true; }
    if (this.sc < this.c0) { this.c0 = this.sc; reload = true; }
    if (this.sc >= this.c0 + this.VC) { this.c0 = this.sc - this.VC + 1; reload = true; }
    if (reload) this.load(); else this.mark();
  }
  key(e) {
    const k = e.key;
    const m = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[k];
    if (m) { this.move(m[0], m[1]); e.preventDefault(); return; }
    if (k === 'PageDown') { this.move(this.VR, 0, true); e.preventDefault(); }
    else if (k === 'PageUp') { this.move(-this.VR, 0, true); e.preventDefault(); }
    else if (k === 'Home') { if (e.ctrlKey || e.metaKey) this.goto(0); else this.move(0, -this.sc); e.preventDefault(); }
    else if (k === 'End') { if (e.ctrlKey || e.metaKey) this.goto(this.total - 1); else this.move(0, this.C - 1 - this.sc); e.preventDefault(); }
  }
  async load(first) {
    if (this.whole) return this.loadWhole(first);
    const my = (this.seq = (this.seq || 0) + 1);
    const rows = Math.min(this.VR, this.R - this.r0);
    const cols = Math.min(this.VC, this.C - this.c0);
    const offset = this.flat(this.leadIdx, this.r0, this.c0);
    let r;
    try {
      r = await api('/api/values', { f: S.key, as: S.as, t: this.index, offset, count: cols, rows, stride: this.C });
    } catch (e) { this.status.textContent = e.message; return; }
    if (my !== this.seq) return;
    this.values = r.values;
    const table = h('table', { class: 'grid' });
    const head = h('tr', null, h('th', { class: 'rowh' }, this.wrap ? 'index' : ''));
    for (let c = 0; c < cols; c++) head.append(h('th', null, this.wrap ? '+' + (this.c0 + c) : String(this.c0 + c)));
    table.append(h('thead', null, head));
    const tb = h('tbody');
    // Each value as the command line's text view prints it.
    r.text.forEach((row, ri) => {
      const tr = h('tr', null, h('th', { class: 'rowh' }, this.wrap ? String((this.r0 + ri) * this.C) : String(this.r0 + ri)));
      row.forEach((text, ci) => {
        const special = !this.isString && /NaN|inf/.test(text);
        tr.append(h('td', { class: (special ? 'nan' : '') + (this.isString ? ' str' : ''), 'data-r': this.r0 + ri, 'data-c': this.c0 + ci, onclick: () => { this.sr = this.r0 + ri; this.sc = this.c0 + ci; this.mark(); this.box.focus(); } }, text));
      });
      tb.append(tr);
    });
    table.append(tb);
    this.box.replaceChildren(table);
    this.mark(first);
    if (r.truncated) this.status.textContent += '    (cut short: these values are too long for one answer)';
  }
  // Every value at once, one table body per 2-D slice under its index.
  async loadWhole(first) {
    const my = (this.seq = (this.seq || 0) + 1);
    let r;
    try {
      r = await api('/api/values', { f: S.key, as: S.as, t: this.index, offset: 0, count: this.C, rows: this.R * this.slices, stride: this.C });
    } catch (e) { this.status.textContent = e.message; return; }
    if (my !== this.seq) return;
    const table = h('table', { class: 'grid whole' });
    const head = h('tr', null, h('th', { class: 'rowh' }, this.wrap ? 'index' : ''));
    for (let c = 0; c < this.C; c++) head.append(h('th', null, this.wrap ? '+' + c : String(c)));
    table.append(h('thead', null, head));
    for (let s = 0; s < this.slices; s++) {
      const tb = h('tbody', { 'data-slice': s });
      if (this.lead.length) {
        const lead = this.unflat(s * this.R * this.C).lead;
        tb.append(h('tr', { class: 'slice' }, h('th', { class: 'rowh', colspan: this.C + 1 }, '[' + [...lead, ':', ':'].join(', ') + ']')));
      }
      (r.text.slice(s * this.R, (s + 1) * this.R)).forEach((row, ri) => {
        const tr = h('tr', null, h('th', { class: 'rowh' }, this.wrap ? String(ri * this.C) : String(ri)));
        row.forEach((text, ci) => {
          const special = !this.isString && /NaN|inf/.test(text);
          tr.append(h('td', { class: (special ? 'nan' : '') + (this.isString ? ' str' : ''), 'data-s': s, 'data-r': ri, 'data-c': ci, onclick: () => { this.goto((s * this.R + ri) * this.C + ci); this.box.focus(); } }, text));
        });
        tb.append(tr);
      });
      table.append(tb);
    }
    this.box.replaceChildren(table);
    this.drawn = true;
    this.mark(first);
    if (r.truncated) this.status.textContent += '    (cut short: these values are too long for one answer)';
  }
  mark(first) {
    for (const td of this.box.querySelectorAll('td.sel')) td.classList.remove('sel');
    const td = this.box.querySelector((this.whole ? `td[data-s="${this.sliceOf(this.leadIdx)}"]` : 'td') + `[data-r="${this.sr}"][data-c="${this.sc}"]`);
    const i = this.flat(this.leadIdx, this.sr, this.sc);
    if (td) { td.classList.add('sel'); td.scrollIntoView({ block: 'nearest', inline: 'nearest' }); }
    const first2 = this.flat(this.leadIdx, this.r0, this.c0);
    const rows = Math.min(this.VR, this.R - this.r0);
    if (this.whole) {
      this.status.textContent = (td ? `${this.indexText(i)}  (flat ${i})  = ${td.textContent}` : '') +
        `    all ${this.total.toLocaleString('en-US')} values` + (this.slices > 1 ? `: ${this.slices} slices of ${this.R} × ${this.C}` : '');
    } else this.status.textContent = (td ? `${this.indexText(i)}  (flat ${i})  = ${td.textContent}` : '') +
      `    showing rows ${this.r0}–${this.r0 + rows - 1}` + (this.VC < this.C ? `, columns ${this.c0}–${this.c0 + this.VC - 1}` : '') + ` of ${this.R} × ${this.C}` +
      (this.lead.length ? ` at [${this.leadIdx.join(', ')}, …]` : '') + `; ${this.total.toLocaleString('en-US')} values in all`;
    if (!first && td) history.replaceState(null, '', location.hash.replace(/&?at=\d+/, '') + '&at=' + i);
    if (this.onSlice) this.onSlice(this.sliceOf(this.leadIdx));
    void first2;
  }
}

// ---------- JSON tree ----------
// Members are drawn a page at a time, a branch when it opens: a list of
// 100,000 items costs the DOM of one page until asked for more.
const TREE_PAGE = 200;
// The branches a tree opens with: level by level from the top, as long as
// the members they show stay within `budget` (a page per list at most).
function openedBranches(v, budget, maxDepth) {
  const open = new Set();
  let level = [v];
  for (let depth = 0; depth < maxDepth && level.length; depth++) {
    const next = [];
    for (const x of level) {
      if (x === null || typeof x !== 'object') continue;
      const members = Array.isArray(x) ? x : Object.values(x);
      const shown = Math.min(members.length, TREE_PAGE);
      if (!shown || shown > budget) continue;
      budget -= shown;
      open.add(x);
      next.push(...members.slice(0, shown));
    }
    level = next;
  }
  return open;
}
// A JSON tree opened as far as some 400 members go (`open`), or at its
// top level only.
function jsonTree(v, open) {
  const root = h('div', { class: 'tree', id: 'json-tree' });
  root.append(treeNode(null, v, open ? openedBranches(v, 400, 8) : new Set([v])));
  return root;
}
// A "show more" button that draws the next page of a list into `parent`
// (before itself) with `draw(from, to)`, or fetches it: `more(button)`.
function moreButton(left, onClick) {
  const b = h('button', { class: 'btn small more', type: 'button' }, `show more (${left.toLocaleString('en-US')} left)`);
  b.addEventListener('click', () => onClick(b));
  return b;
}
function treeNode(key, v, opened) {
  const label = key === null ? null : h('span', { class: 'k' }, key + ': ');
  if (v !== null && typeof v === 'object') {
    const isArr = Array.isArray(v);
    const keys = isArr ? null : Object.keys(v);
    const n = isArr ? v.length : keys.length;
    if (n === 0) return h('div', { class: 'leaf' }, label, isArr ? '[]' : '{}');
    const det = h('details', null, h('summary', null, label, h('span', { class: 'c' }, isArr ? `[${n}]` : (v.name !== undefined && typeof v.name === 'string' ? `{${v.name}}` : `{${n}}`))));
    let shown = 0;
    const drawPage = () => {
      const end = Math.min(n, shown + TREE_PAGE);
      for (; shown < end; shown++) {
        const k = isArr ? String(shown) : keys[shown];
        det.append(treeNode(k, isArr ? v[shown] : v[k], opened));
      }
      if (shown < n) det.append(moreButton(n - shown, (b) => { b.remove(); drawPage(); }));
    };
    det.addEventListener('toggle', () => { if (det.open && shown === 0) drawPage(); });
    if (opened.has(v)) { det.open = true; drawPage(); }
    return det;
  }
  return h('div', { class: 'leaf' }, label, h('span', { class: typeof v === 'string' ? 's' : '' }, typeof v === 'string' ? JSON.stringify(v) : String(v)));
}
function renderTree(body) {
  // A file read without a schema: the field tree, a page at a time.
  if (S.open.format === 'protobuf') body.append(h('div', { class: 'card' }, fieldTree(S.open.decoded).box));
  else body.append(h('div', { class: 'card' }, jsonTree(S.open.decoded, true)));
}

// ---------- a text-format file's lines ----------
// A window of the file's lines (the server's /api/source), numbered, the
// line `mark` highlighted; earlier and later windows a click away.
const SOURCE_PAGE = 200;
async function renderSource(body, mark) {
  const box = h('div', { class: 'source', id: 'source' });
  body.append(box);
  const show = async (from) => {
    try {
      const r = await (await BACKEND.fetch('/api/source', { f: S.key, from, count: SOURCE_PAGE })).json();
      const rows = r.lines.map((text, k) => {
        const n = r.from + k;
        return h('div', { class: n === mark ? 'row fault' : 'row', 'data-line': n },
          h('span', { class: 'ln' }, String(n)), h('span', { class: 'code' }, text));
      });
      const nav = h('div', { class: 'nav' },
        r.from > 1 ? h('button', { class: 'btn small', onclick: () => show(Math.max(1, r.from - SOURCE_PAGE)) }, 'earlier lines') : null,
        h('span', { class: 'muted' }, ` lines ${r.from}–${r.from + r.lines.length - 1} of ${r.total} `),
        r.from + r.lines.length <= r.total ? h('button', { class: 'btn small', onclick: () => show(r.from + SOURCE_PAGE) }, 'later lines') : null);
      box.replaceChildren(nav, ...rows);
      const hit = box.querySelector('.fault');
      if (hit) hit.scrollIntoView({ block: 'center' });
    } catch (e) { box.textContent = e.message; }
  };
  await show(mark ? Math.max(1, mark - 20) : 1);
}

// ---------- text view ----------
async function renderText(body, inline) {
  // A file in protobuf's text format: its own lines first.
  if (!inline && S.open.file && S.open.file.syntax === 'text') {
    const card = h('div', { class: 'card' }, h('h3', null, 'The file (protobuf text format)'));
    body.append(card);
    renderSource(card, null);
  }
  const pre = h('pre', { class: 'text', id: 'text-view' }, 'Reading…');
  body.append(inline ? pre : h('div', { class: 'card' }, pre));
  try {
    const r = await BACKEND.fetch('/api/text', { f: S.key, as: S.as });
    pre.textContent = await r.text();
  } catch (e) { pre.textContent = e.message; }
}

// ---------- bytes ----------
const HEX_PAGE = 1024;
async function renderBytes(body, opts) {
  opts = opts || {};
  const size = S.open.file.size;
  let at = opts.at !== undefined ? Math.max(0, opts.at - (opts.at % 16) - 16 * 8) : S.hexAt || 0;
  const hexBox = h('div', { class: 'hex', id: 'hex' });
  const pos = h('input', { type: 'text', value: hex8(at), 'aria-label': 'offset', size: 10 });
  const load = async () => {
    at = Math.max(0, Math.min(at, Math.max(0, size - 1)));
    at -= at % 16;
    pos.value = hex8(at);
    const r = await api('/api/hex', { f: S.key, offset: at, count: HEX_PAGE });
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
function highlightBytes(box, from, to) {
  for (const s of box.querySelectorAll('span.on')) s.classList.remove('on');
  if (from === null) return;
  for (const s of box.querySelectorAll('span[data-o]')) {
    const o = Number(s.dataset.o);
    if (o >= from && o < to) s.classList.add('on');
  }
}

// ---------- schemaless ----------
// The guessed field tree comes from the server a page at a time: the
// file's answer holds the first page of the root and of the levels just
// below it; a branch with nothing shown yet fetches its first page when it
// opens, "show more" the next page of its level (/api/fields). A level
// ("branch") is the server's address of it; each field carries its own.
function fieldText(f) {
  let valText = '';
  if (Array.isArray(f.value)) valText = `${f.count} ${f.as || 'values'} [` + f.value.slice(0, 8).map(show).join(', ') + (f.value.length < f.count ? ', …' : '') + ']';
  else valText = typeof f.value === 'string' && f.kind === 'string' ? JSON.stringify(f.value) : show(f.value);
  if (f.cut !== undefined) valText += ` … (${f.cut.toLocaleString('en-US')} bytes)`;
  if (f.zigzag !== undefined) valText += `  (sint ${show(f.zigzag)})`;
  if (f.float !== undefined) valText += `  (float ${show(f.float)})`;
  if (f.double !== undefined) valText += `  (double ${show(f.double)})`;
  return valText;
}
// The tree of a page answer (`level`: value, branch, fields, first, next).
// `onLine(item)` is told of every field line drawn, `item` its byte range.
function fieldTree(level, onLine) {
  const box = h('div', { class: 'tree', id: 'field-tree' });
  const flat = [];
  const fetchPage = (branch, from) => api('/api/fields', { f: S.key, branch, from });
  const field = (parent, f, depth) => {
    const end = f.offset + f.length;
    const isMsg = f.kind === 'message' || f.kind === 'group';
    const line = h('span', { class: 'pf', 'data-from': f.offset, 'data-to': end },
      h('span', { class: 'k' }, String(f.field)), ' ', h('span', { class: 'c' }, f.kind), isMsg ? '' : ' = ', isMsg ? '' : fieldText(f),
      f.also && f.also.length ? h('span', { class: 'alt' }, '  (also fits: ' + f.also.map((a) => (typeof a === 'string' ? a : a.kind || JSON.stringify(a))).join(', ') + ')') : null,
      f.truncated ? h('span', { class: 'alt' }, '  (cut off)') : null);
    const item = { from: f.offset, to: end, depth, el: line };
    flat.push(item);
    if (onLine) onLine(item, f);
    if (!isMsg || !f.fields) { parent.append(h('div', { class: 'leaf' }, line)); return; }
    const det = h('details', { 'data-branch': f.branch }, h('summary', null, line, h('span', { class: 'c' }, `  ${f.fields.toLocaleString('en-US')} field${f.fields === 1 ? '' : 's'}`)));
    parent.append(det);
    if (f.value.length) { det.open = true; fill(det, f, depth + 1); return; }
    let asked = false;
    det.addEventListener('toggle', async () => {
      if (!det.open || asked) return;
      asked = true;
      const wait = h('div', { class: 'leaf spin' }, 'reading…');
      det.append(wait);
      try { const page = await fetchPage(f.branch, 0); wait.remove(); fill(det, page, depth + 1); } catch (e) { wait.textContent = e.message; asked = false; }
    });
  };
  const fill = (parent, page, depth) => {
    for (const f of page.value) field(parent, f, depth);
    if (page.next === null || page.next === undefined) return;
    parent.append(moreButton(page.fields - page.first - page.value.length, async (b) => {
      b.disabled = true;
      b.textContent = 'reading…';
      try { const next = await fetchPage(page.branch, page.next); b.remove(); fill(parent, next, depth); } catch (e) { b.textContent = e.message; }
    }));
  };
  fill(box, level, 0);
  return { box, flat };
}

function renderSchemaless(body) {
  const d = S.open.decoded;
  const { box: treeBox, flat } = fieldTree(d, (item, f) => {
    item.el.addEventListener('mouseenter', () => hot(item, true));
    item.el.addEventListener('mouseleave', () => hot(null, true));
    item.el.addEventListener('click', () => bytesBody.hexGoto(f.offset).then(() => hot(item, false)));
  });
  const faultBox = d.fault ? errorCard(d.fault, 'Read up to a fault') : null;
  const bytesBody = h('div');
  let current = null;
  const hot = (item, fromTree) => {
    if (current) current.el.classList.remove('hot');
    current = item;
    if (item) item.el.classList.add('hot');
    highlightBytes($('#hex'), item ? item.from : null, item ? item.to : null);
    void fromTree;
  };
  if (faultBox) body.append(faultBox);
  body.append(h('div', { class: 'split' },
    h('div', { class: 'card' }, h('h3', null, 'Fields (guessed without a schema)'), h('div', { class: 'scrollbox tall' }, treeBox)),
    h('div', { class: 'card' }, h('h3', null, 'Bytes'), bytesBody)));
  renderBytes(bytesBody, {
    at: d.fault ? d.fault.offset : undefined,
    error: d.fault ? d.fault.offset : undefined,
    onByte: (o, e) => {
      if (o === null) { hot(null); tip(null); return; }
      let best = null;
      for (const it of flat) if (o >= it.from && o < it.to && (!best || it.depth >= best.depth)) best = it;
      hot(best);
      if (best) {
        let el = best.el;
        while (el && el.parentElement) { if (el.tagName === 'DETAILS' && !el.open) el.open = true; el = el.parentElement; }
        best.el.scrollIntoView({ block: 'nearest' });
        tip(`byte ${hex8(o)}: field ${best.el.firstChild.textContent} @${hex8(best.from)}..${hex8(best.to)}`, e);
      } else tip(`byte ${hex8(o)}`, e);
    },
  });
}

// ---------- search ----------
// The open file's nodes, op types, values, initializers, other tensors and
// attributes, found by any part of their name (an op type, an attribute's
// name or value), listed by kind with counts. The results belong to the
// file they were found in: each carries its file's key, the list is
// searched again whenever a file opens, and a result of another file opens
// nothing.
const SEARCH_KINDS = [
  ['node', 'nodes'], ['op', 'nodes by op type'], ['value', 'values'],
  ['initializer', 'initializers'], ['tensor', 'tensors'], ['attribute', 'attributes'],
];
const SEARCH_FIRST = 8, SEARCH_MORE = 50;
// What can be found in the open file, built once per file: each item has
// a kind, the text shown, the text searched (lower case) and what opening
// it does.
function searchIndex() {
  if (S.searchOf === S.open && S.searchItems) return S.searchItems;
  const items = [];
  S.searchOf = S.open; S.searchItems = items;
  if (!S.open || !S.open.ok) return items;
  const key = S.key, as = S.as;
  const add = (kind, text, detail, open) => items.push({ kind, text, detail, find: text.toLowerCase(), key, open });
  const openTensor = (t) => () => go({ f: key, as, tab: 'tensor', t: t.index, at: null });
  const named = new Set();
  for (const t of S.open.tensors || []) {
    if (!t) continue;
    named.add(t.name);
    add(t.initializer ? 'initializer' : 'tensor', t.name, t.dtype + (t.dims ? ' [' + t.dims.join(', ') + ']' : ''), openTensor(t));
  }
  const v = S.open.decoded.value;
  const top = v && (v.graph || (S.open.format === 'tf-graph-def' ? v : null));
  if (!top) return items;
  const opOf = (n) => (n.domain ? n.domain + '.' : '') + (n.op_type || n.op || '');
  const nodeName = (n, i) => n.name || `[${i}]`;
  // Every graph: the main one, its nodes' subgraphs (If, Loop, Scan
  // bodies) and the functions, walked with a list rather than recursion.
  // `at` is the graph's place (see graphBlock), `where` names it for
  // people ('' for the main graph), `route` for the Graph tab (see
  // GraphView.graphOfRoute).
  const graphs = [{ g: top, at: '', where: '', route: { fn: null, steps: [] } }];
  (v.functions || []).forEach((f, fi) => graphs.push({ g: { node: f.node, input: (f.input || []).map((name) => ({ name })), output: (f.output || []).map((name) => ({ name })) }, at: `F${fi}/`, where: 'function ' + f.name, route: { fn: fi, steps: [] } }));
  const lib = S.open.format === 'tf-graph-def' && top.library ? top.library.function || [] : [];
  // TensorFlow's functions are not in the overview: their nodes open it,
  // or in the Graph tab the function's drawing.
  lib.forEach((f) => { const name = (f.signature || {}).name || ''; graphs.push({ g: { node: f.node_def }, at: null, where: 'function ' + name, route: { tfFunction: name, steps: [] } }); });
  const values = new Map(); // value name -> { at: the node that makes it (or null), name, where }
  const value = (name, maker, where) => { if (name && !values.has(name)) values.set(name, { maker, where }); };
  for (let gi = 0; gi < graphs.length; gi++) {
    const { g, at, where, route } = graphs[gi];
    const nodes = g.node || [];
    const inWhere = where ? ' · in ' + where : '';
    for (const io of g.input || []) value(io.name, null, where);
    nodes.forEach((n, i) => {
      const op = opOf(n);
      const path = at === null ? null : at + i;
      const focus = () => focusNode(key, path, { ...route, node: i });
      add('node', nodeName(n, i), op + inWhere, focus);
      add('op', op, nodeName(n, i) + inWhere, focus);
      for (const o of n.output || []) value(o, { path, name: nodeName(n, i), route: { ...route, node: i } }, where);
      for (const x of n.input || []) value(x, null, where);
      if (Array.isArray(n.attribute)) {
        n.attribute.forEach((a, ai) => {
          add('attribute', attrText(a), nodeName(n, i) + inWhere, focus);
          const subs = a.g ? [a.g] : a.graphs || [];
          // The route names the attribute as the graph list's owner does:
          // `body`, or `graphs[1]` for a GRAPHS attribute.
          subs.forEach((sg, k) => graphs.push({ g: sg, at: at === null ? null : `${path}.${ai}.${k}/`, where: (where ? where + ' › ' : '') + nodeName(n, i) + '.' + a.name + (subs.length > 1 ? `[${k}]` : ''),
            route: { ...route, steps: [...route.steps, [i, a.g ? a.name : `${a.name}[${k}]`]] } }));
        });
      } else for (const [k, a] of Object.entries(n.attr || {})) add('attribute', k + '=' + tfAttr(a), nodeName(n, i) + inWhere, focus);
    });
    for (const io of g.output || []) value(io.name, null, where);
    for (const io of g.value_info || []) value(io.name, null, where);
  }
  for (const [name, { maker, where }] of values) {
    if (named.has(name)) continue;
    const t = findTensor(name);
    const inWhere = where ? (maker ? ' in ' : 'in ') + where : '';
    add('value', name, (maker ? 'output of ' + maker.name : '') + inWhere,
      t ? openTensor(t) : maker ? () => focusNode(key, maker.path, maker.route) : () => go({ f: key, as, tab: 'overview', t: null, at: null }));
  }
  return items;
}
// Shows the node at `path` (see graphBlock: '3' is node 3 of the main
// graph, '3.1.0/2' node 2 of the first graph of its second attribute,
// 'F0/2' node 2 of the first function): its lists drawn and its subgraphs
// opened down to it, scrolled to and lit, once the overview is drawn.
// A path of null (a TensorFlow function's node) opens the overview. In
// the Graph tab, the node is centred in the drawing of the graph that
// holds it (`route`, see GraphView.graphOfRoute), a subgraph's or a
// function's too.
function focusNode(key, path, route) {
  if (key !== S.key) return;
  S.focus = () => {
    if (path === null || path === undefined) return;
    const parts = String(path).split('/');
    let prefix = '';
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k];
      if (/^F\d+$/.test(part)) {
        const det = document.querySelector(`details[data-sub="${part}/"]`);
        if (!det) return;
        det.open = true;
      } else {
        const list = document.querySelector(`.nodes[data-graph="${prefix}"]`);
        if (list && list.drawTo) list.drawTo(Number(part.split('.')[0]) + 1);
        if (k < parts.length - 1) {
          const det = document.querySelector(`details[data-sub="${prefix}${part}/"]`);
          if (!det) return;
          det.open = true;
          det.fill();
        }
      }
      prefix += part + '/';
    }
    const el = document.querySelector(`.node[data-path="${path}"]`);
    if (el) { el.classList.add('hit'); el.scrollIntoView({ block: 'center' }); setTimeout(() => el.classList.remove('hit'), 2500); }
  };
  if (S.tab === 'graph' && route && graphView && graphView.wrap.isConnected && graphView.g) {
    const id = graphView.graphOfRoute(route);
    if (id !== null) { S.focus = null; graphView.showNode(id, route.node); return; }
  }
  if (S.tab !== 'overview' || S.tensorIndex !== null) go({ tab: 'overview', t: null, at: null });
  else { const f = S.focus; S.focus = null; f(); }
}
// Opens a result if it is of the file open now.
function openResult(it) {
  if (!it || it.key !== S.key) { runSearch(); return; }
  it.open();
}
function runSearch() {
  const q = $('#search').value.trim().toLowerCase();
  const box = $('#results');
  renderFiles(q);
  box.firstHit = null;
  box.dataset.file = S.key || '';
  if (!q) { box.hidden = true; box.replaceChildren(); return; }
  const groups = new Map(SEARCH_KINDS.map(([k]) => [k, []]));
  for (const it of searchIndex()) if (it.find.includes(q)) groups.get(it.kind).push(it);
  const row = (it) => h('div', { class: 'r', 'data-file': it.key, 'data-kind': it.kind, 'data-name': it.text, onclick: () => openResult(it) },
    h('span', { class: 'n', title: it.text, 'data-full': it.text }, it.text), it.detail ? h('span', { class: 'd', title: it.detail, 'data-full': it.detail }, it.detail) : null);
  // Names too long for their place cut in the middle, once drawn.
  // (The details first: the names take the room they leave.)
  const fit = (el) => { for (const x of el.querySelectorAll('.d[data-full], .n[data-full]')) if (x.scrollWidth > x.clientWidth) fitName(x, x.dataset.full); };
  const parts = [];
  for (const [kind, title] of SEARCH_KINDS) {
    const hits = groups.get(kind);
    if (!hits.length) continue;
    box.firstHit = box.firstHit || hits[0];
    const group = h('div', { class: 'group', 'data-kind': kind }, h('div', { class: 'gh' }, title, h('span', { class: 'count' }, hits.length.toLocaleString('en-US'))));
    let shown = 0;
    const more = h('button', { class: 'btn small more', type: 'button' });
    const draw = (n) => {
      const end = Math.min(hits.length, shown + n);
      const rows = hits.slice(shown, end).map(row);
      more.before(...rows);
      if (group.isConnected) for (const r of rows) fit(r);
      shown = end;
      if (shown < hits.length) more.textContent = `show more (${(hits.length - shown).toLocaleString('en-US')} left)`; else more.remove();
    };
    more.addEventListener('click', () => draw(SEARCH_MORE));
    group.append(more);
    draw(SEARCH_FIRST);
    parts.push(group);
  }
  box.replaceChildren(...(parts.length ? parts : [h('div', { class: 'none' }, S.open ? 'nothing of this name in this file; files are filtered below' : 'files are filtered below')]));
  const first = box.querySelector('.r');
  if (first) first.classList.add('sel');
  box.hidden = false;
  fit(box);
}

// ---------- start ----------
function init() {
  $('#pick').addEventListener('click', () => $('#picker').click());
  $('#pick2').addEventListener('click', () => $('#picker').click());
  $('#picker').addEventListener('change', (e) => { const f = e.target.files[0]; if (f) openLocal(f); e.target.value = ''; });
  if (STATIC) {
    // A folder picked: its files read together (see openTogether).
    const folder = h('input', { id: 'folder-picker', type: 'file', webkitdirectory: true, multiple: true, hidden: true });
    folder.addEventListener('change', (e) => {
      const files = [...e.target.files];
      e.target.value = '';
      if (!files.length) return;
      const name = files[0].webkitRelativePath.split('/')[0];
      openTogether(name, files.map((f) => ({ path: f.webkitRelativePath.slice(name.length + 1), file: f })).sort((a, b) => (a.path < b.path ? -1 : 1)));
    });
    $('#pick').after(h('button', { id: 'pick-folder', class: 'btn', type: 'button', onclick: () => folder.click() }, 'Open folder…'), folder);
  }
  $('#as').addEventListener('change', (e) => go({ as: e.target.value, tab: 'overview', t: null, at: null }));
  $('#search').addEventListener('input', runSearch);
  // The top bar's file name cut again to the room a resized window leaves.
  window.addEventListener('resize', () => { const el = $('#crumbs .fname'); if (el) fitName(el, el.title); });
  $('#search').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && $('#results').firstHit) openResult($('#results').firstHit);
    if (e.key === 'Escape') { e.target.value = ''; runSearch(); e.target.blur(); }
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === '/' && document.activeElement.tagName !== 'INPUT') { e.preventDefault(); $('#search').focus(); }
  });
  if (!TOKEN && !STATIC) { needToken(); return; }
  loadFiles().then((ok) => (ok ? route() : needToken()));
}
init();
