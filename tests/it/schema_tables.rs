//! The built-in schema tables are well formed: field numbers and names
//! unique per message and in range, every referenced type present, packed
//! only where protobuf allows it, enum value names unique, every format's
//! root message present; and ONNX's TensorProto is exactly the spec's.
//!
//! What this suite checks, in full: the built-in tables are consistent (unique numbers and names,
//! types resolve, `packed` only on scalars, TensorProto exactly as the
//! field table of the ONNX specification).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use pbdecode::schema::{FieldType, Label, SchemaSet};
use std::collections::HashSet;

fn set() -> &'static SchemaSet {
    SchemaSet::builtin()
}

#[test]
fn the_tables_are_not_empty() {
    assert!(set().messages.len() > 50, "{}", set().messages.len());
    assert!(!set().enums.is_empty());
}

#[test]
fn message_and_enum_names_are_unique() {
    let mut seen = HashSet::new();
    for m in &set().messages {
        assert!(
            seen.insert(m.full_name.to_string()),
            "message {} twice",
            m.full_name
        );
        assert!(
            m.full_name.to_string().ends_with(&m.name),
            "{} / {}",
            m.full_name,
            m.name
        );
        assert_eq!(
            set()
                .find_message(&m.full_name.to_string())
                .map(|id| &set().message(id).full_name),
            Some(&m.full_name)
        );
    }
    let mut seen = HashSet::new();
    for e in &set().enums {
        assert!(
            seen.insert(e.full_name.to_string()),
            "enum {} twice",
            e.full_name
        );
        assert_eq!(
            set()
                .find_enum(&e.full_name.to_string())
                .map(|id| &set().enum_def(id).full_name),
            Some(&e.full_name)
        );
    }
}

#[test]
fn field_numbers_and_names_are_unique_and_in_range() {
    for m in &set().messages {
        let mut numbers = HashSet::new();
        let mut names = HashSet::new();
        for f in &m.fields {
            assert!(
                numbers.insert(f.number),
                "{}: field number {} twice",
                m.full_name,
                f.number
            );
            assert!(
                names.insert(f.name.as_str()),
                "{}: field name {} twice",
                m.full_name,
                f.name
            );
            assert!(
                (1..=(1 << 29) - 1).contains(&f.number),
                "{}.{} = {}",
                m.full_name,
                f.name,
                f.number
            );
            // Reserved for protobuf's own use.
            assert!(
                !(19000..=19999).contains(&f.number),
                "{}.{} = {}",
                m.full_name,
                f.name,
                f.number
            );
            assert!(!f.name.is_empty(), "{}: a field with no name", m.full_name);
            // The lookups find each field where it is.
            let (_, by_number) = m.field_by_number(f.number).unwrap();
            assert_eq!(by_number.name, f.name, "{}", m.full_name);
            let (_, by_name) = m.field_by_name(&f.name).unwrap();
            assert_eq!(by_name.number, f.number, "{}", m.full_name);
        }
    }
}

#[test]
fn referenced_types_exist() {
    for m in &set().messages {
        for f in &m.fields {
            match f.ty {
                FieldType::Message(id) => {
                    assert!(id < set().messages.len(), "{}.{}", m.full_name, f.name)
                }
                FieldType::Enum(id) => {
                    assert!(id < set().enums.len(), "{}.{}", m.full_name, f.name)
                }
                FieldType::Scalar(_) => {}
            }
        }
    }
}

#[test]
fn packed_only_on_repeated_scalars() {
    for m in &set().messages {
        for f in &m.fields {
            if f.packed {
                assert_eq!(
                    f.label,
                    Label::Repeated,
                    "{}.{} is packed but not repeated",
                    m.full_name,
                    f.name
                );
                assert!(
                    f.ty.packable(),
                    "{}.{} is packed but not a scalar",
                    m.full_name,
                    f.name
                );
            }
        }
    }
}

#[test]
fn map_entries_are_key_1_and_value_2() {
    for m in set().messages.iter().filter(|m| m.map_entry) {
        let numbers: Vec<(u32, &str)> = m
            .fields
            .iter()
            .map(|f| (f.number, f.name.as_str()))
            .collect();
        assert_eq!(numbers.len(), 2, "{}", m.full_name);
        assert!(
            numbers.contains(&(1, "key")) && numbers.contains(&(2, "value")),
            "{}: {numbers:?}",
            m.full_name
        );
    }
}

