//! Well-known files of machine learning that are not protobuf. When such a
//! file is turned down (or read only as a schemaless message), saying what
//! it looks like and what reads it helps more than a wire error.

use std::borrow::Cow;

/// What the bytes look like, when they carry the signature of a known
/// non-protobuf format. `name` is the file name, for the formats that have
/// no signature of their own (TensorFlow checkpoint data shards).
pub fn looks_like(bytes: &[u8], name: Option<&str>) -> Option<Cow<'static, str>> {
    // Files known by their name only (raw tensor bytes have no signature,
    // and may start like anything): before the signatures.
    if let Some(what) = name.and_then(by_name) {
        return Some(Cow::Borrowed(what));
    }
    looks_like_static(bytes).map(Cow::Borrowed).or_else(|| {
        // A shard is read through its index, named after the same prefix.
        let prefix = name.and_then(checkpoint_shard_prefix)?;
        Some(Cow::Owned(format!(
            "a TensorFlow checkpoint data shard (raw tensor bytes, located through its index): decode {prefix}.index reads it"
        )))
    })
}

fn looks_like_static(bytes: &[u8]) -> Option<&'static str> {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    if bytes.get(4..8) == Some(b"ORTM") {
        return Some(
            "an ONNX Runtime model (.ort, a FlatBuffer, \"ORTM\" at offset 4): read it with onnxruntime, or decode the .onnx model it was converted from",
        );
    }
    if bytes.get(4..8) == Some(b"TFL3") {
        return Some(
            "a TensorFlow Lite model (a FlatBuffer, \"TFL3\" at offset 4): read it with Netron or tf.lite.Interpreter",
        );
    }
    if starts(b"GGUF") {
        return Some("a GGUF model (llama.cpp): read it with the gguf Python package or llama.cpp");
    }
    if starts(b"\x93NUMPY") {
        return Some("a NumPy .npy array: read it with numpy.load");
    }
    if starts(b"\x89HDF\r\n\x1a\n") {
        return Some(
            "an HDF5 file (a Keras .h5 model?): read it with h5py or keras.models.load_model",
        );
    }
    if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") {
        return Some(
            "a zip archive (a PyTorch .pt/.pth checkpoint, a Keras .keras model, an .npz?): read it with torch.load, keras or numpy.load",
        );
    }
    if starts(&[0x1f, 0x8b]) {
        return Some("a gzip-compressed file: decompress it first");
    }
    if bytes.len() >= 2 && bytes.first() == Some(&0x80) && matches!(bytes.get(1), Some(2..=5)) {
        return Some("a Python pickle (a legacy PyTorch checkpoint?): read it with torch.load");
    }
    if is_safetensors(bytes) {
        return Some("a safetensors file: read it with the safetensors library");
    }
    if is_leveldb_table(bytes) {
        return Some(
            "a TensorFlow checkpoint index (variables.index, a table of tensor locations): read it with tf.train.list_variables",
        );
    }
    if starts(&[0xff, 0xd8, 0xff]) {
        return Some("a JPEG image: open it with an image viewer or PIL.Image.open");
    }
    if starts(b"\x89PNG\r\n\x1a\n") {
        return Some("a PNG image: open it with an image viewer or PIL.Image.open");
    }
    if is_json(bytes) {
        return Some("a JSON document: read it with json.load or any text editor");
    }
    None
}

/// The files known by their name: an ONNX model's external data, Paddle
/// parameters, Core ML weights.
fn by_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".onnx.data") || lower.ends_with(".onnx_data") {
        return Some(
            "an ONNX external-data file (raw tensor bytes; decode the model that points to it)",
        );
    }
    if lower.ends_with(".pdiparams") {
        return Some(
            "PaddlePaddle parameters (.pdiparams, a stream of tensors): decode the .pdmodel beside it (paddle-model), which reads them",
        );
    }
    if lower == "weight.bin" {
        return Some(
            "Core ML weights (weight.bin of an .mlpackage, raw blobs): read the package with coremltools",
        );
    }
    None
}

/// safetensors: an 8-byte little-endian header length, then that many bytes
/// of JSON starting with `{`.
fn is_safetensors(bytes: &[u8]) -> bool {
    let Some(len) = bytes.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok()) else {
        return false;
    };
    let len = u64::from_le_bytes(len);
    let rest = (bytes.len() as u64).saturating_sub(8);
    len >= 2 && len <= rest && bytes.get(8) == Some(&b'{')
}

/// JSON text: an object or an array opening as JSON does (`{"` or `{}`;
/// `[` then a value or `]`), with no control bytes but whitespace in the
/// first 256 bytes. A protobuf message may start with `{` or `[` (a group
/// of field 15 or 11), but not followed so.
fn is_json(bytes: &[u8]) -> bool {
    let head = bytes.get(..256).unwrap_or(bytes);
    if head
        .iter()
        .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
    {
        return false;
    }
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let mut rest = head.iter().copied().filter(|b| !b.is_ascii_whitespace());
    match (rest.next(), rest.next()) {
        (Some(b'{'), Some(b'"' | b'}')) => true,
        (Some(b'['), Some(next)) => {
            matches!(next, b'{' | b'[' | b'"' | b']' | b'-' | b't' | b'f' | b'n')
                || next.is_ascii_digit()
        }
        _ => false,
    }
}

