//! `--picture`, `--npy`, `--npy-dir` and `--tensor`: pick tensors out of the
//! decoded file and write them as pictures, .npy files or on their own.

use super::args::Args;
use super::outcome::Outcome;
use pbdecode::escape::TextLines;
use pbdecode::formats::records::RecordFile;
use pbdecode::formats::tf_record::{image_size, read_payload, record_pictures};
use pbdecode::formats::{Body, Decoded, FormatOptions};
use pbdecode::input::InputBytes;
use pbdecode::json_writer::JsonWriter;
use pbdecode::npy::{self, NpyError};
use pbdecode::output::{Output, OutputError, Policy};
use pbdecode::picture::PictureError;
use pbdecode::render::{RenderOptions, json, tree};
use pbdecode::schema::SchemaSet;
use pbdecode::{Document, Error, Reading, Tensor, TensorRef};
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Checks an output path the user named (--picture, --npy) before anything
/// is computed or created.
fn plan_named(path: &Path) -> io::Result<Output> {
    Ok(Output::plan(path, Policy::named())?)
}

/// Up to ten tensor names, for messages.
fn some_names(tensors: &[TensorRef]) -> String {
    let mut names: Vec<String> = tensors
        .iter()
        .take(10)
        .map(|t| format!("{:?}", t.name))
        .collect();
    if tensors.len() > 10 {
        names.push(format!("… {} in all", tensors.len()));
    }
    names.join(", ")
}

/// The end of a step: the command stops with this outcome.
type Stop = Outcome;

/// --picture, --npy, --npy-dir and --tensor: pick the tensor(s) through
/// the facade's [`Document`] (over the input already decoded), write the
/// files; with --tensor alone, show that tensor.
pub(crate) fn tensor_outputs(
    args: &Args,
    input: &Arc<InputBytes>,
    decoded: &Decoded<'_>,
    fopts: &FormatOptions,
    ropts: &RenderOptions,
) -> io::Result<Outcome> {
    if let Body::Records(file) = &decoded.body {
        return match (&args.picture, args.npy.is_none() && args.npy_dir.is_none()) {
            (Some(path), true) => write_record_picture(args, file, path),
            _ => {
                say!(
                    "decode: {}: a record file holds no tensors to pick; --picture OUT writes a picture its records hold",
                    args.file
                );
                Ok(Outcome::Rejected)
            }
        };
    }
    if !matches!(decoded.body, Body::Message { .. } | Body::Bundle(_)) {
        say!(
            "decode: {}: read without a schema, so it has no tensors to pick",
            args.file
        );
        return Ok(Outcome::Rejected);
    }
    let reading = Reading {
        asked: args.format,
        options: *fopts,
    };
    let doc = Document::from_decoded(input.clone(), ropts.dir.clone(), reading, decoded);
    let single = args.picture.is_some() || args.npy.is_some() || args.npy_dir.is_none();
    // Refuse a bad output path before any work (the input itself, a
    // directory, a FIFO, ...).
    let picture_out = args.picture.as_deref().map(plan_named).transpose()?;
    let npy_out = args.npy.as_deref().map(plan_named).transpose()?;
    if single {
        let chosen = match choose(args, &doc) {
            Ok(t) => t,
            Err(outcome) => return Ok(outcome),
        };
        let Ok(tensor) = doc.tensor(chosen) else {
            say!("decode: {}: {:?} is not a tensor", args.file, chosen.name);
            return Ok(Outcome::Rejected);
        };
        let what = if doc.root_tensor() == Some(chosen) {
            args.file.clone()
        } else {
            format!("{}: tensor {:?}", args.file, chosen.name)
        };
        if let (Some(path), Some(target)) = (&args.picture, &picture_out)
            && let Err(outcome) = write_picture(&tensor, path, target, &what)?
        {
            return Ok(outcome);
        }
        if let (Some(path), Some(target)) = (&args.npy, &npy_out)
            && let Err(outcome) = write_npy(&tensor, path, target, &what, ropts)?
        {
            return Ok(outcome);
        }
        if args.picture.is_none() && args.npy.is_none() {
            // --tensor alone: show that tensor as the root.
            show_tensor(args, decoded, &tensor, ropts)?;
        }
    }
    match &args.npy_dir {
        Some(out_dir) => write_npy_dir(args, &doc, out_dir, ropts),
        None => Ok(Outcome::Done),
    }
}

