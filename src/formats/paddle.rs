//! PaddlePaddle inference models: the program (`inference.pdmodel`,
//! `__model__`: a ProgramDesc of blocks, each with its variables and ops)
//! and its parameters, read from the file beside it (`inference.pdiparams`,
//! `__params__`): a stream of tensors, one per persistable variable of the
//! global block, in the bytewise order of their names (Paddle's
//! `LoadPersistables` sorts them so), each
//!
//! ```text
//! u32 version (0), u64 LoD levels, per level: u64 bytes, its offsets;
//! u32 version (0), i32 size of a VarType.TensorDesc, the TensorDesc,
//! the values: product(dims) x the data type's width, little-endian
//! ```
//!
//! (`paddle/fluid/framework/lod_tensor.cc` `SerializeToStream`,
//! `tensor_util.cc` `TensorToStream`).

use super::base::{
    Body, Format, FormatOptions, KernelOrder, SideTensor, SideValues, decode_builtin, is_input_of,
};
use super::summary::{self, Summary, Value as SummaryValue};
use crate::decode::{DecodeContext, Message};
use crate::error::{DecodeError, Result, Rule};
use crate::external::{ExternalRef, Folder};
use crate::fields::paddle::framework::proto::{
    BlockDesc, OpDesc, ProgramDesc, VarDesc, VarType, Version,
};
use crate::schema::SchemaSet;
use crate::tensor::{Elem, element_count, raw_size};

/// `paddle-framework.proto`: ProgramDesc and its parts.
pub const FRAMEWORK_FILE: (&str, &str) = (
    "paddle-framework.proto",
    include_str!("../../schemas/paddle-framework.proto"),
);

/// The root message.
const PROGRAM: &str = "paddle.framework.proto.ProgramDesc";

/// The VarType.Type codes of variables that are not saved with the
/// parameters although persistable: FEED_MINIBATCH, FETCH_LIST, RAW.
const NOT_SAVED: &[i64] = &[9, 10, 17];

/// A VarType.Type of a tensor's elements: its element type.
pub fn elem_of(code: i64) -> Option<Elem> {
    Some(match code {
        0 => Elem::Bool,
        1 => Elem::I16,
        2 => Elem::I32,
        3 => Elem::I64,
        4 => Elem::F16,
        5 => Elem::F32,
        6 => Elem::F64,
        19 => Elem::U64, // SIZE_T
        20 => Elem::U8,
        21 => Elem::I8,
        22 => Elem::BF16,
        23 => Elem::C64,
        24 => Elem::C128,
        32 => Elem::F8E4M3FN,
        33 => Elem::F8E5M2,
        36 => Elem::U16,
        37 => Elem::U32,
        38 => Elem::U64,
        _ => return None,
    })
}

/// A VarType.Type's name (`FP32`; the number when it has none).
pub fn type_name(set: &SchemaSet, code: i64) -> String {
    set.find_enum("paddle.framework.proto.VarType.Type")
        .and_then(|e| set.enum_def(e).name_of(code))
        .map_or_else(|| code.to_string(), str::to_string)
}

fn required(what: &str, offset: u64) -> DecodeError {
    DecodeError::rule(
        Rule::ProgramRequired,
        format!("{what} is missing (a required field)"),
        offset,
    )
}

