// The explorer's pictures of weights (kernels as their filters, matrices
// as heat maps, a big 3-D tensor by the slice the grid shows), its search
// inside subgraphs and functions, and the top bar's long file name, in
// headless Chromium (run by tests/browser/run.sh). Screenshots in
// target/browser-screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, dropBytes, shot, field, msg } from './harness.mjs';

let env, page;
before(async () => {
  env = await start();
  page = env.page;
});
after(async () => { if (env) await env.stop(); });

const FLOAT = 1;
const floats = (n, f) => [...new Uint8Array(Float32Array.from({ length: n }, (_, k) => f(k)).buffer)];
// A smooth pattern of signed weights, different in every filter.
const wave = (k) => Math.sin(k * 0.37) * Math.cos(k * 0.05);
// An onnx.TensorProto of FLOAT raw data.
const onnxTensor = (name, dims, f) => msg(...dims.map((d) => field(1, d)), field(2, FLOAT), field(8, name),
  field(9, floats(dims.reduce((a, b) => a * b, 1), f)));
const onnxModel = (graph, ...rest) => Uint8Array.from(msg(field(1, 8), field(2, 'pbdecode-test'), field(7, graph), field(8, msg(field(2, 17))), ...rest));
// A tensorflow.GraphDef of one Const node holding a FLOAT tensor.
const tfConst = (name, dims, f) => {
  const shape = msg(...dims.map((d) => field(2, msg(field(1, d)))));
  const tensor = msg(field(1, FLOAT), field(2, shape), field(4, floats(dims.reduce((a, b) => a * b, 1), f)));
  const attr = field(5, msg(field(1, 'value'), field(2, msg(field(8, tensor)))));
  return Uint8Array.from(field(1, msg(field(1, name), field(2, 'Const'), attr)));
};

const openByName = async (kind, name) => {
  await page.fill('#search', name);
  await page.click(`#results .r[data-kind="${kind}"][data-name="${name}"]`);
  await page.fill('#search', '');
};
const text = (sel) => page.locator(sel).innerText();
const pictureSize = () => page.$eval('#picture', (img) => [img.naturalWidth, img.naturalHeight]);
// Hovers the picture's pixel (x, y) and returns the tip.
async function hoverPixel(x, y) {
  const [w, h] = await pictureSize();
  const box = await page.locator('#picture').boundingBox();
  await page.mouse.move(box.x + (x + 0.5) * box.width / w, box.y + (y + 0.5) * box.height / h);
  await page.waitForFunction(() => !document.querySelector('#tip').hidden && /index/.test(document.querySelector('#tip').textContent));
  return text('#tip');
}

test('kernels are drawn as their filters and matrices as heat maps, in each format\'s axis order', async () => {
  const graph = msg(field(2, 'g'),
    field(5, onnxTensor('conv_rgb.weight', [8, 3, 3, 3], wave)),
    field(5, onnxTensor('conv.weight', [4, 6, 3, 3], wave)),
    field(5, onnxTensor('fc.weight', [16, 32], wave)),
    field(5, onnxTensor('stack', [5, 40, 40], (k) => Math.sin(k / 40) + (k % 40) / 40)));
  await dropBytes(page, 'weights.onnx', onnxModel(graph));
  await page.waitForSelector('#initializers');

  // OIHW with 6 in-channels: a row of 6 tiles per output channel.
  await openByName('initializer', 'conv.weight');
  await page.waitForSelector('#picture[data-ready="1"]');
  assert.deepEqual(await pictureSize(), [6 * 4 - 1, 4 * 4 - 1]);
  assert.match(await text('#tensor-head + .chips'), /OIHW, 4 x 6 filters of 3 x 3/);
  // Tile (row 1, column 2), pixel (1, 0): conv.weight[1, 2, 0, 1].
  assert.match(await hoverPixel(2 * 4 + 1, 4), /pixel \(1, 0\) of filter 1, in-channel 2\nindex \[1, 2, 0, 1\]/);
  await shot(page, 'w01-onnx-kernel-grid');

  // OIHW with 3 in-channels: one RGB tile per output channel.
  await openByName('initializer', 'conv_rgb.weight');
  await page.waitForSelector('#picture[data-ready="1"]');
  assert.deepEqual(await pictureSize(), [11, 11]);
  assert.match(await text('#tensor-head + .chips'), /OIHW, 8 filters of 3 x 3 RGB in a 3 x 3 grid/);
  await shot(page, 'w02-onnx-kernel-rgb');

  // A 2-D weight: a heat map of its rows and columns.
  await openByName('initializer', 'fc.weight');
  await page.waitForSelector('#picture[data-ready="1"]');
  assert.deepEqual(await pictureSize(), [32, 16]);
  assert.match(await text('#tensor-head + .chips'), /matrix, heat map of 16 rows x 32 columns/);
  assert.match(await hoverPixel(5, 3), /pixel \(5, 3\)\nindex \[3, 5\]/);
  await shot(page, 'w03-matrix-heat-map');

  // A 3-D tensor too big to show whole: the picture is the grid's slice,
  // drawn again when the grid moves to another.
  await openByName('initializer', 'stack');
  await page.waitForSelector('#picture[data-ready="1"][data-slice="0"]');
  assert.deepEqual(await pictureSize(), [40, 40]);
  assert.equal(await page.$eval('.card.pic h3', (el) => el.textContent), 'Picture of [0, :, :]');
  await page.fill('.lead input[data-axis="0"]', '3');
  await page.locator('.lead input[data-axis="0"]').dispatchEvent('change');
  await page.waitForSelector('#picture[data-ready="1"][data-slice="3"]');
  assert.equal(await page.$eval('.card.pic h3', (el) => el.textContent), 'Picture of [3, :, :]');
  assert.match(await hoverPixel(7, 2), /index \[3, 2, 7\]/);
  await shot(page, 'w04-slice-picture');
});

