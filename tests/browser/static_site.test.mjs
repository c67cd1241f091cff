// The static site (scripts/build-site.sh) in headless Chromium, whatever
// BACKEND says: the fixtures folder picked on the page is read by the
// page's WebAssembly module, and for every fixture the page's JSON
// (/api/open?values=all's decoded file) and text view are the command
// line's, byte for byte. The files are read together, so a model finds its
// external data among them as the command finds it on disk; a file of a
// test_data_set_N folder is read by the page alone (the command reads it
// against the model beside it), so it is compared with the command
// reading it from standard input. A tensor bundle's shards (and a
// SavedModel's variables/ folder) are found among the files read
// together, as the command finds them by listing the folder on disk; the
// shard that is a link out of its folder is not among the files the
// browser gives for a picked folder (it leaves links out), so that bundle
// is compared with the command reading a copy of its folder without the
// link. One message differs by design: a side file that is missing is
// "not among the files given with this one" on the page, where the
// command says the OS's "No such file or directory".
// No request leaves the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode, field, fixtures, msg, shot, startStatic } from './harness.mjs';

let env;
before(async () => { env = await startStatic(); });
after(async () => { if (env) await env.stop(); });

// The command's output (its exit status aside: a file it turns down
// still prints its JSON), from the fixtures folder.
function cli(args, rel) {
  const alone = /(^|\/)test_data_set_\d+\//.test(rel);
  const opts = { cwd: fixtures, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] };
  const linked = 'tf-checkpoint/damaged/shard_link_escapes/';
  if (rel.startsWith(linked)) {
    opts.cwd = mkdtempSync(path.join(os.tmpdir(), 'pbdecode-links-'));
    cpSync(path.join(fixtures, linked), path.join(opts.cwd, linked), {
      recursive: true,
      filter: (from) => !lstatSync(from).isSymbolicLink(),
    });
  }
  if (alone) opts.input = readFileSync(path.join(fixtures, rel));
  let out;
  try {
    out = execFileSync(decode, [...args, alone ? '-' : rel], opts).toString();
  } catch (e) {
    out = e.stdout.toString();
  }
  if (opts.cwd !== fixtures) rmSync(opts.cwd, { recursive: true, force: true });
  return out.replace(/cannot read (?:[^"\s]*\/)?([^"\s/]+): No such file or directory \(os error 2\)/g, '$1 is not among the files given with this one');
}

