//! `decode diff EXPECTED ACTUAL`: two tensor files (or sequences, maps,
//! optionals), two models, or two folders file by file, compared the way
//! ONNX's backend tests compare outputs. Exit 0 within tolerance, 1 not,
//! 2 usage or I/O errors.

use super::args::DiffArgs;
use super::outcome::Outcome;
use pbdecode::diff::{self, Compared, DiffOptions, Entry};
use pbdecode::escape::TextLines;
use pbdecode::formats::{AsFormat, Body, Decoded, FormatOptions};
use pbdecode::input::{exit_on_mapping_fault, open_input};
use pbdecode::json_writer::JsonWriter;
use pbdecode::output::{Output, Policy};
use pbdecode::syntax::WireInput;
use pbdecode::testdata::{self, ModelCache};
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The outcome of one pair.
enum Pair {
    Passed,
    Failed,
    /// Not compared (I/O error, undecodable, different kinds of files).
    Error,
}

/// Runs `decode diff`.
pub fn run(args: &DiffArgs) -> io::Result<Outcome> {
    // A file cut short while it is compared: a message and status 2, not
    // a death by SIGBUS (see `exit_on_mapping_fault`).
    exit_on_mapping_fault(
        "decode diff: a file being compared (or its model or external data) was cut short by another program (truncated while mapped); stopped\n".into(),
    )?;
    let show = usize::try_from(args.values).unwrap_or(usize::MAX);
    if !(args.rtol >= 0.0 && args.atol >= 0.0) {
        say!("decode diff: --rtol and --atol must be numbers >= 0");
        return Ok(Outcome::Usage);
    }
    let mut opts = DiffOptions::default();
    (opts.rtol, opts.atol, opts.show) = (args.rtol, args.atol, show);
    let mut out = BufWriter::with_capacity(1 << 16, pbdecode::output::stdout_stream());
    let cache = ModelCache::default();
    let (de, da) = (args.expected.is_dir(), args.actual.is_dir());
    let outcome = if de && da {
        if args.picture.is_some() {
            say!("decode diff: --picture takes two files");
            return Ok(Outcome::Usage);
        }
        folders(&mut out, args, &opts, &cache)?
    } else if de || da {
        say!("decode diff: compare a folder with a folder, a file with a file");
        return Ok(Outcome::Usage);
    } else {
        let r = pair(
            &mut out,
            args,
            &args.expected,
            &args.actual,
            &opts,
            &cache,
            true,
        )?;
        vec![r]
    };
    out.flush()?;
    Ok(if outcome.iter().any(|p| matches!(p, Pair::Error)) {
        Outcome::Failed
    } else if outcome.iter().any(|p| matches!(p, Pair::Failed)) {
        Outcome::Rejected
    } else {
        Outcome::Done
    })
}

/// Every file under `dir`, as paths relative to it, and the folders that
/// could not be read (relative too), with the reason.
fn relative_files(dir: &Path) -> (Vec<PathBuf>, BTreeMap<PathBuf, String>) {
    let mut files = Vec::new();
    let not_read = pbdecode::batch::collect_files(dir, &mut files);
    let relative = |f: &Path| f.strip_prefix(dir).ok().map(Path::to_path_buf);
    (
        files.iter().filter_map(|f| relative(f)).collect(),
        not_read
            .into_iter()
            .filter_map(|(f, why)| Some((relative(&f)?, why)))
            .collect(),
    )
}