#[test]
fn enum_value_names_are_unique() {
    for e in &set().enums {
        assert!(!e.values.is_empty(), "{} has no values", e.full_name);
        let mut names = HashSet::new();
        for (name, _) in &e.values {
            assert!(names.insert(name.as_str()), "{}: {name} twice", e.full_name);
        }
    }
}

#[test]
fn every_format_has_its_root_messages() {
    // The roots and adapters come from each format's record (tests/it/registry.rs
    // checks the rest of the record).
    let ids = pbdecode::formats::ids();
    assert_eq!(
        ids.len(),
        ids.iter().collect::<HashSet<_>>().len(),
        "format ids repeat: {ids:?}"
    );
    for f in pbdecode::formats::REGISTRY {
        for name in f.roots {
            assert!(
                set().find_message(name).is_some(),
                "{}: no message {name}",
                f.id
            );
        }
    }
    // The tensor messages the renderers replace by `values`, and the fields
    // they replace.
    for a in pbdecode::formats::tensor_adapters() {
        let id = set()
            .find_message(a.message)
            .unwrap_or_else(|| panic!("no {}", a.message));
        for f in a.value_fields {
            assert!(
                f.message == a.message && set().field(id, *f).is_some(),
                "{} has no field {f}",
                a.message
            );
        }
    }
}

#[test]
fn onnx_tensor_proto_is_the_specs() {
    // The spec's table (onnx 1.23): number, name, repeated.
    let want: &[(u32, &str, bool)] = &[
        (1, "dims", true),
        (2, "data_type", false),
        (3, "segment", false),
        (4, "float_data", true),
        (5, "int32_data", true),
        (6, "string_data", true),
        (7, "int64_data", true),
        (8, "name", false),
        (9, "raw_data", false),
        (10, "double_data", true),
        (11, "uint64_data", true),
        (12, "doc_string", false),
        (13, "external_data", true),
        (14, "data_location", false),
        (16, "metadata_props", true),
    ];
    let m = set().message(set().find_message("onnx.TensorProto").unwrap());
    let mut got: Vec<(u32, &str, bool)> = m
        .fields
        .iter()
        .map(|f| (f.number, f.name.as_str(), f.repeated()))
        .collect();
    got.sort();
    assert_eq!(got, want);
    assert!(m.field_by_number(15).is_none(), "field 15 is not used");
    let seg = set().message(set().find_message("onnx.TensorProto.Segment").unwrap());
    let got: Vec<(u32, &str)> = seg
        .fields
        .iter()
        .map(|f| (f.number, f.name.as_str()))
        .collect();
    assert_eq!(got, [(1, "begin"), (2, "end")]);
    let sparse = set().message(set().find_message("onnx.SparseTensorProto").unwrap());
    let mut got: Vec<(u32, &str)> = sparse
        .fields
        .iter()
        .map(|f| (f.number, f.name.as_str()))
        .collect();
    got.sort();
    assert_eq!(got, [(1, "values"), (2, "indices"), (3, "dims")]);
    // DataType: the 28 types of the tensor table, by code, and UNDEFINED.
    let dt = set().enum_def(set().find_enum("onnx.TensorProto.DataType").unwrap());
    assert_eq!(dt.name_of(0), Some("UNDEFINED"));
    for t in pbdecode::formats::onnx_tensor::ONNX_TYPES {
        assert_eq!(
            dt.name_of(i64::from(t.code)),
            Some(t.name),
            "code {}",
            t.code
        );
    }
    assert_eq!(dt.name_of(29), None);
    let loc = set().enum_def(set().find_enum("onnx.TensorProto.DataLocation").unwrap());
    assert_eq!(loc.name_of(0), Some("DEFAULT"));
    assert_eq!(loc.name_of(1), Some("EXTERNAL"));
}

#[test]
fn every_onnx_type_has_its_typed_field() {
    let id = set().find_message("onnx.TensorProto").unwrap();
    for t in pbdecode::formats::onnx_tensor::ONNX_TYPES {
        assert!(
            t.typed_field.message == "onnx.TensorProto" && set().field(id, t.typed_field).is_some(),
            "{}: {}",
            t.name,
            t.typed_field
        );
    }
}
