//! TensorFlow tensor bundles: checkpoints (`ckpt.index` with its
//! `ckpt.data-SSSSS-of-NNNNN` shards) and a SavedModel's
//! `variables/variables.index`; also TensorFlow 1's V1 checkpoints (one
//! file, the same table holding `SavedTensorSlices`).
//!
//! The index is a LevelDB-style table (`tensorflow/core/lib/io/table.cc`,
//! `block.cc`, `format.cc`), all little-endian: a 48-byte footer (the
//! metaindex and index block handles, two varint64s each, zero padding to
//! 40 bytes, then the magic); every block followed by a 5-byte trailer
//! (compression type, masked CRC32C of the block and the type byte); a
//! block is prefix-compressed entries, `u32 restarts[n]`, `u32 n`. The
//! index block maps each data block's last key to its handle. The first
//! key, `""`, holds a `BundleHeaderProto` (V2) or the `SavedTensorSlices`
//! meta (V1); every other key a `BundleEntryProto` (V2: where its values
//! are in a shard) or `SavedTensorSlices` (V1: the values themselves).
//!
//! Nothing here reads a shard: a tensor's values are a side file's range
//! (`crate::external`), read when asked.

mod slice_key;
mod v1;

use super::base::{Body, Bundle, BundleEntry, BundleVersion, Format, FormatOptions};
use super::summary::no_summary;
use super::tensorflow::{dtype_name, shape_dims, tensor_head};
use crate::checksum;
use crate::decode::{DecodeContext, Message, decode_message};
use crate::error::{AllocError, DecodeError, Result, Rule};
use crate::escape::quoted;
use crate::external::ExternalError;
use crate::external::{ExternalBytes, ExternalRef, Folder};
use crate::fields::tensorflow::TrackableObjectGraph;
use crate::fields::tensorflow::{
    BundleEntryProto, BundleHeaderProto, GraphDef, NodeDef, SavedTensorSlices, TensorSliceProto,
};
use crate::schema::SchemaSet;
use crate::tensor::{Elem, LoadedValues, TensorData, TensorView, raw_size};
pub use slice_key::{SliceKey, extents_text, parse_slice_key, slice_key_name};
pub use v1::{
    V1Meta, V1Slice, V1Slices, V1Tensor, v1_is_whole, v1_meta, v1_slice_view, v1_tensor,
    v1_tensors, v1_view,
};

/// The table's magic number, the footer's last 8 bytes.
pub const TABLE_MAGIC: [u8; 8] = 0xdb47_7524_8b80_fb57_u64.to_le_bytes();
/// The footer: two block handles padded to 40 bytes, then the magic.
const FOOTER_LEN: u64 = 48;
/// After each block: the compression type and a masked CRC32C.
const TRAILER_LEN: u64 = 5;

/// `tf-checkpoint.proto`: the bundle's header and entries, V1's slices.
pub const CHECKPOINT_FILE: (&str, &str) = (
    "tf-checkpoint.proto",
    include_str!("../../schemas/tf-checkpoint.proto"),
);

fn table_error(rule: Rule, detail: impl Into<String>, offset: u64) -> DecodeError {
    DecodeError::rule(rule, detail, offset)
}

/// Whether the input ends as a table does (48 bytes or more, the magic
/// last).
pub fn has_table_magic(bytes: &[u8]) -> bool {
    bytes.len() as u64 >= FOOTER_LEN && bytes.ends_with(&TABLE_MAGIC)
}

/// Whether detection reads the input as a bundle: it ends with the table
/// magic, or it begins as a bundle's first block does (key `""`: no
/// shared or own key bytes, a value length, then a `BundleHeaderProto`'s
/// first field, 08, or V1's meta, 0a), so that an index cut short is told
/// it has no footer. Protobuf never begins with 00 (field number 0).
pub fn looks_like_bundle(bytes: &[u8]) -> bool {
    has_table_magic(bytes) || matches!(bytes, [0, 0, 1..=0x7f, 0x08 | 0x0a, ..])
}

/// A varint64 at `at`: its value and the offset after it.
fn varint_at(bytes: &[u8], at: u64, what: &str, rule: Rule) -> Result<(u64, u64)> {
    let rest = usize::try_from(at)
        .ok()
        .and_then(|a| bytes.get(a..))
        .unwrap_or(&[]);
    match crate::wire::varint(rest) {
        Ok((left, v)) => Ok((v, at + (rest.len() - left.len()) as u64)),
        Err(_) => Err(table_error(
            rule,
            format!("{what}: no well-formed varint"),
            at,
        )),
    }
}

/// A block's place in the file.
#[derive(Debug, Clone, Copy)]
struct BlockHandle {
    offset: u64,
    size: u64,
}

fn handle_at(bytes: &[u8], at: u64, what: &str, rule: Rule) -> Result<(BlockHandle, u64)> {
    let (offset, at) = varint_at(bytes, at, what, rule)?;
    let (size, at) = varint_at(bytes, at, what, rule)?;
    Ok((BlockHandle { offset, size }, at))
}

/// The contents of a block, its trailer checked: in the file, an
/// uncompressed block whose masked CRC32C matches.
fn read_block<'a>(bytes: &'a [u8], h: BlockHandle, what: &str) -> Result<&'a [u8]> {
    let len = bytes.len() as u64;
    let end = h
        .offset
        .checked_add(h.size)
        .and_then(|e| e.checked_add(TRAILER_LEN));
    let Some(end) = end.filter(|&e| e <= len.saturating_sub(FOOTER_LEN)) else {
        return Err(table_error(
            Rule::TableBlock,
            format!(
                "{what} at {} of {} bytes (and its 5-byte trailer) runs past the blocks' end ({} bytes before the footer)",
                h.offset,
                h.size,
                len.saturating_sub(FOOTER_LEN)
            ),
            h.offset.min(len),
        ));
    };
    let slice = |a: u64, b: u64| {
        usize::try_from(a)
            .ok()
            .zip(usize::try_from(b).ok())
            .and_then(|(a, b)| bytes.get(a..b))
    };
    let trailer_at = end - TRAILER_LEN;
    let (Some(contents), Some(trailer)) = (slice(h.offset, trailer_at), slice(trailer_at, end))
    else {
        return Err(table_error(
            Rule::TableBlock,
            format!("{what} is not in the file"),
            h.offset,
        ));
    };
    let (Some(&kind), Some(stored)) = (
        trailer.first(),
        trailer
            .get(1..5)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes),
    ) else {
        return Err(table_error(
            Rule::TableBlock,
            format!("{what}: trailer cut short"),
            trailer_at,
        ));
    };
    let crc = checksum::crc32c_extend(checksum::crc32c(contents), &[kind]);
    if checksum::mask(crc) != stored {
        return Err(table_error(
            Rule::TableChecksum,
            format!(
                "{what} at {}: masked CRC32C {:08x}, the trailer says {stored:08x}",
                h.offset,
                checksum::mask(crc)
            ),
            trailer_at + 1,
        ));
    }
    match kind {
        0 => Ok(contents),
        1 => Err(table_error(
            Rule::TableCompression,
            format!(
                "{what} at {} is Snappy-compressed (type 1); TensorFlow writes bundles uncompressed and this reader does not decompress",
                h.offset
            ),
            trailer_at,
        )),
        other => Err(table_error(
            Rule::TableCompression,
            format!("{what} at {}: unknown compression type {other}", h.offset),
            trailer_at,
        )),
    }
}

/// The entries of a block (`contents` at file offset `base`), each key
/// restored from its shared prefix: (key, value, value's offset).
fn block_entries<'a>(
    contents: &'a [u8],
    base: u64,
    what: &str,
    mut each: impl FnMut(&[u8], &'a [u8], u64) -> Result<()>,
) -> Result<()> {
    let len = contents.len() as u64;
    let count_at = len.checked_sub(4).ok_or_else(|| {
        table_error(
            Rule::TableBlock,
            format!("{what} of {len} bytes has no restart count"),
            base,
        )
    })?;
    let restarts = contents
        .get(count_at as usize..)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, u32::from_le_bytes);
    // The restart array must fit before the count; nothing is allocated
    // for it (the entries are read in order).
    let array = u64::from(restarts) * 4;
    let Some(entries_end) = count_at.checked_sub(array).filter(|_| restarts > 0) else {
        return Err(table_error(
            Rule::TableBlock,
            format!(
                "{what}: {restarts} restart points need {array} bytes, the block has {count_at} before its count"
            ),
            base + count_at,
        ));
    };
    let mut key: Vec<u8> = Vec::new();
    let mut at = 0u64;
    let area = contents.get(..entries_end as usize).unwrap_or(&[]);
    while at < entries_end {
        let entry_at = base + at;
        let bad = |detail: String| table_error(Rule::TableEntry, detail, entry_at);
        let (shared, p) = varint_at(area, at, "key prefix length", Rule::TableEntry)
            .map_err(|e| e.within(what.to_string()))?;
        let (unshared, p) = varint_at(area, p, "key suffix length", Rule::TableEntry)?;
        let (value_len, p) = varint_at(area, p, "value length", Rule::TableEntry)?;
        for (name, v) in [
            ("key prefix length", shared),
            ("key suffix length", unshared),
            ("value length", value_len),
        ] {
            if v > u64::from(u32::MAX) {
                return Err(bad(format!("{name} {v} is not a 32-bit varint")));
            }
        }
        if shared > key.len() as u64 {
            return Err(bad(format!(
                "the key shares {shared} bytes with the key before it, which has {}",
                key.len()
            )));
        }
        let left = entries_end - p;
        if unshared.saturating_add(value_len) > left {
            return Err(bad(format!(
                "key suffix {unshared} + value {value_len} bytes > {left} bytes left in the block"
            )));
        }
        let suffix = area.get(p as usize..(p + unshared) as usize).unwrap_or(&[]);
        let value_at = p + unshared;
        let value = area
            .get(value_at as usize..(value_at + value_len) as usize)
            .unwrap_or(&[]);
        key.truncate(shared as usize);
        key.extend_from_slice(suffix);
        each(&key, value, base + value_at)?;
        at = value_at + value_len;
    }
    Ok(())
}

