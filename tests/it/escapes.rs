//! Strings a file controls never reach the terminal raw. Every string field
//! of every model, container and TensorFlow fixture (names, ops, domains,
//! producer, attribute keys, devices, doc strings, metadata, ...) is given
//! terminal escape sequences, a newline that would fake an output line, and
//! a direction override; the text view of the result must hold no control
//! character but its own line ends, and exactly as many lines as the
//! original. JSON escapes control characters by its own rules.
//!
//! What this suite checks, in full: every string field of every model and TensorFlow fixture given
//! escape sequences and newlines, which the text views must escape without
//! adding a line; a test folder, a batch, two folders to compare and a
//! descriptor set whose every name (model strings, file and folder names)
//! holds escape sequences, line ends, C1, bidi and zero-width characters,
//! through every text and JSON output and the messages that repeat a path,
//! none reaching stdout or stderr raw; and a check that the text lines of
//! those outputs end only through `TextLines`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::json;
use common::{Msg, build};
use pbdecode::escape::{is_unsafe_char, plain, quoted};
use pbdecode::formats::{self, Body, FormatOptions};
use pbdecode::render::RenderOptions;
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
        pbdecode::escape::string(&mut out, s).unwrap();
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

// ------------------------------------------- test folders, batches, diff

/// Every kind of text a terminal acts on or hides: an erase-screen and a
/// title sequence ending in BEL, a line end faking a line of output, a
/// carriage return, the one-byte C1 CSI and NEL, a direction override, a
/// zero-width space and a byte-order mark, and a tab.
const HOSTILE_NAME: &str =
    "\u{1b}[2J\u{1b}]0;title\u{7}\n== fake: line\r\u{9b}31m\u{85}\u{202e}\u{200b}\u{feff}\tx";

fn h(s: &str) -> String {
    format!("{s}{HOSTILE_NAME}")
}

/// A fresh folder under the system's temporary folder, removed on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("pbdecode-escapes-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A ValueInfoProto: a FLOAT tensor with these dims (a name: dim_param).
fn tensor_input(name: &str, dims: &[&str]) -> Msg {
    let shape = dims.iter().fold(Msg::new(), |s, d| {
        let dim = match d.parse::<u64>() {
            Ok(v) => Msg::new().varint(1, v),
            Err(_) => Msg::new().string(2, d).string(3, &h("denotation")),
        };
        s.message(1, &dim)
    });
    let tensor = Msg::new().varint(1, 1).message(2, &shape);
    Msg::new()
        .string(1, name)
        .message(2, &Msg::new().message(1, &tensor))
        .string(3, &h("doc"))
}

/// A model whose every string is hostile: graph inputs x (FLOAT[N, 2],
/// N a hostile dim_param), w (fed by an initializer) and o (an opaque type
/// of hostile domain and name), output y; a node, doc strings, producer.
/// `weight` is w's value (two models differing in it differ in a tensor).
fn hostile_model(weight: f32) -> Vec<u8> {
    let w = h("w");
    let opaque = Msg::new().string(1, &h("o")).message(
        2,
        &Msg::new().message(7, &Msg::new().string(1, &h("domain")).string(2, &h("name"))),
    );
    let node = Msg::new()
        .string(1, &h("x"))
        .string(1, &w)
        .string(2, &h("y"))
        .string(3, &h("node"))
        .string(4, &h("Add"))
        .string(6, &h("doc"))
        .string(7, &h("domain"));
    let graph = Msg::new()
        .message(1, &node)
        .string(2, &h("graph"))
        .len_field(5, &build::onnx_f32(&w, &[2], &[weight, 2.0]))
        .string(10, &h("doc"))
        .message(11, &tensor_input(&h("x"), &[&h("N"), "2"]))
        .message(11, &tensor_input(&w, &["2"]))
        .message(11, &opaque)
        .message(12, &tensor_input(&h("y"), &[&h("M")]));
    Msg::new()
        .varint(1, 8)
        .string(2, &h("producer"))
        .string(3, &h("1.0"))
        .string(6, &h("doc"))
        .message(7, &graph)
        .bytes()
}