/// The footer of a LevelDB-style table (TensorFlow's checkpoint index ends
/// with the table magic number 0xdb4775248b80fb57, little-endian).
fn is_leveldb_table(bytes: &[u8]) -> bool {
    const MAGIC: [u8; 8] = 0xdb47_7524_8b80_fb57_u64.to_le_bytes();
    bytes.len() >= 48 && bytes.ends_with(&MAGIC)
}

/// The prefix of `variables.data-00000-of-00001` and the like.
fn checkpoint_shard_prefix(name: &str) -> Option<&str> {
    let (prefix, tail) = name.rsplit_once(".data-")?;
    let (a, b) = tail.split_once("-of-")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    (digits(a) && digits(b)).then_some(prefix)
}

#[cfg(test)]
mod tests {
    use super::looks_like;

    #[test]
    fn signatures() {
        let mut tflite = vec![0x1c, 0, 0, 0];
        tflite.extend_from_slice(b"TFL3");
        tflite.extend_from_slice(&[0; 16]);
        assert!(
            looks_like(&tflite, None)
                .unwrap()
                .contains("TensorFlow Lite")
        );
        assert!(
            looks_like(b"GGUF\x03\0\0\0", None)
                .unwrap()
                .contains("GGUF")
        );
        assert!(
            looks_like(b"\x93NUMPY\x01\0", None)
                .unwrap()
                .contains("numpy.load")
        );
        assert!(
            looks_like(b"\x89HDF\r\n\x1a\n\0", None)
                .unwrap()
                .contains("HDF5")
        );
        assert!(looks_like(b"PK\x03\x04rest", None).unwrap().contains("zip"));
        assert!(
            looks_like(&[0x80, 0x02, b'}'], None)
                .unwrap()
                .contains("pickle")
        );
        let mut st = 4u64.to_le_bytes().to_vec();
        st.extend_from_slice(b"{}  ");
        assert!(looks_like(&st, None).unwrap().contains("safetensors"));
        let mut index = vec![0u8; 40];
        index.extend_from_slice(&0xdb47_7524_8b80_fb57_u64.to_le_bytes());
        assert!(
            looks_like(&index, None)
                .unwrap()
                .contains("checkpoint index")
        );
        assert!(
            looks_like(b"\xff\xd8\xff\xe0\0\x10JFIF", None)
                .unwrap()
                .contains("JPEG")
        );
        assert!(
            looks_like(b"\x89PNG\r\n\x1a\n\0\0", None)
                .unwrap()
                .contains("PNG")
        );
        for json in [&b"{\"a\": 1}"[..], b"\n  [1, 2]", b"[{\"x\": null}]", b"{}"] {
            assert!(looks_like(json, None).unwrap().contains("JSON"));
        }
        let shard = looks_like(&[1, 2, 3], Some("variables.data-00000-of-00001")).unwrap();
        assert!(shard.contains("data shard"), "{shard}");
        assert!(shard.contains("decode variables.index"), "{shard}");
        let mut ort = vec![0x18, 0, 0, 0];
        ort.extend_from_slice(b"ORTM");
        ort.extend_from_slice(&[0; 16]);
        assert!(looks_like(&ort, None).unwrap().contains("ONNX Runtime"));
        // Raw bytes known by their name, even when they start like a
        // signature (a pickle's 0x80 0x02 here).
        for (name, what) in [
            ("model.onnx.data", "decode the model that points to it"),
            ("model.onnx_data", "decode the model that points to it"),
            ("inference.pdiparams", "decode the .pdmodel beside it"),
            ("weight.bin", "coremltools"),
        ] {
            let hint = looks_like(&[0x80, 0x02, 0, 0], Some(name)).unwrap();
            assert!(hint.contains(what), "{name}: {hint}");
        }
    }

    #[test]
    fn protobuf_files_have_no_hint() {
        // An ONNX tensor's first bytes (dims, data_type, name).
        assert_eq!(
            looks_like(&[0x08, 0x03, 0x10, 0x01, 0x42, 0x01, b'x'], None),
            None
        );
        assert_eq!(looks_like(&[], None), None);
        // A group of field 15 (`{`) or 11 (`[`) opening a message.
        assert_eq!(looks_like(&[b'{', 0x08, 0x01, 0x7c], None), None);
        assert_eq!(looks_like(b"[x\x01", None), None);
        assert_eq!(looks_like(&[1], Some("model.onnx")), None);
        assert_eq!(looks_like(&[1], Some("x.data-1-of-")), None);
        assert_eq!(looks_like(&[1], Some("weights.bin")), None);
        assert_eq!(looks_like(&[1], Some("model.pdmodel")), None);
    }
}
