//! The index of a document's tensors: every tensor of a decoded file
//! with its path in the JSON output and its role, found without reading a
//! value. A tensor's chain of enclosing messages is found by descending
//! through the field whose byte range holds it; a tensor bundle's tensors
//! are its entries.

use crate::decode::{Message, Value};
use crate::external::{ExternalRef, Folder};
use crate::formats::TensorRole as Role;
use crate::formats::tf_checkpoint::BundleTensor;
use crate::formats::{self, Body, Decoded};
use crate::render;
use crate::schema::{MsgId, SchemaSet};
use crate::tensor::TensorData;
use std::collections::HashMap;
use std::ops::Range;

/// One step of the path from the root message to a tensor, as the JSON
/// output nests it. Exhaustive: a path into a protobuf message is made of
/// these three and nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A field, by its .proto name.
    Field(String),
    /// The position in a repeated field.
    Index(usize),
    /// The key of a map field.
    Key(String),
}

/// A tensor of a document, found without reading a value.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorRef {
    /// Its name (`tensorN` for a tensor that has none).
    pub name: String,
    /// What it is to the file.
    pub role: Role,
    /// A weight: an ONNX graph initializer, the value of a TensorFlow
    /// Const node, or the tensor of a tensor file (what `decode --npy-dir`
    /// writes: see [`Document::export_set`](super::Document::export_set)).
    pub weight: bool,
    /// Where it is in the decoded tree (empty for the root).
    pub path: Vec<Step>,
    /// The byte range of its message in the input.
    pub range: Range<u64>,
    /// Where its values are outside the file (ONNX external data): what
    /// [`TensorRef::external_data`] gives as numbers.
    pub(crate) external: Option<ExternalRef>,
    /// A tensor bundle's variable (of a checkpoint, or of a SavedModel's
    /// `variables/`): where its values are.
    pub(crate) bundle: Option<BundleTensor>,
    /// A tensor whose values its format found in a side file (a Paddle
    /// parameter, a Core ML program's weight): where they are.
    pub(crate) side: Option<formats::SideValues>,
    /// Its message type, to decode the range again.
    pub(super) def: MsgId,
}

/// Where a tensor's values are outside its file (ONNX external data, or a
/// side file its format names), as the file says: what
/// [`TensorRef::external_data`] gives.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalData {
    /// The side file, relative to the model's folder.
    pub location: Option<String>,
    /// Where the values start in it (None: at 0, or not a number).
    pub offset: Option<u64>,
    /// How many bytes they take (None: to the end, or not a number).
    pub length: Option<u64>,
    /// The SHA-1 the model gives for them, as hex.
    pub checksum: Option<String>,
}

impl TensorRef {
    /// Where its values are outside the file: ONNX external data, or the
    /// side file its format found them in (see [`TensorRef::in_side_file`]);
    /// None when they are in the file (or a side file's range could not be
    /// found).
    pub fn external_data(&self) -> Option<ExternalData> {
        let side = self.side.as_ref().and_then(|s| s.place.as_ref().ok());
        self.external.as_ref().or(side).map(|x| ExternalData {
            location: x.location.clone(),
            offset: x.offset.as_ref().and_then(|s| s.parse().ok()),
            length: x.length.as_ref().and_then(|s| s.parse().ok()),
            checksum: x.checksum.clone(),
        })
    }

    /// Whether its format found its values in a side file beside the input
    /// (a Paddle parameter's `.pdiparams`, a Core ML program's weight file)
    /// rather than in the file or in ONNX external data.
    pub fn in_side_file(&self) -> bool {
        self.side.is_some()
    }

    /// The path as text: `graph.initializer[0]`, `node[2].attr["value"].tensor`.
    pub fn path_text(&self) -> String {
        let mut s = String::new();
        for step in &self.path {
            match step {
                Step::Field(f) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(f);
                }
                Step::Index(i) => s.push_str(&format!("[{i}]")),
                Step::Key(k) => s.push_str(&format!("[{}]", crate::escape::quoted_str(k))),
            }
        }
        s
    }
}

