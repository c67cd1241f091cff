//! TensorFlow 1's V1 checkpoints: one file whose table holds, under the
//! empty key, the `SavedTensorSlices` meta (every tensor's name, type,
//! shape and slices) and, under each slice's key, a `SavedTensorSlices`
//! with its values as a TensorProto. What a V1 tensor is and where its
//! slices are; reading the slices' values into the full tensor is the
//! bundle's (`v1_assemble`).

use crate::decode::Message;
use crate::fields::tensorflow::{
    SavedSlice, SavedSliceMeta, SavedTensorSliceMeta, SavedTensorSlices, TensorSliceProto,
};
use crate::formats::base::{Bundle, BundleEntry};
use crate::formats::tensorflow::{dtype_name, shape_dims, tensor_head};
use crate::schema::SchemaSet;
use crate::tensor::{Elem, TensorData, TensorView};

/// A V1 entry's tensor: its name and the TensorProto holding its values.
pub fn v1_tensor<'m, 'a>(
    set: &SchemaSet,
    entry: &'m Message<'a>,
) -> Option<(&'a str, &'m Message<'a>)> {
    let data = entry.message(set, SavedTensorSlices::DATA)?;
    Some((
        data.str(set, SavedSlice::NAME).unwrap_or(""),
        data.message(set, SavedSlice::DATA)?,
    ))
}

/// A V1 tensor's data type and full shape, as the header lists them by
/// its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V1Meta {
    pub dtype: i64,
    pub dims: Vec<i64>,
}

/// The header's `SavedSliceMeta` of the tensor a V1 entry holds a slice
/// of (None when the entry holds no slice or the header does not list
/// its tensor).
fn v1_meta_message<'m, 'a>(
    set: &SchemaSet,
    header: &'m Message<'a>,
    entry: &Message<'_>,
) -> Option<&'m Message<'a>> {
    let name = v1_slice_name(set, entry)?;
    v1_listed(set, header).find(|t| t.bytes(set, SavedSliceMeta::NAME).unwrap_or_default() == name)
}

/// The name of the tensor a V1 entry holds a slice of, as bytes (None when
/// it holds no slice).
fn v1_slice_name<'a>(set: &SchemaSet, entry: &Message<'a>) -> Option<&'a [u8]> {
    let data = entry.message(set, SavedTensorSlices::DATA)?;
    Some(data.bytes(set, SavedSlice::NAME).unwrap_or_default())
}

/// The header's `SavedSliceMeta`s, in its order.
fn v1_listed<'m, 'a>(
    set: &SchemaSet,
    header: &'m Message<'a>,
) -> impl Iterator<Item = &'m Message<'a>> {
    header
        .message(set, SavedTensorSlices::META)
        .into_iter()
        .flat_map(move |m| m.messages(set, SavedTensorSliceMeta::TENSOR))
}

/// The header's facts of the tensor a V1 entry holds a slice of (None
/// when the entry holds no slice or the header does not list its tensor).
pub fn v1_meta(set: &SchemaSet, header: &Message<'_>, entry: &Message<'_>) -> Option<V1Meta> {
    v1_meta_message(set, header, entry).map(|meta| v1_meta_of(set, meta))
}

/// The facts of a header's `SavedSliceMeta`.
fn v1_meta_of(set: &SchemaSet, meta: &Message<'_>) -> V1Meta {
    V1Meta {
        dtype: meta.int(set, SavedSliceMeta::TYPE).unwrap_or(0),
        dims: shape_dims(set, meta.message(set, SavedSliceMeta::SHAPE)).unwrap_or_default(),
    }
}

/// A V1 entry's slice as a tensor: the data type and full shape are the
/// header's (`SavedSliceMeta`, by name), the slice's extents its shape
/// (an axis without a length is whole), the values the TensorProto's typed
/// field, one per element.
pub fn v1_view<'m, 'a>(
    set: &SchemaSet,
    header: &Message<'_>,
    entry: &'m Message<'a>,
) -> TensorView<'m, 'a> {
    match v1_meta(set, header, entry) {
        Some(meta) => v1_slice_view(set, &meta, entry),
        None => TensorView {
            type_name: "DT_INVALID".into(),
            elem: None,
            dims: None,
            byte_aligned: true,
            elements: 0,
            data: TensorData::Unavailable(
                if entry.message(set, SavedTensorSlices::DATA).is_none() {
                    "the entry holds no slice"
                } else {
                    "the header does not list this tensor"
                }
                .into(),
            ),
        },
    }
}

/// Whether a V1 entry's slice is its whole tensor (every axis without a
/// length, or starting at 0 with the axis's length).
pub fn v1_is_whole(set: &SchemaSet, meta: &V1Meta, entry: &Message<'_>) -> bool {
    let extents = v1_extents(set, entry);
    // A slice of every axis (TensorFlow writes one extent an axis), or of
    // none: a slice of another rank is no part of this tensor.
    (extents.is_empty() || extents.len() == meta.dims.len())
        && extents
            .iter()
            .zip(&meta.dims)
            .all(|(&(start, len), &d)| len < 0 || (start == 0 && len == d))
}

