//! The facade: a file or bytes in, tensors out. A [`Document`] owns its
//! input (the memory map or the bytes, behind an `Arc`), knows its format,
//! and indexes its tensors once without reading a value; a [`Tensor`] is
//! one of them decoded again from its byte range on demand, with its values
//! as typed buffers of the element's own width ([`Values`]), its stored
//! bytes borrowed when they already are the array ([`Tensor::raw_le`]),
//! its statistics and its .npy file. Everything here goes through the
//! layers below (detection, the tensor adapters, the value decoding, the
//! renderers, the one output writer); nothing is decoded twice over.

#![deny(missing_docs)]

mod index;

pub use index::{ExternalData, Step, TensorRef};

use crate::decode::{DecodeContext, Message, decode_message};
use crate::error::DecodeError;
use crate::external::{ExternalBytes, ExternalRef, Folder};
use crate::formats::Syntax;
use crate::formats::summary::Summary;
use crate::formats::tf_event::EventTable;
use crate::formats::tf_example::ExampleColumns as ExampleTable;
use crate::formats::{self, AsFormat, Body, Decoded, FormatOptions, TensorAdapter};
use crate::input::InputBytes;
use crate::npy::{self, NpyError, NpyInfo, NpyOptions};
use crate::output::{Output, OutputError, Policy};
use crate::render::{self, RenderOptions};
use crate::schema::SchemaSet;
use crate::syntax::{TextSource, WireInput};
use crate::tensor::{Elem, Element, Elements, LoadedValues, Source, TensorData, TensorView};
use crate::testdata::{self, FileContext, ModelCache};
use half::{bf16, f16};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Any failure of the library, one variant per part, so that a binding maps
/// each to one exception class; every part's own error converts with `?`.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input was turned down: the check, field path and byte offset.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A tensor's external data is not available.
    #[error(transparent)]
    External(#[from] crate::external::ExternalError),
    /// A user's .proto file or descriptor set cannot be read.
    #[error(transparent)]
    Schema(#[from] crate::user_schema::LoadError),
    /// Schema tables that do not resolve.
    #[error(transparent)]
    SchemaTable(#[from] crate::schema::SchemaError),
    /// A tensor cannot be written as .npy.
    #[error(transparent)]
    Npy(#[from] NpyError),
    /// A tensor cannot be drawn.
    #[error(transparent)]
    Picture(#[from] crate::picture::PictureError),
    /// An output path was refused or its writing failed.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A tensor's values cannot be read (external data missing or failing
    /// its checks, a data type without a decoding); `reason` is what the
    /// JSON output says as `values_unavailable`.
    #[error("tensor {tensor:?}: values not available: {reason}")]
    Unavailable {
        /// The tensor's name.
        tensor: String,
        /// Why.
        reason: String,
    },
    /// More values are implied by TensorFlow's padding rule than are read
    /// without asking ([`crate::MAX_IMPLIED_VALUES`]; see
    /// [`Tensor::values_with`]).
    #[error(
        "tensor {tensor:?}: {implied} values are implied by TensorFlow's padding rule, more than {limit} (allow_implied reads them)"
    )]
    Implied {
        /// The tensor's name.
        tensor: String,
        /// Values implied, not stored.
        implied: u64,
        /// The most read without `allow_implied`.
        limit: u64,
    },
    /// No tensor of that name.
    #[error("no tensor {0:?}")]
    NoSuchTensor(String),
    /// Two documents [`Document::diff`] does not compare (a model, a
    /// file read without a schema).
    #[error("{0}")]
    NotComparable(String),
    /// No format of that id ([`open_as`]).
    #[error("no format {0:?} (the ids are those of decode --help)")]
    NoSuchFormat(String),
    /// A buffer the values need could not be allocated: more than one
    /// buffer can hold, or refused by the system (Python's `ValueError`
    /// "array is too big" and `MemoryError`).
    #[error(transparent)]
    Memory(#[from] crate::error::AllocError),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Opens a file: a regular file is memory-mapped, a pipe read (as the
/// `decode` command reads it); the format is detected, an ONNX test
/// folder's `input_K.pb`/`output_K.pb` read as its model declares it, and
/// external data found beside the file.
pub fn open(path: impl AsRef<Path>) -> Result<Document, Error> {
    Document::open(path.as_ref())
}

/// Reads bytes already in memory (no external data: there is no folder).
pub fn read(bytes: impl Into<Vec<u8>>) -> Result<Document, Error> {
    Document::from_held(
        Held::Input(Arc::new(InputBytes::Owned(bytes.into()))),
        None,
        None,
    )
}

/// [`read`] over shared bytes, kept alive by the document and every clone.
pub fn read_shared(bytes: Arc<[u8]>) -> Result<Document, Error> {
    Document::from_held(Held::Shared(bytes), None, None)
}

/// [`read_shared`] with a folder for external data: tensors whose values
/// are in side files read them from `dir`, under the same rules as for a
/// file opened there (confined to the folder after links, regular files
/// only, length and SHA-1 checked). Bytes that are one of the folder's
/// test files (`input_K.pb`, `output_K.pb` of an ONNX test folder) are read
/// as that file, as its model declares it ([`open`] of it).
pub fn read_shared_in(bytes: Arc<[u8]>, dir: impl Into<PathBuf>) -> Result<Document, Error> {
    let dir = dir.into();
    let context = test_file_holding(&dir, &bytes)
        .and_then(|file| testdata::file_context(&file, None, &ModelCache::default()))
        .map(Arc::new);
    Document::from_held(Held::Shared(bytes), Some(Folder::Disk(dir)), context)
}

/// The test file of `dir` (`input_K.pb`, `output_K.pb`) that holds
/// exactly `bytes`, if one does: listed and read under the side files'
/// rules (regular files inside the folder). The bytes carry no name, so
/// the file is found by its content, as a bundle's index is.
fn test_file_holding(dir: &Path, bytes: &[u8]) -> Option<PathBuf> {
    let folder = Folder::Disk(dir.to_path_buf());
    folder.file_names().into_iter().find_map(|name| {
        testdata::role_of(&name)?;
        let file = ExternalRef {
            location: Some(name.clone()),
            ..ExternalRef::default()
        }
        .load(Some(&folder))
        .ok()?;
        (file.bytes() == bytes).then(|| dir.join(name))
    })
}

/// [`open`] as one format, as `decode --as FORMAT` reads it: that format
/// only, showing what fits (fields it does not know included) and saying
/// exactly why the input does not fit; `format` is an id `decode --help`
/// lists (`onnx-tensor`, `onnx-model`, `protobuf`, ...).
pub fn open_as(path: impl AsRef<Path>, format: &str) -> Result<Document, Error> {
    let path = path.as_ref();
    let forced = formats::find(format).ok_or_else(|| Error::NoSuchFormat(format.to_string()))?;
    let input = crate::input::open_input(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    Document::from_held_as(
        Held::Input(Arc::new(input)),
        folder_of(path).map(Folder::Disk),
        None,
        as_format(forced),
    )
}

/// [`read_shared`] as one format ([`open_as`]), with external data read
/// from `dir` when given ([`read_shared_in`]).
pub fn read_shared_as(
    bytes: Arc<[u8]>,
    format: &str,
    dir: Option<PathBuf>,
) -> Result<Document, Error> {
    let forced = formats::find(format).ok_or_else(|| Error::NoSuchFormat(format.to_string()))?;
    Document::from_held_as(
        Held::Shared(bytes),
        dir.map(Folder::Disk),
        None,
        as_format(forced),
    )
}

/// The reading of one format, as `--as` asks for it.
fn as_format(format: &'static formats::Format) -> Reading {
    Reading {
        asked: AsFormat::Format(format),
        ..Reading::default()
    }
}

/// The folder external data is looked for in: the file's own.
fn folder_of(path: &Path) -> Option<PathBuf> {
    path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            p.to_path_buf()
        }
    })
}

/// The input a document holds (an input may be shared with its caller:
/// see [`Document::from_decoded`]).
enum Held {
    Input(Arc<InputBytes>),
    Shared(Arc<[u8]>),
}

impl Held {
    fn bytes(&self) -> &[u8] {
        match self {
            Held::Input(i) => i.bytes(),
            Held::Shared(b) => b,
        }
    }
}

/// What format a document is.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatInfo {
    /// The format's id, as `--as` names it (`onnx-model`, `protobuf`).
    pub id: &'static str,
    /// What the format is, for people.
    pub title: &'static str,
    /// The root message's full type name (None when read without a schema).
    pub message_type: Option<String>,
    /// Other message types the same bytes are equally valid as.
    pub also: Vec<String>,
}

use crate::formats::TensorRole as Role;
use crate::formats::tf_checkpoint::{BundleData, BundleTensor};

/// A decoded file: its input, its format and the index of its tensors.
/// Cloning shares the input.
#[derive(Clone)]
pub struct Document {
    held: Arc<Held>,
    /// The input's folder, where external data is looked for.
    dir: Option<Folder>,
    /// The model that declares the file's type (ONNX test folders).
    context: Option<Arc<FileContext>>,
    /// How the input is decoded again to be written whole.
    reading: Reading,
    format: FormatInfo,
    tensors: Arc<[TensorRef]>,
    summary: Arc<Summary>,
    /// The formats detection tried before the one it found, and why.
    passed_over: Arc<[(&'static str, DecodeError)]>,
    /// Binary, or protobuf's text format (`held` is then its binary form).
    syntax: Syntax,
    /// A text-format input's text, and how it was read.
    text: Option<Arc<TextSource>>,
}

impl fmt::Debug for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("bytes", &self.bytes().len())
            .field("format", &self.format)
            .field("tensors", &self.tensors.len())
            .finish()
    }
}

impl Document {
    fn open(path: &Path) -> Result<Document, Error> {
        let input = crate::input::open_input(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        // As the command line: external data beside the file.
        let dir = folder_of(path).map(Folder::Disk);
        let context = testdata::file_context(path, None, &ModelCache::default());
        Document::from_held(Held::Input(Arc::new(input)), dir, context.map(Arc::new))
    }

    fn from_held(
        held: Held,
        dir: Option<Folder>,
        context: Option<Arc<FileContext>>,
    ) -> Result<Document, Error> {
        Document::from_held_as(held, dir, context, Reading::default())
    }

    fn from_held_as(
        held: Held,
        dir: Option<Folder>,
        context: Option<Arc<FileContext>>,
        reading: Reading,
    ) -> Result<Document, Error> {
        let (held, text) = text_of(held, reading.asked)?;
        let held = Arc::new(held);
        let place = |e: DecodeError| match &text {
            Some(t) => Error::Decode(t.reading.place(SchemaSet::builtin(), t.text.bytes(), e)),
            None => Error::Decode(e),
        };
        let (format, tensors, summary, passed_over) = {
            let decoded = match reading.asked {
                AsFormat::Format(f) => {
                    formats::decode_as(f, held.bytes(), &reading.options).map_err(place)?
                }
                AsFormat::Auto => detect(held.bytes(), context.as_deref()).map_err(place)?,
            };
            let root_role = match context.as_deref().map(|c| c.role) {
                Some(testdata::Role::Input) => Role::TestInput,
                Some(testdata::Role::Output) => Role::TestOutput,
                None => Role::TensorFile,
            };
            (
                format_info(&decoded),
                index::index(&decoded, root_role, dir.as_ref()),
                summary_of(&decoded),
                passed_over_of(&decoded),
            )
        };
        Ok(Document {
            held,
            dir,
            context,
            reading,
            format,
            tensors: tensors.into(),
            summary: Arc::new(summary),
            passed_over,
            syntax: if text.is_some() {
                Syntax::Text
            } else {
                Syntax::Binary
            },
            text,
        })
    }

    /// The formats `--as auto` detection tried before the one it found, in
    /// its order, each with why the input did not fit it (empty for a
    /// document read as one format): for a file read as `protobuf`, why it
    /// is not an ONNX tensor, model, ...
    pub fn passed_over(&self) -> &[(&'static str, DecodeError)] {
        &self.passed_over
    }

    /// A document over an input its caller has already decoded with the
    /// layers below, as the `decode` command and the explorer do, to report
    /// detection in their own words (or read the format `--as` names):
    /// its tensors are indexed from `decoded`, and nothing is decoded again.
    /// `decoded` must be `input`'s bytes read as `reading` says (a tensor
    /// whose range is not in them is not found); `dir` is where external
    /// data is looked for. [`Document::write_json`] and
    /// [`Document::write_text`] read the input again as `reading` says,
    /// without a test folder's model.
    #[doc(hidden)]
    pub fn from_decoded(
        input: Arc<InputBytes>,
        dir: Option<Folder>,
        reading: Reading,
        decoded: &Decoded<'_>,
    ) -> Document {
        let tensors = index::index(decoded, Role::TensorFile, dir.as_ref()).into();
        Document {
            held: Arc::new(Held::Input(input)),
            dir,
            context: None,
            reading,
            format: format_info(decoded),
            tensors,
            summary: Arc::new(summary_of(decoded)),
            passed_over: passed_over_of(decoded),
            syntax: decoded.syntax,
            text: None,
        }
    }

    /// The document of a text-format input made by
    /// [`Document::from_decoded`] over its binary form: the text kept,
    /// to place an error found later and to show it.
    #[doc(hidden)]
    pub fn with_text(self, text: Option<Arc<TextSource>>) -> Document {
        Document { text, ..self }
    }

    /// The input's bytes: for a text-format file, its binary form (what
    /// tensors' ranges are offsets into).
    pub fn bytes(&self) -> &[u8] {
        self.held.bytes()
    }

    /// The syntax the file is written in: `"binary"`, or `"text"` for
    /// protobuf's text format (read as the binary form of its message).
    pub fn syntax(&self) -> &'static str {
        self.syntax.name()
    }

    /// A text-format file's text (None for a binary file).
    pub fn text(&self) -> Option<&[u8]> {
        self.text.as_ref().map(|t| t.text.bytes())
    }

    /// Whether another program cut the mapped file short while it was
    /// read: with [`crate::recover_from_mapping_faults`] installed,
    /// a read past the new end finishes over zeros instead of ending the
    /// process, and what was made of the bytes since is not the file's
    /// (without it, such a read raises SIGBUS).
    pub fn cut_short(&self) -> bool {
        match self.held.as_ref() {
            Held::Input(input) => input.cut_short(),
            Held::Shared(_) => false,
        }
    }

    /// The format, as detection found it.
    pub fn format(&self) -> &FormatInfo {
        &self.format
    }

    /// The format's summary of the file, computed when it was opened: for
    /// an ONNX model its IR version, opsets, producer, node, initializer
    /// and Constant-node counts, parameters, inputs and outputs, functions;
    /// for a SavedModel its meta graphs, tag-sets, signatures, functions,
    /// nodes, variables and parameters; for a GraphDef its versions, nodes,
    /// Const nodes, parameters and functions. What the text output prints
    /// as its header and the JSON output writes as `"summary"`; empty for
    /// other formats.
    ///
    /// ```
    /// # fn main() -> Result<(), pbdecode::Error> {
    /// let doc = pbdecode::open("tests/fixtures/onnx-model/everything.onnx")?;
    /// let s = doc.summary();
    /// assert_eq!(s.get("parameters").and_then(|v| v.count()), Some(70));
    /// # Ok(())
    /// # }
    /// ```
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Every tensor, in file order.
    pub fn tensors(&self) -> &[TensorRef] {
        &self.tensors
    }

    /// The tensor the file itself is (a tensor file), if it is one.
    pub fn root_tensor(&self) -> Option<&TensorRef> {
        let whole = 0..u64::try_from(self.bytes().len()).ok()?;
        self.tensors
            .iter()
            .find(|t| t.path.is_empty() && t.range == whole)
    }

    /// The tensors `decode --npy-dir` writes: the weights ([`TensorRef::weight`]);
    /// in a file that has none, every tensor.
    pub fn export_set(&self) -> Vec<&TensorRef> {
        crate::npy::export_set(self.tensors.iter().collect(), |t| t.weight)
    }

    /// The first tensor of that name.
    pub fn tensor_by_name(&self, name: &str) -> Result<Tensor<'_>, Error> {
        let r = self
            .tensors
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| Error::NoSuchTensor(name.to_string()))?;
        self.tensor(r)
    }

    /// A tensor of this document ([`Document::tensors`], or a clone's),
    /// its message decoded again from its range; nothing else of the file
    /// is decoded and no value is read.
    pub fn tensor(&self, r: &TensorRef) -> Result<Tensor<'_>, Error> {
        let set = SchemaSet::builtin();
        let slice = usize::try_from(r.range.start)
            .ok()
            .zip(usize::try_from(r.range.end).ok())
            .and_then(|(s, e)| self.bytes().get(s..e))
            .ok_or_else(|| Error::NoSuchTensor(r.name.clone()))?;
        let message = decode_message(set, r.def, slice, r.range.start, DecodeContext::lenient())?;
        let source = match &r.bundle {
            Some(BundleTensor::V2(values)) => ViewSource::Bundle {
                whole: values.read_whole(set),
                values: values.clone(),
            },
            Some(BundleTensor::V1(meta)) => ViewSource::BundleV1(meta.clone()),
            Some(BundleTensor::V1Sliced(s)) => ViewSource::BundleV1Sliced(s.clone()),
            None if r.side.is_some() => ViewSource::Side(
                r.side
                    .clone()
                    .ok_or_else(|| Error::NoSuchTensor(r.name.clone()))?,
            ),
            None => ViewSource::Adapter(
                formats::tensor_adapter(&message.def(set).full_name)
                    .ok_or_else(|| Error::NoSuchTensor(r.name.clone()))?,
            ),
        };
        let view = source.view(set, &message);
        // Values read whole from a bundle's shards are read when asked;
        // until then the view says only what they are.
        let read_whole = source.read_whole();
        let storage = match &view.data {
            // A V1 tensor's slices are typed fields of the checkpoint itself.
            _ if matches!(source, ViewSource::BundleV1Sliced(_)) => Storage::Typed,
            _ if read_whole => Storage::External,
            TensorData::Raw(_) => Storage::Raw,
            TensorData::Typed { .. }
            | TensorData::Strings { .. }
            | TensorData::StringRanges { .. }
            | TensorData::PaddedBytes(_) => Storage::Typed,
            TensorData::External(_) => Storage::External,
            TensorData::Zeros => Storage::Implied,
            TensorData::Unavailable(_) => Storage::Unavailable,
            TensorData::None => Storage::Empty,
        };
        let facts = Facts {
            data_type: view.elem.map(DataType::from_elem),
            type_name: view.type_name.clone(),
            shape: view.dims.as_ref().and_then(|d| {
                d.iter()
                    .map(|&x| u64::try_from(x).ok())
                    .collect::<Option<Vec<u64>>>()
            }),
            dims: view.dims.clone(),
            len: view.elements,
            implied: if read_whole {
                0
            } else {
                view.implied_elements()
            },
            storage,
        };
        Ok(Tensor {
            name: r.name.clone(),
            role: r.role,
            document: self,
            source,
            message,
            facts,
            external: OnceLock::new(),
            read: OnceLock::new(),
        })
    }

    /// The document as the `decode --json` command writes it, byte for byte.
    pub fn write_json(&self, w: &mut impl Write, opts: &JsonOptions) -> Result<(), Error> {
        let (decoded, naming) = self.decoded();
        let decoded = decoded?;
        let ropts = self.render_options(opts.values, opts.stats, opts.allow_implied, opts.dense);
        render::json::write_decoded_with(w, &decoded, &ropts, None, &mut |w| {
            testdata::json_tail(w, naming.as_ref())
        })?;
        Ok(())
    }

    /// The document as the `decode` command prints it, byte for byte
    /// (colour off).
    pub fn write_text(&self, w: &mut impl Write, opts: &TextOptions) -> Result<(), Error> {
        let (decoded, naming) = self.decoded();
        let decoded = decoded?;
        let mut ropts =
            self.render_options(opts.values, opts.stats, opts.allow_implied, opts.dense);
        ropts.offsets = opts.offsets;
        ropts.histogram = opts.histogram;
        if let Some(n) = &naming {
            let mut lines = crate::escape::TextLines::new(w);
            n.write_text(&mut lines)?;
            lines.blank()?;
        }
        render::text::write_decoded(w, &decoded, &ropts)?;
        Ok(())
    }

    /// The graphs of a model (an ONNX model, a TensorFlow GraphDef or
    /// SavedModel; None for any other file), as the explorer's graph view
    /// and `decode --graph` draw them.
    #[doc(hidden)]
    pub fn graphs(&self) -> Result<Option<crate::graph::Model>, Error> {
        let (decoded, _) = self.decoded();
        Ok(crate::graph::model_of(&decoded?))
    }

    /// The explorer's `/api/graph` answer for `query` (see
    /// docs/json-contract.md, "The graph of a model"): tensors are named by
    /// their index in [`Document::tensors`].
    #[doc(hidden)]
    pub fn graph_json(
        &self,
        query: &crate::graph::query::Query<'_>,
    ) -> Result<Vec<u8>, crate::graph::query::QueryError> {
        use crate::graph::query::QueryError;
        let model = match self.graphs() {
            Ok(Some(m)) => m,
            Ok(None) => return Err(QueryError::NotAModel(self.format.id)),
            Err(Error::Decode(e)) => return Err(QueryError::Decode(e)),
            Err(_) => return Err(QueryError::NotAModel(self.format.id)),
        };
        // The tensors by the offset of their message (the first of any
        // two at one offset).
        let mut by_offset: HashMap<u64, usize> = HashMap::with_capacity(self.tensors.len());
        for (i, t) in self.tensors.iter().enumerate() {
            by_offset.entry(t.range.start).or_insert(i);
        }
        let names: Vec<&str> = self.tensors.iter().map(|t| t.name.as_str()).collect();
        crate::graph::query::answer(
            &model,
            self.format.id,
            query,
            &|offset| by_offset.get(&offset).copied(),
            &names,
        )
    }

    /// Compares this document's ONNX value (a tensor, sequence, map,
    /// optional or sparse tensor) with `actual`'s as `decode diff` does:
    /// element by element, numpy's `isclose` in the tensor's own float type,
    /// NaN facing NaN, structure (lengths, keys, types) exactly. Models are
    /// not compared here (`decode diff` compares their initializers).
    pub fn diff(&self, actual: &Document, opts: &crate::diff::DiffOptions) -> Result<Diff, Error> {
        let (x, _) = self.decoded();
        let (y, _) = actual.decoded();
        let (x, y) = (x?, y?);
        let (Body::Message { message: mx, .. }, Body::Message { message: my, .. }) =
            (&x.body, &y.body)
        else {
            return Err(Error::NotComparable(
                "only ONNX values are compared, not a file read without a schema".into(),
            ));
        };
        if [&self.format, &actual.format]
            .iter()
            .any(|f| f.id == formats::onnx::MODEL.id)
        {
            return Err(Error::NotComparable(
                "models are compared by decode diff, not here".into(),
            ));
        }
        let dirs = (self.dir.as_ref(), actual.dir.as_ref());
        let entries = crate::diff::compare_messages(mx, my, dirs, opts);
        Ok(Diff { entries })
    }

    /// The input decoded again, as when it was opened.
    fn decoded(&self) -> (Result<Decoded<'_>, Error>, Option<testdata::Naming>) {
        let opts = &self.reading.options;
        let place = |e: DecodeError| match &self.text {
            Some(t) => Error::Decode(t.reading.place(SchemaSet::builtin(), t.text.bytes(), e)),
            None => Error::Decode(e),
        };
        let syntax = self.syntax;
        fn with<'a>(d: Decoded<'a>, syntax: Syntax) -> Decoded<'a> {
            Decoded { syntax, ..d }
        }
        if let AsFormat::Format(f) = self.reading.asked {
            return (
                formats::decode_as(f, self.bytes(), opts)
                    .map(|d| with(d, syntax))
                    .map_err(place),
                None,
            );
        }
        let (decoded, naming) = testdata::decode_file(self.bytes(), self.context.as_deref(), opts);
        (
            decoded.map(|d| with(d, syntax)).map_err(|r| place(r.error)),
            naming,
        )
    }

    fn render_options(
        &self,
        values: Option<u64>,
        stats: bool,
        allow_implied: bool,
        dense: bool,
    ) -> RenderOptions {
        RenderOptions {
            values,
            dir: self.dir.clone(),
            stats,
            allow_implied,
            dense,
            ..RenderOptions::default()
        }
    }
}

