//! A format's [`Summary`] as people read it: the lines the text view
//! prints as its header and the explorer draws, made here once (`--json`
//! writes the summary itself, typed: `json::write_summary`).

use super::RenderOptions;
use super::elide::{self, grouped};
use super::fmt::name_text;
use crate::escape::{plain, plain_bytes, quoted};
use crate::formats::onnx;
use crate::formats::summary::{Item, Summary, Value};
use crate::schema::SchemaSet;

/// One line of a summary as the text view prints it: the item's key, its
/// label and its value as text (counts with thousands separators, strings
/// from the file escaped, long ones cut as `--values` says).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub key: &'static str,
    pub label: &'static str,
    pub text: String,
}

/// The lines of a summary of a file of the format `format` (an item may
/// give more than one line: one per ONNX device configuration). An ONNX
/// model's items read as the model view's header always has; the
/// TensorFlow formats' as `label: text`.
pub fn lines(format: &str, s: &Summary, opts: &RenderOptions) -> Vec<Line> {
    let mut out = Vec::new();
    for item in &s.items {
        let texts = if format == onnx::MODEL.id {
            onnx_texts(item, s, opts)
        } else {
            tf_texts(item, opts)
        };
        out.extend(texts.into_iter().map(|text| Line {
            key: item.key,
            label: item.label,
            text,
        }));
    }
    out
}

/// The text of a [`Value::Text`], escaped for the terminal (`""` for a
/// value of another kind).
fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::Text(b)) => plain_bytes(b),
        _ => String::new(),
    }
}

/// The bytes of a [`Value::Text`].
fn bytes_of(v: Option<&Value>) -> &[u8] {
    match v {
        Some(Value::Text(b)) => b,
        _ => &[],
    }
}

/// The items of a [`Value::List`].
fn list_of(v: Option<&Value>) -> &[Value] {
    match v {
        Some(Value::List(items)) => items,
        _ => &[],
    }
}

/// The number of an integer value (0 when absent).
fn int_of(v: Option<&Value>) -> i64 {
    match v {
        Some(Value::Int(n)) => *n,
        Some(Value::Count(n)) => i64::try_from(*n).unwrap_or(i64::MAX),
        _ => 0,
    }
}

