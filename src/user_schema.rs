//! Schemas from the user: `.proto` files (with their imports, found beside
//! the importing file, beside the main file or in `-I` folders) and
//! FileDescriptorSets written by `protoc -o`, read into the same
//! [`SchemaSet`] tables as the built-in formats. A FileDescriptorSet is
//! itself decoded with a built-in table (`schemas/descriptor.proto`): the
//! schema tables are declarative all the way down.

use crate::decode::{DecodeContext, Message, decode_message};
use crate::error::{DecodeError, ErrorKind};
use crate::formats::{Body, Decoded, Format, FormatOptions};
use crate::schema::{EnumAst, FieldAst, FileAst, Label, MessageAst, SchemaSet, parse_file};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The format a user schema reads: any message, by the user's tables.
pub static USER_FORMAT: Format = Format {
    id: "protobuf",
    title: "Protocol Buffers message (schema given by the user)",
    decode: refuse,
};

fn refuse<'a>(_: &'a [u8], _: &FormatOptions) -> crate::error::Result<Body<'a>> {
    Err(DecodeError::new(
        ErrorKind::Invalid("a user schema is read with user_schema::decode".into()),
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

/// Reads a `.proto` file and every file it imports, transitively. Imports
/// are looked up beside the importing file, beside `path`, then in each of
/// `include` in order; the google.protobuf well-known files fall back to
/// built-in copies.
pub fn load_proto(path: &Path, include: &[PathBuf]) -> Result<SchemaSet, LoadError> {
    let main_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut files: Vec<(String, FileAst)> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut seen_builtin: HashSet<&str> = HashSet::new();
    // (file to read, the name it was imported as, who imported it)
    let mut queue: Vec<(PathBuf, String)> = vec![(path.to_path_buf(), path.display().to_string())];
    while let Some((file, shown)) = queue.pop() {
        let key = file.canonicalize().unwrap_or_else(|_| file.clone());
        if !seen.insert(key) {
            continue;
        }
        let text =
            std::fs::read_to_string(&file).map_err(|e| LoadError(format!("{shown}: {e}")))?;
        let ast = parse_file(&text).map_err(|e| LoadError(format!("{shown}: {e}")))?;
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for import in &ast.imports {
            let candidates = std::iter::once(dir.join(import))
                .chain(std::iter::once(main_dir.join(import)))
                .chain(include.iter().map(|d| d.join(import)));
            match candidates.into_iter().find(|p| p.is_file()) {
                Some(found) => queue.push((found, import.clone())),
                None => match WELL_KNOWN.iter().find(|(n, _)| n == import) {
                    Some((name, text)) => {
                        if seen_builtin.insert(name) {
                            let ast = parse_file(text)
                                .map_err(|e| LoadError(format!("built-in {name}: {e}")))?;
                            files.push((name.to_string(), ast));
                        }
                    }
                    None => {
                        let mut looked: Vec<String> = vec![dir.display().to_string()];
                        if main_dir != dir {
                            looked.push(main_dir.display().to_string());
                        }
                        looked.extend(include.iter().map(|d| d.display().to_string()));
                        return Err(LoadError(format!(
                            "{shown}: import \"{import}\" not found (looked in: {}; add -I DIR)",
                            looked.join(", ")
                        )));
                    }
                },
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
    for file in msg.messages(set, "file") {
        let name = file.str(set, "name").unwrap_or("(unnamed)").to_string();
        let syntax = file.str(set, "syntax").unwrap_or("proto2");
        let mut ast = FileAst {
            // Editions pack repeated scalars by default, as proto3 does.
            syntax_proto3: syntax == "proto3" || syntax == "editions",
            package: file.str(set, "package").unwrap_or("").to_string(),
            imports: file
                .field(set, "dependency")
                .iter()
                .filter_map(|f| match f.value {
                    crate::decode::Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
                    _ => None,
                })
                .collect(),
            messages: Vec::new(),
            enums: Vec::new(),
        };
        for m in file.messages(set, "message_type") {
            ast.messages.push(message_ast(set, m)?);
        }
        for e in file.messages(set, "enum_type") {
            ast.enums.push(enum_ast(set, e));
        }
        files.push((name, ast));
    }
    if files.is_empty() {
        return Err(LoadError(
            "the descriptor set holds no files (is it a FileDescriptorSet from protoc -o?)".into(),
        ));
    }
    SchemaSet::from_asts(&files).map_err(|e| LoadError(e.to_string()))
}

fn enum_ast(set: &SchemaSet, e: &Message<'_>) -> EnumAst {
    EnumAst {
        name: e.str(set, "name").unwrap_or("").to_string(),
        values: e
            .messages(set, "value")
            .map(|v| {
                let n = v.int(set, "number").and_then(|n| i32::try_from(n).ok());
                (v.str(set, "name").unwrap_or("").to_string(), n.unwrap_or(0))
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
    let ty = f.int(set, "type").unwrap_or(0);
    match scalar_keyword(ty) {
        Some(k) => k.to_string(),
        None => f.str(set, "type_name").unwrap_or("").to_string(),
    }
}

fn message_ast(set: &SchemaSet, m: &Message<'_>) -> Result<MessageAst, LoadError> {
    let name = m.str(set, "name").unwrap_or("").to_string();
    let oneofs: Vec<String> = m
        .messages(set, "oneof_decl")
        .map(|o| o.str(set, "name").unwrap_or("").to_string())
        .collect();
    // Map entries are nested types with options.map_entry; they become
    // `map<K, V>` fields again, which the resolver turns back into entries.
    let mut entries: Vec<(String, (String, String))> = Vec::new();
    let mut nested = Vec::new();
    for n in m.messages(set, "nested_type") {
        let is_entry = n
            .message(set, "options")
            .and_then(|o| o.scalar(set, "map_entry"))
            .and_then(crate::decode::ScalarValue::as_i64)
            == Some(1);
        if is_entry {
            let mut key = String::new();
            let mut value = String::new();
            for f in n.messages(set, "field") {
                match f.int(set, "number") {
                    Some(1) => key = type_of(set, f),
                    Some(2) => value = type_of(set, f),
                    _ => {}
                }
            }
            let entry_name = n.str(set, "name").unwrap_or("").to_string();
            entries.push((entry_name, (key, value)));
        } else {
            nested.push(message_ast(set, n)?);
        }
    }
    let mut fields = Vec::new();
    for f in m.messages(set, "field") {
        let number = f
            .int(set, "number")
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| LoadError(format!("{name}: a field without a valid number")))?;
        let label = match f.int(set, "label") {
            Some(2) => Some(Label::Required),
            Some(3) => Some(Label::Repeated),
            _ => Some(Label::Optional),
        };
        let type_name = type_of(set, f);
        let map = entries
            .iter()
            .find(|(entry, _)| type_name.rsplit('.').next() == Some(entry.as_str()))
            .map(|(_, kv)| kv.clone())
            .filter(|_| label == Some(Label::Repeated));
        let packed = f
            .message(set, "options")
            .and_then(|o| o.scalar(set, "packed"))
            .and_then(crate::decode::ScalarValue::as_i64)
            .map(|v| v != 0);
        let oneof = match (f.int(set, "oneof_index"), f.scalar(set, "proto3_optional")) {
            (Some(i), None) => usize::try_from(i).ok().and_then(|i| oneofs.get(i)).cloned(),
            _ => None,
        };
        fields.push(FieldAst {
            label,
            type_name: if map.is_some() {
                String::new()
            } else {
                type_name
            },
            name: f.str(set, "name").unwrap_or("").to_string(),
            number,
            packed,
            oneof,
            map,
            // TYPE_GROUP
            group: f.int(set, "type") == Some(10),
        });
    }
    Ok(MessageAst {
        name,
        fields,
        messages: nested,
        enums: m
            .messages(set, "enum_type")
            .map(|e| enum_ast(set, e))
            .collect(),
    })
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
    let id = set.find_message(type_name).ok_or_else(|| {
        DecodeError::new(
            ErrorKind::Invalid(format!("the schema has no message {type_name}")),
            0,
        )
    })?;
    let ctx = DecodeContext::lenient().with_max_depth(max_depth);
    let message = decode_message(set, id, bytes, 0, ctx)?;
    Ok(Decoded {
        format: &USER_FORMAT,
        body: Body::UserMessage {
            set,
            type_name: set.message(id).full_name.clone(),
            message,
        },
        passed_over: Vec::new(),
    })
}

/// The messages a user can name with `--type`, for error messages.
pub fn type_names(set: &SchemaSet) -> Vec<&str> {
    set.messages
        .iter()
        .filter(|m| !m.map_entry)
        .map(|m| m.full_name.as_str())
        .collect()
}
