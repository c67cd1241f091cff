//! Many files at once: each file decoded exactly as a single `decode --json`
//! would (test files named by their model), on all cores, the results handed
//! back in input order.

use crate::error::DecodeError;
use crate::formats::{Body, Decoded, FormatOptions};
use crate::render::{RenderOptions, json};
use crate::schema::SchemaSet;
use crate::testdata::{self, ModelCache, Naming};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// What became of one file, for the closing summary.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The format that took it; None when it was turned down or not read.
    pub format: Option<&'static str>,
    /// Declared-type mismatches and model problems.
    pub warnings: usize,
    /// Not read at all (I/O).
    pub io_error: bool,
}

/// Settings shared by every file of a batch.
pub struct BatchOptions<'c> {
    pub formats: FormatOptions,
    /// `--values`: None prints every value (the JSON default).
    pub values: Option<u64>,
    /// `--model`: read every input_K/output_K file as this model's data.
    pub model: Option<PathBuf>,
    pub cache: &'c ModelCache,
    /// Folders of the walk that could not be read, with the reason: each
    /// is a line (a row) of its own among the files.
    pub not_read: BTreeMap<PathBuf, String>,
}

fn error_json(
    w: &mut dyn Write,
    file: &Path,
    check: &str,
    path: &str,
    offset: u64,
    message: &str,
) -> io::Result<()> {
    write!(w, "{{")?;
    json::path_field(w, "file", file)?;
    write!(w, ", \"error\": {{\"check\": ")?;
    json::string(w, check)?;
    write!(w, ", \"path\": ")?;
    json::string(w, path)?;
    write!(w, ", \"offset\": {offset}, \"message\": ")?;
    json::string(w, message)?;
    writeln!(w, "}}}}")
}

fn decode_error_json(w: &mut dyn Write, file: &Path, e: &DecodeError) -> io::Result<()> {
    error_json(
        w,
        file,
        e.kind.check(),
        &e.path_string(),
        e.offset,
        &e.kind.to_string(),
    )
}

/// Decodes one file and writes its JSON line: the single-file `--json`
/// object with `"file"` first, or `{"file", "error": {check, path, offset,
/// message}}` (a name that is not UTF-8 adds `"file_bytes"`).
pub fn json_line(w: &mut dyn Write, path: &Path, opts: &BatchOptions<'_>) -> io::Result<Outcome> {
    if let Some(why) = opts.not_read.get(path) {
        error_json(w, path, "io", "", 0, why)?;
        return Ok(Outcome {
            io_error: true,
            ..Outcome::default()
        });
    }
    let input = match crate::input::open_input(path) {
        Ok(i) => i,
        Err(e) => {
            error_json(w, path, "io", "", 0, &e.to_string())?;
            return Ok(Outcome {
                io_error: true,
                ..Outcome::default()
            });
        }
    };
    let ctx = testdata::file_context(path, opts.model.as_deref(), opts.cache);
    let (decoded, naming) = testdata::decode_file(input.bytes(), ctx.as_ref(), &opts.formats);
    let warnings = naming.as_ref().map_or(0, |n| n.mismatches.len());
    match decoded {
        Ok(d) => {
            let ropts = RenderOptions {
                values: opts.values,
                dir: Some(parent_dir(path)),
                ..RenderOptions::default()
            };
            json::write_decoded_with(w, &d, &ropts, Some(path), &mut |w| {
                testdata::json_tail(w, naming.as_ref())
            })?;
            Ok(Outcome {
                format: Some(d.format.id),
                warnings,
                io_error: false,
            })
        }
        Err(r) => {
            decode_error_json(w, path, &r.error)?;
            Ok(Outcome {
                format: None,
                warnings,
                io_error: false,
            })
        }
    }
}

/// The folder a file's external data is looked up in.
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// One row of the batch table.
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub format: String,
    pub type_name: String,
    pub summary: String,
    pub size: u64,
}

/// A short summary of what a decoded file holds: the format's own
/// ([`crate::formats::Format::summary`]: `FLOAT[3, 4, 5]`, `3 elements`,
/// `12 nodes, 4 initializers`), and what its model says of it.
pub fn summary(d: &Decoded<'_>, naming: Option<&Naming>) -> String {
    let set = SchemaSet::builtin();
    let mut s = match &d.body {
        // The format's own summary of its root message.
        Body::Message { message: m, .. } => (d.format.summary)(set, m),
        Body::Schemaless(_) => "read without a schema".into(),
        Body::UserMessage { .. } => String::new(),
    };
    if let Some(n) = naming {
        if !s.is_empty() {
            s.push_str("  ");
        }
        s.push_str(&n.label());
        if !n.mismatches.is_empty() {
            s.push_str(" (declared-type warning)");
        }
    }
    s
}

