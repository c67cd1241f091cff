//! What `cargo package` would ship: the sources, the schemas, the page
//! and the documents; never the fixtures, snapshots, scripts, fuzz targets
//! or the Python binding, and no file or total past a size limit (so a
//! fixture or generated table that grows, or a folder added to `include`,
//! is seen here before a release).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;
use std::process::Command;

/// The largest file shipped: the generated field constants
/// (`src/fields.rs`, ~120 KB) are the largest today.
const MAX_FILE_BYTES: u64 = 160 * 1024;
/// The largest package, uncompressed (~2.3 MB today).
const MAX_TOTAL_BYTES: u64 = 4 * 1024 * 1024;
/// What a package never holds.
const NEVER: &[&str] = &[
    "tests/",
    "snapshots/",
    "fuzz/",
    "python/",
    "scripts/",
    "wasm/",
    "docs/",
    "target/",
    ".ci/",
    "examples/files/",
];

/// The files a package would hold, as `cargo package --list` names them.
fn package_list() -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO"))
        .args(["package", "--list", "--offline", "--allow-dirty"])
        .current_dir(root)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo package --list: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// The files of `list` under a path a package never holds.
fn forbidden(list: &[String]) -> Vec<&str> {
    list.iter()
        .map(String::as_str)
        .filter(|f| NEVER.iter().any(|n| f.starts_with(n)))
        .collect()
}

#[test]
fn the_package_ships_the_sources_and_no_bulk() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let list = package_list();
    for needed in [
        "Cargo.toml",
        "README.md",
        "GUIDE.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "src/lib.rs",
        "src/main.rs",
        "schemas/onnx.proto",
        "web/index.html",
    ] {
        assert!(list.iter().any(|f| f == needed), "{needed} in {list:?}");
    }
    let bad = forbidden(&list);
    assert!(bad.is_empty(), "the package would ship {bad:?}");
    let mut total = 0;
    let mut large = Vec::new();
    // Files cargo writes itself (.cargo_vcs_info.json, Cargo.toml.orig)
    // are not in the work tree.
    for f in list.iter().filter(|f| root.join(f).is_file()) {
        let len = std::fs::metadata(root.join(f)).unwrap().len();
        total += len;
        if len > MAX_FILE_BYTES {
            large.push(format!("{f} ({len} bytes)"));
        }
    }
    assert!(
        large.is_empty(),
        "files over {MAX_FILE_BYTES} bytes in the package: {large:?}"
    );
    assert!(
        total <= MAX_TOTAL_BYTES,
        "the package holds {total} bytes, over {MAX_TOTAL_BYTES}"
    );
}

#[test]
fn a_fixture_or_a_test_in_the_list_is_found() {
    let list: Vec<String> = [
        "src/lib.rs",
        "tests/fixtures/onnx-model/external.onnx",
        "snapshots/a.snap",
        "python/README.md",
        "schemas/onnx.proto",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        forbidden(&list),
        [
            "tests/fixtures/onnx-model/external.onnx",
            "snapshots/a.snap",
            "python/README.md"
        ]
    );
}
