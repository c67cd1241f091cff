//! Text made from file contents, for terminals and JSON: the one escaping
//! of strings a file controls (bare, quoted, hex, whole lines), JSON
//! strings, the shortest text of floats, base64. The ground floor: it
//! imports nothing of the crate, so every layer (views, the server, test
//! data, diff) writes through the same functions.

use std::io::{self, Write};

/// Bytes shown of a long bytes field.
const BYTES_PREVIEW: usize = 32;

/// Characters a file must not send to the terminal as they are: control
/// characters (C0, DEL, C1), and the invisible and direction-changing
/// format characters that can make a line read other than it is.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{ad}'
                | '\u{61c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

/// Text from a file, unquoted, with every unsafe character escaped as
/// `\n`, `\t`, `\r` or `\u{1b}`: the one escaping of names, keys and other
/// strings the text views print bare. [`quoted`] is its quoted form.
pub fn plain(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_unsafe_char) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The lines of a text output that shows names a file or a file name
/// controls (test folders, batches, `decode diff`): each line is formatted,
/// then escaped whole by [`plain`] and ended here. A name can therefore
/// neither add a line of its own (its `\n` is shown as `\n`) nor send a
/// control sequence, whichever way it was formatted. It has no `io::Write`
/// side, so `write!` cannot bypass it; [`TextLines::view`] hands the writer
/// to the decoded-file views, which escape each string they print (and may
/// colour their output).
pub struct TextLines<'w> {
    out: &'w mut dyn Write,
    line: String,
}

impl<'w> TextLines<'w> {
    /// Lines written to `out`.
    pub fn new(out: &'w mut dyn Write) -> Self {
        TextLines {
            out,
            line: String::new(),
        }
    }

    /// One line (the line end is added): `lines.line(format_args!(...))`.
    pub fn line(&mut self, args: std::fmt::Arguments<'_>) -> io::Result<()> {
        use std::fmt::Write as _;
        self.line.clear();
        // Formatting into a String fails only if a Display impl does.
        self.line
            .write_fmt(args)
            .map_err(|_| io::Error::other("a value could not be formatted"))?;
        self.out.write_all(plain(&self.line).as_bytes())?;
        self.out.write_all(b"\n")
    }

    /// An empty line.
    pub fn blank(&mut self) -> io::Result<()> {
        self.out.write_all(b"\n")
    }

    /// The writer, for a decoded-file view (which escapes what it prints).
    pub fn view(&mut self) -> &mut dyn Write {
        self.out
    }
}

/// Bytes from a file shown bare: [`plain`] text when UTF-8 (invalid
/// sequences replaced), so nothing unsafe reaches the terminal.
pub fn plain_bytes(bytes: &[u8]) -> String {
    plain(&String::from_utf8_lossy(bytes)).into_owned()
}

/// Text in quotes with escapes (Rust's string escapes: quotes, backslashes,
/// every unsafe character), or a hex preview for bytes.
pub fn quoted(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => quoted_str(s),
        Err(_) => hex_preview(bytes),
    }
}

/// A string in quotes, escaped as [`quoted`] does.
pub fn quoted_str(s: &str) -> String {
    let mut out = format!("{s:?}");
    // Rust's escapes cover every unsafe character but a few invisible ones
    // it considers printable; escape those too.
    if out.chars().any(is_unsafe_char) {
        out = plain(&out).into_owned();
    }
    out
}

/// Bytes as `<N bytes: 0a 1b ...>`, at most the first 32 of them in hex.
pub fn hex_preview(bytes: &[u8]) -> String {
    let shown = bytes.get(..BYTES_PREVIEW).unwrap_or(bytes);
    let hex: Vec<String> = shown.iter().map(|b| format!("{b:02x}")).collect();
    if shown.len() < bytes.len() {
        format!("<{} bytes: {} …>", bytes.len(), hex.join(" "))
    } else {
        format!("<{} bytes: {}>", bytes.len(), hex.join(" "))
    }
}

