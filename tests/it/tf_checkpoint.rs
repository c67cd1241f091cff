//! TensorFlow tensor bundles (`tf-checkpoint`): text and JSON snapshots of
//! the checkpoints in tests/fixtures/tf-checkpoint (written by TensorFlow
//! 2.21 through scripts/make_tf_checkpoint_fixtures.py, see its README.md),
//! their damaged copies, tables built here with lengths and counts no
//! writer makes, and the facade's tensors of a bundle.
//!
//! What this suite checks, in full: the tensor bundles TensorFlow 2.21 wrote
//! (`tests/fixtures/tf-checkpoint`: a SavedModel's variables of every
//! memcpy type and strings, a `tf.train.Checkpoint` with optimizer slots, a
//! sharded checkpoint whose variables are split across 8 shards, one of ten
//! shards, a TF1 partitioned variable, a V1 checkpoint, a V1 checkpoint of
//! variables saved in slices of every type V1 saves, 6,001 variables) as
//! text and JSON snapshots, their damaged copies by the check that fails,
//! tables built in the test with a restart count of 2^31-1, lengths of
//! 2^31-1 and 2^40, shared prefixes longer than the key before, keys out of
//! order, a big-endian bundle, V1 slices that miss, overlap, overrun or
//! fall short of their tensor; every prefix and byte flip of an index; a
//! SavedModel's variables in its views and the facade; no other fixture
//! read as a bundle.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::Msg;
use common::table::{block, entry, push_block, table};
use pbdecode::checksum::{crc32c, crc32c_extend, mask};
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, json, text};
use std::path::{Path, PathBuf};

const DIR: &str = "tests/fixtures/tf-checkpoint";

fn path(rel: &str) -> PathBuf {
    Path::new(DIR).join(rel)
}

fn read(rel: &str) -> Vec<u8> {
    let p = path(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The render options of a file opened in its folder (the shards beside it).
fn in_folder(rel: &str) -> RenderOptions {
    RenderOptions {
        dir: path(rel)
            .parent()
            .map(|p| pbdecode::Folder::Disk(p.to_path_buf())),
        ..RenderOptions::default()
    }
}

fn text_of(rel: &str, opts: &RenderOptions) -> String {
    let bytes = read(rel);
    let decoded = formats::detect(&bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("{rel}: not decoded: {}", r.error));
    assert_eq!(decoded.format.id, "tf-checkpoint", "{rel}");
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, opts).expect("write to a Vec");
    String::from_utf8(out).expect("UTF-8 text")
}

fn json_of(rel: &str, opts: &RenderOptions) -> String {
    let bytes = read(rel);
    let decoded = formats::detect(&bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("{rel}: not decoded: {}", r.error));
    let mut out = Vec::new();
    json::write_decoded(&mut out, &decoded, opts).expect("write to a Vec");
    String::from_utf8(out).expect("UTF-8 JSON")
}

fn snapshot(name: &str, value: String) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("tf_checkpoint__{name}"), value);
    });
}

fn snapshot_both(name: &str, rel: &str) {
    let opts = in_folder(rel);
    snapshot(&format!("{name}_text"), text_of(rel, &opts));
    let j = json_of(rel, &opts);
    serde_json::from_str::<serde_json::Value>(&j).expect("the JSON parses");
    snapshot(&format!("{name}_json"), common::json::pretty(&j));
}

/// Why detection turns the input down: (check, offset).
fn rejection(bytes: &[u8]) -> (String, u64, String) {
    match formats::detect(bytes, &FormatOptions::default()) {
        Ok(d) => panic!("read as {}", d.format.id),
        Err(r) => (
            r.error.check().to_string(),
            r.error.offset(),
            r.error.to_string(),
        ),
    }
}

// ---------------------------------------------------------------------------
// Fixtures written by TensorFlow

#[test]
fn tf2_checkpoint_with_optimizer_slots_and_object_graph() {
    snapshot_both("train", "train/ckpt.index");
    let t = text_of("train/ckpt.index", &in_folder("train/ckpt.index"));
    assert!(
        t.contains("checksums: 8 ok, 0 mismatch, 0 not checked"),
        "{t}"
    );
    assert!(t.contains("\"kernel\": node 11 -> \"model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE\""));
}

#[test]
fn saved_model_variables_of_every_memcpy_type_and_strings() {
    let rel = "saved_model_all_types/variables/variables.index";
    snapshot_both("saved_model_variables", rel);
    let all = RenderOptions {
        values: Some(u64::MAX),
        ..in_folder(rel)
    };
    let t = text_of(rel, &all);
    // The string variable as TensorFlow wrote it, bytes that are not
    // UTF-8 escaped.
    assert!(t.contains("\"alpha\""), "{t}");
    assert!(
        t.contains("checksums: 18 ok, 0 mismatch, 0 not checked"),
        "{t}"
    );
}

#[test]
fn partitioned_variable_is_assembled_from_its_slices() {
    let rel = "partitioned/model.ckpt.index";
    snapshot_both("partitioned", rel);
    let all = RenderOptions {
        values: Some(u64::MAX),
        ..in_folder(rel)
    };
    let t = text_of(rel, &all);
    // Row r of w holds 3r, 3r+1, 3r+2 whichever part it was saved in.
    let row9 = "[9,0] 27.0  28.0  29.0";
    assert!(t.contains(row9), "{t}");
    assert!(t.contains("tensor \"w\" slice [4:7, 0:3]"), "{t}");
}

#[test]
fn sharded_checkpoint_reads_every_shard() {
    let rel = "sharded/ckpt.index";
    snapshot_both("sharded", rel);
    let t = text_of(rel, &in_folder(rel));
    assert!(t.contains("shards:    8"), "{t}");
    assert!(t.contains("0 mismatch"), "{t}");
    assert!(t.contains("(ckpt.data-00007-of-00008)"), "{t}");
}

#[test]
fn ten_shards_each_read() {
    let rel = "sharded10/ckpt.index";
    let t = text_of(rel, &in_folder(rel));
    assert!(
        t.contains("shards:    10 (ckpt.data-SSSSS-of-00010)"),
        "{t}"
    );
    assert!(
        t.contains("checksums: 11 ok, 0 mismatch, 0 not checked"),
        "{t}"
    );
    snapshot("sharded10_text", t);
}

#[test]
fn v1_checkpoint_values_are_in_the_table() {
    snapshot_both("v1", "v1/model.ckpt");
}

#[test]
fn six_thousand_variables() {
    let rel = "many/ckpt.index";
    let t = text_of(rel, &in_folder(rel));
    assert!(t.contains("tensors:   6,001, "), "{}", &t[..400]);
    assert!(t.contains("checksums: 6001 ok, 0 mismatch, 0 not checked"));
    assert!(t.contains("tensor \"layer5999/.ATTRIBUTES/VARIABLE_VALUE\""));
    let doc = pbdecode::open(path(rel)).unwrap();
    assert_eq!(doc.tensors().len(), 6001);
    let t = doc
        .tensor_by_name("layer4321/.ATTRIBUTES/VARIABLE_VALUE")
        .unwrap();
    assert_eq!(
        t.values().unwrap(),
        pbdecode::Values::F32(vec![4321.0, 4321.0])
    );
}

