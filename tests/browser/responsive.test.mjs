// The page stays responsive while its back end computes the statistics of
// a 256 MiB tensor (run with both back ends: the server, and the static
// site's WebAssembly module, which works in a Web Worker): input typed
// into the search box is handled, its files filtered, before the
// statistics arrive. Ordering only: no clock is read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, shot } from './harness.mjs';

let env, page;
before(async () => {
  env = await start({ width: 1400, height: 900 });
  page = env.page;
});
after(async () => { if (env) await env.stop(); });

test('input is handled while the statistics of a 256 MiB tensor are computed', { timeout: 600000 }, async () => {
  // A TensorProto of 64 Mi floats in raw_data, made in the page and
  // dropped on it as a user drops a file.
  await page.evaluate(() => {
    const varint = (n) => { const out = []; do { out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0)); n = Math.floor(n / 128); } while (n); return out; };
    const count = 64 << 20;
    const values = new Float32Array(count);
    for (let i = 0; i < count; i++) values[i] = (i % 1000) / 8;
    const head = [0x08, ...varint(count), 0x10, 1, 0x42, 3, 98, 105, 103, 0x4a, ...varint(values.byteLength)];
    const file = new File([new Uint8Array(head), values], 'big_256mib.pb');
    const dt = new DataTransfer();
    dt.items.add(file);
    document.querySelector('#main').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForSelector('#grid td[data-r="0"][data-c="0"]', { timeout: 300000 });
  // The values are there; the statistics are being computed.
  assert.equal(await page.locator('#grid td[data-r="0"][data-c="1"]').innerText(), '0.125');
  const order = await page.evaluate(() => {
    window.order = [];
    const stats = document.querySelector('#stats');
    const arrived = () => stats.querySelector('[data-stat="count"]');
    new MutationObserver(() => { if (arrived() && !order.includes('statistics')) order.push('statistics'); }).observe(stats, { childList: true, subtree: true });
    // After the page's own handler of the search box (registered first).
    document.querySelector('#search').addEventListener('input', (e) => order.push(`input ${e.target.value}: ${document.querySelectorAll('#files li[data-key]').length} files`));
    return { waiting: Boolean(stats.querySelector('.spin')) && !arrived(), files: document.querySelectorAll('#files li[data-key]').length };
  });
  assert.ok(order.waiting, 'the statistics came before the input was typed');
  assert.ok(order.files > 100);
  await page.type('#search', '§§');
  await shot(page, 'r01-typed-while-computing');
  await page.waitForSelector('#stats [data-stat="count"]', { timeout: 300000 });
  const log = await page.evaluate(() => window.order);
  // Each key handled (the list filtered to nothing), then the statistics.
  assert.deepEqual(log, ['input §: 0 files', 'input §§: 0 files', 'statistics']);
  assert.equal(await page.locator('#stats [data-stat="count"]').innerText(), '67,108,864');
  assert.equal(await page.locator('#stats [data-stat="max"]').innerText(), '124.875');
  await shot(page, 'r02-statistics');
  await page.fill('#search', '');
  await page.locator('#files li[data-key^="u"] .x').click();
});