/// A JSON string with the escapes JSON requires, and every other
/// [`is_unsafe_char`] (C1 controls, direction overrides, invisible
/// characters) as `\uXXXX`: allowed raw by JSON, but a terminal showing the
/// output would act on them. The value read back is the same.
pub fn string(w: &mut dyn Write, s: &str) -> io::Result<()> {
    let bytes = s.as_bytes();
    // Most names and texts are printable ASCII with nothing to escape:
    // written at once.
    if bytes
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        let mut quoted = [0u8; 64];
        if let Some(room) = quoted.get_mut(..bytes.len() + 2) {
            let (first, rest) = room.split_at_mut(1);
            first.copy_from_slice(b"\"");
            let (text, last) = rest.split_at_mut(bytes.len());
            text.copy_from_slice(bytes);
            last.copy_from_slice(b"\"");
            return w.write_all(room);
        }
        w.write_all(b"\"")?;
        w.write_all(bytes)?;
        return w.write_all(b"\"");
    }
    w.write_all(b"\"")?;
    let mut start = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let esc: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            0..=0x1f | 0x7f => None,
            // The first byte of a character that may be unsafe (the lead
            // bytes of every non-ASCII is_unsafe_char, all in the Basic
            // Multilingual Plane; a unit test checks them): as one \uXXXX if
            // it is. Other bytes of multi-byte characters are copied.
            0xc2 | 0xd8 | 0xe1 | 0xe2 | 0xef => {
                let c = s.get(i..).and_then(|rest| rest.chars().next());
                let len = c.map_or(1, char::len_utf8);
                if let Some(c) = c.filter(|&c| is_unsafe_char(c)) {
                    w.write_all(bytes.get(start..i).unwrap_or(&[]))?;
                    write!(w, "\\u{:04x}", u32::from(c))?;
                    start = i + len;
                }
                i += len;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        w.write_all(bytes.get(start..i).unwrap_or(&[]))?;
        match esc {
            Some(e) => w.write_all(e)?,
            None => write!(w, "\\u{:04x}", b)?,
        }
        i += 1;
        start = i;
    }
    w.write_all(bytes.get(start..).unwrap_or(&[]))?;
    w.write_all(b"\"")
}

/// A Graphviz DOT string: in double quotes, `"` and `\\` escaped, every
/// unsafe character as [`plain`] shows it; lines joined with DOT's
/// centred line break `\\n`. A file's names cannot end the string or add
/// a statement.
pub fn dot_string(lines: &[&str]) -> String {
    let mut out = String::from("\"");
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str("\\n");
        }
        for c in plain(line).chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c => out.push(c),
            }
        }
    }
    out.push('"');
    out
}

