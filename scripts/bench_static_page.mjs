// Benchmark (not a test) of the static site (scripts/build-site.sh): the
// page in headless Chromium, a file picked with its file input and read by
// the page's WebAssembly module, beside Netron on the same file in the
// same run.
//
//   node scripts/bench_static_page.mjs MODEL.onnx TENSOR.pb [SITE_DIR]
//
// MODEL.onnx: scripts/bench_model_gen.py (the 1 GiB model); TENSOR.pb:
// scripts/make_big_tensors.py (a 256 MiB FLOAT tensor). SITE_DIR: the
// built site (default target/site). Netron: NETRON=path/to/netron (`pip
// install netron` into a venv); without it Netron's column is left out.
// Measured, best and median of 3 (a fresh page each):
// - the model: from the page getting the picked file (the input's change
//   event) to its header (the summary) and its first nodes drawn; of which
//   reading it into the module (its structure, on demand; until the file
//   is listed);
// - the tensor: from the page getting it to its grid of values drawn;
// - Netron (`netron FILE --port P`, the page opened on it): from opening
//   the page to the first node of its graph drawn (a timeout says so).
// Run from the repository, with tests/browser/node_modules installed.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.resolve('tests/browser/package.json'));
const { chromium } = require('playwright-core');
const [model, tensor, siteArg] = process.argv.slice(2);
if (!model || !tensor) {
  console.error('usage: node scripts/bench_static_page.mjs MODEL.onnx TENSOR.pb [SITE_DIR]');
  process.exit(2);
}
const site = path.resolve(siteArg || 'target/site');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.wasm': 'application/wasm' };
const files = http.createServer((req, res) => {
  let p = decodeURIComponent(new URL(req.url, 'http://site').pathname);
  if (p === '/') p = '/index.html';
  const file = path.join(site, path.normalize(p));
  readFile(file, (err, data) => {
    if (err || !file.startsWith(site + path.sep)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
    res.end(data);
  });
});
await new Promise((ok) => files.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${files.address().port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0].toFixed(0)} ms best, ${s[Math.floor(s.length / 2)].toFixed(0)} ms median of ${s.length}`;
};

// Picks `file` on a fresh page; the time until `ready` resolves, and the
// time until it is in the module's memory (listed).
async function pick(file, ready) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(origin + '/index.html');
  // The module loaded (in its worker) before the clock starts (the page
  // loads it once).
  await page.evaluate(() => pbdecode.api('/api/files'));
  // The clock starts when the page has the file (the input's change
  // event), not when the test driver begins handing it over.
  await page.evaluate(() => document.querySelector('#picker').addEventListener('change', () => { window.picked = performance.now(); }, true));
  await page.setInputFiles('#picker', file);
  // Listed once it is in the module's memory.
  await page.waitForSelector('#files li[data-key^="u"]', { timeout: 120000 });
  const copied = await page.evaluate(() => performance.now() - window.picked);
  await ready(page);
  const total = await page.evaluate(() => performance.now() - window.picked);
  await context.close();
  return { total, copied };
}

const runs = { model: [], copy: [], tensor: [] };
for (let i = 0; i < 3; i++) {
  const m = await pick(model, async (page) => {
    await page.waitForSelector('#summary', { timeout: 120000 });
    await page.waitForSelector('.nodes .node', { timeout: 120000 });
  });
  runs.model.push(m.total);
  runs.copy.push(m.copied);
  const t = await pick(tensor, (page) => page.waitForSelector('#grid td', { timeout: 120000 }));
  runs.tensor.push(t.total);
}
console.log(`static page, ${path.basename(model)}: header and first nodes in ${stats(runs.model)} (of which reading it into the module: ${stats(runs.copy)})`);
console.log(`static page, ${path.basename(tensor)}: grid of values in ${stats(runs.tensor)}`);

// Netron on the same files: its own server, its page (every request
// outside the machine refused) timed to the first node of the graph drawn.
async function netron(file) {
  if (!process.env.NETRON) return 'not run (NETRON=path/to/netron)';
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proc = spawn(process.env.NETRON, [file, '--port', String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/`;
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.route('**/*', (r) => (r.request().url().startsWith(url) ? r.continue() : r.abort()));
  try {
    const page = await context.newPage();
    // Its server loads the file first: wait until it answers.
    while (!(await page.goto(url).then(() => true, () => false))) await new Promise((ok) => setTimeout(ok, 500));
    const times = [];
    for (let i = 0; i < 3; i++) {
      const t = Date.now();
      await page.goto(url);
      // Its consent to usage reports is asked on every load here: accepted
      // as soon as it shows (a click, no wait).
      const accept = page.getByText('Accept', { exact: true });
      const node = page.locator('.node').first();
      try {
        await accept.or(node).first().waitFor({ timeout: 300000 });
        if (await accept.isVisible()) await accept.click();
        await node.waitFor({ timeout: 300000 });
      } catch {
        // What it shows instead, to look at.
        const shot = path.resolve('target', `bench-netron-${path.basename(file)}.png`);
        await page.screenshot({ path: shot });
        return `no node drawn within 300 s (its page then: ${shot})`;
      }
      times.push(Date.now() - t);
    }
    return stats(times);
  } finally {
    await context.close();
    proc.kill();
  }
}
console.log(`Netron, ${path.basename(model)}: first node drawn in ${await netron(model)}`);
console.log(`Netron, ${path.basename(tensor)}: first node drawn in ${await netron(tensor)}`);
await browser.close();
files.close();
