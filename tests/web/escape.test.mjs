// web/escape.js under node's test runner: the page's escaping of text a
// file controls follows src/escape.rs (its `plain` and `xml_text`, whose
// unit tests hold the same examples), and what it writes is text XML 1.0
// accepts in content and in a quoted attribute, for every code point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plainText, xmlText } from '../../web/escape.js';

// The characters src/escape.rs's is_unsafe_char matches.
const RUST_UNSAFE = [[0x00, 0x1f], [0x7f, 0x9f], [0xad, 0xad], [0x61c, 0x61c], [0x180e, 0x180e], [0x200b, 0x200f],
  [0x2028, 0x202e], [0x2060, 0x206f], [0xfeff, 0xfeff], [0xfff9, 0xfffb]];
const rustUnsafe = (cp) => RUST_UNSAFE.some(([a, b]) => cp >= a && cp <= b);

test('the examples of src/escape.rs', () => {
  assert.equal(xmlText("<a href='x'>&\"\u202e"), '&lt;a href=&apos;x&apos;&gt;&amp;&quot;\\u{202e}');
  assert.equal(xmlText('\u0008\ufffe\uffff\u{10ffff}'), '\\u{8}\\u{fffe}\\u{ffff}\u{10ffff}');
  assert.equal(plainText('a\nb\tc\rd\u001b[31m'), 'a\\nb\\tc\\rd\\u{1b}[31m');
  assert.equal(plainText('plain text, ünïcödé, 名前, 🙂'), 'plain text, ünïcödé, 名前, 🙂');
});

test('every code point: escaped as src/escape.rs escapes it, and the result is XML', () => {
  // XML 1.0's Char, less what would end a text or a quoted attribute.
  const xmlChar = (cp) => cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
  let escaped = 0;
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    const c = String.fromCodePoint(cp);
    const out = xmlText('a' + c + 'b');
    const short = { 0x0a: '\\n', 0x09: '\\t', 0x0d: '\\r' }[cp];
    const entity = { 0x26: '&amp;', 0x3c: '&lt;', 0x3e: '&gt;', 0x22: '&quot;', 0x27: '&apos;' }[cp];
    const notXml = !xmlChar(cp);
    let want = c;
    if (short) want = short;
    else if (entity) want = entity;
    else if (rustUnsafe(cp) || notXml) want = '\\u{' + cp.toString(16) + '}';
    if (out !== 'a' + want + 'b') assert.fail(`U+${cp.toString(16)}: ${JSON.stringify(out)}`);
    if (want !== c) escaped++;
    for (const ch of out) {
      const o = ch.codePointAt(0);
      if (!xmlChar(o) || '<>"\''.includes(ch)) assert.fail(`U+${cp.toString(16)} left ${JSON.stringify(ch)}`);
    }
  }
  // C0, DEL, C1, the format characters, the surrogates and U+FFFE/U+FFFF,
  // and the five entities.
  assert.equal(escaped, 32 + 33 + 1 + 1 + 1 + 5 + 7 + 16 + 1 + 3 + 2048 + 2 + 5);
});

test('a lone surrogate (which a Rust string cannot hold) is shown, not written', () => {
  assert.equal(xmlText('x\ud800y'), 'x\\u{d800}y');
  assert.equal(xmlText('\udfff'), '\\u{dfff}');
  assert.equal(xmlText('\ud83d\ude42'), '\ud83d\ude42');
});
