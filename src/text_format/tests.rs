//! The encoder against a small schema: the binary form of each spelling,
//! and the errors, checked by their check and position.

use super::{encode, line_column};
use crate::schema::SchemaSet;

const SCHEMA: &str = r#"
syntax = "proto2";
package t;
enum Color { RED = 0; GREEN = 1; BLUE = 2; }
message Inner { optional int32 a = 1; optional string s = 2; }
message M {
  optional int32 i32 = 1;
  optional int64 i64 = 2;
  optional uint32 u32 = 3;
  optional uint64 u64 = 4;
  optional sint32 s32 = 5;
  optional sint64 s64 = 6;
  optional fixed32 f32 = 7;
  optional fixed64 f64 = 8;
  optional sfixed32 sf32 = 9;
  optional sfixed64 sf64 = 10;
  optional float fl = 11;
  optional double db = 12;
  optional bool b = 13;
  optional string str = 14;
  optional bytes by = 15;
  optional Color color = 16;
  optional Inner inner = 17;
  repeated Inner inners = 18;
  repeated int32 ints = 19;
  repeated int32 packed_ints = 20 [packed = true];
  map<string, int32> counts = 21;
  oneof choice { int32 one = 22; string two = 23; }
  optional group MyGroup = 24 { optional int32 g = 1; }
  repeated M kids = 25;
  extensions 100 to 200;
}
extend M {
  optional int32 ext_scalar = 100;
  repeated Inner ext_messages = 101;
}
message Scope {
  extend M { optional string nested_ext = 102; }
}
"#;

fn set() -> SchemaSet {
    SchemaSet::from_files([("t.proto".to_string(), SCHEMA.to_string())]).unwrap()
}