/// Decodes one file for the table.
pub fn table_row(path: &Path, opts: &BatchOptions<'_>) -> (Result<Row, String>, Outcome) {
    if let Some(why) = opts.not_read.get(path) {
        return (
            Err(why.clone()),
            Outcome {
                io_error: true,
                ..Outcome::default()
            },
        );
    }
    let input = match crate::input::open_input(path) {
        Ok(i) => i,
        Err(e) => {
            return (
                Err(e.to_string()),
                Outcome {
                    io_error: true,
                    ..Outcome::default()
                },
            );
        }
    };
    let bytes = input.bytes();
    let ctx = testdata::file_context(path, opts.model.as_deref(), opts.cache);
    let (decoded, naming) = testdata::decode_file(bytes, ctx.as_ref(), &opts.formats);
    let warnings = naming.as_ref().map_or(0, |n| n.mismatches.len());
    match decoded {
        Ok(d) => {
            let type_name = match &d.body {
                Body::Message { type_name, .. } | Body::UserMessage { type_name, .. } => {
                    type_name.clone()
                }
                Body::Schemaless(_) => "-".into(),
            };
            let row = Row {
                format: d.format.id.to_string(),
                type_name,
                summary: summary(&d, naming.as_ref()),
                size: bytes.len() as u64,
            };
            (
                Ok(row),
                Outcome {
                    format: Some(d.format.id),
                    warnings,
                    io_error: false,
                },
            )
        }
        Err(r) => (
            Err(r.error.to_string()),
            Outcome {
                format: None,
                warnings,
                io_error: false,
            },
        ),
    }
}

/// Every file under `dir`, sorted by path, added to `out`; symbolic links
/// to folders are not followed (no loops). A folder that cannot be read
/// (no permission, or nested so deep that its path is longer than the
/// system takes) does not stop the walk: it is returned with the reason,
/// and the rest is walked.
pub fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> BTreeMap<PathBuf, String> {
    let mut stack = vec![dir.to_path_buf()];
    let mut found = Vec::new();
    let mut not_read = BTreeMap::new();
    while let Some(d) = stack.pop() {
        if let Err(e) = walk_folder(&d, &mut stack, &mut found) {
            not_read.insert(d, folder_not_read(&e));
        }
    }
    found.sort();
    out.extend(found);
    not_read
}

/// The entries of one folder: folders onto `stack`, files into `found`.
fn walk_folder(dir: &Path, stack: &mut Vec<PathBuf>, found: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ty = entry.file_type()?;
        if ty.is_dir() {
            stack.push(entry.path());
        } else if ty.is_file() || (ty.is_symlink() && entry.path().is_file()) {
            found.push(entry.path());
        }
    }
    Ok(())
}

/// Why a folder of a walk was not read, in words.
fn folder_not_read(e: &io::Error) -> String {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ENAMETOOLONG) {
        return format!(
            "folder not read: its path is longer than the system takes (PATH_MAX; {e}); decode it from a folder nearer to it"
        );
    }
    format!("folder not read: {e}")
}

/// Runs `work` on items 0..n on `threads` threads and hands each result to
/// `sink` in item order, on the calling thread. At most `window` results
/// wait to be handed over, so memory stays bounded however slow the sink.
/// An error from `sink` stops the run.
pub fn parallel_ordered<T, W, S>(
    n: usize,
    threads: usize,
    window: usize,
    work: W,
    mut sink: S,
) -> io::Result<()>
where
    T: Send,
    W: Fn(usize) -> T + Sync,
    S: FnMut(usize, T) -> io::Result<()>,
{
    struct State<T> {
        done: BTreeMap<usize, T>,
        written: usize,
        stop: bool,
    }
    let window = window.max(1);
    let next = AtomicUsize::new(0);
    let state = Mutex::new(State {
        done: BTreeMap::new(),
        written: 0,
        stop: false,
    });
    let ready = Condvar::new();
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    {
                        let mut g = lock();
                        while i >= g.written.saturating_add(window) && !g.stop {
                            g = ready.wait(g).unwrap_or_else(|e| e.into_inner());
                        }
                        if g.stop {
                            break;
                        }
                    }
                    let r = work(i);
                    let mut g = lock();
                    g.done.insert(i, r);
                    ready.notify_all();
                }
            });
        }
        let mut result = Ok(());
        for i in 0..n {
            let item = {
                let mut g = lock();
                loop {
                    if let Some(t) = g.done.remove(&i) {
                        break t;
                    }
                    g = ready.wait(g).unwrap_or_else(|e| e.into_inner());
                }
            };
            result = sink(i, item);
            let mut g = lock();
            g.written = i + 1;
            if result.is_err() {
                g.stop = true;
            }
            ready.notify_all();
            drop(g);
            if result.is_err() {
                break;
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept() {
        let mut seen = Vec::new();
        parallel_ordered(
            200,
            4,
            8,
            |i| {
                // Uneven work: later items often finish first.
                let spin = (200 - i) * 50;
                (0..spin).fold(i, |a, b| a ^ b) ^ (0..spin).fold(0, |a, b| a ^ b)
            },
            |i, v| {
                seen.push((i, v));
                Ok(())
            },
        )
        .ok();
        assert_eq!(seen.len(), 200);
        assert!(
            seen.iter()
                .enumerate()
                .all(|(k, (i, v))| k == *i && *v == k)
        );
    }

    #[test]
    fn sink_error_stops() {
        let mut count = 0;
        let r = parallel_ordered(
            1000,
            3,
            4,
            |i| i,
            |i, _| {
                count += 1;
                if i == 10 {
                    Err(io::Error::other("stop"))
                } else {
                    Ok(())
                }
            },
        );
        assert!(r.is_err());
        assert_eq!(count, 11);
    }
}
