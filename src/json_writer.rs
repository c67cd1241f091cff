//! The one JSON writer: every JSON output of the crate (the decoded file's
//! contract, the explorer's answers, test data, batches, comparisons, the
//! schema dump) is streamed through [`JsonWriter`], which holds the
//! nesting and the separators. Strings go through [`crate::escape::string`]
//! and floats through its number text, so no producer spells a brace, a
//! quote or a comma itself. Nothing is built as a tree: each call writes
//! its bytes at once.
//!
//! The layout is the contract's: `{"key": value, "key": [1, 2]}` on one
//! line (`", "` between items, `": "` after a key), or one item per line
//! for an array opened with [`JsonWriter::begin_array_lines`].
//!
//! Misuse (a value where a key is due, a key in an array, a close that
//! does not match the open, a second value at the top, a line ended inside
//! a value) is turned down with an error of kind `InvalidInput` before
//! anything is written, in every build: the output never holds JSON the
//! writer did not mean.

use crate::escape;
use std::io::{self, Write};

/// The separator between two items of an array or object. Runs of values
/// formatted apart ([`JsonWriter::array_run`], and fixed-width fast paths
/// that copy it) use this one.
pub const SEPARATOR: &[u8; 2] = b", ";

/// An array's or object's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `key_written`: a key was written and its value is due.
    Object { empty: bool, key_written: bool },
    /// `lines`: one item per line ([`JsonWriter::begin_array_lines`]).
    Array { empty: bool, lines: bool },
}

/// A streaming JSON writer over any `io::Write`. See the module's doc.
pub struct JsonWriter<'w> {
    out: &'w mut dyn Write,
    /// The open arrays and objects, outermost first.
    stack: Vec<Frame>,
    /// The top-level value is complete (only [`JsonWriter::end_line`] may
    /// follow).
    top_done: bool,
    /// A run of an array opened by another writer: its root frame is
    /// never closed here.
    run: bool,
    written: u64,
}

impl<'w> JsonWriter<'w> {
    /// A writer of one JSON value (then, after [`JsonWriter::end_line`],
    /// of another: JSON Lines).
    pub fn new(out: &'w mut dyn Write) -> Self {
        JsonWriter {
            out,
            stack: Vec::new(),
            top_done: false,
            run: false,
            written: 0,
        }
    }

    /// A writer of some values of an array that another writer holds open
    /// (a run formatted apart, on another thread): `after_first` says
    /// whether values come before the run, so that its first value is
    /// preceded by the separator. The text goes into that array through
    /// [`JsonWriter::spliced_values`].
    pub fn array_run(out: &'w mut dyn Write, after_first: bool) -> Self {
        JsonWriter {
            out,
            stack: vec![Frame::Array {
                empty: !after_first,
                lines: false,
            }],
            top_done: false,
            run: true,
            written: 0,
        }
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.written = self.written.saturating_add(bytes.len() as u64);
        Ok(())
    }

