//! One summary per format, shown everywhere: on every model fixture (ONNX
//! models, SavedModels, GraphDefs under tests/fixtures) the text view's
//! header, the `"summary"` of `--json` and the facade's
//! `Document::summary()` hold the same items with the same numbers.
//!
//! What this suite checks, in full: on every model fixture (ONNX models, SavedModels, GraphDefs) the
//! text view's header, `--json`'s `"summary"` and `Document::summary()`
//! hold the same items in the same order, every number in its line as the
//! command writes it and no other; the parameters of a model whose weights
//! are Constant nodes, TensorFlow variables shared by meta graphs counted
//! once.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use pbdecode::{JsonOptions, SummaryValue, TextOptions};
use serde_json::Value;
use std::path::PathBuf;

/// The formats that have a summary.
const SUMMARISED: &[&str] = &["onnx-model", "tf-saved-model", "tf-graph-def"];

/// Every file under tests/fixtures, in name order.
fn fixtures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![PathBuf::from("tests/fixtures")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The header lines of a text view as (label, text): after the
/// `format:`/`type:`/`size:` block, up to the first blank line; an ONNX
/// model's under its title line, indented by two spaces (deeper lines are
/// fields a line did not show, not summary lines).
fn header_lines(text: &str, titled: bool) -> Vec<(String, String)> {
    let mut lines = text.lines().skip_while(|l| !l.is_empty()).skip(1);
    if titled {
        assert_eq!(lines.next(), Some("ONNX model"), "{text}");
    }
    let mut out = Vec::new();
    for line in lines.take_while(|l| !l.is_empty()) {
        let body = if titled {
            match line.strip_prefix("  ") {
                Some(b) if !b.starts_with(' ') => b,
                _ => continue,
            }
        } else if line.starts_with(' ') {
            continue;
        } else {
            line
        };
        let (label, rest) = body.split_once(':').expect("label: text");
        out.push((label.to_string(), rest.trim_start().to_string()));
    }
    out
}

/// `65848` as the CLI writes counts: `65,848`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The numbers written in a line of text: runs of digits and separators
/// that do not continue a word (`IR_VERSION_2024_3_25` holds none).
fn number_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    for c in text.chars().chain([' ']) {
        if c.is_ascii_digit() || (c == ',' && !current.is_empty()) {
            if !in_word {
                current.push(c);
            }
        } else {
            if !current.is_empty() {
                out.push(current.trim_end_matches(',').to_string());
                current.clear();
            }
            in_word = c.is_alphanumeric() || c == '_' || c == '.';
        }
    }
    out
}

/// Every number and every string in a JSON value, depth first.
fn leaves(v: &Value, numbers: &mut Vec<i128>, strings: &mut Vec<String>) {
    match v {
        Value::Number(n) => numbers.push(
            n.as_i64()
                .map(i128::from)
                .unwrap_or_else(|| i128::from(n.as_u64().expect("an integer"))),
        ),
        Value::String(s) => strings.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|x| leaves(x, numbers, strings)),
        Value::Object(parts) => parts.values().for_each(|x| leaves(x, numbers, strings)),
        Value::Bool(_) | Value::Null => {}
    }
}

/// Every number of a summary value with how the text writes it: a count
/// with thousands separators (`65,848`), a number the file states (an IR
/// version, a producer version) as it is.
fn shown_numbers(v: &SummaryValue, out: &mut Vec<(i128, String)>) {
    match v {
        SummaryValue::Count(n) => out.push((i128::from(*n), grouped(*n))),
        SummaryValue::Int(n) => out.push((i128::from(*n), n.to_string())),
        SummaryValue::List(items) => items.iter().for_each(|x| shown_numbers(x, out)),
        SummaryValue::Fields(parts) => parts.iter().for_each(|(_, x)| shown_numbers(x, out)),
        _ => {}
    }
}

