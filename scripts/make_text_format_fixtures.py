#!/usr/bin/env python3
"""Writes tests/fixtures/text-format/: files in protobuf's text format.

- Made by the official writers from binary fixtures (each read by the
  runtime first): `graph.pbtxt` (tf.io.write_graph(as_text=True) of the
  frozen dense GraphDef), `graph_all_attr_kinds.pbtxt` (the same of the
  GraphDef with every attribute kind), `model.textproto`
  (onnx.save(format="textproto") of onnx-model/everything.onnx),
  `tensor_one_line.pbtxt` (MessageToString(as_one_line=True) of the
  seed's example tensor).
- Written here by hand (the strings below): the specification's examples
  and corner cases (`spec_*.txtpb`, read with `spec.proto`), the corners of
  the grammar on built-in messages (`corners_*.pbtxt`), and one malformed
  file per error class (`bad_*.pbtxt`).

Usage: scripts/make_text_format_fixtures.py   (needs protobuf, onnx,
tensorflow; run from the repository's root)
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import onnx  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import graph_pb2  # noqa: E402

FIX = "tests/fixtures"
OUT = os.path.join(FIX, "text-format")


def parsed(cls, path):
    m = cls()
    with open(os.path.join(FIX, path), "rb") as f:
        m.ParseFromString(f.read())
    return m


def write(name, text):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())


SPEC_PROTO = r'''// The messages of the Text Format Language Specification's examples
// (protobuf.dev/reference/protobuf/textformat-spec), for the fixtures
// spec_*.txtpb.
syntax = "proto2";
package spec;

import "google/protobuf/any.proto";

enum DataType { DATA_FLOAT = 0; DATA_HALF = 1; }
enum Format { TENSOR_NCHW = 0; TENSOR_NHWC = 1; }

message Input {
  repeated int32 dimension = 1;
  optional DataType data_type = 2;
  optional Format format = 3;
}

message ConvolutionBenchmark {
  optional string label = 1;
  optional Input input = 2;
}

message Benchmarks {
  repeated ConvolutionBenchmark convolution_benchmark = 1;
}

enum Kind { DOG = 0; CAT = 1; LIZARD = 2; }

message Pet {
  optional Kind kind = 1;
  optional string name = 2;
  optional float tail_wagginess = 3;
  optional int32 legs = 4;
}

message Person {
  optional string name = 1;
  repeated Pet pet = 2;
  optional string string_value_with_escape = 3;
  repeated string repeated_values = 4;
  optional string quote = 5;
  optional string a_string = 6;
  optional string no_whitespace = 7;
  repeated int32 repeated_field = 8;
  optional float value = 9;
  extensions 100 to 199;
}

extend Person {
  optional int32 ext_field = 100;
  optional Pet ext_pet = 101;
}

message MessageWithGroup {
  optional group MyGroup = 1 {
    optional int32 my_value = 1;
  }
}

message MessageWithMap {
  map<string, int32> my_map = 1;
}

message OneofExample {
  message MessageWithOneof {
    optional string not_part_of_oneof = 1;
    oneof Example {
      string first_oneof_field = 2;
      string second_oneof_field = 3;
    }
  }
  repeated MessageWithOneof message = 1;
}

message WithAny {
  optional int32 local_field = 1;
  optional google.protobuf.Any any_value = 2;
  repeated google.protobuf.Any more = 3;
}

message Numbers {
  repeated int32 i32 = 1;
  repeated int64 i64 = 2;
  repeated uint32 u32 = 3;
  repeated uint64 u64 = 4;
  repeated sint32 s32 = 5;
  repeated sint64 s64 = 6;
  repeated fixed32 f32 = 7;
  repeated sfixed64 sf64 = 8;
  repeated float fl = 9;
  repeated double db = 10;
  repeated bool b = 11;
  repeated bytes by = 12;
}
'''

SPEC = {
    # The specification's first example.
    "spec_example.txtpb": '''# proto-file: spec.proto
# proto-message: spec.Benchmarks
convolution_benchmark {
  label: "NHWC_128x20x20x56x160"
  input {
    dimension: [128, 56, 20, 20]
    data_type: DATA_HALF
    format: TENSOR_NHWC
  }
}
''',
    # Its example of a text format file, with a sign split from its
    # number, adjacent strings and `<>`.
    "spec_file.txtpb": '''# This is an example of Protocol Buffer's text format.
# Unlike .proto files, only shell-style line comments are supported.

name: "John Smith"

pet {
  kind: DOG
  name: "Fluffy"
  tail_wagginess: 0.65f
}

pet <
  kind: LIZARD
  name: "Lizzy"
  legs: 4
>

string_value_with_escape: "valid \\n escape"
repeated_values: [ "one", "two", "three" ]
quote:
    "When we got into office, the thing that surprised me most was to find "
    "that things were just as bad as we'd been saying they were.\\n\\n"
    "  -- John F. Kennedy"
a_string: "first part" 'second part'
          "third part"
no_whitespace: "first""second"'third''fourth'
repeated_field: 1
repeated_field: 2
repeated_field: [3, 4, 5]
repeated_field: 6
repeated_field: [7, 8, 9]
value: -
  # comment
  2.0
[spec.ext_field]: 20
[spec.ext_pet] { kind: CAT }
''',
    "spec_group.txtpb": '''MyGroup {
  my_value: 1
}
''',
    "spec_map.txtpb": '''my_map { key: "entry1" value: 1 }
my_map { key: "entry2" value: 2 }

# You can also use the list syntax
my_map: [
  { key: "entry3" value: 3 },
  { key: "entry4" value: 4 }
]
''',
    "spec_oneof.txtpb": '''# Valid: only one field from the Example oneof is set.
message {
  not_part_of_oneof: "always valid"
  first_oneof_field: "valid by itself"
}

# Valid: the other oneof field is set.
message {
  not_part_of_oneof: "always valid"
  second_oneof_field: "valid by itself"
}
''',
    "spec_any.txtpb": '''local_field: 10

# An Any value using regular fields.
more {
  type_url: "type.googleapis.com/spec.Pet"
  value: "\\x0a\\x05hello"  # serialized bytes of spec.Pet
}

# The same value using Any expansion
any_value {
  [type.googleapis.com/spec.Pet] {
    name: "hello"
  }
}
''',
    # Every integer and float spelling, on each type.
    "spec_numbers.txtpb": '''i32: [0, -2147483648, 2147483647, 0x7fffffff, -0x80000000, 017, -017]
i64: [-9223372036854775808, 9223372036854775807, 0x7FFFFFFFFFFFFFFF]
u32: [0, 4294967295, 0xFFFFFFFF, 00]
u64: [18446744073709551615, 0xffffffffffffffff]
s32: [-1, 1, -2147483648]
s64: [-1, -9223372036854775808]
f32: [4294967295, 0x10]
sf64: [-1, -9223372036854775808]
fl: [1, 1.5, -1.5, 1e3, 1E-3, .5, 5., 10f, 1.0F, inf, -inf, INF, Infinity, -infinity, nan, NaN, -nan, 1e40, -1e40, 0.1, 3.4028235e38]
db: [0.1, 1e308, 1e309, -0.0, 123456789012345678901234567890]
b: [true, false, True, False, t, f, 1, 0, 0x1, 00]
by: "\\a\\b\\f\\n\\r\\t\\v\\?\\\\\\'\\"\\0\\12\\123\\1234\\x1\\x12\\x123\\u00e9\\U0001F600\\ud83d\\ude00"
''',
}

CORNERS = {
    # A GraphDef: `:` before messages, `<>`, `;` and `,`, a map entry as
    # a list, an enum by number, a header naming the message.
    "corners_graph.pbtxt": '''# proto-message: tensorflow.GraphDef
node: <
  name: "c"; op: "Const",
  attr: [{ key: "dtype" value { type: 1 } }, { key: "value", value: {
    tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
             float_val: [1, -2.5e0, inf, nan] } } }]
>
node { name: 'x' op: 'Identity' input: "c" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 0x10 min_consumer: 010 }
''',
    # An ONNX tensor whose name is split in parts with escapes, its data
    # type a number, its raw bytes escaped in octal and hex.
    "corners_tensor.pbtxt": '''dims: [2, 2]  # a list for a repeated field
data_type: 1
name: "w" '\\x65ights' "\\u00e9"
raw_data: "\\000\\000\\200?\\000\\000\\000@\\x00\\x00\\x40\\x40\\000\\000\\200@"
''',
}

BAD = {
    "bad_syntax_colon.pbtxt": 'dims: 2\ndata_type 1\n',
    "bad_syntax_unclosed.pbtxt": 'node {\n  name: "a"\n  op: "Const"\n',
    "bad_unterminated_string.pbtxt": 'node {\n  name: "a\n  op: "Const"\n}\n',
    "bad_escape.pbtxt": 'node { name: "a\\qb" op: "Const" }\n',
    "bad_unknown_field.pbtxt": 'node {\n  name: "a"\n  op: "Const"\n  devise: "/cpu:0"\n}\n',
    "bad_duplicate.pbtxt": 'dims: 1\ndata_type: 1\ndata_type: 1\nfloat_data: 1\n',
    "bad_oneof.pbtxt": 'node {\n  name: "a"\n  op: "Const"\n  attr { key: "k" value { s: "x" i: 1 } }\n}\n',
    "bad_range.pbtxt": 'node { name: "a" op: "Const" attr { key: "k" value { i: 9223372036854775808 } } }\n',
    "bad_enum_name.pbtxt": 'node { name: "a" op: "Const" attr { key: "T" value { type: DT_FLOATT } } }\n',
    "bad_not_utf8_byte.pbtxt": b'node {\n  name: "caf\xe9"\n  op: "Const"\n}\n',
    "bad_string_not_utf8.pbtxt": 'node { name: "\\377" op: "Const" }\n',
    "bad_smart_quotes.pbtxt": 'node { name: \u201ca\u201d op: "Const" }\n',
    "bad_number_ident.pbtxt": 'dims: 10bar\n',
    # Parsed, then turned down by the format's rules: placed at its line.
    "bad_tensor_size.pbtxt": 'dims: 3\ndata_type: 1\nname: "short"\nraw_data: "\\000\\000\\200?"\n',
    "bad_no_message.prototxt": 'name: "LeNet"\nlayer {\n  name: "data"\n  type: "Input"\n}\n',
    "bad_any_type.pbtxt": ('saved_model_schema_version: 1\nmeta_graphs {\n  asset_file_def {\n  }\n'
                           '  object_graph_def {\n    nodes {\n      user_object {\n        identifier: "x"\n'
                           '      }\n    }\n  }\n  collection_def {\n    key: "c"\n    value {\n      any_list {\n'
                           '        value { [type.googleapis.com/no.Such] { } }\n      }\n    }\n  }\n}\n'),
    "bad_header_message.pbtxt": '# proto-message: caffe.NetParameter\nname: "x"\n',
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name != "README.md":
            os.remove(os.path.join(OUT, name))
    g = parsed(graph_pb2.GraphDef, "schemaless/sample/tf_fg_dense_frozen_frozen_graph.pb")
    tf.io.write_graph(g, OUT, "graph.pbtxt", as_text=True)
    g = parsed(graph_pb2.GraphDef, "schemaless/sample/tf_fg_all_attr_kinds_frozen_graph.pb")
    tf.io.write_graph(g, OUT, "graph_all_attr_kinds.pbtxt", as_text=True)
    m = onnx.load(os.path.join(FIX, "onnx-model/everything.onnx"))
    onnx.save(m, os.path.join(OUT, "model.textproto"), format="textproto")
    t = parsed(onnx.TensorProto, "example_x_3x4x5.pb")
    write("tensor_one_line.pbtxt", text_format.MessageToString(t, as_one_line=True))
    write("spec.proto", SPEC_PROTO)
    for table in (SPEC, CORNERS, BAD):
        for name, text in table.items():
            write(name, text)


if __name__ == "__main__":
    main()
