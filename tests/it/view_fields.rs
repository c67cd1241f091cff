//! The code reads a decoded message's fields through the constants of
//! `pbdecode::fields`, generated from the schema tables: a field renamed in
//! a schema no longer compiles where it is read. A constant holds its
//! field's slot, so a read indexes the message's field list instead of
//! searching it; in the project's own tables a constant read from a message
//! of another type panics in debug builds; in a user's table that names a
//! message like one of ours, the field is found by its name, or is absent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use pbdecode::decode::{DecodeContext, decode_message};
use pbdecode::fields::onnx::{GraphProto, ModelProto};
use pbdecode::formats::decode_builtin;
use pbdecode::schema::{FieldId, SchemaSet};

/// ir_version 8, producer_name "x".
const MODEL: [u8; 5] = [0x08, 0x08, 0x12, 0x01, b'x'];

#[test]
fn constants_read_their_fields() {
    let set = SchemaSet::builtin();
    let m = decode_builtin("onnx.ModelProto", &MODEL, DecodeContext::strict()).unwrap();
    assert_eq!(m.int(set, ModelProto::IR_VERSION), Some(8));
    assert_eq!(m.str(set, ModelProto::PRODUCER_NAME), Some("x"));
    assert!(!m.has(set, ModelProto::GRAPH));
    let id = set.find_message("onnx.ModelProto").unwrap();
    let (slot, def) = set.field(id, ModelProto::PRODUCER_NAME).unwrap();
    assert_eq!(
        (slot, def.name.as_str()),
        (ModelProto::PRODUCER_NAME.slot, "producer_name")
    );
}

#[test]
#[cfg(debug_assertions)]
fn a_constant_of_another_message_panics() {
    let set = SchemaSet::builtin();
    let m = decode_builtin("onnx.ModelProto", &MODEL, DecodeContext::strict()).unwrap();
    let err = std::panic::catch_unwind(|| m.str(set, GraphProto::NAME)).unwrap_err();
    let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_eq!(text, "onnx.GraphProto.name read from a onnx.ModelProto");
}

/// A user's table may call a message `onnx.ModelProto` and declare other
/// fields, in another order: the constants find theirs by name there, and
/// a field it lacks is absent (no panic, whatever the build).
#[test]
fn a_users_message_named_like_ours_is_read_by_name() {
    let set = SchemaSet::from_files([(
        "user.proto".to_string(),
        "syntax = \"proto2\";\npackage onnx;\nmessage ModelProto {\n  \
         optional string producer_name = 2;\n  optional int64 ir_version = 1;\n}\n"
            .to_string(),
    )])
    .unwrap();
    let id = set.find_message("onnx.ModelProto").unwrap();
    let m = decode_message(&set, id, &MODEL, 0, DecodeContext::strict()).unwrap();
    assert_eq!(m.str(&set, ModelProto::PRODUCER_NAME), Some("x"));
    assert_eq!(m.int(&set, ModelProto::IR_VERSION), Some(8));
    assert!(!m.has(&set, ModelProto::GRAPH));
    assert!(m.field(&set, ModelProto::OPSET_IMPORT).is_empty());
}

/// A read goes to the constant's slot without searching the field list: in
/// a table whose 10,000 fields all bear the same name, the constant of the
/// last one finds the last one (a search by name would stop at the first).
#[test]
fn a_read_indexes_the_slot_without_a_search() {
    const FIELDS: u32 = 10_000;
    let mut proto = String::from("syntax = \"proto2\";\npackage p;\nmessage M {\n");
    for n in 1..=FIELDS {
        proto.push_str(&format!("  optional int32 x = {n};\n"));
    }
    proto.push_str("}\n");
    let set = SchemaSet::from_files([("m.proto".to_string(), proto)])
        .unwrap()
        .into_builtin();
    let id = set.find_message("p.M").unwrap();
    let last = FieldId {
        message: "p.M",
        name: "x",
        number: FIELDS,
        slot: FIELDS as usize - 1,
    };
    let (slot, def) = set.field(id, last).unwrap();
    assert_eq!((slot, def.number), (FIELDS as usize - 1, FIELDS));
    // Field FIELDS, value 7: read from its slot.
    let mut bytes = Vec::new();
    let key = u64::from(FIELDS) << 3;
    let mut k = key;
    while k >= 0x80 {
        bytes.push((k as u8) | 0x80);
        k >>= 7;
    }
    bytes.push(k as u8);
    bytes.push(7);
    let m = decode_message(&set, id, &bytes, 0, DecodeContext::strict()).unwrap();
    assert_eq!(m.int(&set, last), Some(7));
}
