//! Models as graphs: the nodes, values and subgraphs of an ONNX model or a
//! TensorFlow GraphDef/SavedModel ([`model_of`]), their layered layout
//! ([`layout`]), and the graph written as the explorer's JSON, Graphviz DOT
//! or SVG ([`write`]).
//!
//! Every graph of a file gets an id (its place in [`Model::graphs`]): the
//! main graph first, then each subgraph an attribute holds (ONNX If, Loop,
//! Scan, ...) in the order they are found, then the functions. Subgraphs
//! are walked with a queue, never by recursion, and the number of graphs
//! is capped ([`MAX_GRAPHS`]). A value is known by its name within its
//! graph: made by at most one node (or a graph input), read by any number
//! of nodes (or graph outputs).

pub mod layout;
pub mod op_schemas;
pub mod ops;
pub mod query;
pub mod tf_op_defs;
pub mod write;

use crate::decode::{Message, Value};
use crate::fields::onnx::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use crate::fields::paddle::framework::proto as pd;
use crate::fields::tensorflow as tf;
use crate::formats::{self, Body, Decoded, onnx_tensor, tensorflow};
use crate::render::{RenderOptions, onnx_view, tf_view};
use crate::schema::SchemaSet;
use ops::Kind;
use std::collections::{HashMap, VecDeque};

/// The most graphs read from one file (subgraphs and functions included);
/// the rest are left out and [`Model::truncated`] says so.
pub const MAX_GRAPHS: usize = 100_000;
/// Name scopes deeper than this are not split further.
const MAX_SCOPE_DEPTH: usize = 32;
/// Names longer than this are not split into scopes.
const MAX_SCOPE_NAME: usize = 4096;

/// The graphs of a file.
#[derive(Debug, Default)]
pub struct Model {
    pub graphs: Vec<Graph>,
    /// Whether graphs past [`MAX_GRAPHS`] were left out.
    pub truncated: bool,
}

/// What a graph is to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphKind {
    Main,
    Subgraph,
    Function,
}

impl GraphKind {
    pub fn name(self) -> &'static str {
        match self {
            GraphKind::Main => "main",
            GraphKind::Subgraph => "subgraph",
            GraphKind::Function => "function",
        }
    }
}

/// The node and attribute that hold a subgraph.
#[derive(Debug, Clone)]
pub struct Owner {
    pub graph: usize,
    pub node: usize,
    pub attribute: String,
}

/// One graph: nodes, its input and output boxes, and its values.
#[derive(Debug)]
pub struct Graph {
    pub kind: GraphKind,
    pub name: String,
    pub owner: Option<Owner>,
    pub nodes: Vec<Node>,
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    pub values: Vec<ValueInfo>,
    value_ids: HashMap<String, usize>,
}

/// A graph input or output box.
#[derive(Debug)]
pub struct Port {
    pub name: String,
    /// The value it makes (an input) or reads (an output).
    pub value: usize,
}

/// An end of a value: what makes it or reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum End {
    Node(usize),
    Input(usize),
    Output(usize),
}

/// A value of a graph, by name.
#[derive(Debug, Default)]
pub struct ValueInfo {
    pub name: String,
    /// The element type (`FLOAT`, `DT_FLOAT`), empty when not declared.
    pub ty: String,
    /// The shape (`1x3x224x224`, `?x3`), empty when not declared.
    pub shape: String,
    pub producer: Option<End>,
    pub consumers: Vec<End>,
    /// An initializer, or the tensor of the constant node that makes it.
    pub weight: Option<Weight>,
    /// A TensorFlow control dependency (`^name`).
    pub control: bool,
}

impl ValueInfo {
    /// Adds a node or graph output that reads the value, once: a node that
    /// reads it in two inputs (`Add(x, x)`) is one edge, as it is drawn.
    /// A node's inputs are added one after another, so a repeat is the
    /// last one added.
    fn add_consumer(&mut self, end: End) {
        if self.consumers.last() != Some(&end) {
            self.consumers.push(end);
        }
    }
}

/// A tensor stored in the file.
#[derive(Debug, Clone, Default)]
pub struct Weight {
    /// The byte offset of its tensor message (the facade's tensors are
    /// found by it); None for a tensor the index does not hold.
    pub tensor: Option<u64>,
}

/// A node.
#[derive(Debug, Default)]
pub struct Node {
    pub name: String,
    pub op: String,
    pub domain: String,
    pub version: Option<i64>,
    pub kind: Option<Kind>,
    pub inputs: Vec<Slot>,
    pub outputs: Vec<Slot>,
    pub attributes: Vec<Attribute>,
    pub doc: String,
    /// The graphs its attributes hold.
    pub subgraphs: Vec<usize>,
    /// The functions it calls.
    pub calls: Vec<usize>,
    /// The function names its attributes give, before they are resolved.
    called: Vec<String>,
}

impl Node {
    pub fn kind(&self) -> Kind {
        self.kind.unwrap_or(Kind::Other)
    }
}

/// One input or output of a node.
#[derive(Debug)]
pub struct Slot {
    /// The value, None for an omitted optional input (`""`).
    pub value: Option<usize>,
    /// The operator's formal name for it (empty when unknown).
    pub formal: String,
    pub control: bool,
}

/// An attribute as the text view prints it.
#[derive(Debug)]
pub struct Attribute {
    pub name: String,
    pub text: String,
    /// The offset of its tensor message, for a tensor-valued attribute.
    pub tensor: Option<u64>,
    /// The offsets of the tensor messages of a list of tensors (ONNX
    /// TENSORS, a TensorFlow list of tensors), in order.
    pub tensors: Vec<u64>,
    /// The graphs it holds (ONNX GRAPH or GRAPHS), in order.
    pub graphs: Vec<usize>,
}

impl Graph {
    fn new(kind: GraphKind, name: String, owner: Option<Owner>) -> Graph {
        Graph {
            kind,
            name,
            owner,
            nodes: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            values: Vec::new(),
            value_ids: HashMap::new(),
        }
    }

    /// The id of the value named `name`, made when first named.
    fn value(&mut self, name: &str) -> usize {
        if let Some(&id) = self.value_ids.get(name) {
            return id;
        }
        let id = self.values.len();
        self.values.push(ValueInfo {
            name: name.to_string(),
            ..ValueInfo::default()
        });
        self.value_ids.insert(name.to_string(), id);
        id
    }

    /// The value named `name`, if the graph names it.
    pub fn value_named(&self, name: &str) -> Option<&ValueInfo> {
        self.value_ids.get(name).and_then(|&id| self.values.get(id))
    }

    fn value_mut(&mut self, id: usize) -> Option<&mut ValueInfo> {
        self.values.get_mut(id)
    }

