#!/bin/sh
# Builds the starting corpus of the fuzz targets from the test fixtures
# (into fuzz/corpus/, which git ignores). Run from the repository root:
#     sh scripts/fuzz_corpus.sh
# With grpcio-tools installed (python3 -m grpc_tools.protoc), the built-in
# schemas are also compiled into descriptor sets for `descriptor_set`.
set -eu
out=fuzz/corpus
mkdir -p "$out/decode" "$out/schemaless" "$out/tensor_outputs" \
    "$out/proto_schema" "$out/descriptor_set" "$out/api" \
    "$out/tf_bundle" "$out/tf_record" "$out/text_format" "$out/facade"
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
# The explorer's API: a flags byte (1: served, 2: uploaded), a u16 length,
# the requests (blocks separated by an empty line; the page's calls in
# web/), then the file. Keys: 0/file.pb (in the served folder), 1
# (the served file itself), u1 (the upload).
api_seed() { # api_seed FILE OUT AS
    printf 'GET /api/files\n\nGET /api/open?f=0/file.pb&as=%s\n\nGET /api/tensor?f=1&as=%s&t=0\n\nGET /api/values?f=u1&as=%s&t=0&offset=1&count=8&rows=2&stride=4\n\nGET /api/stats?f=0/file.pb&as=%s&t=0\n\nGET /api/picture?f=1&as=%s&t=0\n\nGET /api/text?f=u1&as=%s&values=3\n\nGET /api/hex?f=1&offset=2&count=64\n\nPOST /api/close?f=u1\n\nGET /api/open?f=u1\n' \
        "$3" "$3" "$3" "$3" "$3" "$3" > "$out/api/.requests"
    python3 -c 'import sys; n = len(open(sys.argv[1], "rb").read()); sys.stdout.buffer.write(bytes([3]) + n.to_bytes(2, "little"))' "$out/api/.requests" > "$2"
    cat "$out/api/.requests" "$1" >> "$2"
}
find tests/fixtures -type f -size -16k \
    ! -name '*.md' ! -name '*.json' ! -name '*.rs' ! -name '*.proto' \
    ! -name '*.txtpb' ! -name '*.desc' | sort | while read -r f; do
    name=$(echo "$f" | sed 's|^tests/fixtures/||; s|/|_|g')
    api_seed "$f" "$out/api/$name" auto
done
api_seed tests/fixtures/example_x_3x4x5.pb "$out/api/as-protobuf" protobuf
api_seed tests/fixtures/example_x_3x4x5.pb "$out/api/as-onnx-tensor" onnx-tensor
rm -f "$out/api/.requests"
# Tensor bundles: flags 3 (seal the table's CRCs, a shard follows), the
# index's length (u32), the index, then its first data shard; and the index
# alone (flags 0, as it is).
find tests/fixtures/tf-checkpoint -name '*.index' | sort | while read -r f; do
    name=$(echo "$f" | sed 's|^tests/fixtures/||; s|/|_|g')
    shard=$(ls "${f%.index}".data-00000-of-* 2>/dev/null | head -n 1)
    python3 -c 'import sys; n = len(open(sys.argv[1], "rb").read()); sys.stdout.buffer.write(bytes([3]) + n.to_bytes(4, "little"))' "$f" > "$out/tf_bundle/$name"
    cat "$f" >> "$out/tf_bundle/$name"
    if [ -n "$shard" ]; then cat "$shard" >> "$out/tf_bundle/$name"; fi
    printf '\0\0\0\0\0' > "$out/tf_bundle/$name.alone"
    cat "$f" >> "$out/tf_bundle/$name.alone"