test('a TensorFlow Const kernel is read as [H, W, in, out]: one tile per output channel', async () => {
  await dropBytes(page, 'hwio.pb', tfConst('conv2d/kernel', [3, 3, 3, 8], wave));
  await openByName('initializer', 'conv2d/kernel');
  await page.waitForSelector('#picture[data-ready="1"]');
  // Eight 3 x 3 RGB filters (it used to be three 8 x 3 CHW images).
  assert.deepEqual(await pictureSize(), [11, 11]);
  assert.match(await text('#tensor-head + .chips'), /HWIO, 8 filters of 3 x 3 RGB/);
  // Filter 1 is the second tile of the first row: its pixel (1, 2) is
  // kernel[2, 1, 0, 1] (the first in-channel, red).
  assert.match(await hoverPixel(4 + 1, 2), /of filter 1\nindex \[2, 1, 0, 1\] \(first channel\)/);
  await shot(page, 'w05-tf-hwio-kernel');
});

test('search reaches into subgraphs and functions, names them, and opens their nodes', async () => {
  const node = (ins, outs, name, op, ...attrs) => field(1, msg(...ins.map((x) => field(1, x)), ...outs.map((x) => field(2, x)), field(3, name), field(4, op), ...attrs));
  const valueInfo = (name) => msg(field(1, name), field(2, field(1, msg(field(1, FLOAT)))));
  const branch = (name, inner) => msg(node(['x'], [name + '_y'], inner, 'Relu'), field(2, name), field(12, valueInfo(name + '_y')));
  const ifNode = node(['cond'], ['y'], 'If_0', 'If',
    field(5, msg(field(1, 'then_branch'), field(6, branch('then', 'inner_relu')), field(20, 5))),
    field(5, msg(field(1, 'else_branch'), field(6, branch('else', 'other_relu')), field(20, 5))));
  const filler = Array.from({ length: 40 }, (_, k) => node(['y'], [`pad${k}`], `pad_${k}`, 'Identity'));
  const graph = msg(ifNode, ...filler, field(2, 'main'), field(11, valueInfo('cond')), field(11, valueInfo('x')), field(12, valueInfo('y')));
  const fn = field(25, msg(field(1, 'MyFunc'), field(4, 'a'), field(5, 'b'), field(7, msg(field(1, 'a'), field(2, 'b'), field(3, 'fn_mul'), field(4, 'Mul'))), field(10, 'local')));
  await dropBytes(page, 'subgraphs.onnx', onnxModel(graph, fn));
  await page.waitForSelector('.nodes[data-graph=""]');

  await page.fill('#search', 'relu');
  await page.waitForSelector('#results .group[data-kind="node"]');
  assert.equal(await page.$eval('#results .group[data-kind="node"] .count', (c) => c.textContent), '2');
  assert.equal(await page.$eval('#results .group[data-kind="op"] .count', (c) => c.textContent), '2');
  const inner = page.locator('#results .group[data-kind="node"] .r[data-name="inner_relu"]');
  assert.match(await inner.innerText(), /Relu · in If_0\.then_branch/);
  await shot(page, 'w06-search-subgraph');
  // Values made in a subgraph are found too, named with it.
  await page.fill('#search', '_y');
  assert.match(await page.locator('#results .group[data-kind="value"] .r[data-name="then_y"]').innerText(), /output of inner_relu in If_0\.then_branch/);
  assert.equal(await page.$eval('#results .group[data-kind="value"] .count', (c) => c.textContent), '2');
  await page.fill('#search', 'inner_relu');
  await inner.click();
  // The subgraph opens and its node is lit.
  await page.waitForSelector('details[data-sub="0.0.0/"][open] .node.hit[data-path="0.0.0/0"]');
  assert.match(await text('.node.hit'), /inner_relu/);
  await shot(page, 'w07-subgraph-node-lit');

  await page.fill('#search', 'fn_mul');
  const fnHit = page.locator('#results .group[data-kind="node"] .r[data-name="fn_mul"]');
  assert.match(await fnHit.innerText(), /Mul · in function MyFunc/);
  await fnHit.click();
  await page.waitForSelector('details[data-sub="F0/"][open] .node.hit[data-path="F0/0"]');
  await page.fill('#search', '');
  await shot(page, 'w08-function-node-lit');
});

test('the top bar cuts a long file name in the middle and shows it whole in its title', async () => {
  const name = 'a_very_long_model_name_exported_from_a_training_run_with_many_parameters_epoch_0042_final.onnx';
  await page.setViewportSize({ width: 1024, height: 768 });
  await dropBytes(page, name, onnxModel(msg(field(2, 'g'), field(5, onnxTensor('w', [2, 2], wave)))));
  const shown = await text('.crumbs .fname');
  assert.equal(await page.getAttribute('.crumbs .fname', 'title'), name);
  assert.ok(shown.includes('…') && shown.length < name.length, shown);
  assert.ok(name.startsWith(shown.split('…')[0]) && name.endsWith(shown.split('…')[1]), shown);
  assert.ok(shown.endsWith('.onnx'));
  // It fits: nothing of it is hidden.
  assert.ok(await page.$eval('.crumbs .fname', (el) => el.scrollWidth <= el.clientWidth));
  await shot(page, 'w09-long-name');
  await page.setViewportSize({ width: 1400, height: 900 });
});