/// A message of the decoded tree, with the message it is in and where in
/// it (the built-in tables live as long as the program, so a field name is
/// borrowed, not copied, for each message).
struct Node<'m, 'a> {
    msg: &'m Message<'a>,
    parent: Option<usize>,
    /// None for a map's value, which the JSON output puts under its key.
    field: Option<&'static str>,
    place: Place<'m, 'a>,
}

/// Where a message is in its field.
enum Place<'m, 'a> {
    Single,
    Index(usize),
    /// A map's entry, whose key is spelled only on a tensor's path (most
    /// entries of a model are not on one).
    Key(&'m Message<'a>),
}

/// Every tensor of a decoded file with its path and role. A tensor's
/// chain of enclosing messages is found by descending from the root
/// through the one field whose message holds the tensor's bytes (a binary
/// search among the fields of each slot), so a model of 20,000 nodes is
/// not walked to index its 400 initializers. Where that fails (a message
/// merged from several places in the input holds fields outside its own
/// range), the whole tree is walked once instead. A tensor bundle's
/// tensors are its entries.
pub(super) fn index(
    decoded: &Decoded<'_>,
    root_role: Role,
    dir: Option<&Folder>,
) -> Vec<TensorRef> {
    if let Body::Bundle(b) = &decoded.body {
        return bundle_index(b, dir);
    }
    let Body::Message { message: root, .. } = &decoded.body else {
        return Vec::new();
    };
    let set = SchemaSet::builtin();
    let named = formats::named_tensors(set, root);
    let chains: Option<Vec<Vec<Node<'_, '_>>>> = named
        .iter()
        .map(|t| chain_by_range(set, root, t.message))
        .collect();
    let walked;
    let located: Vec<Option<(&[Node<'_, '_>], usize)>> = match &chains {
        Some(chains) => chains
            .iter()
            .map(|c| Some((c.as_slice(), c.len().checked_sub(1)?)))
            .collect(),
        None => {
            walked = walk_tree(set, root, &named);
            let (nodes, at) = &walked;
            named
                .iter()
                .map(|t| {
                    let n = at.get(&std::ptr::from_ref(t.message)).copied()?;
                    Some((nodes.as_slice(), n))
                })
                .collect()
        }
    };
    let mut refs: Vec<TensorRef> = named
        .into_iter()
        .zip(located)
        .map(|(t, node)| {
            let external = t.view(set).and_then(|v| match v.data {
                TensorData::External(r) => Some(r),
                _ => None,
            });
            TensorRef {
                role: node.map_or(Role::Other, |(nodes, n)| role(set, nodes, n, root_role)),
                path: node
                    .map(|(nodes, n)| path(set, nodes, n))
                    .unwrap_or_default(),
                range: t.message.offset..t.message.end,
                weight: t.initializer,
                external,
                bundle: None,
                side: None,
                def: t.message.def,
                name: t.name,
            }
        })
        .collect();
    // Tensors whose values are in side files beside the input (a Paddle
    // program's parameters).
    if let Some(dir) = dir {
        for t in (decoded.format.side_tensors)(set, root, dir) {
            refs.push(TensorRef {
                name: t.name,
                role: Role::Variable,
                weight: true,
                path: Vec::new(),
                range: t.message.offset..t.message.end,
                external: None,
                bundle: None,
                side: Some(t.values),
                def: t.message.def,
            });
        }
    }
    // A SavedModel's variables, their values in `variables/` beside it.
    if let Some(dir) = dir {
        for v in formats::tf_checkpoint::saved_model_variables(set, root, dir) {
            refs.push(TensorRef {
                name: v.name,
                role: Role::Variable,
                weight: true,
                path: Vec::new(),
                range: v.message.offset..v.message.end,
                external: None,
                bundle: Some(BundleTensor::V2(v.values)),
                side: None,
                def: v.message.def,
            });
        }
    }
    refs
}

