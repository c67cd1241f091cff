//! Schemas from the user: .proto files (proto2 and proto3, imports beside
//! the file and through -I) and FileDescriptorSets from `protoc -o`, read
//! into the same tables as the built-in formats and rendered by the same
//! renderers; fields the schema does not know are read without a schema.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use pbdecode::render::{RenderOptions, json, text};
use pbdecode::schema::SchemaSet;
use pbdecode::user_schema;
use std::path::{Path, PathBuf};

const DIR: &str = "tests/fixtures/user-schema";

fn fixture(name: &str) -> PathBuf {
    Path::new(DIR).join(name)
}

fn render(set: &SchemaSet, type_name: &str, message: &str) -> String {
    let bytes = std::fs::read(fixture(message)).unwrap();
    let decoded = user_schema::decode(set, type_name, &bytes, 100).unwrap();
    let opts = RenderOptions::default();
    let mut t = Vec::new();
    text::write_decoded(&mut t, &decoded, &opts).unwrap();
    let mut j = Vec::new();
    json::write_decoded(&mut j, &decoded, &opts).unwrap();
    format!(
        "{}--- json ---\n{}",
        String::from_utf8(t).unwrap(),
        common::json::pretty(&String::from_utf8(j).unwrap())
    )
}

fn snap(name: &str, out: &str) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("user_schema__{name}"), out);
    });
}

fn shapes() -> SchemaSet {
    user_schema::load_proto(&fixture("shapes.proto"), &[fixture("include")]).unwrap()
}

#[test]
fn proto3_file_with_imports() {
    let out = render(&shapes(), "demo.v1.Shape", "shape_unknown.pb");
    snap("proto3_shape", &out);
}

#[test]
fn proto2_file_with_a_group() {
    let set = user_schema::load_proto(&fixture("legacy.proto"), &[]).unwrap();
    snap("proto2_record", &render(&set, "legacy.Record", "record.pb"));
}

#[test]
fn descriptor_sets_read_like_the_proto_files() {
    let desc = std::fs::read(fixture("shapes.desc")).unwrap();
    let from_desc = user_schema::load_descriptor_set(&desc).unwrap();
    assert_eq!(
        render(&from_desc, "demo.v1.Shape", "shape_unknown.pb"),
        render(&shapes(), "demo.v1.Shape", "shape_unknown.pb")
    );
    let desc = std::fs::read(fixture("legacy.desc")).unwrap();
    let from_desc = user_schema::load_descriptor_set(&desc).unwrap();
    let from_proto = user_schema::load_proto(&fixture("legacy.proto"), &[]).unwrap();
    assert_eq!(
        render(&from_desc, "legacy.Record", "record.pb"),
        render(&from_proto, "legacy.Record", "record.pb")
    );
}

#[test]
fn a_missing_import_says_where_it_looked() {
    let err = user_schema::load_proto(&fixture("shapes.proto"), &[]).unwrap_err();
    assert!(
        err.0.contains("import \"common/units.proto\" not found"),
        "{err}"
    );
    assert!(err.0.contains("-I DIR"), "{err}");
}

#[test]
fn well_known_imports_fall_back_to_built_in_copies() {
    let dir = std::env::temp_dir().join(format!("pbdecode-wkt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("event.proto");
    std::fs::write(
        &file,
        "syntax = \"proto3\"; package ev; import \"google/protobuf/timestamp.proto\";\n\
         message Event { google.protobuf.Timestamp at = 1; }",
    )
    .unwrap();
    let set = user_schema::load_proto(&file, &[]).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(set.find_message("google.protobuf.Timestamp").is_some());
    assert!(set.find_message("ev.Event").is_some());
}

#[test]
fn the_descriptor_table_reads_itself() {
    // descriptor.proto's own table decodes a descriptor set of ... itself,
    // via protoc's output for legacy.proto: every field is known.
    let desc = std::fs::read(fixture("legacy.desc")).unwrap();
    let set = user_schema::descriptor_schema();
    let decoded =
        user_schema::decode(set, "google.protobuf.FileDescriptorSet", &desc, 100).unwrap();
    let mut t = Vec::new();
    text::write_decoded(&mut t, &decoded, &RenderOptions::default()).unwrap();
    let t = String::from_utf8(t).unwrap();
    assert!(t.contains("name: \"Record\""), "{t}");
    assert!(t.contains("type: TYPE_GROUP"), "{t}");
}
