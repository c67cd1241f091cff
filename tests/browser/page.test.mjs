// The explorer's search, hints, value grid, layout and numbers, in
// headless Chromium (run by tests/browser/run.sh). Every step waits for
// what it checks; screenshots in target/browser-screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, dropBytes, shot, convModel, field, msg } from './harness.mjs';

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
const results = () => page.$$eval('#results .r', (rs) => rs.map((r) => ({ kind: r.dataset.kind, name: r.dataset.name, line: r.textContent, file: r.dataset.file })));
const groupCount = (kind) => page.$eval(`#results .group[data-kind="${kind}"] .count`, (c) => c.textContent).catch(() => null);
const shownIn = (kind) => page.locator(`#results .group[data-kind="${kind}"] .r`).count();

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
    assert.ok(!before.some((b) => b.line === r.line), `${r.line} is squeezenet's`);
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

test('search finds nodes by op type, intermediate values, initializers and attributes, by kind with counts and more on demand', async () => {
  await dropBytes(page, 'yolo_like_60.onnx', convModel(60));
  await page.fill('#search', 'Conv');
  await page.waitForSelector('#results .group');
  // Every kind is counted, not cut at the first hundred tensors.
  assert.equal(await groupCount('op'), '60');
  assert.equal(await groupCount('node'), '60');
  assert.equal(await groupCount('initializer'), '120');
  assert.equal(await groupCount('value'), '60');
  assert.equal(await shownIn('op'), 8);
  await shot(page, 'p03-search-by-kind');
  // More of a kind on demand.
  const more = page.locator('#results .group[data-kind="op"] .more');
  assert.match(await more.innerText(), /show more \(52 left\)/);
  await more.click();
  assert.equal(await shownIn('op'), 58);
  // A node found by its op type opens in the graph, lit.
  await page.locator('#results .group[data-kind="op"] .r').nth(40).click();
  await page.waitForSelector('.node.hit[data-i="40"]');
  await shot(page, 'p04-search-op-node');
  // An intermediate value, found by its name, shows the node that makes it.
  await page.fill('#search', '/model.7/conv/Conv_output_0');
  await page.waitForSelector('#results .group[data-kind="value"]');
  assert.equal(await groupCount('value'), '1');
  await page.locator('#results .group[data-kind="value"] .r').click();
  await page.waitForSelector('.node.hit[data-i="7"]');
  // Attributes, by name or value.
  await page.fill('#search', 'kernel_shape');
  await page.waitForSelector('#results .group[data-kind="attribute"]');
  assert.equal(await groupCount('attribute'), '60');
  await shot(page, 'p05-search-attribute');
  await page.fill('#search', '');
});

test('a well-known file that is not protobuf gets the command line\'s hint first, not a wire error', async () => {
  const npy = Buffer.concat([Buffer.from('\x93NUMPY\x01\x00v\x00', 'latin1'), Buffer.from("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }".padEnd(118) + '\n'), Buffer.alloc(12)]);
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01]);
  const json = Buffer.from('{"model": "yolo", "classes": [1, 2, 3]}\n');
  for (const [name, bytes, want] of [['weights.npy', npy, /^This looks like a NumPy \.npy array: read it with numpy\.load$/], ['cat.jpg', jpeg, /^This looks like a JPEG image/], ['meta.json', json, /^This looks like a JSON document/]]) {
    await dropBytes(page, name, bytes);
    await page.waitForSelector('#view > :first-child');
    // The hint is the first thing the page shows of the file.
    const first = await page.$eval('#view', (v) => v.firstElementChild.id);
    assert.equal(first, 'looks-like', name);
    assert.match(await page.locator('#looks-like').innerText(), want);
    await shot(page, 'p06-hint-' + name.replace('.', '-'));
  }
  // A protobuf file has none.
  await page.evaluate(() => { location.hash = '#f=' + encodeURIComponent('0/example_x_3x4x5.pb'); });
  await page.waitForSelector('#grid td');
  assert.equal(await page.locator('#looks-like').count(), 0);
});

