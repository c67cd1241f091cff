// TensorFlow checkpoints in the explorer: a checkpoint's variables listed
// as tensors from its index, each opened with its values in the grid, its
// statistics and its picture; a V1 checkpoint's tensor saved in slices
// assembled. Screenshots in target/browser-screenshots/checkpoints/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { shots as allShots, start, backend } from './harness.mjs';

const shots = path.join(allShots, 'checkpoints');
mkdirSync(shots, { recursive: true });
let page, stop;

before(async () => {
  ({ page, stop } = await start());
});

after(async () => {
  if (stop) await stop();
});

const shot = (name) => page.screenshot({ path: path.join(shots, (backend === 'static' ? 'static-' : '') + name + '.png'), fullPage: true });
const text = (sel) => page.locator(sel).first().innerText();

async function open(key) {
  await page.evaluate((key) => { location.hash = '#f=' + encodeURIComponent(key); }, key);
  await page.waitForSelector('#tensor-table tbody tr');
}

test('a TF 2 checkpoint lists its variables; one opens with its grid, statistics and picture', async () => {
  await open('0/tf-checkpoint/train/ckpt.index');
  const rows = await page.locator('#tensor-table tbody tr').allInnerTexts();
  assert.equal(rows.length, 8);
  assert.match(rows.find((r) => r.startsWith('model/dense/kernel/')), /DT_FLOAT\s+\[4, 3\]\s+12\s+external/);
  await shot('01-checkpoint-overview');
  await page.locator('#tensor-table tr[data-tensor="model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"]').click();
  await page.waitForSelector('#grid td[data-r="0"][data-c="0"]');
  // The kernel's first values, as the command prints them.
  assert.equal(await text('#grid td[data-r="0"][data-c="0"]'), '-0.19876985');
  assert.equal(await text('#grid td[data-r="1"][data-c="2"]'), '-1.1916466');
  await page.waitForSelector('#stats [data-stat="count"]');
  assert.equal(await text('#stats [data-stat="count"]'), '12');
  await page.waitForSelector('#picture[data-ready="1"]');
  await shot('02-checkpoint-kernel');
});

test('a V1 checkpoint\'s tensor saved in slices opens assembled', async () => {
  await open('0/tf-checkpoint/v1_partitioned/model.ckpt');
  const names = await page.locator('#tensor-table tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.tensor));
  assert.deepEqual(names.slice(0, 3), ['p', 'q', 's']);
  assert.equal(names.length, 12);
  // Its values are typed fields of the checkpoint itself.
  assert.match(await page.locator('#tensor-table tr[data-tensor="q"]').innerText(), /DT_INT64\s+\[2, 6\]\s+12\s+typed/);
  await page.locator('#tensor-table tr[data-tensor="q"]').click();
  await page.waitForSelector('#grid td[data-r="1"][data-c="5"]');
  // q[r, c] = 10r + c, from three slices of two columns.
  assert.equal(await text('#grid td[data-r="0"][data-c="3"]'), '3');
  assert.equal(await text('#grid td[data-r="1"][data-c="5"]'), '15');
  await page.waitForSelector('#stats [data-stat="max"]');
  assert.equal(await text('#stats [data-stat="max"]'), '15');
  await shot('03-v1-sliced');
});
