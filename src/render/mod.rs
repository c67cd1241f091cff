//! Output: text for people, JSON for programs. Renderers only read the
//! decoded tree; they write to any `io::Write` (the binary passes a buffered,
//! locked stdout) and never print on their own.

pub mod json;
pub mod text;

use crate::decode::Message;
use crate::external::ExternalBytes;
use crate::formats::onnx_tensor;
use crate::schema::SchemaSet;
use crate::tensor::{Element, Elements, Source, TensorData, TensorView};
use crate::wire::WireType;
use std::path::PathBuf;

/// Choices that shape the output.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// How many values of each tensor to print; None prints all.
    pub values: Option<u64>,
    /// The input's folder, for external data; None for standard input.
    pub dir: Option<PathBuf>,
    /// Show every field's byte range.
    pub offsets: bool,
}

/// A message type whose element-holding fields are shown as one decoded
/// `values` list.
pub struct TensorAdapter {
    pub message: &'static str,
    pub value_fields: &'static [&'static str],
    pub view: for<'m, 'a> fn(&SchemaSet, &'m Message<'a>) -> TensorView<'m, 'a>,
}

pub static TENSOR_ADAPTERS: &[TensorAdapter] = &[TensorAdapter {
    message: "onnx.TensorProto",
    value_fields: onnx_tensor::VALUE_FIELDS,
    view: onnx_tensor::view,
}];

pub fn tensor_adapter(full_name: &str) -> Option<&'static TensorAdapter> {
    TENSOR_ADAPTERS.iter().find(|a| a.message == full_name)
}

/// A tensor's elements ready to iterate, holding any side file they live in.
pub enum LoadedValues<'a> {
    Ready(Elements<'a>, u64),
    External(ExternalBytes, crate::tensor::Elem, u64),
    Zeros(crate::tensor::Elem, u64),
    Unavailable(String),
    /// The tensor has no elements.
    Nothing,
}

/// Resolves where a tensor's values are. External files are mapped here.
pub fn load_values<'v>(view: &TensorView<'v, 'v>, opts: &RenderOptions) -> LoadedValues<'v> {
    let Some(elem) = view.elem else {
        return match &view.data {
            TensorData::Unavailable(why) => LoadedValues::Unavailable(why.clone()),
            _ => LoadedValues::Unavailable(format!("data type {} cannot be decoded", view.type_name)),
        };
    };
    let n = view.elements;
    match &view.data {
        TensorData::Raw(bytes) => LoadedValues::Ready(Elements::new(elem, Source::Raw(bytes), n), n),
        TensorData::Typed { fields, wire, pad } => {
            let wire: WireType = *wire;
            let raws = fields.iter().flat_map(move |f| crate::decode::RawScalars::new(&f.value, wire));
            if *pad {
                let padded = Padded { inner: Box::new(raws), last: None };
                LoadedValues::Ready(Elements::new(elem, Source::Typed(Box::new(padded)), n), n)
            } else {
                LoadedValues::Ready(Elements::new(elem, Source::Typed(Box::new(raws)), n), n)
            }
        }
        TensorData::Strings(fields) => {
            let strings = fields.iter().filter_map(|f| match f.value {
                crate::decode::Value::Bytes(b) => Some(b),
                _ => None,
            });
            LoadedValues::Ready(Elements::new(elem, Source::Strings(Box::new(strings)), n), n)
        }
        TensorData::External(r) => match r.load(opts.dir.as_deref()) {
            Ok(bytes) => LoadedValues::External(bytes, elem, n),
            Err(why) => LoadedValues::Unavailable(why),
        },
        TensorData::Zeros => LoadedValues::Zeros(elem, n),
        TensorData::Unavailable(why) => LoadedValues::Unavailable(why.clone()),
        TensorData::None => LoadedValues::Nothing,
    }
}

/// Repeats the last value forever (TensorFlow's padding of short typed
/// fields); the element reader stops at the element count.
struct Padded<'a> {
    inner: Box<dyn Iterator<Item = u64> + 'a>,
    last: Option<u64>,
}

impl Iterator for Padded<'_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        match self.inner.next() {
            Some(v) => {
                self.last = Some(v);
                Some(v)
            }
            None => self.last,
        }
    }
}

/// Calls `f` on each element of loaded values (external ones included).
pub fn for_each_element<E>(
    loaded: &mut LoadedValues<'_>,
    mut f: impl FnMut(Element<'_>) -> Result<(), E>,
) -> Result<(), E> {
    match loaded {
        LoadedValues::Ready(it, _) => {
            for e in it {
                f(e)?;
            }
        }
        LoadedValues::External(bytes, elem, n) => {
            for e in Elements::new(*elem, Source::Raw(bytes.bytes()), *n) {
                f(e)?;
            }
        }
        LoadedValues::Zeros(elem, n) => {
            let zero = zero_of(*elem);
            for _ in 0..*n {
                f(zero)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn zero_of(elem: crate::tensor::Elem) -> Element<'static> {
    use crate::tensor::Elem;
    match elem {
        Elem::F64 => Element::F64(0.0),
        Elem::C64 => Element::C64(0.0, 0.0),
        Elem::C128 => Element::C128(0.0, 0.0),
        Elem::Bool => Element::Bool(false),
        Elem::Str => Element::Str(b""),
        Elem::I8 | Elem::I16 | Elem::I32 | Elem::I64 | Elem::I4 | Elem::I2 => Element::I64(0),
        Elem::U8 | Elem::U16 | Elem::U32 | Elem::U64 | Elem::U4 | Elem::U2 => Element::U64(0),
        _ => Element::F32(0.0),
    }
}

/// Standard base64 with padding (the JSON form of bytes fields).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_vectors() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
    }
}
