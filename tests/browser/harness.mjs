// What the browser tests share: the explorer on the repository's
// fixtures, with either back end (BACKEND=server, the default: `decode
// serve` on the folder; BACKEND=static: the static site of
// scripts/build-site.sh served as plain files, the folder picked on the
// page and read by its WebAssembly module), a headless Chromium page on
// it, files dropped as a user drops them, screenshots in
// target/browser-screenshots/, and the protobuf bytes of files made in the
// test.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readFile } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..');
export const fixtures = path.join(repo, 'tests', 'fixtures');
export const shots = path.join(repo, 'target', 'browser-screenshots');
export const decode = process.env.DECODE_BIN || path.join(repo, 'target', 'debug', 'decode');
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
export const backend = process.env.BACKEND || 'server';
export const site = process.env.SITE_DIR || path.join(repo, 'target', 'site');
const launchArgs = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// Starts the back end and a browser on the page, the fixtures listed;
// `stop()` ends both.
export async function start(viewport = { width: 1400, height: 900 }) {
  mkdirSync(shots, { recursive: true });
  if (backend === 'static') return startStatic(viewport);
  const server = spawn(decode, ['serve', fixtures, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/\S+\?token=[0-9a-f]+/);
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error('decode serve exited: ' + code + ' ' + out)));
  });
  const browser = await chromium.launch({ executablePath: browserPath, args: launchArgs });
  const context = await browser.newContext({ viewport });
  // WEB_DIR=folder: the page's script and style from that folder instead
  // of the binary's (a change to web/ tried without a rebuild, or an
  // earlier version of it checked against the tests).
  if (process.env.WEB_DIR) {
    for (const [file, type] of [['app.js', 'text/javascript'], ['graph.js', 'text/javascript'], ['escape.js', 'text/javascript'], ['app.css', 'text/css']]) {
      await context.route('**/' + file, (r) => r.fulfill({ status: 200, contentType: type, body: readFileSync(path.join(process.env.WEB_DIR, file)) }));
    }
  }
  const page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  await page.goto(url);
  await page.waitForSelector('#files li[data-key]');
  const stop = async () => {
    await browser.close();
    server.kill('SIGINT');
  };
  return { page, url, browser, stop };
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.wasm': 'application/wasm' };

// The static site served as files (what any web server does), the page
// opened on it and the fixtures folder picked with its "Open folder"
// input, so that the page lists them with the keys the server gives them
// (`0/rel/path`). Every request the page makes is checked: one that is
// not for the site's own files fails the test when it stops.
export async function startStatic(viewport = { width: 1400, height: 900 }) {
  mkdirSync(shots, { recursive: true });
  const files = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://site').pathname);
    if (p === '/') p = '/index.html';
    const file = path.join(site, path.normalize(p));
    if (!file.startsWith(site + path.sep)) { res.writeHead(403); res.end(); return; }
    readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  await new Promise((ok) => files.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${files.address().port}`;
  const browser = await chromium.launch({ executablePath: browserPath, args: launchArgs });
  const context = await browser.newContext({ viewport });
  const outside = [];
  await context.route('**/*', (r) => {
    const u = r.request().url();
    if (u.startsWith(origin + '/')) return r.continue();
    outside.push(u);
    return r.abort();
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  const url = origin + '/index.html';
  await page.goto(url);
  await page.setInputFiles('#folder-picker', fixtures);
  await page.waitForSelector('#files li[data-key]');
  const stop = async () => {
    await browser.close();
    files.close();
    if (outside.length) throw new Error('requests left the page: ' + outside.join(', '));
  };
  return { page, url, browser, stop, outside };
}

// Drops bytes on the page as a file named `name`: a drop event whose
// DataTransfer holds it. Resolves once the page shows the file.
// `lastModified` (milliseconds) is the file's time, by default now.
export async function dropBytes(page, name, bytes, lastModified) {
  await page.evaluate(({ bytes, name, lastModified }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], name, lastModified === undefined ? {} : { lastModified }));
    document.querySelector('#main').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { bytes: [...bytes], name, lastModified });
  await page.waitForFunction((name) => (document.querySelector('.crumbs .fname') || {}).title === name, name);
}

export const shot = (page, name) => page.screenshot({ path: path.join(shots, (backend === 'static' ? 'static-' : '') + name + '.png'), fullPage: false });

// ---------- protobuf bytes, for files made in the test ----------
function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
// A field: a number as a varint, a string or byte array as bytes, an array
// of fields as a nested message.
export function field(no, value) {
  if (typeof value === 'number' || typeof value === 'bigint') return [...varint(no << 3), ...varint(value)];
  const body = typeof value === 'string' ? [...Buffer.from(value, 'utf8')] : value;
  return [...varint((no << 3) | 2), ...varint(body.length), ...body];
}
export const msg = (...fields) => fields.flat();

// An ONNX model (onnx.proto field numbers) of `layers` Conv layers named as
// an exporter names a YOLO's: nodes `/model.N/conv/Conv`, values
// `/model.N/conv/Conv_output_0`, initializers `model.N.conv.weight` and
// `.bias` (a 1 x 1 x 1 x 1 weight and a bias of 1 float each).
export function convModel(layers) {
  const FLOAT = 1;
  const init = (name) => field(5, msg(field(1, 1), field(1, 1), field(1, 1), field(1, 1), field(2, FLOAT), field(8, name), field(9, [0, 0, 128, 63])));
  const bias = (name) => field(5, msg(field(1, 1), field(2, FLOAT), field(8, name), field(9, [0, 0, 0, 0])));
  const nodes = [], inits = [];
  let prev = 'images';
  for (let i = 0; i < layers; i++) {
    const out = `/model.${i}/conv/Conv_output_0`;
    nodes.push(field(1, msg(field(1, prev), field(1, `model.${i}.conv.weight`), field(1, `model.${i}.conv.bias`), field(2, out),
      field(3, `/model.${i}/conv/Conv`), field(4, 'Conv'),
      field(5, msg(field(1, 'kernel_shape'), field(8, 1), field(8, 1), field(20, 7))))));
    inits.push(init(`model.${i}.conv.weight`), bias(`model.${i}.conv.bias`));
    prev = out;
  }
  const tensorType = field(1, msg(field(1, FLOAT)));
  const graph = msg(...nodes, field(2, 'main_graph'), ...inits,
    field(11, msg(field(1, 'images'), field(2, tensorType))),
    field(12, msg(field(1, prev), field(2, tensorType))));
  return Uint8Array.from(msg(field(1, 8), field(2, 'pbdecode-test'), field(7, graph), field(8, msg(field(2, 17)))));
}