#[test]
fn without_its_folder_the_index_still_lists_its_tensors() {
    let t = text_of("train/ckpt.index", &RenderOptions::default());
    assert!(t.contains("shards:    1 (not found"), "{t}");
    assert!(
        t.contains("checksums: 0 ok, 0 mismatch, 8 not checked"),
        "{t}"
    );
    assert!(
        t.contains("values:    not available: the shard is unknown"),
        "{t}"
    );
}

// ---------------------------------------------------------------------------
// Damaged copies (scripts/make_tf_checkpoint_fixtures.py)

#[test]
fn damaged_indexes_are_turned_down_by_the_check_that_fails() {
    for (name, check) in [
        ("bad_block_crc", "table-checksum"),
        ("cut_index", "table-footer"),
        ("huge_restart_count", "table-block"),
        ("long_shared_prefix", "table-entry"),
        ("snappy_block", "table-compression"),
    ] {
        let bytes = read(&format!("damaged/{name}/ckpt.index"));
        let (got, offset, message) = rejection(&bytes);
        assert_eq!(got, check, "{name}: {message}");
        assert!(offset < bytes.len() as u64, "{name}: offset {offset}");
        snapshot(&format!("damaged_{name}"), message);
    }
}

#[test]
fn damaged_shards_leave_the_other_tensors_readable() {
    for (name, status) in [
        ("bad_value_crc", "1 mismatch"),
        ("cut_shard", "1 not checked"),
        ("offset_past_end", "7 not checked"),
    ] {
        let rel = format!("damaged/{name}/ckpt.index");
        let t = text_of(&rel, &in_folder(&rel));
        assert!(t.contains(status), "{name}: {t}");
        snapshot(&format!("damaged_{name}_text"), t);
    }
}

#[cfg(unix)]
#[test]
fn a_shard_linked_out_of_the_folder_is_not_read() {
    let rel = "damaged/shard_link_escapes/ckpt.index";
    let t = text_of(rel, &in_folder(rel));
    assert!(
        t.contains("checksums: 0 ok, 0 mismatch, 8 not checked"),
        "{t}"
    );
    assert!(
        t.contains("leads out of the tensor's folder through a symbolic link"),
        "{t}"
    );
    // The file outside holds the very values: none of them is shown.
    assert!(!t.contains("0.10000001"), "{t}");
}

