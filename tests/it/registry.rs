//! The format registry is the one record of each format: the tables that
//! other layers key by name (schema files, tensor adapters, tensor namers,
//! text views, the `--as` choices) are derived from it or checked against
//! it here, so no string key can go stale.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;
use pbdecode::formats::{self, AsFormat, FormatOptions, REGISTRY};
use pbdecode::render::text::TEXT_VIEWS;
use pbdecode::schema::SchemaSet;
use std::collections::HashSet;

#[test]
fn format_ids_are_unique_and_found_by_id() {
    let mut seen = HashSet::new();
    for f in REGISTRY {
        assert!(seen.insert(f.id), "format id {:?} appears twice", f.id);
        assert!(!f.title.is_empty(), "{} has a title", f.id);
        assert!(
            formats::find(f.id).is_some_and(|g| std::ptr::eq(f, g)),
            "find({:?}) is its record",
            f.id
        );
    }
    assert_eq!(
        formats::ids(),
        REGISTRY.iter().map(|f| f.id).collect::<Vec<_>>()
    );
    assert_eq!(REGISTRY.last().map(|f| f.id), Some(formats::SCHEMALESS_ID));
}

#[test]
fn every_schema_file_of_a_format_is_in_the_builtin_tables() {
    let files = formats::builtin_files();
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    let unique: HashSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "each file once: {names:?}");
    for f in REGISTRY {
        for (name, text) in f.schema_files {
            assert!(
                files.iter().any(|(n, t)| n == name && t == text),
                "{}: {name} is among the built-in files",
                f.id
            );
            assert!(!text.is_empty(), "{}: {name} has text", f.id);
        }
    }
    // The built-in set is exactly these files: parsing them alone gives the
    // same messages.
    let again = SchemaSet::from_files(files.iter().map(|(n, t)| (n.to_string(), t.to_string())))
        .expect("the built-in files parse");
    let set = SchemaSet::builtin();
    assert_eq!(again.messages.len(), set.messages.len());
}

#[test]
fn every_root_message_is_in_the_tables_of_its_format() {
    for f in REGISTRY {
        let own = SchemaSet::from_files(
            f.schema_files
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string())),
        )
        .unwrap_or_else(|e| panic!("{}: its schema files parse alone: {e}", f.id));
        for root in f.roots {
            assert!(
                own.find_message(root).is_some(),
                "{}: root {root} is defined in its own schema files",
                f.id
            );
        }
    }
    let schemaless = formats::find(formats::SCHEMALESS_ID).expect("schemaless format");
    assert!(schemaless.roots.is_empty() && schemaless.schema_files.is_empty());
}

#[test]
fn every_tensor_adapter_names_fields_of_its_message() {
    let set = SchemaSet::builtin();
    let mut count = 0;
    for a in formats::tensor_adapters() {
        count += 1;
        let id = set
            .find_message(a.message)
            .unwrap_or_else(|| panic!("adapter message {} exists", a.message));
        for field in a.value_fields.iter().chain(a.header_fields) {
            assert!(
                field.message == a.message && set.field(id, *field).is_some(),
                "{}: field {field} exists",
                a.message
            );
        }
        assert!(
            formats::tensor_adapter(a.message).is_some_and(|b| std::ptr::eq(a, b)),
            "{} is found by its message",
            a.message
        );
    }
    assert!(count >= 2, "the ONNX and TensorFlow tensor adapters");
}

#[test]
fn every_text_view_is_of_a_root_message_of_some_format() {
    let set = SchemaSet::builtin();
    let roots: HashSet<&str> = REGISTRY
        .iter()
        .flat_map(|f| f.roots.iter().copied())
        .collect();
    for (message, _) in TEXT_VIEWS {
        assert!(set.find_message(message).is_some(), "{message} exists");
        assert!(roots.contains(message), "{message} is a root of a format");
    }
}

#[test]
fn the_views_a_format_names_are_the_text_views() {
    let mut named: Vec<&str> = Vec::new();
    for f in REGISTRY {
        for view in f.views {
            assert!(
                f.roots.contains(view),
                "{}: view {view} is of one of its roots",
                f.id
            );
            assert!(
                TEXT_VIEWS.iter().any(|(m, _)| m == view),
                "{}: view {view} is in TEXT_VIEWS",
                f.id
            );
            named.push(view);
        }
    }
    for (message, _) in TEXT_VIEWS {
        assert!(
            named.contains(message),
            "TEXT_VIEWS' {message} is named in a format's views"
        );
    }
    let unique: HashSet<&str> = named.iter().copied().collect();
    assert_eq!(unique.len(), TEXT_VIEWS.len(), "each view once: {named:?}");
}

