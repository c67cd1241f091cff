//! Shared rules of the text views for long things: counts written with
//! thousands separators, long strings and lists shortened with a count of
//! what was left out (`--values all` shows everything), tensor previews cut
//! at whole rows, and the attributes whose integer is a data type.

use super::RenderOptions;

/// A count with thousands separators (`65,848`): the one number style of
/// the text views.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Characters of a string shown when it is longer than [`LONG_TEXT`].
pub const TEXT_HEAD: usize = 200;
/// Strings longer than this (in characters) are shortened.
pub const LONG_TEXT: usize = 256;
/// Items of a list shown when it is longer than [`LONG_LIST`].
pub const LIST_HEAD: usize = 32;
/// Lists longer than this are shortened.
pub const LONG_LIST: usize = 48;

/// Whether the user asked for everything (`--values all`).
fn show_all(opts: &RenderOptions) -> bool {
    opts.values == Some(u64::MAX)
}

/// A string from a file quoted as [`crate::escape::quoted`] does; past
/// [`LONG_TEXT`] characters only its start, then how much was left out.
/// Bytes that are not UTF-8 keep their hex preview (already short).
pub fn quoted_long(bytes: &[u8], opts: &RenderOptions) -> String {
    let Ok(s) = std::str::from_utf8(bytes) else {
        return crate::escape::quoted(bytes);
    };
    let chars = s.chars().count();
    if show_all(opts) || chars <= LONG_TEXT {
        return crate::escape::quoted_str(s);
    }
    let cut = s.char_indices().nth(TEXT_HEAD).map_or(s.len(), |(i, _)| i);
    let head = s.get(..cut).unwrap_or(s);
    format!(
        "{}… ({} of {} characters left out: --values all shows them)",
        crate::escape::quoted_str(head),
        grouped((chars - TEXT_HEAD) as u64),
        grouped(chars as u64)
    )
}

/// Items joined by `sep`; past [`LONG_LIST`] items only the first
/// [`LIST_HEAD`], then how many were left out.
pub fn list_long(items: &[String], sep: &str, opts: &RenderOptions) -> String {
    if show_all(opts) || items.len() <= LONG_LIST {
        return items.join(sep);
    }
    let head = items.get(..LIST_HEAD).unwrap_or(items);
    format!(
        "{}{sep}… {} more (--values all shows them)",
        head.join(sep),
        grouped((items.len() - head.len()) as u64)
    )
}

/// Items of a repeated field shown when `--values` is not given.
pub const LIST_ITEMS: u64 = 64;

/// How many items of a repeated field a text view shows: `--values N`
/// items, [`LIST_ITEMS`] without it, every one with `--values all`.
pub fn list_limit(opts: &RenderOptions) -> u64 {
    opts.values.unwrap_or(LIST_ITEMS)
}

/// `[a, b, … N more]`: the first items of a list of `total` items.
pub fn bracketed(items: &[String], total: u64) -> String {
    let more = total.saturating_sub(items.len() as u64);
    if more > 0 {
        format!("[{}, … {} more]", items.join(", "), grouped(more))
    } else {
        format!("[{}]", items.join(", "))
    }
}

/// Values a preview line holds at most.
pub const PER_LINE: u64 = 10;

/// The length of a preview row for a tensor shaped `dims`: its last axis;
/// when that is 1 (a `[64,3,1,1]` weight), the trailing axes that fit a line
/// together (rows of 3), and 0 when even those hold one value (then lines
/// hold [`PER_LINE`] values, each prefixed by its index, rather than one
/// value a line).
pub fn row_len(dims: &[u64]) -> u64 {
    match dims.last() {
        None => 0,
        Some(&d) if d != 1 => d,
        Some(_) => {
            let mut row = 1u64;
            for &d in dims.iter().rev() {
                match row.checked_mul(d) {
                    Some(r) if r <= PER_LINE && d > 0 => row = r,
                    _ => break,
                }
            }
            if row == 1 { 0 } else { row }
        }
    }
}

