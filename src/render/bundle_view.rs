//! The text view of a TensorFlow tensor bundle (its JSON is in `json.rs`): a header (format,
//! version, shards, tensors, bytes, the checksums' summary), then every
//! tensor with its key, type, shape, place in its shard, CRC32C status and
//! values as the other tensor views print them, and a TensorFlow 2
//! checkpoint's object tree.

use super::RenderOptions;
use super::fmt::indent;
use crate::decode::Message;
use crate::escape::{plain, quoted};
use crate::fields::tensorflow::{
    BundleEntryProto, BundleHeaderProto, TensorSliceProto, TrackableObjectGraph,
};
use crate::formats::tf_checkpoint::{
    self as tfc, CrcStatus, ObjectGraph, Shards, V1Slices, header, object_graph, with_entry,
};
use crate::formats::{Bundle, BundleVersion};
use crate::schema::SchemaSet;
use crate::tensor::{LoadedValues, TensorView};
use std::io::{self, Write};

/// The extents of a TensorSliceProto as [`tfc::extents_text`] writes them.
fn slice_text(set: &SchemaSet, s: &Message<'_>) -> String {
    let extents: Vec<(i64, i64)> = s
        .messages(set, TensorSliceProto::EXTENT)
        .map(|x| {
            (
                x.int(set, TensorSliceProto::Extent::START).unwrap_or(0),
                x.int(set, TensorSliceProto::Extent::LENGTH).unwrap_or(-1),
            )
        })
        .collect();
    tfc::extents_text(&extents)
}

/// A V1 tensor's slices' extents as text, in table order.
fn v1_extents_text(sliced: &V1Slices) -> String {
    let parts: Vec<String> = sliced
        .slices
        .iter()
        .map(|s| tfc::extents_text(&s.extents))
        .collect();
    parts.join(" ")
}

