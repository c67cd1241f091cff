//! Memory is bounded by the input, not by what the input claims: a counting
//! global allocator records the peak heap use of this thread while inputs
//! that claim 1 GiB (a LEN length, huge dims, a huge packed count) are
//! decoded and rendered. Output goes to a sink that only counts bytes, so
//! the numbers are the decoder's own.
//!
//! What this suite checks, in full: a counting allocator checks that memory stays in proportion to
//! the input whatever it claims (1 GiB lengths, dims over 2^64, huge packed
//! counts), and that inputs of the tiniest fields (2-byte varints, empty
//! messages and groups) decode in at most 72 times their size.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::Msg;
use pbdecode::formats::{self, FormatOptions, REGISTRY};
use pbdecode::json_writer::JsonWriter;
use pbdecode::render::{RenderOptions, json, text};
use std::io::{self, Write};
use std::path::Path;

use crate::counting_alloc::peak_during;

/// A writer that keeps nothing, counting what it is given and refusing
/// more than 64 MiB (so an input that makes endless output fails fast).
struct Sink(u64);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        if self.0 > 64 << 20 {
            return Err(io::Error::other("more than 64 MiB of output"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn ropts() -> RenderOptions {
    RenderOptions {
        dir: Some(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/onnx-tensor")
                .into(),
        ),
        ..RenderOptions::default()
    }
}

/// Decodes `bytes` every way the binary can and renders what decodes;
/// returns the bytes of output made.
fn decode_and_render(bytes: &[u8]) -> u64 {
    let fopts = FormatOptions::default();
    let ropts = ropts();
    let mut sink = Sink(0);
    if let Ok(d) = formats::detect(bytes, &fopts) {
        let _ = text::write_decoded(&mut sink, &d, &ropts);
        let _ = json::write_decoded(&mut sink, &d, &ropts);
    }
    for f in REGISTRY {
        if let Ok(d) = formats::decode_as(f, bytes, &fopts) {
            let _ = text::write_decoded(&mut sink, &d, &ropts);
            let _ = json::write_decoded(&mut sink, &d, &ropts);
        }
    }
    sink.0
}

/// Loads the built-in schema tables and any other one-time state, so they
/// are not counted against the first input.
fn warm_up() {
    let x = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/example_x_3x4x5.pb"),
    )
    .unwrap();
    decode_and_render(&x);
    decode_and_render(&claims_len(9));
}

/// The bound: a small multiple of the input, plus a fixed allowance for
/// error messages, the decoded tree's vectors and formatting buffers
/// (the schemaless text view keeps a 64 KiB line buffer).
fn bound(input: usize) -> usize {
    32 * input + (128 << 10)
}

fn check(what: &str, bytes: &[u8]) {
    let mut out = 0;
    let ((), peak) = peak_during(|| out = decode_and_render(bytes));
    eprintln!(
        "{what}: {} bytes in, peak {peak} bytes allocated, {out} bytes out",
        bytes.len()
    );
    assert!(
        peak <= bound(bytes.len()),
        "{what}: {peak} bytes allocated for a {}-byte input",
        bytes.len()
    );
}

const GIB: u64 = 1 << 30;

/// A FLOAT tensor whose field `number` is a LEN claiming 1 GiB, padded to
/// 100 bytes.
fn claims_len(number: u64) -> Vec<u8> {
    let mut m = Msg::new().int(1, 4).varint(2, 1).len_header(number, GIB);
    let pad = 100 - m.len();
    m = m.raw(&vec![0u8; pad]);
    m.buf
}

#[test]
fn inputs_claiming_a_gibibyte() {
    warm_up();
    // LEN lengths: raw_data, name, a typed field, dims, external_data.
    for number in [9, 8, 4, 5, 1, 13, 6] {
        check(
            &format!("field {number} LEN claims 1 GiB"),
            &claims_len(number),
        );
    }
    // Nested: a model whose graph claims 1 GiB, and a graph's initializer.
    check(
        "ModelProto.graph claims 1 GiB",
        &Msg::new().varint(1, 8).len_header(7, GIB).raw(&[0; 90]).buf,
    );
    let init = Msg::new().len_header(5, GIB).raw(&[0; 80]);
    check(
        "GraphProto.initializer claims 1 GiB",
        &Msg::new().varint(1, 8).message(7, &init).buf,
    );

    // Huge dims: over 2^64 elements; 2^30 elements with a segment (its
    // size is not checked) and 16 bytes of raw_data; 2^30 STRING elements
    // with one string; 2^30 elements in a side file.
    let huge = Msg::new()
        .int(1, 1 << 31)
        .int(1, 1 << 31)
        .int(1, 1 << 31)
        .varint(2, 1)
        .len_field(9, &[0; 16]);
    check("dims over 2^64 elements", &huge.buf);
    let seg = Msg::new()
        .int(1, GIB as i64)
        .varint(2, 1)
        .message(3, &Msg::new().int(1, 0).int(2, 4))
        .len_field(9, &[0; 16]);
    check("2^30 FLOAT with a segment", &seg.buf);
    let seg_str = Msg::new()
        .int(1, GIB as i64)
        .varint(2, 8)
        .message(3, &Msg::new().int(1, 0).int(2, 1))
        .string(6, "x");
    check("2^30 STRING with a segment", &seg_str.buf);
    let ext = Msg::new()
        .int(1, GIB as i64)
        .varint(2, 1)
        .message(
            13,
            &Msg::new().string(1, "location").string(2, "weights.bin"),
        )
        .varint(14, 1);
    check("2^30 FLOAT in a side file", &ext.buf);
    let ext_len = Msg::new()
        .int(1, 16)
        .varint(2, 1)
        .message(
            13,
            &Msg::new().string(1, "location").string(2, "weights.bin"),
        )
        .message(13, &Msg::new().string(1, "length").string(2, "1073741824"))
        .message(
            13,
            &Msg::new()
                .string(1, "offset")
                .string(2, "18446744073709551615"),
        )
        .varint(14, 1);
    check(
        "side file length and offset claiming more than exists",
        &ext_len.buf,
    );

    // Huge packed counts: 2^30 elements, and a packed int32_data of 100
    // one-byte varints (rejected: the count does not match).
    let packed = Msg::new()
        .int(1, GIB as i64)
        .varint(2, 6)
        .len_field(5, &[1; 100]);
    check("packed int32_data for 2^30 elements", &packed.buf);
    let packed_dims = Msg::new()
        .len_field(1, &[0xff, 0xff, 0xff, 0xff, 0x03].repeat(20))
        .varint(2, 1);
    check("100 bytes of packed dims, each 2^30-1", &packed_dims.buf);
    // 4-bit values in int32_data: one int32 holds two elements; a segment
    // lets the count be anything.
    let i4 = Msg::new()
        .int(1, GIB as i64)
        .varint(2, 22)
        .message(3, &Msg::new().int(2, 1))
        .len_field(5, &[0x7f; 50]);
    check("2^30 INT4 from 50 int32 values", &i4.buf);
}

#[test]
fn fixtures_use_memory_in_proportion_to_their_size() {
    warm_up();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onnx-tensor");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let mut out = 0;
        let ((), peak) = peak_during(|| out = decode_and_render(&bytes));
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            peak <= bound(bytes.len()),
            "{name}: {peak} bytes allocated for a {}-byte input",
            bytes.len()
        );
    }
}