/// How many values of `total` to show first and last for a preview of at
/// most `limit` values, cut at whole rows of `row` values when a row fits
/// a line and the limit: a preview of 8 values of a `[64,3,7,7]` tensor shows
/// its first row of 7 rather than 4 values and 4 values.
pub fn whole_rows(total: u64, limit: u64, row: u64) -> (u64, u64) {
    if total <= limit {
        return (total, 0);
    }
    if row == 0 || row > PER_LINE || row > limit || !total.is_multiple_of(row) {
        return (limit.div_ceil(2), limit / 2);
    }
    let rows = limit / row;
    let head = rows.div_ceil(2).saturating_mul(row);
    let tail = (rows / 2).saturating_mul(row);
    (head, tail)
}

/// How many values to show of `total` when only the first values are read
/// (a nested tensor's preview): at most `limit`, cut at a whole row.
pub fn whole_head(total: u64, limit: u64, row: u64) -> u64 {
    if total <= limit {
        return total;
    }
    if row == 0 || row > PER_LINE || row > limit {
        return limit;
    }
    limit / row * row
}

/// Attributes of ONNX operators (default domain) whose
/// integer is a `TensorProto.DataType`, per the operator schemas: shown by
/// name (`to=INT64`), as Netron does.
pub const DATA_TYPE_ATTRIBUTES: &[(&str, &str)] = &[
    ("Cast", "to"),
    ("BitCast", "to"),
    ("SequenceEmpty", "dtype"),
    ("Range", "stash_type"),
    ("EyeLike", "dtype"),
    ("RandomNormal", "dtype"),
    ("RandomNormalLike", "dtype"),
    ("RandomUniform", "dtype"),
    ("RandomUniformLike", "dtype"),
    ("Multinomial", "dtype"),
    ("Bernoulli", "dtype"),
    ("QuantizeLinear", "output_dtype"),
    ("DequantizeLinear", "output_dtype"),
    ("HannWindow", "output_datatype"),
    ("HammingWindow", "output_datatype"),
    ("BlackmanWindow", "output_datatype"),
    ("MelWeightMatrix", "output_datatype"),
    ("LayerNormalization", "stash_type"),
    ("RMSNormalization", "stash_type"),
    ("Attention", "softmax_precision"),
];
// Checked against the onnx package's operator schemas (every INT attribute
// of the default domain whose description names a data type).

/// Whether attribute `attr` of operator `op` (of `domain`) holds a data type.
pub fn is_data_type_attribute(domain: &str, op: &str, attr: &str) -> bool {
    matches!(domain, "" | "ai.onnx")
        && DATA_TYPE_ATTRIBUTES
            .iter()
            .any(|(o, a)| *o == op && *a == attr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_have_separators() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(65848), "65,848");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn long_things_are_cut_unless_all_is_asked() {
        let opts = RenderOptions::default();
        let all = RenderOptions {
            values: Some(u64::MAX),
            ..Default::default()
        };
        let long = "x".repeat(LONG_TEXT + 1);
        let cut = quoted_long(long.as_bytes(), &opts);
        assert!(cut.contains("57 of 257 characters left out"), "{cut}");
        assert_eq!(quoted_long(long.as_bytes(), &all).len(), LONG_TEXT + 3);
        assert_eq!(list_limit(&opts), LIST_ITEMS);
        assert_eq!(list_limit(&all), u64::MAX);
        let items = vec!["1".to_string(), "2".to_string()];
        assert_eq!(bracketed(&items, 2), "[1, 2]");
        assert_eq!(bracketed(&items, 1002), "[1, 2, … 1,000 more]");
    }

    #[test]
    fn rows_are_whole() {
        assert_eq!(row_len(&[64, 3, 7, 7]), 7);
        assert_eq!(row_len(&[64, 3, 1, 1]), 3);
        assert_eq!(row_len(&[64, 1]), 0);
        assert_eq!(row_len(&[2, 100]), 100);
        assert_eq!(whole_rows(9408, 8, 7), (7, 0));
        assert_eq!(whole_rows(9408, 200, 7), (98, 98));
        assert_eq!(whole_rows(14, 14, 7), (14, 0));
        assert_eq!(whole_rows(100, 8, 0), (4, 4));
        assert_eq!(whole_rows(1000, 200, 10), (100, 100));
        assert_eq!(whole_head(9408, 8, 7), 7);
        assert_eq!(whole_head(9408, 8, 0), 8);
    }
}