    /// Every edge: one per value and consumer (each consumer once) that
    /// has a producer.
    pub fn edge_count(&self) -> usize {
        self.values
            .iter()
            .filter(|v| v.producer.is_some())
            .map(|v| v.consumers.len())
            .sum()
    }

    /// The weights node `n` reads: (input position, formal name, value)
    /// for each input that is an initializer or a constant's output.
    pub fn weights(&self, n: usize) -> Vec<(usize, &str, &ValueInfo)> {
        let Some(node) = self.nodes.get(n) else {
            return Vec::new();
        };
        node.inputs
            .iter()
            .enumerate()
            .filter_map(|(k, s)| {
                let v = s.value.and_then(|id| self.values.get(id))?;
                v.weight.as_ref().map(|_| (k, s.formal.as_str(), v))
            })
            .collect()
    }

    /// The name-scope path of node `n`'s name: its prefixes up to each `/`
    /// (`/a/b/Conv` -> `/a`, `/a/b`), at most [`MAX_SCOPE_DEPTH`].
    pub fn scopes(name: &str) -> Vec<&str> {
        if name.len() > MAX_SCOPE_NAME {
            return Vec::new();
        }
        name.char_indices()
            .filter(|&(i, c)| c == '/' && i > 0)
            .filter_map(|(i, _)| name.get(..i))
            .filter(|p| !p.ends_with('/'))
            .take(MAX_SCOPE_DEPTH)
            .collect()
    }
}

/// The graphs of a decoded file; None for a file that has none (a tensor,
/// a file read without a schema).
pub fn model_of(decoded: &Decoded<'_>) -> Option<Model> {
    let set = SchemaSet::builtin();
    if let Body::Records(file) = &decoded.body {
        return event_model(set, file);
    }
    let Body::Message { message, .. } = &decoded.body else {
        return None;
    };
    let id = decoded.format.id;
    if id == formats::onnx::MODEL.id {
        Some(onnx_model(set, message))
    } else if id == formats::tensorflow::GRAPH_DEF.id {
        Some(tf_model(set, &[message]))
    } else if id == formats::tensorflow::SAVED_MODEL.id {
        let graphs: Vec<&Message<'_>> = message
            .messages(set, tf::SavedModel::META_GRAPHS)
            .filter_map(|mg| mg.message(set, tf::MetaGraphDef::GRAPH_DEF))
            .collect();
        Some(tf_model(set, &graphs))
    } else if id == formats::paddle::FORMAT.id {
        Some(paddle_model(set, message))
    } else {
        None
    }
}