fn folders(
    out: &mut dyn Write,
    args: &DiffArgs,
    opts: &DiffOptions,
    cache: &ModelCache,
) -> io::Result<Vec<Pair>> {
    let (xs, mut not_read) = relative_files(&args.expected);
    let (ys, not_read_y) = relative_files(&args.actual);
    not_read.extend(not_read_y);
    let xs: std::collections::HashSet<PathBuf> = xs.into_iter().collect();
    let ys: std::collections::HashSet<PathBuf> = ys.into_iter().collect();
    let mut all: Vec<PathBuf> = xs.union(&ys).cloned().collect();
    all.sort();
    let mut outcomes = Vec::new();
    // A folder of either side that could not be read: an error line, and
    // the rest compared.
    for (rel, why) in &not_read {
        if args.json {
            let mut w = JsonWriter::new(out);
            w.begin_object()?;
            w.path_member("file", rel)?;
            w.member("error", why)?;
            w.end_object()?;
            w.end_line()?;
            w.finish()?;
        } else {
            TextLines::new(out).line(format_args!("== {}: {why}", rel.display()))?;
        }
        say!("decode diff: {}: {why}", rel.display());
        outcomes.push(Pair::Error);
    }
    let (mut passed, mut failed, mut missing) = (0, 0, 0);
    for rel in &all {
        let (inx, iny) = (xs.contains(rel), ys.contains(rel));
        if !(inx && iny) {
            missing += 1;
            let side = if inx { "expected" } else { "actual" };
            if args.json {
                let mut w = JsonWriter::new(out);
                w.begin_object()?;
                w.path_member("file", rel)?;
                w.member("only_in", side)?;
                w.member("passed", false)?;
                w.end_object()?;
                w.end_line()?;
                w.finish()?;
            } else {
                TextLines::new(out).line(format_args!("== {}: only in {side}", rel.display()))?;
            }
            outcomes.push(Pair::Failed);
            continue;
        }
        let r = pair(
            out,
            args,
            &args.expected.join(rel),
            &args.actual.join(rel),
            opts,
            cache,
            false,
        )?;
        match r {
            Pair::Passed => passed += 1,
            _ => failed += 1,
        }
        outcomes.push(r);
    }
    if !args.json {
        let mut out = TextLines::new(out);
        out.blank()?;
        out.line(format_args!(
            "{} files: {passed} within tolerance, {failed} not, {missing} on one side only",
            all.len()
        ))?;
    }
    Ok(outcomes)
}

fn decode_side<'a>(
    path: &Path,
    input: &'a WireInput,
    cache: &ModelCache,
) -> Result<Decoded<'a>, String> {
    let ctx = testdata::file_context(path, None, cache);
    let (d, _) = testdata::decode_source(input, ctx.as_ref(), &FormatOptions::default());
    d.map_err(|r| format!("{}: not decoded: {}", path.display(), r.error))
}

/// A side opened: a text-format file as the binary form of its message.
fn open_side(path: &Path) -> Result<WireInput, String> {
    let input = open_input(path).map_err(|e| format!("{}: {e}", path.display()))?;
    WireInput::new(std::sync::Arc::new(input), AsFormat::Auto)
        .map_err(|r| format!("{}: not decoded: {}", path.display(), r.error))
}

/// `"expected": ..., "actual": ...` (with `_bytes` for a name that is not
/// UTF-8).
fn sides_json(w: &mut JsonWriter<'_>, xp: &Path, yp: &Path) -> io::Result<()> {
    w.path_member("expected", xp)?;
    w.path_member("actual", yp)
}

fn type_of<'d>(d: &'d Decoded<'_>) -> &'d str {
    match &d.body {
        Body::Message { type_name, .. } | Body::UserMessage { type_name, .. } => type_name,
        Body::Schemaless(_) | Body::Records(_) => "(no schema)",
        Body::Bundle(_) => "(tensor bundle)",
    }
}