/// How a document's input is read: the format asked for and the options
/// of the formats ([`open`] and [`read`]: detection, the defaults).
#[derive(Clone, Copy)]
pub struct Reading {
    /// Detection (`--as auto`), or the one format to read it as.
    pub asked: AsFormat,
    /// The options every format's decoder gets (`--max-depth`).
    pub options: FormatOptions,
}

impl Default for Reading {
    fn default() -> Self {
        Reading {
            asked: AsFormat::Auto,
            options: FormatOptions::default(),
        }
    }
}

impl fmt::Debug for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reading")
            .field("asked", &self.asked.id())
            .field("options", &self.options)
            .finish()
    }
}

/// What [`Document::diff`] found: one entry per tensor compared and per
/// difference of structure, in order.
#[non_exhaustive]
#[derive(Debug, Clone)]
pub struct Diff {
    /// The findings.
    pub entries: Vec<crate::diff::Entry>,
}

impl Diff {
    /// Whether every value is within tolerance and the structures agree.
    pub fn passes(&self) -> bool {
        self.entries.iter().all(crate::diff::Entry::passes)
    }

    /// How many entries do not pass.
    pub fn differing(&self) -> usize {
        self.entries.iter().filter(|e| !e.passes()).count()
    }

    /// The report `decode diff` prints after its `expected:`/`actual:`
    /// lines, byte for byte.
    pub fn write_text(&self, w: &mut impl Write) -> io::Result<()> {
        crate::diff::write_entries_text(&mut crate::escape::TextLines::new(w), &self.entries)
    }