/// The graphs of an event file (its events' `graph_def`s and
/// `meta_graph_def`s' graphs); None when it holds none.
fn event_model(set: &SchemaSet, file: &formats::records::RecordFile<'_>) -> Option<Model> {
    let serialized = formats::tf_record::event_graphs(file);
    let decoded: Vec<(bool, Message<'_>)> = serialized
        .iter()
        .filter_map(|(plain, bytes)| {
            let m = if *plain {
                formats::tf_record::decode_graph_def(bytes, 0)
            } else {
                formats::tf_record::decode_meta_graph_def(bytes, 0)
            };
            m.map(|m| (*plain, m))
        })
        .collect();
    let graphs: Vec<&Message<'_>> = decoded
        .iter()
        .filter_map(|(plain, m)| {
            if *plain {
                Some(m)
            } else {
                m.message(set, tf::MetaGraphDef::GRAPH_DEF)
            }
        })
        .collect();
    (!graphs.is_empty()).then(|| tf_model(set, &graphs))
}

fn text(b: Option<&[u8]>) -> String {
    b.map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

fn strings(set: &SchemaSet, m: &Message<'_>, id: crate::schema::FieldId) -> Vec<String> {
    m.field(set, id)
        .iter()
        .filter_map(|f| match f.value {
            Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        })
        .collect()
}

// ------------------------------------------------------------------ ONNX

/// A graph waiting to be read: its message and where it came from.
struct Pending<'m, 'a> {
    id: usize,
    msg: &'m Message<'a>,
    kind: GraphKind,
    name: String,
    owner: Option<Owner>,
    /// The opset imports in force (a function has its own).
    opsets: usize,
}

fn opset_map(
    set: &SchemaSet,
    m: &Message<'_>,
    field: crate::schema::FieldId,
) -> HashMap<String, i64> {
    m.messages(set, field)
        .filter_map(|o| {
            let domain = text(o.bytes(set, OperatorSetIdProto::DOMAIN));
            let domain = if domain == "ai.onnx" {
                String::new()
            } else {
                domain
            };
            Some((domain, o.int(set, OperatorSetIdProto::VERSION)?))
        })
        .collect()
}

fn onnx_model(set: &SchemaSet, model: &Message<'_>) -> Model {
    let mut out = Model::default();
    let mut opsets = vec![opset_map(set, model, ModelProto::OPSET_IMPORT)];
    let functions: Vec<&Message<'_>> = model.messages(set, ModelProto::FUNCTIONS).collect();
    // Functions by (domain, name), for the nodes that call them; their ids
    // are given once every subgraph is known.
    let mut queue: VecDeque<Pending<'_, '_>> = VecDeque::new();
    let mut next_id = 0usize;
    if let Some(g) = model.message(set, ModelProto::GRAPH) {
        queue.push_back(Pending {
            id: next_id,
            msg: g,
            kind: GraphKind::Main,
            name: text(g.bytes(set, GraphProto::NAME)),
            owner: None,
            opsets: 0,
        });
        next_id += 1;
    }
    for f in &functions {
        opsets.push(opset_map(set, f, FunctionProto::OPSET_IMPORT));
    }
    // Subgraphs found while reading a graph wait behind the functions'
    // turn: ids are handed out main graph, its subgraphs (breadth first),
    // then each function and its subgraphs.
    let function_key = |f: &Message<'_>| {
        (
            text(f.bytes(set, FunctionProto::DOMAIN)),
            text(f.bytes(set, FunctionProto::NAME)),
        )
    };
    let mut function_ids: HashMap<(String, String), usize> = HashMap::new();
    let mut function_queue: VecDeque<(usize, &Message<'_>)> =
        functions.iter().copied().enumerate().collect();
    loop {
        let item = match queue.pop_front() {
            Some(p) => p,
            None => match function_queue.pop_front() {
                Some((k, f)) => {
                    let (domain, name) = function_key(f);
                    let label = if domain.is_empty() {
                        name
                    } else {
                        format!("{domain}.{name}")
                    };
                    let id = next_id;
                    next_id += 1;
                    Pending {
                        id,
                        msg: f,
                        kind: GraphKind::Function,
                        name: label,
                        owner: None,
                        opsets: k + 1,
                    }
                }
                None => break,
            },
        };
        if out.graphs.len() >= MAX_GRAPHS {
            out.truncated = true;
            break;
        }
        let ops = opsets.get(item.opsets).cloned().unwrap_or_default();
        if item.kind == GraphKind::Function {
            function_ids.insert(function_key(item.msg), item.id);
        }
        let graph = onnx_graph(set, &item, &ops, &mut queue, &mut next_id);
        out.graphs.push(graph);
    }
    // Calls of the model's functions, now that every function has its id;
    // a call's formal names are the function's inputs and outputs.
    let formals: HashMap<usize, (Vec<String>, Vec<String>)> = function_ids
        .values()
        .filter_map(|&id| {
            let f = out.graphs.get(id)?;
            let names = |ports: &[Port]| ports.iter().map(|p| p.name.clone()).collect();
            Some((id, (names(&f.inputs), names(&f.outputs))))
        })
        .collect();
    for g in &mut out.graphs {
        for n in &mut g.nodes {
            let domain = if n.domain == "ai.onnx" {
                String::new()
            } else {
                n.domain.clone()
            };
            let Some(&id) = function_ids.get(&(domain, n.op.clone())) else {
                continue;
            };
            n.calls.push(id);
            n.kind = Some(Kind::Function);
            if let Some((ins, outs)) = formals.get(&id) {
                for (slot, name) in n.inputs.iter_mut().zip(ins) {
                    slot.formal.clone_from(name);
                }
                for (slot, name) in n.outputs.iter_mut().zip(outs) {
                    slot.formal.clone_from(name);
                }
            }
        }
    }
    out
}

/// `1x3x224x224`: a TypeProto's tensor shape (`?` for an unknown or named
/// dimension shown by its name), with its element type.
fn onnx_type(set: &SchemaSet, tp: &Message<'_>) -> (String, String) {
    let Some(t) = tp
        .message(set, TypeProto::TENSOR_TYPE)
        .or_else(|| tp.message(set, TypeProto::SPARSE_TENSOR_TYPE))
    else {
        let kind = if tp.has(set, TypeProto::SEQUENCE_TYPE) {
            "sequence"
        } else if tp.has(set, TypeProto::MAP_TYPE) {
            "map"
        } else if tp.has(set, TypeProto::OPTIONAL_TYPE) {
            "optional"
        } else {
            ""
        };
        return (kind.to_string(), String::new());
    };
    let ty = onnx_tensor::data_type_text(set, t.int(set, TypeProto::Tensor::ELEM_TYPE));
    let shape = match t.message(set, TypeProto::Tensor::SHAPE) {
        None => String::new(),
        Some(s) => {
            let dims: Vec<String> = s
                .messages(set, TensorShapeProto::DIM)
                .map(|d| {
                    if let Some(v) = d.int(set, TensorShapeProto::Dimension::DIM_VALUE) {
                        v.to_string()
                    } else {
                        match d.str(set, TensorShapeProto::Dimension::DIM_PARAM) {
                            Some(p) if !p.is_empty() => p.to_string(),
                            _ => "?".to_string(),
                        }
                    }
                })
                .collect();
            if dims.is_empty() {
                "scalar".to_string()
            } else {
                dims.join("x")
            }
        }
    };
    (ty, shape)
}

/// The `x`-joined dims of a tensor view (`scalar` for none).
fn dims_text(dims: Option<&[i64]>) -> String {
    match dims {
        None => "?".to_string(),
        Some([]) => "scalar".to_string(),
        Some(d) => d
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("x"),
    }
}

fn declare(g: &mut Graph, name: &str, ty: String, shape: String) {
    let id = g.value(name);
    if let Some(v) = g.value_mut(id) {
        if !ty.is_empty() {
            v.ty = ty;
        }
        if !shape.is_empty() {
            v.shape = shape;
        }
    }
}

fn onnx_graph<'m, 'a>(
    set: &SchemaSet,
    item: &Pending<'m, 'a>,
    opsets: &HashMap<String, i64>,
    queue: &mut VecDeque<Pending<'m, 'a>>,
    next_id: &mut usize,
) -> Graph {
    let msg = item.msg;
    let mut g = Graph::new(item.kind, item.name.clone(), item.owner.clone());
    let is_function = item.kind == GraphKind::Function;
    let (node_field, input_field, output_field) = if is_function {
        (
            FunctionProto::NODE,
            FunctionProto::INPUT,
            FunctionProto::OUTPUT,
        )
    } else {
        (GraphProto::NODE, GraphProto::INPUT, GraphProto::OUTPUT)
    };
    let initializers = onnx_declared(set, &mut g, msg, is_function);
    // Graph inputs that are initializers (IR < 4 lists every weight as an
    // input) are weights, not boxes.
    let input_names: Vec<String> = if is_function {
        strings(set, msg, input_field)
    } else {
        msg.messages(set, input_field)
            .map(|vi| text(vi.bytes(set, ValueInfoProto::NAME)))
            .collect()
    };
    for name in input_names {
        let id = g.value(&name);
        if initializers.contains(&id) {
            continue;
        }
        let k = g.inputs.len();
        g.inputs.push(Port { name, value: id });
        if let Some(v) = g.value_mut(id) {
            v.producer.get_or_insert(End::Input(k));
        }
    }
    for (index, n) in msg.messages(set, node_field).enumerate() {
        let op = text(n.bytes(set, NodeProto::OP_TYPE));
        let domain = text(n.bytes(set, NodeProto::DOMAIN));
        let version = opsets
            .get(if domain == "ai.onnx" {
                ""
            } else {
                domain.as_str()
            })
            .copied();
        let schema = ops::schema(&domain, &op, version);
        let mut node = Node {
            name: text(n.bytes(set, NodeProto::NAME)),
            kind: Some(ops::kind_of(&op))
                .filter(|_| domain.is_empty() || domain == "ai.onnx" || domain == "com.microsoft"),
            op,
            domain,
            version,
            doc: text(n.bytes(set, NodeProto::DOC_STRING)),
            ..Node::default()
        };
        for (k, name) in strings(set, n, NodeProto::INPUT).into_iter().enumerate() {
            let formal = schema
                .and_then(|s| ops::formal(s.inputs, k))
                .unwrap_or_default()
                .to_string();
            let value = (!name.is_empty()).then(|| g.value(&name));
            if let Some(v) = value.and_then(|id| g.value_mut(id)) {
                v.add_consumer(End::Node(index));
            }
            node.inputs.push(Slot {
                value,
                formal,
                control: false,
            });
        }
        for (k, name) in strings(set, n, NodeProto::OUTPUT).into_iter().enumerate() {
            let formal = schema
                .and_then(|s| ops::formal(s.outputs, k))
                .unwrap_or_default()
                .to_string();
            let value = (!name.is_empty()).then(|| g.value(&name));
            if let Some(v) = value.and_then(|id| g.value_mut(id)) {
                v.producer.get_or_insert(End::Node(index));
            }
            node.outputs.push(Slot {
                value,
                formal,
                control: false,
            });
        }
        let constant_tensor = onnx_attributes(set, item, (index, n), &mut node, queue, next_id);
        // A Constant's output is a weight of the nodes that read it.
        if node.kind == Some(Kind::Constant) {
            let out = node.outputs.first().and_then(|s| s.value);
            if let Some(v) = out.and_then(|id| g.value_mut(id)) {
                match constant_tensor {
                    Some(t) => {
                        let view = onnx_tensor::view(set, t);
                        v.ty = view.type_name.clone();
                        v.shape = dims_text(view.dims.as_deref());
                        v.weight = Some(Weight {
                            tensor: Some(t.offset),
                        });
                    }
                    None => v.weight = Some(Weight { tensor: None }),
                }
            }
        }
        g.nodes.push(node);
    }
    let output_names: Vec<String> = if is_function {
        strings(set, msg, output_field)
    } else {
        msg.messages(set, output_field)
            .map(|vi| text(vi.bytes(set, ValueInfoProto::NAME)))
            .collect()
    };
    for name in output_names {
        let id = g.value(&name);
        let k = g.outputs.len();
        g.outputs.push(Port { name, value: id });
        if let Some(v) = g.value_mut(id) {
            v.consumers.push(End::Output(k));
        }
    }
    g
}

/// Declares the values of ONNX graph (or function) `msg` with their
/// types: value_info, then inputs and outputs, then the initializers
/// (their own dims and data type, and marked as weights). Returns the
/// initializers' values.
fn onnx_declared(
    set: &SchemaSet,
    g: &mut Graph,
    msg: &Message<'_>,
    is_function: bool,
) -> std::collections::HashSet<usize> {
    let info_field = if is_function {
        FunctionProto::VALUE_INFO
    } else {
        GraphProto::VALUE_INFO
    };
    let mut declared: Vec<(String, String, String)> = Vec::new();
    for field in [info_field].into_iter().chain(
        (!is_function)
            .then_some([GraphProto::INPUT, GraphProto::OUTPUT])
            .into_iter()
            .flatten(),
    ) {
        for vi in msg.messages(set, field) {
            let name = text(vi.bytes(set, ValueInfoProto::NAME));
            let (ty, shape) = vi
                .message(set, ValueInfoProto::TYPE)
                .map(|t| onnx_type(set, t))
                .unwrap_or_default();
            declared.push((name, ty, shape));
        }
    }
    for (name, ty, shape) in declared {
        declare(g, &name, ty, shape);
    }
    let mut initializers = std::collections::HashSet::new();
    if !is_function {
        for t in msg.messages(set, GraphProto::INITIALIZER) {
            let name = text(t.bytes(set, TensorProto::NAME));
            let view = onnx_tensor::view(set, t);
            let id = g.value(&name);
            initializers.insert(id);
            if let Some(v) = g.value_mut(id) {
                v.ty = view.type_name.clone();
                v.shape = dims_text(view.dims.as_deref());
                v.weight = Some(Weight {
                    tensor: Some(t.offset),
                });
            }
        }
    }
    initializers
}

/// The attributes of node `index` (`n`) of graph `item`, onto `node`: each
/// one's text, tensors and subgraphs (queued to be read as graphs of their
/// own). Returns a Constant node's tensor.
fn onnx_attributes<'m, 'a>(
    set: &SchemaSet,
    item: &Pending<'m, 'a>,
    (index, n): (usize, &'m Message<'a>),
    node: &mut Node,
    queue: &mut VecDeque<Pending<'m, 'a>>,
    next_id: &mut usize,
) -> Option<&'m Message<'a>> {
    let opts = RenderOptions::default();
    let mut constant_tensor = None;
    for a in n.messages(set, NodeProto::ATTRIBUTE) {
        let name = text(a.bytes(set, AttributeProto::NAME));
        let tensor = a.message(set, AttributeProto::T).map(|t| t.offset);
        if tensor.is_some() && node.op == "Constant" && node.domain.is_empty() {
            constant_tensor = a.message(set, AttributeProto::T);
        }
        let tensors = a
            .messages(set, AttributeProto::TENSORS)
            .map(|t| t.offset)
            .collect();
        let mut graphs = Vec::new();
        for (k, sub) in a
            .messages(set, AttributeProto::G)
            .chain(a.messages(set, AttributeProto::GRAPHS))
            .enumerate()
        {
            let attribute = if a.has(set, AttributeProto::GRAPHS) {
                format!("{name}[{k}]")
            } else {
                name.clone()
            };
            let id = *next_id;
            *next_id += 1;
            node.subgraphs.push(id);
            graphs.push(id);
            queue.push_back(Pending {
                id,
                msg: sub,
                kind: GraphKind::Subgraph,
                name: text(sub.bytes(set, GraphProto::NAME)),
                owner: Some(Owner {
                    graph: item.id,
                    node: index,
                    attribute,
                }),
                opsets: item.opsets,
            });
        }
        node.attributes.push(Attribute {
            text: onnx_view::node_attribute_text(set, n, a, &opts),
            name,
            tensor,
            tensors,
            graphs,
        });
    }
    constant_tensor
}

// ------------------------------------------------------------ TensorFlow

fn tf_dtype(set: &SchemaSet, code: i64) -> String {
    set.find_enum("tensorflow.DataType")
        .and_then(|e| set.enum_def(e).name_of(code))
        .map_or_else(|| code.to_string(), str::to_string)
}

fn tf_shape(set: &SchemaSet, s: &Message<'_>) -> String {
    if s.scalar(set, tf::TensorShapeProto::UNKNOWN_RANK)
        .is_some_and(|v| v == crate::decode::ScalarValue::Bool(true))
    {
        return "?".to_string();
    }
    let dims: Vec<String> = s
        .messages(set, tf::TensorShapeProto::DIM)
        .map(
            |d| match d.int(set, tf::TensorShapeProto::Dim::SIZE).unwrap_or(0) {
                -1 => "?".to_string(),
                n => n.to_string(),
            },
        )
        .collect();
    if dims.is_empty() {
        "scalar".to_string()
    } else {
        dims.join("x")
    }
}

/// The (key, value) entries of a map of AttrValues, in wire order.
fn tf_attrs<'m, 'a>(
    set: &SchemaSet,
    m: &'m Message<'a>,
    field: crate::schema::FieldId,
) -> Vec<(String, &'m Message<'a>)> {
    m.messages(set, field)
        .filter_map(|e| {
            let key = text(e.bytes(set, tf::NodeDef::AttrEntry::KEY));
            Some((key, e.message(set, tf::NodeDef::AttrEntry::VALUE)?))
        })
        .collect()
}

/// The function names an attribute value calls (`func`, or a list of them).
fn tf_called(set: &SchemaSet, av: &Message<'_>) -> Vec<String> {
    let mut out: Vec<String> = av
        .messages(set, tf::AttrValue::FUNC)
        .map(|f| text(f.bytes(set, tf::NameAttrList::NAME)))
        .collect();
    if let Some(list) = av.message(set, tf::AttrValue::LIST) {
        out.extend(
            list.messages(set, tf::AttrValue::ListValue::FUNC)
                .map(|f| text(f.bytes(set, tf::NameAttrList::NAME))),
        );
    }
    out
}

fn tf_model(set: &SchemaSet, graph_defs: &[&Message<'_>]) -> Model {
    let mut out = Model::default();
    let several = graph_defs.len() > 1;
    let mut functions: Vec<&Message<'_>> = Vec::new();
    for (k, gd) in graph_defs.iter().enumerate() {
        let name = if several {
            format!("meta_graphs[{k}]")
        } else {
            String::new()
        };
        let mut g = Graph::new(GraphKind::Main, name, None);
        tf_nodes(set, &mut g, gd.messages(set, tf::GraphDef::NODE), false);
        out.graphs.push(g);
        if let Some(lib) = gd.message(set, tf::GraphDef::LIBRARY) {
            functions.extend(lib.messages(set, tf::FunctionDefLibrary::FUNCTION));
        }
    }
    let mut function_ids: HashMap<String, usize> = HashMap::new();
    for f in functions {
        if out.graphs.len() >= MAX_GRAPHS {
            out.truncated = true;
            break;
        }
        let sig = f.message(set, tf::FunctionDef::SIGNATURE);
        let name = text(sig.and_then(|s| s.bytes(set, tf::OpDef::NAME)));
        function_ids.entry(name.clone()).or_insert(out.graphs.len());
        let mut g = Graph::new(GraphKind::Function, name, None);
        if let Some(sig) = sig {
            for a in sig.messages(set, tf::OpDef::INPUT_ARG) {
                let name = text(a.bytes(set, tf::OpDef::ArgDef::NAME));
                let id = g.value(&name);
                let k = g.inputs.len();
                g.inputs.push(Port { name, value: id });
                if let Some(v) = g.value_mut(id) {
                    v.producer.get_or_insert(End::Input(k));
                    if let Some(t) = a.int(set, tf::OpDef::ArgDef::TYPE) {
                        v.ty = tf_dtype(set, t);
                    }
                }
            }
        }
        tf_nodes(
            set,
            &mut g,
            f.messages(set, tf::FunctionDef::NODE_DEF),
            true,
        );
        let rets: Vec<(String, String)> = f
            .messages(set, tf::FunctionDef::RET)
            .map(|e| {
                (
                    text(e.bytes(set, tf::FunctionDef::RetEntry::KEY)),
                    text(e.bytes(set, tf::FunctionDef::RetEntry::VALUE)),
                )
            })
            .collect();
        if let Some(sig) = sig {
            for a in sig.messages(set, tf::OpDef::OUTPUT_ARG) {
                let name = text(a.bytes(set, tf::OpDef::ArgDef::NAME));
                let source = rets
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == name)
                    .map_or(name.as_str(), |(_, v)| v.as_str());
                let id = tf_value(&mut g, source, true);
                let k = g.outputs.len();
                g.outputs.push(Port { name, value: id });
                if let Some(v) = g.value_mut(id) {
                    v.consumers.push(End::Output(k));
                }
            }
        }
        out.graphs.push(g);
    }
    for g in &mut out.graphs {
        for n in &mut g.nodes {
            if let Some(&id) = function_ids.get(&n.op) {
                n.calls.push(id);
                n.kind = Some(Kind::Function);
            }
        }
    }
    // The functions each node names in its attributes.
    for g in &mut out.graphs {
        for n in &mut g.nodes {
            for f in std::mem::take(&mut n.called) {
                if let Some(&id) = function_ids.get(&f)
                    && !n.calls.contains(&id)
                {
                    n.calls.push(id);
                }
            }
        }
    }
    out
}

/// The value a TensorFlow input string names: `node`, `node:1` (a GraphDef),
/// `node:out:0` or an argument `x` (a function body); `^node` is a control
/// dependency. Its producer is the node named before the first `:`.
fn tf_value(g: &mut Graph, input: &str, in_function: bool) -> usize {
    let (control, body) = match input.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, input),
    };
    // A GraphDef's `node` is `node:0`.
    let key = if control {
        format!("^{body}")
    } else if !in_function && !body.contains(':') {
        format!("{body}:0")
    } else {
        body.to_string()
    };
    let id = g.value(&key);
    if let Some(v) = g.value_mut(id) {
        v.control = control;
    }
    id
}

