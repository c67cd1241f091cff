//! `--graph dot|svg`: the model's graph drawn, as Graphviz DOT or as the
//! SVG of the explorer's layout, to standard output or `--output`.

use super::args::{Args, FoldArg, GraphFormat};
use super::outcome::Outcome;
use pbdecode::escape::plain;
use pbdecode::formats::Decoded;
use pbdecode::graph::{self, layout, write};
use pbdecode::output::{Output, Policy};
use std::io::{self, BufWriter, Write};

pub(crate) fn run(args: &Args, decoded: &Decoded<'_>) -> io::Result<Outcome> {
    let Some(format) = args.graph else {
        return Ok(Outcome::Usage);
    };
    let Some(model) = graph::model_of(decoded) else {
        say!(
            "decode: {}: {} has no graph (--graph draws ONNX models, TensorFlow GraphDefs and SavedModels)",
            plain(&args.file),
            decoded.format.id
        );
        return Ok(Outcome::Rejected);
    };
    let id = args.graph_id.unwrap_or(0);
    let Some(g) = model.graphs.get(id) else {
        say!(
            "decode: {}: no graph {id} (the file has {})",
            plain(&args.file),
            model.graphs.len()
        );
        return Ok(Outcome::Usage);
    };
    let fold = match args.fold {
        FoldArg::Auto => layout::Fold::Auto,
        FoldArg::None => layout::Fold::None,
        FoldArg::All => layout::Fold::All,
    };
    let laid = layout::layout(g, fold, &[]);
    let produce = |w: &mut dyn Write| -> io::Result<()> {
        let mut w = BufWriter::with_capacity(1 << 16, w);
        match format {
            GraphFormat::Dot => write::write_dot(&mut w, g, &laid)?,
            GraphFormat::Svg => write::write_svg(&mut w, g, &laid)?,
        }
        w.flush()
    };
    match &args.output {
        None => produce(&mut pbdecode::output::stdout_stream())?,
        Some(path) => Output::write_path(path, Policy::named(), produce)??,
    }
    Ok(Outcome::Done)
}