/// What Paddle requires of a program: blocks, each at its own index
/// (`blocks[i].idx == i`), the global block's parent -1; every variable a
/// name and a type, every op a type, every op's argument list a parameter
/// name, every attribute a name and a type. A protobuf of another kind
/// rarely holds a block whose second field is -1.
fn validate(set: &SchemaSet, program: &Message<'_>) -> Result<()> {
    let blocks: Vec<&Message<'_>> = program.messages(set, ProgramDesc::BLOCKS).collect();
    let Some(global) = blocks.first() else {
        return Err(DecodeError::rule(
            Rule::ProgramBlocks,
            "ProgramDesc has no blocks",
            0,
        ));
    };
    if global.int(set, BlockDesc::PARENT_IDX) != Some(-1) {
        return Err(DecodeError::rule(
            Rule::ProgramBlocks,
            "the global block's parent_idx is not -1",
            global.offset,
        ));
    }
    for (i, b) in blocks.iter().enumerate() {
        let idx = b
            .int(set, BlockDesc::IDX)
            .ok_or_else(|| required("BlockDesc.idx", b.offset))?;
        if usize::try_from(idx).ok() != Some(i) {
            return Err(DecodeError::rule(
                Rule::ProgramBlocks,
                format!("blocks[{i}] has idx {idx}"),
                b.offset,
            ));
        }
        if !b.has(set, BlockDesc::PARENT_IDX) {
            return Err(required("BlockDesc.parent_idx", b.offset));
        }
        for v in b.messages(set, BlockDesc::VARS) {
            if !v.has(set, VarDesc::NAME) {
                return Err(required("VarDesc.name", v.offset));
            }
            match v.message(set, VarDesc::TYPE) {
                Some(t) if t.has(set, VarType::TYPE) => {}
                Some(t) => return Err(required("VarType.type", t.offset)),
                None => return Err(required("VarDesc.type", v.offset)),
            }
        }
        for op in b.messages(set, BlockDesc::OPS) {
            if !op.has(set, OpDesc::TYPE) {
                return Err(required("OpDesc.type", op.offset));
            }
            for field in [OpDesc::INPUTS, OpDesc::OUTPUTS] {
                for arg in op.messages(set, field) {
                    if !arg.has(set, OpDesc::Var::PARAMETER) {
                        return Err(required("OpDesc.Var.parameter", arg.offset));
                    }
                }
            }
            for a in op.messages(set, OpDesc::ATTRS) {
                if !a.has(set, OpDesc::Attr::NAME) {
                    return Err(required("OpDesc.Attr.name", a.offset));
                }
                if !a.has(set, OpDesc::Attr::TYPE) {
                    return Err(required("OpDesc.Attr.type", a.offset));
                }
            }
        }
    }
    Ok(())
}

fn decode_program<'a>(bytes: &'a [u8], opts: &FormatOptions) -> Result<Body<'a>> {
    let set = SchemaSet::builtin();
    let ctx = DecodeContext {
        allow_unknown: opts.forced,
        ..DecodeContext::strict()
    };
    let message = decode_builtin(PROGRAM, bytes, ctx)?;
    validate(set, &message)?;
    Ok(Body::Message {
        type_name: PROGRAM.into(),
        message,
        also: Vec::new(),
    })
}

/// A variable's tensor: its data type and dims (a dense tensor's, or
/// another kind's TensorDesc), if it declares one.
pub fn var_tensor(set: &SchemaSet, var: &Message<'_>) -> Option<(i64, Vec<i64>)> {
    let t = var.message(set, VarDesc::TYPE)?;
    let desc = t
        .message(set, VarType::DENSE_TENSOR)
        .and_then(|d| d.message(set, VarType::DenseTensorDesc::TENSOR))
        .or_else(|| t.message(set, VarType::SELECTED_ROWS))
        .or_else(|| {
            t.message(set, VarType::TENSOR_ARRAY)
                .and_then(|d| d.message(set, VarType::DenseTensorArrayDesc::TENSOR))
        })?;
    let dtype = desc.int(set, VarType::TensorDesc::DATA_TYPE)?;
    let dims = desc
        .scalars(set, VarType::TensorDesc::DIMS)
        .filter_map(|d| d.as_i64())
        .collect();
    Some((dtype, dims))
}

/// Whether Paddle saves the variable with the parameters.
pub fn is_saved(set: &SchemaSet, var: &Message<'_>) -> bool {
    let persistable = var
        .scalar(set, VarDesc::PERSISTABLE)
        .is_some_and(|v| v.as_i64() == Some(1));
    let ty = var
        .message(set, VarDesc::TYPE)
        .and_then(|t| t.int(set, VarType::TYPE));
    persistable && ty.is_some_and(|t| !NOT_SAVED.contains(&t))
}