/// Reads the table: every data block through the index block, in order;
/// `each` gets every key with its value and the value's offset.
fn read_table<'a>(
    bytes: &'a [u8],
    mut each: impl FnMut(&[u8], &'a [u8], u64) -> Result<()>,
) -> Result<()> {
    let len = bytes.len() as u64;
    if !has_table_magic(bytes) {
        return Err(table_error(
            Rule::TableFooter,
            "no table footer (48 bytes ending with the magic 57 fb 80 8b 24 75 47 db)",
            len.saturating_sub(8),
        ));
    }
    let footer = len - FOOTER_LEN;
    let (_meta, at) = handle_at(bytes, footer, "metaindex handle", Rule::TableFooter)?;
    let (index, _) = handle_at(bytes, at, "index handle", Rule::TableFooter)?;
    let index_block = read_block(bytes, index, "index block")?;
    let mut handles: Vec<(BlockHandle, u64)> = Vec::new();
    block_entries(index_block, index.offset, "index block", |_, value, at| {
        let (h, _) = handle_at(value, 0, "data block handle", Rule::TableEntry)
            .map_err(|e| DecodeError::rule(Rule::TableEntry, e.message(), at))?;
        handles.push((h, at));
        Ok(())
    })?;
    let mut last: Option<Vec<u8>> = None;
    // Where the block before ends: a table's blocks follow one another,
    // so no two share bytes (nor do the entries read from them).
    let mut blocks_end = 0u64;
    for (h, at) in handles {
        if h.offset < blocks_end {
            return Err(table_error(
                Rule::TableBlock,
                format!(
                    "data block at {} begins before the block before it ends ({blocks_end}): a table's blocks share no bytes",
                    h.offset
                ),
                at,
            ));
        }
        blocks_end = h.offset.saturating_add(h.size).saturating_add(TRAILER_LEN);
        let block = read_block(bytes, h, "data block")?;
        block_entries(block, h.offset, "data block", |key, value, at| {
            if let Some(prev) = &last
                && prev.as_slice() >= key
            {
                return Err(table_error(
                    Rule::TableEntry,
                    "keys out of order (a table's keys are sorted bytewise, each once)",
                    at,
                ));
            }
            last = Some(key.to_vec());
            each(key, value, at)
        })?;
    }
    Ok(())
}

fn strict() -> DecodeContext {
    DecodeContext::strict()
}

/// Reads an index (or a V1 checkpoint) into its header and entries.
pub fn read_bundle<'a>(bytes: &'a [u8], opts: &FormatOptions) -> Result<Bundle<'a>> {
    let set = SchemaSet::builtin();
    let find = |name: &str| {
        set.find_message(name).ok_or_else(|| {
            DecodeError::new(crate::error::ErrorKind::NoSuchMessage(name.to_string()), 0)
        })
    };
    let header_id = find("tensorflow.BundleHeaderProto")?;
    let entry_id = find("tensorflow.BundleEntryProto")?;
    let slices_id = find("tensorflow.SavedTensorSlices")?;
    let ctx = if opts.forced {
        DecodeContext::lenient()
    } else {
        strict()
    };
    let mut header: Option<(BundleVersion, Message<'a>)> = None;
    let mut entries: Vec<BundleEntry<'a>> = Vec::new();
    read_table(bytes, |key, value, at| {
        let Some((version, _)) = &header else {
            if !key.is_empty() {
                return Err(table_error(
                    Rule::BundleHeader,
                    "the first key is not \"\" (the bundle's header)",
                    at,
                ));
            }
            // V2: a BundleHeaderProto; V1: SavedTensorSlices with its meta.
            let v1 = decode_message(set, slices_id, value, at, strict())
                .ok()
                .filter(|m| m.message(set, SavedTensorSlices::META).is_some());
            header = Some(match v1 {
                Some(m) => (BundleVersion::V1, m),
                None => (
                    BundleVersion::V2,
                    decode_message(set, header_id, value, at, ctx)
                        .map_err(|e| e.within("BundleHeaderProto"))?,
                ),
            });
            return Ok(());
        };
        let id = match version {
            BundleVersion::V2 => entry_id,
            BundleVersion::V1 => slices_id,
        };
        let message = decode_message(set, id, value, at, ctx)
            .map_err(|e| e.within(format!("entry {}", crate::escape::quoted(key))))?;
        entries.push(BundleEntry {
            key: key.to_vec(),
            message,
        });
        Ok(())
    })?;
    let Some((version, header)) = header else {
        return Err(table_error(
            Rule::BundleHeader,
            "the table has no keys (a bundle's first key, \"\", holds its header)",
            0,
        ));
    };
    if version == BundleVersion::V2 {
        check_no_overlap(set, &entries)?;
    }
    Ok(Bundle {
        version,
        header,
        entries,
        bytes,
    })
}

/// Refuses entries whose byte ranges of one shard overlap: TensorFlow's
/// writer appends each tensor's bytes once, so no real bundle shares
/// bytes between entries, and a bundle that does could make the slices of
/// one variable read the same bytes many times over (a full tensor many
/// times the size of its shards).
fn check_no_overlap(set: &SchemaSet, entries: &[BundleEntry<'_>]) -> Result<()> {
    // (shard, start, end, entry) of every entry holding bytes.
    let mut ranges: Vec<(i64, i64, i64, usize)> = entries
        .iter()
        .enumerate()
        .filter_map(|(k, e)| {
            let f = entry_facts(set, &e.message);
            let end = f.offset.checked_add(f.size)?;
            (f.size > 0 && f.offset >= 0).then_some((f.shard, f.offset, end, k))
        })
        .collect();
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        let [(shard, _, end, a), (next_shard, start, _, b)] = pair else {
            continue;
        };
        if shard == next_shard && start < end {
            let (Some(first), Some(second)) = (entries.get(*a), entries.get(*b)) else {
                continue;
            };
            return Err(table_error(
                Rule::BundleOverlap,
                format!(
                    "entries {} and {} share bytes {start}..{end} of shard {shard} (each tensor's bytes are its own)",
                    entry_label(&first.key),
                    entry_label(&second.key),
                ),
                second.message.offset,
            ));
        }
    }
    Ok(())
}

/// An entry as the views name it: `"w" slice [0:4, :]` for a slice key,
/// else its key quoted.
fn entry_label(key: &[u8]) -> String {
    match parse_slice_key(key) {
        Some(k) => format!("{} slice {}", quoted(&k.name), extents_text(&k.extents)),
        None => quoted(key),
    }
}

fn decode_bundle<'a>(bytes: &'a [u8], opts: &FormatOptions) -> Result<Body<'a>> {
    read_bundle(bytes, opts).map(|b| Body::Bundle(Box::new(b)))
}

/// The shard file of a V2 bundle whose index is `PREFIX.index`.
pub fn shard_name(prefix: &str, shard: i64, shards: i64) -> String {
    format!("{prefix}.data-{shard:05}-of-{shards:05}")
}

/// The prefix of the index file in `folder` that holds exactly `index`
/// (`PREFIX.index`): the shards are named after it. The decoder reads
/// bytes, not names, so the index is found again by its content among the
/// folder's `*.index` files (each read under the side files' rules); None
/// when it is not there.
pub fn find_prefix(folder: &Folder, index: &[u8]) -> Option<String> {
    folder.file_names().into_iter().find_map(|name| {
        let prefix = name.strip_suffix(".index")?;
        let file = ExternalRef {
            location: Some(name.clone()),
            ..ExternalRef::default()
        }
        .load(Some(folder))
        .ok()?;
        (file.bytes() == index).then(|| prefix.to_string())
    })
}

/// What a bundle entry says of its tensor, no value read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFacts {
    pub dtype: i64,
    pub dims: Option<Vec<i64>>,
    pub shard: i64,
    pub offset: i64,
    pub size: i64,
    /// The masked CRC32C TensorFlow stored.
    pub crc32c: Option<u32>,
    /// The slices the tensor is saved as (a partitioned variable), each
    /// (start, length) per axis, -1 the whole axis: as the entry lists them.
    pub slices: Vec<Vec<(i64, i64)>>,
}

pub fn entry_facts(set: &SchemaSet, e: &Message<'_>) -> EntryFacts {
    EntryFacts {
        dtype: e.int(set, BundleEntryProto::DTYPE).unwrap_or(0),
        dims: shape_dims(set, e.message(set, BundleEntryProto::SHAPE)),
        shard: e.int(set, BundleEntryProto::SHARD_ID).unwrap_or(0),
        offset: e.int(set, BundleEntryProto::OFFSET).unwrap_or(0),
        size: e.int(set, BundleEntryProto::SIZE).unwrap_or(0),
        crc32c: e
            .scalar(set, BundleEntryProto::CRC32C)
            .and_then(|v| v.as_i64())
            .and_then(|v| u32::try_from(v).ok()),
        slices: e
            .messages(set, BundleEntryProto::SLICES)
            .map(|s| {
                s.messages(set, TensorSliceProto::EXTENT)
                    .map(|x| {
                        (
                            x.int(set, TensorSliceProto::Extent::START).unwrap_or(0),
                            x.int(set, TensorSliceProto::Extent::LENGTH).unwrap_or(-1),
                        )
                    })
                    .collect()
            })
            .collect(),
    }
}

