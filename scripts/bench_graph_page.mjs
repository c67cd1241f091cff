// Benchmark (not a test): the explorer's Graph tab on generated models,
// beside Netron on the same file in the same run.
//
//   node scripts/bench_graph_page.mjs [MODEL.onnx ...]
//
// Without a MODEL, writes two into target/bench-graph/: a model laid out
// as yolov8n is (tests/browser/harness.mjs's yoloLikeModel, 232 nodes),
// and one of 20,000 nodes with scripts/bench_model_gen.py (--nodes 20000
// --mib 16; PYTHON names an interpreter with onnx and numpy, default
// python3). Environment:
//   DECODE_BIN  the decode binary (default target/release/decode; build it
//               with cargo build --release)
//   NETRON      Netron's command (default netron on PATH: pip install
//               netron into a venv); NETRON=skip leaves Netron out
//   CHROMIUM    the browser (default /usr/bin/chromium)
//   RUNS        runs of each measure, best and median reported (default 3)
//   ONLY        pbdecode or netron: that viewer alone, once, and after its
//               first view ROUNDS series of the 40 events (default 1) and
//               nothing else: a whole process to time from outside, the
//               two viewers in turn (with ROUNDS=0, their start-up alone)
// Screenshots of each viewer's first view: target/bench-graph/*.png.
//
// For each viewer: the time from opening the page until the graph is
// drawn; the time a pan takes to show (a 60 px drag, then two animation
// frames, so the frame with the move is on screen), median of 20 drags at
// the first view (after the 40 events below) and 20 at the whole graph in
// the window; and the time 40 Ctrl+wheel events (zooming in and out about
// the drawing's middle) and 40 drag moves take, from the first event until
// two frames after the last, at the first view (the 40-event ratio).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { chromium } = createRequire(path.join(repo, 'tests', 'browser', 'package.json'))('playwright-core');
const decode = process.env.DECODE_BIN || path.join(repo, 'target', 'release', 'decode');
const only = process.env.ONLY || '';
const runs = only ? 1 : Number(process.env.RUNS || 3);
const rounds = Number(process.env.ROUNDS ?? 1);

let models = process.argv.slice(2);
if (!models.length) {
  const dir = path.join(repo, 'target', 'bench-graph');
  mkdirSync(dir, { recursive: true });
  const yolo = path.join(dir, 'yolo_like.onnx');
  writeFileSync(yolo, (await import('../tests/browser/harness.mjs')).yoloLikeModel());
  const model = path.join(dir, 'graph_20000.onnx');
  if (!existsSync(model)) {
    execFileSync(process.env.PYTHON || 'python3', [path.join(repo, 'scripts', 'bench_model_gen.py'), model, '--nodes', '20000', '--mib', '16', '--inits', '400'], { stdio: 'inherit' });
  }
  models = [yolo, model];
}
models = models.map((m) => path.resolve(m));

// Starts `cmd args`, resolves with the first address it prints.
function serve(cmd, args, pattern) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const look = (d) => {
      out += d;
      const m = out.match(pattern);
      if (m) resolve({ child, url: m[0] });
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`${cmd} exited: ${code} ${out}`)));
  });
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
// Drags the view up and left (towards the rest of a graph seen from its
// top left, where a scrolled view such as Netron's can follow) `n` times:
// the time of each until two frames have passed.
async function pans(page, x, y, n) {
  const times = [];
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let i = 1; i <= n; i++) {
    const t = performance.now();
    await page.mouse.move(x - 3 * i, y - 15 * i, { steps: 1 });
    await frames(page);
    times.push(performance.now() - t);
  }
  await page.mouse.up();
  return times;
}
// 40 Ctrl+wheel events about (x, y), zooming in and out in turn, then 40
// drag moves: the time of each series until two frames have passed.
async function events40(page, x, y) {
  await page.mouse.move(x, y);
  await page.keyboard.down('Control');
  let t = performance.now();
  for (let i = 0; i < 40; i++) await page.mouse.wheel(0, i % 2 ? 100 : -100);
  await frames(page);
  const wheel = performance.now() - t;
  await page.keyboard.up('Control');
  await page.mouse.down();
  t = performance.now();
  for (let i = 1; i <= 40; i++) await page.mouse.move(x - 2 * i, y - 4 * i);
  await frames(page);
  const drag = performance.now() - t;
  await page.mouse.up();
  return { wheel, drag, both: wheel + drag };
}
const viewport = { width: 1440, height: 900 };
// Each viewer's first view, to look at.
const shotDir = path.join(repo, 'target', 'bench-graph');
mkdirSync(shotDir, { recursive: true });