    fn misuse(what: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("JSON writer misuse: {what}"),
        )
    }

    /// Before a value: the separator an array needs, or the check that a
    /// key was written in an object, or that the top is free.
    fn before_value(&mut self) -> io::Result<()> {
        match self.stack.last_mut() {
            None if self.top_done => Err(Self::misuse("a second value at the top")),
            None => {
                self.top_done = true;
                Ok(())
            }
            Some(Frame::Object { key_written, .. }) => {
                if !std::mem::take(key_written) {
                    return Err(Self::misuse("a value where a key is due"));
                }
                Ok(())
            }
            Some(Frame::Array { empty, lines }) => {
                let (first, lines) = (std::mem::take(empty), *lines);
                match (first, lines) {
                    (true, false) => Ok(()),
                    (false, false) => self.put(SEPARATOR),
                    (true, true) => self.put(b"\n  "),
                    (false, true) => self.put(b",\n  "),
                }
            }
        }
    }

    /// An object's key (escaped); its value is due next.
    pub fn key(&mut self, key: &str) -> io::Result<()> {
        let separator = match self.stack.last_mut() {
            Some(Frame::Object { empty, key_written }) => {
                if *key_written {
                    return Err(Self::misuse("a key where a value is due"));
                }
                *key_written = true;
                !std::mem::take(empty)
            }
            _ => return Err(Self::misuse("a key outside an object")),
        };
        if separator {
            self.put(SEPARATOR)?;
        }
        self.string(key)?;
        self.put(b": ")
    }

    fn string(&mut self, s: &str) -> io::Result<()> {
        let mut counted = Counted {
            out: &mut *self.out,
            written: 0,
        };
        escape::string(&mut counted, s)?;
        self.written = self.written.saturating_add(counted.written);
        Ok(())
    }

    /// A value: a string, a number, a bool, `None` as null.
    pub fn value(&mut self, v: impl JsonScalar) -> io::Result<()> {
        self.before_value()?;
        v.write_json(&mut Scalars(self))
    }

    /// `key` and its value.
    pub fn member(&mut self, key: &str, v: impl JsonScalar) -> io::Result<()> {
        self.key(key)?;
        self.value(v)
    }

    /// `null`.
    pub fn null(&mut self) -> io::Result<()> {
        self.value(Null)
    }

    pub fn begin_object(&mut self) -> io::Result<()> {
        self.before_value()?;
        self.stack.push(Frame::Object {
            empty: true,
            key_written: false,
        });
        self.put(b"{")
    }

    pub fn end_object(&mut self) -> io::Result<()> {
        match self.stack.last() {
            Some(Frame::Object {
                key_written: false, ..
            }) if !(self.run && self.stack.len() == 1) => {
                self.stack.pop();
                self.put(b"}")
            }
            Some(Frame::Object { .. }) => Err(Self::misuse("an object closed before its value")),
            _ => Err(Self::misuse("an object closed where none is open")),
        }
    }

    /// An array of items on one line.
    pub fn begin_array(&mut self) -> io::Result<()> {
        self.begin(false)
    }

    /// An array of one item per line, indented (`[\n  a,\n  b\n]`).
    pub fn begin_array_lines(&mut self) -> io::Result<()> {
        self.begin(true)
    }

    fn begin(&mut self, lines: bool) -> io::Result<()> {
        self.before_value()?;
        self.stack.push(Frame::Array { empty: true, lines });
        self.put(b"[")
    }

    pub fn end_array(&mut self) -> io::Result<()> {
        match self.stack.last() {
            Some(&Frame::Array { lines, .. }) if !(self.run && self.stack.len() == 1) => {
                self.stack.pop();
                self.put(if lines { b"\n]" } else { b"]" })
            }
            _ => Err(Self::misuse("an array closed where none is open")),
        }
    }

    /// Ends a complete top-level value with a newline; another value may
    /// follow (JSON Lines).
    pub fn end_line(&mut self) -> io::Result<()> {
        if !self.stack.is_empty() || !self.top_done || self.run {
            return Err(Self::misuse("a line ended inside a value"));
        }
        self.top_done = false;
        self.put(b"\n")
    }

    /// A newline between two items (whitespace to JSON): the last member
    /// of an object on a line of its own.
    pub fn line_break(&mut self) -> io::Result<()> {
        match self.stack.last() {
            Some(Frame::Object {
                key_written: false,
                empty: false,
            })
            | Some(Frame::Array { empty: false, .. }) => self.put(b"\n"),
            _ => Err(Self::misuse("a line break where no item ends")),
        }
    }

    /// The bytes a key takes with what follows it (`"key": `), for a
    /// member measured before it is written.
    pub fn key_len(key: &str) -> usize {
        let mut counted = Counted {
            out: &mut io::sink(),
            written: 0,
        };
        // A sink takes everything.
        let _ = escape::string(&mut counted, key);
        usize::try_from(counted.written)
            .unwrap_or(usize::MAX)
            .saturating_add(2)
    }

    /// Checks that every array and object opened was closed (and, for a
    /// run, that nothing past it was left open).
    pub fn finish(self) -> io::Result<()> {
        let open = self.stack.len() - usize::from(self.run && !self.stack.is_empty());
        if open > 0 {
            return Err(Self::misuse("a value left open"));
        }
        Ok(())
    }

    /// Values written apart into the array open here (which must be
    /// empty), by `f` with [`JsonWriter::array_run`] writers or by code
    /// that formats numbers with [`SEPARATOR`] between them; `f` returns
    /// how many it wrote.
    pub fn spliced_values(
        &mut self,
        f: impl FnOnce(&mut dyn Write) -> io::Result<u64>,
    ) -> io::Result<u64> {
        match self.stack.last() {
            Some(Frame::Array {
                empty: true,
                lines: false,
            }) => {}
            _ => return Err(Self::misuse("values spliced outside an empty array")),
        }
        let mut counted = Counted {
            out: &mut *self.out,
            written: 0,
        };
        let n = f(&mut counted)?;
        self.written = self.written.saturating_add(counted.written);
        if n > 0 {
            self.stack.pop();
            self.stack.push(Frame::Array {
                empty: false,
                lines: false,
            });
        }
        Ok(n)
    }

    /// A value whose JSON text another `JsonWriter` wrote (a part built
    /// aside to be measured before it is sent).
    pub fn written_value(&mut self, json: &WrittenJson) -> io::Result<()> {
        self.before_value()?;
        self.put(&json.0)
    }

    /// `"KEY": NAME` for a path: its text, with bytes that are not UTF-8 as
    /// U+FFFD; and for such a path `"KEY_bytes": BASE64` beside it, its
    /// bytes as they are, so that two names differing only there stay
    /// apart (the rule for every path in the JSON output).
    pub fn path_member(&mut self, key: &str, path: &std::path::Path) -> io::Result<()> {
        let name = path.as_os_str();
        match name.to_str() {
            Some(text) => self.member(key, text),
            None => {
                self.member(key, &*name.to_string_lossy())?;
                self.member(
                    &format!("{key}_bytes"),
                    &*escape::base64(name.as_encoded_bytes()),
                )
            }
        }
    }
}

