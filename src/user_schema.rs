//! Schemas from the user: `.proto` files (with their imports, resolved
//! below the import roots as protoc resolves them) and
//! FileDescriptorSets written by `protoc -o`, read into the same
//! [`SchemaSet`] tables as the built-in formats. A FileDescriptorSet is
//! itself decoded with a built-in table (`schemas/descriptor.proto`): the
//! schema tables are declarative all the way down.

use crate::decode::{DecodeContext, Message, decode_message};
use crate::error::{DecodeError, ErrorKind};
use crate::fields::google::protobuf::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FeatureSet,
    FieldDescriptorProto, FieldOptions, FileDescriptorProto, FileDescriptorSet, FileOptions,
    MessageOptions, OneofDescriptorProto, OneofOptions,
};
use crate::formats::{Body, Decoded, Format, FormatOptions};
use crate::schema::{
    EnumAst, ExtendAst, Features, FieldAst, FieldId, FileAst, FullName, Label, MessageAst,
    SchemaSet, parse_file, parse_proto, resolve_features,
};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The format a user schema reads: any message, by the user's tables.
pub static USER_FORMAT: Format = Format {
    id: crate::formats::SCHEMALESS_ID,
    title: "Protocol Buffers message (schema given by the user)",
    schema_files: &[],
    roots: &[],
    decode: refuse,
    tensor_adapters: &[],
    tensor_namers: &[],
    line: crate::formats::no_line,
    summary: crate::formats::summary::no_summary,
    views: &[],
    side_tensors: crate::formats::no_side_tensors,
};

fn refuse<'a>(_: &'a [u8], _: &FormatOptions) -> crate::error::Result<Body<'a>> {
    Err(DecodeError::new(
        ErrorKind::NoSuchMessage("(a user schema is read with user_schema::decode)".into()),
        0,
    ))
}

/// Why a schema could not be loaded, for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LoadError(pub String);

/// The google.protobuf files most schemas import, reduced to their fields,
/// used when an import of that name is not found on disk.
const WELL_KNOWN: &[(&str, &str)] = &[
    (
        "google/protobuf/descriptor.proto",
        include_str!("../schemas/descriptor.proto"),
    ),
    (
        "google/protobuf/timestamp.proto",
        "syntax = \"proto3\"; package google.protobuf; message Timestamp { int64 seconds = 1; int32 nanos = 2; }",
    ),
    (
        "google/protobuf/duration.proto",
        "syntax = \"proto3\"; package google.protobuf; message Duration { int64 seconds = 1; int32 nanos = 2; }",
    ),
    (
        "google/protobuf/empty.proto",
        "syntax = \"proto3\"; package google.protobuf; message Empty {}",
    ),
    (
        "google/protobuf/any.proto",
        "syntax = \"proto3\"; package google.protobuf; message Any { string type_url = 1; bytes value = 2; }",
    ),
    (
        "google/protobuf/field_mask.proto",
        "syntax = \"proto3\"; package google.protobuf; message FieldMask { repeated string paths = 1; }",
    ),
    (
        "google/protobuf/wrappers.proto",
        "syntax = \"proto3\"; package google.protobuf;
         message DoubleValue { double value = 1; } message FloatValue { float value = 1; }
         message Int64Value { int64 value = 1; } message UInt64Value { uint64 value = 1; }
         message Int32Value { int32 value = 1; } message UInt32Value { uint32 value = 1; }
         message BoolValue { bool value = 1; } message StringValue { string value = 1; }
         message BytesValue { bytes value = 1; }",
    ),
    (
        "google/protobuf/struct.proto",
        "syntax = \"proto3\"; package google.protobuf;
         message Struct { map<string, Value> fields = 1; }
         message Value { oneof kind { NullValue null_value = 1; double number_value = 2;
           string string_value = 3; bool bool_value = 4; Struct struct_value = 5;
           ListValue list_value = 6; } }
         enum NullValue { NULL_VALUE = 0; }
         message ListValue { repeated Value values = 1; }",
    ),
];

/// The largest .proto file read (the largest of googleapis is 4 MiB).
pub const MAX_PROTO_BYTES: u64 = 16 << 20;
/// The largest FileDescriptorSet read.
pub const MAX_DESCRIPTOR_SET_BYTES: u64 = 256 << 20;