/// The tensor a V2 entry describes, its values in `shard` (a file name in
/// the index's folder; None when the index's name is not known). Strings
/// have a layout of their own and are not a plain range: their data is
/// `Unavailable` here (see [`read_strings`]).
pub fn entry_view<'a>(
    set: &SchemaSet,
    entry: &Message<'_>,
    shard: Option<String>,
) -> TensorView<'static, 'a> {
    facts_view(set, &entry_facts(set, entry), shard)
}

/// [`entry_view`] from an entry's facts.
pub fn facts_view<'a>(
    set: &SchemaSet,
    f: &EntryFacts,
    shard: Option<String>,
) -> TensorView<'static, 'a> {
    let (mut v, head) = tensor_head(dtype_name(set, f.dtype), f.dtype, f.dims.clone());
    let Some((elem, _)) = head else {
        return v;
    };
    let elements = v.elements;
    if !f.slices.is_empty() {
        v.data = TensorData::Unavailable(format!(
            "saved as {} slice{} (a partitioned variable), listed under it",
            f.slices.len(),
            if f.slices.len() == 1 { "" } else { "s" }
        ));
        return v;
    }
    if elem == Elem::Str {
        v.data = TensorData::Unavailable("strings are read with their lengths".into());
        return v;
    }
    let Some(location) = shard else {
        v.data = TensorData::Unavailable(
            "the shard is unknown: the index file is not found in its folder".into(),
        );
        return v;
    };
    if f.offset < 0 || f.size < 0 {
        v.data = TensorData::Unavailable(format!(
            "offset {} and size {} must not be negative",
            f.offset, f.size
        ));
        return v;
    }
    v.data = TensorData::External(ExternalRef {
        location: Some(location),
        offset: Some(f.offset.to_string()),
        length: Some(f.size.to_string()),
        checksum: None,
        needed: raw_size(elem, elements),
        crc32c: f.crc32c,
    });
    v
}

impl V1Slices {
    /// The full tensor's type and shape, its values not yet read.
    pub fn view(&self, set: &SchemaSet) -> TensorView<'static, 'static> {
        let code = self.meta.dtype;
        let (mut v, _) = tensor_head(dtype_name(set, code), code, Some(self.meta.dims.clone()));
        if v.elem.is_some() && v.dims.is_some() {
            v.data = TensorData::Unavailable(format!(
                "assembled from {} slice{} when read",
                self.slices.len(),
                if self.slices.len() == 1 { "" } else { "s" }
            ));
        }
        v
    }
}

/// A V1 tensor's values assembled from its slices ([`V1SlicedValues`]):
/// numbers as the little-endian array, strings in order; else why not.
/// The buffer is allocated (fallibly) only once the slices, read from the
/// file, are found to cover the tensor once.
pub fn v1_assemble(
    set: &SchemaSet,
    sliced: &V1Slices,
    file: &[u8],
) -> std::result::Result<BundleData, Unread> {
    V1SlicedValues::open(set, sliced, file)?.assemble()
}

/// A V1 tensor saved in slices, read slice by slice where each is in the
/// file, never assembled: each slice's entry is decoded and its values
/// counted against its extents, and the slices are checked to cover the
/// tensor once (TensorFlow's restore refuses slices that overlap). A range
/// of values is read from the slices holding it ([`V1SliceReader`]), so a
/// preview of 8 values reads 8, and statistics are each slice's merged
/// ([`V1SlicedValues::slice_views`]).
pub struct V1SlicedValues<'a> {
    /// The element type (a whole-byte number or a string).
    pub elem: Elem,
    dims: Vec<u64>,
    elements: u64,
    meta: V1Meta,
    /// Each slice's extents against the shape and its entry, in the
    /// row-major order of their first elements.
    pieces: Vec<(Extents, Message<'a>)>,
}

impl<'a> V1SlicedValues<'a> {
    /// The slices of `sliced` read from `file` (the checkpoint's bytes) and
    /// checked; else why not.
    pub fn open(
        set: &SchemaSet,
        sliced: &V1Slices,
        file: &'a [u8],
    ) -> std::result::Result<Self, Unread> {
        let full = sliced.view(set);
        let elem = full.elem.ok_or_else(|| match &full.data {
            TensorData::Unavailable(why) => why.clone(),
            _ => format!("{} is not read", full.type_name),
        })?;
        if crate::tensor::whole_bytes(elem).is_none() && elem != Elem::Str {
            return Err(format!("slices of {} are not assembled", full.type_name).into());
        }
        let dims = unsigned_dims(&full);
        let n = full.elements;
        let id = set
            .find_message("tensorflow.SavedTensorSlices")
            .ok_or("no schema for SavedTensorSlices")?;
        let mut pieces: Vec<(Extents, Message<'a>)> =
            crate::alloc::buffer(sliced.slices.len() as u64)?;
        let mut stored: u64 = 0;
        for slice in &sliced.slices {
            let label = || format!("slice {}", extents_text(&slice.extents));
            let ext = resolve_extents(&slice.extents, &dims)?;
            let bytes = usize::try_from(slice.range.start)
                .ok()
                .zip(usize::try_from(slice.range.end).ok())
                .and_then(|(s, e)| file.get(s..e))
                .ok_or_else(|| format!("{}: its entry is outside the file", label()))?;
            let entry = decode_message(set, id, bytes, slice.range.start, DecodeContext::lenient())
                .map_err(|e| format!("{}: {e}", label()))?;
            let held = {
                let view = v1_slice_view(set, &sliced.meta, &entry);
                if let TensorData::Unavailable(why) = &view.data {
                    return Err(format!("{}: {why}", label()).into());
                }
                view.elements
            };
            let need = ext.iter().try_fold(1u64, |a, &(_, l)| a.checked_mul(l));
            if need != Some(held) {
                return Err(format!(
                    "{} holds {held} values, its extents need {}",
                    label(),
                    need.map_or_else(|| "more".to_string(), |c| c.to_string())
                )
                .into());
            }
            stored = stored.saturating_add(held);
            pieces.push((ext, entry));
        }
        if stored < n {
            return Err(format!(
                "the slices do not cover the tensor: {stored} of {n} values stored"
            )
            .into());
        }
        pieces.sort_by(|a, b| a.0.iter().map(|e| e.0).cmp(b.0.iter().map(|e| e.0)));
        // Inside the shape, as many values as it holds and no two slices
        // overlapping: each element is in exactly one slice.
        if let Some((a, b)) = first_overlap(&pieces) {
            let text = |k: usize| {
                pieces
                    .get(k)
                    .map_or_else(String::new, |p| resolved_text(&p.0))
            };
            return Err(format!("slices {} and {} overlap", text(a), text(b)).into());
        }
        Ok(V1SlicedValues {
            elem,
            dims,
            elements: n,
            meta: sliced.meta.clone(),
            pieces,
        })
    }

    /// The tensor's elements.
    pub fn len(&self) -> u64 {
        self.elements
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.elements == 0
    }

    /// Each slice's values as a tensor of its own (for passes whose result
    /// does not depend on order: statistics, histograms).
    pub fn slice_views(&self) -> impl Iterator<Item = TensorView<'_, 'a>> + '_ {
        let set = SchemaSet::builtin();
        self.pieces
            .iter()
            .map(move |(_, entry)| v1_slice_view(set, &self.meta, entry))
    }

    /// A reader of ranges of the tensor's values in row-major order.
    pub fn reader(&self) -> V1SliceReader<'_, 'a> {
        V1SliceReader {
            values: self,
            cursors: self.pieces.iter().map(|_| None).collect(),
            last: 0,
        }
    }

    /// The whole tensor in memory (one fallible allocation): numbers as
    /// the little-endian array, strings in order.
    pub fn assemble(&self) -> std::result::Result<BundleData, Unread> {
        if self.elem == Elem::Str {
            return self.strings();
        }
        let width = crate::tensor::whole_bytes(self.elem).unwrap_or(1);
        let size = self
            .elements
            .checked_mul(width)
            .ok_or("the tensor's size overflows")?;
        let mut out = crate::alloc::buffer(size)?;
        self.reader().pack(0..self.elements, &mut out)?;
        Ok(BundleData::Owned(out))
    }

    /// The strings of a DT_STRING tensor, in order.
    fn strings(&self) -> std::result::Result<BundleData, Unread> {
        let mut strings: Vec<(Extents, Vec<Vec<u8>>)> = Vec::new();
        for ((ext, _), view) in self.pieces.iter().zip(self.slice_views()) {
            let mut values: Vec<Vec<u8>> = Vec::new();
            crate::tensor::load_values(&view, None).with_elements(|it| {
                for e in it {
                    if let crate::tensor::Element::Str(b) = e {
                        values.push(b.to_vec());
                    }
                }
            });
            strings.push((ext.clone(), values));
        }
        place_strings(&self.dims, &strings)
    }
}

/// Two slices that share an element, if any (their places in `pieces`):
/// a sweep along the axis with the most distinct starts, each slice
/// compared with those still open there (TensorFlow compares each with
/// every other).
fn first_overlap<T>(pieces: &[(Extents, T)]) -> Option<(usize, usize)> {
    let rank = pieces.first().map_or(0, |(e, _)| e.len());
    if rank == 0 {
        // Scalars: a second slice is the same element again.
        return (pieces.len() > 1).then_some((0, 1));
    }
    let axis = (0..rank)
        .max_by_key(|&a| {
            let mut starts: Vec<u64> = pieces
                .iter()
                .filter_map(|(e, _)| e.get(a).map(|x| x.0))
                .collect();
            starts.sort_unstable();
            starts.dedup();
            starts.len()
        })
        .unwrap_or(0);
    let ext = |k: usize| pieces.get(k).map_or(&[][..], |(e, _)| e.as_slice());
    let along = |k: usize| ext(k).get(axis).copied().unwrap_or((0, 0));
    let mut order: Vec<usize> = (0..pieces.len()).collect();
    order.sort_by_key(|&k| along(k).0);
    let mut open: Vec<usize> = Vec::new();
    for k in order {
        if ext(k).iter().any(|&(_, l)| l == 0) {
            continue;
        }
        let (start, _) = along(k);
        open.retain(|&q| {
            let (s, l) = along(q);
            s.saturating_add(l) > start
        });
        let shares = |q: usize| {
            ext(q).iter().zip(ext(k)).all(|(&(s1, l1), &(s2, l2))| {
                s1 < s2.saturating_add(l2) && s2 < s1.saturating_add(l1)
            })
        };
        if let Some(&q) = open.iter().find(|&&q| shares(q)) {
            return Some((q.min(k), q.max(k)));
        }
        open.push(k);
    }
    None
}