/// The messages from `root` down to `target`, each step into the field
/// whose message's byte range holds the target's: fields of one slot are
/// in input order, so the candidate is the last one whose key is not after
/// the target. None when no field holds it (merged messages).
fn chain_by_range<'m, 'a>(
    set: &'static SchemaSet,
    root: &'m Message<'a>,
    target: &'m Message<'a>,
) -> Option<Vec<Node<'m, 'a>>> {
    let mut chain = vec![Node {
        msg: root,
        parent: None,
        field: None,
        place: Place::Single,
    }];
    let mut at = root;
    // Every step goes into a message nested in `at`, so the descent ends
    // within the tree's depth, which the decoder bounds.
    while !std::ptr::eq(at, target) {
        let in_map_entry = at.def(set).map_entry;
        let parent = chain.len().checked_sub(1);
        let step = at.present(set).find_map(|(fdef, group)| {
            let k = group
                .partition_point(|f| f.offset <= target.offset)
                .checked_sub(1)?;
            let Value::Message(sub) = &group.get(k)?.value else {
                return None;
            };
            let sub: &'m Message<'a> = sub;
            let holds =
                std::ptr::eq(sub, target) || (sub.offset <= target.offset && target.end <= sub.end);
            if !holds {
                return None;
            }
            let is_map = matches!(fdef.ty, crate::schema::FieldType::Message(m)
                if set.message(m).map_entry);
            let place = if is_map {
                Place::Key(sub)
            } else if fdef.repeated() {
                Place::Index(k)
            } else {
                Place::Single
            };
            Some(Node {
                msg: sub,
                parent,
                field: (!in_map_entry).then_some(fdef.name.as_str()),
                place,
            })
        })?;
        at = step.msg;
        chain.push(step);
    }
    Some(chain)
}

/// Every message of the tree, with where each of `named`'s tensors is
/// among them. The tree is walked with a queue, not recursion; its depth
/// is the decoder's, bounded by its depth budget. Only the tensors'
/// messages are looked up by address (a binary search among them), so the
/// walk neither hashes nor allocates per message.
#[allow(clippy::type_complexity)]
fn walk_tree<'m, 'a>(
    set: &'static SchemaSet,
    root: &'m Message<'a>,
    named: &[formats::NamedTensor<'m, 'a>],
) -> (Vec<Node<'m, 'a>>, HashMap<*const Message<'a>, usize>) {
    let mut targets: Vec<*const Message<'_>> = named
        .iter()
        .map(|t| std::ptr::from_ref(t.message))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    let mut at: HashMap<*const Message<'_>, usize> = HashMap::with_capacity(targets.len());
    let mut nodes: Vec<Node<'_, '_>> = vec![Node {
        msg: root,
        parent: None,
        field: None,
        place: Place::Single,
    }];
    let mut next = 0usize;
    while let Some(node) = nodes.get(next) {
        let msg = node.msg;
        if targets.binary_search(&std::ptr::from_ref(msg)).is_ok() {
            at.insert(std::ptr::from_ref(msg), next);
        }
        let in_map_entry = msg.def(set).map_entry;
        for (fdef, group) in msg.present(set) {
            let is_map = matches!(fdef.ty, crate::schema::FieldType::Message(m)
                if set.message(m).map_entry);
            for (k, f) in group.iter().enumerate() {
                let Value::Message(sub) = &f.value else {
                    continue;
                };
                let place = if is_map {
                    Place::Key(sub)
                } else if fdef.repeated() {
                    Place::Index(k)
                } else {
                    Place::Single
                };
                nodes.push(Node {
                    msg: sub,
                    parent: Some(next),
                    field: (!in_map_entry).then_some(fdef.name.as_str()),
                    place,
                });
            }
        }
        next += 1;
    }
    (nodes, at)
}