/// Reads a file the user named (`--schema`, `--descriptor-set`): a regular
/// file, or a pipe (`<(protoc -o /dev/stdout ...)`), at most `cap` bytes.
/// Devices, folders and sockets are refused before anything is read.
pub fn read_user_file(path: &Path, cap: u64) -> Result<Vec<u8>, LoadError> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| LoadError(format!("{shown}: {e}")))?;
    let ty = meta.file_type();
    if !(ty.is_file() || file_type::is_pipe(ty)) {
        return Err(LoadError(format!(
            "{shown}: {} (a schema is read from a regular file or a pipe)",
            kind_of(&meta)
        )));
    }
    read_capped(path, cap, true)
}

/// The Unix file types a schema path may name (none elsewhere).
#[cfg(unix)]
mod file_type {
    use std::fs::FileType;
    use std::os::unix::fs::FileTypeExt;

    pub fn is_pipe(ty: FileType) -> bool {
        ty.is_fifo()
    }

    pub fn is_device(ty: FileType) -> bool {
        ty.is_char_device() || ty.is_block_device()
    }

    pub fn is_socket(ty: FileType) -> bool {
        ty.is_socket()
    }
}

#[cfg(not(unix))]
mod file_type {
    use std::fs::FileType;

    pub fn is_pipe(_ty: FileType) -> bool {
        false
    }

    pub fn is_device(_ty: FileType) -> bool {
        false
    }

    pub fn is_socket(_ty: FileType) -> bool {
        false
    }
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let ty = meta.file_type();
    if ty.is_dir() {
        "is a folder"
    } else if file_type::is_device(ty) {
        "is a device"
    } else if file_type::is_socket(ty) {
        "is a socket"
    } else if file_type::is_pipe(ty) {
        "is a pipe"
    } else {
        "is not a regular file"
    }
}

/// Reads at most `cap` bytes of a file, checking again once it is open that
/// it is a regular file (or, with `allow_pipe`, a pipe): a file swapped for
/// a device after the first check is still not read.
fn read_capped(path: &Path, cap: u64, allow_pipe: bool) -> Result<Vec<u8>, LoadError> {
    let shown = path.display();
    let failed = |e: std::io::Error| LoadError(format!("{shown}: {e}"));
    let opened = crate::input::open_read(path, crate::input::Link::Follow).map_err(failed)?;
    let meta = opened.metadata();
    if !(meta.is_file() || allow_pipe && file_type::is_pipe(meta.file_type())) {
        return Err(LoadError(format!("{shown} {}", kind_of(meta))));
    }
    let too_large = || {
        LoadError(format!(
            "{shown}: larger than {} MiB, the limit for this kind of file",
            cap >> 20
        ))
    };
    if meta.len() > cap {
        return Err(too_large());
    }
    match opened.read(cap) {
        Ok(bytes) => Ok(bytes.bytes().to_vec()),
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => Err(too_large()),
        Err(e) => Err(failed(e)),
    }
}

/// A folder imports are looked up in, as given and resolved.
struct Root {
    shown: PathBuf,
    real: PathBuf,
}

/// Where an import was found: its file, or a built-in copy.
enum Found {
    File(PathBuf),
    Builtin(&'static str, &'static str),
}

/// Checks an import's name the way protoc's source tree does: a relative
/// path of plain components below the roots.
fn check_import_name(import: &str) -> Result<(), String> {
    const RULE: &str = "imports are relative paths below the import roots, and protoc refuses backslashes, `//`, `.` and `..` as well";
    if import.is_empty() || import.bytes().any(|b| b == 0) {
        return Err("not a file name".into());
    }
    if import.starts_with('/') {
        return Err(format!("an absolute path is not allowed ({RULE})"));
    }
    if import.split('/').any(|c| c == "..") {
        return Err(format!("`..` is not allowed ({RULE})"));
    }
    if import.contains('\\') || import.split('/').any(|c| c == "." || c.is_empty()) {
        return Err(format!("not a plain path ({RULE})"));
    }
    Ok(())
}