/// Resolved extents as numpy writes a slice: `[0:2, 1:3]`.
fn resolved_text(ext: &[(u64, u64)]) -> String {
    let parts: Vec<String> = ext
        .iter()
        .map(|&(s, l)| format!("{s}:{}", s.saturating_add(l)))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Reads ranges of a V1 sliced tensor's values ([`V1SlicedValues`]), in
/// increasing order, as the little-endian array: each slice holding a part
/// of a range is read from where the last range left it (its values are
/// typed fields, which are skipped value by value), so a pass over the
/// whole tensor reads each slice once.
pub struct V1SliceReader<'s, 'a> {
    values: &'s V1SlicedValues<'a>,
    cursors: Vec<Option<LoadedValues<'s>>>,
    /// The slice that held the last element read (the next one is most
    /// often in it or the one after it).
    last: usize,
}

impl V1SliceReader<'_, '_> {
    /// Appends the values `range` of the tensor (row-major) to `out`, as
    /// the little-endian array of its type; else why not (strings are not
    /// read this way).
    pub fn pack(
        &mut self,
        range: std::ops::Range<u64>,
        out: &mut Vec<u8>,
    ) -> std::result::Result<(), Unread> {
        let dims = &self.values.dims;
        let rank = dims.len();
        let mut idx = vec![0u64; rank];
        let mut p = range.start;
        let end = range.end.min(self.values.elements);
        while p < end {
            // The element's index along each axis.
            let mut rest = p;
            for (i, &d) in idx.iter_mut().zip(dims).rev() {
                *i = rest % d.max(1);
                rest /= d.max(1);
            }
            let k = self
                .find(&idx)
                .ok_or_else(|| format!("no slice holds element {p}"))?;
            let Some((ext, _)) = self.values.pieces.get(k) else {
                break;
            };
            // Its place in the slice, and how many follow it there.
            let mut at = 0u64;
            for (&i, &(s, l)) in idx.iter().zip(ext) {
                at = at * l + (i - s);
            }
            let row = match (idx.last(), ext.last()) {
                (Some(&i), Some(&(s, l))) => s + l - i,
                _ => 1,
            };
            let run = row.min(end - p);
            let read = self.read(k, at, run, out);
            if read != Some(true) {
                return Err(format!("slice {}: its values do not read", resolved_text(ext)).into());
            }
            p += run;
        }
        Ok(())
    }

    /// The slice holding the element at `idx`: the last one, the one
    /// after it, the first, else any.
    fn find(&mut self, idx: &[u64]) -> Option<usize> {
        let pieces = &self.values.pieces;
        let holds = |k: usize| {
            pieces.get(k).is_some_and(|(ext, _)| {
                idx.iter().zip(ext).all(|(&i, &(s, l))| i >= s && i - s < l)
            })
        };
        let k = [self.last, self.last + 1, 0]
            .into_iter()
            .find(|&k| holds(k))
            .or_else(|| (0..pieces.len()).find(|&k| holds(k)))?;
        self.last = k;
        Some(k)
    }

    /// Packs `count` values of slice `k` from its value `at` on; None when
    /// the slice's values are not there to read.
    fn read(&mut self, k: usize, at: u64, count: u64, out: &mut Vec<u8>) -> Option<bool> {
        let values = self.values;
        let fresh = || {
            let (_, entry) = values.pieces.get(k)?;
            let view = v1_slice_view(SchemaSet::builtin(), &values.meta, entry);
            Some(crate::tensor::load_values(&view, None))
        };
        let slot = self.cursors.get_mut(k)?;
        let behind =
            |c: &mut LoadedValues<'_>| c.with_elements(|it| it.next_index() > at).unwrap_or(true);
        if slot.as_mut().is_none_or(behind) {
            *slot = Some(fresh()?);
        }
        slot.as_mut()?.with_elements(|it| {
            let from = it.next_index();
            it.advance(at - from);
            crate::tensor::pack_le_n(it, count, out) == Some(count)
        })
    }
}

/// The full tensor's strings from its slices', each with its resolved
/// extents, as one buffer and each string's place in it; else why not.
fn place_strings(
    dims: &[u64],
    pieces: &[(Extents, Vec<Vec<u8>>)],
) -> std::result::Result<BundleData, Unread> {
    let n = crate::tensor::element_count(dims).ok_or("the tensor's size overflows")?;
    // For each element of the tensor, the slice and place holding it.
    let mut from: Vec<Option<(usize, usize)>> = crate::alloc::filled(n, None)?;
    for (k, (ext, values)) in pieces.iter().enumerate() {
        slice_rows(dims, ext, |at, first, len| {
            for j in 0..len {
                let (Ok(dst), Ok(src)) = (usize::try_from(at + j), usize::try_from(first + j))
                else {
                    continue;
                };
                if src < values.len()
                    && let Some(slot) = from.get_mut(dst)
                {
                    *slot = Some((k, src));
                }
            }
        });
    }
    let uncovered = from.iter().filter(|f| f.is_none()).count();
    if uncovered > 0 {
        return Err(format!("the slices leave {uncovered} of {n} elements uncovered").into());
    }
    let mut bytes = Vec::new();
    let mut places = crate::alloc::buffer(from.len() as u64)?;
    for (k, i) in from.into_iter().flatten() {
        let s: &[u8] = pieces
            .get(k)
            .and_then(|(_, v)| v.get(i))
            .map_or(&[], Vec::as_slice);
        places.push(bytes.len()..bytes.len() + s.len());
        bytes.extend_from_slice(s);
    }
    Ok(BundleData::OwnedStrings(bytes, places))
}

/// The header's shard count (1 when not said).
pub fn num_shards(set: &SchemaSet, header: &Message<'_>) -> i64 {
    header
        .int(set, BundleHeaderProto::NUM_SHARDS)
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

/// Why a string tensor's bytes do not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringsError(pub String);

/// A DT_STRING tensor's `n` strings from its range of a shard: `n` varint64
/// lengths, the masked CRC32C of the lengths (each as a u32), then the
/// bytes; and whether the entry's CRC32C (over the lengths as u32s, the
/// length checksum and the bytes) matches `expected`. Nothing is allocated
/// from `n` before the lengths are read from the bytes.
pub fn read_strings(
    range: &[u8],
    n: u64,
    expected: Option<u32>,
) -> std::result::Result<(Vec<&[u8]>, Option<bool>), StringsError> {
    let (places, ok) = string_places(range, n, expected)?;
    let strings = places
        .into_iter()
        .map(|p| range.get(p).unwrap_or(&[]))
        .collect();
    Ok((strings, ok))
}

/// [`read_strings`] as each string's place in `range`.
pub fn string_places(
    range: &[u8],
    n: u64,
    expected: Option<u32>,
) -> std::result::Result<(Vec<std::ops::Range<usize>>, Option<bool>), StringsError> {
    if n > range.len() as u64 {
        return Err(StringsError(format!(
            "{n} strings need at least {n} bytes of lengths, the range has {}",
            range.len()
        )));
    }
    let mut lengths: Vec<u64> = crate::alloc::buffer(n).map_err(|e| StringsError(e.to_string()))?;
    let mut rest = range;
    let mut crc = 0u32;
    for k in 0..n {
        let Ok((left, len)) = crate::wire::varint(rest) else {
            return Err(StringsError(format!("length {k}: no well-formed varint")));
        };
        rest = left;
        let as_u32 = u32::try_from(len).unwrap_or(u32::MAX);
        crc = checksum::crc32c_extend(crc, &as_u32.to_le_bytes());
        lengths.push(len);
    }
    let Some((stored, left)) = rest.split_first_chunk::<4>() else {
        return Err(StringsError("the lengths' checksum is cut short".into()));
    };
    if u32::from_le_bytes(*stored) != checksum::mask(crc) {
        return Err(StringsError(format!(
            "the lengths' masked CRC32C is {:08x}, the file says {:08x}",
            checksum::mask(crc),
            u32::from_le_bytes(*stored)
        )));
    }
    crc = checksum::crc32c_extend(crc, stored);
    rest = left;
    let mut out =
        crate::alloc::buffer(lengths.len() as u64).map_err(|e| StringsError(e.to_string()))?;
    // Where the bytes begin: what the lengths and their checksum took.
    let mut at = range.len() - rest.len();
    for (k, len) in lengths.into_iter().enumerate() {
        let Some((s, left)) = usize::try_from(len)
            .ok()
            .filter(|&l| l <= rest.len())
            .map(|l| rest.split_at(l))
        else {
            return Err(StringsError(format!(
                "string {k} of {len} bytes runs past the range ({} left)",
                rest.len()
            )));
        };
        crc = checksum::crc32c_extend(crc, s);
        out.push(at..at + s.len());
        at += s.len();
        rest = left;
    }
    let ok = expected.map(|e| checksum::mask(crc) == e);
    Ok((out, ok))
}

/// The key of a TensorFlow 2 checkpoint's object graph.
pub const OBJECT_GRAPH_KEY: &[u8] = b"_CHECKPOINTABLE_OBJECT_GRAPH";

/// What checking a tensor's CRC32C found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrcStatus {
    Ok,
    Mismatch(String),
    /// Not checked, and why (no values, the shard not read, a V1 file).
    NotChecked(String),
}

impl CrcStatus {
    /// The status in a word, as the views and JSON write it.
    pub fn word(&self) -> &'static str {
        match self {
            CrcStatus::Ok => "ok",
            CrcStatus::Mismatch(_) => "mismatch",
            CrcStatus::NotChecked(_) => "not checked",
        }
    }

    /// What the status says beyond its word (the mismatch, or why it was
    /// not checked).
    pub fn detail(&self) -> Option<&str> {
        match self {
            CrcStatus::Ok => None,
            CrcStatus::Mismatch(d) | CrcStatus::NotChecked(d) => Some(d),
        }
    }
}