/// A model-shaped comparison (two models, or two sets of variables): one
/// JSON line (the sides, `type`, `passed`, the findings under `model` or
/// `variables`), or its text report and result line.
fn model_diff(
    out: &mut dyn Write,
    (xp, yp): (&Path, &Path),
    single: bool,
    compared: Compared,
    d: &diff::ModelDiff,
    header: &dyn Fn(&mut TextLines<'_>) -> io::Result<()>,
    json: bool,
) -> io::Result<Pair> {
    let passed = d.passes();
    let (ty, key, differ) = match compared {
        Compared::Models => ("onnx.ModelProto", "model", "the models differ"),
        Compared::Variables => ("variables", "variables", "the variables differ"),
    };
    if json {
        let mut w = JsonWriter::new(out);
        w.begin_object()?;
        sides_json(&mut w, xp, yp)?;
        w.member("type", ty)?;
        w.member("passed", passed)?;
        w.key(key)?;
        diff::write_model_json(&mut w, d)?;
        w.end_object()?;
        w.end_line()?;
        w.finish()?;
    } else {
        let mut out = TextLines::new(out);
        header(&mut out)?;
        if single {
            out.line(format_args!("expected: {} ({ty})", xp.display()))?;
            out.line(format_args!("actual:   {} ({ty})", yp.display()))?;
        }
        diff::write_model_text(&mut out, d, compared)?;
        out.line(format_args!(
            "result: {}",
            if passed {
                "the same within tolerance"
            } else {
                differ
            }
        ))?;
    }
    Ok(if passed { Pair::Passed } else { Pair::Failed })
}

/// The variables of two checkpoints (or a checkpoint and a SavedModel),
/// matched by object path (a checkpoint key without its
/// `/.ATTRIBUTES/VARIABLE_VALUE`), compared as tensors (strings,
/// partitioned and big-endian ones included); a variable whose values
/// neither side can read is left out.
fn compare_variables(
    x: &pbdecode::Document,
    y: &pbdecode::Document,
    dirs: (Option<&pbdecode::Folder>, Option<&pbdecode::Folder>),
    opts: &DiffOptions,
) -> diff::ModelDiff {
    use pbdecode::formats::tf_checkpoint::variable_name;
    let vars = |d: &pbdecode::Document| -> Vec<(String, pbdecode::TensorRef)> {
        d.tensors()
            .iter()
            .filter(|t| t.role == pbdecode::Role::Variable)
            // The object graph is the checkpoint's own, not a variable.
            .filter(|t| t.name.as_bytes() != pbdecode::formats::tf_checkpoint::OBJECT_GRAPH_KEY)
            .map(|t| (variable_name(t.name.as_bytes()), t.clone()))
            .collect()
    };
    let (vx, vy) = (vars(x), vars(y));
    let mut out = diff::ModelDiff::default();
    let unreadable = |v: &pbdecode::tensor::TensorView<'_, '_>| {
        matches!(v.data, pbdecode::tensor::TensorData::Unavailable(_))
    };
    for (name, rx) in &vx {
        let Some((_, ry)) = vy.iter().find(|(n, _)| n == name) else {
            out.initializers
                .push((name.clone(), diff::InitFinding::OnlyExpected));
            continue;
        };
        let (Ok(tx), Ok(ty)) = (x.tensor(rx), y.tensor(ry)) else {
            continue;
        };
        let (a, b) = (tx.view(), ty.view());
        if unreadable(&a) && unreadable(&b) {
            continue;
        }
        let d = diff::compare_views(&a, &b, dirs, opts);
        if d.verdict.passes() {
            out.same_initializers += 1;
        } else {
            out.initializers
                .push((name.clone(), diff::InitFinding::Tensor(Box::new(d))));
        }
    }
    for (name, _) in &vy {
        if !vx.iter().any(|(n, _)| n == name) {
            out.initializers
                .push((name.clone(), diff::InitFinding::OnlyActual));
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn pair(
    out: &mut dyn Write,
    args: &DiffArgs,
    xp: &Path,
    yp: &Path,
    opts: &DiffOptions,
    cache: &ModelCache,
    single: bool,
) -> io::Result<Pair> {
    let shown = |p: &Path| p.display().to_string();
    let header = |out: &mut TextLines<'_>| -> io::Result<()> {
        if !single && !args.json {
            out.line(format_args!(
                "== {}",
                if xp.file_name() == yp.file_name() {
                    xp.strip_prefix(&args.expected)
                        .unwrap_or(xp)
                        .display()
                        .to_string()
                } else {
                    shown(xp)
                }
            ))?;
        }
        Ok(())
    };
    let fail = |out: &mut dyn Write, msg: String| -> io::Result<Pair> {
        if args.json {
            let mut w = JsonWriter::new(out);
            w.begin_object()?;
            sides_json(&mut w, xp, yp)?;
            w.member("error", &msg)?;
            w.end_object()?;
            w.end_line()?;
            w.finish()?;
        } else {
            let mut out = TextLines::new(out);
            header(&mut out)?;
            out.line(format_args!("error: {msg}"))?;
        }
        say!("decode diff: {msg}");
        Ok(Pair::Error)
    };
    let (xi, yi) = match (open_side(xp), open_side(yp)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return fail(out, e),
    };
    // Checked once the inputs are open, so that neither is replaced, and
    // before any work.
    let picture_out = args.picture.as_deref().map(plan_picture).transpose()?;
    let (x, y) = match (decode_side(xp, &xi, cache), decode_side(yp, &yi, cache)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return fail(out, e),
    };
    let dirs = (
        Some(pbdecode::Folder::Disk(pbdecode::batch::parent_dir(xp))),
        Some(pbdecode::Folder::Disk(pbdecode::batch::parent_dir(yp))),
    );
    let dirs = (dirs.0.as_ref(), dirs.1.as_ref());
    // Checkpoints, and a checkpoint against a SavedModel: their variables.
    let holds_variables = |d: &Decoded<'_>| {
        matches!(d.body, Body::Bundle(_))
            || d.format.id == pbdecode::formats::tensorflow::SAVED_MODEL.id
    };
    if (matches!(x.body, Body::Bundle(_)) || matches!(y.body, Body::Bundle(_)))
        && holds_variables(&x)
        && holds_variables(&y)
    {
        let (dx, dy) = match (pbdecode::open(xp), pbdecode::open(yp)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return fail(out, e.to_string()),
        };
        let d = compare_variables(&dx, &dy, dirs, opts);
        return model_diff(
            out,
            (xp, yp),
            single,
            Compared::Variables,
            &d,
            &header,
            args.json,
        );
    }
    let (Body::Message { message: mx, .. }, Body::Message { message: my, .. }) = (&x.body, &y.body)
    else {
        return fail(out, "only ONNX values and models are compared".into());
    };
    let (tx, ty) = (type_of(&x).to_string(), type_of(&y).to_string());
    if tx == "onnx.ModelProto" && ty == "onnx.ModelProto" {
        let d = diff::compare_models(
            (mx, xi.binary.bytes(), dirs.0),
            (my, yi.binary.bytes(), dirs.1),
            opts,
        );
        return model_diff(
            out,
            (xp, yp),
            single,
            Compared::Models,
            &d,
            &header,
            args.json,
        );
    }
    if let Some(png) = &picture_out {
        let set = pbdecode::schema::SchemaSet::builtin();
        if tx != "onnx.TensorProto" || ty != "onnx.TensorProto" {
            say!("decode diff: --picture draws two tensors, not {tx} and {ty}");
            return Ok(Pair::Error);
        }
        let (vx, vy) = (
            pbdecode::formats::onnx_tensor::view(set, mx),
            pbdecode::formats::onnx_tensor::view(set, my),
        );
        match diff::difference_png(&vx, &vy, dirs) {
            Ok(bytes) => png.write(|w| w.write_all(&bytes))??,
            Err(e) => {
                say!("decode diff: no picture: {e}");
                return Ok(Pair::Error);
            }
        }
    }
    // Each finding is written as it is made (a sequence of a million
    // tensors is never held as a million reports): JSON says whether the
    // pair passed after its entries, text in its closing result line.
    let tally = if args.json {
        let mut w = JsonWriter::new(out);
        w.begin_object()?;
        sides_json(&mut w, xp, yp)?;
        w.member("type", &tx)?;
        if tx != ty {
            w.member("actual_type", &ty)?;
        }
        w.key("entries")?;
        w.begin_array()?;
        let tally = diff::compare_messages_each(mx, my, dirs, opts, &mut |e| {
            diff::write_entry_json(&mut w, &e)
        })?;
        w.end_array()?;
        w.member("passed", tally.differing == 0)?;
        w.end_object()?;
        w.end_line()?;
        w.finish()?;
        tally
    } else {
        let mut out = TextLines::new(out);
        header(&mut out)?;
        if single {
            out.line(format_args!("expected: {} ({tx})", shown(xp)))?;
            out.line(format_args!("actual:   {} ({ty})", shown(yp)))?;
        }
        // A lone finding at the root is written bare; anything more, each
        // under its path. The first finding waits for the second to know.
        let mut nested = false;
        let mut held: Option<Entry> = None;
        let tally = diff::compare_messages_each(mx, my, dirs, opts, &mut |e| {
            if !nested && held.is_none() && e.path.is_empty() {
                held = Some(e);
                return Ok(());
            }
            nested = true;
            if let Some(first) = held.take() {
                diff::write_entry_text(&mut out, &first, true)?;
            }
            diff::write_entry_text(&mut out, &e, true)
        })?;
        if let Some(only) = held {
            diff::write_entry_text(&mut out, &only, false)?;
        }
        if nested || tally.entries == 0 {
            diff::write_result_line(&mut out, tally.differing, tally.entries)?;
        }
        tally
    };
    Ok(if tally.differing == 0 {
        Pair::Passed
    } else {
        Pair::Failed
    })
}

/// Where `--picture` goes: a path checked by the one writer of files
/// ([`Output`]); standard output carries the report, so not there.
fn plan_picture(path: &Path) -> io::Result<Output> {
    match Output::plan(path, Policy::named())? {
        Output::Stdout => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--picture {}: standard output carries the comparison; give a file name",
                path.display()
            ),
        )),
        target => Ok(target),
    }
}