    /// `{"entries": [...], "passed": ...}`, each entry as `decode diff
    /// --json` writes it.
    pub fn write_json(&self, w: &mut impl Write) -> io::Result<()> {
        let mut json = crate::json_writer::JsonWriter::new(w);
        json.begin_object()?;
        json.key("entries")?;
        json.begin_array()?;
        for e in &self.entries {
            crate::diff::write_entry_json(&mut json, e)?;
        }
        json.end_array()?;
        json.member("passed", self.passes())?;
        json.end_object()?;
        json.finish()
    }
}

/// Choices of [`Document::write_json`] (the `decode --json` options).
#[non_exhaustive]
#[derive(Debug, Clone, Default)]
pub struct JsonOptions {
    /// How many values of each tensor (`--values`); None: all.
    pub values: Option<u64>,
    /// Statistics for every tensor (`--stats`).
    pub stats: bool,
    /// Every value implied by TensorFlow's padding rule (`--allow-implied`).
    pub allow_implied: bool,
    /// Sparse tensors also as dense ones (`--dense`).
    pub dense: bool,
}

/// Choices of [`Document::write_text`] (the `decode` options).
#[non_exhaustive]
#[derive(Debug, Clone, Default)]
pub struct TextOptions {
    /// How many values of each tensor (`--values`); None: a preview.
    pub values: Option<u64>,
    /// Each field's byte range, read without a schema (`--offsets`).
    pub offsets: bool,
    /// A text histogram of each numeric tensor (`--histogram`).
    pub histogram: bool,
    /// Statistics for every tensor (`--stats`).
    pub stats: bool,
    /// Every value implied by TensorFlow's padding rule (`--allow-implied`).
    pub allow_implied: bool,
    /// Sparse tensors also as dense ones (`--dense`).
    pub dense: bool,
}