/// Where a bundle's shards are: the index's prefix in its folder.
pub struct Shards {
    pub prefix: Option<String>,
    pub count: i64,
}

impl Shards {
    pub fn of(bundle: &Bundle<'_>, folder: Option<&Folder>) -> Shards {
        let set = SchemaSet::builtin();
        match bundle.version {
            BundleVersion::V2 => Shards {
                prefix: folder.and_then(|f| find_prefix(f, bundle.bytes)),
                count: num_shards(set, &bundle.header),
            },
            BundleVersion::V1 => Shards {
                prefix: None,
                count: 0,
            },
        }
    }

    pub fn file(&self, shard: i64) -> Option<String> {
        self.prefix
            .as_deref()
            .map(|p| shard_name(p, shard, self.count))
    }
}

/// The tensor an entry holds with its values loaded (or why not) and its
/// checksum checked, handed to `f`: V1's from the table, V2's through
/// [`BundleValues::load`], the one reader of a bundle's shards.
pub fn with_entry<R>(
    bundle: &Bundle<'_>,
    shards: &Shards,
    e: &BundleEntry<'_>,
    folder: Option<&Folder>,
    f: impl FnOnce(&TensorView<'_, '_>, LoadedValues<'_>, CrcStatus) -> R,
) -> R {
    let set = SchemaSet::builtin();
    let entry = &e.message;
    if bundle.version == BundleVersion::V1 {
        let no_crc = || CrcStatus::NotChecked("a V1 checkpoint has no checksum per tensor".into());
        let view = v1_view(set, &bundle.header, entry);
        let loaded = crate::tensor::load_values(&view, folder);
        return f(&view, loaded, no_crc());
    }
    let values = entry_values(set, bundle, e, &|shard| shards.file(shard));
    let view = values.view(set);
    match values.load(set, folder) {
        Ok((BundleData::Mapped(ext), crc)) => {
            let (elem, n) = (view.elem.unwrap_or(Elem::U8), view.elements);
            f(&view, LoadedValues::External(ext, elem, n), crc)
        }
        Ok((data, crc)) => {
            let whole = data.view(&view);
            let loaded = crate::tensor::load_values(&whole, folder);
            f(&whole, loaded, crc)
        }
        Err((why, crc)) => f(&view, LoadedValues::Unavailable(why.to_string()), crc),
    }
}

/// The checksum status of a V1 tensor: none to check.
pub fn v1_crc() -> CrcStatus {
    CrcStatus::NotChecked("a V1 checkpoint has no checksum per tensor".into())
}

/// A V1 tensor saved in slices with its values assembled (or why not),
/// handed to `f` as [`with_entry`] hands an entry's.
pub fn with_v1_sliced<R>(
    bundle: &Bundle<'_>,
    sliced: &V1Slices,
    f: impl FnOnce(&TensorView<'_, '_>, LoadedValues<'_>, CrcStatus) -> R,
) -> R {
    let set = SchemaSet::builtin();
    let no_crc = v1_crc;
    let facts = sliced.view(set);
    match v1_assemble(set, sliced, bundle.bytes) {
        Ok(data) => {
            let view = data.view(&facts);
            let loaded = crate::tensor::load_values(&view, None);
            f(&view, loaded, no_crc())
        }
        Err(why) => f(&facts, LoadedValues::Unavailable(why.to_string()), no_crc()),
    }
}

/// The V1 tensors saved in slices (none for a V2 bundle), listed by the
/// views after the entries with their values assembled.
pub fn v1_sliced(bundle: &Bundle<'_>) -> Vec<V1Slices> {
    if bundle.version != BundleVersion::V1 {
        return Vec::new();
    }
    v1_tensors(SchemaSet::builtin(), bundle)
        .into_iter()
        .filter_map(|t| match t {
            V1Tensor::Sliced(s) => Some(s),
            V1Tensor::Whole(..) => None,
        })
        .collect()
}

/// A TensorFlow 2 checkpoint's object graph: the one string of
/// `_CHECKPOINTABLE_OBJECT_GRAPH`, a serialized `TrackableObjectGraph`.
pub struct ObjectGraph {
    /// The serialized graph (copied out of the shard, which is unmapped
    /// after reading).
    bytes: Vec<u8>,
}

impl ObjectGraph {
    /// The decoded graph.
    pub fn message(&self) -> Option<Message<'_>> {
        let set = SchemaSet::builtin();
        let id = set.find_message("tensorflow.TrackableObjectGraph")?;
        decode_message(set, id, &self.bytes, 0, DecodeContext::lenient()).ok()
    }
}

pub fn object_graph(
    bundle: &Bundle<'_>,
    shards: &Shards,
    folder: Option<&Folder>,
) -> Option<ObjectGraph> {
    let e = bundle.entries.iter().find(|e| e.key == OBJECT_GRAPH_KEY)?;
    with_entry(bundle, shards, e, folder, |_, mut loaded, _| {
        let mut first: Option<Vec<u8>> = None;
        loaded.with_elements(|it| {
            if let Some(crate::tensor::Element::Str(s)) = it.next() {
                first = Some(s.to_vec());
            }
        });
        first.map(|bytes| ObjectGraph { bytes })
    })
}

/// A partitioned variable's full tensor assembled from its slices (the
/// entries under its OrderedCode slice keys, each read and checked as a
/// tensor of its own), when they cover it; else why not, naming the
/// slices the entry lists that have no data. The buffer is allocated only
/// once the slices' bytes, read from the shards, add up to it.
fn assemble(
    slices: &[SliceValues],
    listed: &[Vec<(i64, i64)>],
    view: &TensorView<'_, '_>,
    folder: Option<&crate::external::Folder>,
) -> std::result::Result<(Vec<u8>, CrcStatus), NotRead> {
    let set = SchemaSet::builtin();
    let unchecked = |why: String| (Unread::Why(why.clone()), CrcStatus::NotChecked(why));
    let elem = view.elem.unwrap_or(Elem::U8);
    let width = crate::tensor::whole_bytes(elem)
        .ok_or_else(|| unchecked(format!("slices of {} are not assembled", view.type_name)))?;
    let dims = unsigned_dims(view);
    let full_bytes = view
        .elements
        .checked_mul(width)
        .ok_or_else(|| unchecked("the tensor's size overflows".into()))?;
    // Every slice of this tensor, its extents whole-axis resolved.
    let mut parts = Vec::new();
    for k in slices {
        let ext = resolve_extents(&k.extents, &dims).map_err(unchecked)?;
        parts.push((k, ext));
    }
    let mut loaded = Vec::new();
    let mut stored: u64 = 0;
    for (k, ext) in &parts {
        let sv = facts_view(set, &k.facts, k.shard.clone());
        let count = ext.iter().try_fold(1u64, |a, &(_, l)| a.checked_mul(l));
        if count != Some(sv.elements) || sv.elem != Some(elem) {
            return Err(unchecked(format!(
                "slice {} holds {} {}, its extents need {}",
                extents_text(&k.extents),
                sv.elements,
                sv.type_name,
                count.map_or_else(|| "more".to_string(), |c| c.to_string())
            )));
        }
        let TensorData::External(r) = &sv.data else {
            return Err(unchecked(format!(
                "slice {} has no values",
                extents_text(&k.extents)
            )));
        };
        match r.load(folder) {
            Ok(bytes) => {
                stored = stored.saturating_add(bytes.bytes().len() as u64);
                loaded.push((ext, bytes));
            }
            Err(err) => {
                return Err(range_error(
                    format!("slice {}: {err}", extents_text(&k.extents)),
                    &err,
                ));
            }
        }
    }
    // The slices the entry lists whose data is missing.
    let missing: Vec<String> = listed
        .iter()
        .filter(|want| !parts.iter().any(|(k, _)| &k.extents == *want))
        .map(|x| extents_text(x))
        .collect();
    if stored < full_bytes || !missing.is_empty() {
        return Err(unchecked(format!(
            "the slices do not cover the tensor: {} of {} bytes stored{}",
            stored,
            full_bytes,
            if missing.is_empty() {
                String::new()
            } else {
                format!("; missing {}", missing.join(" "))
            }
        )));
    }
    let pieces: Vec<(&Extents, &[u8])> = loaded
        .iter()
        .map(|(ext, bytes)| (*ext, bytes.bytes()))
        .collect();
    let out = place_bytes(&dims, width, &pieces).map_err(|e| {
        let why = e.to_string();
        (e, CrcStatus::NotChecked(why))
    })?;
    Ok((out, CrcStatus::Ok))
}

/// A view's shape as unsigned lengths (a negative one as 0).
fn unsigned_dims(view: &TensorView<'_, '_>) -> Vec<u64> {
    view.dims
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|&d| u64::try_from(d).unwrap_or(0))
        .collect()
}

/// A slice's place in its tensor: (start, length) per axis, resolved
/// against the tensor's shape.
type Extents = Vec<(u64, u64)>;

