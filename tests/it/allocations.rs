//! One rule for buffers whose size comes from input: `src/alloc.rs`
//! reserves them, exactly and fallibly, so that a size a file claims is an
//! error and never an abort. This test closes the class: every other
//! allocation in `src/` that is given a size up front (`with_capacity`,
//! `reserve`, `reserve_exact`, `resize`, `vec![x; n]`) must be sized by a
//! constant or by a collection already in memory (`.len()`, bounded by
//! what the program holds), or be listed in `BOUNDED` with why its size
//! cannot come from a file's claim. A new size read from input fails here
//! until it goes through `crate::alloc`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

/// Allocations sized by a variable, each `(file, size as written)` and why
/// the size is bounded without `crate::alloc`.
const BOUNDED: &[(&str, &str, &str)] = &[
    (
        "src/render/binary.rs",
        "size",
        "a decoded message's span: bytes of the input already in memory",
    ),
    (
        "src/render/textproto.rs",
        "out.len()+indent",
        "the output so far and two spaces a level: depth is the decoder's budget",
    ),
    (
        "src/text_format/encoder.rs",
        "len_at+room",
        "the output so far and a varint's room: at most 10 bytes",
    ),
    (
        "src/wire.rs",
        "capacity",
        "WireWriter::with_capacity: callers pass a span of bytes already in memory",
    ),
    (
        "src/wire.rs",
        "raw_len+self.length_bytes",
        "the output written and the varints of its lengths: at most 10 bytes per length written",
    ),
    (
        "src/formats/paddle.rs",
        "count",
        "vars.len(): the variables already listed",
    ),
    (
        "src/formats/tf_checkpoint.rs",
        "rank",
        "a tensor's rank: dims already in memory",
    ),
    (
        "src/formats/tf_checkpoint.rs",
        "rank.saturating_sub(1)",
        "a slice's rank: extents already in memory",
    ),
    (
        "src/render/onnx_view.rs",
        "rank",
        "a tensor's rank: dims already in memory",
    ),
    (
        "src/render/tree.rs",
        "n",
        "dims.len(): the shape already in memory",
    ),
    (
        "src/render/tree.rs",
        "need.saturating_add(1<<16)",
        "one line of values: pad, index and at most PER_LINE slots",
    ),
    (
        "src/render/json.rs",
        "need",
        "one run of at most ROW_CHUNK values' slots",
    ),
    (
        "src/render/json.rs",
        "((end-start)*18)asusize",
        "one run of at most ROW_CHUNK values",
    ),
    (
        "src/render/schemaless.rs",
        "usize::try_from(shown).unwrap_or(0)",
        "capped at 64 KiB",
    ),
    (
        "src/picture.rs",
        "bytesasusize",
        "checked against MAX_PICTURE_BYTES first",
    ),
    (
        "src/picture.rs",
        "(cw*ch)asusize",
        "the canvas, checked against MAX_PICTURE_BYTES first",
    ),
    (
        "src/picture.rs",
        "(pw*ph)asusize",
        "the text preview: at most 32 x 64 cells",
    ),
    (
        "src/server/files.rs",
        "size.min(1<<20)asusize",
        "capped at 1 MiB",
    ),
    (
        "src/stats.rs",
        "bins",
        "at most HISTOGRAM_BINS, or one per integer of a span under it",
    ),
    (
        "src/stats/kernel.rs",
        "1usize<<bits",
        "a table of codes of at most 16 bits",
    ),
    (
        "src/stats/kernel.rs",
        "size",
        "1 << bits: a table of codes of at most 16 bits",
    ),
    (
        "src/graph/layout.rs",
        "n_groups",
        "groups.len(): the groups already built",
    ),
    (
        "src/graph/layout/acyclic.rs",
        "n",
        "g.verts.len(): the vertices already built",
    ),
    (
        "src/graph/layout/normalize.rs",
        "n",
        "g.verts.len(): the vertices already built",
    ),
    (
        "src/graph/layout/order.rs",
        "layers_n",
        "at most the vertices already built",
    ),
    (
        "src/graph/layout/rank.rs",
        "n",
        "g.verts.len(): the vertices already built",
    ),
];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text from `open` (just past an opening bracket) to its closing
/// bracket, and where the first argument ends (a comma, or for `vec!` the
/// text after the `;`).
fn first_argument(text: &str, open: usize, repeat: bool) -> Option<String> {
    let bytes = text.as_bytes();
    let (mut depth, mut at) = (1usize, open);
    let mut start = open;
    while at < bytes.len() {
        match bytes[at] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b';' if depth == 1 && repeat => start = at + 1,
            b',' if depth == 1 && !repeat => return Some(text[start..at].to_string()),
            _ => {}
        }
        at += 1;
    }
    if repeat && start == open {
        return None; // `vec![a, b]`: a list, not a repeat
    }
    Some(text.get(start..at)?.to_string())
}

