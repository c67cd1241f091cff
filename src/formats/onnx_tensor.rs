//! ONNX TensorProto: ONNX's data types, reading a decoded message as a
//! tensor (type, shape, where the values are) and the validation rules of
//! the .pb tensor file format.

use super::base::{Body, Format, FormatOptions, KernelOrder, TensorAdapter, decode_builtin};
use crate::decode::{DecodeContext, Field, Message, RawScalars, Value};
use crate::error::{DecodeError, ErrorKind, Result, Rule};
use crate::external::ExternalRef;
use crate::fields::onnx::{StringStringEntryProto, TensorProto};
use crate::schema::{FieldId, SchemaSet};
use crate::tensor::{Elem, TensorData, TensorView, element_count, raw_capacity, raw_size};
use crate::wire::WireType;

/// An ONNX TensorProto.DataType.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataType {
    pub code: i32,
    pub name: &'static str,
    pub elem: Elem,
    /// The TensorProto field that holds its values when not in raw_data.
    pub typed_field: FieldId,
}

const fn dt(code: i32, name: &'static str, elem: Elem, typed_field: FieldId) -> DataType {
    DataType {
        code,
        name,
        elem,
        typed_field,
    }
}

/// Every ONNX data type (onnx 1.23), by code.
pub const ONNX_TYPES: [DataType; 28] = [
    dt(1, "FLOAT", Elem::F32, TensorProto::FLOAT_DATA),
    dt(2, "UINT8", Elem::U8, TensorProto::INT32_DATA),
    dt(3, "INT8", Elem::I8, TensorProto::INT32_DATA),
    dt(4, "UINT16", Elem::U16, TensorProto::INT32_DATA),
    dt(5, "INT16", Elem::I16, TensorProto::INT32_DATA),
    dt(6, "INT32", Elem::I32, TensorProto::INT32_DATA),
    dt(7, "INT64", Elem::I64, TensorProto::INT64_DATA),
    dt(8, "STRING", Elem::Str, TensorProto::STRING_DATA),
    dt(9, "BOOL", Elem::Bool, TensorProto::INT32_DATA),
    dt(10, "FLOAT16", Elem::F16, TensorProto::INT32_DATA),
    dt(11, "DOUBLE", Elem::F64, TensorProto::DOUBLE_DATA),
    dt(12, "UINT32", Elem::U32, TensorProto::UINT64_DATA),
    dt(13, "UINT64", Elem::U64, TensorProto::UINT64_DATA),
    dt(14, "COMPLEX64", Elem::C64, TensorProto::FLOAT_DATA),
    dt(15, "COMPLEX128", Elem::C128, TensorProto::DOUBLE_DATA),
    dt(16, "BFLOAT16", Elem::BF16, TensorProto::INT32_DATA),
    dt(17, "FLOAT8E4M3FN", Elem::F8E4M3FN, TensorProto::INT32_DATA),
    dt(
        18,
        "FLOAT8E4M3FNUZ",
        Elem::F8E4M3FNUZ,
        TensorProto::INT32_DATA,
    ),
    dt(19, "FLOAT8E5M2", Elem::F8E5M2, TensorProto::INT32_DATA),
    dt(
        20,
        "FLOAT8E5M2FNUZ",
        Elem::F8E5M2FNUZ,
        TensorProto::INT32_DATA,
    ),
    dt(21, "UINT4", Elem::U4, TensorProto::INT32_DATA),
    dt(22, "INT4", Elem::I4, TensorProto::INT32_DATA),
    dt(23, "FLOAT4E2M1", Elem::F4E2M1, TensorProto::INT32_DATA),
    dt(24, "FLOAT8E8M0", Elem::F8E8M0, TensorProto::INT32_DATA),
    dt(25, "UINT2", Elem::U2, TensorProto::INT32_DATA),
    dt(26, "INT2", Elem::I2, TensorProto::INT32_DATA),
    dt(27, "FLOAT6E2M3", Elem::F6E2M3, TensorProto::INT32_DATA),
    dt(28, "FLOAT6E3M2", Elem::F6E3M2, TensorProto::INT32_DATA),
];

pub fn onnx_type(code: i64) -> Option<&'static DataType> {
    let i = usize::try_from(code.checked_sub(1)?).ok()?;
    ONNX_TYPES.get(i)
}

/// The fields of TensorProto that can hold elements.
pub const VALUE_FIELDS: &[FieldId] = &[
    TensorProto::RAW_DATA,
    TensorProto::FLOAT_DATA,
    TensorProto::INT32_DATA,
    TensorProto::STRING_DATA,
    TensorProto::INT64_DATA,
    TensorProto::DOUBLE_DATA,
    TensorProto::UINT64_DATA,
];

