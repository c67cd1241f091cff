//! `--as` is parsed by clap from the registry: `--help` lists `auto` and
//! every format id in detection order with its title, and an unknown id is
//! a usage error (exit 2) that lists the valid ones.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use pbdecode::formats::REGISTRY;
use std::process::Command;

fn decode(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .output()
        .expect("run decode")
}

#[test]
fn help_lists_the_format_ids_in_detection_order_with_their_titles() {
    let out = decode(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let section = &help[help.find("--as <FORMAT>").expect("--as in --help")..];
    let section = &section[..section.find("[default: auto]").expect("its default")];
    let mut at = section.find("- auto:").expect("auto listed");
    for f in REGISTRY {
        let line = format!("- {}:", f.id);
        let found = section[at..]
            .find(&line)
            .unwrap_or_else(|| panic!("{} listed after the ones before it:\n{section}", f.id));
        at += found;
        let rest = &section[at..];
        let end = rest.find('\n').unwrap_or(rest.len());
        assert!(
            rest[..end].ends_with(f.title),
            "{}'s title: {}",
            f.id,
            &rest[..end]
        );
    }
}

#[test]
fn an_unknown_format_is_a_usage_error_listing_the_ids() {
    let out = decode(&["--as", "nope", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("invalid value 'nope' for '--as <FORMAT>'"),
        "{err}"
    );
    let mut expected = vec!["auto"];
    expected.extend(REGISTRY.iter().map(|f| f.id));
    assert!(
        err.contains(&format!("[possible values: {}]", expected.join(", "))),
        "{err}"
    );
}

#[test]
fn a_format_id_is_taken() {
    // An empty input named as each format: parsed, then turned down by
    // the format (exit 1), not by the argument parser (exit 2).
    let dir = std::env::temp_dir().join(format!("pbdecode-cli-as-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("empty.pb");
    std::fs::write(&file, b"").unwrap();
    for f in REGISTRY {
        let out = decode(&["--as", f.id, file.to_str().unwrap()]);
        // An empty file is a record file of no records.
        let expected = if f.id == "tf-record" { 0 } else { 1 };
        assert_eq!(
            out.status.code(),
            Some(expected),
            "--as {}: {:?}",
            f.id,
            out
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