/// A slice's extents against the full shape `dims` as (start, length) per
/// axis, a whole axis (length -1) as (0, its length); else why not (a
/// slice of another rank, or reaching outside the shape).
fn resolve_extents(extents: &[(i64, i64)], dims: &[u64]) -> std::result::Result<Extents, String> {
    if extents.len() != dims.len() {
        return Err(format!(
            "a slice of rank {} for a tensor of rank {}",
            extents.len(),
            dims.len()
        ));
    }
    extents
        .iter()
        .zip(dims)
        .map(|(&(start, len), &d)| {
            if len == -1 {
                return Ok((0, d));
            }
            match (u64::try_from(start), u64::try_from(len)) {
                (Ok(s), Ok(l)) if s.checked_add(l).is_some_and(|end| end <= d) => Ok((s, l)),
                _ => Err(format!(
                    "slice {} is outside the shape",
                    extents_text(extents)
                )),
            }
        })
        .collect()
}

/// Calls `run(at, from, len)` for each row of the slice `ext` of a
/// row-major tensor of shape `dims`: the slice's `len` elements from its
/// own element `from` on are the tensor's from element `at` on. The
/// extents must lie inside the shape ([`resolve_extents`]).
fn slice_rows(dims: &[u64], ext: &[(u64, u64)], mut run: impl FnMut(u64, u64, u64)) {
    // Row-major strides of the full tensor, in elements.
    let mut strides = vec![1u64; dims.len()];
    let mut acc = 1u64;
    for (s, &d) in strides.iter_mut().zip(dims).rev() {
        *s = acc;
        acc = acc.saturating_mul(d);
    }
    let rank = ext.len();
    let row_len = ext.last().map_or(1, |&(_, l)| l);
    if row_len == 0 {
        return;
    }
    let rows: u64 = ext
        .iter()
        .take(rank.saturating_sub(1))
        .map(|&(_, l)| l)
        .product();
    let mut idx = vec![0u64; rank.saturating_sub(1)];
    for row in 0..rows {
        let at = ext.last().map_or(0, |&(s, _)| s)
            + idx
                .iter()
                .zip(ext)
                .zip(&strides)
                .map(|((i, (s, _)), st)| (s + i) * st)
                .sum::<u64>();
        run(at, row * row_len, row_len);
        let axes = idx.len();
        for (i, &(_, len)) in idx.iter_mut().zip(ext.iter().take(axes)).rev() {
            *i += 1;
            if *i < len {
                break;
            }
            *i = 0;
        }
    }
}

/// The full tensor's little-endian array (`width` bytes an element) from
/// its slices' arrays, each with its resolved extents; else why not (an
/// element no slice holds).
fn place_bytes(
    dims: &[u64],
    width: u64,
    pieces: &[(&Extents, &[u8])],
) -> std::result::Result<Vec<u8>, Unread> {
    let n = crate::tensor::element_count(dims).ok_or("the tensor's size overflows")?;
    let size = n.checked_mul(width).ok_or("the tensor's size overflows")?;
    let mut out = crate::alloc::filled(size, 0u8)?;
    let mut covered = crate::alloc::filled(n, false)?;
    for (ext, src) in pieces {
        slice_rows(dims, ext, |at, from, len| {
            let (d0, s0, bytes) = (at * width, from * width, len * width);
            let span = |start: u64| {
                let s = usize::try_from(start).ok()?;
                Some(s..s.checked_add(usize::try_from(bytes).ok()?)?)
            };
            if let (Some(dst), Some(from)) = (
                span(d0).and_then(|r| out.get_mut(r)),
                span(s0).and_then(|r| src.get(r)),
            ) {
                dst.copy_from_slice(from);
                for c in covered.iter_mut().skip(at as usize).take(len as usize) {
                    *c = true;
                }
            }
        });
    }
    let uncovered = covered.iter().filter(|c| !**c).count();
    if uncovered > 0 {
        return Err(format!("the slices leave {uncovered} of {n} elements uncovered").into());
    }
    Ok(out)
}

/// Whether a V2 bundle's header says its values are big-endian.
pub fn big_endian(set: &SchemaSet, header: &Message<'_>) -> bool {
    header.def(set).full_name == "tensorflow.BundleHeaderProto"
        && header.int(set, BundleHeaderProto::ENDIANNESS) == Some(1)
}

/// The bytes one swap reverses: an element's, or half of a complex one's.
fn swap_unit(elem: Elem) -> usize {
    let bytes = usize::try_from(elem.bits() / 8).unwrap_or(1);
    if elem.is_complex() { bytes / 2 } else { bytes }
}

/// Reverses the bytes of each element (each part of a complex one): a
/// big-endian bundle's values in little-endian order.
pub fn swap_elements(bytes: &mut [u8], elem: Elem) {
    let unit = swap_unit(elem);
    if unit > 1 {
        for c in bytes.chunks_exact_mut(unit) {
            c.reverse();
        }
    }
}

/// The counts of the header's checksum line.
#[derive(Default)]
pub struct CrcCounts {
    pub ok: u64,
    pub mismatch: u64,
    pub not_checked: u64,
}

/// What the header says: shards, tensors, bytes, checksums (every value
/// read once to check it).
pub struct Header {
    pub tensors: u64,
    pub bytes: u64,
    pub crc: CrcCounts,
}

pub fn header(bundle: &Bundle<'_>, shards: &Shards, folder: Option<&Folder>) -> Header {
    let set = SchemaSet::builtin();
    // A V1 tensor saved in slices is listed after its slices' entries.
    let assembled = v1_sliced(bundle).len() as u64;
    let mut h = Header {
        tensors: bundle.entries.len() as u64 + assembled,
        bytes: 0,
        crc: CrcCounts {
            not_checked: assembled,
            ..CrcCounts::default()
        },
    };
    for e in &bundle.entries {
        if bundle.version == BundleVersion::V2 {
            let size = e.message.int(set, BundleEntryProto::SIZE).unwrap_or(0);
            h.bytes = h.bytes.saturating_add(u64::try_from(size).unwrap_or(0));
        }
        let status = with_entry(bundle, shards, e, folder, |_, _, crc| crc);
        match status {
            CrcStatus::Ok => h.crc.ok += 1,
            CrcStatus::Mismatch(_) => h.crc.mismatch += 1,
            CrcStatus::NotChecked(_) => h.crc.not_checked += 1,
        }
    }
    h
}

/// A SavedModel's variables: `variables/variables.index` beside
/// `saved_model.pb`, read under the external-data rules (inside the
/// model's folder, links resolved, a regular file) and kept, to be read as
/// a bundle.
pub struct SavedVariables {
    index: Vec<u8>,
}

/// The variables folder of a SavedModel, relative to its folder.
pub const VARIABLES_DIR: &str = "variables";

impl SavedVariables {
    /// The variables of the SavedModel in `model`, if it has them.
    pub fn read(model: &Folder) -> Option<SavedVariables> {
        let r = ExternalRef {
            location: Some(format!("{VARIABLES_DIR}/variables.index")),
            ..ExternalRef::default()
        };
        let bytes = r.load(Some(model)).ok()?;
        Some(SavedVariables {
            index: bytes.bytes().to_vec(),
        })
    }

    pub fn bundle(&self) -> Result<Bundle<'_>> {
        read_bundle(&self.index, &FormatOptions::default())
    }
}

/// The shards of a SavedModel's variables, named inside the model's
/// folder (`variables/variables.data-SSSSS-of-NNNNN`).
pub fn saved_model_shards(bundle: &Bundle<'_>) -> Shards {
    Shards {
        prefix: Some(format!("{VARIABLES_DIR}/variables")),
        count: num_shards(SchemaSet::builtin(), &bundle.header),
    }
}

/// For each node of the bundle's object graph, the checkpoint key of its
/// `VARIABLE_VALUE` (TensorFlow 2: node i of a SavedModel's object graph is
/// node i of its checkpoint's).
pub fn variable_keys(
    bundle: &Bundle<'_>,
    shards: &Shards,
    folder: Option<&Folder>,
) -> Vec<Option<Vec<u8>>> {
    use crate::fields::tensorflow::TrackableObjectGraph::TrackableObject as T;
    let set = SchemaSet::builtin();
    let Some(graph) = object_graph(bundle, shards, folder) else {
        return Vec::new();
    };
    let Some(m) = graph.message() else {
        return Vec::new();
    };
    m.messages(set, TrackableObjectGraph::NODES)
        .map(|node| {
            node.messages(set, T::ATTRIBUTES)
                .find(|a| a.bytes(set, T::SerializedTensor::NAME) == Some(b"VARIABLE_VALUE"))
                .and_then(|a| a.bytes(set, T::SerializedTensor::CHECKPOINT_KEY))
                .map(<[u8]>::to_vec)
        })
        .collect()
}

/// A variable's name from its checkpoint key: the object path
/// (`model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE` -> `model/dense/kernel`).
pub fn variable_name(key: &[u8]) -> String {
    let text = String::from_utf8_lossy(key);
    text.strip_suffix("/.ATTRIBUTES/VARIABLE_VALUE")
        .unwrap_or(&text)
        .to_string()
}

/// A slice of a partitioned variable, as its key in the table names it:
/// its extents (start, length per axis; length -1: the whole axis) and
/// where its values are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceValues {
    pub extents: Vec<(i64, i64)>,
    pub facts: EntryFacts,
    pub shard: Option<String>,
}

/// Where a bundle tensor's values are: its entry's facts and its shard
/// file (relative to the document's folder; None when not found), and a
/// partitioned variable's slices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleValues {
    pub facts: EntryFacts,
    pub shard: Option<String>,
    /// The bundle's values are big-endian.
    pub big_endian: bool,
    /// The slices the table holds for this tensor (a partitioned
    /// variable), in key order.
    pub slices: Vec<SliceValues>,
}