/// A tensor bundle's tensors, each named by its key (V2: every entry
/// but the slices of partitioned variables, which are read as part of
/// their tensor) or by its name (V1: each tensor saved whole); its message
/// is its entry in the index.
fn bundle_index(b: &crate::formats::Bundle<'_>, dir: Option<&Folder>) -> Vec<TensorRef> {
    use crate::formats::tf_checkpoint as tfc;
    let set = SchemaSet::builtin();
    let variable = |name: String, e: &crate::formats::BundleEntry<'_>, bundle| TensorRef {
        name,
        role: Role::Variable,
        weight: true,
        path: Vec::new(),
        range: e.message.offset..e.message.end,
        external: None,
        bundle: Some(bundle),
        side: None,
        def: e.message.def,
    };
    if b.version == crate::formats::BundleVersion::V1 {
        return tfc::v1_tensors(set, b)
            .into_iter()
            .map(|t| match t {
                tfc::V1Tensor::Whole(e, meta) => {
                    let name = tfc::v1_tensor(set, &e.message).map_or("", |(n, _)| n);
                    variable(name.to_string(), e, BundleTensor::V1(meta))
                }
                tfc::V1Tensor::Sliced(s) => TensorRef {
                    name: String::from_utf8_lossy(&s.name).into_owned(),
                    role: Role::Variable,
                    weight: true,
                    path: Vec::new(),
                    // The header's listing of it (name, type, shape and
                    // slices): its values are assembled from the slices.
                    range: s.listed.1.clone(),
                    external: None,
                    side: None,
                    def: s.listed.0,
                    bundle: Some(BundleTensor::V1Sliced(s)),
                },
            })
            .collect();
    }
    let prefix = dir.and_then(|d| tfc::find_prefix(d, b.bytes));
    let shards = tfc::num_shards(set, &b.header);
    let file = |shard| prefix.as_deref().map(|p| tfc::shard_name(p, shard, shards));
    tfc::bundle_tensors(set, b, &file)
        .into_iter()
        .map(|(e, values)| {
            let name = String::from_utf8_lossy(&e.key).into_owned();
            variable(name, e, BundleTensor::V2(values))
        })
        .collect()
}

/// The steps from the root to node `n`.
fn path(set: &SchemaSet, nodes: &[Node<'_, '_>], n: usize) -> Vec<Step> {
    let mut chain = Vec::new();
    let mut at = Some(n);
    while let Some(node) = at.and_then(|i| nodes.get(i)) {
        chain.push(node);
        at = node.parent;
    }
    let mut steps = Vec::new();
    for node in chain.into_iter().rev() {
        steps.extend(node.field.map(|f| Step::Field(f.to_string())));
        match &node.place {
            Place::Single => {}
            Place::Index(i) => steps.push(Step::Index(*i)),
            Place::Key(entry) => steps.push(Step::Key(render::json::map_key(set, entry))),
        }
    }
    steps
}

/// What the tensor at node `n` is: the root's role, or what the formats
/// say of the messages it is in.
fn role(set: &SchemaSet, nodes: &[Node<'_, '_>], n: usize, root_role: Role) -> Role {
    let Some(node) = nodes.get(n) else {
        return Role::Other;
    };
    if node.parent.is_none() {
        return root_role;
    }
    // The messages around it, innermost first.
    let mut outer = Vec::new();
    let mut at = node.parent;
    while let Some(m) = at.and_then(|i| nodes.get(i)) {
        outer.push(m.msg);
        at = m.parent;
    }
    formats::tensor_role(set, node.field, &outer)
}

