// The page's escaping of text a file controls, by the rule of
// src/escape.rs: `plainText` is its `plain` (control characters and the
// invisible or direction-changing format characters shown as `\n`, `\t`,
// `\r` or `\u{1b}`), `xmlText` its `xml_text` (then `& < > " '` as
// entities, and U+FFFE, U+FFFF shown too), so that an SVG the page writes
// is well-formed wherever the command's is. A JavaScript string can also
// hold what a Rust string cannot, a lone surrogate: shown as `\u{d800}`.

// What src/escape.rs's is_unsafe_char matches (char::is_control is C0,
// DEL and C1), plus lone surrogates and the two characters XML 1.0 has no
// place for (U+FFFE, U+FFFF). With the u flag a surrogate pair is one
// character above U+FFFF and matches none of these.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE_CHARS = /[\0-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff\ufffe\uffff]/gu;
const SHORT_ESCAPES = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

export function plainText(s) {
  return String(s).replace(UNSAFE_CHARS, (c) => SHORT_ESCAPES[c] || '\\u{' + c.codePointAt(0).toString(16) + '}');
}

const XML_ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function xmlText(s) {
  return plainText(s).replace(/[&<>"']/g, (c) => XML_ENTITIES[c]);
}