fn tf_nodes<'m, 'a>(
    set: &SchemaSet,
    g: &mut Graph,
    nodes: impl Iterator<Item = &'m Message<'a>>,
    in_function: bool,
) where
    'a: 'm,
{
    let nodes: Vec<&Message<'_>> = nodes.collect();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        by_name
            .entry(text(n.bytes(set, tf::NodeDef::NAME)))
            .or_insert(i);
    }
    let opts = RenderOptions::default();
    // Each node's declared type and output shapes (`T`/`dtype`,
    // `_output_shapes`), for the values it makes.
    let mut facts: Vec<(String, Vec<String>)> = Vec::with_capacity(nodes.len());
    // Each node's output arguments and its counting attributes, for the
    // formal names of the values it makes.
    let mut output_formals: Vec<Option<(&'static str, TfCounts)>> = Vec::with_capacity(nodes.len());
    for (index, n) in nodes.iter().enumerate() {
        let op = text(n.bytes(set, tf::NodeDef::OP));
        let mut node = Node {
            name: text(n.bytes(set, tf::NodeDef::NAME)),
            kind: Some(ops::kind_of(&op)),
            op,
            ..Node::default()
        };
        let TfAttrs {
            const_tensor,
            dtype,
            output_shapes,
            counts,
        } = tf_attributes(set, n, &mut node, &opts);
        let inputs = strings(set, n, tf::NodeDef::INPUT);
        // TensorFlow's argument names for the op's inputs and outputs.
        let def = ops::tf_op_def(&node.op);
        let count = |attr: &str, type_list: bool| {
            let &(int, types) = counts.get(attr)?;
            if type_list {
                types
            } else {
                int.and_then(|i| usize::try_from(i).ok())
            }
        };
        let data_inputs = inputs.iter().filter(|i| !i.starts_with('^')).count();
        let input_formals = def.map_or_else(Vec::new, |(ins, _)| {
            ops::tf_formals(ins, count, data_inputs)
        });
        let mut data_k = 0usize;
        for input in inputs {
            let control = input.starts_with('^');
            let id = tf_value(g, &input, in_function);
            if let Some(v) = g.value_mut(id) {
                v.add_consumer(End::Node(index));
            }
            let formal = if control {
                ""
            } else {
                data_k += 1;
                input_formals.get(data_k - 1).copied().unwrap_or("")
            };
            node.inputs.push(Slot {
                value: Some(id),
                formal: formal.to_string(),
                control,
            });
        }
        output_formals.push(def.map(|(_, outs)| (outs, counts)));
        if let Some(t) = const_tensor {
            // Its output, `name:0` (a GraphDef) or `name:output:0`.
            let key = if in_function {
                format!("{}:output:0", node.name)
            } else {
                format!("{}:0", node.name)
            };
            let id = g.value(&key);
            let view = tensorflow::view(set, t);
            if let Some(v) = g.value_mut(id) {
                v.ty = view.type_name.clone();
                v.shape = dims_text(view.dims.as_deref());
                v.weight = Some(Weight {
                    tensor: Some(t.offset),
                });
            }
        }
        g.nodes.push(node);
        facts.push((dtype, output_shapes));
    }
    tf_outputs(g, &by_name, facts, output_formals, in_function);
}

