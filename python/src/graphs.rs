//! A model's graphs for `File.graphs` (ONNX's main graph, its subgraphs
//! and functions; a GraphDef's or SavedModel's graphs and library
//! functions), as the Graph tab reads them: each node's op type, name,
//! domain, inputs, outputs and attributes (their text as the views print
//! it; a tensor attribute as the index of its tensor in the file's list).

use crate::Doc;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The graphs of the document, as a list of dicts; None for a file that
/// is no model.
#[pyfunction]
pub fn graphs<'py>(py: Python<'py>, doc: &Doc) -> PyResult<Option<Bound<'py, PyList>>> {
    let model = py
        .detach(|| doc.doc.graphs())
        .map_err(|e| crate::to_py(py, e))?;
    let Some(model) = model else {
        return Ok(None);
    };
    // Tensor messages by offset -> the index of the facade's tensor.
    let by_offset: std::collections::HashMap<u64, usize> = doc
        .doc
        .tensors()
        .iter()
        .enumerate()
        .map(|(i, t)| (t.range.start, i))
        .collect();
    let tensor = |offset: Option<u64>| offset.and_then(|o| by_offset.get(&o).copied());
    let out = PyList::empty(py);
    for g in &model.graphs {
        let d = PyDict::new(py);
        d.set_item("kind", g.kind.name())?;
        d.set_item("name", &g.name)?;
        d.set_item(
            "owner",
            g.owner
                .as_ref()
                .map(|o| (o.graph, o.node, o.attribute.clone())),
        )?;
        let value_name = |v: Option<usize>| {
            v.and_then(|v| g.values.get(v))
                .map_or(String::new(), |v| v.name.clone())
        };
        d.set_item(
            "inputs",
            g.inputs.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "outputs",
            g.outputs.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        )?;
        let weights = PyDict::new(py);
        for v in &g.values {
            if let Some(i) = v.weight.as_ref().and_then(|w| tensor(w.tensor)) {
                weights.set_item(&v.name, i)?;
            }
        }
        d.set_item("weights", weights)?;
        let nodes = PyList::empty(py);
        for n in &g.nodes {
            let nd = PyDict::new(py);
            nd.set_item("name", &n.name)?;
            nd.set_item("op_type", &n.op)?;
            nd.set_item("domain", &n.domain)?;
            nd.set_item("version", n.version)?;
            let slots = |s: &[pbdecode::graph::Slot]| -> Vec<String> {
                s.iter()
                    .map(|x| {
                        let name = value_name(x.value);
                        if x.control { format!("^{name}") } else { name }
                    })
                    .collect()
            };
            nd.set_item("inputs", slots(&n.inputs))?;
            nd.set_item("outputs", slots(&n.outputs))?;
            let attrs = PyList::empty(py);
            for a in &n.attributes {
                let tensors: Vec<Option<usize>> =
                    a.tensors.iter().map(|&o| tensor(Some(o))).collect();
                attrs.append((
                    a.name.clone(),
                    a.text.clone(),
                    tensor(a.tensor),
                    tensors,
                    a.graphs.clone(),
                ))?;
            }
            nd.set_item("attributes", attrs)?;
            nd.set_item("subgraphs", n.subgraphs.clone())?;
            nd.set_item("calls", n.calls.clone())?;
            nd.set_item("doc", &n.doc)?;
            nodes.append(nd)?;
        }
        d.set_item("nodes", nodes)?;
        out.append(d)?;
    }
    Ok(Some(out))
}