const f = (xs) => (xs.length ? `${Math.min(...xs).toFixed(0)} ms best, ${median(xs).toFixed(0)} ms median` : 'not run');
for (const [m, model] of models.entries()) {
  // ---------- pbdecode ----------
  const oursDrawn = [], oursPan = [], oursPanFit = [], oursPaint = [], oursEvents = [];
  let counts = '';
  if (only !== 'netron') {
    const ours = await serve(decode, ['serve', model, '--port', '0'], /http:\/\/\S+\?token=[0-9a-f]+/);
    const key = await (async () => {
      const page = await (await browser.newContext({ viewport })).newPage();
      await page.goto(ours.url);
      await page.waitForSelector('#files li[data-key]');
      const k = await page.$eval('#files li[data-key]', (li) => li.dataset.key);
      await page.close();
      return k;
    })();
    for (let run = 0; run < runs; run++) {
      // A fresh page each run: nothing cached in the page.
      const ctx = await browser.newContext({ viewport });
      const page = await ctx.newPage();
      await page.goto(ours.url);
      await page.waitForSelector('#files li[data-key]');
      const t = performance.now();
      await page.evaluate((k) => { location.hash = 'f=' + encodeURIComponent(k) + '&tab=graph'; }, key);
      await page.waitForSelector('#graph[data-ready="1"]', { timeout: 120000 });
      await page.waitForFunction(() => pbdecode.graph && pbdecode.graph.lastPaint);
      oursDrawn.push(performance.now() - t);
      counts = await page.$eval('#graph', (e) => `${e.dataset.nodes} nodes, ${e.dataset.edges} edges`);
      if (run === 0) await page.screenshot({ path: path.join(shotDir, `pbdecode-${m}.png`) });
      const box = await page.$eval('#graph-canvas', (c) => { const r = c.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; });
      const view0 = await page.evaluate(() => JSON.stringify(pbdecode.graph.v));
      for (let r = 0; r < rounds; r++) oursEvents.push(await events40(page, box[0], box[1]));
      if (rounds && await page.evaluate(() => JSON.stringify(pbdecode.graph.v)) === view0) throw new Error('the events did not move the explorer\'s view');
      if (only) { await ctx.close(); continue; }
      const at = () => page.evaluate(() => pbdecode.graph.tx + ',' + pbdecode.graph.ty);
      const before = await at();
      oursPan.push(median(await pans(page, box[0], box[1], 20)));
      if (await at() === before) throw new Error('the drag did not move the explorer\'s view');
      await page.click('#graph-fit');
      await frames(page);
      oursPanFit.push(median(await pans(page, box[0], box[1], 20)));
      oursPaint.push(await page.evaluate(() => pbdecode.graph.lastPaint.ms));
      await ctx.close();
    }
    ours.child.kill('SIGINT');
  }

  // ---------- Netron ----------
  const netronCmd = process.env.NETRON || 'netron';
  const theirsDrawn = [], theirsPan = [], theirsPanFit = [], theirsEvents = [];
  let netronVersion = '', netronNodes = 0, netronStill = false;
  if (netronCmd !== 'skip' && only !== 'pbdecode') {
    // (Netron writes its version to stderr.)
    const v = spawnSync(netronCmd, ['--version'], { encoding: 'utf8' });
    netronVersion = (v.stdout + v.stderr).trim();
    const port = 20000 + Math.floor(Math.random() * 20000);
    const theirs = await serve(netronCmd, ['--port', String(port), '--host', '127.0.0.1', model], /http:\/\/\S+/);
    for (let run = 0; run < runs; run++) {
      const ctx = await browser.newContext({ viewport });
      // Netron asks for consent to its telemetry first (a cookie answers),
      // and replaces window.eval, which the driver needs, with a function
      // that throws (an accessor keeps the browser's).
      await ctx.addCookies([{ name: 'consent', value: String(Date.now()), url: theirs.url }]);
      await ctx.addInitScript(() => {
        const own = window.eval;
        Object.defineProperty(window, 'eval', { get: () => own, set: () => {}, configurable: true });
      });
      const page = await ctx.newPage();
      const t = performance.now();
      await page.goto(theirs.url);
      await page.waitForFunction(() => document.body.classList.contains('default') && document.querySelector('#target g.node'), null, { timeout: 600000, polling: 50 });
      await frames(page);
      theirsDrawn.push(performance.now() - t);
      netronNodes = await page.$$eval('#target g.node', (ns) => ns.length);
      if (run === 0) await page.screenshot({ path: path.join(shotDir, `netron-${m}.png`) });
      const box = await page.$eval('#target', (c) => { const r = c.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; });
      const scrolled = () => page.$eval('#target', (c) => c.scrollLeft + ',' + c.scrollTop);
      for (let r = 0; r < rounds; r++) theirsEvents.push(await events40(page, box[0], box[1]));
      if (only) { await ctx.close(); continue; }
      const before = await scrolled();
      theirsPan.push(median(await pans(page, box[0], box[1], 20)));
      if (await scrolled() === before) netronStill = true;
      // Netron's whole graph in the window: zoomed out as far as it goes.
      for (let i = 0; i < 40; i++) await page.click('#zoom-out-button');
      await frames(page);
      theirsPanFit.push(median(await pans(page, box[0], box[1], 20)));
      await ctx.close();
    }
    theirs.child.kill('SIGINT');
  }
  console.log(`model: ${model} (${counts})`);
  console.log(`pbdecode explorer: drawn in ${f(oursDrawn)}; a pan shown in ${f(oursPan)} at the first view, ${f(oursPanFit)} with the whole graph in the window (its frame drawn in ${oursPaint.length ? median(oursPaint).toFixed(1) : '-'} ms)`);
  console.log(`Netron ${netronVersion}: drawn in ${f(theirsDrawn)} (${netronNodes} node elements); a pan shown in ${f(theirsPan)}, ${f(theirsPanFit)} zoomed out` + (netronStill ? ' (the drag did not move its view)' : ''));
  const ev = (xs, k) => xs.map((e) => e[k]);
  const evText = (xs) => (xs.length ? `${f(ev(xs, 'both'))} (wheel ${median(ev(xs, 'wheel')).toFixed(0)} ms, drag ${median(ev(xs, 'drag')).toFixed(0)} ms)` : 'not run');
  console.log(`40 Ctrl+wheel events and 40 drag moves: pbdecode ${evText(oursEvents)}; Netron ${evText(theirsEvents)}`);
  if (theirsDrawn.length) console.log(`ratio (drawn): ${(median(oursDrawn) / median(theirsDrawn)).toFixed(3)} of Netron's time`);
  if (theirsEvents.length) console.log(`ratio (40 events): ${(median(ev(oursEvents, 'both')) / median(ev(theirsEvents, 'both'))).toFixed(3)} of Netron's time`);
}
await browser.close();