/// A test folder named with hostile text: the model, a data set with a
/// mismatching input 0 (FLOAT[3, 4] declared [N, 2]), input 1 (the opaque
/// input), input 2 (not in the model) and output 0 (INT64, declared
/// FLOAT), and a second data set whose folder name is hostile.
fn hostile_test_folder(at: &std::path::Path, weight: f32) -> std::path::PathBuf {
    let dir = at.join(h("test"));
    let set0 = dir.join("test_data_set_0");
    let set1 = dir.join(h("test_data_set_1"));
    std::fs::create_dir_all(&set0).unwrap();
    std::fs::create_dir_all(&set1).unwrap();
    std::fs::write(dir.join("model.onnx"), hostile_model(weight)).unwrap();
    let x = build::onnx_f32(&h("t"), &[3, 4], &[weight; 12]);
    std::fs::write(set0.join("input_0.pb"), &x).unwrap();
    std::fs::write(
        set0.join("input_1.pb"),
        build::onnx_f32(&h("t"), &[1], &[1.0]),
    )
    .unwrap();
    std::fs::write(
        set0.join("input_2.pb"),
        build::onnx_f32(&h("t"), &[1], &[1.0]),
    )
    .unwrap();
    std::fs::write(
        set0.join("output_0.pb"),
        build::onnx_raw(&h("t"), &[1], 7, &5i64.to_le_bytes()),
    )
    .unwrap();
    std::fs::write(set1.join("input_0.pb"), &x).unwrap();
    dir
}