/// The names of `tensors` nearest to a misspelt `name`, nearest first (at
/// most 3): those within an edit distance of a third of the name's length
/// (at least 2), or equal to it but for case.
fn nearest_names<'t>(name: &str, tensors: &'t [TensorRef]) -> Vec<&'t str> {
    let limit = (name.chars().count() / 3).max(2);
    let lower = name.to_lowercase();
    let mut near: Vec<(usize, &str)> = tensors
        .iter()
        .map(|t| t.name.as_str())
        .filter_map(|candidate| {
            let d = if candidate.to_lowercase() == lower {
                0
            } else {
                edit_distance(name, candidate, limit)?
            };
            Some((d, candidate))
        })
        .collect();
    near.sort_by_key(|&(d, _)| d);
    near.dedup_by_key(|&mut (_, n)| n);
    near.into_iter().take(3).map(|(_, n)| n).collect()
}

/// The Levenshtein distance of `a` and `b` in characters, or None when it
/// is over `limit` (two rows of the table; names are short).
fn edit_distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0usize; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev
                .get(j)
                .map_or(usize::MAX, |&d| d + usize::from(ca != cb));
            let delete = prev.get(j + 1).map_or(usize::MAX, |&d| d + 1);
            let insert = row.get(j).map_or(usize::MAX, |&d| d + 1);
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = substitute.min(delete).min(insert);
            }
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev.last().copied().filter(|&d| d <= limit)
}

/// The tensor --tensor names, or the file's own tensor when it is one.
fn choose<'d>(args: &Args, doc: &'d Document) -> Result<&'d TensorRef, Stop> {
    let tensors = doc.tensors();
    match &args.tensor {
        Some(name) => match tensors.iter().find(|t| &t.name == name) {
            Some(t) => Ok(t),
            None if tensors.is_empty() => {
                say!(
                    "decode: {}: no tensor {name:?}: the file has no tensors",
                    args.file
                );
                Err(Outcome::Rejected)
            }
            None => {
                let near = nearest_names(name, tensors);
                let guesses: Vec<String> = near.iter().map(|n| format!("{n:?}")).collect();
                if guesses.is_empty() {
                    say!(
                        "decode: {}: no tensor {name:?}; tensors: {}",
                        args.file,
                        some_names(tensors)
                    );
                } else {
                    say!(
                        "decode: {}: no tensor {name:?}: did you mean {}? (tensors: {})",
                        args.file,
                        guesses.join(" or "),
                        some_names(tensors)
                    );
                }
                Err(Outcome::Rejected)
            }
        },
        None => match doc.root_tensor() {
            Some(t) => Ok(t),
            None if tensors.is_empty() => {
                say!("decode: {}: the file has no tensors", args.file);
                Err(Outcome::Rejected)
            }
            None => {
                say!(
                    "decode: {}: the file holds {} tensors: name one with --tensor NAME ({})",
                    args.file,
                    tensors.len(),
                    some_names(tensors)
                );
                Err(Outcome::Usage)
            }
        },
    }
}

/// The file name extensions of a picture format written as it is.
fn extensions(format: &str) -> &'static [&'static str] {
    match format {
        "PNG" => &["png"],
        "JPEG" => &["jpg", "jpeg"],
        "GIF" => &["gif"],
        _ => &[],
    }
}