#[test]
fn detection_tries_the_formats_in_registry_order() {
    // A message that fits no schema: every format but the schemaless one
    // turns it down, in order; the tensor bundle is tried (first) only by
    // an input that ends with the table magic, and the record files
    // (second) only on their framing (a record file is no message).
    let bytes = [0x08, 0x96, 0x01, 0x12, 0x02, 0xff, 0xff, 0xa0, 0x1f, 0x01];
    let decoded = formats::detect(&bytes, &FormatOptions::default()).expect("schemaless reads it");
    assert_eq!(decoded.format.id, formats::SCHEMALESS_ID);
    let tried: Vec<&str> = decoded.passed_over.iter().map(|(f, _)| f.id).collect();
    let bundle = formats::tf_checkpoint::FORMAT.id;
    assert_eq!(REGISTRY.first().map(|f| f.id), Some(bundle));
    assert_eq!(REGISTRY.get(1).map(|f| f.id), Some(formats::tf_record::ID));
    // onnx-optional only when asked: its bytes are a sequence's.
    let expected: Vec<&str> = REGISTRY
        .iter()
        .map(|f| f.id)
        .take(REGISTRY.len() - 1)
        .skip(2)
        .filter(|&id| id != "onnx-optional")
        .collect();
    assert_eq!(tried, expected);
    // The same message with the magic after it: the bundle first, then
    // (the pre-checks passing) the others.
    let mut tagged = bytes.to_vec();
    tagged.extend_from_slice(&[0u8; 40]);
    tagged.extend_from_slice(&formats::tf_checkpoint::TABLE_MAGIC);
    if let Ok(d) = formats::detect(&tagged, &FormatOptions::default()) {
        assert_eq!(d.passed_over.first().map(|(f, _)| f.id), Some(bundle));
    }
    let Err(rejection) = formats::detect(&[0u8; 48], &FormatOptions::default()) else {
        panic!("48 zero bytes are no bundle");
    };
    assert!(
        rejection.tried.is_empty(),
        "no magic, not tried as a bundle"
    );
}

/// A format's own tables: its schema files parsed alone.
fn own_tables(f: &formats::Format) -> SchemaSet {
    SchemaSet::from_files(
        f.schema_files
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string())),
    )
    .unwrap_or_else(|e| panic!("{}: its schema files parse alone: {e}", f.id))
}

#[test]
fn every_tensor_namer_is_of_a_message_of_its_format() {
    let set = SchemaSet::builtin();
    let mut messages: Vec<&str> = Vec::new();
    for f in REGISTRY {
        let own = own_tables(f);
        for n in f.tensor_namers {
            assert!(
                set.find_message(n.message).is_some(),
                "{}: namer message {} is in the built-in tables",
                f.id,
                n.message
            );
            assert!(
                own.find_message(n.message).is_some(),
                "{}: namer message {} is defined in its own schema files",
                f.id,
                n.message
            );
            assert!(
                formats::tensor_namer(n.message).is_some(),
                "{} is found by its message",
                n.message
            );
            messages.push(n.message);
        }
    }
    // The derived table is every format's namers, each message once.
    let derived: Vec<&str> = formats::tensor_namers().map(|n| n.message).collect();
    let unique: HashSet<&str> = messages.iter().copied().collect();
    assert_eq!(derived.len(), unique.len(), "{derived:?}");
    assert!(derived.iter().all(|m| unique.contains(m)));
    for m in ["onnx.GraphProto", "onnx.NodeProto", "tensorflow.NodeDef"] {
        assert!(derived.contains(&m), "{m} names its tensors: {derived:?}");
    }
    // A namer of no format's message is no namer.
    assert!(formats::tensor_namer("onnx.TensorProto").is_none());
}

