//! Inputs the fuzz targets (`fuzz/`) found crashing, hanging or blowing up,
//! minimised, replayed through exactly the calls of their target (the
//! targets' code is `fuzz/src/paths.rs`, included here). Each file lives in
//! `tests/fixtures/fuzz-regressions/TARGET/`; every one must finish without
//! a panic and with bounded output.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

#[path = "../../fuzz/src/paths.rs"]
mod paths;

use paths::{OUTPUT_CAP, Outcome};
use std::path::{Path, PathBuf};

type Target = fn(&[u8]) -> Outcome;

/// The output any input may produce whatever its size: 1 MiB of rendering,
/// or a full answer of the explorer's (a page of values).
const OUTPUT_BASE: u64 = 1 << 20;

const TARGETS: &[(&str, Target, u64)] = &[
    ("decode", paths::decode_all, OUTPUT_BASE),
    ("schemaless", paths::schemaless_all, OUTPUT_BASE),
    ("proto_schema", paths::proto_schema, OUTPUT_BASE),
    ("descriptor_set", paths::descriptor_set, OUTPUT_BASE),
    ("tensor_outputs", paths::tensor_outputs, OUTPUT_BASE),
    ("api", paths::api, paths::API_OUTPUT_BASE),
    ("tf_bundle", paths::tf_bundle, OUTPUT_BASE),
    ("tf_record", paths::tf_record, OUTPUT_BASE),
    ("text_format", paths::text_format, OUTPUT_BASE),
    ("facade", paths::facade, OUTPUT_BASE),
];

/// Inputs whose fix belongs to code being reworked elsewhere: replayed only
/// by their own `#[ignore]`d test below, until fixed.
const OPEN: &[&str] = &[];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz-regressions")
}

fn files(target: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir().join(target))
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Runs one input through its target: no panic, output under the cap and
/// at most `base` plus a modest multiple of the input.
fn replay(target: Target, base: u64, path: &Path) -> Outcome {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let out = target(&bytes);
    let bound = base.saturating_add((bytes.len() as u64).saturating_mul(4096));
    assert!(
        !out.hit_cap && out.largest_output <= bound.min(OUTPUT_CAP),
        "{}: {} bytes of output from {} bytes of input",
        path.display(),
        out.largest_output,
        bytes.len()
    );
    out
}

#[test]
fn every_regression_input_replays_cleanly() {
    let mut ran = 0;
    for (name, target, base) in TARGETS {
        for path in files(name) {
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if OPEN.iter().any(|o| *o == format!("{name}/{file}")) {
                continue;
            }
            replay(*target, *base, &path);
            ran += 1;
        }
    }
    assert!(ran > 0, "no inputs under {}", dir().display());
}

/// The page's calls (`web/`) on the file served in a folder (key
/// `0/file.pb`), served by itself (`1`) and uploaded (`u1`), as the `api`
/// target's corpus starts (`scripts/fuzz_corpus.sh`).
const PAGE_REQUESTS: &[&str] = &[
    "GET /api/files",
    "GET /api/open?f=0/file.pb",
    "GET /api/tensor?f=1&t=0",
    "GET /api/values?f=u1&t=0&offset=1&count=8&rows=2&stride=4",
    "GET /api/stats?f=0/file.pb&t=0",
    "GET /api/picture?f=1&t=0",
    "GET /api/text?f=u1&values=3",
    "GET /api/hex?f=1&offset=2&count=64",
    "GET /api/series?f=1",
    "POST /api/close?f=u1",
    "GET /api/open?f=u1",
];

/// An `api` target input: the file served and uploaded, then `PAGE_REQUESTS`.
fn api_input(file: &[u8]) -> Vec<u8> {
    let requests = PAGE_REQUESTS.join("\n\n");
    let mut input = vec![3];
    input.extend(u16::try_from(requests.len()).unwrap().to_le_bytes());
    input.extend(requests.as_bytes());
    input.extend(file);
    input
}

/// The fixtures go through the targets' calls too (as the fuzz corpus
/// starts from them): none panics, each file not named `bad_*` or `notpb_*`
/// is read by some format, and the schemas of `tests/fixtures/user-schema`
/// load and decode their messages.
#[test]
fn fixtures_replay_through_every_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut stack = vec![root.clone()];
    let mut ran = 0;
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for path in rd.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                if !path.ends_with("fuzz-regressions") {
                    stack.push(path);
                }
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(ext, "pb" | "onnx") {
                continue;
            }
            let d = replay(paths::decode_all, OUTPUT_BASE, &path);
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.starts_with("bad_") && !name.starts_with("notpb_") {
                assert!(d.decoded > 0 && d.rendered > 0, "{}", path.display());
            }
            replay(paths::schemaless_all, OUTPUT_BASE, &path);
            replay(paths::tensor_outputs, OUTPUT_BASE, &path);
            let api = paths::api(&api_input(&std::fs::read(&path).unwrap()));
            assert!(
                api.rendered == 1 + PAGE_REQUESTS.len() as u32 && api.decoded >= 3,
                "{}: {api:?}",
                path.display()
            );
            ran += 1;
        }
    }
    assert!(ran > 150, "only {ran} fixtures");
    let us = root.join("user-schema");
    let read = |name: &str| std::fs::read(us.join(name)).unwrap_or_default();
    let mut input = read("legacy.proto");
    input.push(0);
    input.extend(read("record.pb"));
    let out = paths::proto_schema(&input);
    assert!(out.decoded >= 2 && out.rendered > 0, "{out:?}");
    for (set, msg) in [("shapes.desc", "shape.pb"), ("legacy.desc", "record.pb")] {
        let set = read(set);
        let len = u16::try_from(set.len()).unwrap_or(u16::MAX);
        let mut input = len.to_le_bytes().to_vec();
        input.extend(set);
        input.extend(read(msg));
        let out = paths::descriptor_set(&input);
        assert!(out.decoded >= 2 && out.rendered > 0, "{out:?}");
    }
}