/// Text for XML (SVG) content and attribute values: `&`, `<`, `>`, `"` and
/// `'` as entities, every unsafe character as [`plain`] shows it, and the
/// two characters XML 1.0 allows nowhere (U+FFFE, U+FFFF) as `\u{fffe}`.
/// The explorer's page escapes its SVG by the same rule (`web/escape.js`).
pub fn xml_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in plain(s).chars() {
        match c {
            '\u{fffe}' | '\u{ffff}' => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A float32 as JSON: the shortest text that reads back to the same value;
/// NaN and the infinities as the strings `"NaN"`, `"Infinity"` and
/// `"-Infinity"`.
pub fn f32_json(w: &mut dyn Write, v: f32) -> io::Result<()> {
    if v.is_finite() {
        // ryu: the shortest text that reads back to the same float32, and
        // several times faster than std's formatting on huge tensors.
        w.write_all(ryu::Buffer::new().format_finite(v).as_bytes())
    } else {
        non_finite_json(w, v.is_nan(), v > 0.0)
    }
}

/// A float64 as JSON, as [`f32_json`] writes a float32.
pub fn f64_json(w: &mut dyn Write, v: f64) -> io::Result<()> {
    if v.is_finite() {
        w.write_all(ryu::Buffer::new().format_finite(v).as_bytes())
    } else {
        non_finite_json(w, v.is_nan(), v > 0.0)
    }
}

/// JSON has no NaN or infinity: the contract writes them as strings.
fn non_finite_json(w: &mut dyn Write, nan: bool, positive: bool) -> io::Result<()> {
    w.write_all(non_finite_text(nan, positive))
}

/// The JSON text of a float that is not finite (a string): `"NaN"`,
/// `"Infinity"` or `"-Infinity"`.
pub fn non_finite_text(nan: bool, positive: bool) -> &'static [u8] {
    match (nan, positive) {
        (true, _) => b"\"NaN\"",
        (false, true) => b"\"Infinity\"",
        (false, false) => b"\"-Infinity\"",
    }
}

/// Standard base64 with padding (the JSON form of bytes fields).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (byte(0) << 16) | (byte(1) << 8) | byte(2);
        for i in 0..4 {
            if i <= chunk.len() {
                let digit = ALPHABET.get(((n >> (18 - 6 * i)) & 63) as usize);
                out.push(char::from(digit.copied().unwrap_or(b'=')));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A string or bytes value in protobuf's text format, without its quotes,
/// as protobuf's Python runtime writes it (`text_format.CEscape`): `\t`,
/// `\n`, `\r`, `\"`, `\'` and `\\` by name, other ASCII controls as
/// three octal digits; a `string` field's other characters as they are
/// (`as_utf8`, Python's default), a `bytes` field's non-ASCII bytes in
/// octal. Unlike Python, a character [`is_unsafe_char`] calls unsafe
/// beyond ASCII (C1 controls, direction overrides, invisible characters) is
/// written as `\uXXXX`, which reads back the same, and a byte that is not
/// UTF-8 in a `string` field in octal.
pub fn text_format_string(out: &mut Vec<u8>, value: &[u8], utf8: bool) {
    let ascii = |out: &mut Vec<u8>, b: u8| match b {
        b'\t' => out.extend_from_slice(b"\\t"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'"' => out.extend_from_slice(b"\\\""),
        b'\'' => out.extend_from_slice(b"\\'"),
        b'\\' => out.extend_from_slice(b"\\\\"),
        0x20..=0x7e => out.push(b),
        _ => octal(out, b),
    };
    if !utf8 {
        for &b in value {
            ascii(out, b);
        }
        return;
    }
    let mut rest = value;
    while !rest.is_empty() {
        let (good, bad) = match std::str::from_utf8(rest) {
            Ok(s) => (s, None),
            Err(e) => (
                std::str::from_utf8(rest.get(..e.valid_up_to()).unwrap_or(&[])).unwrap_or(""),
                rest.get(e.valid_up_to()).copied(),
            ),
        };
        for c in good.chars() {
            if c.is_ascii() {
                ascii(out, c as u8);
            } else if is_unsafe_char(c) {
                let code = u32::from(c);
                let escaped = if code > 0xffff {
                    format!("\\U{code:08x}")
                } else {
                    format!("\\u{code:04x}")
                };
                out.extend_from_slice(escaped.as_bytes());
            } else {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
        rest = rest.get(good.len()..).unwrap_or(&[]);
        if let Some(b) = bad {
            octal(out, b);
            rest = rest.get(1..).unwrap_or(&[]);
        }
    }
}

/// A byte as a three-digit octal escape.
fn octal(out: &mut Vec<u8>, b: u8) {
    out.extend_from_slice(&[
        b'\\',
        b'0' + (b >> 6),
        b'0' + ((b >> 3) & 7),
        b'0' + (b & 7),
    ]);
}

/// A double as Python's `repr` writes it (protobuf's Python runtime
/// prints a `double` field so): the shortest digits that read back to the
/// same value, in positional notation from 1e-4 up to 1e16 (`0.0001`,
/// `100.0`), in exponent notation beyond (`1e-05`, `1e+16`, `1.5e+300`);
/// `inf`, `-inf`, `nan`.
pub fn python_repr_f64(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let mut buf = ryu::Buffer::new();
    let shortest = buf.format_finite(v);
    let negative = shortest.starts_with('-');
    let body = shortest.trim_start_matches('-');
    let (mantissa, exp) = match body.split_once('e') {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The digits without leading zeros, and the place of the decimal point
    // relative to them (value = 0.DIGITS x 10^point).
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0');
    let sign = if negative { "-" } else { "" };
    if digits.is_empty() {
        return format!("{sign}0.0");
    }
    let point = int.len() as i64 - lead as i64 + exp;
    let n = digits.len() as i64;
    if point > -4 && point <= 16 {
        if point <= 0 {
            format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
        } else if point >= n {
            format!("{sign}{digits}{}.0", "0".repeat((point - n) as usize))
        } else {
            let (a, b) = digits.split_at(point as usize);
            format!("{sign}{a}.{b}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let e = point - 1;
        let dot = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if e < 0 { '-' } else { '+' };
        format!("{sign}{first}{dot}e{esign}{:02}", e.abs())
    }
}

/// A float as protobuf's Python runtime prints a `float` field
/// (`type_checkers.ToShortestFloat`, then `repr`): the decimal of the
/// fewest significant digits, 6 at least, that reads back to the same
/// float; `nan` whatever its sign.
pub fn python_repr_f32(v: f32) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return python_repr_f64(f64::from(v));
    }
    for digits in 6..=17usize {
        let text = format!("{:.*e}", digits - 1, f64::from(v));
        if let Ok(rounded) = text.parse::<f64>()
            && rounded as f32 == v
            && !(rounded as f32).is_infinite()
        {
            return python_repr_f64(rounded);
        }
    }
    python_repr_f64(f64::from(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape_every_unsafe_character() {
        let mut checked = 0;
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            if !is_unsafe_char(c) || matches!(c, '\n' | '\r' | '\t') {
                continue;
            }
            let mut out = Vec::new();
            string(&mut out, &format!("a{c}b")).expect("written");
            assert_eq!(
                String::from_utf8(out).expect("UTF-8"),
                format!("\"a\\u{:04x}b\"", u32::from(c)),
                "{c:?}"
            );
            checked += 1;
        }
        assert!(checked > 90, "only {checked} characters checked");
    }

    #[test]
    fn dot_and_xml_text_cannot_leave_their_string() {
        assert_eq!(
            super::dot_string(&["a\"b\\", "c\nd"]),
            "\"a\\\"b\\\\\\nc\\\\nd\""
        );
        assert_eq!(
            super::xml_text("<a href='x'>&\"\u{202e}"),
            "&lt;a href=&apos;x&apos;&gt;&amp;&quot;\\u{202e}"
        );
        assert_eq!(
            super::xml_text("\u{8}\u{fffe}\u{ffff}\u{10ffff}"),
            "\\u{8}\\u{fffe}\\u{ffff}\u{10ffff}"
        );
    }

    #[test]
    fn floats_as_python_writes_them() {
        for (v, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (1e22, "1e+22"),
            (123.456, "123.456"),
            (-2.5e300, "-2.5e+300"),
            (5e-324, "5e-324"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
        ] {
            assert_eq!(python_repr_f64(v), text, "{v:e}");
        }
        for (v, text) in [
            (0.1f32, "0.1"),
            (1.0, "1.0"),
            (16777216.0, "16777216.0"),
            (3.4028235e38, "3.4028235e+38"),
            (1e-45, "1.4013e-45"),
            (0.3, "0.3"),
            (f32::NEG_INFINITY, "-inf"),
            (1.0e-5, "1e-05"),
        ] {
            assert_eq!(python_repr_f32(v), text, "{v:e}");
        }
    }

    #[test]
    fn text_format_strings_as_python_escapes_them() {
        let esc = |b: &[u8], utf8| {
            let mut out = Vec::new();
            text_format_string(&mut out, b, utf8);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            esc(b"a\"b'c\\\t\n\r\x01\x7f", true),
            "a\\\"b\\'c\\\\\\t\\n\\r\\001\\177"
        );
        assert_eq!(esc("é".as_bytes(), true), "é");
        assert_eq!(esc("é".as_bytes(), false), "\\303\\251");
        assert_eq!(esc("\u{202e}x".as_bytes(), true), "\\u202ex");
        assert_eq!(esc(b"a\xffb", true), "a\\377b");
    }

    #[test]
    fn base64_vectors() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