/// Finds an import below the roots, in order: the first root that holds a
/// file of that name wins, as in protoc. The file must be a regular file
/// whose real path (symlinks resolved) stays inside that root.
fn find_import(import: &str, roots: &[Root]) -> Result<Option<Found>, String> {
    // (The name is checked first, so `root.join` never leaves the root by
    // its text; only a symlink can, which `canonicalize` reveals.)
    check_import_name(import)?;
    for root in roots {
        let candidate = root.real.join(import);
        let real = match candidate.canonicalize() {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", root.shown.join(import).display())),
        };
        if !real.starts_with(&root.real) {
            return Err(format!(
                "{} leads outside {} through a symlink; an import must stay inside the root it is found in",
                root.shown.join(import).display(),
                root.shown.display()
            ));
        }
        let meta = std::fs::metadata(&real)
            .map_err(|e| format!("{}: {e}", root.shown.join(import).display()))?;
        if !meta.is_file() {
            return Err(format!(
                "{} {}; an import must be a regular file",
                root.shown.join(import).display(),
                kind_of(&meta)
            ));
        }
        return Ok(Some(Found::File(real)));
    }
    Ok(WELL_KNOWN
        .iter()
        .find(|(n, _)| *n == import)
        .map(|(n, t)| Found::Builtin(n, t)))
}

/// Parses a file's bytes, naming it in errors; the offending token is
/// quoted only for files named *.proto, so an error never shows another
/// kind of file's content.
fn parse_named(shown: &str, bytes: &[u8]) -> Result<FileAst, LoadError> {
    let quote = shown.ends_with(".proto");
    parse_proto(bytes, quote).map_err(|e| LoadError(format!("{shown}: {e}")))
}

/// The folders imports are looked up in, in order: protoc's (each `-I DIR`,
/// or the current folder when none is given, as protoc's default
/// `--proto_path=.`), then the main file's folder, an implied root of
/// pbdecode's. An import protoc finds is found in the same file; the
/// implied root only finds imports protoc would not.
pub fn import_roots(path: &Path, include: &[PathBuf]) -> Vec<PathBuf> {
    let main_dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut roots: Vec<PathBuf> = if include.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        include.to_vec()
    };
    roots.push(main_dir);
    roots
}

/// Reads a `.proto` file and every file it imports, transitively. Imports
/// are resolved like protoc's: relative paths (no absolute paths, no `.` or
/// `..`) looked up in each root of [`import_roots`] in order, and must be
/// regular files inside that root (after symlinks), at most
/// [`MAX_PROTO_BYTES`] each. The google.protobuf well-known files fall back
/// to built-in copies. `import option` files (custom options only) are not
/// read.
pub fn load_proto(path: &Path, include: &[PathBuf]) -> Result<SchemaSet, LoadError> {
    let mut roots = Vec::new();
    for dir in import_roots(path, include) {
        // A folder that does not exist holds nothing (protoc warns and goes on).
        if let Ok(real) = dir.canonicalize()
            && !roots.iter().any(|r: &Root| r.real == real)
        {
            roots.push(Root { shown: dir, real });
        }
    }
    let main_shown = path.display().to_string();
    let main = read_user_file(path, MAX_PROTO_BYTES)?;
    let main_ast = parse_named(&main_shown, &main)?;
    let mut files: Vec<(String, FileAst)> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    if let Ok(real) = path.canonicalize() {
        seen.insert(real);
    }
    let mut seen_builtin: HashSet<&str> = HashSet::new();
    let mut queue: Vec<(String, FileAst)> = vec![(main_shown, main_ast)];
    while let Some((shown, ast)) = queue.pop() {
        for import in &ast.imports {
            let found = find_import(import, &roots).map_err(|why| {
                LoadError(format!(
                    "{shown}: import \"{}\": {why}",
                    import.escape_debug()
                ))
            })?;
            match found {
                Some(Found::File(real)) => {
                    if seen.insert(real.clone()) {
                        let bytes = read_capped(&real, MAX_PROTO_BYTES, false)?;
                        let ast = parse_named(import, &bytes)?;
                        queue.push((import.clone(), ast));
                    }
                }
                Some(Found::Builtin(name, text)) => {
                    if seen_builtin.insert(name) {
                        let ast = parse_file(text)
                            .map_err(|e| LoadError(format!("built-in {name}: {e}")))?;
                        files.push((name.to_string(), ast));
                    }
                }
                None => {
                    let looked: Vec<String> = roots
                        .iter()
                        .map(|r| r.shown.display().to_string())
                        .collect();
                    return Err(LoadError(format!(
                        "{shown}: import \"{}\" not found (looked in: {}; add -I DIR)",
                        import.escape_debug(),
                        looked.join(", ")
                    )));
                }
            }
        }
        files.push((shown, ast));
    }
    SchemaSet::from_asts(&files).map_err(|e| LoadError(e.to_string()))
}