// An ONNX tensor file: FLOAT values 0, 1, 2, ... of shape `dims`.
function floatTensor(dims, name = 'x') {
  const n = dims.reduce((a, b) => a * b, 1);
  const raw = Buffer.alloc(4 * n);
  for (let i = 0; i < n; i++) raw.writeFloatLE(i, 4 * i);
  return Uint8Array.from(msg(...dims.map((d) => field(1, d)), field(2, 1), field(8, name), field(9, [...raw])));
}

test('a small tensor is shown whole: every 2-D slice at once under its index; a big one a window at a time', async () => {
  await page.evaluate(() => { location.hash = '#f=' + encodeURIComponent('0/example_x_3x4x5.pb'); });
  await page.waitForSelector('#grid td');
  // (The grid is drawn in one step.)
  assert.equal(await page.locator('#grid td').count(), 60);
  assert.deepEqual(await page.$$eval('#grid tr.slice', (rs) => rs.map((r) => r.textContent)), ['[0, :, :]', '[1, :, :]', '[2, :, :]']);
  assert.equal(await page.locator('#grid-status').innerText().then((t) => /all 60 values: 3 slices of 4 × 5/.test(t)), true);
  // No axis selector and no paging: nothing is hidden.
  assert.equal(await page.locator('.lead input').count(), 0);
  assert.doesNotMatch(await page.locator('.gridbar').innerText(), /null/);
  // The last value is in the last slice; the keys run on across slices.
  assert.equal(await page.locator('#grid tbody[data-slice="2"] td[data-r="3"][data-c="4"]').innerText(), '-0.36274117');
  await page.click('#last');
  await page.waitForFunction(() => /\[2, 3, 4\]/.test(document.querySelector('#grid-status').textContent));
  await page.focus('#grid');
  for (let k = 0; k < 4; k++) await page.keyboard.press('ArrowUp');
  assert.match(await page.locator('#grid-status').innerText(), /^\[1, 3, 4\]/);
  await shot(page, 'p07-small-tensor-whole');
  // 5,000 values: the paged grid, a window and the axis selector.
  await dropBytes(page, 'x_2x50x50.pb', floatTensor([2, 50, 50]));
  await page.waitForSelector('#grid td');
  assert.equal(await page.locator('.lead input').count(), 1);
  assert.equal(await page.locator('#grid tr.slice').count(), 0);
  assert.ok(await page.locator('#grid td').count() < 5000);
  await shot(page, 'p08-big-tensor-window');
});

// Cards of the open file's view that reach past the right edge of the
// window, and elements whose visible part reaches past their card's (what
// a scrolling box inside the card clips is not visible; the page's own
// scrolling does not count).
const overflowing = () => page.evaluate(() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${String(el.className).replace(/ /g, '.')}`;
  for (const card of document.querySelectorAll('#view .card')) {
    const edge = card.getBoundingClientRect().right;
    if (edge > width + 0.5) out.push(`${name(card)} right ${Math.round(edge)} > window ${width}`);
    for (const el of card.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      let right = r.right;
      for (let a = el.parentElement; a && a !== card; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') right = Math.min(right, a.getBoundingClientRect().right);
      }
      if (right > edge + 0.5) out.push(`${name(el)} right ${Math.round(right)} > its card's ${Math.round(edge)}`);
    }
  }
  return out.slice(0, 5);
});

// A TensorFlow GraphDef of one node whose name and attribute are long
// words (paths, say): nothing to break the line at.
const longAttrGraph = () => Uint8Array.from(field(1, msg(field(1, 'load/' + 'restore_'.repeat(30)), field(2, 'Identity'),
  field(5, msg(field(1, '_path'), field(2, field(2, 'checkpoints/' + 'x'.repeat(400))))))));