/// Detection as the command line does it (with the model of a test folder
/// when there is one).
fn detect<'a>(bytes: &'a [u8], context: Option<&FileContext>) -> Result<Decoded<'a>, DecodeError> {
    testdata::decode_file(bytes, context, &FormatOptions::default())
        .0
        .map_err(|r| r.error)
}

/// A text-format input (when the input looks like one, and the format
/// asked for has messages) as the binary form of its message, with its
/// text; any other input as it is.
fn text_of(held: Held, asked: AsFormat) -> Result<(Held, Option<Arc<TextSource>>), Error> {
    if !crate::syntax::is_text_input(held.bytes(), asked) {
        return Ok((held, None));
    }
    let input = match held {
        Held::Input(i) => i,
        Held::Shared(b) => Arc::new(InputBytes::Owned(b.to_vec())),
    };
    let source = WireInput::new(input, asked).map_err(|r| Error::Decode(r.error))?;
    Ok((Held::Input(source.binary), source.text))
}

/// The format's summary of a decoded file (empty for a schemaless or
/// user-schema reading).
fn summary_of(decoded: &Decoded<'_>) -> Summary {
    match &decoded.body {
        Body::Message { message, .. } => (decoded.format.summary)(SchemaSet::builtin(), message),
        // One pass over the records, streamed.
        Body::Records(file) => formats::tf_record::overview(file).summary(file),
        Body::Schemaless(_) | Body::UserMessage { .. } | Body::Bundle(_) => Summary::default(),
    }
}

fn passed_over_of(decoded: &Decoded<'_>) -> Arc<[(&'static str, DecodeError)]> {
    decoded
        .passed_over
        .iter()
        .map(|(f, e)| (f.id, e.clone()))
        .collect()
}

fn format_info(decoded: &Decoded<'_>) -> FormatInfo {
    let (message_type, also) = match &decoded.body {
        Body::Message {
            type_name, also, ..
        } => (Some(type_name.clone()), also.clone()),
        Body::UserMessage { type_name, .. } => (Some(type_name.clone()), Vec::new()),
        Body::Schemaless(_) | Body::Records(_) | Body::Bundle(_) => (None, Vec::new()),
    };
    FormatInfo {
        id: decoded.format.id,
        title: decoded.format.title,
        message_type,
        also,
    }
}

/// How a tensor's values are stored.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// Little-endian packed bytes in the input (ONNX `raw_data`,
    /// TensorFlow `tensor_content`).
    Raw,
    /// A typed field per value (`float_data`, `int_val`, strings).
    Typed,
    /// A side file (ONNX external data).
    External,
    /// None stored, all implied (TensorFlow: a tensor without values is
    /// zeros).
    Implied,
    /// No values.
    Empty,
    /// Values that cannot be read (an unknown data type, an invalid shape).
    Unavailable,
}

