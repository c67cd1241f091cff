// The page's one back end: the server (`decode serve`) over HTTP, or on the
// static site the WebAssembly build of the same endpoints in a Web Worker
// (wasm-worker.js). Both answer the same requests with the same bytes;
// nothing here decodes a file. `api(path, params)` answers a GET of the API
// as parsed JSON (an error as an Error with the answer's message and
// status); `backend` has the calls under it: fetch (a Response-like
// object), upload, uploadFolder (the static site), close.
import { parseJSON } from './format.js';

// Which back end: the static site's page says `wasm`.
export const isStatic = (document.querySelector('meta[name=pbdecode-backend]') || {}).content === 'wasm';

// The server's token: embedded in the page when it was opened with
// ?token= or a one-time ?code=, then kept in this origin's localStorage
// (per port, unlike a cookie) and the query taken out of the address bar.
// Every request sends it in the Authorization header.
export const token = isStatic ? '' : (() => {
  const given = document.querySelector('meta[name=pbdecode-token]').content;
  if (given) {
    try { localStorage.setItem('pbdecode-token', given); } catch { /* private mode: this tab only */ }
    history.replaceState(null, '', location.pathname + location.hash);
    return given;
  }
  try { return localStorage.getItem('pbdecode-token') || ''; } catch { return ''; }
})();
const AUTH = { Authorization: 'token ' + token };

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

// An answer of the worker's as the page reads answers: a Response-like
// object over the bytes it handed over.
function answerOf(a) {
  const headers = new Map(a.headers);
  const text = () => new TextDecoder().decode(a.body);
  return {
    ok: a.status >= 200 && a.status < 300,
    status: a.status,
    statusText: '',
    headers: { get: (name) => headers.get(name.toLowerCase()) ?? (name.toLowerCase() === 'content-type' ? a.type : null) },
    text: async () => text(),
    blob: async () => new Blob([a.body], { type: a.type }),
  };
}

// The worker, started on the first call; each call a message with its
// number, answered by a message with the same number.
function workerBackend() {
  let worker = null;
  let last = 0;
  const calls = new Map();
  const start = () => {
    if (worker) return worker;
    worker = new Worker(new URL('./wasm-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (e) => {
      const { id, progress, answer, answers, value, error } = e.data;
      const c = calls.get(id);
      if (!c) return;
      if (progress) { if (c.onProgress) c.onProgress(progress[0], progress[1]); return; }
      calls.delete(id);
      if (error !== undefined) c.reject(new Error(error));
      else if (answer) c.resolve(answerOf(answer));
      else if (answers) c.resolve(answers.map(answerOf));
      else c.resolve(value);
    };
    // The worker itself failed (it could not load, or ran out of memory):
    // every call waiting fails, and the next starts a new worker.
    worker.onerror = (e) => {
      e.preventDefault();
      for (const c of calls.values()) c.reject(new Error('the page\'s module stopped: ' + (e.message || 'unknown error')));
      calls.clear();
      worker.terminate();
      worker = null;
    };
    return worker;
  };
  const call = (message, onProgress) => new Promise((resolve, reject) => {
    const id = ++last;
    calls.set(id, { resolve, reject, onProgress });
    start().postMessage({ id, ...message });
  });
  const bodyOf = async (r) => {
    const body = parseJSON(await r.text());
    if (!r.ok) throw new Error(body.error);
    return body;
  };
  return {
    fetch: (path, params) => call({ op: 'fetch', path, params: params ? { ...params } : null }),
    close: (key) => call({ op: 'fetch', path: '/api/close', params: { f: key } }),
    // Read into the module's memory, with its progress.
    upload: async (file, onProgress) => bodyOf(await call({ op: 'add', file }, onProgress)),
    // The ranges of file `key` (read on demand) not read yet (tests).
    unread: (key) => call({ op: 'unread', key }),
    // Files dropped together, read as one folder (side files found among
    // them); resolves to their listings and the errors of those refused.
    uploadFolder: async (name, entries, onProgress) => {
      const listed = [], refused = [];
      for (const r of await call({ op: 'addFolder', name, entries }, onProgress)) {
        const body = parseJSON(await r.text());
        if (r.ok) listed.push(body); else refused.push(body.error);
      }
      return { listed, refused };
    },
  };
}

export const backend = isStatic ? workerBackend() : httpBackend;

export async function api(path, params) {
  const r = await backend.fetch(path, params);
  const text = await r.text();
  let body;
  try { body = parseJSON(text); } catch { body = { error: text }; }
  if (!r.ok) throw Object.assign(new Error(body.error || r.statusText), { status: r.status });
  return body;
}