/// The attributes that count a TensorFlow op's variadic arguments, by
/// name: integers (`N`) and lengths of type lists (`Tin`).
type TfCounts = HashMap<String, (Option<i64>, Option<usize>)>;

/// What a NodeDef's attributes say beyond their text.
struct TfAttrs<'m, 'a> {
    /// A Const node's `value`.
    const_tensor: Option<&'m Message<'a>>,
    /// Its declared type (`dtype`, `T`).
    dtype: String,
    /// Its `_output_shapes`.
    output_shapes: Vec<String>,
    counts: TfCounts,
}

/// The attributes of NodeDef `n` onto `node` (text, tensors, functions
/// called), and the facts they give its values.
fn tf_attributes<'m, 'a>(
    set: &SchemaSet,
    n: &'m Message<'a>,
    node: &mut Node,
    opts: &RenderOptions,
) -> TfAttrs<'m, 'a> {
    let mut const_tensor = None;
    let mut dtype = String::new();
    let mut output_shapes: Vec<String> = Vec::new();
    // The attributes that count variadic arguments: integers (`N`) and
    // lengths of type lists (`Tin`).
    let mut counts: TfCounts = HashMap::new();
    for (key, av) in tf_attrs(set, n, tf::NodeDef::ATTR) {
        let types = av
            .message(set, tf::AttrValue::LIST)
            .map(|l| l.scalars(set, tf::AttrValue::ListValue::TYPE).count());
        counts.insert(key.clone(), (av.int(set, tf::AttrValue::I), types));
        let tensor = av.message(set, tf::AttrValue::TENSOR);
        if key == "value" && node.kind == Some(Kind::Constant) {
            const_tensor = tensor;
        }
        if (key == "dtype" || key == "T")
            && dtype.is_empty()
            && let Some(t) = av.int(set, tf::AttrValue::TYPE)
        {
            dtype = tf_dtype(set, t);
        }
        if key == "_output_shapes"
            && let Some(list) = av.message(set, tf::AttrValue::LIST)
        {
            output_shapes = list
                .messages(set, tf::AttrValue::ListValue::SHAPE)
                .map(|s| tf_shape(set, s))
                .collect();
        }
        node.called.extend(tf_called(set, av));
        let tensors = av
            .message(set, tf::AttrValue::LIST)
            .map(|list| {
                list.messages(set, tf::AttrValue::ListValue::TENSOR)
                    .map(|t| t.offset)
                    .collect()
            })
            .unwrap_or_default();
        node.attributes.push(Attribute {
            text: format!("{key}={}", tf_view::node_attribute_text(av, opts)),
            name: key,
            tensor: tensor.map(|t| t.offset),
            tensors,
            graphs: Vec::new(),
        });
    }
    TfAttrs {
        const_tensor,
        dtype,
        output_shapes,
        counts,
    }
}

