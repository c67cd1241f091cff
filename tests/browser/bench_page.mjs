// Benchmark (not a test), run by scripts/bench_explorer.py: times the
// explorer's model page in headless Chromium.
//
//   node tests/browser/bench_page.mjs URL FILE_KEY
import { chromium } from 'playwright-core';

const [url, key] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
await page.goto(url);
await page.waitForSelector('#files li[data-key]');
// The model page, three times (away and back): best and median.
const readies = [];
let fetched = NaN;
let t;
for (let run = 0; run < 3; run++) {
  await page.evaluate(() => { location.hash = ''; });
  await page.waitForSelector('#welcome:not([hidden])');
  await page.evaluate(() => performance.clearResourceTimings());
  t = performance.now();
  await page.evaluate((k) => { location.hash = 'f=' + encodeURIComponent(k); }, key);
  await page.waitForSelector('#summary');
  await page.waitForSelector('#initializers tr.click');
  readies.push(performance.now() - t);
  // Of which: the server's answer (request sent to last byte received).
  fetched = Math.min(Number.isNaN(fetched) ? Infinity : fetched, await page.evaluate(() => {
    const e = performance.getEntriesByType('resource').filter((r) => r.name.includes('/api/open')).pop();
    return e ? e.responseEnd - e.startTime : NaN;
  }));
}
readies.sort((a, b) => a - b);
const ready = readies[0];
const sizes = await page.$$eval('#initializers tr.click td.num', (tds) => tds.map((td) => Number(td.textContent)));
t = performance.now();
await page.locator('#initializers tr.click').nth(sizes.indexOf(Math.max(...sizes))).click();
await page.waitForSelector('#grid td');
const first = performance.now() - t;
const count = Math.max(...sizes);
t = performance.now();
await page.click('#last');
await page.waitForFunction((n) => document.querySelector('#grid-status').textContent.includes(`(flat ${n - 1})`), count);
const last = performance.now() - t;
console.log(`browser: model page drawn in ${ready.toFixed(0)} ms best, ${readies[1].toFixed(0)} ms median of 3 (its JSON fetched in ${fetched.toFixed(0)} ms at best, the rest parsing and drawing); initializer's first values in ${first.toFixed(0)} ms; its last page in ${last.toFixed(0)} ms`);
await browser.close();
