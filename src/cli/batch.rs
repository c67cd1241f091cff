//! `decode FILE...`, `decode -r DIR`: many files on all cores, JSON Lines
//! (`--jsonl`) or a table, output in input order, a progress bar on a
//! terminal's stderr and a closing summary.

use super::args::Args;
use super::outcome::Outcome;
use pbdecode::batch::Outcome as FileOutcome;
use pbdecode::batch::{self, BatchOptions};
use pbdecode::escape::{TextLines, plain};
use pbdecode::formats::FormatOptions;
use pbdecode::testdata::ModelCache;
use std::collections::BTreeMap;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The files the arguments name, folders walked under -r (with the folders
/// that could not be read, listed among them).
type Listed = (Vec<PathBuf>, BTreeMap<PathBuf, String>);

fn files_of(args: &Args) -> io::Result<Result<Listed, String>> {
    let mut files = Vec::new();
    let mut not_read = BTreeMap::new();
    for name in std::iter::once(&args.file).chain(&args.more) {
        if name == "-" {
            return Ok(Err("standard input cannot be part of a batch".into()));
        }
        let p = PathBuf::from(name);
        if p.is_dir() {
            if !args.recursive {
                return Ok(Err(format!(
                    "{name} is a folder: add -r to decode the files in it"
                )));
            }
            let mut found = Vec::new();
            let unread = batch::collect_files(&p, &mut found);
            found.extend(unread.keys().cloned());
            found.sort();
            files.extend(found);
            not_read.extend(unread);
        } else {
            files.push(p);
        }
    }
    Ok(Ok((files, not_read)))
}

pub fn run(args: &Args, values: Option<u64>) -> io::Result<Outcome> {
    let (files, not_read) = match files_of(args)? {
        Ok(f) => f,
        Err(msg) => return super::stderr::usage(&msg),
    };
    // One file named (no -r): a record file is written a line per record.
    let record_lines = args.jsonl && !args.recursive && args.more.is_empty();
    run_files(
        args,
        values,
        files,
        not_read,
        args.model.as_deref(),
        record_lines,
    )
}

/// Decodes `files` as a batch: JSON Lines with --jsonl/--json, else a table.
pub fn run_files(
    args: &Args,
    values: Option<u64>,
    files: Vec<PathBuf>,
    not_read: BTreeMap<PathBuf, String>,
    model: Option<&Path>,
    record_lines: bool,
) -> io::Result<Outcome> {
    let started = Instant::now();
    let cache = ModelCache::default();
    let opts = BatchOptions {
        formats: FormatOptions {
            max_depth: args.max_depth,
            ..FormatOptions::default()
        },
        values,
        stats: args.stats,
        model: model.map(Path::to_path_buf),
        cache: &cache,
        not_read,
        record_lines,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let progress = io::stderr().is_terminal() && files.len() > 1;
    let mut out = BufWriter::with_capacity(1 << 16, pbdecode::output::stdout_stream());
    let mut outcomes: Vec<FileOutcome> = Vec::with_capacity(files.len().min(1 << 20));
    let mut last_draw = Instant::now();
    let mut draw = |i: usize| {
        if progress && (last_draw.elapsed().as_millis() >= 100 || i + 1 == files.len()) {
            last_draw = Instant::now();
            let width = 30usize;
            let filled = (i + 1).saturating_mul(width) / files.len().max(1);
            super::stderr::redraw(format_args!(
                "[{}{}] {}/{}",
                "#".repeat(filled),
                " ".repeat(width.saturating_sub(filled)),
                i + 1,
                files.len()
            ));
        }
    };
    if args.jsonl || args.json {
        batch::parallel_streams(
            files.len(),
            threads,
            threads * 16,
            batch::WINDOW_BYTES,
            &mut out,
            |i, w| match files.get(i) {
                Some(p) => batch::json_line(w, p, &opts),
                None => Ok(FileOutcome::default()),
            },
            |i, outcome| {
                outcomes.push(outcome?);
                draw(i);
                Ok(())
            },
        )?;
    } else {
        let mut rows = Vec::new();
        batch::parallel_ordered(
            files.len(),
            threads,
            threads * 16,
            |i| match files.get(i) {
                Some(p) => batch::table_row(p, &opts),
                None => (Err(String::new()), FileOutcome::default()),
            },
            |i, (row, outcome)| {
                rows.push(row);
                outcomes.push(outcome);
                draw(i);
                Ok(())
            },
        )?;
        write_table(&mut out, &files, &rows)?;
    }
    out.flush()?;
    if progress {
        super::stderr::clear_redrawn(50);
    }
    summary(&outcomes, started);
    let warnings: usize = outcomes.iter().map(|o| o.warnings).sum();
    Ok(if outcomes.iter().any(|o| o.io_error) {
        Outcome::Failed
    } else if outcomes.iter().any(|o| o.format.is_none() || o.fault)
        || (args.strict && warnings > 0)
    {
        Outcome::Rejected
    } else {
        Outcome::Done
    })
}

fn write_table(
    out: &mut dyn Write,
    files: &[PathBuf],
    rows: &[Result<batch::Row, String>],
) -> io::Result<()> {
    // Names and summaries escaped before the columns are measured, so that
    // the escaped text lines up.
    let names: Vec<String> = files
        .iter()
        .map(|f| plain(&f.display().to_string()).into_owned())
        .collect();
    let summaries: Vec<String> = rows
        .iter()
        .map(|r| {
            r.as_ref()
                .map_or(String::new(), |r| plain(&r.summary).into_owned())
        })
        .collect();
    let wf = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let wfmt = rows
        .iter()
        .map(|r| r.as_ref().map_or(11, |r| r.format.len()))
        .max()
        .unwrap_or(6)
        .max(6);
    let wtype = rows
        .iter()
        .map(|r| r.as_ref().map_or(1, |r| r.type_name.len()))
        .max()
        .unwrap_or(4)
        .max(4);
    let wsum = summaries
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(13)
        .max(13);
    let mut out = TextLines::new(out);
    out.line(format_args!(
        "{:wf$}  {:wfmt$}  {:wtype$}  {:wsum$}  {:>10}",
        "file", "format", "type", "shape/summary", "size"
    ))?;
    for ((name, row), summary) in names.iter().zip(rows).zip(&summaries) {
        match row {
            Ok(r) => out.line(format_args!(
                "{name:wf$}  {:wfmt$}  {:wtype$}  {summary:wsum$}  {:>10}",
                r.format, r.type_name, r.size
            ))?,
            Err(e) => out.line(format_args!("{name:wf$}  {:wfmt$}  {e}", "turned down"))?,
        }
    }
    Ok(())
}

fn summary(outcomes: &[FileOutcome], started: Instant) {
    let mut per: BTreeMap<&str, usize> = BTreeMap::new();
    for o in outcomes {
        if let Some(f) = o.format {
            *per.entry(f).or_default() += 1;
        }
    }
    let down = outcomes
        .iter()
        .filter(|o| o.format.is_none() && !o.io_error)
        .count();
    let unread = outcomes.iter().filter(|o| o.io_error).count();
    let warnings: usize = outcomes.iter().map(|o| o.warnings).sum();
    let formats: Vec<String> = per.iter().map(|(f, n)| format!("{n} {f}")).collect();
    say!(
        "decode: {} files in {:.2} s: {}; {down} turned down, {unread} not read, {warnings} warnings",
        outcomes.len(),
        started.elapsed().as_secs_f64(),
        if formats.is_empty() {
            "none decoded".to_string()
        } else {
            formats.join(", ")
        }
    );
}