/// The variables saved with the parameters, in the order of the stream:
/// the global block's, each name once, sorted bytewise.
pub fn saved_vars<'m, 'a>(
    set: &SchemaSet,
    program: &'m Message<'a>,
) -> Vec<(&'a [u8], &'m Message<'a>)> {
    let mut vars: Vec<(&'a [u8], &'m Message<'a>)> = program
        .messages(set, ProgramDesc::BLOCKS)
        .next()
        .into_iter()
        .flat_map(|b| b.messages(set, BlockDesc::VARS))
        .filter(|v| is_saved(set, v))
        .filter_map(|v| Some((v.bytes(set, VarDesc::NAME)?, v)))
        .collect();
    // Stable: a name declared twice keeps its first declaration.
    vars.sort_by(|a, b| a.0.cmp(b.0));
    vars.dedup_by(|a, b| a.0 == b.0);
    vars
}

/// `312 ops, 234 parameters`.
fn program_line(set: &SchemaSet, m: &Message<'_>) -> String {
    let ops: usize = m
        .messages(set, ProgramDesc::BLOCKS)
        .map(|b| b.field(set, BlockDesc::OPS).len())
        .sum();
    format!("{ops} ops, {} persistable vars", saved_vars(set, m).len())
}

/// A program's summary: its version, blocks, ops (of the global block,
/// and of all blocks), variables, the persistable variables Paddle saves
/// with the parameters, and the values their shapes hold.
fn program_summary(set: &SchemaSet, m: &Message<'_>) -> Summary {
    use SummaryValue as V;
    let mut s = Summary::default();
    if let Some(v) = m
        .message(set, ProgramDesc::VERSION)
        .and_then(|v| v.int(set, Version::VERSION))
    {
        s.push("version", "version", V::Int(v));
    }
    let blocks: Vec<&Message<'_>> = m.messages(set, ProgramDesc::BLOCKS).collect();
    s.push("blocks", "blocks", V::Count(blocks.len() as u64));
    let (mut ops, mut vars) = (0u64, 0u64);
    for b in &blocks {
        summary::add(&mut ops, b.field(set, BlockDesc::OPS).len() as u64);
        summary::add(&mut vars, b.field(set, BlockDesc::VARS).len() as u64);
    }
    let global_ops = blocks
        .first()
        .map_or(0, |b| b.field(set, BlockDesc::OPS).len() as u64);
    s.push(
        "ops",
        "ops",
        V::Fields(vec![
            ("graph", V::Count(global_ops)),
            ("all", V::Count(ops)),
        ]),
    );
    s.push("vars", "vars", V::Count(vars));
    let saved = saved_vars(set, m);
    let mut params = 0u64;
    for (_, v) in &saved {
        let n = var_tensor(set, v)
            .and_then(|(_, dims)| {
                let dims: Option<Vec<u64>> = dims.iter().map(|&d| u64::try_from(d).ok()).collect();
                element_count(&dims?)
            })
            .unwrap_or(0);
        summary::add(&mut params, n);
    }
    s.push(
        "persistable",
        "persistable vars",
        V::Count(saved.len() as u64),
    );
    s.push("parameters", "parameters", V::Count(params));
    s
}

/// The file beside a program that holds its parameters: `X.pdiparams` for
/// `X.pdmodel`, `__params__` or `params` for `__model__` (Paddle's names),
/// found by listing the folder: the program's own file is the one of
/// those names that holds the decoded program (`base::is_input_of`).
pub fn params_file(folder: &Folder, program: &Message<'_>) -> Option<String> {
    let names = folder.file_names();
    let same = |name: &str| {
        names.iter().any(|n| n == name)
            && ExternalRef {
                location: Some(name.to_string()),
                ..ExternalRef::default()
            }
            .load(Some(folder))
            .is_ok_and(|b| is_input_of(program, b.bytes()))
    };
    let has = |name: &str| names.iter().any(|n| n == name);
    for n in &names {
        if let Some(stem) = n.strip_suffix(".pdiparams")
            && same(&format!("{stem}.pdmodel"))
        {
            return Some(n.clone());
        }
    }
    if same("__model__") {
        return ["__params__", "params"]
            .into_iter()
            .find(|p| has(p))
            .map(str::to_string);
    }
    None
}

/// One tensor of the parameters' stream: where it starts, its data type
/// and dims as the stream's TensorDesc says, and where its values are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamTensor {
    /// The offset of its first byte (the LoD tensor's version).
    pub start: u64,
    pub data_type: i64,
    pub dims: Vec<i64>,
    /// The offset and length of its values.
    pub values: (u64, u64),
}