/// How a bundle tensor's values are read.
enum Plan {
    /// Assembled from its slices.
    Assemble,
    /// Strings, with their lengths, from the range of this shard.
    Strings(String),
    /// The shard's range, byte-swapped to this machine's order or not.
    Range { swap: bool },
    /// Not read: the view says why.
    None,
}

/// A bundle tensor's values read from its shards.
pub enum BundleData {
    /// The range as stored, already the little-endian array: read in
    /// place from the mapped shard.
    Mapped(ExternalBytes),
    /// The little-endian array read into memory: byte-swapped from a
    /// big-endian bundle, or assembled from slices.
    Owned(Vec<u8>),
    /// Strings: the range, and the place of each string in it.
    Strings(ExternalBytes, Vec<std::ops::Range<usize>>),
    /// Strings read into memory (a V1 tensor's slices): their bytes, and
    /// the place of each string in them.
    OwnedStrings(Vec<u8>, Vec<std::ops::Range<usize>>),
}

impl BundleData {
    /// The tensor `facts` describes ([`BundleValues::view`]) over these
    /// values.
    pub fn view<'d>(&'d self, facts: &TensorView<'_, '_>) -> TensorView<'d, 'd> {
        let data = match self {
            BundleData::Mapped(ext) => TensorData::Raw(ext.bytes()),
            BundleData::Owned(bytes) => TensorData::Raw(bytes),
            BundleData::Strings(ext, places) => TensorData::StringRanges {
                bytes: ext.bytes(),
                ranges: places,
            },
            BundleData::OwnedStrings(bytes, places) => TensorData::StringRanges {
                bytes,
                ranges: places,
            },
        };
        TensorView {
            type_name: facts.type_name.clone(),
            elem: facts.elem,
            dims: facts.dims.clone(),
            byte_aligned: facts.byte_aligned,
            elements: facts.elements,
            data,
        }
    }
}

/// The reason a value is not read, checked or not.
type NotRead = (Unread, CrcStatus);

/// Why a tensor's values were not read: in words, or a buffer they need
/// that could not be allocated (an error of its own, so that the facade
/// reports it as one: `MemoryError` in Python).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    Why(String),
    Memory(AllocError),
}

impl From<String> for Unread {
    fn from(why: String) -> Unread {
        Unread::Why(why)
    }
}

impl From<&str> for Unread {
    fn from(why: &str) -> Unread {
        Unread::Why(why.to_string())
    }
}

impl From<AllocError> for Unread {
    fn from(e: AllocError) -> Unread {
        Unread::Memory(e)
    }
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::Why(why) => f.write_str(why),
            Unread::Memory(e) => write!(f, "{e}"),
        }
    }
}

impl BundleValues {
    /// The tensor with its values a side file's range: what is known
    /// without reading a shard (strings, slices and a big-endian bundle's
    /// values are read by [`BundleValues::load`]).
    pub fn view<'a>(&self, set: &SchemaSet) -> TensorView<'static, 'a> {
        facts_view(set, &self.facts, self.shard.clone())
    }

    fn plan(&self, view: &TensorView<'_, '_>) -> Plan {
        let Some(elem) = view.elem else {
            return Plan::None;
        };
        if view.dims.is_none() {
            return Plan::None;
        }
        if !self.facts.slices.is_empty() {
            return Plan::Assemble;
        }
        if let (Elem::Str, Some(shard)) = (elem, &self.shard) {
            return Plan::Strings(shard.clone());
        }
        match view.data {
            TensorData::External(_) => Plan::Range {
                swap: self.big_endian && swap_unit(elem) > 1,
            },
            _ => Plan::None,
        }
    }

    /// Whether the values are read into memory by [`BundleValues::load`]
    /// rather than streamed from the shard's range as [`BundleValues::view`]
    /// says: strings, slices, a big-endian bundle's values.
    pub fn read_whole(&self, set: &SchemaSet) -> bool {
        let view = self.view(set);
        matches!(
            self.plan(&view),
            Plan::Assemble | Plan::Strings(_) | Plan::Range { swap: true }
        )
    }

    /// The values read from the shards in `folder`, each range's masked
    /// CRC32C checked against the index: a plain range mapped; strings
    /// with their lengths; a big-endian bundle's values swapped to this
    /// machine's order; a partitioned variable assembled from its slices.
    /// Else why not.
    pub fn load(
        &self,
        set: &SchemaSet,
        folder: Option<&crate::external::Folder>,
    ) -> std::result::Result<(BundleData, CrcStatus), NotRead> {
        let view = self.view(set);
        let unchecked = |why: String| (Unread::Why(why.clone()), CrcStatus::NotChecked(why));
        let elem = view.elem.unwrap_or(Elem::U8);
        match self.plan(&view) {
            Plan::Assemble => {
                let (mut bytes, crc) = assemble(&self.slices, &self.facts.slices, &view, folder)?;
                if self.big_endian {
                    swap_elements(&mut bytes, elem);
                }
                Ok((BundleData::Owned(bytes), crc))
            }
            Plan::Strings(location) => {
                // Lengths, their checksum, then the bytes (not a plain
                // range: the entry's CRC32C covers the lengths as u32s).
                let r = ExternalRef {
                    location: Some(location),
                    offset: Some(self.facts.offset.to_string()),
                    length: Some(self.facts.size.to_string()),
                    ..Default::default()
                };
                let ext = r.load(folder).map_err(|e| unchecked(e.to_string()))?;
                let (places, ok) = string_places(ext.bytes(), view.elements, self.facts.crc32c)
                    .map_err(|StringsError(why)| unchecked(why))?;
                match ok {
                    Some(true) => Ok((BundleData::Strings(ext, places), CrcStatus::Ok)),
                    Some(false) => {
                        let why = "the strings' masked CRC32C is not the index's".to_string();
                        Err((Unread::Why(why.clone()), CrcStatus::Mismatch(why)))
                    }
                    None => Ok((
                        BundleData::Strings(ext, places),
                        CrcStatus::NotChecked("the index has no checksum".into()),
                    )),
                }
            }
            Plan::Range { swap } => {
                let TensorData::External(r) = &view.data else {
                    return Err(unchecked("no values".into()));
                };
                match r.load(folder) {
                    Ok(ext) => {
                        let crc = if r.crc32c.is_some() {
                            CrcStatus::Ok
                        } else {
                            CrcStatus::NotChecked("the index has no checksum".into())
                        };
                        if swap {
                            // Checked as stored, then read in this machine's order.
                            let mut owned = crate::alloc::buffer(ext.bytes().len() as u64)
                                .map_err(|e| {
                                    let why = e.to_string();
                                    (Unread::Memory(e), CrcStatus::NotChecked(why))
                                })?;
                            owned.extend_from_slice(ext.bytes());
                            swap_elements(&mut owned, elem);
                            return Ok((BundleData::Owned(owned), crc));
                        }
                        Ok((BundleData::Mapped(ext), crc))
                    }
                    Err(e) => Err(range_error(e.to_string(), &e)),
                }
            }
            Plan::None => Err(unchecked(match &view.data {
                TensorData::Unavailable(why) => why.clone(),
                _ => "no values".into(),
            })),
        }
    }
}

/// A range that did not load: a checksum mismatch, or not checked.
fn range_error(why: String, e: &ExternalError) -> NotRead {
    let crc = if matches!(e, ExternalError::Crc32cMismatch { .. }) {
        CrcStatus::Mismatch(why.clone())
    } else {
        CrcStatus::NotChecked(why.clone())
    };
    (Unread::Why(why), crc)
}

/// Where the values of entry `e` of a V2 bundle are, `file` naming the
/// shard of a number; a partitioned variable's slices are looked up in
/// the table.
pub fn entry_values(
    set: &SchemaSet,
    bundle: &Bundle<'_>,
    e: &BundleEntry<'_>,
    file: &dyn Fn(i64) -> Option<String>,
) -> BundleValues {
    let facts = entry_facts(set, &e.message);
    let slices = if facts.slices.is_empty() {
        Vec::new()
    } else {
        bundle
            .entries
            .iter()
            .filter_map(|s| {
                let k = parse_slice_key(&s.key).filter(|k| k.name == e.key)?;
                Some(slice_values(set, k, s, file))
            })
            .collect()
    };
    BundleValues {
        shard: file(facts.shard),
        big_endian: big_endian(set, &bundle.header),
        slices,
        facts,
    }
}

fn slice_values(
    set: &SchemaSet,
    key: SliceKey,
    s: &BundleEntry<'_>,
    file: &dyn Fn(i64) -> Option<String>,
) -> SliceValues {
    let facts = entry_facts(set, &s.message);
    SliceValues {
        extents: key.extents,
        shard: file(facts.shard),
        facts,
    }
}

/// The tensors of a V2 bundle with where their values are: every entry
/// but the slices of partitioned variables (read as part of their
/// tensor), in key order; `file` names the shard of a number. The table
/// is read once (its slices grouped by tensor).
pub fn bundle_tensors<'b, 'a>(
    set: &SchemaSet,
    bundle: &'b Bundle<'a>,
    file: &dyn Fn(i64) -> Option<String>,
) -> Vec<(&'b BundleEntry<'a>, BundleValues)> {
    let mut slices: std::collections::HashMap<Vec<u8>, Vec<SliceValues>> =
        std::collections::HashMap::new();
    for s in &bundle.entries {
        if let Some(k) = parse_slice_key(&s.key) {
            let name = k.name.clone();
            slices
                .entry(name)
                .or_default()
                .push(slice_values(set, k, s, file));
        }
    }
    let big = big_endian(set, &bundle.header);
    bundle
        .entries
        .iter()
        .filter(|e| parse_slice_key(&e.key).is_none())
        .map(|e| {
            let facts = entry_facts(set, &e.message);
            let slices = if facts.slices.is_empty() {
                Vec::new()
            } else {
                slices.remove(&e.key).unwrap_or_default()
            };
            let values = BundleValues {
                shard: file(facts.shard),
                big_endian: big,
                slices,
                facts,
            };
            (e, values)
        })
        .collect()
}