/// Each value's producer (the node named before its first `:`; in a
/// function an argument is a graph input already), then each node's
/// outputs with their types, shapes (`facts`) and formal names.
fn tf_outputs(
    g: &mut Graph,
    by_name: &HashMap<String, usize>,
    facts: Vec<(String, Vec<String>)>,
    output_formals: Vec<Option<(&'static str, TfCounts)>>,
    in_function: bool,
) {
    let mut outputs: Vec<Vec<usize>> = vec![Vec::new(); g.nodes.len()];
    for (id, v) in g.values.iter_mut().enumerate() {
        if v.producer.is_some() {
            continue;
        }
        let body = v.name.trim_start_matches('^');
        let node_name = body.split(':').next().unwrap_or(body);
        if let Some(&i) = by_name.get(node_name) {
            v.producer = Some(End::Node(i));
            if !v.control
                && let Some(o) = outputs.get_mut(i)
            {
                o.push(id);
            }
        }
    }
    for (((n, outs), (dtype, shapes)), formals) in g
        .nodes
        .iter_mut()
        .zip(outputs)
        .zip(facts)
        .zip(output_formals)
    {
        // A GraphDef names output K of the op's flat output list
        // (`node:K`), a function body the argument itself (`node:out:K`).
        let index_of = |name: &str| {
            name.rsplit(':')
                .next()
                .and_then(|k| k.parse::<usize>().ok())
        };
        let highest = outs
            .iter()
            .filter_map(|&id| g.values.get(id))
            .filter_map(|v| index_of(&v.name))
            .max();
        let flat: Vec<&'static str> = match (&formals, in_function) {
            (Some((args, counts)), false) => {
                let count = |attr: &str, type_list: bool| {
                    let &(int, types) = counts.get(attr)?;
                    if type_list {
                        types
                    } else {
                        int.and_then(|i| usize::try_from(i).ok())
                    }
                };
                ops::tf_formals(args, count, highest.map_or(0, |h| h.saturating_add(1)))
            }
            _ => Vec::new(),
        };
        let formal_of = |name: &str| -> String {
            if in_function {
                // `node:out:K`: the argument between the colons.
                let parts: Vec<&str> = name.rsplitn(3, ':').collect();
                return match parts.as_slice() {
                    [_, arg, _] => (*arg).to_string(),
                    _ => String::new(),
                };
            }
            index_of(name)
                .and_then(|k| flat.get(k))
                .map_or_else(String::new, |s| (*s).to_string())
        };
        for &id in &outs {
            let Some(v) = g.values.get_mut(id) else {
                continue;
            };
            // `node:K` or `node:out:K`: output K.
            let k = v
                .name
                .rsplit(':')
                .next()
                .and_then(|k| k.parse::<usize>().ok());
            if v.shape.is_empty()
                && let Some(s) = k.and_then(|k| shapes.get(k))
            {
                v.shape = s.clone();
            }
            if v.ty.is_empty() {
                v.ty = dtype.clone();
            }
        }
        n.outputs = outs
            .into_iter()
            .map(|id| Slot {
                value: Some(id),
                formal: g
                    .values
                    .get(id)
                    .map_or_else(String::new, |v| formal_of(&v.name)),
                control: false,
            })
            .collect();
    }
}