/// Inputs made of the smallest fields there are, 128 KiB of each kind: the
/// worst case for the size of the decoded tree against the input.
fn tiny_fields() -> Vec<(&'static str, Vec<u8>)> {
    const N: usize = 1 << 16;
    let group = {
        // A group whose body is empty: start-group 1, end-group 1.
        vec![0x0b, 0x0c]
    };
    let nested = Msg::new().message(1, &Msg::new().varint(1, 1)).buf;
    vec![
        ("varints 08 01", [0x08, 0x01].repeat(N)),
        ("empty LEN 0a 00", [0x0a, 0x00].repeat(N)),
        ("empty LEN 12 00", [0x12, 0x00].repeat(N)),
        ("empty groups 0b 0c", group.repeat(N)),
        ("tiny messages 0a 02 08 01", nested.repeat(N / 2)),
        ("fixed32 0d ...", [0x0d, 0, 0, 0x80, 0x3f].repeat(N / 2)),
    ]
}

/// The peak heap use of each way of decoding, as a multiple of the input.
fn tiny_field_ratios(bytes: &[u8]) -> Vec<(&'static str, f64)> {
    let ropts = ropts();
    let len = bytes.len() as f64;
    let mut out = Vec::new();
    let ((), peak) = peak_during(|| {
        let tree = pbdecode::schemaless::decode_partial(bytes, 0, Default::default());
        let mut sink = Sink(0);
        let d = formats::Decoded {
            format: formats::find("protobuf").unwrap(),
            body: formats::Body::Schemaless(tree),
            passed_over: Vec::new(),
            syntax: Default::default(),
        };
        let _ = text::write_decoded(&mut sink, &d, &ropts);
        drop(d);
    });
    out.push(("schemaless", peak as f64 / len));
    for f in REGISTRY {
        let ((), peak) = peak_during(|| {
            let _ = formats::decode_as(f, bytes, &FormatOptions::default());
        });
        out.push((f.id, peak as f64 / len));
    }
    let ((), peak) = peak_during(|| {
        if let Ok(d) = formats::detect(bytes, &FormatOptions::default()) {
            let _ = text::write_decoded(&mut Sink(0), &d, &ropts);
        }
    });
    out.push(("detect", peak as f64 / len));
    out
}

