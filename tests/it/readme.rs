//! The README is a front page a newcomer follows as written: at most 300
//! lines; its install commands name what exists (the crate's manifest
//! with the `decode` binary, as `cargo metadata` reads it, and the Python
//! package's build metadata; `python/run_tests.sh` runs
//! `pip install ./python` itself); and its recipes run, word for word, in
//! a folder holding the example files they name (`examples/files/`, made
//! by `scripts/make_examples.py`), `decode` being the binary built here.
//! Every relative link of it is checked by `doc_links`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const MAX_LINES: usize = 300;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The indented command lines of the README's section `title`, each
/// without its `# comment`.
fn section_commands(text: &str, title: &str) -> Vec<String> {
    let heading = format!("## {title}");
    let mut lines = text.lines().skip_while(|l| *l != heading);
    assert!(
        lines.next().is_some(),
        "the README has a section {heading:?}"
    );
    lines
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("    "))
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_readme_is_a_front_page_of_at_most_300_lines() {
    let text = readme();
    let lines = text.lines().count();
    assert!(
        lines <= MAX_LINES,
        "README.md has {lines} lines: the manual goes in GUIDE.md"
    );
    // The front page names what it shows and points to the manual.
    for needed in [
        "decode serve",
        "Graph tab",
        "pip install ./python",
        "cargo install --path .",
        "GUIDE.md",
        "docs/explorer.png",
    ] {
        assert!(text.contains(needed), "README.md mentions {needed:?}");
    }
}

/// ARCHITECTURE.md is a map, not an inventory: at most 250 lines, with
/// the layers, the invariants and where a format, a view, an endpoint, a
/// module, a check and a test go (each test module's header says what it
/// covers).
#[test]
fn the_architecture_is_a_map_of_at_most_250_lines() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= 250,
        "ARCHITECTURE.md has {lines} lines: a map, the details in the modules' docs"
    );
    for heading in [
        "## Layers",
        "## Invariants",
        "### A module",
        "### A check",
        "### A format",
        "### A view",
        "### An endpoint",
        "### A test",
    ] {
        assert!(
            text.lines().any(|l| l == heading),
            "ARCHITECTURE.md has a section {heading:?}"
        );
    }
}

/// `cargo install --path .` installs the `decode` binary of the manifest in
/// the repository's root; `pip install ./python` builds the package that
/// `python/pyproject.toml` describes with maturin, from the binding crate
/// beside it, with the package's README as its long description.
#[test]
fn the_install_commands_name_what_they_install() {
    let commands = section_commands(&readme(), "Install");
    assert_eq!(
        commands,
        ["cargo install --path .", "pip install ./python"],
        "the install section's commands"
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let package = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| Path::new(p["manifest_path"].as_str().unwrap()) == root().join("Cargo.toml"))
        .expect("the root manifest is a package");
    let bins: Vec<&str> = package["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(bins, ["decode"], "cargo install --path . installs decode");

    let pyproject = std::fs::read_to_string(root().join("python/pyproject.toml")).unwrap();
    assert!(
        pyproject.contains("build-backend = \"maturin\""),
        "{pyproject}"
    );
    assert!(pyproject.contains("name = \"pbdecode\""), "{pyproject}");
    assert!(pyproject.contains("readme = \"README.md\""), "{pyproject}");
    assert!(root().join("python/Cargo.toml").is_file());
    assert!(root().join("python/README.md").is_file());
    let run_tests = std::fs::read_to_string(root().join("python/run_tests.sh")).unwrap();
    assert!(
        run_tests.contains("pip install") && run_tests.contains("\"$here\""),
        "python/run_tests.sh installs the package as the README says"
    );
}

/// A folder holding the example files under the names the recipes use.
fn recipe_folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbdecode-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["model.onnx", "expected.pb", "actual.pb"] {
        std::fs::copy(root().join("examples/files").join(name), dir.join(name)).unwrap();
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// `decode serve ...`: the address it prints answers the Graph tab's
/// request for the first file with the model's nodes.
fn check_serve(dir: &Path, args: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !seen.ends_with(b"\n") && out.read(&mut byte).unwrap_or(0) == 1 {
        seen.push(byte[0]);
    }
    let line = String::from_utf8_lossy(&seen).into_owned();
    let url = line.trim().rsplit(' ').next().unwrap_or_default();
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("decode serve prints its address: {line:?}"));
    let (port, query) = rest.split_once('/').unwrap();
    let token = query.rsplit('=').next().unwrap();
    let mut stream = TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap();
    write!(
        stream,
        "GET /api/graph?f=0 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
         Authorization: token {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply:.300}");
    assert!(
        reply.contains("/conv1/Conv"),
        "the graph's nodes: {reply:.600}"
    );
}

#[test]
fn the_recipes_run_on_the_example_files() {
    let commands = section_commands(&readme(), "Recipes");
    assert_eq!(commands.len(), 5, "five recipes: {commands:?}");
    let dir = recipe_folder();
    let mut ran = Vec::new();
    for command in &commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words[0], "decode", "a recipe runs decode: {command}");
        let args = &words[1..];
        if args.first() == Some(&"serve") {
            check_serve(&dir, args);
            ran.push("serve");
            continue;
        }
        let out = run(&dir, args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{command}: exit {:?}\n{}{}",
            out.status.code(),
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !(stdout.is_empty() && out.stderr.is_empty()),
            "{command} says what it did"
        );
        if let Some(i) = args.iter().position(|a| *a == "--tensor") {
            assert!(stdout.contains(args[i + 1]), "{command}: {stdout}");
            ran.push("tensor");
        } else if let Some(i) = args.iter().position(|a| *a == "--npy-dir") {
            let written = std::fs::read_dir(dir.join(args[i + 1])).unwrap().count();
            assert_eq!(written, 6, "{command} writes the model's 6 weights");
            ran.push("npy-dir");
        } else if args.first() == Some(&"diff") {
            ran.push("diff");
        } else {
            assert!(
                stdout.starts_with("format: onnx-model"),
                "{command}: {stdout:.200}"
            );
            ran.push("model");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    ran.sort_unstable();
    assert_eq!(ran, ["diff", "model", "npy-dir", "serve", "tensor"]);
}