/// A tensor of a bundle as the library lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BundleTensor {
    /// A V2 bundle's tensor: where its values are.
    V2(BundleValues),
    /// A V1 checkpoint's tensor: its type and shape (its values are in
    /// its entry).
    V1(V1Meta),
    /// A V1 checkpoint's tensor saved in slices.
    V1Sliced(V1Slices),
}

/// A variable of a SavedModel, found through its object graph (or, in a
/// TensorFlow 1 model, which has none, through its graph's variable
/// nodes and the saver that restores them).
pub struct ModelVariable<'m, 'a> {
    /// Its node in `object_graph_def` (TensorFlow 1: in `graph_def`).
    pub node: usize,
    /// Its object path (TensorFlow 1: its node's name).
    pub name: String,
    /// Its key in the bundle.
    pub key: Vec<u8>,
    /// Its `SavedVariable` message (TensorFlow 1: its `NodeDef`).
    pub message: &'m Message<'a>,
    pub values: BundleValues,
}

/// The variables of a SavedModel (`root`, read from the folder `model`)
/// whose values are in its `variables/` bundle, each once, in the order of
/// the meta graphs' object graphs; their shards named inside `model`.
pub fn saved_model_variables<'m, 'a>(
    set: &SchemaSet,
    root: &'m Message<'a>,
    model: &Folder,
) -> Vec<ModelVariable<'m, 'a>> {
    use crate::fields::tensorflow::{MetaGraphDef, SavedModel, SavedObject, SavedObjectGraph};
    if root.def(set).full_name != "tensorflow.SavedModel" {
        return Vec::new();
    }
    let Some(vars) = SavedVariables::read(model) else {
        return Vec::new();
    };
    let Ok(bundle) = vars.bundle() else {
        return Vec::new();
    };
    let shards = saved_model_shards(&bundle);
    let keys = variable_keys(&bundle, &shards, Some(model));
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for mg in root.messages(set, SavedModel::META_GRAPHS) {
        let Some(og) = mg.message(set, MetaGraphDef::OBJECT_GRAPH_DEF) else {
            // TensorFlow 1: no object graph; the graph's variables.
            let Some(graph) = mg.message(set, MetaGraphDef::GRAPH_DEF) else {
                continue;
            };
            for (i, node, key) in tf1_variables(set, graph) {
                let Some(e) = find_entry(&bundle, &key) else {
                    continue;
                };
                if !seen.insert(key.clone()) {
                    continue;
                }
                out.push(ModelVariable {
                    node: i,
                    name: String::from_utf8_lossy(
                        node.bytes(set, NodeDef::NAME).unwrap_or_default(),
                    )
                    .into_owned(),
                    values: entry_values(set, &bundle, e, &|shard| shards.file(shard)),
                    key,
                    message: node,
                });
            }
            continue;
        };
        for (i, node) in og.messages(set, SavedObjectGraph::NODES).enumerate() {
            let Some(var) = node.message(set, SavedObject::VARIABLE) else {
                continue;
            };
            let Some(Some(key)) = keys.get(i) else {
                continue;
            };
            if !seen.insert(key.clone()) {
                continue;
            }
            let Some(e) = find_entry(&bundle, key) else {
                continue;
            };
            out.push(ModelVariable {
                node: i,
                name: variable_name(key),
                key: key.clone(),
                message: var,
                values: entry_values(set, &bundle, e, &|shard| shards.file(shard)),
            });
        }
    }
    out
}

/// The ops of TensorFlow 1's variables: reference variables and resource
/// variables' handles.
const TF1_VARIABLE_OPS: &[&str] = &["VariableV2", "Variable", "VarHandleOp"];

/// A TensorFlow 1 graph's variables with the key each is saved under, in
/// node order: (node index, node, key). TF1's saver restores a variable
/// with `Assign(var, RestoreV2:k)` (`AssignVariableOp(handle,
/// Identity(RestoreV2:k))` for a resource variable), `k` indexing the
/// string list of RestoreV2's `tensor_names` input; a variable no saver
/// names is saved under its node's name (the saver's default).
pub fn tf1_variables<'m, 'a>(
    set: &SchemaSet,
    graph: &'m Message<'a>,
) -> Vec<(usize, &'m Message<'a>, Vec<u8>)> {
    use std::collections::HashMap;
    let nodes: Vec<&Message<'a>> = graph.messages(set, GraphDef::NODE).collect();
    let name = |n: &Message<'a>| n.bytes(set, NodeDef::NAME).unwrap_or_default();
    let op = |n: &Message<'a>| n.str(set, NodeDef::OP).unwrap_or_default();
    let inputs = |n: &Message<'a>| -> Vec<&'a [u8]> {
        n.field(set, NodeDef::INPUT)
            .iter()
            .filter_map(|f| super::summary::bytes_of(&f.value))
            .collect()
    };
    let by_name: HashMap<&[u8], &Message<'a>> = nodes.iter().map(|n| (name(n), *n)).collect();
    // A tensor's node and output index (`name:k`, `name` for 0).
    let output = |t: &'a [u8]| -> (&'a [u8], usize) {
        match t.iter().rposition(|&b| b == b':') {
            Some(at) => {
                let (n, k) = t.split_at(at);
                let k = std::str::from_utf8(k.get(1..).unwrap_or_default())
                    .ok()
                    .and_then(|k| k.parse().ok());
                k.map_or((t, 0), |k| (n, k))
            }
            None => (t, 0),
        }
    };
    // The tensor names each restore op reads, from its Const input 1.
    let restore_names = |restore: &Message<'a>| -> Option<Vec<&'a [u8]>> {
        let (names_node, _) = output(inputs(restore).get(1)?);
        let value = super::tensorflow::attr(set, by_name.get(names_node)?, "value")?;
        let tensor = value.message(set, crate::fields::tensorflow::AttrValue::TENSOR)?;
        Some(
            tensor
                .field(set, crate::fields::tensorflow::TensorProto::STRING_VAL)
                .iter()
                .filter_map(|f| super::summary::bytes_of(&f.value))
                .collect(),
        )
    };
    let mut keys: HashMap<&[u8], Vec<u8>> = HashMap::new();
    for n in &nodes {
        if !matches!(op(n), "Assign" | "AssignVariableOp") {
            continue;
        }
        let ins = inputs(n);
        let (Some(&var), Some(&source)) = (ins.first(), ins.get(1)) else {
            continue;
        };
        // Back through Identity nodes to the restore op (a bounded walk:
        // the graph may hold a cycle).
        let (mut at, mut k) = output(source);
        for _ in 0..8 {
            match by_name.get(at) {
                Some(src) if op(src) == "Identity" => match inputs(src).first() {
                    Some(&up) => (at, k) = output(up),
                    None => break,
                },
                _ => break,
            }
        }
        let Some(restore) = by_name
            .get(at)
            .filter(|r| matches!(op(r), "RestoreV2" | "Restore"))
        else {
            continue;
        };
        if let Some(key) = restore_names(restore).and_then(|names| names.get(k).copied()) {
            keys.entry(output(var).0).or_insert_with(|| key.to_vec());
        }
    }
    nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| TF1_VARIABLE_OPS.contains(&op(n)))
        .map(|(i, n)| {
            let key = keys
                .get(name(n))
                .cloned()
                .unwrap_or_else(|| name(n).to_vec());
            (i, *n, key)
        })
        .collect()
}

/// The entry of `key` (the table's keys are sorted bytewise).
pub fn find_entry<'b, 'a>(bundle: &'b Bundle<'a>, key: &[u8]) -> Option<&'b BundleEntry<'a>> {
    bundle
        .entries
        .binary_search_by(|e| e.key.as_slice().cmp(key))
        .ok()
        .and_then(|i| bundle.entries.get(i))
}

pub const FORMAT: Format = Format {
    id: "tf-checkpoint",
    title: "TensorFlow tensor bundle (checkpoint index, SavedModel variables)",
    schema_files: &[super::tensorflow::FRAMEWORK_FILE, CHECKPOINT_FILE],
    roots: &[],
    decode: decode_bundle,
    tensor_adapters: &[],
    tensor_namers: &[],
    line: super::base::no_line,
    summary: no_summary,
    views: &[],
    side_tensors: super::base::no_side_tensors,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_their_checksums() {
        // Two strings "ab", "" as TensorFlow writes them.
        let mut crc = checksum::crc32c(&2u32.to_le_bytes());
        crc = checksum::crc32c_extend(crc, &0u32.to_le_bytes());
        let len_crc = checksum::mask(crc);
        let mut range = vec![2u8, 0];
        range.extend_from_slice(&len_crc.to_le_bytes());
        crc = checksum::crc32c_extend(crc, &len_crc.to_le_bytes());
        range.extend_from_slice(b"ab");
        crc = checksum::crc32c_extend(crc, b"ab");
        let (s, ok) = read_strings(&range, 2, Some(checksum::mask(crc))).unwrap();
        assert_eq!(s, vec![&b"ab"[..], b""]);
        assert_eq!(ok, Some(true));
        assert_eq!(read_strings(&range, 2, Some(0)).unwrap().1, Some(false));
        // A declared count past the bytes is refused before any allocation.
        assert!(read_strings(&range, 1 << 40, None).is_err());
        range[0] = 9;
        assert!(read_strings(&range, 2, None).is_err());
    }
}