/// Declares [`DataType`] and its names from one table.
macro_rules! data_types {
    ($($(#[$doc:meta])* $name:ident = $elem:ident, $numpy:literal, $tf:expr;)*) => {
        /// A tensor's element type: ONNX's and TensorFlow's.
        #[non_exhaustive]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum DataType {
            $($(#[$doc])* $name,)*
        }

        impl DataType {
            fn from_elem(elem: Elem) -> DataType {
                match elem {
                    $(Elem::$elem => DataType::$name,)*
                }
            }

            fn elem(self) -> Elem {
                match self {
                    $(DataType::$name => Elem::$elem,)*
                }
            }

            /// The NumPy (or ml_dtypes) dtype name: `float32`, `bfloat16`,
            /// `float8_e4m3fn`, `int4`; `object` for strings.
            pub fn numpy_name(self) -> &'static str {
                match self {
                    $(DataType::$name => $numpy,)*
                }
            }

            /// TensorFlow's name (`DT_FLOAT`), if TensorFlow has the type.
            pub fn tf_name(self) -> Option<&'static str> {
                match self {
                    $(DataType::$name => $tf,)*
                }
            }
        }
    };
}

data_types! {
    /// IEEE float32.
    Float = F32, "float32", Some("DT_FLOAT");
    /// IEEE float64.
    Double = F64, "float64", Some("DT_DOUBLE");
    /// IEEE float16.
    Float16 = F16, "float16", Some("DT_HALF");
    /// bfloat16.
    BFloat16 = BF16, "bfloat16", Some("DT_BFLOAT16");
    /// float8 e4m3fn.
    Float8E4M3FN = F8E4M3FN, "float8_e4m3fn", Some("DT_FLOAT8_E4M3FN");
    /// float8 e4m3fnuz.
    Float8E4M3FNUZ = F8E4M3FNUZ, "float8_e4m3fnuz", Some("DT_FLOAT8_E4M3FNUZ");
    /// float8 e5m2.
    Float8E5M2 = F8E5M2, "float8_e5m2", Some("DT_FLOAT8_E5M2");
    /// float8 e5m2fnuz.
    Float8E5M2FNUZ = F8E5M2FNUZ, "float8_e5m2fnuz", Some("DT_FLOAT8_E5M2FNUZ");
    /// float8 e4m3 with exponent bias 11 (TensorFlow).
    Float8E4M3B11FNUZ = F8E4M3B11FNUZ, "float8_e4m3b11fnuz", Some("DT_FLOAT8_E4M3B11FNUZ");
    /// float8 e8m0 (a scale: exponent only).
    Float8E8M0 = F8E8M0, "float8_e8m0fnu", None;
    /// float4 e2m1.
    Float4E2M1 = F4E2M1, "float4_e2m1fn", Some("DT_FLOAT4_E2M1FN");
    /// float6 e2m3.
    Float6E2M3 = F6E2M3, "float6_e2m3fn", None;
    /// float6 e3m2.
    Float6E3M2 = F6E3M2, "float6_e3m2fn", None;
    /// int8.
    Int8 = I8, "int8", Some("DT_INT8");
    /// int16.
    Int16 = I16, "int16", Some("DT_INT16");
    /// int32.
    Int32 = I32, "int32", Some("DT_INT32");
    /// int64.
    Int64 = I64, "int64", Some("DT_INT64");
    /// uint8.
    UInt8 = U8, "uint8", Some("DT_UINT8");
    /// uint16.
    UInt16 = U16, "uint16", Some("DT_UINT16");
    /// uint32.
    UInt32 = U32, "uint32", Some("DT_UINT32");
    /// uint64.
    UInt64 = U64, "uint64", Some("DT_UINT64");
    /// int4.
    Int4 = I4, "int4", Some("DT_INT4");
    /// uint4.
    UInt4 = U4, "uint4", Some("DT_UINT4");
    /// int2.
    Int2 = I2, "int2", Some("DT_INT2");
    /// uint2.
    UInt2 = U2, "uint2", Some("DT_UINT2");
    /// bool.
    Bool = Bool, "bool", Some("DT_BOOL");
    /// Byte strings.
    String = Str, "object", Some("DT_STRING");
    /// Complex of two float32.
    Complex64 = C64, "complex64", Some("DT_COMPLEX64");
    /// Complex of two float64.
    Complex128 = C128, "complex128", Some("DT_COMPLEX128");
}

impl DataType {
    /// ONNX's name (`FLOAT`), if ONNX has the type.
    pub fn onnx_name(self) -> Option<&'static str> {
        let elem = self.elem();
        formats::onnx_tensor::ONNX_TYPES
            .iter()
            .find(|t| t.elem == elem)
            .map(|t| t.name)
    }

    /// Bits one element takes in packed storage (None for strings).
    pub fn size_bits(self) -> Option<u32> {
        match self.elem().bits() {
            0 => None,
            b => u32::try_from(b).ok(),
        }
    }

    /// Whether [`Values`] holds this type's elements as their bit codes
    /// ([`Values::Codes`]): the types narrower than any Rust type.
    fn is_coded(self) -> bool {
        use Elem::*;
        matches!(
            self.elem(),
            F8E4M3FN
                | F8E4M3FNUZ
                | F8E5M2
                | F8E5M2FNUZ
                | F8E4M3B11FNUZ
                | F8E8M0
                | F4E2M1
                | F6E2M3
                | F6E3M2
                | I4
                | U4
                | I2
                | U2
        )
    }
}

/// A tensor's values, each element at its own width; strings borrowed
/// from the input (a string TensorFlow's padding rule repeats is not
/// copied for each element), owned when read from a side file.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Values<'t> {
    /// bool.
    Bool(Vec<bool>),
    /// int8.
    I8(Vec<i8>),
    /// int16.
    I16(Vec<i16>),
    /// int32.
    I32(Vec<i32>),
    /// int64.
    I64(Vec<i64>),
    /// uint8.
    U8(Vec<u8>),
    /// uint16.
    U16(Vec<u16>),
    /// uint32.
    U32(Vec<u32>),
    /// uint64.
    U64(Vec<u64>),
    /// float16.
    F16(Vec<f16>),
    /// bfloat16.
    BF16(Vec<bf16>),
    /// float32.
    F32(Vec<f32>),
    /// float64.
    F64(Vec<f64>),
    /// complex64 as (real, imaginary).
    C64(Vec<[f32; 2]>),
    /// complex128 as (real, imaginary).
    C128(Vec<[f64; 2]>),
    /// Byte strings: borrowed from the document, or owned when they were
    /// read into memory (a tensor bundle's, from its shard).
    Str(Vec<Cow<'t, [u8]>>),
    /// float8, float6, float4, int4, int2, uint4 and uint2: each element's
    /// bit code in one byte (ml_dtypes' layout); [`Values::widen`] decodes
    /// them.
    Codes(DataType, Vec<u8>),
}

