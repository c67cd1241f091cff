//! Protobuf's text format through the `decode` command: the fixtures of
//! `tests/fixtures/text-format` (the specification's examples and corner
//! cases, the grammar's corners on built-in messages, one malformed file
//! per error class) as snapshots of their JSON and messages; files the
//! official writers made read exactly as their binary sources; `decode
//! convert` both ways, its text stable over a round trip; detection
//! (headers, the schema that read furthest, `--as`), user schemas, deep
//! nesting and long strings.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;
use common::json;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const DIR: &str = "tests/fixtures/text-format";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR).join(name)
}

fn decode(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .output()
        .unwrap()
}

fn decode_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A closed pipe (the command stopped reading early) is not an error.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A folder of this test's own, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(what: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("pbdecode-text-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The message type of each `spec_*.txtpb` (in `spec.proto`).
fn spec_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "spec_example.txtpb" => "spec.Benchmarks",
        "spec_file.txtpb" => "spec.Person",
        "spec_group.txtpb" => "spec.MessageWithGroup",
        "spec_map.txtpb" => "spec.MessageWithMap",
        "spec_oneof.txtpb" => "spec.OneofExample",
        "spec_any.txtpb" => "spec.WithAny",
        "spec_numbers.txtpb" => "spec.Numbers",
        _ => return None,
    })
}

/// The arguments a fixture is read with (`spec_*` with spec.proto; a
/// tensor against the rules of its format).
fn schema_args(name: &str) -> Vec<String> {
    if name == "bad_tensor_size.pbtxt" {
        return vec!["--as".into(), "onnx-tensor".into()];
    }
    match spec_type(name) {
        Some(ty) => vec![
            "--schema".into(),
            fixture("spec.proto").to_string_lossy().into_owned(),
            "--type".into(),
            ty.into(),
        ],
        None => Vec::new(),
    }
}

/// The fixtures with a snapshot: every hand-written one.
fn snapshot_fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("spec_") || n.starts_with("corners_") || n.starts_with("bad_"))
        .collect();
    names.sort();
    names
}

/// `decode --json` on a fixture: the exit status, what stderr says, and
/// the JSON laid out (the error object for a file turned down).
fn reading(name: &str) -> (i32, String, String) {
    let path = fixture(name).to_string_lossy().into_owned();
    let mut args: Vec<String> = schema_args(name);
    args.push("--json".into());
    args.push(path.clone());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = decode(&args);
    let stderr = err(&o).replace(&path, "FILE");
    let stdout = out(&o);
    let laid = if stdout.trim().is_empty() {
        String::new()
    } else {
        json::pretty(&stdout)
    };
    (o.status.code().unwrap_or(-1), stderr, laid)
}

#[test]
fn fixtures_snapshots() {
    let names = snapshot_fixtures();
    assert!(names.len() >= 25, "{names:?}");
    for name in &names {
        let (code, stderr, laid) = reading(name);
        if name.starts_with("bad_") {
            assert_eq!(code, 1, "{name}: {stderr}");
            let doc = json::value(&laid).unwrap();
            let e = doc.get("error").unwrap_or_else(|| panic!("{name}: {laid}"));
            // Every error of a text file says where: its line and column,
            // and its byte offset in the text.
            let line = e.get("line").and_then(Value::as_u64).unwrap();
            let column = e.get("column").and_then(Value::as_u64).unwrap();
            assert!(line >= 1 && column >= 1, "{name}");
            let text = std::fs::read(fixture(name)).unwrap();
            let offset = e.get("offset").and_then(Value::as_u64).unwrap();
            assert!(offset as usize <= text.len(), "{name}");
            // The message on stderr repeats the line with a caret.
            assert!(stderr.contains(" | "), "{name}: {stderr}");
        } else {
            assert_eq!(code, 0, "{name}: {stderr}");
            let doc = json::value(&laid).unwrap();
            assert_eq!(
                doc.get("syntax").and_then(Value::as_str),
                Some("text"),
                "{name}"
            );
        }
        let shown = format!("exit {code}\n--- stderr ---\n{stderr}--- json ---\n{laid}");
        common::snapshot_settings().bind(|| {
            insta::assert_snapshot!(format!("text_format__{}", name.replace('.', "_")), shown);
        });
    }
}

