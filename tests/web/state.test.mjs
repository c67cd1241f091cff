// web/state.js: the page's state is declared in one place (a field not
// declared is an error), its watchers are told once per batch of updates
// of the fields they watch, and the address says what a bookmark brings
// back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressOf, parseAddress, redraw, state, update, watch } from '../../web/state.js';

const settled = () => new Promise((r) => setTimeout(r, 0));

test('the state has its declared fields and no others', () => {
  assert.ok(Object.isSealed(state));
  for (const k of ['files', 'open', 'key', 'as', 'tab', 'tensorIndex', 'at', 'graphId', 'graphNode', 'sideOpen']) assert.ok(Object.hasOwn(state, k), k);
  assert.throws(() => update({ graphZoom: 2 }), /no field graphZoom/);
  assert.throws(() => { state.somethingNew = 1; }, TypeError);
  assert.equal(state.tab, 'overview');
});

test('watchers run once per batch, for the fields they watch, after the change', async () => {
  const seen = [];
  watch(['tab', 'key'], (s, changed) => seen.push([s.tab, s.key, [...changed].sort().join(',')]));
  const others = [];
  watch(['files'], () => others.push('files'));
  update({ tab: 'graph' });
  update({ key: '0/a.onnx' });
  update({ tab: 'graph' });
  assert.deepEqual(seen, [], 'not before the batch ends');
  await settled();
  assert.deepEqual(seen, [['graph', '0/a.onnx', 'key,tab']]);
  assert.deepEqual(others, []);
  // The same value again is no change; redraw asks anyway.
  update({ tab: 'graph' });
  await settled();
  assert.equal(seen.length, 1);
  redraw('files');
  redraw('files');
  await settled();
  assert.deepEqual(others, ['files']);
  update({ tab: 'overview', key: null });
  await settled();
});

test('an address names the file, format, tab, tensor, element, graph and node', () => {
  assert.deepEqual(parseAddress('#f=0%2Fa.onnx&tab=graph&g=2&n=7'),
    { f: '0/a.onnx', as: 'auto', tab: 'graph', t: null, at: null, hex: null, g: 2, n: 7 });
  assert.deepEqual(parseAddress(''), { f: null, as: 'auto', tab: 'overview', t: null, at: null, hex: null, g: null, n: null });
  // A part that is not a number is not there.
  assert.equal(parseAddress('#f=x&t=abc&at=').t, null);
  assert.equal(parseAddress('#f=x&at=').at, null);
  const here = parseAddress('#f=0%2Fa.onnx&tab=graph&g=2&n=7');
  // Defaults left out; the graph and node kept only in the Graph tab of the same file.
  assert.equal(addressOf(here, {}), '#f=0%2Fa.onnx&tab=graph&g=2&n=7');
  assert.equal(addressOf(here, { tab: 'tensor', t: 3 }), '#f=0%2Fa.onnx&tab=tensor&t=3');
  assert.equal(addressOf(here, { f: '0/b.onnx' }), '#f=0%2Fb.onnx&tab=graph');
  assert.equal(addressOf(here, { as: 'onnx-model', tab: 'overview', g: null, n: null }), '#f=0%2Fa.onnx&as=onnx-model');
  // What it writes reads back the same.
  const next = addressOf(here, { tab: 'tensor', t: 0, at: 12, hex: 4096 });
  assert.deepEqual(parseAddress(next), { f: '0/a.onnx', as: 'auto', tab: 'tensor', t: 0, at: 12, hex: 4096, g: null, n: null });
});