/// The JSON text of one complete value, written by a [`JsonWriter`] on its
/// own ([`WrittenJson::of`]), to be placed with
/// [`JsonWriter::written_value`].
#[derive(Debug, Default, Clone)]
pub struct WrittenJson(Vec<u8>);

impl WrittenJson {
    /// The text `write` makes (one complete value).
    pub fn of(write: impl FnOnce(&mut JsonWriter<'_>) -> io::Result<()>) -> io::Result<Self> {
        let mut text = Vec::new();
        let mut w = JsonWriter::new(&mut text);
        write(&mut w)?;
        if !w.top_done {
            return Err(JsonWriter::misuse("no value written"));
        }
        w.finish()?;
        Ok(WrittenJson(text))
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Its text.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A writer that counts what passes through it.
struct Counted<'a> {
    out: &'a mut dyn Write,
    written: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.written = self.written.saturating_add(n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Where a [`JsonScalar`] writes its text: the place of the value is
/// already prepared by the writer.
pub struct Scalars<'a, 'w>(&'a mut JsonWriter<'w>);

impl Scalars<'_, '_> {
    fn text(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.put(bytes)
    }
}

/// `null`, as a value.
#[derive(Debug, Clone, Copy)]
pub struct Null;

/// A value without parts: strings (escaped), integers, floats (the
/// shortest text that reads back; NaN and the infinities as strings), bools,
/// [`Null`], and `Option`s of them (`None` as null).
pub trait JsonScalar {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()>;
}

impl JsonScalar for &str {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
        w.0.string(self)
    }
}

impl JsonScalar for &String {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
        w.0.string(self)
    }
}

impl JsonScalar for bool {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
        w.text(if self { b"true" } else { b"false" })
    }
}

impl JsonScalar for Null {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
        w.text(b"null")
    }
}

impl JsonScalar for f32 {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
        let mut text = [0u8; 32];
        let n = float_text(&mut text, |out| escape::f32_json(out, self))?;
        w.text(text.get(..n).unwrap_or(&[]))
    }
}

impl JsonScalar for f64 {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
        let mut text = [0u8; 32];
        let n = float_text(&mut text, |out| escape::f64_json(out, self))?;
        w.text(text.get(..n).unwrap_or(&[]))
    }
}

/// A float's text into a stack buffer (at most 24 bytes from ryu, 11 for
/// a non-finite value's string), for one write.
fn float_text(
    buf: &mut [u8; 32],
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<usize> {
    let mut cursor = io::Cursor::new(&mut buf[..]);
    write(&mut cursor)?;
    usize::try_from(cursor.position()).map_err(io::Error::other)
}

impl<T: JsonScalar> JsonScalar for Option<T> {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
        match self {
            Some(v) => v.write_json(w),
            None => Null.write_json(w),
        }
    }
}

