//! `--picture`, `--npy`, `--npy-dir` and `--tensor`: pick tensors out of the
//! decoded file and write them as pictures, .npy files or on their own.

use super::Args;
use super::Outcome;
use pbdecode::decode::Message;
use pbdecode::formats::{self, Body, Decoded};
use pbdecode::input::InputBytes;
use pbdecode::output::{Output, OutputError, Policy};
use pbdecode::render::fmt::TextLines;
use pbdecode::render::{RenderOptions, json, text};
use pbdecode::schema::SchemaSet;
use pbdecode::tensor::TensorView;
use pbdecode::{npy, picture};
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Checks an output path the user named (--picture, --npy) before anything
/// is computed or created.
fn plan_named(path: &Path) -> io::Result<Output> {
    Ok(Output::plan(path, Policy::named())?)
}

/// Up to ten tensor names, for messages.
fn some_names(tensors: &[formats::NamedTensor<'_, '_>]) -> String {
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

/// The end of a step: the command stops with this exit status.
type Stop = Outcome;

/// --picture, --npy, --npy-dir and --tensor: pick the tensor(s), write the
/// files; with --tensor alone, show that tensor.
pub(crate) fn tensor_outputs(
    args: &Args,
    input: &InputBytes,
    decoded: &Decoded<'_>,
    ropts: &RenderOptions,
) -> io::Result<Outcome> {
    let set = SchemaSet::builtin();
    let Body::Message { message: root, .. } = &decoded.body else {
        say!(
            "decode: {}: read without a schema, so it has no tensors to pick",
            args.file
        );
        return Ok(Outcome::Rejected);
    };
    let tensors = formats::named_tensors(set, root);
    let single = args.picture.is_some() || args.npy.is_some() || args.npy_dir.is_none();
    // Refuse a bad output path before any work (the input itself, a
    // directory, a FIFO, ...).
    let picture_out = args.picture.as_deref().map(plan_named).transpose()?;
    let npy_out = args.npy.as_deref().map(plan_named).transpose()?;
    if single {
        let chosen = match choose(args, root, &tensors) {
            Ok(t) => t,
            Err(code) => return Ok(code),
        };
        let Some(view) = chosen.view(set) else {
            say!("decode: {}: {:?} is not a tensor", args.file, chosen.name);
            return Ok(Outcome::Rejected);
        };
        let what = if std::ptr::eq(chosen.message, root) {
            args.file.clone()
        } else {
            format!("{}: tensor {:?}", args.file, chosen.name)
        };
        if let (Some(path), Some(target)) = (&args.picture, &picture_out)
            && let Err(code) = write_picture(&view, path, target, &what, ropts)?
        {
            return Ok(code);
        }
        if let (Some(path), Some(target)) = (&args.npy, &npy_out)
            && let Err(code) = write_npy(&view, path, target, input, &what, ropts)?
        {
            return Ok(code);
        }
        if args.picture.is_none() && args.npy.is_none() {
            // --tensor alone: show that tensor as the root.
            show_tensor(args, decoded, set, chosen, ropts)?;
        }
    }
    match &args.npy_dir {
        Some(out_dir) => write_npy_dir(args, set, input, tensors, out_dir, ropts),
        None => Ok(Outcome::Done),
    }
}

/// The tensor --tensor names, or the file's own tensor when it is one.
fn choose<'t, 'm, 'a>(
    args: &Args,
    root: &Message<'a>,
    tensors: &'t [formats::NamedTensor<'m, 'a>],
) -> Result<&'t formats::NamedTensor<'m, 'a>, Stop> {
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
                say!(
                    "decode: {}: no tensor {name:?}; tensors: {}",
                    args.file,
                    some_names(tensors)
                );
                Err(Outcome::Rejected)
            }
        },
        None => match tensors.iter().find(|t| std::ptr::eq(t.message, root)) {
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

/// --picture: the tensor drawn as a PNG file.
fn write_picture(
    view: &TensorView<'_, '_>,
    path: &Path,
    target: &Output,
    what: &str,
    ropts: &RenderOptions,
) -> io::Result<Result<(), Stop>> {
    let pic = match picture::picture(view, ropts.dir.as_deref()) {
        Ok(p) => p,
        Err(picture::PictureError::Io(e)) => return Err(e),
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

/// A tensor as .npy in `target`: when the stored bytes already are the
/// body, the header and those bytes copied from the file (`input` or the
/// side file) in the kernel; else the values converted one by one.
fn npy_to<'v>(
    view: &TensorView<'v, 'v>,
    target: &Output,
    input: &InputBytes,
    dir: Option<&Path>,
    nopts: &npy::NpyOptions<'_>,
) -> Result<Result<npy::NpyInfo, npy::NpyError>, OutputError> {
    match npy::raw_npy(view, dir, nopts) {
        Ok(Some(raw)) => {
            target.write_copy(
                "writing .npy",
                &raw.header,
                raw.body(),
                raw.file_range(input),
                nopts.progress,
            )?;
            Ok(Ok(raw.info))
        }
        Ok(None) => target.write(|w| npy::write_npy_converted(view, dir, w, nopts)),
        Err(e) => Ok(Err(e)),
    }
}

/// --npy: the tensor as a NumPy .npy file.
fn write_npy(
    view: &TensorView<'_, '_>,
    path: &Path,
    target: &Output,
    input: &InputBytes,
    what: &str,
    ropts: &RenderOptions,
) -> io::Result<Result<(), Stop>> {
    let nopts = npy_options(ropts);
    match npy_to(view, target, input, ropts.dir.as_deref(), &nopts)? {
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
        Err(npy::NpyError::Io(e)) => {
            Err(io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        }
        Err(e) => {
            say!("decode: {what}: {e}");
            Ok(Err(Outcome::Rejected))
        }
    }
}

/// --tensor alone: that tensor printed as the root, in text or JSON.
fn show_tensor(
    args: &Args,
    decoded: &Decoded<'_>,
    set: &SchemaSet,
    chosen: &formats::NamedTensor<'_, '_>,
    ropts: &RenderOptions,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, pbdecode::output::stdout_stream());
    let full_name = &chosen.message.def(set).full_name;
    if args.json {
        write!(out, "{{\"format\": ")?;
        json::string(&mut out, decoded.format.id)?;
        write!(out, ", \"type\": ")?;
        json::string(&mut out, &full_name.to_string())?;
        write!(out, ", \"tensor\": ")?;
        json::string(&mut out, &chosen.name)?;
        write!(out, ", \"value\": ")?;
        json::write_root_message(&mut out, set, chosen.message, ropts)?;
        writeln!(out, "}}")?;
    } else {
        let mut lines = TextLines::new(&mut out);
        lines.line(format_args!(
            "format: {} ({})",
            decoded.format.id, decoded.format.title
        ))?;
        lines.line(format_args!("tensor: {:?}  ({full_name})", chosen.name))?;
        lines.blank()?;
        text::tensor_block(lines.view(), set, chosen.message, 0, ropts, true)?;
    }
    out.flush()
}

/// --npy-dir: every exported tensor as DIR/NAME.npy, every name checked
/// before anything is created.
fn write_npy_dir(
    args: &Args,
    set: &SchemaSet,
    input: &InputBytes,
    tensors: Vec<formats::NamedTensor<'_, '_>>,
    out_dir: &Path,
    ropts: &RenderOptions,
) -> io::Result<Outcome> {
    let dir = ropts.dir.as_deref();
    let export = npy::export_set(tensors);
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
    for t in &export {
        let Some(view) = t.view(set) else { continue };
        let path = out_dir.join(names.name_for(&t.name));
        match Output::plan(&path, policy) {
            Ok(target) => planned.push((t, view, path, target)),
            Err(e @ OutputError::Io { .. }) => return Err(e.into()),
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
        say!(
            "decode: nothing written to {}: {refused} of the files cannot be written{hint}",
            out_dir.display()
        );
        return Ok(Outcome::Failed);
    }
    pbdecode::output::create_folder(out_dir)?;
    let mut notes: BTreeMap<String, u64> = BTreeMap::new();
    let (mut written, mut failed) = (0u64, 0u64);
    // One bar for the whole export when its values come to more than
    // about a second of writing, moved by each tensor's own steps.
    let size = |view: &TensorView<'_, '_>| {
        view.elem
            .and_then(|e| pbdecode::tensor::raw_size(e, view.elements))
            .unwrap_or(0)
    };
    let total = planned
        .iter()
        .fold(0u64, |acc, (_, view, ..)| acc.saturating_add(size(view)));
    let whole = total >= pbdecode::progress::THRESHOLD_BYTES;
    let bar = ropts.progress.get();
    if whole {
        bar.start("writing .npy files", total);
    }
    for (t, view, path, target) in &planned {
        let part = pbdecode::progress::Part::new(bar);
        let mut nopts = npy_options(ropts);
        if whole {
            nopts.progress = Some(&part);
        }
        let result = npy_to(view, target, input, dir, &nopts);
        if whole {
            bar.advance(size(view).saturating_sub(part.done()));
        }
        let result = match result {
            Ok(r) => r,
            Err(e) => {
                if whole {
                    bar.finish();
                }
                return Err(e.into());
            }
        };
        match result {
            Ok(info) => {
                written += 1;
                if let Some(note) = info.note {
                    *notes.entry(note).or_default() += 1;
                }
            }
            Err(npy::NpyError::Io(e)) => {
                if whole {
                    bar.finish();
                }
                return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display())));
            }
            Err(e) => {
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