// ------------------------------------------------------------ PaddlePaddle

/// How an op is drawn, by its name.
fn paddle_kind(op: &str) -> Kind {
    match op {
        "feed" => Kind::Input,
        "fill_constant" | "assign_value" | "full" => Kind::Constant,
        "mul" | "matmul" | "matmul_v2" | "fc" | "bmm" | "linear" | "einsum" => Kind::Linear,
        "relu" | "relu6" | "leaky_relu" | "prelu" | "sigmoid" | "hard_sigmoid" | "hard_swish"
        | "swish" | "silu" | "tanh" | "gelu" | "elu" | "selu" | "softmax" | "log_softmax"
        | "softplus" | "softsign" | "mish" | "hardtanh" | "thresholded_relu" => Kind::Activation,
        "batch_norm" | "sync_batch_norm" | "layer_norm" | "instance_norm" | "group_norm"
        | "rms_norm" | "lrn" | "norm" | "p_norm" => Kind::Normalization,
        "pool2d" | "pool3d" | "max_pool2d_with_index" | "adaptive_pool2d" => Kind::Pooling,
        "while" | "conditional_block" | "select_input" | "select_output" | "recurrent" => {
            Kind::Control
        }
        _ if op.starts_with("conv") || op.starts_with("depthwise_conv") => Kind::Conv,
        _ if op.starts_with("elementwise_") || op.starts_with("scale") => Kind::Math,
        _ if op.starts_with("reduce_") => Kind::Reduce,
        _ if op.contains("quantize") || op.starts_with("fake_") => Kind::Quantize,
        _ if op.ends_with("_interp")
            || op.ends_with("_interp_v2")
            || op.starts_with("reshape")
            || op.starts_with("transpose")
            || op.starts_with("squeeze")
            || op.starts_with("unsqueeze")
            || op.starts_with("flatten")
            || matches!(
                op,
                "concat"
                    | "split"
                    | "slice"
                    | "strided_slice"
                    | "gather"
                    | "gather_nd"
                    | "shape"
                    | "cast"
                    | "expand"
                    | "expand_v2"
                    | "tile"
                    | "pad"
                    | "pad2d"
                    | "pad3d"
                    | "stack"
                    | "unstack"
                    | "assign"
                    | "dropout"
                    | "pixel_shuffle"
                    | "arg_max"
                    | "arg_min"
            ) =>
        {
            Kind::Shape
        }
        _ => Kind::Other,
    }
}

/// An attribute's value as text, by its declared type (the field the type
/// names; lists elided as `--values` says).
fn paddle_attr_text(set: &SchemaSet, a: &Message<'_>, opts: &RenderOptions) -> String {
    use pd::OpDesc::Attr;
    let list = |items: Vec<String>| {
        let limit = usize::try_from(crate::render::elide::list_limit(opts)).unwrap_or(usize::MAX);
        let total = items.len() as u64;
        let shown: Vec<String> = items.into_iter().take(limit).collect();
        crate::render::elide::bracketed(&shown, total)
    };
    let ints = |field| {
        list(
            a.scalars(set, field)
                .filter_map(|v| v.as_i64())
                .map(|v| v.to_string())
                .collect(),
        )
    };
    let floats = |field| list(a.scalars(set, field).map(paddle_float).collect());
    let strings = |field| {
        list(
            a.field(set, field)
                .iter()
                .filter_map(|f| crate::formats::summary::bytes_of(&f.value))
                .map(crate::escape::quoted)
                .collect(),
        )
    };
    let one = |field| a.scalar(set, field).map_or_else(String::new, paddle_float);
    let int = |field| {
        a.int(set, field)
            .map_or_else(String::new, |v| v.to_string())
    };
    let string = |field| {
        a.bytes(set, field)
            .map_or_else(String::new, crate::escape::quoted)
    };
    match a.int(set, Attr::TYPE).unwrap_or(-1) {
        0 => int(Attr::I),
        1 => one(Attr::F),
        2 => string(Attr::S),
        3 => ints(Attr::INTS),
        4 => floats(Attr::FLOATS),
        5 => strings(Attr::STRINGS),
        6 => a
            .scalar(set, Attr::B)
            .map_or_else(String::new, |v| (v.as_i64() == Some(1)).to_string()),
        7 => list(
            a.scalars(set, Attr::BOOLS)
                .map(|v| (v.as_i64() == Some(1)).to_string())
                .collect(),
        ),
        8 => format!("block {}", int(Attr::BLOCK_IDX)),
        9 => int(Attr::L),
        10 => format!("blocks {}", ints(Attr::BLOCKS_IDX)),
        11 => ints(Attr::LONGS),
        12 => floats(Attr::FLOAT64S),
        13 => string(Attr::VAR_NAME),
        14 => strings(Attr::VARS_NAME),
        15 => one(Attr::FLOAT64),
        _ => {
            // SCALAR, SCALARS and types newer than the table: the fields
            // present, by name.
            let set_fields: Vec<String> = a
                .present(set)
                .filter(|(f, _)| f.number > 2)
                .map(|(f, _)| f.name.clone())
                .collect();
            format!("({})", set_fields.join(", "))
        }
    }
}

/// A float or double attribute value as the shortest text that reads
/// back to it.
fn paddle_float(v: crate::decode::ScalarValue) -> String {
    use crate::decode::ScalarValue;
    match v {
        ScalarValue::F32(x) => crate::render::fmt::element_text(crate::tensor::Element::F32(x)),
        ScalarValue::F64(x) => crate::render::fmt::element_text(crate::tensor::Element::F64(x)),
        other => other.as_i64().map_or_else(String::new, |i| i.to_string()),
    }
}

