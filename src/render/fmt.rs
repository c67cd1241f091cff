//! The primitives every view writes through besides the escaping of
//! [`crate::escape`] (JSON is written through [`crate::json_writer`]):
//! indentation and element text. A leaf of the render layer: it imports
//! the element type and the escaping.

use crate::escape::{hex_preview, is_unsafe_char, quoted, quoted_str};
use crate::tensor::Element;
use std::io::{self, Write};

/// Nesting levels shown as indentation; deeper lines keep this indentation
/// and say their depth (`[depth 240] `), so a deeply nested input cannot make
/// the output grow with the square of its depth.
pub const INDENT_LEVELS: usize = 32;

/// The indentation of a line at nesting level `depth` (every text view
/// indents through this).
pub fn indent(w: &mut dyn Write, depth: usize) -> io::Result<()> {
    const SPACES: &[u8; 2 * INDENT_LEVELS] = &[b' '; 2 * INDENT_LEVELS];
    let shown = depth.min(INDENT_LEVELS);
    w.write_all(SPACES.get(..2 * shown).unwrap_or(SPACES))?;
    if depth > INDENT_LEVELS {
        write!(w, "[depth {depth}] ")?;
    }
    Ok(())
}

/// The indentation of [`indent`] as a string (for code that takes a prefix).
pub fn pad(depth: usize) -> String {
    let mut out = Vec::new();
    let _ = indent(&mut out, depth);
    String::from_utf8(out).unwrap_or_default()
}

/// One element as text (floats in their shortest round-trip form).
pub fn element_text(e: Element<'_>) -> String {
    match e {
        Element::F32(v) => format!("{v:?}"),
        Element::F64(v) => format!("{v:?}"),
        Element::I64(v) => v.to_string(),
        Element::U64(v) => v.to_string(),
        Element::Bool(b) => b.to_string(),
        Element::C64(r, i) => format!("{r:?}{:+?}i", i),
        Element::C128(r, i) => format!("{r:?}{:+?}i", i),
        Element::Str(s) => quoted(s),
    }
}

/// A name as written in a graph line: bare when it cannot be misread,
/// quoted otherwise (empty names, spaces, punctuation of the line syntax).
pub fn name_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s)
            if !s.is_empty()
                && s.chars().all(|c| {
                    !is_unsafe_char(c) && !c.is_whitespace() && !",()[]{}=\"'#".contains(c)
                }) =>
        {
            s.to_string()
        }
        Ok(s) => quoted_str(s),
        Err(_) => hex_preview(bytes),
    }
}