#[cfg(test)]
mod tests {
    use super::{chain_by_range, path, role, walk_tree};
    use crate::api::Role;
    use crate::formats::{self, Body, FormatOptions};
    use crate::schema::SchemaSet;
    use std::path::{Path, PathBuf};

    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                files(&p, out);
            } else if !matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("snap" | "md" | "json" | "proto")
            ) {
                out.push(p);
            }
        }
    }

    /// The descent by byte range finds every tensor of every fixture where
    /// the walk of the whole tree does, with the same path and role; the
    /// one fixture whose graph is merged from two places needs the walk.
    #[test]
    fn descent_by_range_agrees_with_the_walk_on_every_fixture() {
        let set = SchemaSet::builtin();
        let mut all = Vec::new();
        files(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
            &mut all,
        );
        let (mut tensors, mut not_held) = (0usize, Vec::new());
        for file in &all {
            let Ok(bytes) = std::fs::read(file) else {
                continue;
            };
            let Ok(decoded) = formats::detect(&bytes, &FormatOptions::default()) else {
                continue;
            };
            let Body::Message { message: root, .. } = &decoded.body else {
                continue;
            };
            let named = formats::named_tensors(set, root);
            let (nodes, at) = walk_tree(set, root, &named);
            for t in &named {
                tensors += 1;
                let walked = at.get(&std::ptr::from_ref(t.message)).copied();
                match chain_by_range(set, root, t.message) {
                    Some(chain) => {
                        let n = walked.expect("the walk finds every tensor");
                        let last = chain.len() - 1;
                        assert_eq!(path(set, &chain, last), path(set, &nodes, n), "{file:?}");
                        assert_eq!(
                            role(set, &chain, last, Role::TensorFile),
                            role(set, &nodes, n, Role::TensorFile),
                            "{file:?}"
                        );
                    }
                    None => not_held.push(file.file_name().unwrap_or_default().to_owned()),
                }
            }
        }
        assert!(tensors > 500, "{tensors} tensors");
        // A merged message's range runs from its first occurrence to its
        // last, so here it holds everything between.
        assert!(not_held.is_empty(), "{not_held:?}");
    }

    /// A model whose `graph` occurs twice, around a `training_info` that
    /// holds an initializer: the merged graph's range holds that tensor's
    /// bytes too, the descent goes into the graph and finds nothing, and
    /// the tensor is indexed by the walk, with the path the walk gives.
    #[test]
    fn a_tensor_between_two_occurrences_of_a_merged_message_is_found_by_the_walk() {
        fn len_field(number: u8, body: &[u8]) -> Vec<u8> {
            let mut out = vec![number << 3 | 2, u8::try_from(body.len()).unwrap_or(0)];
            out.extend_from_slice(body);
            out
        }
        let tensor = [
            &[0x08, 0x01, 0x10, 0x01][..],
            &len_field(4, &1.0f32.to_le_bytes()),
            &len_field(8, b"w"),
        ]
        .concat();
        let init_graph = len_field(5, &tensor);
        let training = len_field(1, &init_graph);
        let bytes = [
            &[0x08, 0x08][..],
            &len_field(7, &len_field(2, b"a")),
            &[0xa2, 0x01, u8::try_from(training.len()).unwrap_or(0)],
            &training,
            &len_field(7, &len_field(2, b"b")),
        ]
        .concat();
        let doc = crate::api::read(bytes).expect("a model");
        assert_eq!(doc.format().id, "onnx-model");
        let t = doc
            .tensors()
            .iter()
            .find(|t| t.name == "w")
            .expect("the tensor w");
        let set = SchemaSet::builtin();
        let decoded = formats::detect(doc.bytes(), &FormatOptions::default()).expect("model");
        let Body::Message { message: root, .. } = &decoded.body else {
            panic!("not a message");
        };
        let named = formats::named_tensors(set, root);
        let w = named.iter().find(|n| n.name == "w").expect("named");
        assert!(chain_by_range(set, root, w.message).is_none());
        assert_eq!(
            t.path_text(),
            "training_info[0].initialization.initializer[0]"
        );
    }
}
