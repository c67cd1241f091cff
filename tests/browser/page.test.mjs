// The explorer's search, hints, value grid, layout and numbers, in
// headless Chromium (run by tests/browser/run.sh). Every step waits for
// what it checks; screenshots in target/browser-screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, dropBytes, shot, convModel } from './harness.mjs';

let env, page;
before(async () => {
  env = await start();
  page = env.page;
});
after(async () => { if (env) await env.stop(); });

const openKey = () => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('f');
const openListed = async (key) => {
  await page.click(`#files li[data-key="${key}"]`);
  await page.waitForFunction((key) => document.querySelector(`#files li.active[data-key="${key}"]`) && !document.querySelector('#view .spin'), key);
};
const results = () => page.$$eval('#results .r', (rs) => rs.map((r) => ({ kind: r.querySelector('.k').textContent, name: r.querySelector('.k').nextSibling.textContent, file: r.dataset.file })));

test('search results belong to the open file: another file searches again, and its results open its own items', async () => {
  await openListed('0/schemaless/sample/light_light_squeezenet.onnx');
  await page.waitForSelector('#summary');
  await page.fill('#search', 'conv');
  await page.waitForSelector('#results .r');
  const before = await results();
  assert.ok(before.some((r) => /conv/i.test(r.name)));
  await shot(page, 'p01-search-squeezenet');
  // Another model, dropped: the box lists what it holds, not squeezenet's.
  // (The page searches before it draws the file's name.)
  await dropBytes(page, 'yolo_like.onnx', convModel(3));
  const key = openKey();
  const now = await results();
  assert.ok(now.length > 0);
  for (const r of now) {
    assert.ok(!before.some((b) => b.name === r.name), `${r.name} is squeezenet's`);
    assert.equal(r.file, key);
  }
  await shot(page, 'p02-search-refreshed');
  // A result opens its item in this file: the tensor of that name.
  const t = page.locator('#results .r[data-name^="model."]').first();
  const name = await t.getAttribute('data-name');
  await t.click();
  await page.waitForSelector('#tensor-head h2');
  assert.equal(await page.locator('#tensor-head h2').innerText(), name);
  assert.equal(openKey(), key);
  // A tensor file (opened by its address: the file list is filtered by
  // the search) has nothing named so: nothing of the model is left.
  await page.evaluate(() => { location.hash = '#f=' + encodeURIComponent('0/example_x_3x4x5.pb'); });
  await page.waitForFunction(() => (document.querySelector('.crumbs .fname') || {}).textContent === 'example_x_3x4x5.pb');
  assert.equal((await results()).length, 0);
  await page.fill('#search', '');
});
