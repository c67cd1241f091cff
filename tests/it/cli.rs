//! The `decode` binary: exit status 0 (decoded), 1 (turned down, the reason
//! on stderr naming the check and the byte offset), 2 (usage or I/O error);
//! standard input; `--as`; `--values`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::Msg;
use common::json;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn decode(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .output()
        .expect("run decode")
}

fn decode_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run decode");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from another thread so a large output cannot block the pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn path(rel: &str) -> String {
    fixture(rel).to_string_lossy().into_owned()
}

#[test]
fn decoded_exits_0() {
    let o = decode(&[&path("example_x_3x4x5.pb")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("format: onnx-tensor"), "{out}");
    assert!(out.contains("[3, 4, 5]"), "{out}");
    assert!(out.contains("1.7640524"), "{out}");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn json_output_follows_the_contract() {
    let o = decode(&["--json", &path("example_x_3x4x5.pb")]);
    assert_eq!(o.status.code(), Some(0));
    let doc = json::value(&stdout(&o)).unwrap();
    assert_eq!(
        doc.get("format").and_then(Value::as_str),
        Some("onnx-tensor")
    );
    assert_eq!(
        doc.get("type").and_then(Value::as_str),
        Some("onnx.TensorProto")
    );
    let values = doc
        .get("value")
        .unwrap()
        .get("values")
        .unwrap()
        .as_array()
        .unwrap();
    assert_eq!(values.len(), 60, "JSON prints every value by default");
}

#[test]
fn values_limits_json_values() {
    let o = decode(&["--json", "--values", "3", &path("example_x_3x4x5.pb")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = json::value(&stdout(&o)).unwrap();
    let values = doc
        .get("value")
        .unwrap()
        .get("values")
        .unwrap()
        .as_array()
        .unwrap();
    assert_eq!(values.len(), 3);
    assert!((values[0].as_f64().unwrap() - 1.764052).abs() < 1e-6);
    let all = decode(&["--json", "--values", "all", &path("example_x_3x4x5.pb")]);
    let doc = json::value(&stdout(&all)).unwrap();
    assert_eq!(
        doc.get("value")
            .unwrap()
            .get("values")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        60
    );
    let zero = decode(&["--json", "--values", "0", &path("example_x_3x4x5.pb")]);
    assert_eq!(zero.status.code(), Some(0));
    let doc = json::value(&stdout(&zero)).unwrap();
    assert_eq!(
        doc.get("value")
            .unwrap()
            .get("values")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn turned_down_exits_1_naming_the_check_and_offset() {
    // --as auto: nothing reads it (a LEN claiming 1 GiB at byte 5).
    let o = decode(&[&path("onnx-tensor/bad_len_past_end.pb")]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("length check failed"), "{err}");
    assert!(err.contains("@0x5"), "{err}");
    assert!(stdout(&o).is_empty());
    // --as onnx-tensor: valid protobuf, but raw_data is the wrong size.
    let o = decode(&[
        "--as",
        "onnx-tensor",
        &path("onnx-tensor/bad_raw_too_long.pb"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("size check failed"), "{err}");
    assert!(err.contains("@0x"), "{err}");
    assert!(
        err.contains("raw_data is 12 bytes, the shape needs 8"),
        "{err}"
    );
    // An empty file is a record file of no records (what TensorFlow's
    // writer leaves when nothing is written); `--as` another format says
    // it is empty. A text file.
    let o = decode(&[&path("onnx-tensor/notpb_empty.pb")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("format: tf-record"),
        "{}",
        stdout(&o)
    );
    let o = decode(&["--as", "onnx-model", &path("onnx-tensor/notpb_empty.pb")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));
    let o = decode(&[&path("onnx-tensor/notpb_text.pb")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("text check failed"), "{}", stderr(&o));
}

#[test]
fn as_onnx_tensor_on_a_non_tensor_says_why() {
    // A message with a field 30: fine as protobuf, but TensorProto has no
    // field 30. (Its field 1, "hello", even reads as packed dims.)
    let other = Msg::new().string(1, "hello").fixed32(30, 5).buf;
    let auto = decode_stdin(&["-"], &other);
    assert_eq!(auto.status.code(), Some(0), "{}", stderr(&auto));
    assert!(
        stdout(&auto).starts_with("format: protobuf"),
        "{}",
        stdout(&auto)
    );
    let o = decode_stdin(&["--as", "onnx-tensor", "-"], &other);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("not onnx-tensor"), "{err}");
    assert!(err.contains("field check failed @0x7"), "{err}");
    assert!(
        err.contains("field 30 is not a field of onnx.TensorProto"),
        "{err}"
    );
    // Field 1 as a float: dims takes integers.
    let floaty = Msg::new().float(1, 1.5).buf;
    let o = decode_stdin(&["--as", "onnx-tensor", "-"], &floaty);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("wire check failed at TensorProto.dims"),
        "{err}"
    );
    // A tensor file missing its data_type.
    let o = decode(&[
        "--as",
        "onnx-tensor",
        &path("onnx-tensor/bad_no_data_type.pb"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("data_type is missing"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn usage_errors_exit_2() {
    let x = path("example_x_3x4x5.pb");
    for args in [
        vec!["--as", "no-such-format", x.as_str()],
        vec!["--values", "many", x.as_str()],
        vec!["--values", "-1", x.as_str()],
        vec!["--no-such-option", x.as_str()],
        vec![],
    ] {
        let o = decode(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty(), "{args:?}");
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
    let o = decode(&["--as", "no-such-format", &x]);
    assert!(stderr(&o).contains("invalid value"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("onnx-tensor"),
        "lists the formats: {}",
        stderr(&o)
    );
    let o = decode(&["--values", "many", &x]);
    assert!(stderr(&o).contains("--values"), "{}", stderr(&o));
}

#[test]
fn missing_file_exits_2() {
    let missing = path("onnx-tensor/no_such_file.pb");
    let o = decode(&[&missing]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no_such_file.pb"), "{}", stderr(&o));
    // A folder is not a file either.
    let o = decode(&[&path("onnx-tensor")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn reads_standard_input() {
    let x = std::fs::read(fixture("example_x_3x4x5.pb")).unwrap();
    let o = decode_stdin(&["--json", "-"], &x);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = json::value(&stdout(&o)).unwrap();
    assert_eq!(
        doc.get("format").and_then(Value::as_str),
        Some("onnx-tensor")
    );
    assert_eq!(
        doc.get("value")
            .unwrap()
            .get("values")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        60
    );
    // Same output as from the file.
    let from_file = decode(&["--json", &path("example_x_3x4x5.pb")]);
    assert_eq!(o.stdout, from_file.stdout);
    // External data has no folder to be read from on standard input.
    let ext = std::fs::read(fixture("onnx-tensor/external.pb")).unwrap();
    let o = decode_stdin(&["--json", "-"], &ext);
    assert_eq!(o.status.code(), Some(0));
    let doc = json::value(&stdout(&o)).unwrap();
    assert_eq!(doc.get("value").unwrap().get("values"), Some(&Value::Null));
    // And from the file it is.
    let o = decode(&["--json", &path("onnx-tensor/external.pb")]);
    let doc = json::value(&stdout(&o)).unwrap();
    assert_eq!(
        doc.get("value")
            .unwrap()
            .get("values")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        12
    );
    // Empty standard input is a record file of no records, as an empty
    // file is.
    let o = decode_stdin(&["-"], b"");
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("records:       0"), "{}", stdout(&o));
}

#[test]
fn every_format_id_is_accepted_by_as() {
    let x = path("example_x_3x4x5.pb");
    for id in pbdecode::formats::ids() {
        let o = decode(&["--as", id, &x]);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "--as {id}: {}",
            stderr(&o)
        );
        if o.status.code() == Some(1) {
            assert!(
                stderr(&o).contains(&format!("not {id}")),
                "--as {id}: {}",
                stderr(&o)
            );
        }
    }
    let o = decode(&["--as", "onnx-tensor", &x]);
    assert_eq!(o.status.code(), Some(0));
    let o = decode(&["--as", "protobuf", &x]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("format: protobuf"));
}

#[test]
fn a_turned_down_file_with_json_prints_the_error_on_stdout() {
    let o = decode(&[
        "--json",
        "--as",
        "onnx-tensor",
        &path("onnx-tensor/bad_raw_too_short.pb"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let doc = json::value(&stdout(&o)).unwrap();
    let err = doc.get("error").expect("an error object");
    assert_eq!(err.get("check").and_then(Value::as_str), Some("size"));
    assert_eq!(err.get("offset").and_then(Value::as_f64), Some(23.0));
    assert_eq!(err.get("path").and_then(Value::as_str), Some(""));
    assert_eq!(
        err.get("message").and_then(Value::as_str),
        Some("raw_data is 7 bytes, the shape needs 8")
    );
    // The same reason on stderr for a person.
    assert!(
        stderr(&o).contains("size check failed @0x17"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn each_format_rule_is_a_check_of_its_own() {
    let o = decode(&[
        "--json",
        "--as",
        "onnx-tensor",
        &path("onnx-tensor/bad_external_no_location.pb"),
    ]);
    let doc = json::value(&stdout(&o)).unwrap();
    let check = doc
        .get("error")
        .and_then(|e| e.get("check"))
        .and_then(Value::as_str);
    assert_eq!(check, Some("external-location"));
    // A nested fault names its field path.
    let o = decode(&[
        "--json",
        "--as",
        "onnx-tensor",
        &path("onnx-tensor/bad_len_past_end.pb"),
    ]);
    let doc = json::value(&stdout(&o)).unwrap();
    let err = doc.get("error").unwrap();
    assert_eq!(err.get("check").and_then(Value::as_str), Some("length"));
    assert_eq!(err.get("path").and_then(Value::as_str), Some("TensorProto"));
}

#[test]
fn well_known_non_protobuf_files_are_named() {
    let o = decode_stdin(&["-"], b"PK\x03\x04\x14\x00\x00\x00\x08\x00abc");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("looks like a zip archive"),
        "{}",
        stderr(&o)
    );
    let mut tflite = vec![0x1c, 0, 0, 0];
    tflite.extend_from_slice(b"TFL3");
    tflite.extend_from_slice(&[0x14, 0, 0x1c, 0, 0x04, 0, 0x08, 0]);
    let o = decode_stdin(&["-"], &tflite);
    assert!(
        stderr(&o).contains("looks like a TensorFlow Lite model"),
        "{}",
        stderr(&o)
    );
    // A protobuf file gets no such note.
    let o = decode(&[&path("example_x_3x4x5.pb")]);
    assert!(!stderr(&o).contains("looks like"), "{}", stderr(&o));
    // Files known by their name: an ONNX model's external data (bytes that
    // read as no message), an ONNX Runtime model.
    let dir = std::env::temp_dir().join(format!("pbdecode-hints-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("model.onnx.data");
    std::fs::write(&data, [0x0f, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40]).unwrap();
    let o = decode(&[data.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("raw tensor bytes; decode the model that points to it"),
        "{}",
        stderr(&o)
    );
    let mut ort = vec![0x18, 0, 0, 0];
    ort.extend_from_slice(b"ORTM");
    ort.extend_from_slice(&[0x14, 0, 0x1c, 0, 0x04, 0, 0x08, 0]);
    let o = decode_stdin(&["-"], &ort);
    assert!(
        stderr(&o).contains("looks like an ONNX Runtime model"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// JSON and other text are told as text before any wire check: their
/// first bytes read as keys of wire type 3, 6 or 7 (`{` is a group of
/// field 15, `n` wire type 6), which used to be the error shown. Protobuf's
/// text format of a built-in message is read as that message.
#[test]
fn text_files_are_told_as_text_before_wire_checks() {
    for text in [
        &b"{\"graph\": {\"node\": []}}\n"[..],
        b"layer {\n  name: \"data\"\n  type: \"Input\"\n}\n",
    ] {
        let o = decode_stdin(&["--json", "-"], text);
        assert_eq!(o.status.code(), Some(1));
        let doc = json::value(&stdout(&o)).unwrap();
        let err = doc.get("error").unwrap();
        assert_eq!(err.get("check").and_then(Value::as_str), Some("text"));
        let message = err.get("message").and_then(Value::as_str).unwrap();
        assert!(
            message.contains("JSON") && message.contains("protobuf text format")
                || message.contains("\"layer\" is not a field of any built-in")
                    && message.contains("--schema"),
            "{message}"
        );
    }
    for (text, format) in [
        (
            &b"node {\n  name: \"x\"\n  op: \"Placeholder\"\n}\n"[..],
            "tf-graph-def",
        ),
        (b"dims: 2 data_type: 1 float_data: [1, 2]", "onnx-tensor"),
    ] {
        let o = decode_stdin(&["--json", "-"], text);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let doc = json::value(&stdout(&o)).unwrap();
        assert_eq!(doc.get("format").and_then(Value::as_str), Some(format));
        assert_eq!(doc.get("syntax").and_then(Value::as_str), Some("text"));
    }
}

/// `decode --help`: the first line names every format family, the options
/// are grouped under headings; `decode serve --help` names the Graph tab.
/// Both are pinned as snapshots.
#[test]
fn help_is_grouped_and_names_every_format_family() {
    let o = decode(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    let first = help.lines().next().unwrap();
    for family in [
        "ONNX",
        "TensorFlow",
        "checkpoints",
        "TFRecord",
        "PaddlePaddle",
        "Protocol Buffers",
    ] {
        assert!(first.contains(family), "{family} in {first:?}");
    }
    let headings: Vec<&str> = help
        .lines()
        .filter(|l| !l.starts_with(' ') && l.ends_with(':'))
        .collect();
    for heading in [
        "Input:",
        "Output:",
        "Tensors and export:",
        "Graphs:",
        "Test data:",
        "Schemas:",
    ] {
        assert!(headings.contains(&heading), "{heading} in {headings:?}");
    }
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli__help", help);
    });
    let o = decode(&["serve", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let serve = stdout(&o);
    assert!(serve.contains("Graph tab"), "{serve}");
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli__serve_help", serve);
    });
}

/// `decode` alone prints a short usage naming its commands, exit 2.
#[test]
fn decode_alone_prints_a_short_usage() {
    let o = decode(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty());
    let err = stderr(&o);
    assert!(err.contains("decode serve"), "{err}");
    assert!(err.contains("decode diff"), "{err}");
    assert!(err.contains("--help"), "{err}");
    assert!(err.lines().count() <= 10, "{err}");
}

/// A misspelt --tensor name gets the nearest names first.
#[test]
fn a_misspelt_tensor_name_gets_the_nearest_names() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/files/model.onnx");
    let model = model.to_str().unwrap();
    let o = decode(&["--tensor", "conv1.weigth", model]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let guess = err
        .split_once("did you mean ")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("a guess: {err}"));
    assert!(guess.starts_with("\"conv1.weight\""), "{err}");
    // Case alone.
    let o = decode(&["--tensor", "FC.BIAS", model]);
    assert!(
        stderr(&o).contains("did you mean \"fc.bias\"?"),
        "{}",
        stderr(&o)
    );
    // Nothing near: no guess, the list.
    let o = decode(&["--tensor", "embedding", model]);
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("tensors: \"conv1.weight\""),
        "{}",
        stderr(&o)
    );
}

/// A second --npy-dir into the same folder is refused in one line.
#[test]
fn a_second_export_into_the_same_folder_says_so_once() {
    let dir = std::env::temp_dir().join(format!("pbdecode-npy-twice-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/files/model.onnx");
    let args = ["--npy-dir", dir.to_str().unwrap(), model.to_str().unwrap()];
    let first = decode(&args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let second = decode(&args);
    assert_eq!(second.status.code(), Some(2));
    let err = stderr(&second);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("6 of the files already exist"), "{err}");
    assert!(err.contains("--force"), "{err}");
    let third = decode(&["--force", args[0], args[1], args[2]]);
    assert_eq!(third.status.code(), Some(0), "{}", stderr(&third));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// For a well-known file that is not protobuf, what it is comes first on
/// stderr, the formats' reasons after it.
#[test]
fn the_hint_comes_first() {
    let o = decode_stdin(&["-"], b"PK\x03\x04\x14\x00\x00\x00\x08\x00abc");
    let err = stderr(&o);
    let first = err.lines().next().unwrap_or_default();
    assert!(first.contains("this looks like a zip archive"), "{err}");
    assert!(
        err.lines()
            .nth(1)
            .unwrap_or_default()
            .contains("not decoded"),
        "{err}"
    );
}

/// A model's text view lists its nodes before value_info (and so does a
/// function's).
#[test]
fn a_models_nodes_come_before_value_info() {
    let o = decode(&[&path("onnx-model/everything.onnx")]);
    let text = stdout(&o);
    let nodes = text.find("\n  nodes (").expect("the main graph's nodes");
    let value_info = text.find("\n  value_info (").expect("its value_info");
    let outputs = text.find("\n  outputs (").expect("its outputs");
    assert!(outputs < nodes && nodes < value_info, "{text}");
}