/// The bound the guide states for the decoded trees: a node per field
/// (96 bytes in the schemaless reading, 72 with a schema, plus 48 for a
/// nested message) over fields of at least 2 bytes, the schemaless arena
/// grown by a quarter at a time, and one level's guesses in flight. (Before
/// the compact layout, 1 MiB of empty groups took 208x, varints 144x.)
const TREE_RATIO: f64 = 72.0;

#[test]
fn tiny_fields_take_a_bounded_multiple_of_the_input() {
    warm_up();
    let mut worst = (0.0, String::new());
    for (what, bytes) in tiny_fields() {
        for (how, ratio) in tiny_field_ratios(&bytes) {
            eprintln!("{what}: {how}: peak {ratio:.1}x the input");
            if ratio > worst.0 {
                worst = (ratio, format!("{what} ({how})"));
            }
        }
    }
    eprintln!("worst: {:.1}x, {}", worst.0, worst.1);
    assert!(
        worst.0 <= TREE_RATIO,
        "{}: peak {:.1}x the input",
        worst.1,
        worst.0
    );
}

/// A SequenceProto of `n` empty FLOAT tensors (dims [0]).
fn empty_tensors(n: usize) -> Vec<u8> {
    let empty = Msg::new().int(1, 0).varint(2, 1);
    let mut m = Msg::new().varint(2, 1);
    for _ in 0..n {
        m = m.message(3, &empty);
    }
    m.buf
}

