//! Strings a file controls never reach the terminal raw. Every string field
//! of every model, container and TensorFlow fixture (names, ops, domains,
//! producer, attribute keys, devices, doc strings, metadata, ...) is given
//! terminal escape sequences, a newline that would fake an output line, and
//! a direction override; the text view of the result must hold no control
//! character but its own line ends, and exactly as many lines as the
//! original. JSON escapes control characters by its own rules.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod common;

use common::json;
use pbdecode::formats::{self, Body, FormatOptions};
use pbdecode::render::RenderOptions;
use pbdecode::render::text::{is_unsafe_char, plain, quoted};
use pbdecode::schema::{FieldType, MsgId, Scalar, SchemaSet};
use pbdecode::wire::{FieldReader, WireValue};

const HOSTILE: &str = "\u{1b}[2J\u{1b}]0;title\u{7}\nfake: line\r\u{9b}31m\u{202e}x";

/// Bytes fields that hold text a view prints (TensorFlow's string attrs
/// and string tensors, ONNX string tensors).
const TEXT_BYTES: &[&str] = &["s", "string_val", "string_data"];

/// Re-encodes `buf` as message `id` with the hostile suffix appended to
/// every non-empty string field (recursing into nested messages), but for
/// external data's location, which must still name the side file.
fn poison(set: &SchemaSet, id: MsgId, buf: &[u8], base: u64) -> Vec<u8> {
    let def = set.message(id);
    let mut out = Vec::new();
    for field in FieldReader::new(buf, base) {
        let Ok(f) = field else {
            return buf.to_vec();
        };
        let start = usize::try_from(f.offset - base).unwrap_or(0);
        let end = usize::try_from(f.end - base).unwrap_or(0);
        let original = buf.get(start..end).unwrap_or(&[]);
        let known = def.field_by_number(f.number).map(|(_, d)| d);
        let new_payload = match (known, f.value) {
            (Some(d), WireValue::Len(p)) => match d.ty {
                FieldType::Message(_) if d.name == "external_data" => None,
                FieldType::Message(sub) => Some(poison(set, sub, p, f.value_offset)),
                FieldType::Scalar(Scalar::String) if !p.is_empty() => {
                    let mut v = p.to_vec();
                    v.extend_from_slice(HOSTILE.as_bytes());
                    Some(v)
                }
                FieldType::Scalar(Scalar::Bytes)
                    if !p.is_empty()
                        && TEXT_BYTES.contains(&d.name.as_str())
                        && std::str::from_utf8(p).is_ok() =>
                {
                    let mut v = p.to_vec();
                    v.extend_from_slice(HOSTILE.as_bytes());
                    Some(v)
                }
                _ => None,
            },
            _ => None,
        };
        match new_payload {
            Some(p) => {
                common::put_varint(&mut out, (u64::from(f.number) << 3) | 2);
                common::put_varint(&mut out, p.len() as u64);
                out.extend_from_slice(&p);
            }
            None => out.extend_from_slice(original),
        }
    }
    out
}

fn text_of(bytes: &[u8]) -> Option<(String, String, &'static str)> {
    let decoded = formats::detect(bytes, &FormatOptions::default()).ok()?;
    let opts = RenderOptions::default();
    let (text, json) = common::render(&decoded, &opts);
    Some((text, json, decoded.format.id))
}

#[test]
fn escapes_every_string_a_file_controls() {
    let set = SchemaSet::builtin();
    let mut checked = 0;
    let mut poisoned_total = 0;
    for (name, bytes) in common::all_fixture_files() {
        if !(name.starts_with("onnx-model/")
            || name.starts_with("onnx-containers/")
            || name.starts_with("tf/"))
            || name.ends_with(".md")
            || name.ends_with(".json")
            || name.ends_with(".data")
        {
            continue;
        }
        let Ok(decoded) = formats::detect(&bytes, &FormatOptions::default()) else {
            continue;
        };
        let Body::Message { type_name, .. } = &decoded.body else {
            continue;
        };
        let Some(id) = set.find_message(type_name) else {
            continue;
        };
        let poisoned = poison(set, id, &bytes, 0);
        if poisoned == bytes {
            continue;
        }
        let (clean, _, format) = text_of(&bytes).unwrap_or_default();
        let Some((text, json_text, format2)) = text_of(&poisoned) else {
            panic!("{name}: the poisoned file no longer decodes");
        };
        assert_eq!(format, format2, "{name}: detected differently");
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.chars().any(is_unsafe_char),
                "{name}: line {n} holds an unescaped control character: {line:?}"
            );
        }
        assert_eq!(
            clean.lines().count(),
            text.lines().count(),
            "{name}: a string made its own output lines:\n{text}"
        );
        poisoned_total += text.matches("\\u{1b}[2J").count();
        // JSON: control characters escaped by the JSON rules; it parses.
        if let Some(at) = json_text.trim_end().find(|c: char| c.is_control()) {
            let from = json_text.floor_char_boundary(at.saturating_sub(80));
            panic!(
                "{name}: raw control character in JSON: {:?}",
                json_text.get(from..at + 1)
            );
        }
        json::parse(&json_text).unwrap_or_else(|e| panic!("{name}: JSON does not parse: {e:?}"));
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} fixtures checked");
    assert!(poisoned_total > 50, "only {poisoned_total} strings shown");
}

#[test]
fn the_escaping_primitive() {
    assert_eq!(plain("conv1/weight"), "conv1/weight");
    assert_eq!(plain("a\u{1b}[2Jb\nc"), "a\\u{1b}[2Jb\\nc");
    assert_eq!(plain("x\u{202e}y\u{9b}"), "x\\u{202e}y\\u{9b}");
    // Text a person writes in any script stays as it is.
    assert_eq!(plain("नमस्ते café 重み"), "नमस्ते café 重み");
    assert_eq!(quoted(b"a\"b\x1b"), "\"a\\\"b\\u{1b}\"");
    assert_eq!(quoted("\u{2066}".as_bytes()), "\"\\u{2066}\"");
    // JSON: C0, C1, direction and invisible characters as \uXXXX (the
    // value read back is the same), other text as it is.
    let json_of = |s: &str| {
        let mut out = Vec::new();
        pbdecode::render::json::string(&mut out, s).unwrap();
        String::from_utf8(out).unwrap()
    };
    assert_eq!(
        json_of("a\u{1b}\u{9b}\u{202e}\u{200b}\u{feff}\u{2028}é重"),
        "\"a\\u001b\\u009b\\u202e\\u200b\\ufeff\\u2028é重\""
    );
    assert_eq!(
        json::parse(&json_of(HOSTILE)).unwrap().as_str(),
        Some(HOSTILE)
    );
}