#[test]
fn text_header_json_summary_and_facade_agree_on_every_model_fixture() {
    let mut checked = Vec::new();
    for path in fixtures() {
        let Ok(doc) = pbdecode::open(&path) else {
            continue;
        };
        let format = doc.format().id.to_string();
        if !SUMMARISED.contains(&format.as_str()) {
            continue;
        }
        let mut text = Vec::new();
        doc.write_text(&mut text, &TextOptions::default()).unwrap();
        let text = String::from_utf8(text).unwrap();
        let mut json = Vec::new();
        let mut opts = JsonOptions::default();
        opts.values = Some(1);
        doc.write_json(&mut json, &opts).unwrap();
        let json: Value = serde_json::from_slice(&json).unwrap();
        let json = json["summary"]
            .as_object()
            .unwrap_or_else(|| panic!("{}: no summary in --json", path.display()));
        let summary = doc.summary();
        let at = path.display();

        // The same items in the same order: the JSON keys, the facade's.
        let keys: Vec<&str> = summary.items.iter().map(|i| i.key).collect();
        assert_eq!(
            json.keys().map(String::as_str).collect::<Vec<_>>(),
            keys,
            "{at}"
        );
        // The text header's lines are the items' labels, in that order (a
        // device configuration each its own line).
        let lines = header_lines(&text, format == "onnx-model");
        let mut expected_labels = Vec::new();
        for item in &summary.items {
            let n = match (&item.value, item.key) {
                (SummaryValue::List(list), "configuration") => list.len(),
                _ => 1,
            };
            expected_labels.extend(std::iter::repeat_n(item.label, n));
        }
        assert_eq!(
            lines.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(),
            expected_labels,
            "{at}:\n{text}"
        );

        let mut lines = lines.into_iter();
        for item in &summary.items {
            let value = &json[item.key];
            let (mut numbers, mut strings) = (Vec::new(), Vec::new());
            leaves(value, &mut numbers, &mut strings);
            // The facade's numbers are the JSON's.
            assert_eq!(item.value.numbers(), numbers, "{at}: {}", item.key);
            let n = match (value, item.key) {
                (Value::Array(list), "configuration") => list.len(),
                _ => 1,
            };
            let line: Vec<String> = lines.by_ref().take(n).map(|(_, t)| t).collect();
            let line = line.join("\n");
            let tokens = number_tokens(&line);
            // Every number the JSON holds is in the line, as the CLI
            // writes it (a zero may go unsaid: `+ 0 sparse` is not
            // printed).
            let mut shown = Vec::new();
            shown_numbers(&item.value, &mut shown);
            for (x, text) in &shown {
                assert!(
                    *x == 0 || tokens.contains(&text.trim_start_matches('-').to_string()),
                    "{at}: {}: {text} not in {line:?}",
                    item.key
                );
            }
            for s in strings.iter().filter(|s| !s.is_empty()) {
                let head: String = s.chars().take(200).collect();
                assert!(
                    line.contains(&head),
                    "{at}: {}: {s:?} not in {line:?}",
                    item.key
                );
            }
            // A line of numbers alone says no number the JSON does not.
            if strings.is_empty() {
                for t in &tokens {
                    let n: i128 = t.replace(',', "").parse().unwrap();
                    assert!(
                        numbers.contains(&n),
                        "{at}: {}: {t} in {line:?} is not in the JSON",
                        item.key
                    );
                }
            }
        }
        checked.push(path.display().to_string());
    }
    // Every model fixture was read: the ONNX models, the SavedModels, the
    // GraphDefs (a fixture that stops decoding as one fails here).
    for must in [
        "tests/fixtures/onnx-model/everything.onnx",
        "tests/fixtures/onnx-model/constants.onnx",
        "tests/fixtures/onnx-model/external.onnx",
        "tests/fixtures/tf/saved_model_two_signatures.pb",
        "tests/fixtures/tf/saved_model_tf1_sparse.pb",
        "tests/fixtures/tf/graph_all_forms.pb",
    ] {
        assert!(
            checked.iter().any(|c| c == must),
            "{must} not checked: {checked:?}"
        );
    }
}

/// The parameters of a model whose weights are Constant nodes (silero-vad,
/// PaddleOCR) are those nodes' values, in every output; with initializers,
/// sparse ones and a Constant node, the sum of all three.
#[test]
fn parameters_count_constant_nodes_and_sparse_initializers() {
    let count = |file: &str, key: &str, part: Option<&str>| {
        let doc = pbdecode::open(format!("tests/fixtures/onnx-model/{file}")).unwrap();
        let v = doc.summary().get(key).unwrap().clone();
        match part {
            Some(p) => v.count_of(p),
            None => v.count(),
        }
    };
    assert_eq!(count("constants.onnx", "parameters", None), Some(18));
    assert_eq!(
        count("constants.onnx", "initializers", Some("dense")),
        Some(0)
    );
    assert_eq!(
        count("constants.onnx", "initializers", Some("constant_nodes")),
        Some(4)
    );
    assert_eq!(
        count("constants.onnx", "initializers", Some("constant_values")),
        Some(18)
    );
    // 62 in the 5 dense initializers, 5 non-zeros of 2 sparse ones, 3 in
    // the Constant node.
    assert_eq!(count("everything.onnx", "parameters", None), Some(70));
    assert_eq!(count("everything.onnx", "nodes", Some("all")), Some(16));
}

/// A SavedModel's variables are counted once across meta graphs that
/// share them; a GraphDef's parameters are its Const nodes' elements.
#[test]
fn tensorflow_variables_and_constants() {
    let summary = |file: &str| {
        pbdecode::open(format!("tests/fixtures/tf/{file}"))
            .unwrap()
            .summary()
            .clone()
    };
    // Two meta graphs, one variable `v` of shape [4] in each.
    let s = summary("saved_model_tf1_sparse.pb");
    assert_eq!(s.get("meta_graphs").and_then(SummaryValue::count), Some(2));
    assert_eq!(s.get("variables").and_then(SummaryValue::count), Some(1));
    assert_eq!(s.get("parameters").and_then(SummaryValue::count), Some(4));
    // TF2: the object graph's three variables.
    let s = summary("saved_model_two_signatures.pb");
    assert_eq!(s.get("variables").and_then(SummaryValue::count), Some(3));
    assert_eq!(s.get("signatures").and_then(SummaryValue::count), Some(4));
    let s = summary("graph_all_forms.pb");
    let constants = s.get("constants").unwrap();
    assert_eq!(
        s.get("parameters").and_then(SummaryValue::count),
        constants.count_of("elements")
    );
    assert_eq!(constants.count_of("nodes"), Some(65));
}

/// Formats without a summary have none, in the facade and in the JSON.
#[test]
fn other_formats_have_no_summary() {
    for file in [
        "tests/fixtures/example_x_3x4x5.pb",
        "tests/fixtures/onnx-containers/seq_nested.pb",
        "tests/fixtures/onnx-containers/sparse_coo.pb",
    ] {
        let doc = pbdecode::open(file).unwrap();
        assert!(doc.summary().is_empty(), "{file}");
        let mut json = Vec::new();
        doc.write_json(&mut json, &JsonOptions::default()).unwrap();
        let json: Value = serde_json::from_slice(&json).unwrap();
        assert!(json.get("summary").is_none(), "{file}");
    }
}