#[test]
fn a_changed_float_fails_its_checksum_alone() {
    let dir = std::env::temp_dir().join(format!("pbdecode-tfc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(path("train/ckpt.index"), dir.join("ckpt.index")).unwrap();
    let mut shard = read("train/ckpt.data-00000-of-00001");
    // The kernel is at offset 20 (48 bytes).
    shard[21] ^= 0x10;
    std::fs::write(dir.join("ckpt.data-00000-of-00001"), &shard).unwrap();
    let doc = pbdecode::open(dir.join("ckpt.index")).unwrap();
    let err = doc
        .tensor_by_name("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE")
        .unwrap()
        .values()
        .unwrap_err();
    assert!(err.to_string().contains("CRC32C mismatch"), "{err}");
    let bias = doc
        .tensor_by_name("model/dense/bias/.ATTRIBUTES/VARIABLE_VALUE")
        .unwrap();
    assert_eq!(
        bias.values().unwrap(),
        pbdecode::Values::F32(vec![-0.1, -0.4, 0.100_000_01])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------
// Tables built here: lengths and counts no writer makes.

/// The header entry (key ""), a BundleHeaderProto of one shard.
fn header_entry() -> Vec<u8> {
    let header = Msg::new()
        .varint(1, 1)
        .message(3, &Msg::new().varint(1, 1))
        .bytes();
    let mut e = entry(0, 0, header.len() as u64, &[]);
    e.extend_from_slice(&header);
    e
}

/// A float entry under `key` after the header.
fn float_entry(shared: u64, key: &[u8]) -> Vec<u8> {
    float_entry_at(shared, key, 0)
}

/// A float entry of two values (8 bytes) at `offset` of shard 0.
fn float_entry_at(shared: u64, key: &[u8], offset: u64) -> Vec<u8> {
    let value = Msg::new()
        .varint(1, 1)
        .message(2, &Msg::new().message(2, &Msg::new().varint(1, 2)))
        .varint(4, offset)
        .varint(5, 8)
        .fixed32(6, 0)
        .bytes();
    let mut e = entry(shared, key.len() as u64, value.len() as u64, key);
    e.extend_from_slice(&value);
    e
}

#[test]
fn a_table_built_here_reads() {
    let mut entries = header_entry();
    entries.extend(float_entry(0, b"a"));
    entries.extend(float_entry_at(1, b"b", 8));
    let bytes = table(&block(&entries, &[0], 1));
    let d = formats::detect(&bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("{}", r.error));
    assert_eq!(d.format.id, "tf-checkpoint");
    let mut out = Vec::new();
    text::write_decoded(&mut out, &d, &RenderOptions::default()).unwrap();
    let t = String::from_utf8(out).unwrap();
    // The second key shares the first's byte: "a" then "ab".
    assert!(
        t.contains("tensor \"a\"\n") && t.contains("tensor \"ab\"\n"),
        "{t}"
    );
}

#[test]
fn entries_sharing_bytes_of_a_shard_are_turned_down() {
    // Each tensor's bytes are its own: entries (the slices of a
    // partitioned variable above all) reading the same bytes would make a
    // full tensor many times the size of the shard.
    let mut entries = header_entry();
    entries.extend(float_entry_at(0, b"a", 0));
    entries.extend(float_entry_at(1, b"b", 4));
    let bytes = table(&block(&entries, &[0], 1));
    let (check, _, message) = rejection(&bytes);
    assert_eq!(check, "bundle-overlap", "{message}");
    assert!(
        message.contains("\"a\" and \"ab\" share bytes 4..8 of shard 0"),
        "{message}"
    );
    // Next to each other, or empty at the same place, they do not.
    let mut entries = header_entry();
    entries.extend(float_entry_at(0, b"a", 0));
    entries.extend(float_entry_at(1, b"b", 8));
    entries.extend(float_entry_at(2, b"c", 16));
    assert!(formats::detect(&table(&block(&entries, &[0], 1)), &FormatOptions::default()).is_ok());
}

#[test]
fn data_blocks_sharing_bytes_are_turned_down() {
    // Two index entries naming the same data block: a table's blocks
    // follow one another, so the second is refused (each entry's bytes,
    // a V1 checkpoint's slices among them, are read once).
    let mut entries = header_entry();
    entries.extend(float_entry(0, b"a"));
    let mut file = Vec::new();
    let data = push_block(&mut file, &block(&entries, &[0], 1));
    let meta = push_block(&mut file, &block(&[], &[0], 1));
    let mut index_entries = Vec::new();
    for key in [&b"b"[..], b"c"] {
        let mut handle = Vec::new();
        common::put_varint(&mut handle, data.0);
        common::put_varint(&mut handle, data.1);
        let shared = u64::from(key == b"c");
        let mut e = entry(shared, 1, handle.len() as u64, &key[..1]);
        e.extend_from_slice(&handle);
        index_entries.extend(e);
    }
    let index = push_block(&mut file, &block(&index_entries, &[0], 1));
    let mut footer = Vec::new();
    for v in [meta.0, meta.1, index.0, index.1] {
        common::put_varint(&mut footer, v);
    }
    footer.resize(40, 0);
    footer.extend_from_slice(&formats::tf_checkpoint::TABLE_MAGIC);
    file.extend_from_slice(&footer);
    let (check, _, message) = rejection(&file);
    assert_eq!(check, "table-block", "{message}");
    assert!(message.contains("share no bytes"), "{message}");
}

#[test]
fn hostile_tables_are_turned_down_with_the_check_and_offset() {
    let h = header_entry();
    let with = |more: &[u8]| {
        let mut e = h.clone();
        e.extend_from_slice(more);
        e
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "restart count 2^31-1",
            table(&block(&h, &[], 0x7fff_ffff)),
            "table-block",
        ),
        ("no restart point", table(&block(&h, &[], 0)), "table-block"),
        (
            "value length 2^31-1",
            table(&block(&with(&entry(0, 1, 0x7fff_ffff, b"k")), &[0], 1)),
            "table-entry",
        ),
        (
            "key length 2^40",
            table(&block(&with(&entry(0, 1 << 40, 1, b"k")), &[0], 1)),
            "table-entry",
        ),
        (
            "shared prefix longer than the key before",
            table(&block(&with(&float_entry(3, b"x")), &[0], 1)),
            "table-entry",
        ),
        (
            "keys out of order",
            table(&block(
                &{
                    let mut e = with(&float_entry(0, b"b"));
                    e.extend(float_entry(0, b"a"));
                    e
                },
                &[0],
                1,
            )),
            "table-entry",
        ),
        (
            "first key not the header",
            table(&block(&float_entry(0, b"a"), &[0], 1)),
            "bundle-header",
        ),
        (
            "a varint that never ends",
            table(&block(&[0xff; 12], &[0], 1)),
            "table-entry",
        ),
    ];
    for (what, bytes, check) in cases {
        let (got, offset, message) = rejection(&bytes);
        assert_eq!(got, check, "{what}: {message}");
        assert!(offset < bytes.len() as u64, "{what}: {message}");
    }
    // A block handle past the end of the file.
    let mut bytes = table(&block(&h, &[0], 1));
    let footer = bytes.len() - 48;
    bytes[footer + 2] = 0x7f; // the index block's offset
    let (got, _, message) = rejection(&bytes);
    assert!(
        ["table-block", "table-footer"].contains(&got.as_str()),
        "{message}"
    );
}

#[test]
fn every_prefix_and_byte_flip_of_an_index_is_an_error_or_a_reading() {
    let opts = RenderOptions::default();
    // The views, then every tensor's values and statistics through the
    // library (a V1 checkpoint's values, its slices assembled, are in the
    // table itself).
    let run = |b: &[u8]| {
        if let Ok(d) = formats::detect(b, &FormatOptions::default()) {
            let mut out = Vec::new();
            text::write_decoded(&mut out, &d, &opts).unwrap();
            json::write_decoded(&mut out, &d, &opts).unwrap();
        }
        if let Ok(doc) = pbdecode::read(b.to_vec()) {
            for r in doc.tensors() {
                if let Ok(t) = doc.tensor(r) {
                    let _ = t.values();
                    let _ = t.stats();
                }
            }
        }
    };
    for name in [
        "train/ckpt.index",
        "v1/model.ckpt",
        "v1_partitioned/model.ckpt",
    ] {
        let bytes = read(name);
        for cut in 0..bytes.len() {
            run(&bytes[..cut]);
        }
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x5a;
            run(&b);
        }
    }
}

// ---------------------------------------------------------------------------
// Detection and the facade

#[test]
fn no_other_fixture_is_read_as_a_bundle() {
    for (name, bytes) in common::all_fixture_files() {
        if name.contains("tf-checkpoint") {
            continue;
        }
        let id = formats::detect(&bytes, &FormatOptions::default())
            .map(|d| d.format.id)
            .unwrap_or("-");
        assert_ne!(id, "tf-checkpoint", "{name}");
    }
}

#[test]
fn the_facade_lists_a_bundles_variables_with_their_values() {
    let doc = pbdecode::open(path("saved_model_all_types/variables/variables.index")).unwrap();
    assert_eq!(doc.format().id, "tf-checkpoint");
    let names: Vec<&str> = doc.tensors().iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"f32/.ATTRIBUTES/VARIABLE_VALUE"),
        "{names:?}"
    );
    let f32s = doc
        .tensor_by_name("f32/.ATTRIBUTES/VARIABLE_VALUE")
        .unwrap();
    assert_eq!(f32s.shape(), Some(&[2u64, 3][..]));
    assert_eq!(
        f32s.values().unwrap(),
        pbdecode::Values::F32(vec![-1.5, -1.25, -1.0, -0.75, -0.5, -0.25])
    );
    let i8s = doc.tensor_by_name("i8/.ATTRIBUTES/VARIABLE_VALUE").unwrap();
    assert_eq!(
        i8s.values().unwrap(),
        pbdecode::Values::I8(vec![-128, 127, 0, 1, 2, 3])
    );
    assert!(
        doc.tensors()
            .iter()
            .all(|t| t.role == pbdecode::Role::Variable)
    );
    let stats = f32s.stats().unwrap();
    assert_eq!(stats.count, 6);
}

#[test]
fn a_data_shard_names_its_index() {
    let name = "ckpt.data-00000-of-00001";
    let hint = formats::other_files::looks_like(&read(&format!("train/{name}")), Some(name))
        .expect("a hint");
    assert!(hint.contains("decode ckpt.index"), "{hint}");
}

// ---------------------------------------------------------------------------
// A SavedModel's variables