/// Each class of error, by the check it fails and where.
#[test]
fn each_error_class_is_named_and_placed() {
    let cases: &[(&str, &str, u64, u64, &str)] = &[
        ("bad_syntax_colon.pbtxt", "syntax", 2, 11, "':' and a value"),
        (
            "bad_syntax_unclosed.pbtxt",
            "syntax",
            1,
            6,
            "the end of the file",
        ),
        (
            "bad_unterminated_string.pbtxt",
            "syntax",
            2,
            9,
            "not closed",
        ),
        ("bad_escape.pbtxt", "escape", 1, 16, "\\q"),
        (
            "bad_unknown_field.pbtxt",
            "field",
            4,
            3,
            "the closest is \"device\"",
        ),
        (
            "bad_duplicate.pbtxt",
            "duplicate",
            3,
            1,
            "data_type is given twice",
        ),
        ("bad_oneof.pbtxt", "duplicate", 4, 34, "oneof value"),
        ("bad_range.pbtxt", "value", 1, 57, "out of the range"),
        (
            "bad_enum_name.pbtxt",
            "value",
            1,
            60,
            "no value of that name",
        ),
        ("bad_not_utf8_byte.pbtxt", "utf-8", 2, 13, "0xe9"),
        ("bad_string_not_utf8.pbtxt", "utf-8", 1, 14, "not UTF-8"),
        ("bad_smart_quotes.pbtxt", "syntax", 1, 14, "typographic"),
        ("bad_number_ident.pbtxt", "syntax", 1, 7, "10bar"),
        // Parsed as a TensorProto, turned down by ONNX's rules under --as
        // (detection reads it without a schema, as its binary form).
        ("bad_tensor_size.pbtxt", "size", 4, 1, "raw_data is 4 bytes"),
        ("bad_no_message.prototxt", "text", 2, 1, "\"layer\""),
        ("bad_any_type.pbtxt", "type", 16, 17, "no.Such"),
        (
            "bad_header_message.pbtxt",
            "type",
            1,
            1,
            "caffe.NetParameter",
        ),
    ];
    for &(name, check, line, column, says) in cases {
        let (code, stderr, laid) = reading(name);
        assert_eq!(code, 1, "{name}");
        let doc = json::value(&laid).unwrap();
        let e = doc.get("error").unwrap();
        assert_eq!(
            e.get("check").and_then(Value::as_str),
            Some(check),
            "{name}: {laid}"
        );
        let at = (
            e.get("line").and_then(Value::as_u64).unwrap(),
            e.get("column").and_then(Value::as_u64).unwrap(),
        );
        assert_eq!(at, (line, column), "{name}: {laid}");
        let message = e.get("message").and_then(Value::as_str).unwrap();
        assert!(
            message.contains(says) || stderr.contains(says),
            "{name}: {message}"
        );
    }
}

/// Files the official writers made read as their binary sources do: the
/// same JSON, `"syntax"` aside.
#[test]
fn writers_files_read_as_their_binary_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (text, binary) in [
        (
            "graph.pbtxt",
            "schemaless/sample/tf_fg_dense_frozen_frozen_graph.pb",
        ),
        (
            "graph_all_attr_kinds.pbtxt",
            "schemaless/sample/tf_fg_all_attr_kinds_frozen_graph.pb",
        ),
        ("model.textproto", "onnx-model/everything.onnx"),
        ("tensor_one_line.pbtxt", "example_x_3x4x5.pb"),
    ] {
        let t = decode(&["--json", fixture(text).to_str().unwrap()]);
        let b = decode(&["--json", root.join(binary).to_str().unwrap()]);
        assert!(t.status.success(), "{text}: {}", err(&t));
        let mut tj = json::value(&out(&t)).unwrap();
        let mut bj = json::value(&out(&b)).unwrap();
        assert_eq!(tj.get("syntax").and_then(Value::as_str), Some("text"));
        assert_eq!(bj.get("syntax").and_then(Value::as_str), Some("binary"));
        tj.as_object_mut().unwrap().remove("syntax");
        bj.as_object_mut().unwrap().remove("syntax");
        assert_eq!(tj, bj, "{text}");
        // The text view's header says it.
        let view = out(&decode(&[fixture(text).to_str().unwrap()]));
        assert!(view.contains("the file is protobuf text format"), "{view}");
    }
}

