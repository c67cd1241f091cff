// The explorer's back end inside the page: the WebAssembly build of the
// server's endpoints (wasm/), holding the dropped files in its memory.
// `pbdecodeWasm(source)` (source: the module's bytes, or a fetch of them)
// resolves to an object with the calls app.js makes of either back end:
// `fetch(path, params)`, answered as the server answers the same request
// (a Response-like object: ok, status, headers.get, text(), blob()), and
// `add(file, onProgress)`, which reads a File into the module's memory.
// Nothing here sends a byte anywhere. Also loaded by node in the tests.
'use strict';

globalThis.pbdecodeWasm = async function pbdecodeWasm(source) {
  // A wasm32 memory holds at most 4 GiB; the files must fit in it beside
  // what decoding them needs.
  const PBDECODE_WASM_LIMIT = 4 * 1024 * 1024 * 1024 - 256 * 1024 * 1024;
  const isBytes = source instanceof ArrayBuffer || ArrayBuffer.isView(source);
  const { instance } = isBytes
    ? await WebAssembly.instantiate(source, {})
    : await WebAssembly.instantiateStreaming(source, {});
  const x = instance.exports;
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  // A buffer of the module's, filled with `bytes`; its address.
  const put = (bytes) => {
    const at = x.alloc(bytes.length) >>> 0;
    if (!at) throw new Error('out of memory');
    new Uint8Array(x.memory.buffer, at, bytes.length).set(bytes);
    return at;
  };
  // An answer of the module's (`STATUS\nTYPE\nName: value\n...\n\nBODY`),
  // copied out and given back, as a Response-like object.
  const answer = (at) => {
    const all = new Uint8Array(x.memory.buffer, at, x.staged_len(at) >>> 0).slice();
    x.release(at);
    let end = 0;
    while (end + 1 < all.length && !(all[end] === 10 && all[end + 1] === 10)) end++;
    const lines = dec.decode(all.subarray(0, end)).split('\n');
    const body = all.subarray(end + 2);
    const status = Number(lines[0]);
    const type = lines[1] || '';
    const headers = new Map();
    for (const l of lines.slice(2)) {
      const i = l.indexOf(': ');
      if (i > 0) headers.set(l.slice(0, i).toLowerCase(), l.slice(i + 2));
    }
    return {
      ok: status >= 200 && status < 300,
      status,
      statusText: '',
      headers: { get: (name) => headers.get(name.toLowerCase()) ?? (name.toLowerCase() === 'content-type' ? type : null) },
      body,
      text: async () => dec.decode(body),
      blob: async () => new Blob([body], { type }),
    };
  };
  const request = (path, params) => {
    const query = params ? new URLSearchParams(params).toString() : '';
    return answer(x.request(put(enc.encode(path)), put(enc.encode(query))) >>> 0);
  };
  const tooBig = (size) => new Error('the files are ' + size + ' bytes; the page holds up to ' + PBDECODE_WASM_LIMIT +
    ' bytes (a WebAssembly memory is at most 4 GiB): open them with decode serve instead');
  // Copies `file` into a new buffer of the module's a slice at a time
  // (`before` bytes of `total` already copied, for the progress); its address.
  const copyIn = async (file, before, total, onProgress) => {
    if (file.size > PBDECODE_WASM_LIMIT) throw tooBig(file.size);
    const at = x.alloc(file.size) >>> 0;
    if (!at) throw new Error('the page has no room for ' + file.size + ' more bytes (a WebAssembly memory is at most 4 GiB): close a file, or open it with decode serve');
    const step = 16 << 20;
    for (let done = 0; done < file.size;) {
      const chunk = new Uint8Array(await file.slice(done, done + step).arrayBuffer());
      // The memory may have grown (and its buffer changed) since the last slice.
      new Uint8Array(x.memory.buffer, at + done, chunk.length).set(chunk);
      done += chunk.length;
      if (onProgress) onProgress(before + done, total);
    }
    return at;
  };
  return {
    kind: 'wasm',
    limit: PBDECODE_WASM_LIMIT,
    fetch: async (path, params) => request(path, params),
    // Reads `file` (a File or Blob with a name) into the module's memory;
    // answers as the server's /api/upload does.
    async add(file, onProgress) {
      const at = await copyIn(file, 0, file.size, onProgress);
      return answer(x.add_file(put(enc.encode(file.name)), at) >>> 0);
    },
    // Reads files dropped together (a folder, or several files) as one
    // folder named `name`: `entries` are {path, file}, each path relative
    // to the folder. Each file's side files are looked up among them.
    // Resolves to the listings, as /api/upload's answers.
    async addFolder(name, entries, onProgress) {
      const total = entries.reduce((n, e) => n + e.file.size, 0);
      if (total > PBDECODE_WASM_LIMIT) throw tooBig(total);
      const root = x.add_root(put(enc.encode(name))) >>> 0;
      const out = [];
      let done = 0;
      for (const { path, file } of entries) {
        const at = await copyIn(file, done, total, onProgress);
        done += file.size;
        out.push(answer(x.add_root_file(root, put(enc.encode(path)), at) >>> 0));
      }
      x.finish_root(root);
      return out;
    },
  };
};