struct Ran {
    what: String,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn decode_in(dir: &std::path::Path, args: &[&str]) -> Ran {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run decode");
    Ran {
        what: format!("{args:?}"),
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Where a run wrote a character a terminal acts on or hides (all but the
/// line ends of the output itself).
fn raw_characters(r: &Ran) -> Vec<String> {
    let mut found = Vec::new();
    for (stream, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
        if let Some((n, line)) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.chars().any(is_unsafe_char))
        {
            found.push(format!(
                "{}: {stream} line {n} holds a raw control or invisible character: {line:?}",
                r.what
            ));
        }
    }
    found
}

/// The hostile text reached the output, escaped (as text or JSON), so the
/// run showed the names it was meant to.
fn shown_escaped(text: &str) -> usize {
    text.matches("\\u{1b}[2J").count() + text.matches("\\u001b[2J").count()
}

#[test]
fn test_folders_batches_and_diffs_escape_every_name() {
    let tmp = TempDir::new("names");
    let base = &tmp.0;
    let folder = hostile_test_folder(base, 1.0);
    let name = |p: &std::path::Path| p.strip_prefix(base).unwrap().to_str().unwrap().to_string();
    let folder_arg = name(&folder);
    let input0 = format!("{folder_arg}/test_data_set_0/input_0.pb");
    let model = format!("{folder_arg}/model.onnx");
    // A second copy differing in one weight, one input and one file.
    let other_dir = base.join(h("other"));
    std::fs::create_dir_all(&other_dir).unwrap();
    let other = hostile_test_folder(&other_dir, 2.0);
    std::fs::write(other.join(h("only here")), b"\x08\x01").unwrap();
    let other_arg = name(&other);
    let other_model = format!("{other_arg}/model.onnx");
    // Loose files of a batch: a tensor and a file that is not protobuf,
    // in a hostile folder.
    let loose = base.join(h("loose"));
    std::fs::create_dir_all(&loose).unwrap();
    std::fs::write(
        loose.join(h("file")),
        build::onnx_f32(&h("t"), &[2], &[1.0, 2.0]),
    )
    .unwrap();
    std::fs::write(loose.join(h("bad")), b"\xff\xff\xff").unwrap();
    let not_a_test = base.join(h("plain folder"));
    std::fs::create_dir_all(&not_a_test).unwrap();
    let missing = h("missing");

    // Every problem is collected, so that one run lists every output that
    // lets a name through.
    let problems = std::cell::RefCell::new(Vec::<String>::new());
    let expect = |ok: bool, what: String| {
        if !ok {
            problems.borrow_mut().push(what);
        }
    };
    let mut shown = 0;
    let mut run = |args: &[&str]| {
        let r = decode_in(base, args);
        problems.borrow_mut().extend(raw_characters(&r));
        shown += shown_escaped(&r.stdout) + shown_escaped(&r.stderr);
        r
    };

    // The test-folder view: one "== " line per file, warnings on stderr.
    let r = run(&[&folder_arg]);
    expect(r.code == Some(0), format!("folder view: {}", r.stderr));
    let files = r.stdout.lines().filter(|l| l.starts_with("== ")).count();
    expect(
        files == 5,
        format!("folder view: {files} files:\n{}", r.stdout),
    );
    for (what, text) in [
        ("initializer-fed input", "fed by initializers: w\\u{1b}[2J"),
        ("dim_param", "N\\u{1b}[2J"),
        ("opaque type", "opaque(domain\\u{1b}[2J"),
    ] {
        expect(
            r.stdout.contains(text),
            format!("folder view: {what} not shown escaped"),
        );
    }
    expect(
        r.stderr.contains("warning"),
        format!("folder view: {}", r.stderr),
    );
    let r = run(&["--json", &folder_arg]);
    expect(
        r.stdout.lines().count() == 5,
        format!("folder JSON:\n{}", r.stdout),
    );
    for line in r.stdout.lines() {
        expect(json::parse(line).is_ok(), format!("folder JSON: {line}"));
    }
    // One file named by its model, text and JSON; the model itself.
    let r = run(&[&input0]);
    expect(
        r.stdout.starts_with("model:  test\\u{1b}[2J"),
        format!("file view:\n{}", r.stdout),
    );
    expect(
        r.stderr.lines().count() == 1,
        format!("file view:\n{}", r.stderr),
    );
    run(&["--json", &input0]);
    run(&[&model]);
    run(&["--json", &model]);
    let r = run(&["--tensor", &h("w"), &model]);
    expect(
        r.code == Some(0) && r.stdout.contains("tensor: \"w\\u{1b}[2J"),
        format!("--tensor: {}{}", r.stdout, r.stderr),
    );
    // Batches: one table row per file, JSON Lines.
    let mut all = Vec::new();
    let not_read = pbdecode::batch::collect_files(base, &mut all);
    assert!(not_read.is_empty(), "{not_read:?}");
    let r = run(&["-r", "."]);
    let rows = r.stdout.lines().count() - 1;
    expect(
        rows == all.len(),
        format!("batch table: {rows} rows:\n{}", r.stdout),
    );
    let r = run(&["--jsonl", "-r", "."]);
    expect(
        r.stdout.lines().count() == all.len(),
        "batch JSON Lines".into(),
    );
    // decode diff: two folders, two models; text and JSON.
    for pair in [[&folder_arg, &other_arg], [&model, &other_model]] {
        let r = run(&[&["diff"], &pair.map(String::as_str)[..]].concat());
        expect(r.code == Some(1), format!("diff {pair:?}: {}", r.stderr));
        run(&[&["diff", "--json"], &pair.map(String::as_str)[..]].concat());
    }
    let r = run(&["diff", &folder_arg, &other_arg]);
    // Six files on both sides, one only in actual.
    let headers = r.stdout.lines().filter(|l| l.starts_with("== ")).count();
    let only = r
        .stdout
        .lines()
        .filter(|l| l.ends_with(": only in actual"))
        .count();
    expect(
        (headers, only) == (7, 1),
        format!(
            "diff of folders: {headers} files, {only} on one side:\n{}",
            r.stdout
        ),
    );
    // Messages that repeat a file name: not found, not a test folder, not
    // the format asked for, a directory as an output, an argument clap
    // turns down.
    let loose_file = format!("{}/{}", name(&loose), h("file"));
    let not_a_test_arg = name(&not_a_test);
    for args in [
        vec![missing.as_str()],
        vec!["--jsonl", missing.as_str(), &input0],
        vec!["diff", missing.as_str(), &input0],
        vec![not_a_test_arg.as_str()],
        vec!["--as", "tf-graph-def", &loose_file],
        vec!["--npy", &not_a_test_arg, &loose_file],
        vec!["--as", &missing, &loose_file],
        vec!["--values", &missing, &loose_file],
    ] {
        let r = run(&args);
        let named = shown_escaped(&r.stdout) + shown_escaped(&r.stderr);
        expect(
            r.code != Some(0) && named > 0,
            format!("{args:?}: {}{}", r.stdout, r.stderr),
        );
    }
    let problems = problems.into_inner();
    // Shown escaped, so that a failure does not act on the terminal.
    let shown_problems: Vec<String> = problems
        .iter()
        .flat_map(|p| p.lines().map(|l| plain(l).into_owned()))
        .collect();
    assert!(problems.is_empty(), "{}", shown_problems.join("\n"));
    assert!(shown > 40, "only {shown} hostile strings shown");
}

/// The files whose text output shows names from files and file names:
/// the test-data layer, and every file of the command line.
fn name_outputs(root: &std::path::Path) -> Vec<String> {
    let mut files: Vec<String> = ["src/testdata.rs", "src/diff.rs", "src/batch.rs"]
        .map(String::from)
        .to_vec();
    for entry in std::fs::read_dir(root.join("src/cli")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".rs") {
            files.push(format!("src/cli/{name}"));
        }
    }
    files.sort();
    files
}

/// The format string of each `name!(` macro call in `code` (None when the
/// call has none: `writeln!(w)`; Err when it is not a string literal).
fn format_strings(code: &str, name: &str) -> Vec<(usize, Result<Option<String>, String>)> {
    let mut found = Vec::new();
    let call = format!("{name}!(");
    let mut from = 0;
    while let Some(at) = code[from..].find(&call) {
        let start = from + at;
        from = start + call.len();
        // Skip the writer: up to the first comma outside brackets.
        let rest = &code[from..];
        let mut depth = 0;
        let mut after = None;
        for (i, c) in rest.char_indices() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => break,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    after = Some(i + 1);
                    break;
                }
                _ => {}
            }
        }
        let line = code[..start].lines().count();
        let Some(after) = after else {
            found.push((line, Ok(None)));
            continue;
        };
        let lit = rest[after..].trim_start();
        let Some(body) = lit.strip_prefix('"') else {
            found.push((line, Err(lit.chars().take(40).collect())));
            continue;
        };
        let mut text = String::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    text.push(c);
                    text.extend(chars.next());
                }
                '"' => break,
                c => text.push(c),
            }
        }
        found.push((line, Ok(Some(text))));
    }
    found
}