/// The TensorFlow fixtures go through their targets as their corpus starts
/// (`scripts/fuzz_corpus.sh`): every bundle index under 64 KiB with its first shard,
/// sealed and as it is, and every record file as it is and unframed into
/// the target's records (plain, GZIP, ZLIB); each is read, and a sealed
/// copy of a bundle whose data block was damaged passes its block check.
#[test]
fn tf_fixtures_replay_through_their_targets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut indexes = Vec::new();
    let mut stack = vec![root.join("tf-checkpoint")];
    while let Some(d) = stack.pop() {
        for path in std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "index")
                // What a fuzz input holds (`-max_len=65536`).
                && std::fs::metadata(&path).unwrap().len() < 1 << 16
            {
                indexes.push(path);
            }
        }
    }
    assert!(indexes.len() > 10, "{indexes:?}");
    for index in &indexes {
        let bytes = std::fs::read(index).unwrap();
        let shard = index.with_extension("data-00000-of-00001");
        let shard = std::fs::read(&shard).unwrap_or_default();
        for flags in [0u8, 3] {
            let mut input = vec![flags];
            input.extend(u32::try_from(bytes.len()).unwrap().to_le_bytes());
            input.extend(&bytes);
            input.extend(&shard);
            let out = replay(paths::tf_bundle, OUTPUT_BASE, &write_input(&input));
            let damaged = index.to_string_lossy().contains("damaged");
            assert!(damaged || out.decoded > 0, "{}: {out:?}", index.display());
        }
    }
    // Sealing keeps a sound table as it is, and gives a block whose byte
    // was flipped the CRC its bytes call for.
    let good = std::fs::read(root.join("tf-checkpoint/train/ckpt.index")).unwrap();
    let mut sealed = good.clone();
    paths::reseal_table(&mut sealed);
    assert_eq!(sealed, good);
    let bad = std::fs::read(root.join("tf-checkpoint/damaged/bad_block_crc/ckpt.index")).unwrap();
    let mut sealed = bad.clone();
    paths::reseal_table(&mut sealed);
    assert_ne!(sealed, bad);
    let fopts = pbdecode::formats::FormatOptions::default();
    let read = |b: &[u8]| pbdecode::formats::tf_checkpoint::read_bundle(b, &fopts).map(|_| ());
    assert_eq!(read(&bad).map_err(|e| e.check()), Err("table-checksum"));
    let sealed_check = read(&sealed).map_err(|e| e.to_string());
    assert!(
        !matches!(&sealed_check, Err(e) if e.contains("table-checksum")),
        "{sealed_check:?}"
    );
    let records = root.join("tf-record");
    for path in std::fs::read_dir(&records)
        .unwrap()
        .map(|e| e.unwrap().path())
    {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let mut input = vec![4];
        input.extend(&bytes);
        let out = replay(paths::tf_record, OUTPUT_BASE, &write_input(&input));
        assert!(out.decoded > 0, "{name}: {out:?}");
    }
    // Records given by length: framed by the target, read back whole.
    let mut chunks = Vec::new();
    for data in [&b"one"[..], b"\x0a\x02\x08\x01", b""] {
        chunks.extend(u16::try_from(data.len()).unwrap().to_le_bytes());
        chunks.extend(data);
    }
    for mode in [0u8, 1, 2] {
        let mut input = vec![mode];
        input.extend(&chunks);
        let out = replay(paths::tf_record, OUTPUT_BASE, &write_input(&input));
        assert!(out.decoded > 0 && out.rendered > 0, "mode {mode}: {out:?}");
    }
}

/// An input written to a file of its own (replay reads a path).
fn write_input(input: &[u8]) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("pbdecode-fuzz-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("input-{n}"));
    std::fs::write(&path, input).unwrap();
    path
}

/// Replays a whole folder (a fuzz corpus, say) through one target on the
/// stable toolchain, and names the input with the most output per input
/// byte:
///
///     PBDECODE_FUZZ_REPLAY=decode:fuzz/corpus/decode \
///         cargo test --release --test it fuzz_regressions:: -- --ignored --nocapture
#[test]
#[ignore = "needs PBDECODE_FUZZ_REPLAY=TARGET:DIR"]
fn replay_folder() {
    let Ok(spec) = std::env::var("PBDECODE_FUZZ_REPLAY") else {
        return;
    };
    let (name, folder) = spec
        .split_once(':')
        .unwrap_or_else(|| panic!("PBDECODE_FUZZ_REPLAY={spec}: want TARGET:DIR"));
    let (target, base) = TARGETS
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, t, b)| (*t, *b))
        .unwrap_or_else(|| panic!("no target {name}"));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{folder}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    let mut worst: Option<(f64, PathBuf, u64)> = None;
    let (mut decoded, mut skipped) = (0u32, 0u32);
    for path in &paths {
        let out = replay(target, base, path);
        decoded += u32::from(out.decoded > 0);
        skipped += u32::from(out.skipped);
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0).max(1);
        let ratio = out.largest_output as f64 / len as f64;
        if worst.as_ref().is_none_or(|(r, _, _)| ratio > *r) {
            worst = Some((ratio, path.clone(), out.largest_output));
        }
    }
    assert!(!paths.is_empty(), "{folder} holds no files");
    if let Some((ratio, path, bytes)) = worst {
        println!(
            "{} inputs ({decoded} decoded, {skipped} passed over as a known slow class); \
             most output: {} ({bytes} bytes, {ratio:.0} per input byte)",
            paths.len(),
            path.display()
        );
    }
}