/// The built-in descriptor.proto table.
pub fn descriptor_schema() -> &'static SchemaSet {
    static SET: OnceLock<SchemaSet> = OnceLock::new();
    SET.get_or_init(|| {
        SchemaSet::from_files([(
            "descriptor.proto".to_string(),
            include_str!("../schemas/descriptor.proto").to_string(),
        )])
        .map(SchemaSet::into_builtin)
        .unwrap_or_else(|e| panic!("built-in descriptor table is broken: {e}"))
    })
}

/// Reads a FileDescriptorSet (`protoc -o`) into schema tables.
pub fn load_descriptor_set(bytes: &[u8]) -> Result<SchemaSet, LoadError> {
    let set = descriptor_schema();
    let root = set
        .find_message("google.protobuf.FileDescriptorSet")
        .ok_or_else(|| LoadError("no descriptor table".into()))?;
    let msg = decode_message(set, root, bytes, 0, DecodeContext::lenient())
        .map_err(|e| LoadError(format!("not a FileDescriptorSet: {e}")))?;
    let mut files = Vec::new();
    for file in msg.messages(set, FileDescriptorSet::FILE) {
        let name = file
            .str(set, FileDescriptorProto::NAME)
            .unwrap_or("(unnamed)")
            .to_string();
        let syntax = file
            .str(set, FileDescriptorProto::SYNTAX)
            .unwrap_or("proto2");
        let mut ast = FileAst {
            syntax_proto3: syntax == "proto3",
            editions: syntax == "editions",
            features: features_of(
                set,
                file.message(set, FileDescriptorProto::OPTIONS),
                FileOptions::FEATURES,
            ),
            package: file
                .str(set, FileDescriptorProto::PACKAGE)
                .unwrap_or("")
                .to_string(),
            imports: file
                .field(set, FileDescriptorProto::DEPENDENCY)
                .iter()
                .filter_map(|f| match f.value {
                    crate::decode::Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
                    _ => None,
                })
                .collect(),
            ..FileAst::default()
        };
        for m in file.messages(set, FileDescriptorProto::MESSAGE_TYPE) {
            ast.messages.push(message_ast(set, m)?);
        }
        for e in file.messages(set, FileDescriptorProto::ENUM_TYPE) {
            ast.enums.push(enum_ast(set, e));
        }
        ast.extends = extend_asts(set, file.messages(set, FileDescriptorProto::EXTENSION));
        resolve_features(&mut ast);
        files.push((name, ast));
    }
    if files.is_empty() {
        return Err(LoadError(
            "the descriptor set holds no files (is it a FileDescriptorSet from protoc -o?)".into(),
        ));
    }
    SchemaSet::from_asts(&files).map_err(|e| LoadError(e.to_string()))
}

/// The editions features set in an options message: its `features` field
/// (field 50, 12, 21 or 1 of File-, Message-, Field- and OneofOptions).
fn features_of(set: &SchemaSet, options: Option<&Message<'_>>, features: FieldId) -> Features {
    let Some(fs) = options.and_then(|o| o.message(set, features)) else {
        return Features::default();
    };
    let get = |id: FieldId| fs.int(set, id).filter(|v| *v != 0);
    Features {
        packed: get(FeatureSet::REPEATED_FIELD_ENCODING).map(|v| v == 1),
        legacy_required: get(FeatureSet::FIELD_PRESENCE).map(|v| v == 3),
        delimited: get(FeatureSet::MESSAGE_ENCODING).map(|v| v == 2),
    }
}

fn enum_ast(set: &SchemaSet, e: &Message<'_>) -> EnumAst {
    EnumAst {
        name: e
            .str(set, EnumDescriptorProto::NAME)
            .unwrap_or("")
            .to_string(),
        values: e
            .messages(set, EnumDescriptorProto::VALUE)
            .map(|v| {
                let n = v
                    .int(set, EnumValueDescriptorProto::NUMBER)
                    .and_then(|n| i32::try_from(n).ok());
                (
                    v.str(set, EnumValueDescriptorProto::NAME)
                        .unwrap_or("")
                        .to_string(),
                    n.unwrap_or(0),
                )
            })
            .collect(),
    }
}

