// TensorFlow record files in the explorer: a TFRecord of Examples as a
// table of features with its pictures drawn (a SequenceExample's feature
// lists a step a line), a TF 2 event file's scalars
// as line plots per tag, its histogram and picture, a TF 1 event file, and
// a cut file's fault. Screenshots in target/browser-screenshots/records/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { shots as allShots, start } from './harness.mjs';

const shots = path.join(allShots, 'records');
mkdirSync(shots, { recursive: true });
let page, stop;

before(async () => {
  ({ page, stop } = await start());
});

after(async () => {
  if (stop) await stop();
});

async function open(key) {
  await page.evaluate((key) => { location.hash = '#f=' + encodeURIComponent(key); }, key);
  await page.waitForSelector('#records-summary');
}
const shot = (name) => page.screenshot({ path: path.join(shots, name + '.png'), fullPage: true });

test('a TFRecord of Examples: the feature schema and a table of features with pictures drawn', async () => {
  await open('0/tf-record/examples.tfrecord');
  assert.equal(await page.locator('#records-summary [data-key="records"]').innerText(), '4');
  assert.match(await page.locator('#records-summary [data-key="payload_types"]').innerText(), /tensorflow\.Example 4/);
  const schema = await page.locator('#feature-schema tbody tr').allInnerTexts();
  assert.equal(schema.length, 5);
  assert.match(schema.find((r) => r.startsWith('weights')), /float\s+4\s+1/);
  // Four records, each with its picture decoded by the browser (8 x 8).
  assert.equal(await page.locator('#examples tbody tr').count(), 4);
  await page.waitForFunction(() => [...document.querySelectorAll('#examples img.feature-picture')].every((i) => i.complete && i.naturalWidth === 8));
  assert.equal(await page.locator('#examples img.feature-picture').count(), 4);
  const row2 = await page.locator('#examples tr[data-record="2"]').innerText();
  assert.match(row2, /^2\s+"picture 2"\s/);
  assert.match(row2, /—/, 'record 2 has no weights');
  await shot('01-examples');
});

test('SequenceExamples: context features, then a column per feature list, a line per step with its pictures drawn', async () => {
  await open('0/tf-record/sequence_examples.tfrecord');
  const heads = await page.locator('#examples thead th').allInnerTexts();
  assert.deepEqual(heads, ['#', 'id', 'length', 'frames (list)', 'images (list)', 'tokens (list)']);
  const row1 = page.locator('#examples tr[data-record="1"]');
  const images = row1.locator('td').nth(4);
  // Record 1 has 3 steps of pictures, two at step 1: 4 pictures (6 x 6).
  assert.equal(await images.locator('.step').count(), 3);
  assert.deepEqual(await images.locator('.step').evaluateAll((ss) => ss.map((s) => s.querySelectorAll('img.feature-picture').length)), [1, 2, 1]);
  await page.waitForFunction(() => [...document.querySelectorAll('#examples img.feature-picture')].every((i) => i.complete && i.naturalWidth === 6));
  assert.equal(await page.locator('#examples img.feature-picture').count(), 7);
  assert.match(await row1.locator('td').nth(3).innerText(), /\[2\]\s+float\[2\] \[2, 1\]/);
  assert.match(await row1.locator('td').nth(5).innerText(), /^\[0\]\s+int64\[1\] \[1\]\s+\[1\]\s+int64\[1\] \[11\]\s+\[2\]\s+int64\[1\] \[21\]$/);
  await shot('05-sequence-examples');
});

test('a TF 2 event file: a line plot per scalar tag, the histogram and the picture', async () => {
  await open('0/tf-record/tf2.tfevents');
  const tags = await page.locator('#tags tbody tr').allInnerTexts();
  assert.equal(tags.length, 5);
  assert.match(tags[0], /loss\s+scalars\s+5\s+0\.\.4\s+0\.2/);
  await page.waitForSelector('#plots figure');
  const kinds = await page.locator('#plots figure').evaluateAll((fs) => fs.map((f) => f.dataset.kind + ':' + f.querySelector('figcaption').textContent));
  assert.deepEqual(kinds, ['scalar:loss (5 steps)', 'scalar:accuracy (5 steps)', 'histogram:weights at step 2 (6 buckets)', 'image:sample at step 4']);
  // The loss line falls from the first step to the last: its first point
  // is drawn higher (a smaller y) than its last.
  const ys = await page.locator('#plots canvas[data-tag="loss"]').evaluate((c) => {
    const g = c.getContext('2d');
    const column = (x) => { for (let y = 0; y < c.height; y++) { const p = g.getImageData(x, y, 1, 1).data; if (p[2] > 200 && p[0] < 80) return y; } return -1; };
    return [column(35), column(c.width - 35)];
  });
  assert.ok(ys[0] >= 0 && ys[1] > ys[0], JSON.stringify(ys));
  await page.waitForFunction(() => { const i = document.querySelector('#plots img.event-picture'); return i && i.complete && i.naturalWidth === 8; });
  await shot('02-tf2-events');
});

test('a TF 1 event file and a cut file', async () => {
  await open('0/tf-record/tf1.tfevents');
  await page.waitForSelector('#plots figure');
  const kinds = await page.locator('#plots figure').evaluateAll((fs) => fs.map((f) => f.dataset.kind));
  assert.deepEqual(kinds, ['scalar', 'histogram', 'image']);
  await shot('03-tf1-events');
  await open('0/tf-record/cut.tfrecord');
  assert.match(await page.locator('#error [data-check]').innerText(), /record-cut check failed/);
  assert.equal(await page.locator('#examples tbody tr').count(), 3);
  await shot('04-cut');
});