impl<'t> Values<'t> {
    /// How many elements.
    pub fn len(&self) -> usize {
        match self {
            Values::Bool(v) => v.len(),
            Values::I8(v) => v.len(),
            Values::I16(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::U8(v) | Values::Codes(_, v) => v.len(),
            Values::U16(v) => v.len(),
            Values::U32(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::F16(v) => v.len(),
            Values::BF16(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::C64(v) => v.len(),
            Values::C128(v) => v.len(),
            Values::Str(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Codes decoded to the nearest wider type (floats to `F32`, signed
    /// integers to `I8`, unsigned ones to `U8`); other values unchanged.
    pub fn widen(self) -> Values<'t> {
        let Values::Codes(dt, codes) = self else {
            return self;
        };
        let elem = dt.elem();
        let decoded = codes
            .iter()
            .map(|&c| crate::tensor::decode_bits(elem, u64::from(c)));
        if elem.is_float() {
            Values::F32(
                decoded
                    .map(|e| match e {
                        Element::F32(v) => v,
                        _ => f32::NAN,
                    })
                    .collect(),
            )
        } else if matches!(elem, Elem::I4 | Elem::I2) {
            Values::I8(
                decoded
                    .map(|e| match e {
                        Element::I64(v) => v as i8,
                        _ => 0,
                    })
                    .collect(),
            )
        } else {
            Values::U8(codes)
        }
    }
}

/// Facts of a tensor read from its message, no value read.
struct Facts {
    data_type: Option<DataType>,
    type_name: String,
    shape: Option<Vec<u64>>,
    dims: Option<Vec<i64>>,
    len: u64,
    implied: u64,
    storage: Storage,
}

/// How a tensor's message is seen as a tensor.
enum ViewSource {
    /// Its format's tensor adapter.
    Adapter(&'static TensorAdapter),
    /// A V2 tensor bundle's variable; `whole`: its values are read into
    /// memory by the bundle reader (strings, a partitioned variable's
    /// slices, a big-endian bundle's values), not streamed from a range.
    Bundle {
        values: formats::tf_checkpoint::BundleValues,
        whole: bool,
    },
    /// A V1 checkpoint's tensor, its values in its entry.
    BundleV1(formats::tf_checkpoint::V1Meta),
    /// A V1 checkpoint's tensor saved in slices, its values assembled
    /// from their entries into memory when read.
    BundleV1Sliced(formats::tf_checkpoint::V1Slices),
    /// Values a format found in a side file's range.
    Side(formats::SideValues),
}

impl ViewSource {
    fn view<'m, 'a>(&self, set: &SchemaSet, message: &'m Message<'a>) -> TensorView<'m, 'a> {
        match self {
            ViewSource::Adapter(a) => (a.view)(set, message),
            ViewSource::Bundle { values, .. } => values.view(set),
            ViewSource::BundleV1(meta) => formats::tf_checkpoint::v1_slice_view(set, meta, message),
            ViewSource::BundleV1Sliced(s) => s.view(set),
            ViewSource::Side(values) => values.view(),
        }
    }

    /// Whether the values are read into the tensor's memory when asked
    /// (not borrowed from the document or a mapped side file).
    fn read_whole(&self) -> bool {
        matches!(
            self,
            ViewSource::Bundle { whole: true, .. } | ViewSource::BundleV1Sliced(_)
        )
    }
}

/// One tensor of a [`Document`], decoded from its range: its facts at
/// once, its values when asked.
pub struct Tensor<'d> {
    name: String,
    role: Role,
    document: &'d Document,
    source: ViewSource,
    message: Message<'d>,
    facts: Facts,
    /// The side file, mapped on first use by [`Tensor::raw_le`].
    external: OnceLock<Option<ExternalBytes>>,
    /// A bundle variable's values read whole on first use (see
    /// [`ViewSource::Bundle`]): held by the tensor, freed with it.
    read: OnceLock<Result<BundleData, formats::tf_checkpoint::Unread>>,
}

impl fmt::Debug for Tensor<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tensor")
            .field("name", &self.name)
            .field("type", &self.facts.type_name)
            .field("dims", &self.facts.dims)
            .field("storage", &self.facts.storage)
            .finish()
    }
}

/// Choices of [`Tensor::values_with`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default)]
pub struct ValueOptions {
    /// Read every value implied by TensorFlow's padding rule, past
    /// [`crate::MAX_IMPLIED_VALUES`].
    pub allow_implied: bool,
}

impl<'d> Tensor<'d> {
    /// Its name (`tensorN` for a tensor that has none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it is to the file.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Its element type (None for a data type without a decoding).
    pub fn data_type(&self) -> Option<DataType> {
        self.facts.data_type
    }

    /// Its data type as its format names it (`FLOAT`, `DT_HALF`, `31`).
    pub fn type_name(&self) -> &str {
        &self.facts.type_name
    }

    /// The dimensions as stored (TensorFlow: -1 for an unknown one; None
    /// for an unknown rank).
    pub fn dims(&self) -> Option<&[i64]> {
        self.facts.dims.as_deref()
    }

    /// The shape when every dimension is known.
    pub fn shape(&self) -> Option<&[u64]> {
        self.facts.shape.as_deref()
    }

    /// How many elements its values hold.
    pub fn len(&self) -> u64 {
        self.facts.len
    }

    /// Whether it holds no elements.
    pub fn is_empty(&self) -> bool {
        self.facts.len == 0
    }

    /// Of [`Tensor::len`], how many are implied by TensorFlow's padding
    /// rule rather than stored.
    pub fn implied_len(&self) -> u64 {
        self.facts.implied
    }

    /// How its values are stored.
    pub fn storage(&self) -> Storage {
        self.facts.storage
    }

    /// The tensor as the layers below see it, for a caller that renders
    /// or draws it with them (made again on each call: it only borrows the
    /// message).
    #[doc(hidden)]
    pub fn view(&self) -> TensorView<'_, '_> {
        let set = SchemaSet::builtin();
        let facts = match &self.source {
            ViewSource::Bundle {
                values,
                whole: true,
            } => values.view(set),
            ViewSource::BundleV1Sliced(s) => s.view(set),
            _ => return self.message_view(),
        };
        let read = self.read.get_or_init(|| match &self.source {
            ViewSource::Bundle { values, .. } => values
                .load(set, self.dir())
                .map(|(data, _)| data)
                .map_err(|(why, _)| why),
            ViewSource::BundleV1Sliced(s) => {
                formats::tf_checkpoint::v1_assemble(set, s, self.document.bytes())
            }
            _ => Err("not read whole".into()),
        });
        match read {
            Ok(data) => data.view(&facts),
            Err(why) => TensorView {
                data: TensorData::Unavailable(why.to_string()),
                ..facts
            },
        }
    }

    /// The buffer the tensor's values needed that could not be allocated
    /// (a partitioned variable assembled), if that is why they did not
    /// read.
    fn memory_error(&self) -> Option<Error> {
        match self.read.get() {
            Some(Err(formats::tf_checkpoint::Unread::Memory(e))) => Some(Error::Memory(*e)),
            _ => None,
        }
    }

    /// The view of the tensor's message, borrowing from the document.
    fn message_view(&self) -> TensorView<'_, 'd> {
        self.source.view(SchemaSet::builtin(), &self.message)
    }

    /// Its message as decoded, for a caller that renders it with
    /// `crate::render` (its type: `message().def(SchemaSet::builtin())`).
    #[doc(hidden)]
    pub fn message(&self) -> &Message<'d> {
        &self.message
    }

    fn dir(&self) -> Option<&Folder> {
        self.document.dir.as_ref()
    }

    /// A V1 checkpoint's tensor saved in slices: where its slices are and
    /// the file's bytes, for readers that read them without assembling
    /// the tensor (`formats::tf_checkpoint::V1SlicedValues`).
    #[doc(hidden)]
    pub fn v1_slices(&self) -> Option<(&formats::tf_checkpoint::V1Slices, &'d [u8])> {
        match &self.source {
            ViewSource::BundleV1Sliced(s) => Some((s, self.document.bytes())),
            _ => None,
        }
    }

    /// How it is drawn: a model's weight (an initializer, a Constant's
    /// value) as a heat map or its filters in its format's kernel order,
    /// anything else by its shape as an image.
    #[doc(hidden)]
    pub fn drawing(&self) -> crate::picture::Drawing {
        let order = match &self.source {
            ViewSource::Adapter(a) => a.kernel_order,
            // TensorFlow's variables keep its kernels' order.
            ViewSource::Bundle { .. } | ViewSource::BundleV1(_) | ViewSource::BundleV1Sliced(_) => {
                formats::KernelOrder::Hwio
            }
            ViewSource::Side(values) => values.kernel_order,
        };
        match self.role {
            Role::Initializer | Role::Constant | Role::Variable => {
                crate::picture::Drawing::Weights(order)
            }
            _ => crate::picture::Drawing::Image,
        }
    }

    /// The tensor drawn, as `decode --picture` draws it (a [`crate::Picture`]:
    /// its `write_png` writes it, with the `picture` feature).
    pub fn picture(&self) -> Result<crate::Picture, Error> {
        Ok(crate::picture::picture_as(
            &self.view(),
            self.dir(),
            self.drawing(),
        )?)
    }

    /// The stored bytes when they already are the little-endian row-major
    /// array of the element type (raw storage of a whole-byte type, not
    /// bool): borrowed from the document, or from the side file mapped
    /// under the external-data rules (inside the file's folder, length and
    /// SHA-1 checked). None for other storage, or side files that fail.
    pub fn raw_le(&self) -> Option<&[u8]> {
        let dt = self.facts.data_type?;
        let bits = dt.elem().bits();
        if bits == 0 || !bits.is_multiple_of(8) || dt == DataType::Bool {
            return None;
        }
        let len = usize::try_from(crate::tensor::raw_size(dt.elem(), self.facts.len)?).ok()?;
        match self.view().data {
            TensorData::Raw(bytes) => bytes.get(..len),
            TensorData::External(r) => self
                .external
                .get_or_init(|| r.load(self.dir()).ok())
                .as_ref()?
                .bytes()
                .get(..len),
            _ => None,
        }
    }

    /// [`Tensor::raw_le`] as an owned handle that keeps what it borrows
    /// alive (the document's input, or the side file's map), for callers
    /// that hand the bytes out beyond the tensor's lifetime (a binding's
    /// array views). The side file is mapped again for the handle.
    pub fn stored_array(&self) -> Option<StoredArray> {
        if self.source.read_whole() {
            // Read into the tensor's memory, not lent beyond it.
            return None;
        }
        let bytes = self.raw_le()?;
        let inner = match self.view().data {
            TensorData::Raw(_) => {
                // Where the borrowed slice lies in the document's input.
                let base = self.document.bytes().as_ptr() as usize;
                let start = (bytes.as_ptr() as usize).checked_sub(base)?;
                let range = start..start.checked_add(bytes.len())?;
                self.document.bytes().get(range.clone())?;
                StoredInner::Document(self.document.clone(), range)
            }
            TensorData::External(r) => StoredInner::External(r.load(self.dir()).ok()?, bytes.len()),
            _ => return None,
        };
        Some(StoredArray(inner))
    }

    /// Every value, each at the element's own width. Refuses more than
    /// [`crate::MAX_IMPLIED_VALUES`] values implied by TensorFlow's
    /// padding rule ([`Tensor::values_with`] allows them).
    pub fn values(&self) -> Result<Values<'d>, Error> {
        self.values_with(ValueOptions::default())
    }

    /// [`Tensor::values`] with options.
    pub fn values_with(&self, opts: ValueOptions) -> Result<Values<'d>, Error> {
        let view = self.view();
        if let Some(e) = self.memory_error() {
            return Err(e);
        }
        let limit = crate::tensor::MAX_IMPLIED_VALUES;
        if !opts.allow_implied && view.implied_elements() > limit {
            return Err(Error::Implied {
                tensor: self.name.clone(),
                implied: view.implied_elements(),
                limit,
            });
        }
        if let TensorData::Strings { fields, pad } = &self.message_view().data {
            // Taken from the fields, so that they borrow from the document
            // rather than from this tensor's message.
            // TensorFlow's padding: the last string repeated ("" when
            // there is none), as the element reader pads them.
            let stored = crate::tensor::strings(fields);
            let last: &[u8] = stored.clone().next_back().unwrap_or(b"");
            let fill = std::iter::repeat_n(last, if *pad { usize::MAX } else { 0 });
            let mut out = crate::alloc::buffer(view.elements)?;
            let n = usize::try_from(view.elements).unwrap_or(usize::MAX);
            out.extend(stored.chain(fill).take(n).map(Cow::Borrowed));
            return Ok(Values::Str(out));
        }
        if let TensorData::StringRanges { bytes, ranges } = &view.data {
            // Read into this tensor's memory (a bundle's shard): copied.
            let owned = |r: &Range<usize>| Cow::Owned(bytes.get(r.clone()).unwrap_or(&[]).to_vec());
            let mut out = crate::alloc::buffer(ranges.len() as u64)?;
            out.extend(ranges.iter().map(owned));
            return Ok(Values::Str(out));
        }
        let loaded = crate::tensor::load_values(&view, self.dir());
        let (elem, elements) = match loaded {
            LoadedValues::Unavailable(reason) => {
                return Err(Error::Unavailable {
                    tensor: self.name.clone(),
                    reason,
                });
            }
            LoadedValues::Nothing => return Ok(empty(view.elem)),
            LoadedValues::Ready(it, _) => (view.elem, Stream::Ready(it, view.elements)),
            LoadedValues::External(bytes, elem, n) => (Some(elem), Stream::External(bytes, n)),
        };
        let Some(elem) = elem else {
            return Ok(empty(None));
        };
        Ok(collect(elem, elements)?)
    }

    /// Statistics of every value (count, min, max, mean, std, NaN and
    /// infinities), by the same kernels as the command line's.
    pub fn stats(&self) -> Result<crate::stats::Stats, Error> {
        // A V1 tensor saved in slices: each slice's merged, the tensor
        // never assembled.
        if let Some((sliced, file)) = self.v1_slices() {
            let unavailable = |reason: String| Error::Unavailable {
                tensor: self.name.clone(),
                reason,
            };
            let values =
                formats::tf_checkpoint::V1SlicedValues::open(SchemaSet::builtin(), sliced, file)
                    .map_err(|why| match why {
                        formats::tf_checkpoint::Unread::Memory(e) => Error::Memory(e),
                        formats::tf_checkpoint::Unread::Why(r) => unavailable(r),
                    })?;
            return crate::stats::compute_filled(values.elem, values.len(), {
                let mut reader = values.reader();
                move |range, buf| reader.pack(range, buf).is_ok()
            })
            .ok_or_else(|| unavailable("the slices' values do not read".into()));
        }
        let view = self.view();
        if let Some(e) = self.memory_error() {
            return Err(e);
        }
        crate::stats::compute(&view, self.dir()).ok_or_else(|| Error::Unavailable {
            tensor: self.name.clone(),
            reason: match crate::tensor::load_values(&view, self.dir()) {
                LoadedValues::Unavailable(why) => why,
                _ => "the values are not numbers".to_string(),
            },
        })
    }

    /// Writes the tensor as a NumPy .npy file (through the one output
    /// writer: a temporary file renamed into place; an existing file is
    /// replaced, a directory refused). Stored bytes that already are the
    /// body are copied as they are.
    pub fn write_npy(&self, path: impl AsRef<Path>) -> Result<NpyInfo, Error> {
        let path = path.as_ref();
        // `-` is standard output to the output layer; the library never
        // prints, so it is a file here.
        let local;
        let path = if path == Path::new("-") {
            local = Path::new(".").join(path);
            local.as_path()
        } else {
            path
        };
        let target = Output::plan(path, Policy::named())?;
        self.write_npy_to(&target, &NpyOptions::default())
    }

    /// [`Tensor::write_npy`] into an output already planned (checked before
    /// any work, as `decode --npy` does; `-` is standard output there),
    /// with the export's options.
    #[doc(hidden)]
    pub fn write_npy_to(&self, target: &Output, opts: &NpyOptions<'_>) -> Result<NpyInfo, Error> {
        let view = self.view();
        match npy::raw_npy(&view, self.dir(), opts)? {
            Some(raw) => {
                let source = match self.document.held.as_ref() {
                    Held::Input(input) => raw.file_range(input),
                    Held::Shared(_) => None,
                };
                target.write_copy(
                    "writing .npy",
                    &raw.header,
                    raw.body(),
                    source,
                    opts.progress,
                )?;
                Ok(raw.info)
            }
            None => Ok(target.write(|w| npy::write_npy_converted(&view, self.dir(), w, opts))??),
        }
    }
}

/// A tensor's stored bytes that already are its array
/// ([`Tensor::stored_array`]), owning what they are read from.
pub struct StoredArray(StoredInner);

enum StoredInner {
    /// A range of the document's input.
    Document(Document, Range<usize>),
    /// The first bytes of a side file's range.
    External(ExternalBytes, usize),
}

impl StoredArray {
    /// The bytes: little-endian, row-major, of the element type.
    pub fn bytes(&self) -> &[u8] {
        match &self.0 {
            StoredInner::Document(doc, range) => doc.bytes().get(range.clone()).unwrap_or(&[]),
            StoredInner::External(file, len) => file.bytes().get(..*len).unwrap_or(&[]),
        }
    }
}

impl fmt::Debug for StoredArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredArray")
            .field("len", &self.bytes().len())
            .finish()
    }
}