#[test]
fn a_saved_model_shows_its_variables_values_where_its_graph_shows_them() {
    let rel = "saved_model_all_types/saved_model.pb";
    let bytes = read(rel);
    let decoded = formats::detect(&bytes, &FormatOptions::default()).unwrap();
    assert_eq!(decoded.format.id, "tf-saved-model");
    let opts = in_folder(rel);
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, &opts).unwrap();
    let t = String::from_utf8(out).unwrap();
    // Node 1 is the variable f32, and its values follow its line.
    let at = t
        .find("[1] variable f32: DT_FLOAT [2, 3]")
        .expect("the variable");
    let after = &t[at..];
    assert!(
        after.starts_with(
            "[1] variable f32: DT_FLOAT [2, 3] trainable\n        checkpoint: \"f32/.ATTRIBUTES/VARIABLE_VALUE\"  crc32c ok\n        values:\n          [0,0] -1.5  -1.25  -1.0\n"
        ),
        "{}",
        &after[..300]
    );
    let objects: String = t
        .lines()
        .skip_while(|l| !l.contains("object graph ("))
        .take_while(|l| !l.contains("[18] function"))
        .map(|l| format!("{l}\n"))
        .collect();
    snapshot("saved_model_object_graph_text", objects);
    let mut out = Vec::new();
    json::write_decoded(&mut out, &decoded, &opts).unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let vars = j["variables"].as_array().unwrap();
    assert_eq!(vars.len(), 17);
    snapshot(
        "saved_model_variables_member_json",
        serde_json::to_string_pretty(&j["variables"]).unwrap(),
    );
    // Without the folder: the graph alone, as before.
    let mut out = Vec::new();
    json::write_decoded(&mut out, &decoded, &RenderOptions::default()).unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(j.get("variables").is_none());
}

#[test]
fn the_facade_gives_a_saved_models_variables_as_tensors() {
    let doc = pbdecode::open(path("saved_model_all_types/saved_model.pb")).unwrap();
    let vars: Vec<&str> = doc
        .tensors()
        .iter()
        .filter(|t| t.role == pbdecode::Role::Variable)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(vars.len(), 17, "{vars:?}");
    let u16s = doc.tensor_by_name("u16").unwrap();
    assert_eq!(
        u16s.values().unwrap(),
        pbdecode::Values::U16(vec![0, 65535, 0, 1, 2, 3])
    );
    let c64 = doc.tensor_by_name("c64").unwrap();
    assert_eq!(
        c64.values().unwrap(),
        pbdecode::Values::C64(vec![[0.0, -0.5], [1.0, 0.5], [2.0, 1.5]])
    );
}

/// A copy in `dir` of the one-shard checkpoint `prefix` (one data block)
/// with `new` written over the start of an entry's `range` of its shard,
/// the entry's CRC32C and the data block's trailer made right, so that the
/// values, not the checksums, differ.
fn changed_copy(prefix: &str, range: std::ops::Range<usize>, new: &[u8], dir: &Path) {
    let name = |p: &str| Path::new(p).file_name().unwrap().to_owned();
    let shard_rel = format!("{prefix}.data-00000-of-00001");
    let index_rel = format!("{prefix}.index");
    let (mut index, old_shard) = (read(&index_rel), read(&shard_rel));
    let mut shard = old_shard.clone();
    shard[range.start..range.start + new.len()].copy_from_slice(new);
    let old = mask(crc32c(&old_shard[range.clone()])).to_le_bytes();
    let new_crc = mask(crc32c(&shard[range])).to_le_bytes();
    let k = index
        .windows(4)
        .position(|w| w == old)
        .expect("the entry's CRC");
    index[k..k + 4].copy_from_slice(&new_crc);
    // The data block's trailer CRC over the changed block: the metaindex
    // block's offset (a varint) is 5 bytes after the data block's end.
    let f = &index[index.len() - 48..];
    let mo = if f[0] < 0x80 {
        usize::from(f[0])
    } else {
        usize::from(f[0] & 0x7f) | usize::from(f[1]) << 7
    };
    let size = mo - 5;
    let crc = mask(crc32c_extend(crc32c(&index[..size]), &[0])).to_le_bytes();
    index[size + 1..size + 5].copy_from_slice(&crc);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name(&index_rel)), &index).unwrap();
    std::fs::write(dir.join(name(&shard_rel)), &shard).unwrap();
}