/// A PaddlePaddle program as graphs: each block one graph (the global
/// block the main one, a sub-block a subgraph of the op whose attribute
/// names it), each op one node (feed and fetch included: the program's
/// op count), each variable a value; an op's argument lists give its
/// inputs' and outputs' formal names (`Input`, `Filter`). A variable an op
/// writes again (batch_norm's `MeanOut` is its `Mean`) is a new value of
/// the same name, so the graph has no cycle. The parameters Paddle saves
/// with the program are weights, found among the facade's tensors by
/// their variable's offset.
fn paddle_model(set: &SchemaSet, program: &Message<'_>) -> Model {
    let mut out = Model::default();
    let blocks: Vec<&Message<'_>> = program.messages(set, pd::ProgramDesc::BLOCKS).collect();
    // The op (block, node) whose attribute names each sub-block.
    let mut owners: HashMap<i64, Owner> = HashMap::new();
    for (b, block) in blocks.iter().enumerate() {
        for (n, op) in block.messages(set, pd::BlockDesc::OPS).enumerate() {
            for a in op.messages(set, pd::OpDesc::ATTRS) {
                use pd::OpDesc::Attr;
                let mut named: Vec<i64> = a.int(set, Attr::BLOCK_IDX).into_iter().collect();
                named.extend(a.scalars(set, Attr::BLOCKS_IDX).filter_map(|v| v.as_i64()));
                for idx in named {
                    owners.entry(idx).or_insert_with(|| Owner {
                        graph: b,
                        node: n,
                        attribute: text(a.bytes(set, Attr::NAME)),
                    });
                }
            }
        }
    }
    for (b, block) in blocks.iter().enumerate() {
        if out.graphs.len() >= MAX_GRAPHS {
            out.truncated = true;
            break;
        }
        let owner = owners.get(&(b as i64)).cloned();
        let kind = if b == 0 {
            GraphKind::Main
        } else {
            GraphKind::Subgraph
        };
        let name = if b == 0 {
            String::new()
        } else {
            format!("block {b}")
        };
        let mut g = Graph::new(kind, name, owner);
        paddle_block(set, &mut g, block);
        out.graphs.push(g);
    }
    // Each op's sub-blocks.
    let subs: Vec<(usize, usize, usize)> = out
        .graphs
        .iter()
        .enumerate()
        .filter_map(|(id, g)| g.owner.as_ref().map(|o| (o.graph, o.node, id)))
        .collect();
    for (graph, node, id) in subs {
        if let Some(n) = out
            .graphs
            .get_mut(graph)
            .and_then(|g| g.nodes.get_mut(node))
        {
            n.subgraphs.push(id);
        }
    }
    out
}

fn paddle_block(set: &SchemaSet, g: &mut Graph, block: &Message<'_>) {
    let opts = RenderOptions::default();
    // Declared variables: type, shape, and whether a saved parameter.
    let mut vars: HashMap<String, &Message<'_>> = HashMap::new();
    for v in block.messages(set, pd::BlockDesc::VARS) {
        vars.entry(text(v.bytes(set, pd::VarDesc::NAME)))
            .or_insert(v);
    }
    // The value each variable name stands for now.
    let mut current: HashMap<String, usize> = HashMap::new();
    let new_value = |g: &mut Graph, name: &str| -> usize {
        let id = g.values.len();
        let mut v = ValueInfo {
            name: name.to_string(),
            ..ValueInfo::default()
        };
        if let Some(var) = vars.get(name) {
            if let Some((code, dims)) = formats::paddle::var_tensor(set, var) {
                v.ty = formats::paddle::type_name(set, code);
                v.shape = dims_text(Some(&dims));
            }
            if formats::paddle::is_saved(set, var) {
                v.weight = Some(Weight {
                    tensor: Some(var.offset),
                });
            }
        }
        g.values.push(v);
        if !g.value_ids.contains_key(name) {
            g.value_ids.insert(name.to_string(), id);
        }
        id
    };
    for (index, op) in block.messages(set, pd::BlockDesc::OPS).enumerate() {
        let op_type = text(op.bytes(set, pd::OpDesc::TYPE));
        let mut node = Node {
            name: String::new(),
            kind: Some(paddle_kind(&op_type)),
            op: op_type,
            ..Node::default()
        };
        for arg in op.messages(set, pd::OpDesc::INPUTS) {
            let formal = text(arg.bytes(set, pd::OpDesc::Var::PARAMETER));
            for name in strings(set, arg, pd::OpDesc::Var::ARGUMENTS) {
                let id = match current.get(&name) {
                    Some(&id) => id,
                    None => {
                        let id = new_value(g, &name);
                        current.insert(name.clone(), id);
                        id
                    }
                };
                if let Some(v) = g.value_mut(id) {
                    v.add_consumer(End::Node(index));
                }
                node.inputs.push(Slot {
                    value: Some(id),
                    formal: formal.clone(),
                    control: false,
                });
            }
        }
        for arg in op.messages(set, pd::OpDesc::OUTPUTS) {
            let formal = text(arg.bytes(set, pd::OpDesc::Var::PARAMETER));
            for name in strings(set, arg, pd::OpDesc::Var::ARGUMENTS) {
                // A variable already made, or read (by this op or an
                // earlier one), is written again: a new value.
                let reuse = current.get(&name).copied().filter(|&id| {
                    g.values
                        .get(id)
                        .is_some_and(|v| v.producer.is_none() && v.consumers.is_empty())
                });
                let id = match reuse {
                    Some(id) => id,
                    None => {
                        let id = new_value(g, &name);
                        current.insert(name.clone(), id);
                        id
                    }
                };
                if let Some(v) = g.value_mut(id) {
                    v.producer = Some(End::Node(index));
                    // What an op makes is computed, not a saved weight.
                    v.weight = None;
                }
                node.outputs.push(Slot {
                    value: Some(id),
                    formal: formal.clone(),
                    control: false,
                });
            }
        }
        for a in op.messages(set, pd::OpDesc::ATTRS) {
            use pd::OpDesc::Attr;
            let name = text(a.bytes(set, Attr::NAME));
            node.attributes.push(Attribute {
                text: format!("{name}={}", paddle_attr_text(set, a, &opts)),
                name,
                tensor: None,
                tensors: Vec::new(),
                graphs: Vec::new(),
            });
        }
        // Paddle names no op: the first output names it.
        node.name = node
            .outputs
            .first()
            .and_then(|s| s.value)
            .and_then(|id| g.values.get(id))
            .map_or_else(String::new, |v| v.name.clone());
        g.nodes.push(node);
    }
}
