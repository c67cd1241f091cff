// The file list on the left, and files given to the page: dropped,
// picked, or (on the static site) a folder or several files dropped
// together, read as one folder. A file given is handed to the back end
// (streamed to the server, or read into the module's memory), then opened.
import { api, backend, isStatic } from './backend.js';
import { $, h, fitName, toast } from './dom.js';
import { bytesText } from './format.js';
import { go, state, update } from './state.js';

// Lists the back end's files; false when the server wants the token.
export async function loadFiles() {
  try {
    const r = await api('/api/files');
    update({ files: r.files });
    return true;
  } catch (e) {
    if (e.status === 403) return false;
    toast('files: ' + e.message);
    return true;
  }
}

// Without the token (a fresh browser, or a token of an earlier run), the
// page says where to get it.
export function needToken() {
  $('#welcome').replaceChildren(h('div', { class: 'drop-target' },
    h('h1', null, 'This page needs the token'),
    h('p', null, 'Open the address ', h('code', null, 'decode serve'), ' printed (it ends with ', h('code', null, '?token=…'), ').')));
  $('#welcome').hidden = false;
}

const openFile = (key) => go({ f: key, as: 'auto', tab: 'overview', t: null, at: null, hex: null });

// The list, filtered by `filter` (the search box's text): each folder's
// files under its name, the open one marked.
export function renderFiles(filter) {
  const ul = $('#files');
  ul.replaceChildren();
  const q = (filter || '').toLowerCase();
  let shown = 0;
  let lastDir = null;
  for (const f of state.files) {
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
    ul.append(h('li', { class: f.key === state.key ? 'active' : '', title: f.name, 'data-key': f.key, onclick: () => openFile(f.key) },
      h('span', { class: 'n', 'data-full': base }, base),
      h('span', { class: 'sz' }, bytesText(f.size)),
      upload ? h('button', { class: 'x', title: 'Close', onclick: (e) => { e.stopPropagation(); closeUpload(f.key); } }, '×') : null));
  }
  if (!state.files.length) ul.append(h('li', { class: 'muted' }, 'No files yet: drop one on the page.'));
  for (const el of ul.querySelectorAll('[data-full]')) if (el.scrollWidth > el.clientWidth) fitName(el, el.dataset.full);
}

async function closeUpload(key) {
  await backend.close(key);
  if (state.key === key) location.hash = '';
  loadFiles();
}

// A toast with a progress bar while `job(onProgress)` runs.
async function withProgress(text, job) {
  const bar = h('div');
  const t = $('#toast');
  t.replaceChildren(h('div', null, text), h('div', { class: 'progress' }, bar));
  t.hidden = false;
  try {
    return await job((done, total) => { bar.style.width = (100 * done / total) + '%'; });
  } finally { t.hidden = true; }
}

// The uploads of this page, by the dropped file's name, size and time: the
// same file dropped again opens the copy already listed.
const uploaded = new Map();
export async function openLocal(file) {
  const same = file.name + '\n' + file.size + '\n' + file.lastModified;
  const listed = uploaded.get(same);
  if (listed && state.files.some((f) => f.key === listed)) { openFile(listed); return; }
  try {
    const r = await withProgress('Opening ' + file.name + ' (' + bytesText(file.size) + ')…', (onProgress) => backend.upload(file, onProgress));
    uploaded.set(same, r.key);
    await loadFiles();
    openFile(r.key);
  } catch (e) { toast('Could not open ' + file.name + ': ' + e.message, 8000); }
}

// Files dropped together on the static page (a folder, or several files):
// read as one folder, as `decode serve FOLDER` reads one, so that a model
// finds its external data and a test folder its model. `entries` are
// {path, file}, paths inside the folder `name`.
async function openTogether(name, entries) {
  const size = entries.reduce((n, e) => n + e.file.size, 0);
  try {
    const { listed, refused } = await withProgress(`Opening ${entries.length} files of ${name} (${bytesText(size)})…`,
      (onProgress) => backend.uploadFolder(name, entries, onProgress));
    await loadFiles();
    toast(refused.length ? refused.join('; ') : `${listed.length} files of ${name} listed on the left`, refused.length ? 8000 : 4000);
  } catch (e) { toast('Could not open ' + name + ': ' + e.message, 8000); }
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

// Dropping anywhere on the page, the pickers of the top bar.
export function installFileInputs() {
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
    const entries = isStatic && dt && dt.items ? [...dt.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean) : [];
    if (entries.length > 1 || entries.some((en) => en.isDirectory)) { openEntries(entries); return; }
    const f = dt && dt.files && dt.files[0];
    if (f) openLocal(f);
  });
  $('#pick').addEventListener('click', () => $('#picker').click());
  $('#pick2').addEventListener('click', () => $('#picker').click());
  $('#picker').addEventListener('change', (e) => { const f = e.target.files[0]; if (f) openLocal(f); e.target.value = ''; });
  if (isStatic) {
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
}
