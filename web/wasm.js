// The explorer's back end on the static site: the WebAssembly build of the
// server's endpoints (wasm/), holding the dropped files in its memory. It
// runs in a Web Worker (wasm-worker.js), off the page's thread; node loads
// it too, in the tests. `pbdecodeWasm(source)` (source: the module's
// bytes, or a fetch of them) resolves to an object with the calls the
// page's back end makes: `fetch(path, params)`, answered as the server
// answers the same request (a Response-like object: ok, status,
// headers.get, body, text(), blob()), and `add(file, onProgress)`, which
// reads a File into the module's memory. A big file picked alone is read
// on demand: the module asks for the slices it needs (its structure first,
// then what each view shows) and this glue reads them with `File.slice`;
// requests wait for one another so that a slice is read once. Nothing
// here sends a byte anywhere.

export async function pbdecodeWasm(source) {
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
      type,
      headerList: [...headers],
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
    try {
      for (let done = 0; done < file.size;) {
        const chunk = new Uint8Array(await file.slice(done, done + step).arrayBuffer());
        // The memory may have grown (and its buffer changed) since the last slice.
        new Uint8Array(x.memory.buffer, at + done, chunk.length).set(chunk);
        done += chunk.length;
        if (onProgress) onProgress(before + done, total);
      }
    } catch (e) {
      // A file that cannot be read (removed, or changed, since it was
      // picked): its buffer is given back.
      x.release(at);
      throw e;
    }
    return at;
  };
  // A staged text of the module's, copied out and given back.
  const stagedText = (at) => {
    const text = dec.decode(new Uint8Array(x.memory.buffer, at, x.staged_len(at) >>> 0));
    x.release(at);
    return text;
  };
  // Pairs `START END` per line.
  const spans = (text) => text.split('\n').filter(Boolean).map((l) => l.split(' ').map(Number));
  // The files read on demand, by their number: the File the slices come from.
  const partial = new Map();
  // Reads `[start, end)` of file `n` into its buffer at `base`, in slices
  // of at most 16 MiB, several at a time (a browser reads a File faster
  // so): sixteen small ones (the scan's), four big ones.
  const fill = async (n, base, ranges, onProgress) => {
    const file = partial.get(n);
    const step = 16 << 20;
    const jobs = [];
    for (const [start, end] of ranges) {
      for (let s = start; s < end; s += step) jobs.push([s, Math.min(end, s + step)]);
    }
    const total = jobs.reduce((t, [s, e]) => t + e - s, 0);
    let done = 0;
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const [s, e] = jobs[next++];
        const bytes = new Uint8Array(await file.slice(s, e).arrayBuffer());
        // The memory may have grown (and its buffer changed) meanwhile.
        new Uint8Array(x.memory.buffer, base + s, bytes.length).set(bytes);
        x.lazy_loaded(n, s, s + bytes.length);
        done += bytes.length;
        if (onProgress) onProgress(done, total);
      }
    };
    const width = total <= (16 << 20) ? 16 : 4;
    await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  };
  // Requests one after another: a request may read slices the next needs.
  let queue = Promise.resolve();
  const serial = (job) => {
    const run = queue.then(job, job);
    queue = run.catch(() => {});
    return run;
  };
  // Answers a request, first reading the slices it needs (a 449 names
  // them); each round reads more, so there are few.
  const ask = async (path, params, onProgress) => {
    for (let round = 0; round < 8; round++) {
      const r = request(path, params);
      if (r.status !== 449) return r;
      const [first, ...rest] = dec.decode(r.body).split('\n');
      const n = Number(new URLSearchParams(params).get('f').slice(1));
      await fill(n, Number(first), spans(rest.join('\n')), onProgress);
      x.release(x.lazy_seal(n) >>> 0);
    }
    throw new Error('the module kept asking for more of the file');
  };
  // Reads the structure of `file` on demand (options: the scan's, for the
  // tests); answers as the server's /api/upload does.
  const addOnDemand = async (file, onProgress, options = {}) => {
    const n = x.lazy_begin(put(enc.encode(file.name)), file.size, options.minSkip || 0,
      options.read || 0, options.prefix || 0);
    if (!n) throw new Error('the page has no room for ' + file.size + ' more bytes (a WebAssembly memory is at most 4 GiB): close a file, or open it with decode serve');
    partial.set(n, file);
    const base = x.lazy_buffer(n) >>> 0;
    for (;;) {
      const next = spans(stagedText(x.lazy_next(n) >>> 0));
      if (!next.length) break;
      await fill(n, base, next, null);
      if (onProgress) onProgress(next[0][1], file.size);
    }
    if (options.poison !== undefined) {
      for (const [s, e] of spans(stagedText(x.lazy_unread(n) >>> 0))) {
        new Uint8Array(x.memory.buffer, base + s, e - s).fill(options.poison);
      }
    }
    return answer(x.lazy_seal(n) >>> 0);
  };
  // Files at least this big are read on demand.
  const ON_DEMAND = 8 << 20;
  return {
    kind: 'wasm',
    limit: PBDECODE_WASM_LIMIT,
    fetch: (path, params) => serial(() => ask(path, params)),
    // Reads `file` (a File or Blob with a name) into the module's memory,
    // a big one on demand; answers as the server's /api/upload does.
    // `options.onDemand` (tests): read on demand whatever the size, with
    // the scan's options and unread bytes set to `poison`.
    add(file, onProgress, options) {
      return serial(async () => {
        if (options && options.onDemand) return addOnDemand(file, onProgress, options.onDemand);
        if (file.size >= ON_DEMAND) return addOnDemand(file, onProgress);
        const at = await copyIn(file, 0, file.size, onProgress);
        return answer(x.add_file(put(enc.encode(file.name)), at) >>> 0);
      });
    },
    // File `n`'s ranges not read yet, as [start, end] pairs (tests).
    unread: (key) => spans(stagedText(x.lazy_unread(Number(key.slice(1))) >>> 0)),
    // Reads files dropped together (a folder, or several files) as one
    // folder named `name`: `entries` are {path, file}, each path relative
    // to the folder. Each file's side files are looked up among them.
    // Resolves to the listings, as /api/upload's answers.
    addFolder(name, entries, onProgress) {
      return serial(() => addFolder(name, entries, onProgress));
    },
  };
  async function addFolder(name, entries, onProgress) {
    const total = entries.reduce((n, e) => n + e.file.size, 0);
    if (total > PBDECODE_WASM_LIMIT) throw tooBig(total);
    const root = x.add_root(put(enc.encode(name))) >>> 0;
    const out = [];
    let done = 0;
    try {
      for (const { path, file } of entries) {
        const at = await copyIn(file, done, total, onProgress);
        done += file.size;
        let rel;
        try {
          rel = put(enc.encode(path));
        } catch (e) {
          x.release(at);
          throw e;
        }
        out.push(answer(x.add_root_file(root, rel, at) >>> 0));
      }
    } catch (e) {
      // The files already copied are freed; the folder is not listed.
      x.abort_root(root);
      throw e;
    }
    x.finish_root(root);
    return out;
  }
}
