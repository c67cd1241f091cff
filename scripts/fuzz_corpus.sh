#!/bin/sh
# Builds the starting corpus of the fuzz targets from the test fixtures
# (into fuzz/corpus/, which git ignores). Run from the repository root:
#     sh scripts/fuzz_corpus.sh
# With grpcio-tools installed (python3 -m grpc_tools.protoc), the built-in
# schemas are also compiled into descriptor sets for `descriptor_set`.
set -eu
out=fuzz/corpus
mkdir -p "$out/decode" "$out/schemaless" "$out/tensor_outputs" \
    "$out/proto_schema" "$out/descriptor_set"
seed() { # seed TARGET FILE [NAME]
    name=${3:-$(basename "$2")}
    cp "$2" "$1/$name"
}
# Every binary fixture under 64 KiB, for the readers of whole files.
find tests/fixtures -type f -size -64k \
    ! -name '*.md' ! -name '*.json' ! -name '*.rs' ! -name '*.proto' \
    ! -name '*.txtpb' ! -name '*.desc' | sort | while read -r f; do
    name=$(echo "$f" | sed 's|^tests/fixtures/||; s|/|_|g')
    for t in decode schemaless tensor_outputs; do seed "$out/$t" "$f" "$name"; done
done
# .proto text alone, and followed by a NUL and a message of that schema.
for p in schemas/*.proto tests/fixtures/user-schema/*.proto \
    tests/fixtures/user-schema/include/common/*.proto; do
    seed "$out/proto_schema" "$p" "$(basename "$p")"
done
cat tests/fixtures/user-schema/legacy.proto > "$out/proto_schema/legacy+record"
printf '\0' >> "$out/proto_schema/legacy+record"
cat tests/fixtures/user-schema/record.pb >> "$out/proto_schema/legacy+record"
cat schemas/onnx-tensor.proto > "$out/proto_schema/onnx-tensor+example"
printf '\0' >> "$out/proto_schema/onnx-tensor+example"
cat tests/fixtures/example_x_3x4x5.pb >> "$out/proto_schema/onnx-tensor+example"
# Descriptor sets: a little-endian u16 length, the set, then a message.
with_len() { # with_len SET MESSAGE OUT
    python3 -c 'import sys; n = len(open(sys.argv[1], "rb").read()); sys.stdout.buffer.write(min(n, 65535).to_bytes(2, "little"))' "$1" > "$3"
    cat "$1" "$2" >> "$3"
}
us=tests/fixtures/user-schema
with_len "$us/shapes.desc" "$us/shape.pb" "$out/descriptor_set/shapes+shape"
with_len "$us/shapes.desc" "$us/shape_unknown.pb" "$out/descriptor_set/shapes+shape_unknown"
with_len "$us/legacy.desc" "$us/record.pb" "$out/descriptor_set/legacy+record"
if python3 -c 'import grpc_tools' 2>/dev/null; then
    tmp=$(mktemp -d)
    for p in onnx-tensor onnx-data onnx tf-framework; do
        if python3 -m grpc_tools.protoc -Ischemas -o "$tmp/$p.desc" "$p.proto" 2>/dev/null; then
            with_len "$tmp/$p.desc" tests/fixtures/example_x_3x4x5.pb "$out/descriptor_set/$p+example"
        fi
    done
    rm -rf "$tmp"
fi
for t in decode schemaless tensor_outputs proto_schema descriptor_set; do
    echo "$out/$t: $(ls "$out/$t" | wc -l) files"
done
