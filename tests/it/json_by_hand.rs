//! Every JSON output goes through the one writer, `src/json_writer.rs`:
//! this test reads the library's and the binary's sources and fails on JSON
//! punctuation written by hand anywhere else, that is on
//!
//! - a quoted key and its colon in a string literal (`"{{\"format\": "`,
//!   `b", \"size\": "`),
//! - `null` written as a literal (`write!(w, "null")`, `b"null"`),
//! - in a function that writes JSON (its name says `json` or it takes a
//!   `JsonWriter`), a separator, bracket or brace written as a literal
//!   (the comma loop `if i > 0 { write!(w, ", ")?; }`, `write!(w, "[")`).
//!
//! Test modules inside `src/` are left out (their expected outputs are
//! JSON text).
//!
//! What this suite checks, in full: JSON is written only through `src/json_writer.rs` (a quoted key,
//! a `null`, or a separator or bracket written as a literal in a function
//! that writes JSON, anywhere else in `src/`, fails it).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;
use std::path::Path;

/// The writer, the one file allowed to spell JSON.
const WRITER: &str = "src/json_writer.rs";

/// The code of a file, line by line, with comment lines emptied and
/// without its test module (from `#[cfg(test)]` before `mod` to the end:
/// test modules close the files of this crate).
fn code_of(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines
                .get(i + 1)
                .is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            break;
        }
        code.push(if t.starts_with("//") { "" } else { *line });
    }
    code
}

/// The string literals of some code: the line each starts on (from 1),
/// whether it is a byte string, and its text as written (escapes kept).
/// A literal may run over several lines.
fn literals(code: &str) -> Vec<(usize, bool, String)> {
    let mut out = Vec::new();
    let mut chars = code.chars().peekable();
    let mut line = 1;
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '\'' => {
                // A char literal ('"', '\\', '{') or a lifetime: skip a
                // literal's body so that its quote opens no string.
                let ahead: Vec<char> = chars.clone().take(3).collect();
                let skip = match ahead.as_slice() {
                    ['\\', _, '\'', ..] => 3,
                    [_, '\'', ..] => 2,
                    _ => 0,
                };
                for _ in 0..skip {
                    chars.next();
                }
            }
            '"' => {
                let start = line;
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            text.push(c);
                            if let Some(e) = chars.next() {
                                line += usize::from(e == '\n');
                                text.push(e);
                            }
                        }
                        '"' => break,
                        c => {
                            line += usize::from(c == '\n');
                            text.push(c);
                        }
                    }
                }
                out.push((start, prev == 'b', text));
            }
            _ => {}
        }
        prev = c;
    }
    out
}