#[test]
fn every_tensor_adapter_is_of_a_message_of_its_format_with_its_name_field() {
    for f in REGISTRY {
        let own = own_tables(f);
        for a in f.tensor_adapters {
            let id = own.find_message(a.message).unwrap_or_else(|| {
                panic!(
                    "{}: adapter message {} is defined in its own schema files",
                    f.id, a.message
                )
            });
            if let Some(name) = a.name_field {
                assert!(
                    name.message == a.message && own.field(id, name).is_some(),
                    "{}: name field {name} exists",
                    a.message
                );
            }
        }
    }
}

#[test]
fn the_as_choices_are_auto_then_the_registry_in_order() {
    let ids: Vec<&str> = AsFormat::all().map(AsFormat::id).collect();
    let mut expected = vec!["auto"];
    expected.extend(REGISTRY.iter().map(|f| f.id));
    assert_eq!(ids, expected);
    for a in AsFormat::all() {
        assert_eq!(AsFormat::parse(a.id()), Some(a), "{} parses back", a.id());
    }
    assert_eq!(AsFormat::parse("auto"), Some(AsFormat::Auto));
    assert!(AsFormat::parse("nope").is_none());
    assert!(AsFormat::parse("").is_none());
    assert!(AsFormat::parse(formats::SCHEMALESS_ID).is_some_and(AsFormat::is_schemaless));
    assert!(!AsFormat::Auto.is_schemaless());
}

/// The string literals of a file's code (comments left out), roughly: the
/// text between each pair of unescaped double quotes on a line.
fn string_literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut current: Option<String> = None;
        let mut escaped = false;
        for c in line.chars() {
            match (&mut current, c) {
                (Some(s), _) if escaped => {
                    s.push(c);
                    escaped = false;
                }
                (Some(_), '\\') => escaped = true,
                (Some(s), '"') => {
                    out.push(std::mem::take(s));
                    current = None;
                }
                (Some(s), c) => s.push(c),
                (None, '"') => current = Some(String::new()),
                (None, _) => {}
            }
        }
    }
    out
}

#[test]
fn no_code_outside_the_formats_keys_on_a_format_by_name() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    common::rust_files(&src, &mut files);
    // The views know the messages they show (a summary's lines are the
    // views' headers), and so does the graph view of models; test folders
    // and `decode diff` are ONNX features by definition; the generated
    // field constants name the message of each field.
    let may_name_messages = [
        "fields.rs",
        "render/text.rs",
        "render/onnx_view.rs",
        "render/tf_view.rs",
        "render/summary.rs",
        "graph/mod.rs",
        "testdata.rs",
        "diff.rs",
        "cli/diff.rs",
    ];
    // The packages of the formats' root messages: `onnx.`, `tensorflow.`.
    let packages: HashSet<String> = REGISTRY
        .iter()
        .flat_map(|f| f.roots.iter())
        .filter_map(|r| r.split_once('.').map(|(p, _)| format!("{p}.")))
        .collect();
    assert!(!packages.is_empty());
    let mut found = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("formats/") {
            continue;
        }
        checked += 1;
        let text = std::fs::read_to_string(file).unwrap();
        // A module's unit tests may build any message they test with.
        let code = text
            .split("\n#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or_default();
        for lit in string_literals(code) {
            if REGISTRY.iter().any(|f| f.id == lit) {
                found.push(format!("{rel}: format id {lit:?}"));
            }
            if !may_name_messages.contains(&rel.as_str())
                && packages.iter().any(|p| lit.starts_with(p.as_str()))
            {
                found.push(format!("{rel}: message name {lit:?}"));
            }
        }
    }
    assert!(checked > 20, "read the files of src/: {checked}");
    assert!(
        found.is_empty(),
        "format names outside src/formats/ (take them from the registry):\n{}",
        found.join("\n")
    );
}

/// The JSON contract's list of check names, in order, is the code's.
#[test]
fn the_json_contract_lists_every_check_name_in_order() {
    use pbdecode::error::Check;
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/json-contract.md"
    ))
    .expect("docs/json-contract.md");
    let start = readme
        .find("<!-- checks -->")
        .expect("the checks' start marker");
    let end = readme
        .find("<!-- /checks -->")
        .expect("the checks' end marker");
    let listed: Vec<&str> = readme[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| !name.starts_with("error::"))
        .collect();
    let code: Vec<&str> = Check::all().map(Check::name).collect();
    assert_eq!(listed, code, "docs/json-contract.md's list of checks");
}