fn bin(text: &str) -> Vec<u8> {
    let set = set();
    let root = set.find_message("t.M").unwrap();
    encode(&set, root, text.as_bytes(), 100).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn err(text: &str) -> (String, u64, u64, String) {
    let set = set();
    let root = set.find_message("t.M").unwrap();
    let e = encode(&set, root, text.as_bytes(), 100).expect_err(text);
    let (l, c) = e.line_column().unwrap();
    (e.check().to_string(), l, c, e.to_string())
}

#[test]
fn scalars_as_the_wire_writes_them() {
    assert_eq!(
        bin("i32: -1"),
        [8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1]
    );
    assert_eq!(bin("i64: 0x7f"), [16, 0x7f]);
    assert_eq!(bin("u32: 017"), [24, 15]);
    assert_eq!(
        bin("u64: 18446744073709551615"),
        [32, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1]
    );
    assert_eq!(bin("s32: -1"), [40, 1]);
    assert_eq!(bin("s64: - 2"), [48, 3]);
    assert_eq!(bin("f32: 1"), [61, 1, 0, 0, 0]);
    assert_eq!(
        bin("sf64: -1"),
        [81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
    );
    assert_eq!(bin("fl: 1.5f"), [93, 0, 0, 0xc0, 0x3f]);
    assert_eq!(bin("fl: -inf"), [93, 0, 0, 0x80, 0xff]);
    assert_eq!(bin("db: 10"), [97, 0, 0, 0, 0, 0, 0, 0x24, 0x40]);
    assert_eq!(bin("b: true"), [104, 1]);
    assert_eq!(bin("b: 0"), [104, 0]);
    assert_eq!(bin("color: BLUE"), [128, 1, 2]);
    assert_eq!(bin("color: 1"), [128, 1, 1]);
}

#[test]
fn strings_joined_and_unescaped() {
    assert_eq!(bin(r#"str: "a" 'b'"c""#), [114, 3, b'a', b'b', b'c']);
    assert_eq!(bin(r#"by: "\000\x01\377""#), [122, 3, 0, 1, 0xff]);
    assert_eq!(bin(r#"str: "\u00e9""#), [114, 2, 0xc3, 0xa9]);
    // 200 escapes of one byte each: room for a two-byte length, one used.
    let text = format!("by: \"{}\"", "\\001".repeat(100));
    let b = bin(&text);
    assert_eq!(&b[..2], [122, 100]);
    assert_eq!(b.len(), 102);
}

#[test]
fn messages_lists_maps_groups_and_separators() {
    assert_eq!(bin("inner { a: 1 }"), [138, 1, 2, 8, 1]);
    assert_eq!(
        bin("inner: < a: 1; s: 'x', >"),
        [138, 1, 5, 8, 1, 18, 1, b'x']
    );
    assert_eq!(
        bin("inners [{a: 1}, {a: 2}]"),
        [146, 1, 2, 8, 1, 146, 1, 2, 8, 2]
    );
    assert_eq!(bin("inners: []"), [] as [u8; 0]);
    assert_eq!(
        bin("ints: [1, 2] ints: 3"),
        [152, 1, 1, 152, 1, 2, 152, 1, 3]
    );
    assert_eq!(
        bin("packed_ints: [1, 2] packed_ints: 3"),
        [162, 1, 3, 1, 2, 3]
    );
    assert_eq!(
        bin("packed_ints: 1 i32: 0 packed_ints: 2"),
        [162, 1, 1, 1, 8, 0, 162, 1, 1, 2]
    );
    assert_eq!(
        bin("counts { key: 'a' value: 1 }"),
        [170, 1, 5, 10, 1, b'a', 16, 1]
    );
    assert_eq!(bin("MyGroup { g: 1 }"), [195, 1, 8, 1, 196, 1]);
    assert_eq!(bin("# c\n\n  # only comments\n"), [] as [u8; 0]);
    assert_eq!(bin("[t.ext_scalar]: 5"), [160, 6, 5]);
    assert_eq!(
        bin("[t.ext_messages] { a: 1 } [t.ext_messages] <>"),
        [170, 6, 2, 8, 1, 170, 6, 0]
    );
    assert_eq!(bin("[t.Scope.nested_ext]: 'x'"), [178, 6, 1, b'x']);
    // A nested message of 200 bytes: a two-byte length, put in place.
    let text = format!("inner {{ s: '{}' }}", "x".repeat(200));
    let b = bin(&text);
    assert_eq!(&b[..4], [138, 1, 203, 1]);
    assert_eq!(&b[4..7], [18, 200, 1]);
    assert_eq!(b.len(), 207);
}

#[test]
fn errors_say_where_and_why() {
    assert_eq!(err("bogus: 1").0, "field");
    assert!(
        err("i23: 1").3.contains("closest is \"i32\""),
        "{}",
        err("i23: 1").3
    );
    let (check, line, column, _) = err("i32: 1\ni32: 2");
    assert_eq!((check.as_str(), line, column), ("duplicate", 2, 1));
    assert_eq!(err("one: 1 two: 'x'").0, "duplicate");
    assert_eq!(err("i32: 2147483648").0, "value");
    assert_eq!(err("u32: -1").0, "value");
    assert_eq!(err("i32: 1.5").0, "value");
    assert_eq!(err("color: PURPLE").0, "value");
    assert_eq!(err("color: 7").0, "value");
    assert_eq!(err("str: 'abc").0, "syntax");
    assert_eq!(err("str: '\\q'").0, "escape");
    assert_eq!(err("str: '\\377'").0, "utf-8");
    assert_eq!(err("i32 1").0, "syntax");
    assert_eq!(err("inner { a: 1").0, "syntax");
    assert_eq!(err("i32: [1]").0, "syntax");
    assert_eq!(err("}").0, "syntax");
    assert_eq!(err("[t.ext]: 1").0, "type");
    assert_eq!(err("[t.ext_scalar]: 1 [t.ext_scalar]: 2").0, "duplicate");
    let (check, line, column, shown) = err("inner {\n\tbogus: 1 }");
    assert_eq!((check.as_str(), line, column), ("field", 2, 9));
    assert!(shown.contains("M.inner"), "{shown}");
    let deep = "kids {".repeat(101);
    assert!(!bin(&format!("{}{}", "kids {".repeat(100), "}".repeat(100))).is_empty());
    assert_eq!(err(&deep).0, "depth");
}

#[test]
fn columns_as_protoc_counts_them() {
    assert_eq!(line_column(b"a\n\tb", 3), (2, 9));
    assert_eq!(line_column("s: \"é\" zz".as_bytes(), 8), (1, 9));
    assert_eq!(line_column(b"abc", 0), (1, 1));
}