fn u32_at(bytes: &[u8], at: u64) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(b.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    let b = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

/// Reads one tensor of the stream at `at`, each length checked against
/// the bytes left; the error says what did not read, at which offset.
pub fn read_stream_tensor(bytes: &[u8], at: u64) -> std::result::Result<StreamTensor, String> {
    let size = bytes.len() as u64;
    let short =
        |what: &str, pos: u64| format!("{what} at offset {pos} runs past the end ({size} bytes)");
    let version = u32_at(bytes, at).ok_or_else(|| short("the LoD tensor's version", at))?;
    if version != 0 {
        return Err(format!(
            "the LoD tensor at offset {at} has version {version} (Paddle writes 0)"
        ));
    }
    let mut pos = at + 4;
    let levels = u64_at(bytes, pos).ok_or_else(|| short("the LoD level count", pos))?;
    pos += 8;
    // Each level at least 8 bytes: the count is bounded by the bytes left.
    if levels > (size - pos.min(size)) / 8 {
        return Err(format!(
            "{levels} LoD levels at offset {} do not fit",
            pos - 8
        ));
    }
    for _ in 0..levels {
        let n = u64_at(bytes, pos).ok_or_else(|| short("a LoD level's size", pos))?;
        pos += 8;
        if n > size - pos.min(size) {
            return Err(short("a LoD level", pos));
        }
        pos += n;
    }
    let version = u32_at(bytes, pos).ok_or_else(|| short("the tensor's version", pos))?;
    if version != 0 {
        return Err(format!(
            "the tensor at offset {pos} has version {version} (Paddle writes 0)"
        ));
    }
    pos += 4;
    let desc_size = u32_at(bytes, pos).ok_or_else(|| short("the TensorDesc's size", pos))?;
    let desc_size = i32::from_le_bytes(desc_size.to_le_bytes());
    let desc_len = u64::try_from(desc_size)
        .map_err(|_| format!("the TensorDesc's size at offset {pos} is {desc_size}"))?;
    pos += 4;
    let desc = usize::try_from(pos)
        .ok()
        .zip(usize::try_from(pos.saturating_add(desc_len)).ok())
        .and_then(|(s, e)| bytes.get(s..e))
        .ok_or_else(|| short("the TensorDesc", pos))?;
    let set = SchemaSet::builtin();
    let m = decode_builtin(
        "paddle.framework.proto.VarType.TensorDesc",
        desc,
        DecodeContext::strict(),
    )
    .map_err(|e| format!("the TensorDesc at offset {pos} does not read: {e}"))?;
    let data_type = m
        .int(set, VarType::TensorDesc::DATA_TYPE)
        .ok_or_else(|| format!("the TensorDesc at offset {pos} has no data_type"))?;
    let dims: Vec<i64> = m
        .scalars(set, VarType::TensorDesc::DIMS)
        .filter_map(|d| d.as_i64())
        .collect();
    pos += desc_len;
    let elem = elem_of(data_type).ok_or_else(|| {
        format!(
            "the tensor at offset {at} has data type {}, which has no fixed width",
            type_name(set, data_type)
        )
    })?;
    let length = dims
        .iter()
        .map(|&d| u64::try_from(d).ok())
        .collect::<Option<Vec<u64>>>()
        .and_then(|d| element_count(&d))
        .and_then(|n| raw_size(elem, n))
        .ok_or_else(|| format!("the tensor at offset {at} has dims {dims:?}, not a size"))?;
    if length > size - pos.min(size) {
        return Err(format!(
            "the values of the tensor at offset {at} ({length} bytes at offset {pos}) run past the end ({size} bytes)"
        ));
    }
    Ok(StreamTensor {
        start: at,
        data_type,
        dims,
        values: (pos, length),
    })
}

/// The program's parameters, each by its variable's name, their values
/// in the parameters' file beside it. The stream is read tensor by tensor
/// in the variables' order; a tensor that does not read, or whose type or
/// dims are not its variable's, leaves it and those after it unavailable,
/// saying why. A stream longer than the variables is said on the last.
fn parameters<'m, 'a>(
    set: &SchemaSet,
    root: &'m Message<'a>,
    folder: &Folder,
) -> Vec<SideTensor<'m, 'a>> {
    if root.def(set).full_name != PROGRAM {
        return Vec::new();
    }
    let vars = saved_vars(set, root);
    if vars.is_empty() {
        return Vec::new();
    }
    let Some(file) = params_file(folder, root) else {
        return Vec::new();
    };
    let whole = ExternalRef {
        location: Some(file.clone()),
        ..ExternalRef::default()
    }
    .load(Some(folder));
    let stream: std::result::Result<&[u8], String> = match &whole {
        Ok(b) => Ok(b.bytes()),
        Err(e) => Err(e.to_string()),
    };
    let mut at = 0u64;
    let mut broken: Option<String> = None;
    let count = vars.len();
    let mut out = Vec::with_capacity(count);
    for (k, (name, var)) in vars.into_iter().enumerate() {
        let name = String::from_utf8_lossy(name).into_owned();
        let declared = var_tensor(set, var);
        let (code, dims) = declared.clone().unwrap_or((-1, Vec::new()));
        let mut values = SideValues {
            type_name: type_name(set, code),
            elem: elem_of(code),
            dims,
            place: Err(String::new()),
            // Paddle's conv2d Filter is [out, in, height, width].
            kernel_order: KernelOrder::Oihw,
        };
        let read = match (&stream, &broken) {
            (Err(e), _) => Err(format!("{file}: {e}")),
            (_, Some(why)) => Err(why.clone()),
            (Ok(s), None) => read_stream_tensor(s, at).map_err(|e| format!("{file}: {e}")),
        };
        match read {
            Ok(t) => {
                at = t.values.0 + t.values.1;
                let agrees = declared
                    .as_ref()
                    .is_none_or(|(c, d)| *c == t.data_type && dims_agree(d, &t.dims));
                if agrees {
                    values.type_name = type_name(set, t.data_type);
                    values.elem = elem_of(t.data_type);
                    values.dims = t.dims.clone();
                    values.place = Ok(ExternalRef {
                        location: Some(file.clone()),
                        offset: Some(t.values.0.to_string()),
                        length: Some(t.values.1.to_string()),
                        needed: Some(t.values.1),
                        ..ExternalRef::default()
                    });
                    if k + 1 == count
                        && let Ok(s) = &stream
                        && at < s.len() as u64
                    {
                        values.place = Err(format!(
                            "{file} holds {} bytes after the last parameter's values (at offset {at}): the program does not list every tensor of the stream",
                            s.len() as u64 - at
                        ));
                    }
                } else {
                    let why = format!(
                        "{file}: the tensor at offset {} is {} {:?}, the variable {} {:?}: the stream does not follow the program",
                        t.start,
                        type_name(set, t.data_type),
                        t.dims,
                        values.type_name,
                        values.dims
                    );
                    values.place = Err(why.clone());
                    broken = Some(why);
                }
            }
            Err(why) => {
                values.place = Err(why.clone());
                broken = Some(why);
            }
        }
        out.push(SideTensor {
            name,
            message: var,
            values,
        });
    }
    out
}

/// A variable's declared dims and the stream's: equal, a declared -1
/// (a dimension set at run time) matching any.
fn dims_agree(declared: &[i64], stored: &[i64]) -> bool {
    declared.len() == stored.len()
        && declared
            .iter()
            .zip(stored)
            .all(|(&d, &s)| d == s || d == -1)
}

/// A PaddlePaddle inference program.
pub const FORMAT: Format = Format {
    id: "paddle-model",
    title: "PaddlePaddle program (inference.pdmodel, __model__)",
    schema_files: &[FRAMEWORK_FILE],
    roots: &[PROGRAM],
    decode: decode_program,
    tensor_adapters: &[],
    tensor_namers: &[],
    line: program_line,
    summary: program_summary,
    views: &[],
    side_tensors: parameters,
};
