// The WebAssembly build of the explorer's endpoints (wasm/, through the
// page's own glue web/wasm.js) under node, against the command line: for
// every fixture, the decoded file of /api/open?values=all is `decode
// --json`'s output and /api/text is `decode --dense`'s, byte
// for byte. A file dropped on the page has no folder, so the command reads
// the same bytes from standard input (no side file, no model beside it).
// Needs the site built (run.sh builds it into target/site; SITE_DIR=... to
// pick another).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repo, fixtures, decode } from './harness.mjs';

export const site = process.env.SITE_DIR || path.join(repo, 'target', 'site');

// The page's glue, run as the page runs it; resolves to the back end.
export async function loadModule() {
  const { pbdecodeWasm } = await import(pathToFileURL(path.join(site, 'wasm.js')));
  return pbdecodeWasm(readFileSync(path.join(site, 'pbdecode.wasm')));
}

export function fixtureFiles(dir = fixtures) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...fixtureFiles(p));
    else if (name !== 'README.md') out.push(p);
  }
  return out;
}

// The command's output for `bytes` on standard input (its exit status
// aside: a file it turns down still prints its JSON).
function cli(args, bytes) {
  try {
    return execFileSync(decode, [...args, '-'], { input: bytes, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] });
  } catch (e) {
    return e.stdout;
  }
}

// `/api/open`'s decoded file: the text after `"decoded": ` up to the line
// break that ends it (the answer's closing brace follows).
function decodedOf(body) {
  const text = Buffer.from(body).toString();
  const at = text.indexOf('"decoded": ');
  return at < 0 ? null : text.slice(at + '"decoded": '.length, text.lastIndexOf('\n}'));
}

test('the module answers as the command line for every fixture', async () => {
  const mod = await loadModule();
  const files = fixtureFiles();
  assert.ok(files.length > 200, 'fixtures found: ' + files.length);
  let decoded = 0;
  const failures = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    const name = path.relative(fixtures, file);
    const added = await mod.add(new File([bytes], path.basename(file)));
    assert.equal(added.status, 200, name);
    const { key } = JSON.parse(await added.text());
    const open = await mod.fetch('/api/open', { f: key, values: 'all' });
    assert.equal(open.status, 200, name);
    const opened = JSON.parse(await open.text());
    const json = cli(['--json'], bytes).toString().replace(/\n$/, '');
    if (opened.ok) {
      decoded++;
      // A file read without a schema comes with its field tree's first
      // page only (the page asks for the rest): its text view is compared.
      if (opened.format !== 'protobuf' && decodedOf(open.body) !== json) failures.push(name + ': JSON differs');
    } else {
      // Turned down: the same check as the command's.
      const check = JSON.parse(json).error.check;
      if (opened.error.check !== check) failures.push(`${name}: ${opened.error.check} where the command says ${check}`);
    }
    const text = await mod.fetch('/api/text', { f: key });
    if (opened.ok && (await text.text()) !== cli(['--dense'], bytes).toString()) {
      failures.push(name + ': text differs');
    }
    assert.equal((await mod.fetch('/api/close', { f: key })).status, 200);
  }
  assert.deepEqual(failures, []);
  assert.ok(decoded > 150, 'files decoded: ' + decoded);
  // Every file closed: the module holds none.
  assert.deepEqual(JSON.parse(await (await mod.fetch('/api/files')).text()).files, []);
});