/// Strings are checked for UTF-8 up to this many bytes each (the .pb format's rule:
/// a long string may carry anything past it).
const UTF8_CHECK_LIMIT: usize = 4096;

fn wire_of(field: FieldId) -> WireType {
    match field {
        TensorProto::FLOAT_DATA => WireType::Fixed32,
        TensorProto::DOUBLE_DATA => WireType::Fixed64,
        _ => WireType::Varint,
    }
}

/// How many values a typed field holds (all occurrences, packed or not).
fn typed_count(fields: &[Field<'_>], wire: WireType) -> u64 {
    fields
        .iter()
        .map(|f| RawScalars::count(&f.value, wire))
        .sum()
}

/// Typed values needed for `elements` elements of `dt`.
fn typed_needed(dt: &DataType, elements: u64) -> Option<u64> {
    if dt.elem.is_complex() {
        elements.checked_mul(2)
    } else {
        Some(elements.div_ceil(dt.elem.elements_per_int32()))
    }
}

fn external_ref(set: &SchemaSet, msg: &Message<'_>) -> ExternalRef {
    let mut r = ExternalRef::default();
    for entry in msg.messages(set, TensorProto::EXTERNAL_DATA) {
        let value = entry
            .str(set, StringStringEntryProto::VALUE)
            .map(str::to_string);
        match entry.str(set, StringStringEntryProto::KEY) {
            Some("location") => r.location = value,
            Some("offset") => r.offset = value,
            Some("length") => r.length = value,
            Some("checksum") => r.checksum = value,
            _ => {}
        }
    }
    r
}

fn is_external(set: &SchemaSet, msg: &Message<'_>) -> bool {
    msg.int(set, TensorProto::DATA_LOCATION) == Some(1) || msg.has(set, TensorProto::EXTERNAL_DATA)
}

/// Reads a TensorProto as a tensor, applying every rule of the .pb tensor file format. Used
/// for tensor files and for every tensor nested in other ONNX messages.
pub fn validate(set: &SchemaSet, msg: &Message<'_>) -> Result<()> {
    let at = msg.offset;
    let code = msg
        .int(set, TensorProto::DATA_TYPE)
        .ok_or(DecodeError::new(ErrorKind::DataTypeMissing, at))?;
    let dt = onnx_type(code).ok_or_else(|| {
        DecodeError::new(
            ErrorKind::DataTypeRange(code),
            field_at(set, msg, TensorProto::DATA_TYPE),
        )
    })?;
    let dims = dims(set, msg)
        .map_err(|(kind, _)| DecodeError::new(kind, field_at(set, msg, TensorProto::DIMS)))?;
    let elements = element_count(&dims).ok_or(DecodeError::new(
        ErrorKind::ElementCountOverflow,
        field_at(set, msg, TensorProto::DIMS),
    ))?;

    let mut places: Vec<FieldId> = VALUE_FIELDS
        .iter()
        .copied()
        .filter(|f| msg.has(set, *f))
        .collect();
    let external = is_external(set, msg);
    if external {
        places.push(TensorProto::EXTERNAL_DATA);
    }
    if places.len() > 1 {
        let names: Vec<&str> = places.iter().map(|p| p.name).collect();
        return Err(DecodeError::new(
            ErrorKind::ValuesInSeveralPlaces(names.join(", ")),
            at,
        ));
    }
    let place = places.first().copied();
    if dt.elem == Elem::Str && place == Some(TensorProto::RAW_DATA) {
        return Err(DecodeError::new(
            ErrorKind::RawForString,
            field_at(set, msg, TensorProto::RAW_DATA),
        ));
    }
    if let Some(p) = place
        && p != TensorProto::RAW_DATA
        && p != TensorProto::EXTERNAL_DATA
        && p != dt.typed_field
    {
        return Err(DecodeError::new(
            ErrorKind::WrongTypedField {
                field: p.name.to_string(),
                data_type: dt.name.to_string(),
            },
            field_at(set, msg, p),
        ));
    }
    if external {
        let r = external_ref(set, msg);
        if r.location.is_none() {
            return Err(DecodeError::rule(
                Rule::ExternalLocation,
                "external_data has no location",
                at,
            ));
        }
    }
    if dt.elem == Elem::Str {
        for (index, s) in msg.field(set, TensorProto::STRING_DATA).iter().enumerate() {
            if let Value::Bytes(b) = s.value {
                let head = b.get(..UTF8_CHECK_LIMIT).unwrap_or(b);
                if let Err(e) = std::str::from_utf8(head) {
                    // A character cut at the 4 KB mark is not an error.
                    if e.error_len().is_some() || head.len() == b.len() {
                        return Err(DecodeError::new(
                            ErrorKind::StringUtf8 {
                                index: index as u64,
                                at: e.valid_up_to(),
                            },
                            s.value_offset + e.valid_up_to() as u64,
                        ));
                    }
                }
            }
        }
    }
    // Sizes: skipped for a segment (a chunk of a larger tensor) and for
    // external data (checked when the side file is read).
    if msg.has(set, TensorProto::SEGMENT) || external {
        return Ok(());
    }
    match place {
        None if elements > 0 => Err(DecodeError::new(ErrorKind::ValuesMissing { elements }, at)),
        None => Ok(()),
        Some(TensorProto::RAW_DATA) => {
            let raw = msg.bytes(set, TensorProto::RAW_DATA).unwrap_or(&[]);
            let expected = raw_size(dt.elem, elements)
                .ok_or(DecodeError::new(ErrorKind::ElementCountOverflow, at))?;
            if raw.len() as u64 != expected {
                return Err(DecodeError::new(
                    ErrorKind::RawSize {
                        expected,
                        got: raw.len() as u64,
                    },
                    field_at(set, msg, TensorProto::RAW_DATA),
                ));
            }
            Ok(())
        }
        Some(p) => {
            let fields = msg.field(set, p);
            let got = if p == TensorProto::STRING_DATA {
                fields.len() as u64
            } else {
                typed_count(fields, wire_of(p))
            };
            let expected = typed_needed(dt, elements)
                .ok_or(DecodeError::new(ErrorKind::ElementCountOverflow, at))?;
            if got != expected {
                return Err(DecodeError::new(
                    ErrorKind::TypedCount {
                        field: p.name.to_string(),
                        expected,
                        got,
                    },
                    field_at(set, msg, p),
                ));
            }
            Ok(())
        }
    }
}

fn field_at(set: &SchemaSet, msg: &Message<'_>, id: FieldId) -> u64 {
    msg.field(set, id).first().map_or(msg.offset, |f| f.offset)
}

/// The dimensions, rejecting negative ones.
fn dims(set: &SchemaSet, msg: &Message<'_>) -> std::result::Result<Vec<u64>, (ErrorKind, usize)> {
    msg.scalars(set, TensorProto::DIMS)
        .enumerate()
        .map(|(index, d)| {
            let value = d.as_i64().unwrap_or(-1);
            u64::try_from(value).map_err(|_| (ErrorKind::NegativeDim { index, value }, index))
        })
        .collect()
}

/// What is wrong with a tensor that still decodes, for the views to say:
/// a segment whose range leaves the shape or whose values are not as many
/// as its range (`segment` skips the size check, so nothing else says it).
pub fn warning(set: &SchemaSet, msg: &Message<'_>) -> Option<String> {
    let seg = msg.message(set, TensorProto::SEGMENT)?;
    let begin = seg.int(set, TensorProto::Segment::BEGIN).unwrap_or(0);
    let end = seg.int(set, TensorProto::Segment::END).unwrap_or(0);
    let v = view(set, msg);
    let shape = dims(set, msg).ok().as_deref().and_then(element_count);
    let range = u64::try_from(end)
        .ok()
        .zip(u64::try_from(begin).ok())
        .and_then(|(e, b)| e.checked_sub(b));
    match (range, shape) {
        (None, _) => Some(format!(
            "the segment {begin}..{end} is not a range of elements"
        )),
        (Some(_), Some(n)) if u64::try_from(end).is_ok_and(|e| e > n) => Some(format!(
            "the segment {begin}..{end} runs past the shape's {n} elements"
        )),
        (Some(r), _)
            if r != v.elements
                && !matches!(v.data, TensorData::External(_) | TensorData::Unavailable(_)) =>
        {
            Some(format!(
                "the segment {begin}..{end} holds {r} elements, the data {}",
                v.elements
            ))
        }
        _ => None,
    }
}

/// The tensor as a renderer sees it. Never fails: what cannot be decoded is
/// marked unavailable with the reason (a file that failed validation can
/// still be shown with `--as` leniency).
pub fn view<'m, 'a>(set: &SchemaSet, msg: &'m Message<'a>) -> TensorView<'m, 'a> {
    let code = msg.int(set, TensorProto::DATA_TYPE);
    let dt = code.and_then(onnx_type);
    let type_name = match (dt, code) {
        (Some(dt), _) => dt.name.to_string(),
        (None, Some(c)) => c.to_string(),
        (None, None) => "UNDEFINED".to_string(),
    };
    let raw_dims: Vec<i64> = msg
        .scalars(set, TensorProto::DIMS)
        .filter_map(|d| d.as_i64())
        .collect();
    let shape = dims(set, msg).ok();
    let elements = shape.as_deref().and_then(element_count);
    let mut v = TensorView {
        type_name,
        elem: dt.map(|d| d.elem),
        dims: Some(raw_dims),
        byte_aligned: false,
        elements: 0,
        data: TensorData::None,
    };
    let (Some(dt), Some(elements)) = (dt, elements) else {
        v.data = TensorData::Unavailable(match dt {
            None => "unknown data type".into(),
            Some(_) => "invalid shape".into(),
        });
        return v;
    };
    let segment = msg.has(set, TensorProto::SEGMENT);
    if is_external(set, msg) {
        let mut r = external_ref(set, msg);
        r.needed = if segment {
            None
        } else {
            raw_size(dt.elem, elements)
        };
        v.elements = elements;
        v.data = if dt.elem == Elem::Str {
            TensorData::Unavailable("external data for STRING tensors is not defined".into())
        } else {
            TensorData::External(r)
        };
        return v;
    }
    if let Some(raw) = msg.bytes(set, TensorProto::RAW_DATA) {
        let capacity = raw_capacity(dt.elem, raw.len() as u64);
        v.elements = if segment {
            capacity
        } else {
            elements.min(capacity)
        };
        v.data = TensorData::Raw(raw);
        if dt.elem == Elem::Str {
            v.data = TensorData::Unavailable("raw_data is not allowed for STRING".into());
        }
        return v;
    }
    let fields = msg.field(set, dt.typed_field);
    if dt.elem == Elem::Str {
        v.elements = if segment {
            fields.len() as u64
        } else {
            elements.min(fields.len() as u64)
        };
        // No string_data at all: nothing to show, like an empty typed field.
        v.data = if fields.is_empty() {
            TensorData::None
        } else {
            TensorData::Strings { fields, pad: false }
        };
        return v;
    }
    let wire = wire_of(dt.typed_field);
    let count = typed_count(fields, wire);
    let capacity = if dt.elem.is_complex() {
        count / 2
    } else {
        count.saturating_mul(dt.elem.elements_per_int32())
    };
    v.elements = if segment {
        capacity
    } else {
        elements.min(capacity)
    };
    v.data = if fields.is_empty() {
        TensorData::None
    } else {
        TensorData::Typed {
            fields,
            wire,
            pad: false,
        }
    };
    v
}
/// `onnx-tensor.proto`: TensorProto and SparseTensorProto (the tensor
/// messages every ONNX format holds).
pub const SCHEMA_FILE: (&str, &str) = (
    "onnx-tensor.proto",
    include_str!("../../schemas/onnx-tensor.proto"),
);

/// A data type code's name (`FLOAT`), or the number when it has none.
pub fn data_type_text(set: &SchemaSet, code: Option<i64>) -> String {
    let code = code.unwrap_or(0);
    set.find_enum("onnx.TensorProto.DataType")
        .and_then(|e| set.enum_def(e).name_of(code).map(str::to_string))
        .unwrap_or_else(|| code.to_string())
}

/// The `dims` of a message as written: `[3, 4, 5]`.
pub fn dims_text(set: &SchemaSet, msg: &Message<'_>) -> String {
    let d: Vec<String> = msg
        .scalars(set, TensorProto::DIMS)
        .filter_map(|d| d.as_i64())
        .map(|d| d.to_string())
        .collect();
    format!("[{}]", d.join(", "))
}

/// `FLOAT[3, 4, 5]`; empty for a message that is not a TensorProto.
pub fn summary(set: &SchemaSet, msg: &Message<'_>) -> String {
    if msg.def(set).full_name != TENSOR_ADAPTER.message {
        return String::new();
    }
    format!(
        "{}{}",
        data_type_text(set, msg.int(set, TensorProto::DATA_TYPE)),
        dims_text(set, msg)
    )
}

/// The tensor message of every ONNX format.
pub const TENSOR_ADAPTER: TensorAdapter = TensorAdapter {
    message: "onnx.TensorProto",
    value_fields: VALUE_FIELDS,
    header_fields: &[TensorProto::DIMS, TensorProto::DATA_TYPE],
    name_field: Some(TensorProto::NAME),
    view,
    validate,
    warning,
    kernel_order: KernelOrder::Oihw,
};

/// A TensorProto file (onnx's backend test `input_0.pb`).
pub const FORMAT: Format = Format {
    id: "onnx-tensor",
    title: "ONNX tensor (TensorProto)",
    schema_files: &[SCHEMA_FILE],
    roots: &["onnx.TensorProto"],
    decode,
    tensor_adapters: &[TENSOR_ADAPTER],
    tensor_namers: &[],
    line: summary,
    summary: super::summary::no_summary,
    views: &[],
    side_tensors: super::base::no_side_tensors,
};

fn decode<'a>(bytes: &'a [u8], _opts: &FormatOptions) -> Result<Body<'a>> {
    let message = decode_builtin("onnx.TensorProto", bytes, DecodeContext::strict())?;
    validate(SchemaSet::builtin(), &message)?;
    Ok(Body::Message {
        type_name: "onnx.TensorProto".into(),
        message,
        also: Vec::new(),
    })
}