/// Loaded values to read, each kind its own way.
enum Stream<'v> {
    /// The elements and how many there are.
    Ready(Elements<'v>, u64),
    External(ExternalBytes, u64),
}

/// The values of no elements, of the right kind.
fn empty(elem: Option<Elem>) -> Values<'static> {
    let dt = elem.map_or(DataType::Float, DataType::from_elem);
    empty_of(dt)
}

/// Collects loaded values into the buffer of their element type: float16,
/// bfloat16 and the coded types by their bit patterns (no rounding through
/// float32), the others by the decoded elements. Strings are not read
/// here (see [`Tensor::values_with`]).
fn collect(elem: Elem, stream: Stream<'_>) -> Result<Values<'static>, crate::error::AllocError> {
    let dt = DataType::from_elem(elem);
    let by_bits = dt.is_coded() || matches!(elem, Elem::F16 | Elem::BF16);
    let mut out = empty_of(dt);
    // The one buffer, of the element count, checked before any value is
    // read (numpy's "array is too big" past what a buffer holds).
    let (Stream::Ready(_, n) | Stream::External(_, n)) = &stream;
    reserve_values(&mut out, *n)?;
    let mut push = |e: Element<'static>| push_element(&mut out, e);
    match stream {
        Stream::Ready(it, _) => {
            let it = if by_bits { it.codes() } else { it };
            it.for_each(|e| push(unborrowed(e)));
        }
        Stream::External(bytes, n) => {
            let it = Elements::new(elem, Source::Raw(bytes.bytes()), n);
            let it = if by_bits { it.codes() } else { it };
            it.for_each(|e| push(unborrowed(e)));
        }
    }
    Ok(out)
}

/// Reserves room for exactly `n` values in the buffer of `out`'s type.
fn reserve_values(out: &mut Values<'_>, n: u64) -> Result<(), crate::error::AllocError> {
    use crate::alloc::reserve;
    match out {
        Values::Bool(v) => reserve(v, n),
        Values::I8(v) => reserve(v, n),
        Values::I16(v) => reserve(v, n),
        Values::I32(v) => reserve(v, n),
        Values::I64(v) => reserve(v, n),
        Values::U8(v) | Values::Codes(_, v) => reserve(v, n),
        Values::U16(v) => reserve(v, n),
        Values::U32(v) => reserve(v, n),
        Values::U64(v) => reserve(v, n),
        Values::F16(v) => reserve(v, n),
        Values::BF16(v) => reserve(v, n),
        Values::F32(v) => reserve(v, n),
        Values::F64(v) => reserve(v, n),
        Values::C64(v) => reserve(v, n),
        Values::C128(v) => reserve(v, n),
        Values::Str(v) => reserve(v, n),
    }
}

/// An element free of the lifetime of what it was read from (the
/// strings, the only elements that borrow, are read apart).
fn unborrowed(e: Element<'_>) -> Element<'static> {
    match e {
        Element::F32(v) => Element::F32(v),
        Element::F64(v) => Element::F64(v),
        Element::I64(v) => Element::I64(v),
        Element::U64(v) => Element::U64(v),
        Element::Bool(v) => Element::Bool(v),
        Element::C64(re, im) => Element::C64(re, im),
        Element::C128(re, im) => Element::C128(re, im),
        Element::Str(_) => Element::Str(&[]),
    }
}

fn empty_of<'v>(dt: DataType) -> Values<'v> {
    use Elem::*;
    match dt.elem() {
        Bool => Values::Bool(Vec::new()),
        I8 => Values::I8(Vec::new()),
        I16 => Values::I16(Vec::new()),
        I32 => Values::I32(Vec::new()),
        I64 => Values::I64(Vec::new()),
        U8 => Values::U8(Vec::new()),
        U16 => Values::U16(Vec::new()),
        U32 => Values::U32(Vec::new()),
        U64 => Values::U64(Vec::new()),
        F16 => Values::F16(Vec::new()),
        BF16 => Values::BF16(Vec::new()),
        F32 => Values::F32(Vec::new()),
        F64 => Values::F64(Vec::new()),
        C64 => Values::C64(Vec::new()),
        C128 => Values::C128(Vec::new()),
        Str => Values::Str(Vec::new()),
        _ => Values::Codes(dt, Vec::new()),
    }
}

/// Appends one element; the element reader gives each type one kind of
/// element, so the casts keep every value (integers were widened from
/// their own width).
fn push_element<'v>(out: &mut Values<'v>, e: Element<'v>) {
    let int = |e: Element<'_>| match e {
        Element::I64(v) => v,
        Element::U64(v) => v as i64,
        Element::Bool(b) => i64::from(b),
        _ => 0,
    };
    let uint = |e: Element<'_>| match e {
        Element::U64(v) => v,
        Element::I64(v) => v as u64,
        _ => 0,
    };
    match out {
        Values::Bool(v) => v.push(matches!(e, Element::Bool(true))),
        Values::I8(v) => v.push(int(e) as i8),
        Values::I16(v) => v.push(int(e) as i16),
        Values::I32(v) => v.push(int(e) as i32),
        Values::I64(v) => v.push(int(e)),
        Values::U8(v) => v.push(uint(e) as u8),
        Values::U16(v) => v.push(uint(e) as u16),
        Values::U32(v) => v.push(uint(e) as u32),
        Values::U64(v) => v.push(uint(e)),
        Values::F16(v) => v.push(f16::from_bits(uint(e) as u16)),
        Values::BF16(v) => v.push(bf16::from_bits(uint(e) as u16)),
        Values::F32(v) => v.push(match e {
            Element::F32(x) => x,
            _ => f32::NAN,
        }),
        Values::F64(v) => v.push(match e {
            Element::F64(x) => x,
            _ => f64::NAN,
        }),
        Values::C64(v) => v.push(match e {
            Element::C64(re, im) => [re, im],
            _ => [f32::NAN; 2],
        }),
        Values::C128(v) => v.push(match e {
            Element::C128(re, im) => [re, im],
            _ => [f64::NAN; 2],
        }),
        Values::Str(v) => v.push(Cow::Borrowed(match e {
            Element::Str(s) => s,
            _ => &[],
        })),
        Values::Codes(dt, v) => {
            // Sub-byte codes come unmasked from typed fields (an int4 in
            // an int32); keep the element's own bits.
            let mask = match dt.elem().bits() {
                b @ 1..8 => (1u64 << b) - 1,
                _ => 0xff,
            };
            v.push((uint(e) & mask) as u8);
        }
    }
}

