//! The explorer's graph request (`/api/graph`) answered from a model: the
//! parameters parsed, the graph laid out, the JSON written. Free of HTTP,
//! so that the server and the static build answer alike.

use super::Model;
use super::layout::{self, Fold};
use super::write::{self, TensorIndex};
use crate::error::DecodeError;
use crate::json_writer::JsonWriter;
use std::io;

/// The parameters, as given (text).
#[derive(Debug, Default, Clone, Copy)]
pub struct Query<'q> {
    /// `g`: the graph id (0 when absent).
    pub graph: Option<&'q str>,
    /// `fold`: `auto` (when absent), `none` or `all`.
    pub fold: Option<&'q str>,
    /// `open`: group ids, comma-separated.
    pub open: Option<&'q str>,
    /// `tensor`: a tensor index, to answer where it is used.
    pub tensor: Option<&'q str>,
    /// `value`: a value name, to answer where it is used.
    pub value: Option<&'q str>,
}

/// Why a graph request is not answered.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("a {0} file has no graph (ONNX models, TensorFlow GraphDefs and SavedModels have)")]
    NotAModel(&'static str),
    #[error(transparent)]
    Decode(DecodeError),
    #[error("{name} takes {expected}")]
    BadParameter {
        name: &'static str,
        expected: &'static str,
    },
    #[error("no graph {0} in this file")]
    NoSuchGraph(usize),
    #[error("no tensor {0} in this file")]
    NoSuchTensor(usize),
    #[error(transparent)]
    Io(#[from] io::Error),
}

fn bad(name: &'static str, expected: &'static str) -> QueryError {
    QueryError::BadParameter { name, expected }
}

/// The answer's JSON (one line) for `query` on `model` (a file of format
/// `format_id`); `tensor_index` names tensors by the offset of their
/// message, `tensor_names` are the names of the tensors by index.
pub fn answer(
    model: &Model,
    format_id: &str,
    query: &Query<'_>,
    tensor_index: TensorIndex<'_>,
    tensor_names: &[&str],
) -> Result<Vec<u8>, QueryError> {
    let mut body = Vec::new();
    let mut w = JsonWriter::new(&mut body);
    if query.tensor.is_some() || query.value.is_some() {
        let (tensor, name) = match query.tensor {
            Some(t) => {
                let i = t
                    .parse::<usize>()
                    .map_err(|_| bad("tensor", "a tensor index"))?;
                let name = tensor_names.get(i).ok_or(QueryError::NoSuchTensor(i))?;
                (Some(i), *name)
            }
            None => (None, query.value.unwrap_or_default()),
        };
        w.begin_object()?;
        w.member("tensor", tensor)?;
        w.member("name", name)?;
        w.key("uses")?;
        write::uses_json(&mut w, model, name, tensor, tensor_index)?;
        w.end_object()?;
    } else {
        let id = match query.graph {
            None => 0,
            Some(g) => g.parse::<usize>().map_err(|_| bad("g", "a graph id"))?,
        };
        let g = model.graphs.get(id).ok_or(QueryError::NoSuchGraph(id))?;
        let fold = match query.fold {
            None => Fold::Auto,
            Some(f) => Fold::parse(f).ok_or_else(|| bad("fold", "auto, none or all"))?,
        };
        let open: Vec<usize> = match query.open.filter(|o| !o.is_empty()) {
            None => Vec::new(),
            Some(o) => o
                .split(',')
                .map(str::parse::<usize>)
                .collect::<Result<_, _>>()
                .map_err(|_| bad("open", "group ids, comma-separated"))?,
        };
        let laid = layout::layout(g, fold, &open);
        w.begin_object()?;
        w.member("format", format_id)?;
        w.key("graphs")?;
        write::graphs_json(&mut w, model)?;
        w.key("graph")?;
        write::graph_json(&mut w, model, id, &laid, tensor_index)?;
        w.end_object()?;
    }
    w.end_line()?;
    w.finish()?;
    Ok(body)
}
