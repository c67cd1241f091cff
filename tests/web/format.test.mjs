// web/format.js: the text the page writes itself (counts, sizes, names
// cut to a width, the compact forms of ONNX and TensorFlow types and
// attributes, a schemaless field's line), and JSON read with 64-bit
// integers kept exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  attrText, attrValueText, bytesText, fieldText, grouped, hex8, parseJSON, pictureURI, shortName, show, tfAttr, tfShape, typeShape, typeText, utf8OrBase64,
} from '../../web/format.js';

test('JSON: integers past 2^53 kept as the text the server wrote, the others as numbers', () => {
  // Chromium reads a number's source text; node 20 with
  // --harmony-json-parse-with-source (as .ci/run runs these tests).
  let source = null;
  JSON.parse('1', (k, v, ctx) => { source = ctx && ctx.source; return v; });
  assert.equal(source, '1', 'JSON.parse gives no source text: run node with --harmony-json-parse-with-source');
  const v = parseJSON('{"a": 9007199254740993, "b": 12, "c": -9223372036854775808, "d": 1.5, "e": "1234567890123456789"}');
  assert.deepEqual(v, { a: '9007199254740993', b: 12, c: '-9223372036854775808', d: 1.5, e: '1234567890123456789' });
  assert.deepEqual(parseJSON('[1,2,3]'), [1, 2, 3]);
});

test('counts grouped as the command line groups them, past 2^53 too', () => {
  assert.equal(grouped(0), '0');
  assert.equal(grouped(999), '999');
  assert.equal(grouped(67108864), '67,108,864');
  assert.equal(grouped(-1234567), '-1,234,567');
  assert.equal(grouped('9007199254740993'), '9,007,199,254,740,993');
  assert.equal(grouped(1.5), '1.5');
  assert.equal(grouped('NaN'), 'NaN');
  assert.equal(show('x'), 'x');
  assert.equal(show([1, 'a']), '[1,"a"]');
});

test('sizes and offsets', () => {
  assert.equal(bytesText(0), '0 B');
  assert.equal(bytesText(1023), '1023 B');
  assert.equal(bytesText(1024), '1.0 KiB');
  assert.equal(bytesText(256 << 20), '256 MiB');
  assert.equal(bytesText(5 * 2 ** 40), '5.0 TiB');
  assert.equal(bytesText(2 ** 52), '4096 TiB');
  assert.equal(hex8(255), '0xff');
});

test('names cut in the middle keep their start and end, whole characters', () => {
  const name = 'image_rgb_32x32_uint8_input_0.pb.expect.json';
  assert.equal(shortName(name, 100), name);
  const cut = shortName(name, 20);
  assert.equal([...cut].length, 20);
  assert.ok(cut.startsWith('image_') && cut.endsWith('.expect.json') && cut.includes('…'), cut);
  assert.equal([...shortName('😀'.repeat(40), 10)].length, 10);
});

test('ONNX types and attributes, compactly', () => {
  assert.equal(typeText({ tensor_type: { elem_type: 'FLOAT', shape: { dim: [{ dim_value: 1 }, { dim_param: 'N' }, {}] } } }), 'FLOAT[1, N, ?]');
  assert.equal(typeText({ sequence_type: { elem_type: { tensor_type: { elem_type: 'INT64' } } } }), 'seq(INT64)');
  assert.equal(typeText({ map_type: { key_type: 'STRING', value_type: { tensor_type: { elem_type: 'FLOAT' } } } }), 'map(STRING, FLOAT)');
  assert.equal(typeText({ optional_type: { elem_type: { sparse_tensor_type: { elem_type: 'FLOAT' } } } }), 'optional(sparse(FLOAT))');
  assert.equal(typeText(null), '?');
  assert.equal(attrText({ name: 'kernel_shape', ints: [3, 3] }), 'kernel_shape=[3,3]');
  assert.equal(attrText({ name: 'value', t: {} }), 'value=tensor');
  assert.equal(attrText({ name: 'alpha', ref_attr_name: 'a' }), 'alpha=$a');
  assert.equal(attrValueText({ name: 'axis', text: 'axis=1' }), '1');
  assert.equal(attrValueText({ name: 'axis', text: 'other' }), 'other');
  assert.equal(typeShape({ type: 'FLOAT', shape: '1x3x224x224' }), 'FLOAT 1x3x224x224');
  assert.equal(typeShape({ shape: '4' }), '4');
  assert.equal(typeShape(null), '');
});

test('TensorFlow shapes and attributes, as the text view writes them', () => {
  assert.equal(tfShape({ dim: [{ size: 2 }, { size: -1 }, {}] }), '[2, ?, 0]');
  assert.equal(tfShape({ unknown_rank: true }), '<unknown rank>');
  assert.equal(tfAttr({ type: 'DT_FLOAT' }), 'DT_FLOAT');
  assert.equal(tfAttr({ list: { i: [1, 2] } }), '[1, 2]');
  assert.equal(tfAttr({ s: btoa('VALID') }), '"VALID"');
  assert.equal(tfAttr({ s: btoa('\xff\xfe') }), 'b64:' + btoa('\xff\xfe'));
  assert.equal(tfAttr({ tensor: { dtype: 'DT_INT32', tensor_shape: { dim: [{ size: 3 }] } } }), 'tensor DT_INT32 [3]');
  assert.equal(tfAttr({ func: { name: 'f', attr: { T: {} } } }), 'f{…}');
  assert.equal(utf8OrBase64(Buffer.from('名').toString('base64')), '"名"');
});

test('pictures in bytes, by their signature', () => {
  assert.match(pictureURI('iVBORw0KGgoAAA'), /^data:image\/png;base64,/);
  assert.match(pictureURI('/9j/4AAQ'), /^data:image\/jpeg;base64,/);
  assert.equal(pictureURI('AAAA'), null);
  assert.equal(pictureURI(12), null);
});

test('a schemaless field\'s line: the value, a packed list\'s first 8, the other readings', () => {
  assert.equal(fieldText({ kind: 'varint', value: 150, zigzag: 75 }), '150  (sint 75)');
  assert.equal(fieldText({ kind: 'string', value: 'a"b' }), '"a\\"b"');
  assert.equal(fieldText({ kind: 'packed', value: [1, 2, 3, 4, 5, 6, 7, 8], count: 10, as: 'varints' }), '10 varints [1, 2, 3, 4, 5, 6, 7, 8, …]');
  assert.equal(fieldText({ kind: 'bytes', value: 'AAEC', cut: 300 }), 'AAEC … (300 bytes)');
  assert.equal(fieldText({ kind: 'fixed32', value: 1065353216, float: 1 }), '1065353216  (float 1)');
});
