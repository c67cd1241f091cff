//! The values of literals: integers in their radix, floats as protobuf's
//! runtimes read them (the decimal to the nearest double, then to the
//! nearest float for a `float` field), and string literals' escapes.

use crate::error::{DecodeError, ErrorKind, Result};

/// The value of integer digits in `radix`, or None past `u64::MAX`.
pub fn int_value(digits: &[u8], radix: u32) -> Option<u64> {
    let mut v: u64 = 0;
    for &d in digits {
        let d = char::from(d).to_digit(radix)?;
        v = v.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// A decimal float literal (or decimal integer) as a double: the nearest
/// one, an overflow to infinity (as the specification says).
pub fn float_value(literal: &[u8]) -> Option<f64> {
    std::str::from_utf8(literal).ok()?.parse::<f64>().ok()
}

/// `inf`, `infinity` or `nan` in any case, with an `f` suffix or without
/// (as Python's parser also takes them): Some(true) for infinity,
/// Some(false) for NaN.
pub fn special_float(ident: &[u8]) -> Option<bool> {
    let is = |w: &[u8]| ident.eq_ignore_ascii_case(w);
    if is(b"inf") || is(b"infinity") || is(b"inff") || is(b"infinityf") {
        Some(true)
    } else if is(b"nan") || is(b"nanf") {
        Some(false)
    } else {
        None
    }
}

fn escape_error(
    body: &[u8],
    body_at: usize,
    i: usize,
    len: usize,
    why: &'static str,
) -> DecodeError {
    let end = (i + len).min(body.len());
    let found = String::from_utf8_lossy(body.get(i..end).unwrap_or(&[])).into_owned();
    DecodeError::new(
        ErrorKind::TextEscape {
            found: crate::escape::quoted_str(&found),
            why,
        },
        (body_at + i) as u64,
    )
}

/// Appends the bytes a string literal's body stands for to `out`
/// (`body_at`: the body's offset in the text, for errors): every escape of
/// the specification (`\a \b \f \n \r \t \v \? \\ \' \"`, up to three
/// octal digits, `\x` with one or two hex digits, `\uHHHH` with a
/// surrogate pair as one character, `\U00HHHHHH` up to U+10FFFF).
pub fn unescape_into(body: &[u8], body_at: usize, out: &mut Vec<u8>) -> Result<()> {
    let mut i = 0usize;
    out.reserve(body.len());
    while i < body.len() {
        // Bytes as protobuf's writers escape them (`tensor_content`, raw
        // data): three octal digits, the common case taken first.
        if let Some(&[b'\\', a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7']) =
            body.get(i..i + 4)
        {
            out.push(((a - b'0') << 6) | ((b - b'0') << 3) | (c - b'0'));
            i += 4;
            continue;
        }
        let run = body
            .get(i..)
            .and_then(|r| memchr::memchr(b'\\', r))
            .map_or(body.len(), |n| i + n);
        out.extend_from_slice(body.get(i..run).unwrap_or(&[]));
        i = run;
        let Some(&c) = body.get(i + 1) else {
            break;
        };
        let simple = match c {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0b),
            b'?' | b'\\' | b'\'' | b'"' => Some(c),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            i += 2;
            continue;
        }
        match c {
            b'0'..=b'7' => {
                let mut v: u32 = 0;
                let mut n = 0usize;
                while n < 3 {
                    match body.get(i + 1 + n) {
                        Some(&d @ b'0'..=b'7') => v = v * 8 + u32::from(d - b'0'),
                        _ => break,
                    }
                    n += 1;
                }
                let Ok(b) = u8::try_from(v) else {
                    return Err(escape_error(
                        body,
                        body_at,
                        i,
                        1 + n,
                        "an octal escape stands for one byte, at most \\377",
                    ));
                };
                out.push(b);
                i += 1 + n;
            }
            b'x' | b'X' => {
                let mut v: u32 = 0;
                let mut n = 0usize;
                while n < 2 {
                    match body
                        .get(i + 2 + n)
                        .and_then(|&d| char::from(d).to_digit(16))
                    {
                        Some(d) => v = v * 16 + d,
                        None => break,
                    }
                    n += 1;
                }
                if n == 0 {
                    return Err(escape_error(
                        body,
                        body_at,
                        i,
                        2,
                        "\\x is followed by one or two hexadecimal digits",
                    ));
                }
                out.push(v as u8);
                i += 2 + n;
            }
            b'u' | b'U' => {
                let width = if c == b'u' { 4 } else { 8 };
                let code = hex_code(body, i + 2, width).ok_or_else(|| {
                    escape_error(
                        body,
                        body_at,
                        i,
                        2 + width,
                        if c == b'u' {
                            "\\u is followed by four hexadecimal digits"
                        } else {
                            "\\U is followed by eight hexadecimal digits"
                        },
                    )
                })?;
                let mut len = 2 + width;
                let code = if (0xd800..0xdc00).contains(&code) {
                    // A high surrogate: its low surrogate must follow as
                    // \uHHHH, the two making one character (as protoc does).
                    let low = (body.get(i + len) == Some(&b'\\')
                        && body.get(i + len + 1) == Some(&b'u'))
                    .then(|| hex_code(body, i + len + 2, 4))
                    .flatten()
                    .filter(|l| (0xdc00..0xe000).contains(l));
                    let Some(low) = low else {
                        return Err(escape_error(
                            body,
                            body_at,
                            i,
                            len,
                            "a high surrogate is followed by its low surrogate (\\uDC00 to \\uDFFF)",
                        ));
                    };
                    len += 6;
                    0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)
                } else {
                    code
                };
                let Some(ch) = char::from_u32(code) else {
                    return Err(escape_error(
                        body,
                        body_at,
                        i,
                        len,
                        "not a Unicode character (a lone surrogate, or past U+10FFFF)",
                    ));
                };
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                i += len;
            }
            _ => {
                return Err(escape_error(
                    body,
                    body_at,
                    i,
                    2,
                    "the escapes are \\a \\b \\f \\n \\r \\t \\v \\? \\\\ \\' \\\" \\NNN (octal) \\xHH \\uHHHH \\UHHHHHHHH",
                ));
            }
        }
    }
    Ok(())
}

/// `width` hexadecimal digits at `at`.
fn hex_code(body: &[u8], at: usize, width: usize) -> Option<u32> {
    let digits = body.get(at..at + width)?;
    let mut v: u32 = 0;
    for &d in digits {
        v = v
            .checked_mul(16)?
            .checked_add(char::from(d).to_digit(16)?)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unescape(s: &str) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        unescape_into(s.as_bytes(), 0, &mut out)?;
        Ok(out)
    }

    #[test]
    fn escapes_of_the_specification() {
        assert_eq!(
            unescape(r#"\a\b\f\n\r\t\v\?\\\'\""#).unwrap(),
            b"\x07\x08\x0c\n\r\t\x0b?\\'\""
        );
        // Up to three octal digits; the fourth passes through.
        assert_eq!(unescape(r"\1234").unwrap(), b"S4");
        assert_eq!(unescape(r"\5Hello").unwrap(), b"\x05Hello");
        assert_eq!(unescape(r"\x213").unwrap(), b"!3");
        assert_eq!(unescape(r"\xFHello").unwrap(), b"\x0fHello");
        assert_eq!(unescape(r"\u00e9\U0001F600").unwrap(), "é😀".as_bytes());
        assert_eq!(unescape(r"\ud83d\ude00").unwrap(), "😀".as_bytes());
        for bad in [
            r"\q",
            r"\x",
            r"\u12",
            r"\ud800",
            r"\U00110000",
            r"\777",
            r"\udc00",
        ] {
            assert_eq!(unescape(bad).unwrap_err().check(), "escape", "{bad}");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(int_value(b"1F", 16), Some(31));
        assert_eq!(int_value(b"18446744073709551615", 10), Some(u64::MAX));
        assert_eq!(int_value(b"18446744073709551616", 10), None);
        assert_eq!(special_float(b"-inf".get(1..).unwrap()), Some(true));
        assert_eq!(special_float(b"Infinity"), Some(true));
        assert_eq!(special_float(b"NaN"), Some(false));
        assert_eq!(special_float(b"inff"), Some(true));
        assert_eq!(special_float(b"info"), None);
        assert_eq!(float_value(b"1e400"), Some(f64::INFINITY));
        assert_eq!(float_value(b"5."), Some(5.0));
        assert_eq!(float_value(b".5"), Some(0.5));
    }
}
