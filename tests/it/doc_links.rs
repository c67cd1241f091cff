//! The project's Markdown documents link each other by relative paths:
//! every such link in README.md, GUIDE.md, ARCHITECTURE.md,
//! CONTRIBUTING.md, docs/*.md and the READMEs of python/, fuzz/,
//! examples/files/ and tests/browser/ must name a file that exists and, with `#anchor`, a heading of
//! that file (as GitHub makes anchors of headings). The README opens with
//! two commands a newcomer runs; the files they name must exist.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The documents whose links are checked, relative to the repository.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = [
        "README.md",
        "GUIDE.md",
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "python/README.md",
        "fuzz/README.md",
        "examples/files/README.md",
        "tests/browser/README.md",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
                .collect()
        })
        .unwrap_or_default();
    more.sort();
    docs.extend(more);
    docs
}

/// The text of a Markdown document outside fenced and indented code blocks
/// and inline code spans, line by line (so a link shown as code is not
/// checked).
fn prose_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut previous_blank = true;
    let mut indented = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
            out.push(String::new());
            continue;
        }
        let blank = line.trim().is_empty();
        // An indented block starts after a blank line and runs to the next
        // line that is not indented (a list item's continuation is
        // indented too, but never after a blank line in these documents).
        if line.starts_with("    ") && (previous_blank || indented) {
            indented = true;
        } else if !blank {
            indented = false;
        }
        previous_blank = blank;
        if fenced || indented {
            out.push(String::new());
            continue;
        }
        // Inline code spans removed.
        let mut prose = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                prose.push_str(part);
            }
        }
        out.push(prose);
    }
    out
}

/// Every inline link target `[text](target)` in the prose, with its line.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in prose_lines(text).iter().enumerate() {
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            found.push((n + 1, target.to_string()));
            rest = &rest[end..];
        }
    }
    found
}

/// The anchors GitHub gives the headings of a Markdown document: lower
/// case, punctuation other than `-` and `_` dropped, spaces as `-`, a
/// repeated anchor suffixed `-1`, `-2`, ...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = slug.clone();
        let mut k = 0;
        while seen.contains(&anchor) {
            k += 1;
            anchor = format!("{slug}-{k}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The links of `doc` (a path relative to `root`) that do not resolve.
fn broken_links(root: &Path, doc: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join(doc)).unwrap();
    let dir = doc.parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (line, target) in link_targets(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            doc.to_path_buf()
        } else {
            dir.join(path)
        };
        let where_ = format!("{}:{line}: ({target})", doc.display());
        if !root.join(&file).exists() {
            broken.push(format!("{where_}: no file {}", file.display()));
            continue;
        }
        if let Some(anchor) = anchor {
            let target_text = std::fs::read_to_string(root.join(&file)).unwrap_or_default();
            if !anchors(&target_text).contains(anchor) {
                broken.push(format!(
                    "{where_}: no heading #{anchor} in {}",
                    file.display()
                ));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_of_the_documents_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = documents(root);
    assert!(
        docs.iter().any(|d| d.starts_with("docs")),
        "docs/*.md found: {docs:?}"
    );
    let mut checked = 0;
    let mut broken = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(root.join(doc))
            .unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
        checked += link_targets(&text).len();
        broken.extend(broken_links(root, doc));
    }
    assert!(checked > 10, "only {checked} links found");
    assert!(
        broken.is_empty(),
        "links that do not resolve:\n  {}",
        broken.join("\n  ")
    );
}

#[test]
fn a_broken_link_or_anchor_is_found() {
    let root = std::env::temp_dir().join(format!("pbdecode-doc-links-{}", std::process::id()));
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(
        root.join("docs/a.md"),
        "# A title (`x`)\n\n## Same\n\n## Same\n\n\
         [ok](../B.md) [ok](#a-title-x) [ok](#same-1) [web](https://example.com/x.md)\n\
         [missing](../C.md) [bad anchor](../B.md#nowhere) `[code](../D.md)`\n\n    \
         [indented code](../E.md)\n",
    )
    .unwrap();
    std::fs::write(root.join("B.md"), "# B\n").unwrap();
    let broken = broken_links(&root, Path::new("docs/a.md"));
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(
        broken,
        [
            "docs/a.md:8: (../C.md): no file docs/../C.md",
            "docs/a.md:8: (../B.md#nowhere): no heading #nowhere in docs/../B.md",
        ]
    );
}

/// The README opens with what the tool does and two commands: one builds
/// and runs `decode` on an example shipped in the repository, one runs
/// every test (the Rust tests, the browser tests, and the Python package's
/// when there is one), directly or through a script of the repository.
#[test]
fn the_readme_opens_with_commands_that_name_files_of_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands: Vec<&str> = readme
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("    "))
        .collect();
    let [run, test] = commands[..] else {
        panic!("two commands before the first section: {commands:?}")
    };
    let example = run
        .strip_prefix("cargo run --release --bin decode -- ")
        .unwrap_or_else(|| panic!("the first command runs decode: {run:?}"));
    assert!(
        root.join(example).is_file(),
        "{example} is in the repository"
    );
    // What the test command runs: its own words, and the scripts it names.
    let mut runs = test.to_string();
    for part in test.split("&&") {
        let program = part.split_whitespace().next().unwrap_or("");
        if program != "cargo" {
            let script = root.join(program);
            assert!(script.is_file(), "{program} is in the repository");
            runs.push_str(&std::fs::read_to_string(script).unwrap());
        }
    }
    let mut wanted = vec!["cargo", "tests/browser/run.sh"];
    if root.join("python/run_tests.sh").is_file() {
        wanted.push("python/run_tests.sh");
    }
    for w in wanted {
        assert!(runs.contains(w), "the test command runs {w}: {test:?}");
    }
}