/// The .proto keyword of a FieldDescriptorProto.Type, or None for the
/// types named by `type_name` (message, enum, group).
fn scalar_keyword(ty: i64) -> Option<&'static str> {
    Some(match ty {
        1 => "double",
        2 => "float",
        3 => "int64",
        4 => "uint64",
        5 => "int32",
        6 => "fixed64",
        7 => "fixed32",
        8 => "bool",
        9 => "string",
        12 => "bytes",
        13 => "uint32",
        15 => "sfixed32",
        16 => "sfixed64",
        17 => "sint32",
        18 => "sint64",
        _ => return None,
    })
}

fn type_of(set: &SchemaSet, f: &Message<'_>) -> String {
    let ty = f.int(set, FieldDescriptorProto::TYPE).unwrap_or(0);
    match scalar_keyword(ty) {
        Some(k) => k.to_string(),
        None => f
            .str(set, FieldDescriptorProto::TYPE_NAME)
            .unwrap_or("")
            .to_string(),
    }
}

fn message_ast(set: &SchemaSet, m: &Message<'_>) -> Result<MessageAst, LoadError> {
    let name = m.str(set, DescriptorProto::NAME).unwrap_or("").to_string();
    // Each oneof's name once, shared by its fields.
    let oneofs: Vec<(Arc<str>, Features)> = m
        .messages(set, DescriptorProto::ONEOF_DECL)
        .map(|o| {
            (
                Arc::from(o.str(set, OneofDescriptorProto::NAME).unwrap_or("")),
                features_of(
                    set,
                    o.message(set, OneofDescriptorProto::OPTIONS),
                    OneofOptions::FEATURES,
                ),
            )
        })
        .collect();
    // Map entries are nested types with options.map_entry; they become
    // `map<K, V>` fields again, which the resolver turns back into entries.
    // By name, the first of a name kept: one lookup per field, not a
    // search of every entry.
    let mut entries: HashMap<String, (String, String)> = HashMap::new();
    let mut nested = Vec::new();
    for n in m.messages(set, DescriptorProto::NESTED_TYPE) {
        let is_entry = n
            .message(set, DescriptorProto::OPTIONS)
            .and_then(|o| o.scalar(set, MessageOptions::MAP_ENTRY))
            .and_then(crate::decode::ScalarValue::as_i64)
            == Some(1);
        if is_entry {
            let mut key = String::new();
            let mut value = String::new();
            for f in n.messages(set, DescriptorProto::FIELD) {
                match f.int(set, FieldDescriptorProto::NUMBER) {
                    Some(1) => key = type_of(set, f),
                    Some(2) => value = type_of(set, f),
                    _ => {}
                }
            }
            let entry_name = n.str(set, DescriptorProto::NAME).unwrap_or("").to_string();
            entries.entry(entry_name).or_insert((key, value));
        } else {
            nested.push(message_ast(set, n)?);
        }
    }
    let mut fields = Vec::new();
    for f in m.messages(set, DescriptorProto::FIELD) {
        let number = f
            .int(set, FieldDescriptorProto::NUMBER)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| LoadError(format!("{name}: a field without a valid number")))?;
        let label = match f.int(set, FieldDescriptorProto::LABEL) {
            Some(2) => Some(Label::Required),
            Some(3) => Some(Label::Repeated),
            _ => Some(Label::Optional),
        };
        let type_name = type_of(set, f);
        let map = type_name
            .rsplit('.')
            .next()
            .and_then(|entry| entries.get(entry))
            .cloned()
            .filter(|_| label == Some(Label::Repeated));
        let packed = f
            .message(set, FieldDescriptorProto::OPTIONS)
            .and_then(|o| o.scalar(set, FieldOptions::PACKED))
            .and_then(crate::decode::ScalarValue::as_i64)
            .map(|v| v != 0);
        let proto3_optional = f
            .scalar(set, FieldDescriptorProto::PROTO3_OPTIONAL)
            .and_then(crate::decode::ScalarValue::as_i64)
            == Some(1);
        let oneof = match f.int(set, FieldDescriptorProto::ONEOF_INDEX) {
            Some(i) if !proto3_optional => usize::try_from(i).ok().and_then(|i| oneofs.get(i)),
            _ => None,
        };
        let mut features = features_of(
            set,
            f.message(set, FieldDescriptorProto::OPTIONS),
            FieldOptions::FEATURES,
        );
        if let Some((_, of)) = oneof {
            features = features.over(*of);
        }
        fields.push(FieldAst {
            label,
            type_name: if map.is_some() {
                String::new()
            } else {
                type_name
            },
            name: f
                .str(set, FieldDescriptorProto::NAME)
                .unwrap_or("")
                .to_string(),
            number,
            packed,
            oneof: oneof.map(|(name, _)| name.clone()),
            map,
            // TYPE_GROUP
            group: f.int(set, FieldDescriptorProto::TYPE) == Some(10),
            proto3_optional,
            features,
            ..FieldAst::default()
        });
    }
    Ok(MessageAst {
        name,
        features: features_of(
            set,
            m.message(set, DescriptorProto::OPTIONS),
            MessageOptions::FEATURES,
        ),
        fields,
        messages: nested,
        enums: m
            .messages(set, DescriptorProto::ENUM_TYPE)
            .map(|e| enum_ast(set, e))
            .collect(),
        extends: extend_asts(set, m.messages(set, DescriptorProto::EXTENSION)),
    })
}

