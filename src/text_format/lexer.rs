//! The tokens of protobuf's text format (the Text Format Language
//! Specification's lexical elements), each with its byte span: identifiers,
//! integer literals (decimal, octal, hexadecimal), float literals (with an
//! `f` suffix or without), string literals (single or double quotes, their
//! escapes decoded later by [`super::literal`]) and punctuation. Whitespace
//! and `#` comments are skipped. The input is bytes: the part found to be
//! UTF-8 is read, and reaching the first byte that is not is an error there.

use crate::error::{DecodeError, ErrorKind, Result};

/// One token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok<'a> {
    /// `letter { letter | dec }`.
    Ident(&'a [u8]),
    /// An integer literal: its digits (after `0x` for hexadecimal, after
    /// the leading `0` for octal) and radix.
    Int { digits: &'a [u8], radix: u32 },
    /// A float literal as written, without its `f`/`F` suffix.
    Float(&'a [u8]),
    /// A string literal's text between its quotes, and whether it holds a
    /// backslash (its escapes still to be decoded).
    Str { body: &'a [u8], escapes: bool },
    /// One of `{ } < > [ ] : , ; - / .`.
    Punct(u8),
    /// The end of the input.
    End,
}

/// A token and where it is in the input.
#[derive(Debug, Clone, Copy)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    /// Its first byte.
    pub at: usize,
    /// Past its last byte.
    pub end: usize,
}

/// Splits the text into tokens, one at a time, with one token of
/// look-ahead.
pub struct Lexer<'a> {
    text: &'a [u8],
    /// The bytes before this offset are UTF-8; the byte here (when it is
    /// inside the text) is not.
    valid: usize,
    pos: usize,
    peeked: Option<Token<'a>>,
}

/// Whether a byte may continue an identifier.
fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whitespace of the text format: space, tab, line feed, vertical tab, form
/// feed, carriage return.
fn space_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text` (a UTF-8 byte-order mark skipped).
    pub fn new(text: &'a [u8]) -> Lexer<'a> {
        let valid = match std::str::from_utf8(text) {
            Ok(_) => text.len(),
            Err(e) => e.valid_up_to(),
        };
        let pos = if text.starts_with(b"\xef\xbb\xbf") {
            3
        } else {
            0
        };
        Lexer {
            text,
            valid,
            pos,
            peeked: None,
        }
    }

    /// The whole text.
    pub fn text(&self) -> &'a [u8] {
        self.text
    }

    /// The next token, consumed.
    pub fn next(&mut self) -> Result<Token<'a>> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.scan(),
        }
    }

    /// The next token, left in place.
    pub fn peek(&mut self) -> Result<Token<'a>> {
        if let Some(t) = self.peeked {
            return Ok(t);
        }
        let t = self.scan()?;
        self.peeked = Some(t);
        Ok(t)
    }

    /// Consumes the next token when it is the punctuation `c`.
    pub fn eat(&mut self, c: u8) -> Result<bool> {
        if self.peek()?.tok == Tok::Punct(c) {
            self.peeked = None;
            return Ok(true);
        }
        Ok(false)
    }

    /// The byte at `i`, within the part that is UTF-8.
    fn byte(&self, i: usize) -> Option<u8> {
        if i < self.valid {
            self.text.get(i).copied()
        } else {
            None
        }
    }

    /// The error for reaching the end of the UTF-8 part: a byte that is
    /// not UTF-8, or none when the text ends there.
    fn not_utf8(&self) -> Option<DecodeError> {
        let byte = *self.text.get(self.valid)?;
        Some(DecodeError::new(
            ErrorKind::TextNotUtf8 { byte },
            self.valid as u64,
        ))
    }

    /// Skips whitespace and comments.
    fn skip_space(&mut self) {
        while let Some(b) = self.byte(self.pos) {
            if space_byte(b) {
                self.pos += 1;
            } else if b == b'#' {
                let rest = self.text.get(self.pos..self.valid).unwrap_or(&[]);
                match rest.iter().position(|&c| c == b'\n') {
                    Some(n) => self.pos += n + 1,
                    None => self.pos = self.valid,
                }
            } else {
                break;
            }
        }
    }

    fn scan(&mut self) -> Result<Token<'a>> {
        self.skip_space();
        let at = self.pos;
        let Some(b) = self.byte(at) else {
            if let Some(e) = self.not_utf8() {
                return Err(e);
            }
            return Ok(Token {
                tok: Tok::End,
                at,
                end: at,
            });
        };
        let tok = match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let mut end = at + 1;
                while self.byte(end).is_some_and(ident_byte) {
                    end += 1;
                }
                self.pos = end;
                Tok::Ident(self.slice(at, end))
            }
            b'0'..=b'9' => self.number(at)?,
            b'.' if self.byte(at + 1).is_some_and(|c| c.is_ascii_digit()) => self.number(at)?,
            b'"' | b'\'' => self.string(at, b)?,
            b'{' | b'}' | b'<' | b'>' | b'[' | b']' | b':' | b',' | b';' | b'-' | b'/' | b'.' => {
                self.pos = at + 1;
                Tok::Punct(b)
            }
            _ => {
                let ch = self
                    .text
                    .get(at..self.valid)
                    .and_then(|s| std::str::from_utf8(s).ok())
                    .and_then(|s| s.chars().next())
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                let expected = if matches!(ch, '\u{2018}' | '\u{2019}' | '\u{201c}' | '\u{201d}') {
                    "a straight quote, ' or \" (a typographic quote, from a web page or word processor?)"
                } else {
                    "a field name, a value or punctuation"
                };
                return Err(DecodeError::new(
                    ErrorKind::TextSyntax {
                        found: format!(
                            "the character {}",
                            crate::escape::quoted_str(&ch.to_string())
                        ),
                        expected,
                    },
                    at as u64,
                ));
            }
        };
        Ok(Token {
            tok,
            at,
            end: self.pos,
        })
    }

    fn slice(&self, from: usize, to: usize) -> &'a [u8] {
        self.text.get(from..to).unwrap_or(&[])
    }

    /// A number: `0x` hexadecimal, `0` octal, decimal, or a float (a
    /// fraction, an exponent or an `f` suffix). No identifier may follow it
    /// directly (`10bar`).
    fn number(&mut self, at: usize) -> Result<Tok<'a>> {
        let digit = |i: usize| self.byte(i).is_some_and(|c| c.is_ascii_digit());
        let hex = |i: usize| self.byte(i).is_some_and(|c| c.is_ascii_hexdigit());
        let mut end = at;
        let tok;
        if self.byte(at) == Some(b'0')
            && matches!(self.byte(at + 1), Some(b'x' | b'X'))
            && hex(at + 2)
        {
            end = at + 2;
            while hex(end) {
                end += 1;
            }
            tok = Tok::Int {
                digits: self.slice(at + 2, end),
                radix: 16,
            };
        } else {
            while digit(end) {
                end += 1;
            }
            let int_end = end;
            let mut float = false;
            if self.byte(end) == Some(b'.') {
                float = true;
                end += 1;
                while digit(end) {
                    end += 1;
                }
            }
            if matches!(self.byte(end), Some(b'e' | b'E')) {
                let sign = usize::from(matches!(self.byte(end + 1), Some(b'+' | b'-')));
                if digit(end + 1 + sign) {
                    float = true;
                    end += 1 + sign;
                    while digit(end) {
                        end += 1;
                    }
                }
            }
            let literal = self.slice(at, end);
            let suffix = matches!(self.byte(end), Some(b'f' | b'F'));
            let leading_zero = literal.len() > 1 && literal.first() == Some(&b'0');
            let octal = leading_zero && int_end > at + 1;
            if octal && (float || suffix) {
                return Err(self.bad_number(
                    at,
                    end + usize::from(suffix),
                    "an octal number has no fraction, exponent or f suffix",
                ));
            }
            if suffix {
                end += 1;
                float = true;
            }
            tok = if float {
                Tok::Float(literal)
            } else if octal {
                let digits = self.slice(at + 1, int_end);
                if digits.iter().any(|&c| c > b'7') {
                    return Err(self.bad_number(
                        at,
                        end,
                        "a number with a leading 0 is octal, and its digits are 0 to 7",
                    ));
                }
                Tok::Int { digits, radix: 8 }
            } else {
                Tok::Int {
                    digits: literal,
                    radix: 10,
                }
            };
        }
        if self.byte(end).is_some_and(ident_byte) || self.byte(end) == Some(b'.') {
            let mut stop = end;
            while self.byte(stop).is_some_and(|c| ident_byte(c) || c == b'.') {
                stop += 1;
            }
            return Err(self.bad_number(
                at,
                stop,
                "a number is followed by a space or punctuation, not a letter, digit or dot",
            ));
        }
        self.pos = end;
        Ok(tok)
    }

    fn bad_number(&self, at: usize, end: usize, why: &'static str) -> DecodeError {
        DecodeError::new(
            ErrorKind::TextSyntax {
                found: format!("the number {}", shown(self.slice(at, end))),
                expected: why,
            },
            at as u64,
        )
    }

    /// A string literal: up to the same quote, on one line; a backslash
    /// takes the byte after it along (its escape is checked when decoded).
    fn string(&mut self, at: usize, quote: u8) -> Result<Tok<'a>> {
        let start = at + 1;
        let rest = self.text.get(start..self.valid).unwrap_or(&[]);
        // The closing quote: the first one after an even number of
        // backslashes (memchr's vector search: a 20 MB string, or a
        // tensor's escaped bytes, is mostly not quotes).
        let mut from = 0usize;
        let i = loop {
            let Some(q) = rest
                .get(from..)
                .and_then(|r| memchr::memchr(quote, r))
                .map(|n| from + n)
            else {
                return Err(self.unterminated(at, quote));
            };
            let backslashes = rest
                .get(..q)
                .map_or(0, |b| b.iter().rev().take_while(|&&c| c == b'\\').count());
            if backslashes % 2 == 0 {
                break q;
            }
            from = q + 1;
        };
        let body = rest.get(..i).unwrap_or(&[]);
        // A string ends on its line: a newline in it, as it is or escaped,
        // leaves it unterminated.
        if memchr::memchr(b'\n', body).is_some() {
            return Err(self.unterminated(at, quote));
        }
        let escapes = memchr::memchr(b'\\', body).is_some();
        self.pos = start + i + 1;
        Ok(Tok::Str {
            body: self.slice(start, start + i),
            escapes,
        })
    }

    /// A string not closed: a byte that is not UTF-8 inside it is said
    /// first (the string may have gone on past it).
    fn unterminated(&self, at: usize, quote: u8) -> DecodeError {
        let line_end = self
            .text
            .get(at..)
            .and_then(|r| r.iter().position(|&c| c == b'\n'))
            .map_or(self.text.len(), |n| at + n);
        if self.valid < line_end
            && let Some(e) = self.not_utf8()
        {
            return e;
        }
        DecodeError::new(
            ErrorKind::TextUnterminated {
                quote: char::from(quote),
            },
            at as u64,
        )
    }
}

/// A token's text for a message: at most 40 characters, escaped.
pub fn shown(bytes: &[u8]) -> String {
    let cut = bytes.get(..40).unwrap_or(bytes);
    let text = String::from_utf8_lossy(cut);
    let more = if cut.len() < bytes.len() { "…" } else { "" };
    format!("{}{more}", crate::escape::quoted_str(&text))
}

/// What a token is, for a message (`the identifier "nodes"`, `'}'`).
pub fn describe(t: &Token<'_>) -> String {
    match t.tok {
        Tok::Ident(s) => format!("the name {}", shown(s)),
        Tok::Int { .. } | Tok::Float(_) => "a number".to_string(),
        Tok::Str { body, .. } => format!("the string {}", shown(body)),
        Tok::Punct(c) => format!("'{}'", char::from(c)),
        Tok::End => "the end of the file".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{Lexer, Tok};

    fn tokens(text: &str) -> Vec<Tok<'_>> {
        let mut lx = Lexer::new(text.as_bytes());
        let mut out = Vec::new();
        loop {
            let t = lx.next().unwrap();
            if t.tok == Tok::End {
                return out;
            }
            out.push(t.tok);
        }
    }

    #[test]
    fn numbers_as_the_specification_splits_them() {
        assert_eq!(
            tokens("10 10f 1.0f .5 5. 1e5 0x1F 017 0"),
            [
                Tok::Int {
                    digits: b"10",
                    radix: 10
                },
                Tok::Float(b"10"),
                Tok::Float(b"1.0"),
                Tok::Float(b".5"),
                Tok::Float(b"5."),
                Tok::Float(b"1e5"),
                Tok::Int {
                    digits: b"1F",
                    radix: 16
                },
                Tok::Int {
                    digits: b"17",
                    radix: 8
                },
                Tok::Int {
                    digits: b"0",
                    radix: 10
                },
            ]
        );
        assert_eq!(
            tokens("foo: 10[com.foo.ext]: 20"),
            [
                Tok::Ident(b"foo"),
                Tok::Punct(b':'),
                Tok::Int {
                    digits: b"10",
                    radix: 10
                },
                Tok::Punct(b'['),
                Tok::Ident(b"com"),
                Tok::Punct(b'.'),
                Tok::Ident(b"foo"),
                Tok::Punct(b'.'),
                Tok::Ident(b"ext"),
                Tok::Punct(b']'),
                Tok::Punct(b':'),
                Tok::Int {
                    digits: b"20",
                    radix: 10
                },
            ]
        );
        for bad in ["10bar", "1.5.3", "08", "01.5", "0x"] {
            assert!(Lexer::new(bad.as_bytes()).next().is_err(), "{bad}");
        }
    }

    #[test]
    fn strings_comments_and_the_end() {
        assert_eq!(
            tokens("# c\na: 'x\\'y' \"z\"# d"),
            [
                Tok::Ident(b"a"),
                Tok::Punct(b':'),
                Tok::Str {
                    body: b"x\\'y",
                    escapes: true
                },
                Tok::Str {
                    body: b"z",
                    escapes: false
                },
            ]
        );
        for bad in ["'abc", "\"a\nb\"", "\"a\\\n\""] {
            let e = Lexer::new(bad.as_bytes()).next().unwrap_err();
            assert_eq!(e.check(), "syntax", "{bad}");
        }
        let e = Lexer::new(b"a: \"x\xff\"").next().and_then(|_| {
            let mut lx = Lexer::new(b"a: \"x\xff\"");
            lx.next()?;
            lx.next()?;
            lx.next()
        });
        let e = e.unwrap_err();
        assert_eq!((e.check(), e.offset()), ("utf-8", 5));
    }
}