/// `decode convert` to text and back: text as protobuf's Python runtime
/// writes it, stable over a second round, and the binary form the same
/// bytes each time.
#[test]
fn convert_round_trips_are_stable() {
    let dir = Scratch::new("round");
    let p = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
    for name in snapshot_fixtures()
        .iter()
        .filter(|n| !n.starts_with("bad_"))
    {
        let schema = schema_args(name);
        let with = |more: &[&str]| {
            let mut a: Vec<&str> = vec!["convert"];
            a.extend(schema.iter().map(String::as_str));
            a.extend(more);
            let o = decode(&a);
            assert!(o.status.success(), "{name} {more:?}: {}", err(&o));
        };
        let src = fixture(name).to_string_lossy().into_owned();
        with(&[&src, &p("a.pb")]);
        with(&[&p("a.pb"), &p("a.pbtxt")]);
        with(&[&p("a.pbtxt"), &p("b.pb")]);
        with(&[&p("b.pb"), &p("b.pbtxt")]);
        with(&[&p("b.pbtxt"), &p("c.txtpb")]);
        with(&[&p("c.txtpb"), &p("c.pb")]);
        let read = |n: &str| std::fs::read(p(n)).unwrap();
        // From the first text on, nothing changes (a NaN's sign is not
        // written, as Python writes `nan` for either: the first binary may
        // differ there).
        assert_eq!(read("b.pb"), read("c.pb"), "{name}");
        assert_eq!(read("a.pbtxt"), read("b.pbtxt"), "{name}");
        assert_eq!(read("b.pbtxt"), read("c.txtpb"), "{name}");
        if !name.contains("numbers") {
            assert_eq!(read("a.pb"), read("b.pb"), "{name}");
        }
        if name == "spec_file.txtpb" || name == "spec_numbers.txtpb" {
            common::snapshot_settings().bind(|| {
                insta::assert_snapshot!(
                    format!("text_format__converted_{}", name.replace('.', "_")),
                    String::from_utf8(read("a.pbtxt")).unwrap()
                );
            });
        }
    }
    // To standard output, and --to when the name says nothing.
    let o = decode(&[
        "convert",
        fixture("corners_tensor.pbtxt").to_str().unwrap(),
        "-",
        "--to",
        "text",
    ]);
    assert!(
        out(&o).starts_with("dims: 2\ndims: 2\ndata_type: 1\nname: \"weights\\303\\251\"")
            || out(&o).starts_with("dims: 2\ndims: 2\ndata_type: 1\nname: \"weightsé\""),
        "{}",
        out(&o)
    );
    let o = decode(&[
        "convert",
        fixture("corners_tensor.pbtxt").to_str().unwrap(),
        &p("out.data"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("--to binary or --to text"), "{}", err(&o));
}

/// A field the schema does not know has no name to be written under: the
/// text output is refused, not written without it.
#[test]
fn convert_refuses_to_lose_unknown_fields() {
    let dir = Scratch::new("unknown");
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onnx-model/unknown_field.onnx");
    let to = dir.path().join("m.pbtxt");
    let o = decode(&["convert", model.to_str().unwrap(), to.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("field 99 of onnx.ModelProto is not in the schema"),
        "{}",
        err(&o)
    );
    assert!(!to.exists());
    // Binary keeps it.
    let to = dir.path().join("m.pb");
    let o = decode(&["convert", model.to_str().unwrap(), to.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
}

/// A `# proto-message:` header decides the message; without one, the
/// first field's name does; a malformed file is reported against the
/// message that read furthest, at its line.
#[test]
fn detection_of_the_message() {
    // `name` is a field of several ONNX messages: the header picks one.
    let o = decode_stdin(
        &["--json", "-"],
        b"# proto-message: onnx.SequenceProto\nname: \"s\"\nelem_type: 1\n",
    );
    let doc = json::value(&out(&o)).unwrap();
    assert_eq!(
        doc.get("type").and_then(Value::as_str),
        Some("onnx.SequenceProto"),
        "{}",
        err(&o)
    );
    // A GraphDef's typo deep in the file: its line, against NodeDef.
    let mut text = String::new();
    for k in 0..50 {
        text.push_str(&format!(
            "node {{\n  name: \"n{k}\"\n  op: \"Identity\"\n}}\n"
        ));
    }
    text.push_str("node {\n  name: \"last\"\n  opp: \"Identity\"\n}\n");
    let o = decode_stdin(&["--json", "-"], text.as_bytes());
    let doc = json::value(&out(&o)).unwrap();
    let e = doc.get("error").unwrap();
    assert_eq!(e.get("check").and_then(Value::as_str), Some("field"));
    assert_eq!(e.get("line").and_then(Value::as_u64), Some(203));
    assert_eq!(
        e.get("path").and_then(Value::as_str),
        Some("GraphDef.node[50]")
    );
    let message = e.get("message").and_then(Value::as_str).unwrap();
    assert!(
        message.contains("tensorflow.NodeDef") && message.contains("\"op\""),
        "{message}"
    );
    // --as a format whose messages do not have the first field.
    let o = decode_stdin(&["--as", "onnx-model", "-"], b"node { name: \"x\" }\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("a message of onnx-model"), "{}", err(&o));
}

/// A user's schema reads the text its binary fixture was made from
/// (`protoc --encode` wrote record.pb from record.txtpb).
#[test]
fn a_users_schema_reads_text() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/user-schema");
    let schema = dir.join("legacy.proto");
    let args = |f: &str| {
        decode(&[
            "--json",
            "--schema",
            schema.to_str().unwrap(),
            "--type",
            "legacy.Record",
            dir.join(f).to_str().unwrap(),
        ])
    };
    let mut t = json::value(&out(&args("record.txtpb"))).unwrap();
    let mut b = json::value(&out(&args("record.pb"))).unwrap();
    assert_eq!(t.get("syntax").and_then(Value::as_str), Some("text"));
    t.as_object_mut().unwrap().remove("syntax");
    b.as_object_mut().unwrap().remove("syntax");
    assert_eq!(t, b);
}

/// 10,000 nested messages: an error naming the decoder's depth limit at
/// the first message past it, found without recursion.
#[test]
fn ten_thousand_levels_stop_at_the_depth_limit() {
    let mut text = String::from("graph {\n");
    for _ in 0..3400 {
        text.push_str("node { attribute { g {\n");
    }
    let o = decode_stdin(&["--json", "-"], text.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    let doc = json::value(&out(&o)).unwrap();
    let e = doc.get("error").unwrap();
    assert_eq!(e.get("check").and_then(Value::as_str), Some("depth"));
    assert!(
        e.get("message")
            .and_then(Value::as_str)
            .unwrap()
            .contains("100 levels")
    );
    // The 101st message: the root's graph, then 33 (node, attribute, g)
    // and node, attribute of the 34th line.
    assert_eq!(e.get("line").and_then(Value::as_u64), Some(35));
    // Within the limit, the same nesting reads (and the views show it).
    let mut ok = String::from("graph {\n");
    for _ in 0..33 {
        ok.push_str("node { attribute { name: \"a\" type: GRAPH g {\n");
    }
    ok.push_str(&"} } }\n".repeat(33));
    ok.push_str("}\nir_version: 8\nopset_import { version: 17 }\n");
    let o = decode_stdin(&["-"], ok.as_bytes());
    assert!(o.status.success(), "{}", err(&o));
}

/// A valid 20 MB string is read whole; one never closed is an error at its
/// own line.
#[test]
fn a_twenty_megabyte_string() {
    let big = "x".repeat(20 << 20);
    let text = format!("dims: 1\ndata_type: 8\nname: \"t\"\nstring_data: \"{big}\"\n");
    let o = decode_stdin(&["--json", "--values", "0", "-"], text.as_bytes());
    assert!(o.status.success(), "{}", err(&o));
    let doc = json::value(&out(&o)).unwrap();
    assert_eq!(
        doc.get("format").and_then(Value::as_str),
        Some("onnx-tensor")
    );
    let dir = Scratch::new("long");
    let path = dir.path().join("t.pbtxt");
    std::fs::write(&path, &text).unwrap();
    let bin = dir.path().join("t.pb");
    let o = decode(&["convert", path.to_str().unwrap(), bin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::metadata(&bin).unwrap().len() > 20 << 20);
    let open = format!("dims: 1\ndata_type: 8\nstring_data: \"{big}\n");
    let o = decode_stdin(&["--json", "-"], open.as_bytes());
    let doc = json::value(&out(&o)).unwrap();
    let e = doc.get("error").unwrap();
    assert_eq!(e.get("check").and_then(Value::as_str), Some("syntax"));
    assert_eq!(e.get("line").and_then(Value::as_u64), Some(3));
    assert_eq!(e.get("column").and_then(Value::as_u64), Some(14));
}