/// The text of a summary item of a model (one per line: a device
/// configuration each), as the model view's header and the explorer show
/// it.
fn onnx_texts(item: &Item, s: &Summary, opts: &RenderOptions) -> Vec<String> {
    let set = SchemaSet::builtin();
    let v = &item.value;
    let utf8 = |b: &[u8]| std::str::from_utf8(b).ok().map(|t| plain(t).into_owned());
    let count = |key: &str| v.count_of(key).unwrap_or(0);
    let text = match item.key {
        "ir_version" => {
            let n = int_of(Some(v));
            match set
                .find_enum("onnx.Version")
                .and_then(|e| set.enum_def(e).name_of(n))
            {
                Some(name) => format!("{n} ({name})"),
                None => n.to_string(),
            }
        }
        "opsets" => list_of(Some(v))
            .iter()
            .map(|o| {
                let domain = utf8(bytes_of(o.part("domain")))
                    .filter(|d| !d.is_empty())
                    .unwrap_or_else(|| "ai.onnx".to_string());
                match o.part("version") {
                    Some(n) => format!("{domain} {}", int_of(Some(n))),
                    None => domain,
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
        "producer" => ["name", "version"]
            .iter()
            .filter_map(|k| v.part(k).and_then(|t| utf8(bytes_of(Some(t)))))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
        "domain" => quoted(bytes_of(Some(v))),
        "doc" => elide::quoted_long(bytes_of(Some(v)), opts),
        "metadata" => list_of(Some(v))
            .iter()
            .map(|e| {
                let mut t = format!(
                    "{} = {}",
                    name_text(bytes_of(e.part("key"))),
                    elide::quoted_long(bytes_of(e.part("value")), opts)
                );
                for u in list_of(e.part("unknown_fields")) {
                    t.push_str(&format!(" (+ unknown field {})", int_of(Some(u))));
                }
                t
            })
            .collect::<Vec<_>>()
            .join(", "),
        "nodes" => {
            let (main, all) = (count("graph"), count("all"));
            let mut t = plural(main, "node", "nodes");
            if all > main {
                t.push_str(&format!(
                    " ({} with subgraphs, functions and training)",
                    grouped(all)
                ));
            }
            t
        }
        "initializers" => {
            let mut t = plural(count("dense"), "initializer", "initializers");
            let sparse = count("sparse");
            if sparse > 0 {
                t.push_str(&format!(" + {sparse} sparse"));
            }
            // Weights held by Constant nodes (PaddleOCR, silero-vad): said
            // next to the initializers and counted with the parameters.
            let constants = count("constant_nodes");
            if constants > 0 {
                t.push_str(&format!(
                    " (and {} holding {})",
                    plural(constants, "Constant node", "Constant nodes"),
                    plural(count("constant_values"), "value", "values")
                ));
            }
            t
        }
        "parameters" => {
            let inits = s.get("initializers");
            let of = |key: &str| inits.and_then(|i| i.count_of(key)).unwrap_or(0);
            let mut notes: Vec<&str> = Vec::new();
            if of("sparse") > 0 {
                notes.push("sparse: non-zeros");
            }
            if of("constant_nodes") > 0 {
                notes.push("with constants");
            }
            let n = grouped(v.count().unwrap_or(0));
            if notes.is_empty() {
                n
            } else {
                format!("{n} ({})", notes.join(", "))
            }
        }
        "functions" => list_of(Some(v))
            .iter()
            .map(|f| {
                let name = name_text(bytes_of(f.part("name")));
                let mut t = match utf8(bytes_of(f.part("domain"))).filter(|d| !d.is_empty()) {
                    Some(d) => format!("{d}.{name}"),
                    None => name,
                };
                let overload = bytes_of(f.part("overload"));
                if !overload.is_empty() {
                    t.push(':');
                    t.push_str(&name_text(overload));
                }
                t
            })
            .collect::<Vec<_>>()
            .join(", "),
        "configuration" => {
            return list_of(Some(v))
                .iter()
                .map(|c| {
                    let devices = list_of(c.part("devices"))
                        .iter()
                        .map(|d| quoted(bytes_of(Some(d))))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let n = int_of(c.part("num_devices")).max(0) as u64;
                    format!(
                        "{}: {} [{devices}]",
                        name_text(bytes_of(c.part("name"))),
                        plural(n, "device", "devices")
                    )
                })
                .collect();
        }
        _ => match v {
            Value::Count(n) => grouped(*n),
            Value::Int(n) => n.to_string(),
            _ => text_of(Some(v)),
        },
    };
    vec![text]
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

/// The text of a summary item of a SavedModel or GraphDef, as the view's
/// header and the explorer show it.
fn tf_texts(item: &Item, opts: &RenderOptions) -> Vec<String> {
    let v = &item.value;
    let count = |key: &str| v.count_of(key).unwrap_or(0);
    let text = match item.key {
        "versions" => {
            let mut t = format!(
                "producer {}, min_consumer {}",
                int_of(v.part("producer")),
                int_of(v.part("min_consumer"))
            );
            let bad = list_of(v.part("bad_consumers"));
            if !bad.is_empty() {
                let limit = usize::try_from(elide::list_limit(opts)).unwrap_or(usize::MAX);
                let items: Vec<String> = bad
                    .iter()
                    .take(limit)
                    .map(|x| int_of(Some(x)).to_string())
                    .collect();
                t.push_str(&format!(
                    ", bad_consumers {}",
                    elide::bracketed(&items, bad.len() as u64)
                ));
            }
            t
        }
        "nodes" | "ops" => {
            let (own, all) = (count("graph"), count("all"));
            let mut t = grouped(own);
            if all > own {
                // A Paddle program's sub-blocks, TensorFlow's functions.
                let with = if item.key == "ops" {
                    "in all blocks"
                } else {
                    "with functions"
                };
                t.push_str(&format!(" ({} {with})", grouped(all)));
            }
            t
        }
        "constants" => {
            let values = count("elements");
            format!(
                "{} holding {} value{}",
                grouped(count("nodes")),
                grouped(values),
                if values == 1 { "" } else { "s" }
            )
        }
        "tag_sets" => list_of(Some(v))
            .iter()
            .map(|tags| {
                let tags: Vec<String> = list_of(Some(tags))
                    .iter()
                    .map(|t| text_of(Some(t)))
                    .collect();
                format!("{{{}}}", tags.join(", "))
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => match v {
            Value::Count(n) => grouped(*n),
            Value::Int(n) => n.to_string(),
            _ => text_of(Some(v)),
        },
    };
    vec![text]
}