test('the module draws the picture and computes statistics as the server does', async () => {
  const mod = await loadModule();
  const bytes = readFileSync(path.join(fixtures, 'images', readdirSync(path.join(fixtures, 'images')).find((n) => n.endsWith('.pb'))));
  const { key } = JSON.parse(await (await mod.add(new File([bytes], 'image.pb'))).text());
  const pic = await mod.fetch('/api/picture', { f: key, t: 0 });
  assert.equal(pic.status, 200);
  assert.equal(pic.headers.get('content-type'), 'image/png');
  assert.deepEqual([...pic.body.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
  assert.ok(pic.headers.get('X-Picture'));
  const stats = JSON.parse(await (await mod.fetch('/api/stats', { f: key, t: 0 })).text());
  const cliStats = JSON.parse(cli(['--json'], bytes).toString()).value.stats;
  assert.equal(JSON.stringify(stats.stats.count), JSON.stringify(cliStats.count));
  assert.equal(stats.stats.mean, cliStats.mean);
  // Unknown endpoints and files are answered as the server answers them.
  assert.equal((await mod.fetch('/api/nothing', { f: key })).status, 404);
  assert.equal((await mod.fetch('/api/open', { f: 'u999' })).status, 404);
  assert.equal((await mod.fetch('/api/open')).status, 400);
});

// A file read on demand is answered as the same file read whole: every
// fixture read with a scan that passes over every field longer than 16
// bytes that does not read as fields, the bytes left unread set to 0xa5
// (so that an answer that read them would differ), then asked for what
// the page asks. The module reads what each request needs first.
test('a file read on demand answers as the file read whole', async () => {
  const mod = await loadModule();
  const onDemand = { minSkip: 16, read: 16, prefix: 1, poison: 0xa5 };
  let unreadAfterOpen = 0;
  const failures = [];
  for (const file of fixtureFiles()) {
    const bytes = readFileSync(file);
    const name = path.relative(fixtures, file);
    const whole = JSON.parse(await (await mod.add(new File([bytes], path.basename(file)))).text()).key;
    const lazy = JSON.parse(await (await mod.add(new File([bytes], path.basename(file)), null, { onDemand })).text()).key;
    const ask = async (key, p, params) => {
      const r = await mod.fetch(p, { f: key, ...params });
      return r.status + ' ' + Buffer.from(r.body).toString('latin1').split(`"${key}"`).join('"KEY"');
    };
    const requests = [['/api/open', { values: 1 }], ['/api/graph', {}], ['/api/open', {}]];
    const opened = JSON.parse(await (await mod.fetch('/api/open', { f: whole })).text());
    if (opened.tensors && opened.tensors.length) {
      const last = opened.tensors.length - 1;
      requests.push(['/api/tensor', { t: last }], ['/api/values', { t: last, offset: 3, count: 5, rows: 4, stride: 7 }],
        ['/api/values', { t: last, offset: 0, count: 64 }], ['/api/stats', { t: 0 }], ['/api/picture', { t: last }]);
    }
    requests.push(['/api/open', { values: 'all' }], ['/api/text', {}]);
    for (const [p, params] of requests) {
      const a = await ask(whole, p, params);
      const b = await ask(lazy, p, params);
      if (a !== b) failures.push(`${name} ${p} ${JSON.stringify(params)}: differs`);
      if (p === '/api/open' && params.values === 1 && mod.unread(lazy).length) unreadAfterOpen++;
    }
    assert.deepEqual(mod.unread(lazy), [], name + ': read whole by the end');
    await mod.fetch('/api/close', { f: whole });
    await mod.fetch('/api/close', { f: lazy });
  }
  assert.deepEqual(failures, []);
  // The check is only as good as the files it leaves bytes unread in.
  assert.ok(unreadAfterOpen >= 20, 'files opened with bytes unread: ' + unreadAfterOpen);
});

// A folder whose files do not all arrive (one cannot be read) is given up:
// the glue rejects, nothing of it is listed, and the copies already placed
// in the module's memory are freed: dropping it again and again does not
// grow the memory by the copies each time (they were once kept).
test('a folder drop that fails part way frees what it copied', async () => {
  const realInstantiate = WebAssembly.instantiate;
  let instance;
  WebAssembly.instantiate = async (...args) => {
    const made = await realInstantiate(...args);
    instance = made.instance;
    return made;
  };
  let mod;
  try {
    mod = await loadModule();
  } finally {
    WebAssembly.instantiate = realInstantiate;
  }
  const memory = () => instance.exports.memory.buffer.byteLength;
  const big = new File([new Uint8Array(8 << 20)], 'big.bin');
  const gone = {
    name: 'gone.bin',
    size: 16,
    slice: () => ({ arrayBuffer: async () => { throw new Error('the file is gone'); } }),
  };
  const entries = [{ path: 'a.bin', file: big }, { path: 'sub/b.bin', file: big }, { path: 'gone.bin', file: gone }];
  await assert.rejects(mod.addFolder('dropped', entries), /the file is gone/);
  const first = memory();
  for (let k = 0; k < 12; k++) {
    await assert.rejects(mod.addFolder('dropped', entries), /the file is gone/);
  }
  // Twelve more drops of 16 MiB each: kept, they would take 192 MiB more.
  assert.ok(memory() - first < 32 << 20, `the memory grew from ${first} to ${memory()} bytes`);
  const listed = JSON.parse(await (await mod.fetch('/api/files')).text());
  assert.deepEqual(listed.files, []);
  assert.deepEqual(listed.roots ?? [], []);
  // A drop that works after them is listed alone.
  const ok = await mod.addFolder('model', [{ path: 'x.bin', file: new File([new Uint8Array(4)], 'x.bin') }]);
  assert.equal(ok.length, 1);
  const names = JSON.parse(await (await mod.fetch('/api/files')).text()).files.map((f) => f.name);
  assert.deepEqual(names, ['model/x.bin']);
});