/// One line per object reached from node 0 by its children, depth first,
/// each object once (a graph may share an object or hold a cycle); the
/// walk keeps its own stack, so the graph's depth does not reach the
/// program's.
fn object_tree_lines(graph: &ObjectGraph) -> Vec<(usize, String)> {
    use crate::fields::tensorflow::TrackableObjectGraph::TrackableObject as T;
    let set = SchemaSet::builtin();
    let Some(m) = graph.message() else {
        return Vec::new();
    };
    let nodes: Vec<&Message<'_>> = m.messages(set, TrackableObjectGraph::NODES).collect();
    let mut seen = vec![false; nodes.len()];
    let mut out = Vec::new();
    let mut stack: Vec<(usize, usize, String)> = vec![(0, 0, "(root)".to_string())];
    while let Some((id, depth, name)) = stack.pop() {
        let Some(node) = nodes.get(id) else {
            out.push((depth, format!("{name}: node {id} (not in the graph)")));
            continue;
        };
        let Some(s) = seen.get_mut(id) else { continue };
        if *s {
            out.push((depth, format!("{name}: node {id} (shown above)")));
            continue;
        }
        *s = true;
        let keys: Vec<String> = node
            .messages(set, T::ATTRIBUTES)
            .map(|a| {
                quoted(
                    a.bytes(set, T::SerializedTensor::CHECKPOINT_KEY)
                        .unwrap_or_default(),
                )
            })
            .collect();
        let mut line = format!("{name}: node {id}");
        if !keys.is_empty() {
            line.push_str(&format!(" -> {}", keys.join(", ")));
        }
        let slots: Vec<String> = node
            .messages(set, T::SLOT_VARIABLES)
            .map(|s| {
                format!(
                    "slot {} of node {} = node {}",
                    quoted(
                        s.bytes(set, T::SlotVariableReference::SLOT_NAME)
                            .unwrap_or_default()
                    ),
                    s.int(set, T::SlotVariableReference::ORIGINAL_VARIABLE_NODE_ID)
                        .unwrap_or(0),
                    s.int(set, T::SlotVariableReference::SLOT_VARIABLE_NODE_ID)
                        .unwrap_or(0)
                )
            })
            .collect();
        if !slots.is_empty() {
            line.push_str(&format!(" ({})", slots.join("; ")));
        }
        out.push((depth, line));
        let children: Vec<(usize, usize, String)> = node
            .messages(set, T::CHILDREN)
            .map(|c| {
                let child = c.int(set, T::ObjectReference::NODE_ID).unwrap_or(0);
                let local = c
                    .bytes(set, T::ObjectReference::LOCAL_NAME)
                    .unwrap_or_default();
                (
                    usize::try_from(child).unwrap_or(usize::MAX),
                    depth + 1,
                    quoted(local),
                )
            })
            .collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

fn version_word(v: BundleVersion) -> &'static str {
    match v {
        BundleVersion::V2 => "V2 (index and data shards)",
        BundleVersion::V1 => "V1 (one file, values in the table)",
    }
}

/// The key as text: the tensor's name, or for a slice key the name it
/// is a slice of.
fn key_label(key: &[u8]) -> String {
    match tfc::parse_slice_key(key) {
        Some(k) => format!(
            "{} slice {}",
            quoted(&k.name),
            tfc::extents_text(&k.extents)
        ),
        None => quoted(key),
    }
}

/// The text view.
pub fn text(w: &mut dyn Write, bundle: &Bundle<'_>, opts: &RenderOptions) -> io::Result<()> {
    let set = SchemaSet::builtin();
    let dir = opts.dir.as_ref();
    let shards = Shards::of(bundle, dir);
    let h = header(bundle, &shards, dir);
    writeln!(w, "version:   {}", version_word(bundle.version))?;
    if bundle.version == BundleVersion::V2 {
        let endianness = bundle
            .header
            .int(set, BundleHeaderProto::ENDIANNESS)
            .unwrap_or(0);
        let producer = bundle
            .header
            .message(set, BundleHeaderProto::VERSION)
            .and_then(|v| v.int(set, crate::fields::tensorflow::VersionDef::PRODUCER))
            .unwrap_or(0);
        writeln!(
            w,
            "header:    {} endian, bundle format version {producer}",
            if endianness == 1 { "big" } else { "little" }
        )?;
        match &shards.prefix {
            Some(p) => writeln!(
                w,
                "shards:    {} ({})",
                shards.count,
                plain(&tfc::shard_name(p, 0, shards.count)).replace("00000-of", "SSSSS-of")
            )?,
            None => writeln!(
                w,
                "shards:    {} (not found: the index is not in its folder, or there is no folder)",
                shards.count
            )?,
        }
    }
    writeln!(
        w,
        "tensors:   {}, {} bytes",
        super::elide::grouped(h.tensors),
        super::elide::grouped(h.bytes)
    )?;
    writeln!(
        w,
        "checksums: {} ok, {} mismatch, {} not checked",
        h.crc.ok, h.crc.mismatch, h.crc.not_checked
    )?;
    for e in &bundle.entries {
        writeln!(w)?;
        writeln!(w, "tensor {}", key_label(&e.key))?;
        with_entry(bundle, &shards, e, dir, |view, loaded, crc| {
            entry_text(w, bundle, &shards, e, view, loaded, &crc, opts)
        })?;
    }
    for sliced in tfc::v1_sliced(bundle) {
        writeln!(w)?;
        writeln!(
            w,
            "tensor {} (assembled from its slices)",
            quoted(&sliced.name)
        )?;
        // Numbers are read from the slices holding them, never assembled;
        // strings (each a slice's bytes) and slices that do not make their
        // tensor go through the assembly, which says why.
        let set = SchemaSet::builtin();
        match tfc::V1SlicedValues::open(set, &sliced, bundle.bytes) {
            Ok(values) if values.elem != crate::tensor::Elem::Str => {
                let view = sliced.view(set);
                type_and_shape_text(w, &view)?;
                indent(w, 1)?;
                writeln!(w, "slices:    {}", v1_extents_text(&sliced))?;
                indent(w, 1)?;
                writeln!(w, "crc32c:    {}", tfc::v1_crc().word())?;
                super::tree::sliced_values(w, &view, &values, 1, opts, false)?;
            }
            _ => tfc::with_v1_sliced(bundle, &sliced, |view, loaded, crc| {
                type_and_shape_text(w, view)?;
                indent(w, 1)?;
                writeln!(w, "slices:    {}", v1_extents_text(&sliced))?;
                indent(w, 1)?;
                writeln!(w, "crc32c:    {}", crc.word())?;
                super::tree::view_values(w, view, loaded, 1, opts, false)
            })?,
        }
    }
    if let Some(graph) = object_graph(bundle, &shards, dir) {
        writeln!(w)?;
        writeln!(w, "object graph:")?;
        object_tree_text(w, &graph)?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn entry_text(
    w: &mut dyn Write,
    bundle: &Bundle<'_>,
    shards: &Shards,
    e: &crate::formats::BundleEntry<'_>,
    view: &TensorView<'_, '_>,
    loaded: LoadedValues<'_>,
    crc: &CrcStatus,
    opts: &RenderOptions,
) -> io::Result<()> {
    let set = SchemaSet::builtin();
    let entry = &e.message;
    type_and_shape_text(w, view)?;
    if bundle.version == BundleVersion::V2 {
        let f = tfc::entry_facts(set, entry);
        if !f.slices.is_empty() {
            let slices: Vec<String> = entry
                .messages(set, BundleEntryProto::SLICES)
                .map(|s| slice_text(set, s))
                .collect();
            indent(w, 1)?;
            writeln!(w, "slices:    {}", slices.join(" "))?;
        } else {
            indent(w, 1)?;
            let file = shards
                .file(f.shard)
                .map_or_else(String::new, |n| format!(" ({})", plain(&n)));
            writeln!(
                w,
                "stored:    shard {}{file}, offset {}, {} bytes",
                f.shard,
                f.offset,
                super::elide::grouped(u64::try_from(f.size).unwrap_or(0))
            )?;
        }
    }
    indent(w, 1)?;
    match crc.detail() {
        Some(d)
            if !matches!(crc, CrcStatus::NotChecked(_)) || bundle.version == BundleVersion::V2 =>
        {
            writeln!(w, "crc32c:    {} ({})", crc.word(), plain(d))?
        }
        _ => writeln!(w, "crc32c:    {}", crc.word())?,
    }
    if e.key == tfc::OBJECT_GRAPH_KEY && !matches!(loaded, LoadedValues::Unavailable(_)) {
        indent(w, 1)?;
        return writeln!(w, "values:    the object graph (below)");
    }
    super::tree::view_values(w, view, loaded, 1, opts, false)
}

/// `data type: DT_FLOAT` and `shape:     [2, 3]  (6 elements)`.
fn type_and_shape_text(w: &mut dyn Write, view: &TensorView<'_, '_>) -> io::Result<()> {
    indent(w, 1)?;
    writeln!(w, "data type: {}", view.type_name)?;
    indent(w, 1)?;
    match &view.dims {
        None => writeln!(w, "shape:     unknown rank"),
        Some(d) if d.is_empty() => writeln!(w, "shape:     scalar  (1 element)"),
        Some(d) => {
            let parts: Vec<String> = d.iter().map(i64::to_string).collect();
            writeln!(
                w,
                "shape:     [{}]  ({} element{})",
                parts.join(", "),
                super::elide::grouped(view.elements),
                if view.elements == 1 { "" } else { "s" }
            )
        }
    }
}

fn object_tree_text(w: &mut dyn Write, graph: &ObjectGraph) -> io::Result<()> {
    for (depth, line) in object_tree_lines(graph) {
        indent(w, depth + 1)?;
        writeln!(w, "{line}")?;
    }
    Ok(())
}
