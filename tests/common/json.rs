//! JSON in the tests, through serde_json: `value` parses a document
//! strictly (RFC 8259: no trailing commas, bare NaN, leading zeros, raw
//! control characters or trailing bytes) into a `serde_json::Value`;
//! `JsonExt` adds the accessors serde_json lacks; `pretty` is the layout of
//! JSON in the snapshots.
//!
//! serde_json is built with `preserve_order` (keys stay in the order the
//! decoder wrote them) and `arbitrary_precision` (numbers keep their text,
//! so 64-bit integers and float text compare exactly).
//!
//! `parse` and `Json` keep the interface of the parser these tests used
//! before serde_json (a plain enum with `get`, `as_str`, `as_f64`,
//! `as_i128`, `as_array`), converted from serde_json's value, so tests
//! written against it still compile; new tests can use `value`.

use serde_json::Value;

/// Nesting deeper than this is refused rather than risking the stack of a
/// test thread.
const MAX_DEPTH: usize = 512;

/// Parses a whole document (nothing but white space after it).
pub fn value(text: &str) -> Result<Value, String> {
    let depth = depth(text);
    if depth > MAX_DEPTH {
        return Err(format!("nested {depth} levels deep, more than {MAX_DEPTH}"));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let mut values = de.into_iter::<Value>();
    let value = match values.next() {
        Some(v) => v.map_err(|e| e.to_string())?,
        None => return Err("no value".to_string()),
    };
    if values.next().is_some() {
        return Err(format!("trailing bytes at {}", values.byte_offset()));
    }
    Ok(value)
}

/// A parsed document as a plain enum (see the module's note).
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number as written.
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    /// Members in document order.
    Obj(Vec<(String, Json)>),
}

/// Parses a whole document into a [`Json`].
pub fn parse(text: &str) -> Result<Json, String> {
    value(text).map(|v| Json::from(&v))
}

impl From<&Value> for Json {
    fn from(v: &Value) -> Json {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(_) => Json::Num(v.number_text().unwrap_or_default()),
            Value::String(s) => Json::Str(s.clone()),
            Value::Array(a) => Json::Arr(a.iter().map(Json::from).collect()),
            Value::Object(m) => Json::Obj(
                m.iter()
                    .map(|(k, item)| (k.clone(), Json::from(item)))
                    .collect(),
            ),
        }
    }
}

impl Json {
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Arr(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Num(n) => n.parse().ok(),
            _ => None,
        }
    }

    pub fn as_i128(&self) -> Option<i128> {
        match self {
            Json::Num(n) => n.parse().ok(),
            _ => None,
        }
    }
}

/// How deep arrays and objects nest (brackets inside strings not counted).
fn depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Accessors over serde_json's `Value` that it does not have.
pub trait JsonExt {
    /// An integer number of any size up to 128 bits, from its text.
    fn as_i128(&self) -> Option<i128>;
    /// A number's text exactly as written.
    fn number_text(&self) -> Option<String>;
}

impl JsonExt for Value {
    fn as_i128(&self) -> Option<i128> {
        self.number_text()?.parse().ok()
    }

    fn number_text(&self) -> Option<String> {
        match self {
            // serde_json keeps the digits but writes a positive exponent as
            // `e+`; the decoder writes `e38`, so the `+` is dropped here.
            Value::Number(n) => Some(n.to_string().replace("e+", "e")),
            _ => None,
        }
    }
}

/// A string value.
pub fn str(s: &str) -> Value {
    Value::String(s.to_string())
}

/// The layout of JSON in snapshots: a value that fits on the rest of its
/// line (100 columns) is written on it, with `, ` and `: ` as the decoder
/// writes them; a longer object has one member a line, indented two spaces
/// a level; a longer array of numbers, strings and literals is packed onto
/// lines of at most 100 columns (a tensor's values stay readable); a longer
/// array of arrays or objects has one item a line. Keys in the decoder's
/// order and numbers as it wrote them; strings escaped as serde_json
/// escapes them (the same characters).
///
/// Panics (with the text) when `text` is not JSON.
pub fn pretty(text: &str) -> String {
    let value = value(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    let mut out = String::new();
    write_pretty(&mut out, &value, 0);
    out.push('\n');
    out
}

const WIDTH: usize = 100;

fn scalar(v: &Value) -> String {
    if let Some(n) = v.number_text() {
        return n;
    }
    serde_json::to_string(v).unwrap_or_else(|e| panic!("{e}"))
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

fn newline(out: &mut String, level: usize) {
    out.push('\n');
    out.push_str(&"  ".repeat(level));
}

/// `v` on one line, if that takes at most `budget` characters.
fn inline(v: &Value, budget: usize) -> Option<String> {
    let mut out = String::new();
    inline_into(&mut out, v, budget)?;
    Some(out)
}

fn inline_into(out: &mut String, v: &Value, budget: usize) -> Option<()> {
    match v {
        Value::Array(a) => {
            out.push('[');
            for (k, item) in a.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                inline_into(out, item, budget)?;
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (k, (key, item)) in m.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(&scalar(&Value::String(key.clone())));
                out.push_str(": ");
                inline_into(out, item, budget)?;
            }
            out.push('}');
        }
        _ => out.push_str(&scalar(v)),
    }
    (out.len() <= budget).then_some(())
}

fn write_pretty(out: &mut String, v: &Value, level: usize) {
    // The column this value starts at (after its key), and room for a
    // comma after it.
    let column = out.len() - out.rfind('\n').map_or(0, |i| i + 1);
    if let Some(line) = inline(v, WIDTH.saturating_sub(column + 1)) {
        out.push_str(&line);
        return;
    }
    match v {
        Value::Object(m) => {
            out.push('{');
            for (k, (key, item)) in m.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                out.push_str(&scalar(&Value::String(key.clone())));
                out.push_str(": ");
                write_pretty(out, item, level + 1);
            }
            newline(out, level);
            out.push('}');
        }
        Value::Array(a) if a.iter().all(is_scalar) => {
            out.push('[');
            let indent = 2 * (level + 1);
            let mut line = 0usize;
            for (k, item) in a.iter().map(scalar).enumerate() {
                if k == 0 {
                    newline(out, level + 1);
                    line = indent;
                } else if line + 2 + item.len() + 1 > WIDTH {
                    // (+ 1: room for the comma that may end the line)
                    out.push(',');
                    newline(out, level + 1);
                    line = indent;
                } else {
                    out.push_str(", ");
                    line += 2;
                }
                out.push_str(&item);
                line += item.len();
            }
            newline(out, level);
            out.push(']');
        }
        Value::Array(a) => {
            out.push('[');
            for (k, item) in a.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                newline(out, level + 1);
                write_pretty(out, item, level + 1);
            }
            newline(out, level);
            out.push(']');
        }
        _ => out.push_str(&scalar(v)),
    }
}