#[cfg(feature = "cli")]
#[test]
fn decode_diff_compares_the_variables_of_checkpoints_and_saved_models() {
    let decode = env!("CARGO_BIN_EXE_decode");
    let run = |x: &Path, y: &Path| {
        let out = std::process::Command::new(decode)
            .arg("diff")
            .arg(x)
            .arg(y)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // A SavedModel against its own variables: every variable the same.
    let (code, text) = run(
        &path("saved_model_all_types/variables/variables.index"),
        &path("saved_model_all_types/saved_model.pb"),
    );
    assert_eq!(code, Some(0), "{text}");
    // The string variable too.
    assert!(text.contains("variables: 17 the same, 0 differ"), "{text}");
    // One float changed: that variable alone differs.
    let dir = std::env::temp_dir().join(format!("pbdecode-tfc-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // The bias (offset 68) set to 0.5, 0.5, 0.5.
    let half: Vec<u8> = [0.5f32; 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    changed_copy("train/ckpt", 68..80, &half, &dir);
    let (code, text) = run(&path("train/ckpt.index"), &dir.join("ckpt.index"));
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("variables: 6 the same, 1 differ"), "{text}");
    assert!(text.contains("\"model/dense/bias\": "), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "cli")]
#[test]
fn decode_dir_on_a_saved_model_folder_reads_its_graph_and_variables() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_decode"))
        .arg(path("saved_model_all_types"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("format: tf-saved-model"), "{text}");
    assert!(
        text.contains("checkpoint: \"i32/.ATTRIBUTES/VARIABLE_VALUE\"  crc32c ok"),
        "{text}"
    );
}

#[test]
fn a_big_endian_bundle_is_read_in_this_machines_order() {
    let values: Vec<u8> = [1.5f32, -2.0]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let header = Msg::new()
        .varint(1, 1)
        .varint(2, 1) // BIG
        .message(3, &Msg::new().varint(1, 1))
        .bytes();
    let mut entries = entry(0, 0, header.len() as u64, &[]);
    entries.extend_from_slice(&header);
    let value = Msg::new()
        .varint(1, 1)
        .message(2, &Msg::new().message(2, &Msg::new().varint(1, 2)))
        .varint(5, 8)
        .fixed32(6, mask(crc32c(&values)))
        .bytes();
    entries.extend(entry(0, 1, value.len() as u64, b"w"));
    entries.extend_from_slice(&value);
    let dir = std::env::temp_dir().join(format!("pbdecode-tfc-be-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("be.index"), table(&block(&entries, &[0], 1))).unwrap();
    std::fs::write(dir.join("be.data-00000-of-00001"), &values).unwrap();
    let bytes = std::fs::read(dir.join("be.index")).unwrap();
    let d = formats::detect(&bytes, &FormatOptions::default()).unwrap();
    let opts = RenderOptions {
        dir: Some(pbdecode::Folder::Disk(dir.clone())),
        ..RenderOptions::default()
    };
    let mut out = Vec::new();
    text::write_decoded(&mut out, &d, &opts).unwrap();
    let t = String::from_utf8(out).unwrap();
    assert!(t.contains("header:    big endian"), "{t}");
    assert!(t.contains("crc32c:    ok"), "{t}");
    assert!(t.contains("[0] 1.5  -2.0"), "{t}");
    // The library swaps them as the views do (it once refused them).
    let doc = pbdecode::open(dir.join("be.index")).unwrap();
    let w = doc.tensor_by_name("w").unwrap();
    assert_eq!(w.values().unwrap(), pbdecode::Values::F32(vec![1.5, -2.0]));
    assert_eq!(
        w.raw_le(),
        Some(&[1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat()[..])
    );
    assert_eq!(w.stats().unwrap().count, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `decode -r --jsonl` over the bundles (their SavedModel too): one line
/// per file, each a JSON object naming its file (the tensors were once
/// written one per line, which broke the lines apart).
#[test]
fn jsonl_lines_of_bundles_are_one_json_object_each() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(["-r", "--jsonl"])
        .arg(path(""))
        .output()
        .expect("decode");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut bundles = 0;
    for line in text.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:.200}"));
        assert!(v["file"].is_string(), "{line:.200}");
        bundles += usize::from(v["format"] == "tf-checkpoint");
    }
    assert!(bundles >= 10, "{bundles} bundles in\n{text:.2000}");
}

// ---------------------------------------------------------------------------
// Every kind of variable through the library: strings, partitioned
// variables, a big-endian bundle's, a V1 checkpoint's.

/// `decode ARGS`: (status, stdout, stderr).
#[cfg(feature = "cli")]
fn decode(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The floats of a little-endian float32 .npy file.
#[cfg(feature = "cli")]
fn npy_f32(file: &Path) -> Vec<f32> {
    let bytes = std::fs::read(file).unwrap();
    let header_len = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    let header = String::from_utf8_lossy(&bytes[10..10 + header_len]);
    assert!(header.contains("'descr': '<f4'"), "{header}");
    bytes[10 + header_len..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[cfg(feature = "cli")]
#[test]
fn strings_slices_and_v1_tensors_come_through_tensor_stats_and_npy_dir() {
    let os = |s: &str| std::ffi::OsString::from(s);
    let at = |rel: &str| path(rel).into_os_string();
    // A partitioned variable, assembled: its last row and its statistics.
    let (code, t, e) = decode(&[
        &os("--stats"),
        &os("--values"),
        &os("all"),
        &os("--tensor"),
        &os("w"),
        &at("partitioned/model.ckpt.index"),
    ]);
    assert_eq!(code, Some(0), "{e}");
    assert!(t.contains("[9,0] 27.0  28.0  29.0"), "{t}");
    assert!(t.contains("count 30  min 0.0  max 29.0  mean 14.5"), "{t}");
    // A string variable of a checkpoint, and of its SavedModel by path.
    let (code, j, e) = decode(&[
        &os("--json"),
        &os("--tensor"),
        &os("s/.ATTRIBUTES/VARIABLE_VALUE"),
        &at("saved_model_all_types/variables/variables.index"),
    ]);
    assert_eq!(code, Some(0), "{e}");
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    let strings = serde_json::json!(["alpha", "", {"base64": "AP8gYnl0ZXM="}, "grüß"]);
    assert_eq!(v["value"]["values"], strings, "{j}");
    let (code, j, e) = decode(&[
        &os("--json"),
        &os("--tensor"),
        &os("s"),
        &at("saved_model_all_types/saved_model.pb"),
    ]);
    assert_eq!(code, Some(0), "{e}");
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    assert_eq!(v["value"]["values"], strings, "{j}");
    // A V1 checkpoint's tensor.
    let (code, t, e) = decode(&[
        &os("--stats"),
        &os("--tensor"),
        &os("a"),
        &at("v1/model.ckpt"),
    ]);
    assert_eq!(code, Some(0), "{e}");
    assert!(t.contains("[1,0] 3.0  4.0  5.0"), "{t}");
    assert!(t.contains("count 6  min 0.0  max 5.0  mean 2.5"), "{t}");
    // --npy-dir writes each of them.
    let out = std::env::temp_dir().join(format!("pbdecode-tfc-npy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    for (rel, files) in [
        ("partitioned/model.ckpt.index", &["b.npy", "w.npy"][..]),
        ("v1/model.ckpt", &["a.npy", "n.npy"]),
        (
            "saved_model_all_types/variables/variables.index",
            &["s_.ATTRIBUTES_VARIABLE_VALUE.npy"],
        ),
    ] {
        let dir = out.join(rel.replace('/', "_"));
        let (code, _, e) = decode(&[&os("--npy-dir"), dir.as_os_str(), &at(rel)]);
        assert_eq!(code, Some(0), "{rel}: {e}");
        for f in files {
            assert!(dir.join(f).is_file(), "{rel}: {f}: {e}");
        }
    }
    let w = npy_f32(&out.join("partitioned_model.ckpt.index/w.npy"));
    assert_eq!(w, (0..30).map(|x| x as f32).collect::<Vec<_>>());
    let a = npy_f32(&out.join("v1_model.ckpt/a.npy"));
    assert_eq!(a, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_library_reads_strings_slices_and_v1_tensors() {
    let doc = pbdecode::open(path("partitioned/model.ckpt.index")).unwrap();
    let names: Vec<&str> = doc.tensors().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["b", "w"]);
    let w = doc.tensor_by_name("w").unwrap();
    assert_eq!(w.shape(), Some(&[10u64, 3][..]));
    assert_eq!(
        w.values().unwrap(),
        pbdecode::Values::F32((0..30).map(|x| x as f32).collect())
    );
    // Assembled in the tensor's memory: not lent as the document's bytes.
    assert!(w.stored_array().is_none());
    assert_eq!(w.raw_le().map(<[u8]>::len), Some(120));
    let doc = pbdecode::open(path("saved_model_all_types/saved_model.pb")).unwrap();
    let s = doc.tensor_by_name("s").unwrap();
    let pbdecode::Values::Str(strings) = s.values().unwrap() else {
        panic!("not strings");
    };
    let strings: Vec<&[u8]> = strings.iter().map(|s| &s[..]).collect();
    assert_eq!(
        strings,
        [&b"alpha"[..], b"", b"\x00\xff bytes", "grüß".as_bytes()]
    );
    let doc = pbdecode::open(path("v1/model.ckpt")).unwrap();
    let names: Vec<&str> = doc.tensors().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "n"]);
    assert_eq!(
        doc.tensor_by_name("n").unwrap().values().unwrap(),
        pbdecode::Values::I64(vec![7, 8, 9])
    );
    assert_eq!(
        doc.tensor_by_name("a").unwrap().dims(),
        Some(&[2i64, 3][..])
    );
}

/// A bundle of one string vector `s`, its strings as TensorFlow writes
/// them (their lengths, the lengths' masked CRC32C, the bytes), in `dir`.
fn string_bundle(dir: &Path, strings: &[&[u8]]) {
    let mut range = Vec::new();
    let mut crc = 0u32;
    for s in strings {
        common::put_varint(&mut range, s.len() as u64);
        crc = crc32c_extend(crc, &(s.len() as u32).to_le_bytes());
    }
    let len_crc = mask(crc).to_le_bytes();
    range.extend_from_slice(&len_crc);
    crc = crc32c_extend(crc, &len_crc);
    for s in strings {
        range.extend_from_slice(s);
        crc = crc32c_extend(crc, s);
    }
    let value = Msg::new()
        .varint(1, 7) // DT_STRING
        .message(
            2,
            &Msg::new().message(2, &Msg::new().varint(1, strings.len() as u64)),
        )
        .varint(5, range.len() as u64)
        .fixed32(6, mask(crc))
        .bytes();
    let mut entries = header_entry();
    entries.extend(entry(0, 1, value.len() as u64, b"s"));
    entries.extend_from_slice(&value);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("ckpt.index"), table(&block(&entries, &[0], 1))).unwrap();
    std::fs::write(dir.join("ckpt.data-00000-of-00001"), &range).unwrap();
}

#[cfg(feature = "cli")]
#[test]
fn decode_diff_compares_partitioned_and_string_variables() {
    let root = std::env::temp_dir().join(format!("pbdecode-tfc-diff2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // Row 4 of the partitioned `w` (its second slice, at offset 56) changed.
    let changed = root.join("partitioned");
    changed_copy(
        "partitioned/model.ckpt",
        56..92,
        &100f32.to_le_bytes(),
        &changed,
    );
    let (code, t, e) = decode(&[
        &std::ffi::OsString::from("diff"),
        path("partitioned/model.ckpt.index").as_os_str(),
        changed.join("model.ckpt.index").as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{t}{e}");
    assert!(t.contains("variables: 1 the same, 1 differ"), "{t}");
    assert!(t.contains("  \"w\": "), "{t}");
    // Against itself: the same.
    let (code, t, _) = decode(&[
        &std::ffi::OsString::from("diff"),
        path("partitioned/model.ckpt.index").as_os_str(),
        path("partitioned/model.ckpt.index").as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("variables: 2 the same, 0 differ"), "{t}");
    // Two string variables, one string apart.
    string_bundle(&root.join("x"), &[b"alpha", b"beta"]);
    string_bundle(&root.join("y"), &[b"alpha", b"gamma"]);
    let (code, t, e) = decode(&[
        &std::ffi::OsString::from("diff"),
        root.join("x/ckpt.index").as_os_str(),
        root.join("y/ckpt.index").as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{t}{e}");
    assert!(t.contains("variables: 0 the same, 1 differ"), "{t}");
    string_bundle(&root.join("z"), &[b"alpha", b"beta"]);
    let (code, t, _) = decode(&[
        &std::ffi::OsString::from("diff"),
        root.join("x/ckpt.index").as_os_str(),
        root.join("z/ckpt.index").as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("variables: 1 the same, 0 differ"), "{t}");
    let _ = std::fs::remove_dir_all(&root);
}

// ---------------------------------------------------------------------------
// Shards found by listing the side files' folder, on disk or in memory
// (the static page's dropped files).

/// The files under `rel` (a fixture folder), held in memory by their paths
/// inside it, as the page holds a dropped folder.
fn in_memory(
    rel: &str,
) -> std::sync::Arc<std::collections::BTreeMap<String, std::sync::Arc<pbdecode::input::InputBytes>>>
{
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let name = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .replace('\\', "/");
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    let root = path(rel);
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    std::sync::Arc::new(
        files
            .into_iter()
            .map(|(n, b)| {
                (
                    n,
                    std::sync::Arc::new(pbdecode::input::InputBytes::Owned(b)),
                )
            })
            .collect(),
    )
}

/// A checkpoint and a SavedModel read with their files in memory show the
/// same text and JSON as with their folder on disk: the shards are found by
/// listing the folder, whichever kind it is (they were once found only on
/// disk, and the page's dropped files showed no values).
#[test]
fn bundles_read_the_same_from_files_in_memory_as_from_disk() {
    for (folder, file) in [
        ("train", "ckpt.index"),
        ("sharded", "ckpt.index"),
        ("partitioned", "model.ckpt.index"),
        ("saved_model_all_types", "saved_model.pb"),
        ("saved_model_all_types", "variables/variables.index"),
    ] {
        let rel = format!("{folder}/{file}");
        let bytes = read(&rel);
        let decoded = formats::detect(&bytes, &FormatOptions::default()).unwrap();
        let at = Path::new(file).parent().unwrap().to_str().unwrap();
        let memory = RenderOptions {
            dir: Some(pbdecode::Folder::Memory(pbdecode::MemoryFolder::new(
                in_memory(folder),
                at,
            ))),
            ..RenderOptions::default()
        };
        let disk = in_folder(&rel);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        text::write_decoded(&mut a, &decoded, &memory).unwrap();
        text::write_decoded(&mut b, &decoded, &disk).unwrap();
        let t = String::from_utf8(a).unwrap();
        assert_eq!(t, String::from_utf8(b).unwrap(), "{rel}");
        assert!(!t.contains("not available"), "{rel}: {t}");
        assert!(t.contains("crc32c"), "{rel}");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        json::write_decoded(&mut a, &decoded, &memory).unwrap();
        json::write_decoded(&mut b, &decoded, &disk).unwrap();
        assert_eq!(a, b, "{rel}");
    }
}

/// The explorer's values of a variable (the library's tensor) from files
/// in memory: a checkpoint's partitioned variable and a SavedModel's
/// string variable.
#[test]
fn the_explorers_values_of_variables_in_memory() {
    use pbdecode::explore::{self, ExploredFile, Query};
    let answer = |folder: &str, file: &str, tensor: &str| {
        let files = in_memory(folder);
        let bytes = files[file].clone();
        let f = ExploredFile::new(
            "0/x".into(),
            file.into(),
            bytes,
            Some(pbdecode::Folder::Memory(pbdecode::MemoryFolder::new(
                files, "",
            ))),
        );
        let q = [("name".to_string(), tensor.to_string())];
        let r = explore::file_answer("/api/values", &Query(&q), &f).unwrap();
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        serde_json::from_slice::<serde_json::Value>(&r.body).unwrap()
    };
    let w = answer("partitioned", "model.ckpt.index", "w");
    assert_eq!(w["total"], 30, "{w}");
    assert_eq!(w["text"][0][29], "29.0", "{w}");
    let s = answer("saved_model_all_types", "saved_model.pb", "s");
    assert_eq!(s["text"][0][0], "\"alpha\"", "{s}");
}

/// The explorer's model page lists a SavedModel's variables among its
/// tensors (after the graph's own), each with the index the tensor
/// endpoints take.
#[test]
fn the_explorers_model_page_lists_a_saved_models_variables() {
    use pbdecode::explore::{self, ExploredFile, Query};
    let files = in_memory("saved_model_all_types");
    let f = ExploredFile::new(
        "0/x".into(),
        "saved_model.pb".into(),
        files["saved_model.pb"].clone(),
        Some(pbdecode::Folder::Memory(pbdecode::MemoryFolder::new(
            files.clone(),
            "",
        ))),
    );
    let r = explore::file_answer("/api/open", &Query(&[]), &f).unwrap();
    assert_eq!(r.status, 200);
    let open: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    let tensors = open["tensors"].as_array().unwrap();
    let s = tensors
        .iter()
        .find(|t| t["name"] == "s")
        .unwrap_or_else(|| panic!("no variable s among {tensors:?}"));
    assert_eq!(s["dtype"], "DT_STRING", "{s}");
    let q = [("t".to_string(), s["index"].to_string())];
    let r = explore::file_answer("/api/values", &Query(&q), &f).unwrap();
    let values: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(values["text"][0][0], "\"alpha\"", "{values}");
}

/// The explorer lists a checkpoint's variables from its index alone (the
/// shards are read when a tensor is shown): with its data shard missing
/// the list is whole, and a tensor's values then say why they are not
/// there.
#[test]
fn the_explorer_lists_a_checkpoints_variables_from_its_index() {
    use pbdecode::explore::{self, ExploredFile, Query};
    type Files = std::sync::Arc<
        std::collections::BTreeMap<String, std::sync::Arc<pbdecode::input::InputBytes>>,
    >;
    let answer = |files: &Files, path: &str, q: &[(String, String)]| {
        let f = ExploredFile::new(
            "0/x".into(),
            "ckpt.index".into(),
            files["ckpt.index"].clone(),
            Some(pbdecode::Folder::Memory(pbdecode::MemoryFolder::new(
                files.clone(),
                "",
            ))),
        );
        let r = explore::file_answer(path, &Query(q), &f).unwrap();
        (r.status, String::from_utf8(r.body).unwrap())
    };
    let whole: Files = in_memory("train");
    let mut without = (*whole).clone();
    without.retain(|name, _| !name.contains(".data-"));
    let without: Files = std::sync::Arc::new(without);
    let listed = |files: &Files| {
        let (status, body) = answer(files, "/api/open", &[]);
        assert_eq!(status, 200);
        let open: serde_json::Value = serde_json::from_str(&body).unwrap();
        open["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                format!(
                    "{} {} {} {}",
                    t["name"], t["dtype"], t["dims"], t["storage"]
                )
            })
            .collect::<Vec<_>>()
    };
    let names = listed(&whole);
    assert_eq!(names.len(), 8);
    let kernel = names
        .iter()
        .position(|n| n.starts_with("\"model/dense/kernel/"))
        .unwrap();
    assert_eq!(
        names[kernel],
        "\"model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE\" \"DT_FLOAT\" [4,3] \"external\""
    );
    assert_eq!(listed(&without), names);
    let q = [("t".to_string(), kernel.to_string())];
    let (status, body) = answer(&whole, "/api/values", &q);
    assert_eq!(status, 200);
    let values: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(values["text"][0][0], "-0.19876985", "{values}");
    let (status, body) = answer(&without, "/api/values", &q);
    assert_eq!(status, 422);
    assert!(
        body.contains("ckpt.data-00000-of-00001 is not among the files given with this one"),
        "{body}"
    );
}

#[test]
fn a_v1_checkpoints_tensors_saved_in_slices_are_assembled() {
    // TensorFlow's own get_tensor refuses these ("Sliced checkpoints are
    // not supported"); scripts/tf_checkpoint_crosscheck.py compares them
    // with its Restore op.
    let rel = "v1_partitioned/model.ckpt";
    let t = text_of(rel, &in_folder(rel));
    assert!(
        t.contains("tensor \"q\" (assembled from its slices)"),
        "{t}"
    );
    assert!(
        t.contains("slices:    [0:2, 0:2] [0:2, 2:4] [0:2, 4:6]"),
        "{t}"
    );
    snapshot_both("v1_partitioned", rel);
    let doc = pbdecode::open(path(rel)).unwrap();
    let names: Vec<&str> = doc.tensors().iter().map(|t| t.name.as_str()).collect();
    assert!(names.starts_with(&["p", "q", "s"]), "{names:?}");
    let p = doc.tensor_by_name("p").unwrap();
    assert_eq!(p.dims(), Some(&[5i64, 2][..]));
    assert_eq!(
        p.values().unwrap(),
        pbdecode::Values::F32((0..10).map(|x| x as f32).collect())
    );
    assert_eq!(
        doc.tensor_by_name("q").unwrap().values().unwrap(),
        pbdecode::Values::I64(vec![0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15])
    );
    let pbdecode::Values::Str(s) = doc.tensor_by_name("s").unwrap().values().unwrap() else {
        panic!("not strings");
    };
    let s: Vec<&[u8]> = s.iter().map(|s| &s[..]).collect();
    assert_eq!(s, [&b"alpha"[..], b"", b"gamma", b"\xff\x00"]);
    // Typed fields packed at each type's own width: float16 by its bits,
    // int8 from sign-extended varints, bools, complex pairs.
    let values = |name: &str| doc.tensor_by_name(name).unwrap().values().unwrap();
    let halves: Vec<f32> = (0..6).map(|k| k as f32 * 0.25 - 1.5).collect();
    assert_eq!(
        values("t_float16"),
        pbdecode::Values::F16(halves.iter().map(|&x| half::f16::from_f32(x)).collect())
    );
    assert_eq!(
        values("t_int8"),
        pbdecode::Values::I8(vec![-128, 127, 0, 1, 2, 3])
    );
    assert_eq!(
        values("t_bool"),
        pbdecode::Values::Bool(vec![true, false, false, true, false, false])
    );
    assert_eq!(
        values("t_complex64"),
        pbdecode::Values::C64((0..6).map(|k| [k as f32, k as f32 - 0.5]).collect())
    );
}

/// A slice for [`v1_table`]: (start, length) per axis, and its values.
type V1TestSlice<'a> = (&'a [(i64, i64)], &'a [f32]);

/// A V1 checkpoint of one float tensor `p` of `shape`, saved as `slices`
/// (each its extents, (start, length) per axis, and values), as
/// TensorFlow lays it out: the header's meta under key "", then an entry
/// a slice.
fn v1_table(shape: &[u64], slices: &[V1TestSlice<'_>]) -> Vec<u8> {
    let extents = |ext: &[(i64, i64)]| {
        ext.iter().fold(Msg::new(), |m, &(start, len)| {
            m.message(1, &Msg::new().int(1, start).int(2, len))
        })
    };
    let dims = shape
        .iter()
        .fold(Msg::new(), |m, &d| m.message(2, &Msg::new().varint(1, d)));
    let mut listed = Msg::new().string(1, "p").message(2, &dims).varint(3, 1);
    for (ext, _) in slices {
        listed = listed.message(4, &extents(ext));
    }
    let header = Msg::new()
        .message(1, &Msg::new().message(1, &listed))
        .bytes();
    let mut entries = entry(0, 0, header.len() as u64, &[]);
    entries.extend_from_slice(&header);
    for (k, (ext, values)) in slices.iter().enumerate() {
        let data = values
            .iter()
            .fold(Msg::new().varint(1, 1), |m, &v| m.float(5, v));
        let value = Msg::new()
            .message(
                2,
                &Msg::new()
                    .string(1, "p")
                    .message(2, &extents(ext))
                    .message(3, &data),
            )
            .bytes();
        let key = format!("p{k}");
        let mut e = entry(0, key.len() as u64, value.len() as u64, key.as_bytes());
        e.extend_from_slice(&value);
        entries.extend(e);
    }
    let restarts = [0u32];
    table(&block(&entries, &restarts, 1))
}

#[test]
fn v1_slices_that_do_not_make_their_tensor_say_why() {
    let reason = |bytes: Vec<u8>| -> String {
        let doc = pbdecode::read(bytes).unwrap();
        assert_eq!(doc.format().id, "tf-checkpoint");
        let p = doc.tensor_by_name("p").unwrap();
        match p.values() {
            Err(pbdecode::Error::Unavailable { reason, .. }) => reason,
            other => panic!("{other:?}"),
        }
    };
    let whole = pbdecode::read(v1_table(
        &[4],
        &[(&[(0, 2)], &[1.0, 2.0]), (&[(2, 2)], &[3.0, 4.0])],
    ))
    .unwrap();
    assert_eq!(
        whole.tensor_by_name("p").unwrap().values().unwrap(),
        pbdecode::Values::F32(vec![1.0, 2.0, 3.0, 4.0])
    );
    let r = reason(v1_table(&[4], &[(&[(0, 2)], &[1.0, 2.0])]));
    assert_eq!(
        r,
        "the slices do not cover the tensor: 2 of 4 values stored"
    );
    let r = reason(v1_table(
        &[4],
        &[(&[(0, 2)], &[1.0, 2.0]), (&[(1, 2)], &[5.0, 6.0])],
    ));
    // Slices sharing elements are refused as TensorFlow's restore refuses
    // them, by the two that overlap (a sweep, not a buffer of the tensor).
    assert_eq!(r, "slices [0:2] and [1:3] overlap");
    let r = reason(v1_table(
        &[2, 4],
        &[
            (&[(0, 2), (0, 2)], &[1.0; 4]),
            (&[(0, 1), (2, 2)], &[1.0; 2]),
            (&[(1, 1), (1, 3)], &[1.0; 3]),
        ],
    ));
    assert_eq!(r, "slices [0:2, 0:2] and [1:2, 1:4] overlap");
    let r = reason(v1_table(&[4], &[(&[(2, 4)], &[1.0, 2.0, 3.0, 4.0])]));
    assert_eq!(r, "slice [2:6] is outside the shape");
    let r = reason(v1_table(
        &[4],
        &[(&[(0, 2)], &[1.0]), (&[(2, 2)], &[3.0, 4.0])],
    ));
    assert_eq!(
        r,
        "slice [0:2]: 1 of the 2 values its extents need are stored"
    );
    // Nor is a tensor saved whole read short.
    let r = reason(v1_table(&[4], &[(&[(0, 4)], &[1.0, 2.0])]));
    assert_eq!(r, "2 of the 4 values its extents need are stored");
    let r = reason(v1_table(&[2, 2], &[(&[(0, 2)], &[1.0, 2.0])]));
    assert_eq!(r, "a slice of rank 1 for a tensor of rank 2");
    // A shape of 2^40 floats from a few bytes: refused before any buffer
    // of that size (4 TiB: allocating it would abort the test).
    let r = reason(v1_table(
        &[1 << 40],
        &[(&[(0, 2)], &[1.0, 2.0]), (&[(2, 2)], &[3.0, 4.0])],
    ));
    assert_eq!(
        r,
        "the slices do not cover the tensor: 4 of 1099511627776 values stored"
    );
}

#[test]
fn a_tf1_saved_models_variables_are_linked_by_node_name_and_saver() {
    // No object graph: the variable nodes (VariableV2, VarHandleOp) name
    // their keys, or the saver's RestoreV2 does (`global_step` saved as
    // `counters/step`), as TensorFlow 1's restore reads them.
    for (dir, step_key) in [
        ("saved_model_tf1", "global_step"),
        ("saved_model_tf1_resource", "counters/step"),
    ] {
        let rel = format!("{dir}/saved_model.pb");
        let bytes = read(&rel);
        let decoded = formats::detect(&bytes, &FormatOptions::default()).unwrap();
        assert_eq!(decoded.format.id, "tf-saved-model");
        let (mut text_out, mut json_out) = (Vec::new(), Vec::new());
        text::write_decoded(&mut text_out, &decoded, &in_folder(&rel)).unwrap();
        json::write_decoded(&mut json_out, &decoded, &in_folder(&rel)).unwrap();
        let text_out = String::from_utf8(text_out).unwrap();
        let json_out = String::from_utf8(json_out).unwrap();
        let json: serde_json::Value = serde_json::from_str(&json_out).unwrap();
        let vars = json["variables"]
            .as_array()
            .unwrap_or_else(|| panic!("{dir}: no variables"));
        let got: Vec<(&str, &str)> = vars
            .iter()
            .map(|v| (v["name"].as_str().unwrap(), v["key"].as_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("dense/kernel", "dense/kernel"),
                ("dense/bias", "dense/bias"),
                ("global_step", step_key)
            ],
            "{dir}"
        );
        assert_eq!(vars[1]["values"], serde_json::json!([0.5, -1.5]), "{dir}");
        assert_eq!(vars[2]["values"], serde_json::json!([7]), "{dir}");
        let doc = pbdecode::open(path(&rel)).unwrap();
        let variables: Vec<&str> = doc
            .tensors()
            .iter()
            .filter(|t| t.role == pbdecode::Role::Variable)
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(
            variables,
            ["dense/kernel", "dense/bias", "global_step"],
            "{dir}"
        );
        let kernel = doc.tensor_by_name("dense/kernel").unwrap();
        assert_eq!(kernel.dims(), Some(&[3i64, 2][..]));
        assert_eq!(
            kernel.values().unwrap(),
            pbdecode::Values::F32(vec![0.0, 0.25, 0.5, 0.75, 1.0, 1.25])
        );
        snapshot(&format!("{dir}_text"), text_out);
        snapshot(&format!("{dir}_json"), common::json::pretty(&json_out));
    }
}