#[test]
fn diff_of_long_sequences_holds_no_reports() {
    warm_up();
    // Two sequences of 50,000 empty tensors: comparing them and writing
    // every finding adds at most a quarter of what decoding the two takes
    // (collecting the findings first took ten times as much).
    let (x, y) = (empty_tensors(50_000), empty_tensors(50_000));
    let seq = formats::find(formats::onnx::SEQUENCE.id).unwrap();
    let fopts = FormatOptions::default();
    let decode_both = || {
        (
            formats::decode_as(seq, &x, &fopts).unwrap(),
            formats::decode_as(seq, &y, &fopts).unwrap(),
        )
    };
    let ((), decoding) = peak_during(|| drop(decode_both()));
    let mut written = 0;
    let ((), comparing) = peak_during(|| {
        let (dx, dy) = decode_both();
        let (
            formats::Body::Message { message: mx, .. },
            formats::Body::Message { message: my, .. },
        ) = (&dx.body, &dy.body)
        else {
            panic!("not messages")
        };
        let mut sink = Sink(0);
        let opts = pbdecode::diff::DiffOptions::default();
        let tally = pbdecode::diff::compare_messages_each(mx, my, (None, None), &opts, &mut |e| {
            if let pbdecode::diff::Finding::Tensor(t) = &e.finding {
                pbdecode::diff::write_tensor_json(&mut JsonWriter::new(&mut sink), t)?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(tally.entries, 50_000);
        written = sink.0;
    });
    eprintln!(
        "decoding both: peak {decoding} bytes; comparing too: {comparing}; {written} bytes out"
    );
    assert!(written > 0);
    assert!(
        comparing <= decoding + decoding / 4,
        "comparing took {comparing} bytes, decoding {decoding}"
    );
}

/// A package of about 4 KiB: 1,024 components of three characters.
fn long_package() -> String {
    vec!["pk0"; 1024].join(".")
}

/// The bound for a schema: a small multiple of its bytes. A full name is
/// its scope's once and its own name, never the package again per name.
fn schema_bound(input: usize) -> usize {
    64 * input + (256 << 10)
}

/// Reads the schema `load` makes, dumps it as text and JSON; the peak
/// heap use, and the dump's size.
fn load_and_dump(load: impl FnOnce() -> pbdecode::schema::SchemaSet) -> (usize, u64) {
    use pbdecode::render::schema_view::{write_schema_json, write_schema_text};
    let (out, peak) = peak_during(|| {
        let set = load();
        let mut sink = Sink(0);
        write_schema_text(&mut sink, &set).unwrap();
        write_schema_json(&mut sink, &set).unwrap();
        sink.0
    });
    (peak, out)
}

#[test]
fn names_under_a_long_package_are_not_copied_per_message() {
    warm_up();
    // 1,000 messages, each with a field of the next one's type and a
    // field of an enum, and a message whose 1,000 fields share one oneof
    // with a name as long as the package.
    let n = 1000;
    let mut proto = format!(
        "syntax = \"proto3\"; package {};\nenum E {{ E0 = 0; }}\n",
        long_package()
    );
    for i in 0..n {
        proto.push_str(&format!(
            "message M{i} {{ M{} m = 1; E e = 2; }}\n",
            (i + 1) % n
        ));
    }
    proto.push_str(&format!("message O {{ oneof {} {{\n", "o".repeat(4096)));
    for i in 1..=1000 {
        proto.push_str(&format!("int32 f{i} = {i};\n"));
    }
    proto.push_str("} }\n");
    let dir = std::env::temp_dir().join(format!("pbdecode-alloc-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long_package.proto");
    std::fs::write(&path, &proto).unwrap();
    let (peak, out) = load_and_dump(|| pbdecode::user_schema::load_proto(&path, &[]).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    eprintln!(
        ".proto: {} bytes in, peak {peak} bytes allocated, {out} bytes dumped",
        proto.len()
    );
    // The dump names every type in full: far more than the bound, made a
    // line at a time.
    assert!(out > 4 * schema_bound(proto.len()) as u64);
    assert!(
        peak <= schema_bound(proto.len()),
        ".proto: {peak} bytes allocated for a {}-byte schema",
        proto.len()
    );
}

#[test]
fn a_descriptor_set_with_a_long_package_is_not_copied_per_message() {
    warm_up();
    // FileDescriptorSet.file: a package and 5,000 empty messages. Each
    // message costs its decoded descriptor and definition whatever the
    // package; the long package may add a multiple of its own length,
    // not of its length times the messages.
    let descriptor_set = |package: &str| {
        let mut file = Msg::new()
            .string(1, "long.proto")
            .string(2, package)
            .string(12, "proto3");
        for i in 0..5000 {
            file = file.message(4, &Msg::new().string(1, &format!("M{i}")));
        }
        Msg::new().message(1, &file).buf
    };
    let peak_of = |bytes: &[u8]| {
        load_and_dump(|| pbdecode::user_schema::load_descriptor_set(bytes).unwrap()).0
    };
    let (short, long) = (descriptor_set("p"), descriptor_set(&long_package()));
    let (short_peak, long_peak) = (peak_of(&short), peak_of(&long));
    let added = long.len() - short.len();
    eprintln!(
        "descriptor set: {} bytes in, peak {short_peak} bytes; {added} bytes of package more, peak {long_peak} bytes",
        short.len()
    );
    assert!(
        long_peak.saturating_sub(short_peak) <= 64 * added,
        "descriptor set: {added} bytes of package took {} bytes more",
        long_peak.saturating_sub(short_peak)
    );
}

/// The explorer's field tree costs no memory per field: reading a file of
/// a million tiny fields without a schema, its tree unbuilt, and one page
/// of its top level (what `/api/open` sends of it) allocates a fixed
/// amount; the whole tree (what the command line renders) takes about a
/// hundred bytes a field.
#[test]
fn the_explorers_field_tree_uses_no_memory_per_field() {
    use pbdecode::schemaless::{self, Branch, Options};
    warm_up();
    let bytes: Vec<u8> = (0..1_000_000u32)
        .flat_map(|i| [0x78, (i % 100) as u8])
        .collect();
    let unread = FormatOptions {
        tree: false,
        ..FormatOptions::default()
    };
    let (fields, peak) = peak_during(|| {
        let protobuf = formats::find("protobuf").unwrap();
        formats::decode_as(protobuf, &bytes, &unread).unwrap();
        let root = Branch::root(bytes.len() as u64);
        let level = schemaless::read_level(&bytes, root, Options::default()).unwrap();
        assert_eq!(level.total, 1_000_000);
        level.page(0, 200).fields.len()
    });
    assert_eq!(fields, 200);
    let (_, whole) = peak_during(|| schemaless::decode(&bytes, 0, Options::default()).unwrap());
    eprintln!("a page of 1M fields: peak {peak} bytes allocated; the whole tree: {whole}");
    assert!(peak < 256 << 10, "{peak} bytes allocated");
    assert!(whole > 50_000_000, "{whole} bytes for the whole tree");
}

/// A text-format input read as the decoders read it: its binary form made
/// (`WireInput`), then detected and rendered as above.
fn read_text_and_render(text: &[u8]) -> u64 {
    use pbdecode::formats::AsFormat;
    use pbdecode::input::InputBytes;
    use pbdecode::syntax::WireInput;
    match WireInput::new(
        std::sync::Arc::new(InputBytes::Owned(text.to_vec())),
        AsFormat::Auto,
    ) {
        Ok(w) => decode_and_render(w.binary.bytes()),
        Err(_) => 0,
    }
}

/// The text format's reader holds, besides its output (mostly smaller
/// than the text), a frame per open message and a record per field of the
/// open messages: 10,000 levels of nesting (refused past the depth limit),
/// a 20 MB string, a million tiny fields and a long text GraphDef stay
/// within a small multiple of the text.
#[test]
fn text_format_inputs_take_a_bounded_multiple_of_the_text() {
    warm_up();
    let deep = "graph { node { attribute { g {".repeat(3400).into_bytes();
    let mut long = b"dims: 1\ndata_type: 8\nname: \"t\"\nstring_data: \"".to_vec();
    long.extend(std::iter::repeat_n(b'x', 20 << 20));
    long.extend_from_slice(b"\"\n");
    let mut unclosed = long.clone();
    unclosed.truncate(unclosed.len() - 2);
    let tiny = "dims:1 ".repeat(1 << 20).into_bytes();
    let mut graph = String::new();
    for k in 0..20_000 {
        graph.push_str(&format!(
            "node {{ name: \"n{k}\" op: \"Identity\" input: \"n{}\" attr {{ key: \"T\" value {{ type: DT_FLOAT }} }} }}\n",
            k.max(1) - 1
        ));
    }
    // (what, the text, the bound as a multiple of the text): a million
    // two-byte fields decode as binary does, a tree node per field (the
    // binary suite's bound for its tiniest fields is 72 times the input).
    for (what, text, times) in [
        ("10,000 levels", deep, 8),
        ("a 20 MB string", long, 8),
        ("a 20 MB string never closed", unclosed, 8),
        ("a million tiny fields", tiny, 72),
        // The decoded tree of a GraphDef (a node per message and field)
        // is the most of it: the binary suite allows 32 times a binary
        // file, which is about half its text.
        ("a text GraphDef of 20,000 nodes", graph.into_bytes(), 16),
    ] {
        let mut out = 0;
        let ((), peak) = peak_during(|| out = read_text_and_render(&text));
        eprintln!(
            "{what}: {} bytes in, peak {peak} bytes allocated, {out} bytes out",
            text.len()
        );
        // The text held once more (the reading's own copy here), its
        // binary form, the decoded tree and the renderers' buffers.
        assert!(
            peak <= times * text.len() + (1 << 20),
            "{what}: {peak} bytes allocated for a {}-byte text",
            text.len()
        );
    }
}