done
for f in tests/fixtures/tf-checkpoint/v1/* tests/fixtures/tf-checkpoint/v1_partitioned/*; do
    python3 -c 'import sys; n = len(open(sys.argv[1], "rb").read()); sys.stdout.buffer.write(bytes([1]) + n.to_bytes(4, "little"))' "$f" > "$out/tf_bundle/v1_$(basename "$f")"
    cat "$f" >> "$out/tf_bundle/v1_$(basename "$f")"
done
# Bundles whose slices overlap (tests/fixtures/fuzz-regressions/README.md).
for f in tests/fixtures/fuzz-regressions/tf_bundle/*; do
    [ "$(basename "$f")" = README.md ] || seed "$out/tf_bundle" "$f" "regression_$(basename "$f")"
done
# The facade: flags (2: the file is a checkpoint index in a folder with the
# side bytes as its shard), a u16 length, the file, then the side bytes.
# Every fixture under 16 KiB alone; each checkpoint index with its first
# shard; the V1 checkpoints (slices assembled, or refused); and the
# overlapping bundles above.
facade_seed() { # facade_seed FLAGS FILE SIDE OUT
    python3 - "$@" <<'PY'
import sys
flags, file, side, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
body = open(file, "rb").read()
rest = open(side, "rb").read() if side else b""
if len(body) < 65536:
    open(out, "wb").write(bytes([flags]) + len(body).to_bytes(2, "little") + body + rest)
PY
}
find tests/fixtures -type f -size -16k \
    ! -name '*.md' ! -name '*.json' ! -name '*.rs' ! -name '*.proto' \
    ! -name '*.txtpb' ! -name '*.desc' | sort | while read -r f; do
    name=$(echo "$f" | sed 's|^tests/fixtures/||; s|/|_|g')
    facade_seed 0 "$f" "" "$out/facade/$name"
done
find tests/fixtures/tf-checkpoint -name '*.index' | sort | while read -r f; do
    name=$(echo "$f" | sed 's|^tests/fixtures/||; s|/|_|g')
    shard=$(ls "${f%.index}".data-00000-of-* 2>/dev/null | head -n 1)
    facade_seed 2 "$f" "$shard" "$out/facade/folder_$name"
done
for f in tests/fixtures/fuzz-regressions/tf_bundle/*; do
    [ "$(basename "$f")" = README.md ] && continue
    python3 - "$f" "$out/facade/regression_$(basename "$f")" <<'PY'
import sys
raw = open(sys.argv[1], "rb").read()
n = int.from_bytes(raw[1:5], "little")
index, shard = raw[5:5 + n], raw[5 + n:]
if len(index) < 65536:
    open(sys.argv[2], "wb").write(bytes([2]) + len(index).to_bytes(2, "little") + index + shard)
PY
done
# Record files: mode 4 (the file as it is), and each file's records
# unframed (a u16 length and the data each; the target frames them with
# their CRCs) plain, GZIP and ZLIB (modes 0, 1, 2).
for f in tests/fixtures/tf-record/*.tfrecord* tests/fixtures/tf-record/*.tfevents; do
    name=$(basename "$f")
    printf '\4' > "$out/tf_record/$name"
    cat "$f" >> "$out/tf_record/$name"
    python3 - "$f" "$out/tf_record/$name" <<'PY'
import gzip, sys, zlib
raw = open(sys.argv[1], "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
elif raw[:1] == b"\x78":
    raw = zlib.decompress(raw)
chunks, at = b"", 0
while at + 12 <= len(raw):
    n = int.from_bytes(raw[at:at + 8], "little")
    data = raw[at + 12:at + 12 + n]
    if len(data) < n or n > 65535:
        break
    chunks += n.to_bytes(2, "little") + data
    at += 16 + n
for mode in (0, 1, 2):
    open(sys.argv[2] + ".%d" % mode, "wb").write(bytes([mode]) + chunks)
PY
done
# Protobuf's text format: every text fixture (the specification's
# examples, the official writers' files, the malformed ones).
for f in tests/fixtures/text-format/*.pbtxt tests/fixtures/text-format/*.txtpb \
    tests/fixtures/text-format/*.textproto tests/fixtures/text-format/*.prototxt; do
    seed "$out/text_format" "$f"
done
for t in decode schemaless tensor_outputs proto_schema descriptor_set api tf_bundle tf_record text_format facade; do
    echo "$out/$t: $(ls "$out/$t" | wc -l) files"
done
