// The static site's back end off the page's thread: this worker loads the
// WebAssembly module (wasm.js) and answers the page's calls (backend.js),
// so that a long answer (statistics of a 256 MiB tensor) leaves the page
// free to draw and to answer input. Messages in: {id, op, ...} with op
// `fetch` (path, params), `add` (file), `addFolder` (name, entries) or
// `unread` (key: the ranges of a file read on demand not read yet);
// out: {id, progress: [done, total]} while a file is read, then
// {id, answer} or {id, answers} (status, type, headers, body: its buffer
// handed over, not copied), {id, value}, or {id, error}.
import { pbdecodeWasm } from './wasm.js';

let loaded = null;
// The module, loaded on the first call, from beside this script.
const ready = () => (loaded ||= pbdecodeWasm(fetch(new URL('pbdecode.wasm', import.meta.url))));

// An answer as a message: its parts, the body's bytes to hand over.
const plain = (r) => ({ status: r.status, type: r.type, headers: r.headerList, body: r.body });

self.onmessage = async (e) => {
  const { id, op } = e.data;
  const progress = (done, total) => self.postMessage({ id, progress: [done, total] });
  try {
    const m = await ready();
    if (op === 'fetch') {
      const answer = plain(await m.fetch(e.data.path, e.data.params));
      self.postMessage({ id, answer }, [answer.body.buffer]);
    } else if (op === 'add') {
      const answer = plain(await m.add(e.data.file, progress));
      self.postMessage({ id, answer }, [answer.body.buffer]);
    } else if (op === 'addFolder') {
      const answers = (await m.addFolder(e.data.name, e.data.entries, progress)).map(plain);
      self.postMessage({ id, answers }, answers.map((a) => a.body.buffer));
    } else if (op === 'unread') {
      self.postMessage({ id, value: m.unread(e.data.key) });
    } else {
      throw new Error('no such call: ' + op);
    }
  } catch (err) {
    self.postMessage({ id, error: String((err && err.message) || err) });
  }
};