test('the static page shows every fixture as the command line does', async () => {
  const { page } = env;
  await shot(page, '40-static-files');
  const files = await page.evaluate(async () => (await pbdecode.api('/api/files')).files);
  assert.ok(files.length > 200, 'files listed: ' + files.length);
  const failures = [];
  let decoded = 0;
  for (const f of files) {
    const rel = f.name.slice('fixtures/'.length);
    if (rel.endsWith('README.md')) continue;
    const got = await page.evaluate(async (key) => {
      const open = await pbdecode.backend.fetch('/api/open', { f: key, values: 'all' });
      const text = await pbdecode.backend.fetch('/api/text', { f: key });
      return { open: await open.text(), text: await text.text() };
    }, f.key);
    const opened = JSON.parse(got.open);
    const json = cli(['--json'], rel).replace(/\n$/, '');
    if (opened.ok) {
      decoded++;
      // A file read without a schema comes with its field tree's first
      // page only (the page asks for the rest): its text view is compared.
      const at = got.open.indexOf('"decoded": ');
      const mine = got.open.slice(at + '"decoded": '.length, got.open.lastIndexOf('\n}'));
      if (opened.format !== 'protobuf' && mine !== json) failures.push(rel + ': JSON differs');
      if (got.text !== cli(['--dense'], rel)) failures.push(rel + ': text differs');
    } else if (opened.error.check !== JSON.parse(json).error.check) {
      failures.push(`${rel}: ${opened.error.check} where the command says ${JSON.parse(json).error.check}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(decoded > 150, 'files decoded: ' + decoded);
  assert.deepEqual(env.outside, []);
});

// A model of 12 MiB (three 1024 x 1024 FLOAT initializers) picked alone:
// read on demand, its structure first, so the page shows it with most of
// its bytes unread; a page of a tensor's values reads its rows; the text
// view reads the rest, and is the command line's.
test('a big picked file is read on demand and shown as the command line shows it', async () => {
  const { page } = env;
  const FLOAT = 1;
  const side = 1024;
  const parts = [];
  const nodes = [];
  let prev = 'x';
  for (let i = 0; i < 3; i++) {
    const values = new Float32Array(side * side).map((_, k) => (k % 1000) / 8 + i);
    const head = msg(field(1, side), field(1, side), field(2, FLOAT), field(8, `w${i}`));
    const raw = Buffer.from(values.buffer);
    const tensor = Buffer.concat([Buffer.from(head), Buffer.from([9 << 3 | 2]), Buffer.from(lengthOf(raw.length)), raw]);
    parts.push(Buffer.concat([Buffer.from([5 << 3 | 2]), Buffer.from(lengthOf(tensor.length)), tensor]));
    nodes.push(field(1, msg(field(1, prev), field(1, `w${i}`), field(2, `y${i}`), field(3, `add${i}`), field(4, 'Add'))));
    prev = `y${i}`;
  }
  const tensorType = field(1, msg(field(1, FLOAT)));
  const graph = Buffer.concat([Buffer.from(msg(...nodes, field(2, 'big'))), ...parts,
    Buffer.from(msg(field(11, msg(field(1, 'x'), field(2, tensorType))), field(12, msg(field(1, prev), field(2, tensorType)))))]);
  const model = Buffer.concat([Buffer.from(msg(field(1, 8), field(2, 'pbdecode-test'))), Buffer.from([7 << 3 | 2]),
    Buffer.from(lengthOf(graph.length)), graph, Buffer.from(msg(field(8, msg(field(2, 17)))))]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pbdecode-big-'));
  const file = path.join(dir, 'big.onnx');
  writeFileSync(file, model);
  await page.setInputFiles('#picker', file);
  await page.waitForSelector('#files li[data-key^="u"]');
  await page.waitForSelector('.nodes .node');
  await shot(page, '43-static-big-model');
  const key = await page.evaluate(() => document.querySelector('#files li[data-key^="u"]').dataset.key);
  const unread = async () => page.evaluate(async (k) => (await pbdecode.backend.unread(k)).reduce((n, [s, e]) => n + e - s, 0), key);
  const opened = await unread();
  assert.ok(opened > 11 << 20, 'bytes unread after opening: ' + opened);
  // The last tensor's rows 500 and 501.
  const got = JSON.parse(await page.evaluate(async (k) => (await pbdecode.backend.fetch('/api/values', { f: k, t: 2, offset: 500 * 1024, count: 4, rows: 2, stride: 1024 })).text(), key));
  const want = (r, c) => ((r * 1024 + c) % 1000) / 8 + 2;
  assert.deepEqual(got.values.flat().map(Number),
    [want(500, 0), want(500, 1), want(500, 2), want(500, 3), want(501, 0), want(501, 1), want(501, 2), want(501, 3)]);
  const afterValues = await unread();
  assert.ok(afterValues < opened && afterValues > 11 << 20, `unread ${opened} then ${afterValues}`);
  const text = await page.evaluate(async (k) => (await pbdecode.backend.fetch('/api/text', { f: k })).text(), key);
  const cliText = execFileSync(decode, ['--dense', file], { maxBuffer: 1 << 30 }).toString();
  assert.equal(text, cliText);
  assert.equal(await unread(), 0);
  assert.deepEqual(env.outside, []);
});

// A varint's bytes.
function lengthOf(n) {
  const out = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n);
  return out;
}