/// [`v1_view`] with the header's facts already found.
pub fn v1_slice_view<'m, 'a>(
    set: &SchemaSet,
    meta: &V1Meta,
    entry: &'m Message<'a>,
) -> TensorView<'m, 'a> {
    let Some(data) = entry.message(set, SavedTensorSlices::DATA) else {
        return TensorView {
            type_name: "DT_INVALID".into(),
            elem: None,
            dims: None,
            byte_aligned: true,
            elements: 0,
            data: TensorData::Unavailable("the entry holds no slice".into()),
        };
    };
    let full = &meta.dims;
    let extents: Vec<Option<i64>> = data
        .message(set, SavedSlice::SLICE)
        .into_iter()
        .flat_map(|s| s.messages(set, TensorSliceProto::EXTENT))
        .map(|x| x.int(set, TensorSliceProto::Extent::LENGTH))
        .collect();
    let dims: Vec<i64> = full
        .iter()
        .enumerate()
        .map(|(k, &d)| extents.get(k).copied().flatten().unwrap_or(d))
        .collect();
    let code = meta.dtype;
    let (mut v, head) = tensor_head(dtype_name(set, code), code, Some(dims));
    let Some((elem, typed)) = head else {
        return v;
    };
    let Some(tensor) = data.message(set, SavedSlice::DATA) else {
        v.data = TensorData::Unavailable("the slice holds no values".into());
        return v;
    };
    let fields = tensor.field(set, typed);
    let wire = crate::formats::tensorflow::wire_of(typed);
    // TensorFlow reads a slice's values only when there are exactly as
    // many as its extents hold (no padding rule here).
    let held = if elem == Elem::Str {
        crate::tensor::strings(fields).count() as u64
    } else {
        let values: u64 = fields
            .iter()
            .map(|f| crate::decode::RawScalars::count(&f.value, wire))
            .sum();
        if elem.is_complex() {
            values / 2
        } else {
            values
        }
    };
    if held != v.elements {
        v.data = TensorData::Unavailable(format!(
            "{held} of the {} values its extents need are stored",
            v.elements
        ));
        return v;
    }
    v.data = if elem == Elem::Str {
        TensorData::Strings { fields, pad: false }
    } else {
        TensorData::Typed {
            fields,
            wire,
            pad: false,
        }
    };
    v
}

/// A V1 checkpoint's tensor: saved whole in one entry, or in slices
/// (entries under its name, each a part of it).
pub enum V1Tensor<'b, 'a> {
    Whole(&'b BundleEntry<'a>, V1Meta),
    Sliced(V1Slices),
}

/// A V1 tensor saved in slices: its name, type and full shape, and where
/// each slice's entry is in the file; its values are assembled when read
/// ([`super::v1_assemble`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V1Slices {
    pub name: Vec<u8>,
    pub meta: V1Meta,
    /// The header's `SavedSliceMeta` of the tensor (its name, type, shape
    /// and slices): its message type and its range in the file.
    pub listed: (crate::schema::MsgId, std::ops::Range<u64>),
    pub slices: Vec<V1Slice>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V1Slice {
    /// (start, length) per axis, length -1 for a whole axis.
    pub extents: Vec<(i64, i64)>,
    /// Its entry's `SavedTensorSlices` in the file.
    pub range: std::ops::Range<u64>,
}

/// A V1 entry's slice extents, (start, length) per axis (-1: whole).
fn v1_extents(set: &SchemaSet, entry: &Message<'_>) -> Vec<(i64, i64)> {
    entry
        .message(set, SavedTensorSlices::DATA)
        .and_then(|d| d.message(set, SavedSlice::SLICE))
        .into_iter()
        .flat_map(|s| s.messages(set, TensorSliceProto::EXTENT))
        .map(|x| {
            (
                x.int(set, TensorSliceProto::Extent::START).unwrap_or(0),
                x.int(set, TensorSliceProto::Extent::LENGTH).unwrap_or(-1),
            )
        })
        .collect()
}

/// The tensors of a V1 checkpoint, in the order their first entries come
/// in the table: a tensor with one entry holding all of it is whole, any
/// other is sliced. Entries the header lists no tensor for are left out
/// (the views show them with why).
pub fn v1_tensors<'b, 'a>(set: &SchemaSet, bundle: &'b Bundle<'a>) -> Vec<V1Tensor<'b, 'a>> {
    // The header's listing by name, made once (the first of a name, as
    // `v1_meta` finds it).
    let mut by_name: std::collections::HashMap<&[u8], &'b Message<'a>> =
        std::collections::HashMap::new();
    for t in v1_listed(set, &bundle.header) {
        by_name
            .entry(t.bytes(set, SavedSliceMeta::NAME).unwrap_or_default())
            .or_insert(t);
    }
    let mut order: Vec<Vec<u8>> = Vec::new();
    type Group<'b, 'a> = (V1Meta, &'b Message<'a>, Vec<&'b BundleEntry<'a>>);
    let mut groups: std::collections::HashMap<Vec<u8>, Group<'b, 'a>> =
        std::collections::HashMap::new();
    for e in &bundle.entries {
        let Some(&listed) = v1_slice_name(set, &e.message).and_then(|n| by_name.get(n)) else {
            continue;
        };
        let Some((name, _)) = v1_tensor(set, &e.message) else {
            continue;
        };
        let group = groups.entry(name.as_bytes().to_vec()).or_insert_with(|| {
            order.push(name.as_bytes().to_vec());
            (v1_meta_of(set, listed), listed, Vec::new())
        });
        group.2.push(e);
    }
    order
        .into_iter()
        .filter_map(|name| {
            let (meta, listed, entries) = groups.remove(&name)?;
            if let [e] = entries.as_slice()
                && v1_is_whole(set, &meta, &e.message)
            {
                return Some(V1Tensor::Whole(e, meta));
            }
            let slices = entries
                .iter()
                .map(|e| V1Slice {
                    extents: v1_extents(set, &e.message),
                    range: e.message.offset..e.message.end,
                })
                .collect();
            Some(V1Tensor::Sliced(V1Slices {
                name,
                meta,
                listed: (listed.def, listed.offset..listed.end),
                slices,
            }))
        })
        .collect()
}
