//! Every field name the views (and the code reading messages for npy,
//! stats and pictures) pass to the named accessors of a decoded message is
//! checked against that message's schema table: in debug builds a name the
//! table does not hold panics with "TYPE has no field NAME", so a field
//! renamed in a schema fails the snapshot tests that run the views over the
//! fixtures instead of silently dropping out of the output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use pbdecode::decode::DecodeContext;
use pbdecode::formats::decode_builtin;
use pbdecode::schema::SchemaSet;

/// ir_version 8, producer_name "x".
const MODEL: [u8; 5] = [0x08, 0x08, 0x12, 0x01, b'x'];

#[test]
fn known_names_read_their_fields() {
    let set = SchemaSet::builtin();
    let m = decode_builtin("onnx.ModelProto", &MODEL, DecodeContext::strict()).unwrap();
    assert_eq!(m.int(set, "ir_version"), Some(8));
    assert_eq!(m.str(set, "producer_name"), Some("x"));
    assert!(!m.has(set, "graph"));
}

#[test]
#[cfg(debug_assertions)]
fn a_name_not_in_the_schema_panics() {
    let set = SchemaSet::builtin();
    let m = decode_builtin("onnx.ModelProto", &MODEL, DecodeContext::strict()).unwrap();
    for read in [
        (|m: &pbdecode::decode::Message<'_>, set| {
            let _ = m.str(set, "producer");
        }) as fn(&pbdecode::decode::Message<'_>, &SchemaSet),
        |m, set| {
            let _ = m.int(set, "irversion");
        },
        |m, set| {
            let _ = m.scalars(set, "ir_versions").count();
        },
        |m, set| {
            let _ = m.message(set, "graphs");
        },
    ] {
        let err = std::panic::catch_unwind(|| read(&m, set)).unwrap_err();
        let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.starts_with("onnx.ModelProto has no field "), "{text}");
    }
}

#[test]
fn probing_allows_any_name() {
    let set = SchemaSet::builtin();
    let m = decode_builtin("onnx.ModelProto", &MODEL, DecodeContext::strict()).unwrap();
    assert!(m.probe_field(set, "no_such_field").is_empty());
    assert_eq!(m.probe_field(set, "producer_name").len(), 1);
}