for (const width of [1024, 1280, 1920]) {
  test(`at ${width} px wide every card of a tensor, a model and a GraphDef fits the window`, async () => {
    await page.setViewportSize({ width, height: 900 });
    const views = [
      ['0/images/gradient_rgb_3x32x32.pb', '#picture[data-ready="1"]'],
      ['0/schemaless/sample/light_light_squeezenet.onnx', '#initializers tr.click'],
      ['0/tf/graph_all_forms.pb', '#tensor-table tr.click'],
    ];
    for (const [key, ready] of views) {
      await page.evaluate((key) => { location.hash = '#f=' + encodeURIComponent(key); }, key);
      await page.waitForSelector(ready);
      if (key.endsWith('3x32x32.pb')) await page.waitForSelector('#stats [data-stat="max"]');
      await shot(page, `p09-layout-${width}-${key.split('/').pop().replace(/\./g, '-')}`);
      assert.deepEqual(await overflowing(), [], `${key} at ${width} px`);
    }
    await dropBytes(page, 'long_attr.pb', longAttrGraph());
    await page.waitForSelector('tr.node');
    await shot(page, `p09-layout-${width}-long-attr`);
    assert.deepEqual(await overflowing(), [], `long_attr.pb at ${width} px`);
  });
}

test('numbers and names as the command line writes them; a file dropped twice is listed once; the JSON tab opens deep enough to see', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  // Counts with thousands separators.
  await dropBytes(page, 'x_3000.pb', floatTensor([3000]));
  await page.waitForSelector('#stats [data-stat="count"]');
  assert.equal(await page.locator('#count b').innerText(), '3,000');
  assert.equal(await page.locator('#stats [data-stat="count"]').innerText(), '3,000');
  // The mean and std of the text view.
  await page.evaluate(() => { location.hash = '#f=' + encodeURIComponent('0/example_x_3x4x5.pb'); });
  await page.waitForSelector('#stats [data-stat="std"]');
  const mean = await page.locator('#stats [data-stat="mean"]').innerText();
  const std = await page.locator('#stats [data-stat="std"]').innerText();
  await shot(page, 'p10-stats-digits');
  await page.click('.tabs button[data-tab="text"]');
  await page.waitForFunction(() => /mean/.test((document.querySelector('#text-view') || {}).textContent || ''));
  const m = (await page.locator('#text-view').innerText()).match(/mean (\S+)\s+std (\S+)/);
  assert.deepEqual([mean, std], [m[1], m[2]]);
  // The JSON tab opens down to the tensor's fields and their lists.
  await page.click('.tabs button[data-tab="tree"]');
  await page.waitForSelector('#json-tree');
  const open = await page.$$eval('#json-tree details[open] > summary', (s) => s.map((x) => x.textContent));
  assert.ok(open.some((t) => /^dims: \[3\]/.test(t)), open.join(' | '));
  await shot(page, 'p11-json-tab');
  // A long name is cut in the middle: its start and its end stay, whole.
  const name = 'image_rgb_224x224_normalized_batch_uint8.pb.expect.json';
  const bytes = Buffer.from('{"inputs": [1, 2, 3]}\n');
  await dropBytes(page, name, bytes, 1700000000000);
  const item = page.locator(`#files li[title="${name}"] .n`);
  const shown = await item.innerText();
  assert.match(shown, /^image_r.*…[^…]*\.pb\.expect\.json$/);
  assert.ok(await item.evaluate((el) => el.scrollWidth <= el.clientWidth), shown);
  // So is a search result's.
  const long = 'encoder/layers.11/self_attention/query_key_value/weight_quantized_scale';
  await dropBytes(page, 'scale.pb', floatTensor([2], long));
  await page.waitForSelector('#grid td');
  await page.fill('#search', 'quantized');
  await page.waitForSelector('#results .r');
  const fitted = await page.$$eval('#results .r .n, #results .r .d', (els) => els.map((el) => [el.textContent, el.dataset.full, el.scrollWidth <= el.clientWidth]));
  assert.ok(fitted.some(([t]) => t.includes('…')), JSON.stringify(fitted));
  for (const [t, full, fits] of fitted) {
    assert.ok(fits, t);
    if (t !== full) assert.ok(t.includes('…') && full.endsWith(t.split('…')[1]) && full.startsWith(t.split('…')[0]), `${t} of ${full}`);
  }
  await shot(page, 'p13-result-names');
  await page.fill('#search', '');
  // The same file dropped again: listed once, opened.
  await page.evaluate(() => { location.hash = '#f=' + encodeURIComponent('0/example_x_3x4x5.pb'); });
  await page.waitForSelector('#grid td');
  await dropBytes(page, name, bytes, 1700000000000);
  assert.equal(await page.locator(`#files li[title="${name}"]`).count(), 1);
  await shot(page, 'p12-names');
});