/// --picture on a record file: a picture a record holds (an event's
/// summary image, a picture in an Example's bytes feature), chosen by
/// --tensor NAME or as the file's only one, written as it is stored (it
/// is encoded already; pbdecode decodes no JPEG, so the output's
/// extension must name the picture's own format).
fn write_record_picture(args: &Args, file: &RecordFile<'_>, path: &Path) -> io::Result<Outcome> {
    let target = plan_named(path)?;
    let wanted = args.tensor.as_deref().map(str::as_bytes);
    // The chosen picture (the first, without --tensor), the count and the
    // first names: one record in memory at a time.
    let mut chosen: Option<(Vec<u8>, &'static str, Vec<u8>)> = None;
    let mut count = 0u64;
    let mut first_names: Vec<String> = Vec::new();
    for r in file.records() {
        let Ok(r) = r else { break };
        let payload = read_payload(file.kind, &r.data, r.data_offset());
        let flow = record_pictures(r.index, &payload, &mut |p| {
            count += 1;
            if first_names.len() < 10 {
                first_names.push(format!("{:?}", String::from_utf8_lossy(&p.name)));
            }
            let hit = wanted.is_none_or(|w| w == p.name.as_slice());
            if hit && chosen.is_none() {
                chosen = Some((p.name, p.format, p.bytes.to_vec()));
            }
            match (wanted, &chosen) {
                // Found what was named: the rest need not be read.
                (Some(_), Some(_)) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        });
        if flow.is_break() {
            break;
        }
    }
    let names = || {
        let mut names = first_names.join(", ");
        if count > first_names.len() as u64 {
            names.push_str(&format!(", … {count} in all"));
        }
        names
    };
    let fault = || match file.fault() {
        Some(e) => format!(" (the records end in a fault: {e})"),
        None => String::new(),
    };
    let (name, format, bytes) = match (chosen, wanted) {
        (Some(c), Some(_)) => c,
        (Some(c), None) if count == 1 => c,
        (_, _) if count == 0 => {
            say!(
                "decode: {}: no record holds a picture{}",
                args.file,
                fault()
            );
            return Ok(Outcome::Rejected);
        }
        (None, Some(w)) => {
            say!(
                "decode: {}: no picture {:?}{}; pictures: {}",
                args.file,
                String::from_utf8_lossy(w),
                fault(),
                names()
            );
            return Ok(Outcome::Rejected);
        }
        (_, None) => {
            say!(
                "decode: {}: the records hold {count} pictures: name one with --tensor NAME ({})",
                args.file,
                names()
            );
            return Ok(Outcome::Usage);
        }
    };
    let name = String::from_utf8_lossy(&name).into_owned();
    let size = image_size(&bytes).map_or(String::new(), |(_, w, h)| format!(" {w}x{h}"));
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let fits = extensions(format).contains(&ext.as_deref().unwrap_or(""));
    if !fits && !matches!(target, Output::Stdout) {
        say!(
            "decode: {}: picture {name:?} is a {format}{size}, written as it is stored (pbdecode decodes no JPEG or GIF): name the output .{}",
            args.file,
            extensions(format).first().unwrap_or(&"png")
        );
        return Ok(Outcome::Usage);
    }
    match target.write(|w| w.write_all(&bytes))? {
        Ok(()) => say!(
            "decode: wrote {}: picture {name:?}, {format}{size}, {} bytes",
            path.display(),
            bytes.len()
        ),
        Err(e) => return Err(io::Error::other(format!("{}: {e}", path.display()))),
    }
    // A fault met on the way: the file's only picture is only the only one
    // before the fault; the exit status says the file is damaged, as the
    // view's does.
    if let Some(e) = file.fault() {
        say!("decode: {}: the records end in a fault: {e}", args.file);
        return Ok(Outcome::Rejected);
    }
    Ok(Outcome::Done)
}

/// --picture: the tensor drawn as a PNG file.
fn write_picture(
    tensor: &Tensor<'_>,
    path: &Path,
    target: &Output,
    what: &str,
) -> io::Result<Result<(), Stop>> {
    let pic = match tensor.picture() {
        Ok(p) => p,
        Err(Error::Picture(PictureError::Io(e))) => return Err(e),
        Err(e) => {
            say!("decode: {what}: no picture: {e}");
            return Ok(Err(Outcome::Rejected));
        }
    };
    match target.write(|w| pic.write_png(w))? {
        Ok(()) => say!("decode: wrote {}: {}", path.display(), pic.describe()),
        Err(e) => return Err(io::Error::other(format!("{}: {e}", path.display()))),
    }
    Ok(Ok(()))
}

fn npy_options(ropts: &RenderOptions) -> npy::NpyOptions<'_> {
    npy::NpyOptions {
        allow_implied: ropts.allow_implied,
        progress: Some(ropts.progress.get()),
    }
}

/// What went wrong writing a .npy: the output failed (an I/O error of the
/// command), or the tensor cannot be exported (said, and the file left
/// out).
enum NpyFailure {
    Io(io::Error),
    Tensor(Error),
}

/// A tensor as .npy in `target` (the stored bytes copied when they already
/// are the body), its failures sorted.
fn npy_to(
    tensor: &Tensor<'_>,
    path: &Path,
    target: &Output,
    nopts: &npy::NpyOptions<'_>,
) -> Result<npy::NpyInfo, NpyFailure> {
    tensor.write_npy_to(target, nopts).map_err(|e| match e {
        Error::Output(e) => NpyFailure::Io(e.into()),
        Error::Npy(NpyError::Io(e)) => {
            NpyFailure::Io(io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        }
        Error::Io(e) => NpyFailure::Io(e),
        e => NpyFailure::Tensor(e),
    })
}

/// --npy: the tensor as a NumPy .npy file.
fn write_npy(
    tensor: &Tensor<'_>,
    path: &Path,
    target: &Output,
    what: &str,
    ropts: &RenderOptions,
) -> io::Result<Result<(), Stop>> {
    match npy_to(tensor, path, target, &npy_options(ropts)) {
        Ok(info) => {
            if let Some(note) = &info.note {
                say!("decode: note: {note}");
            }
            say!(
                "decode: wrote {}: {} {:?}",
                path.display(),
                info.descr,
                info.shape
            );
            Ok(Ok(()))
        }
        Err(NpyFailure::Io(e)) => Err(e),
        Err(NpyFailure::Tensor(e)) => {
            say!("decode: {what}: {e}");
            Ok(Err(Outcome::Rejected))
        }
    }
}

/// --tensor alone: that tensor printed as the root, in text or JSON.
fn show_tensor(
    args: &Args,
    decoded: &Decoded<'_>,
    tensor: &Tensor<'_>,
    ropts: &RenderOptions,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, pbdecode::output::stdout_stream());
    let set = SchemaSet::builtin();
    let message = tensor.message();
    let full_name = &message.def(set).full_name;
    if args.json {
        let mut w = JsonWriter::new(&mut out);
        w.begin_object()?;
        w.member("format", decoded.format.id)?;
        w.member("type", &*full_name.to_string())?;
        w.member("tensor", tensor.name())?;
        w.key("value")?;
        if pbdecode::formats::tensor_adapter(full_name).is_some() {
            json::write_root_message(&mut w, set, message, ropts)?;
        } else {
            json::write_root_message_with_view(&mut w, set, message, &tensor.view(), ropts)?;
        }
        w.end_object()?;
        w.end_line()?;
        w.finish()?;
    } else {
        let mut lines = TextLines::new(&mut out);
        lines.line(format_args!(
            "format: {} ({})",
            decoded.format.id, decoded.format.title
        ))?;
        lines.line(format_args!("tensor: {:?}  ({full_name})", tensor.name()))?;
        lines.blank()?;
        if pbdecode::formats::tensor_adapter(full_name).is_some() {
            tree::tensor_block(lines.view(), set, message, 0, ropts, true)?;
        } else if let Some((sliced, file)) = tensor.v1_slices()
            && tree::tensor_block_of_slices(lines.view(), message, sliced, file, ropts)?
        {
            // Read from the slices, never assembled.
        } else {
            tree::tensor_block_with_view(lines.view(), set, message, &tensor.view(), ropts)?;
        }
    }
    out.flush()
}

/// --npy-dir: every exported tensor as DIR/NAME.npy, every name checked
/// before anything is created.
fn write_npy_dir(
    args: &Args,
    doc: &Document,
    out_dir: &Path,
    ropts: &RenderOptions,
) -> io::Result<Outcome> {
    let export = doc.export_set();
    if export.is_empty() {
        say!("decode: {}: the file has no tensors to export", args.file);
        return Ok(Outcome::Rejected);
    }
    // Every name is checked before anything is created: an existing entry
    // is refused unless --force, and no link in DIR is followed (--force
    // replaces the link itself).
    let mut names = npy::FileNames::new();
    let policy = Policy::in_folder(args.force);
    let mut planned = Vec::new();
    let mut refused = 0u64;
    // Files that already exist (a second export into the same folder) are
    // counted for one line; other refusals are named one by one.
    let mut existing: Vec<PathBuf> = Vec::new();
    for t in &export {
        let Ok(tensor) = doc.tensor(t) else { continue };
        let path = out_dir.join(names.name_for(&t.name));
        match Output::plan(&path, policy) {
            Ok(target) => planned.push((t, tensor, path, target)),
            Err(e @ OutputError::Io { .. }) => return Err(e.into()),
            Err(OutputError::Exists { path }) => {
                refused += 1;
                existing.push(path);
            }
            Err(e) => {
                refused += 1;
                say!("decode: {e}");
            }
        }
    }
    if refused > 0 {
        let hint = if args.force {
            ""
        } else {
            " (--force replaces existing files)"
        };
        let dir = out_dir.display();
        match existing.as_slice() {
            [] => say!(
                "decode: nothing written to {dir}: {refused} of the files cannot be written{hint}"
            ),
            [one] if refused == 1 => {
                say!(
                    "decode: nothing written to {dir}: {} already exists{hint}",
                    one.display()
                );
            }
            [first, ..] if refused == existing.len() as u64 => say!(
                "decode: nothing written to {dir}: {refused} of the files already exist ({} ...){hint}",
                first.display()
            ),
            [first, ..] => say!(
                "decode: nothing written to {dir}: {refused} of the files cannot be written, {} of them because they already exist ({} ...){hint}",
                existing.len(),
                first.display()
            ),
        }
        return Ok(Outcome::Failed);
    }
    pbdecode::output::create_folder(out_dir)?;
    let mut notes: BTreeMap<String, u64> = BTreeMap::new();
    let (mut written, mut failed) = (0u64, 0u64);
    // One bar for the whole export when its values come to more than
    // about a second of writing, moved by each tensor's own steps.
    // From the tensor's facts: its view would read values a bundle
    // reads whole (strings, slices, a big-endian bundle's).
    let size = |tensor: &Tensor<'_>| {
        tensor
            .data_type()
            .and_then(|d| d.size_bits())
            .and_then(|bits| u64::from(bits).checked_mul(tensor.len()))
            .map_or(0, |bits| bits.div_ceil(8))
    };
    let total = planned.iter().fold(0u64, |acc, (_, tensor, ..)| {
        acc.saturating_add(size(tensor))
    });
    let whole = total >= pbdecode::progress::THRESHOLD_BYTES;
    let bar = ropts.progress.get();
    if whole {
        bar.start("writing .npy files", total);
    }
    // Each tensor dropped once written, with any values it read whole.
    for (t, tensor, path, target) in planned {
        let part = pbdecode::progress::Part::new(bar);
        let mut nopts = npy_options(ropts);
        if whole {
            nopts.progress = Some(&part);
        }
        let result = npy_to(&tensor, &path, &target, &nopts);
        if whole {
            bar.advance(size(&tensor).saturating_sub(part.done()));
        }
        match result {
            Ok(info) => {
                written += 1;
                if let Some(note) = info.note {
                    *notes.entry(note).or_default() += 1;
                }
            }
            Err(NpyFailure::Io(e)) => {
                if whole {
                    bar.finish();
                }
                return Err(e);
            }
            Err(NpyFailure::Tensor(e)) => {
                failed += 1;
                bar.suspend(&mut || {
                    say!(
                        "decode: {}: tensor {:?} not written: {e}",
                        args.file,
                        t.name
                    )
                });
            }
        }
    }
    if whole {
        bar.finish();
    }
    for (note, n) in &notes {
        let files = if *n == 1 { "file" } else { "files" };
        say!("decode: note: {note} ({n} {files})");
    }
    say!(
        "decode: wrote {written} of {} tensors to {}",
        export.len(),
        out_dir.display()
    );
    Ok(if failed > 0 {
        Outcome::Rejected
    } else {
        Outcome::Done
    })
}