/// Decimal digits of an integer, two at a time from a stack buffer, in one
/// write (as fast as `core`'s formatting, without its machinery).
fn integer(w: &mut Scalars<'_, '_>, magnitude: u64, negative: bool) -> io::Result<()> {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut digits = [0u8; 24];
    let mut at = digits.len();
    let mut v = magnitude;
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        at -= 2;
        if let (Some(d), Some(p)) = (digits.get_mut(at..at + 2), PAIRS.get(pair..pair + 2)) {
            d.copy_from_slice(p);
        }
    }
    if v >= 10 {
        let pair = v as usize * 2;
        at -= 2;
        if let (Some(d), Some(p)) = (digits.get_mut(at..at + 2), PAIRS.get(pair..pair + 2)) {
            d.copy_from_slice(p);
        }
    } else {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + v as u8;
        }
    }
    if negative {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'-';
        }
    }
    w.text(digits.get(at..).unwrap_or(&[]))
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl JsonScalar for $t {
            fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
                integer(w, u64::from(self), false)
            }
        }
    )*};
}

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl JsonScalar for $t {
            fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
                integer(w, u64::from(self.unsigned_abs()), self < 0)
            }
        }
    )*};
}

unsigned!(u8, u16, u32, u64);
signed!(i8, i16, i32, i64);