// Record files as tables: a TFRecord's Examples as columns of their
// features, read in one pass that copies each value once into its
// column's buffer (the layout of Arrow's list arrays, so a binding hands
// them over without another copy); an event file's summaries.

/// A record file's Examples and SequenceExamples as a table, one column
/// per feature (a record that lacks it is null there; a feature list is a
/// list of steps), in one pass over the records (plain, GZIP or ZLIB). A
/// file cut inside a record gives the records before the cut and the cut
/// as [`ExampleTable::fault`]; any other fault (a CRC, a stream that does
/// not decompress), a record that is no Example, or a feature whose values
/// change kind is the error.
pub fn example_table(path: impl AsRef<Path>) -> Result<ExampleTable, Error> {
    let path = path.as_ref();
    let input = crate::input::open_input(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    example_table_of(input.bytes())
}

/// [`example_table`] of bytes in memory.
pub fn example_table_of(bytes: &[u8]) -> Result<ExampleTable, Error> {
    let file = formats::tf_record::record_file(bytes)?;
    Ok(formats::tf_record::example_columns(&file)?)
}

/// An event file's summaries (TensorBoard's): scalars as columns (step,
/// wall time, tag, value as float32; TF 1's `simple_value` and TF 2's
/// tensors of the `scalars` plugin alike), histograms, pictures, texts and
/// other tensors as rows; in one pass. A cut ends the table after the
/// last whole record ([`EventTable::fault`]); another fault is the error;
/// a record file that is no event file gives an empty table.
pub fn event_table(path: impl AsRef<Path>) -> Result<EventTable, Error> {
    let path = path.as_ref();
    let input = crate::input::open_input(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    event_table_of(input.bytes())
}

/// [`event_table`] of bytes in memory.
pub fn event_table_of(bytes: &[u8]) -> Result<EventTable, Error> {
    let file = formats::tf_record::record_file(bytes)?;
    Ok(crate::formats::tf_event::event_table(&file)?)
}

/// What a file that is no protobuf looks like, and what reads it (the
/// command's `this looks like ..` note): an ONNX Runtime or TensorFlow Lite
/// model, GGUF, NumPy, HDF5, a zip or pickle checkpoint, safetensors,
/// JSON; `name` is the file's name, for the files known by it.
pub fn looks_like(bytes: &[u8], name: Option<&str>) -> Option<Cow<'static, str>> {
    formats::other_files::looks_like(bytes, name)
}

#[cfg(test)]
mod error_tests {
    use super::Error;
    use crate::error::{DecodeError, ErrorKind};
    use crate::external::{ExternalError, ExternalRef};

    /// A function of the library's kind: each part's error through `?`.
    fn decode_then_load(bytes: &[u8]) -> Result<(), Error> {
        if bytes.is_empty() {
            Err(DecodeError::new(ErrorKind::Empty, 0))?;
        }
        ExternalRef::default().load(None)?;
        Ok(())
    }

    #[test]
    fn every_part_converts_to_the_crate_error_keeping_its_message() {
        let e = decode_then_load(&[]).unwrap_err();
        assert!(
            matches!(&e, Error::Decode(d) if d.check() == "empty"),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "empty check failed @0x0: input is empty");
        let e = decode_then_load(&[1]).unwrap_err();
        assert!(
            matches!(&e, Error::External(ExternalError::NoLocation)),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "external_data has no location");
        let e = Error::from(std::io::Error::other("disk"));
        assert!(matches!(e, Error::Io(_)));
    }
}

#[cfg(test)]
mod tests {
    use super::DataType;
    use crate::formats::onnx_tensor::ONNX_TYPES;
    use std::collections::HashSet;

    #[test]
    fn every_onnx_type_has_a_data_type_named_as_onnx_names_it() {
        let mut numpy = HashSet::new();
        for t in &ONNX_TYPES {
            let dt = DataType::from_elem(t.elem);
            assert_eq!(dt.onnx_name(), Some(t.name));
            assert_eq!(u64::from(dt.size_bits().unwrap_or(0)), t.elem.bits());
            assert!(numpy.insert(dt.numpy_name()), "{}", dt.numpy_name());
        }
        assert_eq!(DataType::Float16.tf_name(), Some("DT_HALF"));
        assert_eq!(DataType::BFloat16.numpy_name(), "bfloat16");
        assert_eq!(DataType::String.size_bits(), None);
    }
}