/// The one way a line of these outputs that holds a value ends is
/// `TextLines::line`, which escapes the whole line (JSON lines end through
/// the JSON writer, which escapes every string): there, `writeln!` only
/// ends a line of literal text, and no `write!` holds a line end. A new
/// text line written as `writeln!(w, "{name}")` fails here.
#[test]
fn name_outputs_end_lines_only_through_the_escaping_writer() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let files = name_outputs(root);
    assert!(files.len() > 10, "{files:?}");
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let code: String = text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("//") {
                    ""
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        for (line, fmt) in format_strings(&code, "writeln") {
            match fmt {
                Ok(None) => {}
                Ok(Some(f)) => assert!(
                    !f.replace("{{", "").replace("}}", "").contains('{'),
                    "{file}:{line}: writeln! of a value ({f:?}): write the line through TextLines::line"
                ),
                Err(e) => {
                    panic!("{file}:{line}: writeln! with a format that is not a literal: {e}")
                }
            }
            checked += 1;
        }
        for (line, fmt) in format_strings(&code, "write") {
            if let Ok(Some(f)) = &fmt {
                assert!(
                    !f.contains("\\n"),
                    "{file}:{line}: write! of a line end ({f:?}): write the line through TextLines::line"
                );
            }
            checked += 1;
        }
        if file != "src/cli/stderr.rs" {
            for mac in ["println!", "print!(", "eprintln!", "eprint!("] {
                assert!(
                    !code.contains(mac),
                    "{file}: {mac}: messages go through say!"
                );
            }
        }
    }
    // Few remain (text goes through TextLines, JSON through its writer):
    // the scan is shown to find them on a sample.
    assert!(checked > 0, "no write! or writeln! call seen");
    let sample = "writeln!(w, \"{name}\")?;\nwrite!(out, \"a\\n\")?;\nwriteln!(w)?;";
    assert_eq!(
        format_strings(sample, "writeln"),
        [(0, Ok(Some("{name}".to_string()))), (2, Ok(None))]
    );
    assert_eq!(
        format_strings(sample, "write"),
        [(1, Ok(Some("a\\n".to_string())))]
    );
    // The binary prints from one module only, which escapes every line: the
    // print lints are allowed nowhere else.
    let mut allowed = Vec::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                if text.contains("clippy::print_stderr") || text.contains("clippy::print_stdout") {
                    allowed.push(path.strip_prefix(root).unwrap().display().to_string());
                }
            }
        }
    }
    assert_eq!(allowed, ["src/cli/stderr.rs"]);
}

/// `--dump-schema` of a descriptor set whose message, field, oneof, enum
/// and value names are hostile: text and JSON show them escaped.
#[test]
fn schema_dumps_escape_descriptor_names() {
    let tmp = TempDir::new("schema");
    let field = Msg::new()
        .string(1, &h("field"))
        .varint(3, 1)
        .varint(4, 1)
        .varint(5, 14)
        .string(6, &format!(".pkg.{}", h("Enum")))
        .varint(9, 0);
    let message = Msg::new()
        .string(1, &h("Message"))
        .message(2, &field)
        .message(8, &Msg::new().string(1, &h("oneof")));
    let enumeration = Msg::new()
        .string(1, &h("Enum"))
        .message(2, &Msg::new().string(1, &h("VALUE")).varint(2, 0));
    let file = Msg::new()
        .string(1, "hostile.proto")
        .string(2, "pkg")
        .message(4, &message)
        .message(5, &enumeration)
        .string(12, "proto3");
    let set = tmp.0.join("set.pb");
    std::fs::write(&set, Msg::new().message(1, &file).bytes()).unwrap();
    let set = set.to_str().unwrap();
    for json in [false, true] {
        let mut args = vec!["--dump-schema", "--descriptor-set", set];
        if json {
            args.push("--json");
        }
        let r = decode_in(&tmp.0, &args);
        assert_eq!(r.code, Some(0), "{}", plain(&r.stderr));
        let problems = raw_characters(&r);
        assert!(problems.is_empty(), "{}", plain(&problems.join("\n")));
        assert_eq!(shown_escaped(&r.stdout), 6, "{}", plain(&r.stdout));
    }
}
