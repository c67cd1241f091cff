//! No nesting in the input can overflow the stack: decoding with a schema
//! stops at `decode::MAX_NESTING` levels whatever `--max-depth` asks (the
//! deeper part is shown read without the schema, which, like the schemaless
//! reader, nests on the heap), and the renderers of the decoded tree follow
//! it. Each path (user .proto, descriptor set, built-in formats, --as
//! protobuf) is run through the binary on a 12,000-deep message, in text and
//! in JSON.
//!
//! What this suite checks, in full: 12,000-deep messages through every decode path, text and JSON.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::{Msg, varint};
use std::io::Write;
use std::process::{Command, Output, Stdio};

const REC_PROTO: &str = "tests/fixtures/deep/rec.proto";
const REC_DESC: &str = "tests/fixtures/deep/rec.desc";

/// `r.M { M m = 1; int32 v = 2; }` nested `depth` times around `v: 1`.
fn deep(depth: usize) -> Vec<u8> {
    let mut inner = Msg::new().varint(2, 1).buf;
    for _ in 0..depth {
        let mut outer = vec![0x0a];
        outer.extend(varint(inner.len() as u64));
        outer.extend(&inner);
        inner = outer;
    }
    inner
}

fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn check(args: &[&str], input: &[u8], exit: i32) -> (String, String) {
    let out = run(args, input);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(exit), "{args:?}: {stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

/// JSON from a deep message: balanced and complete (a parser would recurse).
fn balanced(json: &str) -> bool {
    let mut depth = 0i64;
    let mut in_str = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0 && !in_str
}

#[test]
fn a_user_schema_with_a_huge_max_depth_stops_at_the_hard_limit() {
    let bytes = deep(12_000);
    let base = [
        "--schema",
        REC_PROTO,
        "--type",
        "r.M",
        "--max-depth",
        "1000000",
    ];
    let (text, err) = check(&base, &bytes, 0);
    assert!(err.contains("capped at 1000 levels"), "{err}");
    // 1000 levels with the schema, then the rest read without it.
    assert!(
        text.contains("(LEN, not in the schema)"),
        "{}",
        &text[..200]
    );
    assert_eq!(text.matches("m {").count(), 1000);
    let json = [&base[..], &["--json"]].concat();
    let (out, _) = check(&json, &bytes, 0);
    assert!(
        out.starts_with("{\"format\": \"protobuf\", \"syntax\": \"binary\", \"type\": \"r.M\"")
    );
    assert!(balanced(&out));
    // Within the limit everything is read with the schema.
    let (text, err) = check(&base, &deep(900), 0);
    assert!(!text.contains("not in the schema"));
    assert!(text.contains("v: 1"));
    assert!(err.contains("capped"));
}

#[test]
fn a_descriptor_set_is_held_to_the_same_limit() {
    let bytes = deep(12_000);
    for extra in [&[][..], &["--json"][..]] {
        let args = [
            &[
                "--descriptor-set",
                REC_DESC,
                "--type",
                "r.M",
                "--max-depth",
                "4000000000",
            ][..],
            extra,
        ]
        .concat();
        let (out, _) = check(&args, &bytes, 0);
        assert!(out.contains("r.M"));
        if !extra.is_empty() {
            assert!(balanced(&out));
        }
    }
}

#[test]
fn built_in_formats_and_the_schemaless_reader_take_any_depth() {
    let bytes = deep(12_000);
    // Detection: every format's decoder stops at 100 levels; the schemaless
    // reading shows the rest as bytes below --max-depth.
    for extra in [&[][..], &["--json"][..]] {
        let (out, _) = check(extra, &bytes, 0);
        assert!(out.contains("protobuf"));
        let args = [&["--as", "onnx-model"][..], extra].concat();
        let (_, err) = check(&args, &bytes, 1);
        assert!(err.contains("not onnx-model"), "{err}");
        let args = [&["--as", "protobuf", "--max-depth", "1000000"][..], extra].concat();
        let (out, _) = check(&args, &bytes, 0);
        if extra.is_empty() {
            assert!(out.contains("2 varint = 1"));
        } else {
            assert!(balanced(&out));
        }
    }
}