/// A quoted key followed by its colon, `\"name\":`, in a literal.
fn has_quoted_key(lit: &str) -> bool {
    let mut rest = lit;
    while let Some(i) = rest.find("\\\"") {
        let after = &rest[i + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_len > 0 && after[name_len..].starts_with("\\\":") {
            return true;
        }
        rest = after;
    }
    false
}

/// The literals that only JSON punctuation would be: a separator, a
/// bracket, a brace (doubled in a format string).
fn is_json_punctuation(bytes: bool, lit: &str) -> bool {
    matches!(lit, ", " | "," | "[" | "]" | "{{" | "}}" | "]}}" | "}}]")
        || (bytes && matches!(lit, "{" | "}" | "]}"))
}

/// Where a source writes JSON by hand: `(line, what)`.
fn by_hand(text: &str) -> Vec<(usize, String)> {
    let code = code_of(text);
    // Whether the function each line is in writes JSON (by line, from 1).
    let mut json_fn = vec![false];
    let mut in_json_fn = false;
    let mut header: Option<String> = None;
    for line in &code {
        let t = line.trim_start();
        let starts_fn = ["fn ", "pub fn ", "pub(crate) fn ", "pub(super) fn "]
            .iter()
            .any(|p| t.starts_with(p));
        if starts_fn {
            header = Some(String::new());
        }
        if let Some(h) = header.as_mut() {
            h.push_str(t);
            if t.contains('{') || t.ends_with(';') {
                let h = header.take().unwrap_or_default();
                let name = h.split('(').next().unwrap_or("");
                in_json_fn = name.to_ascii_lowercase().contains("json") || h.contains("JsonWriter");
            }
        }
        json_fn.push(in_json_fn);
    }
    let mut found = Vec::new();
    for (n, bytes, lit) in literals(&code.join("\n")) {
        let line = code.get(n - 1).copied().unwrap_or("");
        if has_quoted_key(&lit) {
            found.push((n, format!("a key written by hand: {lit:?}")));
        } else if lit == "null" && (bytes || line.contains("write")) {
            found.push((n, "null written by hand".to_string()));
        } else if json_fn.get(n).copied().unwrap_or(false) && is_json_punctuation(bytes, &lit) {
            found.push((n, format!("JSON punctuation written by hand: {lit:?}")));
        }
    }
    found
}

#[test]
fn json_is_written_only_through_the_writer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    common::rust_files(&root.join("src"), &mut files);
    assert!(root.join(WRITER).is_file(), "{WRITER} found");
    let mut problems = Vec::new();
    let mut scanned = 0;
    for f in &files {
        let rel = f
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == WRITER {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for (line, what) in by_hand(&text) {
            problems.push(format!("{rel}:{line}: {what}"));
        }
        scanned += 1;
    }
    assert!(scanned > 50, "only {scanned} files scanned");
    assert!(
        problems.is_empty(),
        "JSON written outside {WRITER} (write it through JsonWriter):\n  {}",
        problems.join("\n  ")
    );
}

/// The scan finds the ways JSON was written by hand before the writer, and
/// passes code written through it.
#[test]
fn the_scan_finds_json_written_by_hand() {
    let by_hand_samples = [
        r#"fn f(w: &mut dyn Write) { write!(w, "{{\"format\": ")?; }"#,
        r#"fn f(w: &mut Vec<u8>) { w.extend_from_slice(b", \"error\": "); }"#,
        r#"fn f(w: &mut dyn Write) { write!(w, ", \"offset\": {}, \"message\": ", o)?; }"#,
        r#"fn f(w: &mut dyn Write) { write!(w, "null")?; }"#,
        r#"fn f(w: &mut Vec<u8>) { w.extend_from_slice(b"null"); }"#,
        "fn dims_json(w: &mut Vec<u8>, d: &[i64]) {\n    for (i, x) in d.iter().enumerate() {\n        if i > 0 {\n            w.extend_from_slice(b\", \");\n        }\n    }\n}",
        "fn write_list(w: &mut JsonWriter<'_>) {\n    write!(w.raw(), \"[\")?;\n}",
        "fn stats_json(w: &mut dyn Write) -> io::Result<()> {\n    write!(w, \"}}\")\n}",
    ];
    for sample in by_hand_samples {
        assert!(!by_hand(sample).is_empty(), "not found: {sample}");
    }
    let fine = [
        // Through the writer.
        "fn head(w: &mut JsonWriter<'_>) -> io::Result<()> {\n    w.begin_object()?;\n    w.member(\"format\", id)?;\n    w.end_object()\n}",
        // Text views and messages: separators and quotes that are not JSON.
        "fn list_text(items: &[String]) -> String {\n    items.join(\", \")\n}",
        r#"fn m() -> String { format!("{shown}: import \"{}\": {why}", a) }"#,
        // A literal over two lines.
        "fn note_json(w: &mut JsonWriter<'_>) {\n    w.member(\"k\", &format!(\"{} a; \\\n         b {}\",\n        x, y))?;\n}",
        // A test module's expected JSON.
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    const J: &str = \"{\\\"a\\\": null}\";\n}",
    ];
    for sample in fine {
        assert_eq!(by_hand(sample), Vec::new(), "flagged: {sample}");
    }
}