impl JsonScalar for usize {
    fn write_json(self, w: &mut Scalars<'_, '_>) -> io::Result<()> {
        // usize is at most 64 bits on every target the crate builds for.
        integer(w, u64::try_from(self).unwrap_or(u64::MAX), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(f: impl FnOnce(&mut JsonWriter<'_>) -> io::Result<()>) -> io::Result<String> {
        let mut out = Vec::new();
        let mut w = JsonWriter::new(&mut out);
        f(&mut w)?;
        let n = w.bytes_written();
        w.finish()?;
        assert_eq!(n, out.len() as u64, "bytes counted");
        Ok(String::from_utf8(out).expect("UTF-8"))
    }

    #[test]
    fn nesting_and_separators() {
        let text = written(|w| {
            w.begin_object()?;
            w.member("a", 1u8)?;
            w.key("b")?;
            w.begin_array()?;
            w.value(-2i64)?;
            w.value(0.5f32)?;
            w.value(f64::NAN)?;
            w.begin_object()?;
            w.end_object()?;
            w.begin_array()?;
            w.end_array()?;
            w.value(None::<bool>)?;
            w.end_array()?;
            w.member("c\n\"", "x\u{1b}")?;
            w.member("d", i64::MIN)?;
            w.member("e", u64::MAX)?;
            w.end_object()?;
            w.end_line()?;
            w.value(true)?;
            w.end_line()
        })
        .expect("written");
        assert_eq!(
            text,
            "{\"a\": 1, \"b\": [-2, 0.5, \"NaN\", {}, [], null], \"c\\n\\\"\": \"x\\u001b\", \
             \"d\": -9223372036854775808, \"e\": 18446744073709551615}\ntrue\n"
        );
        let parsed: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("valid JSON"))
            .collect();
        assert_eq!(parsed.len(), 2);
    }

    #[test]
    fn integers_as_std_writes_them() {
        let mut values: Vec<i64> = vec![0, 1, -1, 9, 10, -10, 99, 100, 101, 999, 1000, -1001];
        for p in 0..19 {
            let t = 10i64.pow(p);
            values.extend([t - 1, t, t + 1, -(t - 1), -t, -(t + 1)]);
        }
        values.extend([i64::MIN, i64::MAX, i64::MIN + 1]);
        for v in values {
            assert_eq!(written(|w| w.value(v)).expect("written"), v.to_string());
        }
        for v in [u64::MAX, u64::MAX - 1, 1 << 63, 12_345_678_901_234_567_890] {
            assert_eq!(written(|w| w.value(v)).expect("written"), v.to_string());
        }
        assert_eq!(
            written(|w| w.value(usize::MAX)).expect("written"),
            usize::MAX.to_string()
        );
        assert_eq!(written(|w| w.value(i8::MIN)).expect("written"), "-128");
    }

    #[test]
    fn arrays_of_lines() {
        let text = written(|w| {
            w.begin_object()?;
            w.key("a")?;
            w.begin_array_lines()?;
            w.value(1u8)?;
            w.begin_object()?;
            w.end_object()?;
            w.end_array()?;
            w.key("b")?;
            w.begin_array_lines()?;
            w.end_array()?;
            w.end_object()
        })
        .expect("written");
        assert_eq!(text, "{\"a\": [\n  1,\n  {}\n], \"b\": [\n]}");
    }

    #[test]
    fn misuse_is_turned_down_before_anything_is_written() {
        type Step = fn(&mut JsonWriter<'_>) -> io::Result<()>;
        let cases: &[(&str, Step, Step)] = &[
            (
                "value where a key is due",
                |w| w.begin_object(),
                |w| w.value(1u8),
            ),
            ("key in an array", |w| w.begin_array(), |w| w.key("k")),
            ("key at the top", |_| Ok(()), |w| w.key("k")),
            (
                "key after a key",
                |w| {
                    w.begin_object()?;
                    w.key("a")
                },
                |w| w.key("b"),
            ),
            (
                "array closed as an object",
                |w| w.begin_array(),
                |w| w.end_object(),
            ),
            (
                "object closed as an array",
                |w| w.begin_object(),
                |w| w.end_array(),
            ),
            (
                "object closed before its value",
                |w| {
                    w.begin_object()?;
                    w.key("a")
                },
                |w| w.end_object(),
            ),
            ("close at the top", |_| Ok(()), |w| w.end_array()),
            (
                "second value at the top",
                |w| w.value(1u8),
                |w| w.value(2u8),
            ),
            (
                "line ended inside a value",
                |w| w.begin_array(),
                |w| w.end_line(),
            ),
            ("line ended before a value", |_| Ok(()), |w| w.end_line()),
            (
                "path outside an object",
                |w| w.begin_array(),
                |w| w.path_member("f", std::path::Path::new("x")),
            ),
            (
                "line break after a key",
                |w| {
                    w.begin_object()?;
                    w.key("a")
                },
                |w| w.line_break(),
            ),
            (
                "line break in an empty array",
                |w| w.begin_array(),
                |w| w.line_break(),
            ),
            (
                "splice into a full array",
                |w| {
                    w.begin_array()?;
                    w.value(1u8)
                },
                |w| w.spliced_values(|_| Ok(0)).map(|_| ()),
            ),
        ];
        for (what, before, wrong) in cases {
            let mut out = Vec::new();
            let mut w = JsonWriter::new(&mut out);
            before(&mut w).expect(what);
            let at = w.bytes_written();
            let e = wrong(&mut w).expect_err(what);
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{what}");
            assert_eq!(w.bytes_written(), at, "{what}: nothing written");
            assert_eq!(out.len() as u64, at, "{what}");
        }
        // Left open.
        let mut out = Vec::new();
        let mut w = JsonWriter::new(&mut out);
        w.begin_object().expect("open");
        assert!(w.finish().is_err());
        // A run cannot close the array it continues.
        let mut out = Vec::new();
        let mut w = JsonWriter::array_run(&mut out, false);
        assert!(w.end_array().is_err());
        w.value(1u8).expect("value");
        w.finish().expect("a run ends with its array open");
    }

    #[test]
    fn runs_splice_into_an_array() {
        let text = written(|w| {
            w.begin_array()?;
            let n = w.spliced_values(|out| {
                let mut first = JsonWriter::array_run(out, false);
                first.value(1u8)?;
                first.value(2u8)?;
                first.finish()?;
                let mut second = JsonWriter::array_run(out, true);
                second.value("three")?;
                second.finish()?;
                Ok(3)
            })?;
            assert_eq!(n, 3);
            w.value(4u8)?;
            w.end_array()
        })
        .expect("written");
        assert_eq!(text, "[1, 2, \"three\", 4]");
    }

    #[test]
    fn written_values_and_paths() {
        let part = WrittenJson::of(|w| w.value("a\"b")).expect("part");
        assert_eq!(part.as_bytes(), b"\"a\\\"b\"");
        assert!(WrittenJson::of(|_| Ok(())).is_err(), "no value");
        let text = written(|w| {
            w.begin_array()?;
            w.written_value(&part)?;
            w.written_value(&part)?;
            w.end_array()
        })
        .expect("written");
        assert_eq!(text, "[\"a\\\"b\", \"a\\\"b\"]");
        let text = written(|w| {
            w.begin_object()?;
            w.path_member("file", std::path::Path::new("d/x.pb"))?;
            w.end_object()
        })
        .expect("written");
        assert_eq!(text, "{\"file\": \"d/x.pb\"}");
        let text = written(|w| {
            w.begin_object()?;
            w.member("a\n", 1u8)?;
            w.line_break()?;
            w.end_object()
        })
        .expect("written");
        assert_eq!(text, "{\"a\\n\": 1\n}");
        assert_eq!(JsonWriter::key_len("a\n"), "\"a\\n\": ".len());
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_keeps_its_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let path = std::path::Path::new(std::ffi::OsStr::from_bytes(b"a\xff"));
        let text = written(|w| {
            w.begin_object()?;
            w.path_member("file", path)?;
            w.end_object()
        })
        .expect("written");
        assert_eq!(text, "{\"file\": \"a\u{fffd}\", \"file_bytes\": \"Yf8=\"}");
    }
}
