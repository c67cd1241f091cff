//! Output: text for people, JSON for programs. Renderers only read the
//! decoded tree; they write to any `io::Write` (the binary passes a buffered,
//! locked stdout) and never print on their own.

pub mod json;
pub mod onnx_view;
pub mod schemaless;
pub mod text;
pub mod tf_view;

pub use crate::tensor::{LoadedValues, for_each_element};

use crate::decode::Message;
use crate::formats::{onnx_tensor, tensorflow};
use crate::progress::Progress;
use crate::schema::SchemaSet;
use crate::tensor::TensorView;
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
    /// Sparse tensors: also show the dense tensor (`--dense`).
    pub dense: bool,
    /// Draw colour previews of image-shaped tensors (a colour terminal).
    pub color: bool,
    /// Add a text histogram to each numeric tensor (`--histogram`).
    pub histogram: bool,
    /// Statistics for every tensor, also nested ones whose values are only
    /// previewed (`--stats`: reads every value of a model).
    pub stats: bool,
    /// Print every value implied by TensorFlow's padding rule, past
    /// [`MAX_IMPLIED_VALUES`] (`--allow-implied`).
    pub allow_implied: bool,
    /// Told of the progress of long passes over values.
    pub progress: ProgressHandle,
}

/// At most this many values implied by TensorFlow's padding rule (a short
/// typed field repeats its last value up to the shape; no values means
/// zeros) are printed unless `allow_implied` is set: a 61-byte Const of
/// shape [2^34] would otherwise print 86 GB.
pub const MAX_IMPLIED_VALUES: u64 = 1 << 20;

/// A .npy file of a tensor with values implied by padding is written only
/// up to this many bytes of values unless `allow_implied` is set.
pub const MAX_IMPLIED_NPY_BYTES: u64 = 1 << 30;

/// How many values of a tensor to print given the requested `limit`, and
/// whether the cap on implied values lowered it.
pub fn value_limit(view: &TensorView<'_, '_>, limit: u64, opts: &RenderOptions) -> (u64, bool) {
    if opts.allow_implied || view.implied_elements() <= MAX_IMPLIED_VALUES {
        return (limit, false);
    }
    let cap = view.stored_elements().saturating_add(MAX_IMPLIED_VALUES);
    if limit > cap {
        (cap, true)
    } else {
        (limit, false)
    }
}

/// A shared [`Progress`] for the renderers (reports nothing by default).
#[derive(Clone, Default)]
pub struct ProgressHandle(Option<std::sync::Arc<dyn Progress + Send>>);

impl ProgressHandle {
    pub fn new(p: std::sync::Arc<dyn Progress + Send>) -> Self {
        ProgressHandle(Some(p))
    }

    pub fn get(&self) -> &dyn Progress {
        match &self.0 {
            Some(p) => p.as_ref(),
            None => &crate::progress::Silent,
        }
    }
}

impl std::fmt::Debug for ProgressHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "ProgressHandle(..)"
        } else {
            "ProgressHandle(none)"
        })
    }
}

/// A message type whose element-holding fields are shown as one decoded
/// `values` list.
pub struct TensorAdapter {
    pub message: &'static str,
    pub value_fields: &'static [&'static str],
    /// Fields the text view already shows in the tensor's header lines.
    pub header_fields: &'static [&'static str],
    pub view: for<'m, 'a> fn(&SchemaSet, &'m Message<'a>) -> TensorView<'m, 'a>,
    /// A problem of a tensor that still decodes, said next to its values
    /// (text) or as `"warning"` (JSON).
    pub warning: fn(&SchemaSet, &Message<'_>) -> Option<String>,
}

pub static TENSOR_ADAPTERS: &[TensorAdapter] = &[
    TensorAdapter {
        message: "onnx.TensorProto",
        value_fields: onnx_tensor::VALUE_FIELDS,
        header_fields: &["dims", "data_type"],
        view: onnx_tensor::view,
        warning: onnx_tensor::warning,
    },
    TensorAdapter {
        message: "tensorflow.TensorProto",
        value_fields: tensorflow::VALUE_FIELDS,
        header_fields: &["dtype", "tensor_shape"],
        view: tensorflow::view,
        warning: |_, _| None,
    },
];

pub fn tensor_adapter(full_name: &str) -> Option<&'static TensorAdapter> {
    TENSOR_ADAPTERS.iter().find(|a| a.message == full_name)
}

/// Standard base64 with padding (the JSON form of bytes fields).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let digit = ALPHABET.get(((n >> (18 - 6 * i)) & 63) as usize);
                out.push(char::from(digit.copied().unwrap_or(b'=')));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Resolves where a tensor's values are (external files relative to the
/// input's folder).
pub fn load_values<'v>(view: &TensorView<'v, 'v>, opts: &RenderOptions) -> LoadedValues<'v> {
    crate::tensor::load_values(view, opts.dir.as_deref())
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