/// Extension fields (`FieldDescriptorProto`s with an `extendee`), each an
/// `extend` block of its own.
fn extend_asts<'m, 'a: 'm>(
    set: &SchemaSet,
    fields: impl Iterator<Item = &'m Message<'a>>,
) -> Vec<ExtendAst> {
    fields
        .filter_map(|f| {
            let extendee = f.str(set, FieldDescriptorProto::EXTENDEE)?.to_string();
            let number = f
                .int(set, FieldDescriptorProto::NUMBER)
                .and_then(|n| u32::try_from(n).ok())?;
            let label = match f.int(set, FieldDescriptorProto::LABEL) {
                Some(2) => Some(Label::Required),
                Some(3) => Some(Label::Repeated),
                _ => Some(Label::Optional),
            };
            let packed = f
                .message(set, FieldDescriptorProto::OPTIONS)
                .and_then(|o| o.scalar(set, FieldOptions::PACKED))
                .and_then(crate::decode::ScalarValue::as_i64)
                .map(|v| v != 0);
            let field = FieldAst {
                label,
                type_name: type_of(set, f),
                name: f
                    .str(set, FieldDescriptorProto::NAME)
                    .unwrap_or("")
                    .to_string(),
                number,
                packed,
                // TYPE_GROUP
                group: f.int(set, FieldDescriptorProto::TYPE) == Some(10),
                features: features_of(
                    set,
                    f.message(set, FieldDescriptorProto::OPTIONS),
                    FieldOptions::FEATURES,
                ),
                ..FieldAst::default()
            };
            Some(ExtendAst {
                extendee,
                fields: vec![field],
            })
        })
        .collect()
}

/// Decodes `bytes` as `type_name` of `set`, leniently: fields the schema
/// does not know, or whose bytes do not fit it, are kept and shown read
/// without a schema.
pub fn decode<'a>(
    set: &'a SchemaSet,
    type_name: &str,
    bytes: &'a [u8],
    max_depth: u32,
) -> Result<Decoded<'a>, DecodeError> {
    let id = set
        .find_message(type_name)
        .ok_or_else(|| DecodeError::new(ErrorKind::NoSuchMessage(type_name.to_string()), 0))?;
    let ctx = DecodeContext::lenient().with_max_depth(max_depth);
    let message = decode_message(set, id, bytes, 0, ctx)?;
    Ok(Decoded {
        format: &USER_FORMAT,
        body: Body::UserMessage {
            set,
            type_name: set.message(id).full_name.to_string(),
            message,
        },
        passed_over: Vec::new(),
        syntax: crate::formats::Syntax::Binary,
    })
}

/// The messages a user can name with `--type`, for error messages.
pub fn type_names(set: &SchemaSet) -> Vec<&FullName> {
    set.messages
        .iter()
        .filter(|m| !m.map_entry)
        .map(|m| &m.full_name)
        .collect()
}