/// Whether a size is a constant or sized by collections in memory: with
/// `X.len()`, upper-case constants and numbers taken out, nothing but
/// operators, casts and these helpers is left.
fn sized_by_memory(size: &str) -> bool {
    let mut s: String = size.chars().filter(|c| !c.is_whitespace()).collect();
    // `a.b(c).len()` and `a.len()`: one collection's length.
    while let Some(end) = s.find(".len()") {
        let head = &s[..end];
        let start = head
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_alphanumeric() || "_.()&".contains(c))
            .last()
            .map_or(end, |(i, _)| i);
        s.replace_range(start..end + ".len()".len(), "L");
    }
    let words: Vec<&str> = s
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().all(|w| {
        w.chars().next().is_some_and(|c| c.is_ascii_digit())
            || w.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            || [
                "L",
                "as",
                "usize",
                "u64",
                "u32",
                "min",
                "max",
                "saturating_add",
                "saturating_mul",
                "div_ceil",
            ]
            .contains(w)
    })
}

/// The allocations given a size up front in `text` (up to its unit tests)
/// whose size is not [`sized_by_memory`]: each as written, spaces removed.
fn sized_allocations(text: &str) -> Vec<(usize, String)> {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let mut found = Vec::new();
    for (pattern, repeat) in [
        ("::with_capacity(", false),
        (".reserve(", false),
        (".reserve_exact(", false),
        (".resize(", false),
        ("vec![", true),
    ] {
        for (at, _) in text.match_indices(pattern) {
            let open = at + pattern.len();
            // The first argument (a capacity, a length), or what a
            // `vec!` repeats.
            let size = match first_argument(text, open, repeat) {
                Some(s) => s,
                None => continue,
            };
            if !sized_by_memory(&size) {
                let line = text[..at].matches('\n').count() + 1;
                found.push((line, size.split_whitespace().collect::<String>()));
            }
        }
    }
    found
}

#[test]
fn buffers_sized_from_input_go_through_the_one_allocation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut unlisted = Vec::new();
    let mut used = vec![false; BOUNDED.len()];
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "src/alloc.rs" {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for (line, size) in sized_allocations(&text) {
            match BOUNDED
                .iter()
                .position(|&(f, s, _)| f == rel && s.replace(' ', "") == size)
            {
                Some(k) => used[k] = true,
                None => unlisted.push(format!("{rel}:{line}: {size}")),
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "allocations sized by something other than a constant or a collection in \
         memory: reserve them through crate::alloc (fallible, exact), or list them \
         in BOUNDED (tests/it/allocations.rs) with why their size is bounded:\n  {}",
        unlisted.join("\n  ")
    );
    let stale: Vec<String> = BOUNDED
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((f, s, _), _)| format!("{f}: {s}"))
        .collect();
    assert!(
        stale.is_empty(),
        "BOUNDED lists sizes no longer in src/: {stale:?}"
    );
}

#[test]
fn a_size_read_from_input_is_found() {
    let text = "fn f(h: &Header, v: &[u8]) {\n\
                let mut a = Vec::with_capacity(h.count as usize);\n\
                let b = vec![0u8; v.len() * 2];\n\
                let c: Vec<u32> = Vec::with_capacity(HEADER_BYTES);\n\
                let mut d = BufWriter::with_capacity(1 << 16, out);\n\
                e.resize(dims.len(), 0);\n\
                let f = vec![0u64; claimed];\n\
                g.reserve(usize::try_from(len).unwrap_or(0));\n\
                let h = vec![1, 2, 3];\n\
                }\n";
    assert_eq!(
        sized_allocations(text),
        [
            (2, "h.countasusize".to_string()),
            (8, "usize::try_from(len).unwrap_or(0)".to_string()),
            (7, "claimed".to_string()),
        ]
    );
}
