// What the browser tests share: the explorer on the repository's
// fixtures, with either back end (BACKEND=server, the default: `decode
// serve` on the folder; BACKEND=static: the static site of
// scripts/build-site.sh served as plain files, the folder picked on the
// page and read by its WebAssembly module), a headless Chromium page on
// it, files dropped as a user drops them, screenshots in
// target/browser-screenshots/, and the protobuf bytes of files made in the
// test.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readFile, readdirSync } from 'node:fs';
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
    for (const file of readdirSync(process.env.WEB_DIR).filter((f) => /\.(js|css)$/.test(f))) {
      const type = file.endsWith('.css') ? 'text/css' : 'text/javascript';
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

// ---------- models shaped as real ones, for the Graph tab ----------
// An ONNX graph built node by node: `node(op, inputs, name, attrs)` adds
// a node (named as exporters name them) and returns its output's name;
// `weight(name)` an initializer of one float; `graph(name, inputs,
// outputs)` its GraphProto bytes (inputs and outputs FLOAT tensors).
export class OnnxGraph {
  constructor() { this.nodes = []; this.inits = []; }
  node(op, inputs, name, attrs = []) {
    const out = name + '_output_0';
    this.nodes.push(field(1, msg(...inputs.map((x) => field(1, x)), field(2, out), field(3, name), field(4, op), ...attrs)));
    return out;
  }
  // A node with several outputs (Split): their names.
  nodeOuts(op, inputs, name, count, attrs = []) {
    const outs = Array.from({ length: count }, (_, k) => `${name}_output_${k}`);
    this.nodes.push(field(1, msg(...inputs.map((x) => field(1, x)), ...outs.map((o) => field(2, o)), field(3, name), field(4, op), ...attrs)));
    return outs;
  }
  weight(name) {
    this.inits.push(field(5, msg(field(1, 1), field(2, 1), field(8, name), field(9, [0, 0, 128, 63]))));
    return name;
  }
  graph(name, inputs, outputs, extra = []) {
    const io = (n) => msg(field(1, n), field(2, field(1, msg(field(1, 1)))));
    return msg(...this.nodes, field(2, name), ...this.inits, ...inputs.map((n) => field(11, io(n))), ...outputs.map((n) => field(12, io(n))), ...extra);
  }
}
export const intsAttr = (name, values) => field(5, msg(field(1, name), ...values.map((v) => field(8, v)), field(20, 7)));
export const graphAttr = (name, graphBytes) => field(5, msg(field(1, name), field(6, graphBytes), field(20, 5)));
export const onnxModel = (graphBytes) => Uint8Array.from(msg(field(1, 8), field(2, 'pbdecode-test'), field(7, graphBytes), field(8, msg(field(2, 17)))));

// A model laid out as Ultralytics' yolov8n exports (232 nodes): Conv +
// SiLU (Sigmoid, Mul) blocks, C2f blocks (Split, bottlenecks, Concat),
// SPPF (MaxPool), the upsampling neck (Resize, Concat) and the Detect
// head with its DFL, each node named by its module path
// (`/model.2/m.0/cv1/conv/Conv`), so that name scopes group them.
export function yoloLikeModel() {
  const g = new OnnxGraph();
  const conv = (x, p) => {
    const c = g.node('Conv', [x, g.weight(`${p.slice(1).replaceAll('/', '.')}.weight`)], `${p}/conv/Conv`, [intsAttr('kernel_shape', [3, 3])]);
    const s = g.node('Sigmoid', [c], `${p}/act/Sigmoid`);
    return g.node('Mul', [c, s], `${p}/act/Mul`);
  };
  const c2f = (x, p, n, shortcut = true) => {
    const [a, b] = g.nodeOuts('Split', [conv(x, `${p}/cv1`)], `${p}/Split`, 2);
    const parts = [a, b];
    let y = b;
    for (let i = 0; i < n; i++) {
      const m = conv(conv(y, `${p}/m.${i}/cv1`), `${p}/m.${i}/cv2`);
      y = shortcut ? g.node('Add', [y, m], `${p}/m.${i}/Add`) : m;
      parts.push(y);
    }
    return conv(g.node('Concat', parts, `${p}/Concat`), `${p}/cv2`);
  };
  let x = conv('images', '/model.0');
  x = conv(x, '/model.1');
  x = c2f(x, '/model.2', 1);
  x = conv(x, '/model.3');
  const p3 = c2f(x, '/model.4', 2);
  x = conv(p3, '/model.5');
  const p4 = c2f(x, '/model.6', 2);
  x = conv(p4, '/model.7');
  x = c2f(x, '/model.8', 1);
  const s1 = conv(x, '/model.9/cv1');
  const m1 = g.node('MaxPool', [s1], '/model.9/m/MaxPool');
  const m2 = g.node('MaxPool', [m1], '/model.9/m_1/MaxPool');
  const m3 = g.node('MaxPool', [m2], '/model.9/m_2/MaxPool');
  const p5 = conv(g.node('Concat', [s1, m1, m2, m3], '/model.9/Concat'), '/model.9/cv2');
  x = g.node('Resize', [p5], '/model.10/Resize');
  const n12 = c2f(g.node('Concat', [x, p4], '/model.11/Concat'), '/model.12', 1, false);
  x = g.node('Resize', [n12], '/model.13/Resize');
  const o3 = c2f(g.node('Concat', [x, p3], '/model.14/Concat'), '/model.15', 1, false);
  const o4 = c2f(g.node('Concat', [conv(o3, '/model.16'), n12], '/model.17/Concat'), '/model.18', 1, false);
  const o5 = c2f(g.node('Concat', [conv(o4, '/model.19'), p5], '/model.20/Concat'), '/model.21', 1, false);
  const heads = [o3, o4, o5].map((o, i) => {
    const box = g.node('Conv', [conv(conv(o, `/model.22/cv2.${i}/cv2.${i}.0`), `/model.22/cv2.${i}/cv2.${i}.1`), g.weight(`model.22.cv2.${i}.2.weight`)], `/model.22/cv2.${i}/cv2.${i}.2/Conv`);
    const cls = g.node('Conv', [conv(conv(o, `/model.22/cv3.${i}/cv3.${i}.0`), `/model.22/cv3.${i}/cv3.${i}.1`), g.weight(`model.22.cv3.${i}.2.weight`)], `/model.22/cv3.${i}/cv3.${i}.2/Conv`);
    return g.node('Reshape', [g.node('Concat', [box, cls], `/model.22/Concat${i ? '_' + i : ''}`)], `/model.22/Reshape${i ? '_' + i : ''}`);
  });
  const all = g.node('Concat', heads, '/model.22/Concat_3');
  const [dist, scores] = g.nodeOuts('Split', [all], '/model.22/Split', 2);
  const dfl = g.node('Reshape', [g.node('Conv', [g.node('Softmax', [g.node('Transpose', [g.node('Reshape', [dist], '/model.22/dfl/Reshape')], '/model.22/dfl/Transpose')], '/model.22/dfl/Softmax'), g.weight('model.22.dfl.conv.weight')], '/model.22/dfl/conv/Conv')], '/model.22/dfl/Reshape_1');
  const [lt, rb] = g.nodeOuts('Slice', [dfl], '/model.22/Slice', 2);
  const x1y1 = g.node('Sub', [g.weight('anchors'), lt], '/model.22/Sub');
  const x2y2 = g.node('Add', [g.weight('anchors_1'), rb], '/model.22/Add_1');
  const c = g.node('Div', [g.node('Add', [x1y1, x2y2], '/model.22/Add_2'), g.weight('two')], '/model.22/Div_1');
  const wh = g.node('Sub', [x2y2, x1y1], '/model.22/Sub_1');
  const boxes = g.node('Mul', [g.node('Concat', [c, wh], '/model.22/Concat_4'), g.weight('strides')], '/model.22/Mul_2');
  const out = g.node('Concat', [boxes, g.node('Sigmoid', [scores], '/model.22/Sigmoid')], '/model.22/Concat_5');
  return onnxModel(g.graph('main_graph', ['images'], [out]));
}

// A model shaped as silero-vad's: a few nodes around an If whose two
// branches (16 kHz and 8 kHz) hold the network, 113 and 57 nodes named
// by module path (`/_model/encoder/0/reparam_conv/Conv`), each branch
// reading the main graph's inputs and giving its outputs at its bottom.
export function sileroLikeModel() {
  const branch = (name, layers, steps) => {
    const b = new OnnxGraph();
    let x = b.node('Pad', ['input'], '/_model/stft/Pad');
    x = b.node('Conv', [x, b.weight(`${name}.stft.forward_basis`)], '/_model/stft/Conv');
    const [re, im] = b.nodeOuts('Slice', [x], '/_model/stft/Slice', 2);
    x = b.node('Sqrt', [b.node('Add', [b.node('Pow', [re], '/_model/stft/Pow'), b.node('Pow', [im], '/_model/stft/Pow_1')], '/_model/stft/Add')], '/_model/stft/Sqrt');
    for (let i = 0; i < layers; i++) {
      const p = `/_model/encoder/${i}`;
      x = b.node('Relu', [b.node('Conv', [x, b.weight(`${name}.encoder.${i}.weight`)], `${p}/reparam_conv/Conv`)], `${p}/activation/Relu`);
    }
    let h = b.node('Squeeze', ['state'], '/_model/decoder/Squeeze');
    for (let t = 0; t < steps; t++) {
      const p = `/_model/decoder/rnn/${t}`;
      const gates = b.node('Add', [b.node('MatMul', [x, b.weight(`${name}.rnn.${t}.w`)], `${p}/MatMul`), b.node('MatMul', [h, b.weight(`${name}.rnn.${t}.r`)], `${p}/MatMul_1`)], `${p}/Add`);
      const [i, f, o] = b.nodeOuts('Split', [gates], `${p}/Split`, 3);
      h = b.node('Mul', [b.node('Sigmoid', [o], `${p}/Sigmoid`), b.node('Tanh', [b.node('Add', [b.node('Mul', [b.node('Sigmoid', [f], `${p}/Sigmoid_1`), h], `${p}/Mul`), b.node('Sigmoid', [i], `${p}/Sigmoid_2`)], `${p}/Add_1`)], `${p}/Tanh`)], `${p}/Mul_1`);
    }
    const y = b.node('Sigmoid', [b.node('Conv', [b.node('Relu', [h], '/_model/decoder/decoder/1/Relu'), b.weight(`${name}.decoder.conv`)], '/_model/decoder/decoder/2/Conv')], '/_model/decoder/decoder/3/Sigmoid');
    const out = b.node('ReduceMean', [b.node('Squeeze', [y], '/_model/Squeeze')], '/_model/ReduceMean');
    const st = b.node('Unsqueeze', [h], '/_model/Unsqueeze');
    return { bytes: b.graph(name, [], [out, st]), outs: [out, st] };
  };
  const then = branch('then_branch', 11, 7);
  const other = branch('else_branch', 5, 3);
  const g = new OnnxGraph();
  const cond = g.node('Equal', ['sr', g.weight('sr16k')], '/Equal');
  g.nodes.push(field(1, msg(field(1, cond), field(2, 'output'), field(2, 'stateN'), field(3, '/If'), field(4, 'If'),
    graphAttr('then_branch', then.bytes), graphAttr('else_branch', other.bytes))));
  return onnxModel(g.graph('main_graph', ['input', 'state', 'sr'], ['output', 'stateN']));
}
