#!/usr/bin/env python3
"""The text format against protobuf's own runtimes, on every file of the
shared corpus (or the folders given).

For each file read with a schema (its `decode --json` names a message
type), the message is parsed by protobuf's Python runtime and written as
text by

- `text_format.MessageToString`: by default, `as_one_line`,
  `pointy_brackets`, `use_short_repeated_primitives`;
- `onnx.save(..., format="textproto")` (ONNX messages);
- `tf.io.write_graph(..., as_text=True)` (GraphDefs),

each text saved under a name that says nothing of its syntax (`.pb`) and
decoded: its JSON must be the binary file's (offsets aside, `"syntax"`
`"text"`). Then `decode convert` both ways: text to binary gives the
message protobuf's runtime parses from the text, binary to text gives
exactly `MessageToString`'s text (so a round trip is stable) and reads
back as the same message.

Files that hold no message of a built-in type: a tensor turned down by
ONNX's rules (read as `protobuf` without a schema) is converted as the
`TensorProto` protobuf parses it, its text's JSON compared with that of
the message's binary form (`SerializeToString`: the text cannot hold the
file's own field order); messages of other TensorFlow types
(`Example`, `FingerprintDef`) are read with `--descriptor-set` made from
the runtime's descriptors; files that are no protobuf message are
skipped, and counted.

Usage: scripts/text_format_crosscheck.py [--decoder target/release/decode]
       [FOLDER...]   (default: ../shared/corpus, tests/fixtures)
Needs: protobuf, onnx, tensorflow (tensorflow-cpu).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import onnx  # noqa: E402
from google.protobuf import descriptor_pb2, text_format  # noqa: E402
from tensorflow.core.example import example_pb2  # noqa: E402
from tensorflow.core.framework import graph_pb2  # noqa: E402
from tensorflow.core.protobuf import fingerprint_pb2, saved_model_pb2  # noqa: E402

CLASSES = {
    "onnx.TensorProto": onnx.TensorProto,
    "onnx.SequenceProto": onnx.SequenceProto,
    "onnx.OptionalProto": onnx.OptionalProto,
    "onnx.MapProto": onnx.MapProto,
    "onnx.SparseTensorProto": onnx.SparseTensorProto,
    "onnx.ModelProto": onnx.ModelProto,
    "tensorflow.GraphDef": graph_pb2.GraphDef,
    "tensorflow.SavedModel": saved_model_pb2.SavedModel,
}
# Messages of no built-in format, read with a descriptor set.
OTHER = {
    "tensorflow.Example": example_pb2.Example,
    "tensorflow.SequenceExample": example_pb2.SequenceExample,
    "tensorflow.FingerprintDef": fingerprint_pb2.FingerprintDef,
}
VARIANTS = {
    "default": {},
    "as_one_line": {"as_one_line": True},
    "pointy_brackets": {"pointy_brackets": True},
    "use_short_repeated_primitives": {"use_short_repeated_primitives": True},
}


def run(decoder, *args, stdin=None):
    return subprocess.run([decoder, *args], capture_output=True, input=stdin)


def decode_json(decoder, path, *extra):
    p = run(decoder, "--json", *extra, path)
    try:
        return p.returncode, json.loads(p.stdout) if p.stdout else None
    except json.JSONDecodeError:
        return p.returncode, None


def without_offsets(v, folders=()):
    """The JSON with what depends on the bytes' layout left out (offsets,
    sizes of the binary form, the syntax), and the file's folder named
    alike wherever a message names it."""
    if isinstance(v, dict):
        return {k: without_offsets(x, folders) for k, x in v.items()
                if k not in ("offset", "syntax", "end", "size", "bytes")}
    if isinstance(v, list):
        return [without_offsets(x, folders) for x in v]
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, str):
        for f in folders:
            v = v.replace(f, "FOLDER")
    return v


def descriptor_set(cls):
    """The FileDescriptorSet of a message class and its imports."""
    files, seen = [], set()

    def add(fd):
        if fd.name in seen:
            return
        seen.add(fd.name)
        for dep in fd.dependencies:
            add(dep)
        p = descriptor_pb2.FileDescriptorProto()
        fd.CopyToProto(p)
        files.append(p)

    add(cls.DESCRIPTOR.file)
    s = descriptor_pb2.FileDescriptorSet()
    s.file.extend(files)
    return s.SerializeToString()


def texts(msg, type_name, tmp):
    """Every text form of `msg`: (how it was written, its bytes)."""
    out = [(name, text_format.MessageToString(msg, **kw).encode())
           for name, kw in VARIANTS.items()]
    if type_name.startswith("onnx."):
        path = os.path.join(tmp, "onnx.textproto")
        if type_name == "onnx.ModelProto":
            onnx.save(msg, path, format="textproto")
        elif type_name == "onnx.TensorProto":
            onnx.save_tensor(msg, path, format="textproto")
        else:
            with open(path, "wb") as f:
                f.write(onnx.serialization.registry.get("textproto").serialize_proto(msg))
        out.append(("onnx.save textproto", open(path, "rb").read()))
    if type_name == "tensorflow.GraphDef":
        import tensorflow as tf
        tf.io.write_graph(msg, tmp, "graph.pbtxt", as_text=True)
        out.append(("tf.io.write_graph as_text", open(os.path.join(tmp, "graph.pbtxt"), "rb").read()))
    return out


class Check:
    def __init__(self, decoder, show, tmp_root):
        self.decoder = decoder
        self.tmp_root = tmp_root
        self.show = show
        self.failures = []
        self.counts = {}

    def fail(self, what):
        self.failures.append(what)
        if len(self.failures) <= self.show:
            print("FAIL", what[:600])

    def count(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    def one(self, path, tmp):
        # The file copied into a folder of its own, with its side files
        # (ONNX external data): read there, the binary file and its text
        # have the same surroundings (no test folder's model).
        side = os.path.join(tmp, "side")
        shutil.rmtree(side, ignore_errors=True)
        os.mkdir(side)
        here = os.path.dirname(os.path.abspath(path))
        for n in os.listdir(here):
            p = os.path.join(here, n)
            if os.path.isfile(p) and not n.endswith((".pb", ".onnx", ".json")) and os.path.getsize(p) < 1 << 26:
                shutil.copy(p, os.path.join(side, n))
        binary = os.path.join(side, "binary.pb")
        shutil.copy(path, binary)
        code, binary_json = decode_json(self.decoder, binary)
        if binary_json is None or "error" in binary_json:
            self.count("not a message (skipped)")
            return
        type_name = binary_json.get("type")
        if binary_json.get("syntax") == "text":
            self.text_file(path, type_name, binary_json, tmp)
            return
        extra = convert_extra = []
        data = open(path, "rb").read()
        unknown = False
        if type_name in CLASSES:
            cls = CLASSES[type_name]
            msg = cls()
            msg.ParseFromString(data)
            expected = binary_json
            # Fields the schema does not know (ONNX models keep them): no
            # text holds them; the text is compared with the rest.
            known = cls()
            known.CopyFrom(msg)
            known.DiscardUnknownFields()
            if known.SerializeToString(deterministic=True) != msg.SerializeToString(deterministic=True):
                unknown = True
                msg = known
                with open(os.path.join(side, "known.pb"), "wb") as f:
                    f.write(msg.SerializeToString())
                _, expected = decode_json(self.decoder, os.path.join(side, "known.pb"))
        else:
            guess = self.guess(path, data)
            if guess is None:
                self.count("no message type known (skipped)")
                return
            if not guess[2].ListFields():
                self.count("an empty message (no text: skipped)")
                return
            type_name, cls, msg, extra, convert_extra = guess
            canonical = os.path.join(tmp, "canonical.bin")
            with open(canonical, "wb") as f:
                f.write(msg.SerializeToString())
            _, expected = decode_json(self.decoder, canonical, *extra)
        self.count(type_name)
        want = without_offsets(expected)
        for how, text in texts(msg, type_name, tmp):
            # A name that says nothing of the syntax.
            tpath = os.path.join(side, "file.pb")
            with open(tpath, "wb") as f:
                f.write(text)
            tcode, got = decode_json(self.decoder, tpath, *extra)
            try:
                text_format.Parse(text.decode(), cls())
            except (text_format.ParseError, UnicodeDecodeError):
                # Text protobuf's parser refuses (a string field that is not
                # UTF-8): it must be refused here too.
                if tcode == 1 and got is not None and "error" in got:
                    self.count("texts refused by both")
                else:
                    self.fail(f"{path} [{how}]: protobuf refuses the text, decode does not: exit {tcode}")
                continue
            if got is None or got.get("syntax") != "text" or without_offsets(got) != want:
                self.fail(f"{path} [{how}]: text JSON differs: exit {tcode}, "
                          f"{json.dumps(got)[:300] if got else run(self.decoder, tpath).stderr[:300]}")
                continue
            self.count("texts equal")
            self.convert(path, how, text, msg, cls, convert_extra, tmp)
        self.back(path, data, msg, cls, convert_extra, tmp, unknown)

    def text_file(self, path, type_name, got, tmp):
        """A file already in the text format (a fixture the official
        writers made, or written by hand): read as protobuf's parser reads
        it, its JSON must be that of the message's binary form."""
        if type_name not in CLASSES:
            self.count("a text file of no built-in message (skipped)")
            return
        cls = CLASSES[type_name]
        msg = cls()
        try:
            text_format.Parse(open(path, "rb").read().decode(), msg)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            self.fail(f"{path}: protobuf refuses a text decode reads: {e}")
            return
        canonical = os.path.join(tmp, "canonical.bin")
        with open(canonical, "wb") as f:
            f.write(msg.SerializeToString())
        _, want = decode_json(self.decoder, canonical)
        if without_offsets(got) != without_offsets(want):
            self.fail(f"{path}: the text's JSON differs from its binary form's")
            return
        self.count("text files equal to their binary form")

    def guess(self, path, data):
        """A file read without a schema: the message it was made as (the
        corpus's expectation names it), else a tensor turned down."""
        try:
            named = json.load(open(path + ".expect.json")).get("message")
        except (OSError, ValueError):
            named = None
        if named in OTHER:
            cls = OTHER[named]
            msg = cls()
            msg.ParseFromString(data)
            dset = os.path.join(self.tmp_root, f"{named}.desc")
            with open(dset, "wb") as f:
                f.write(descriptor_set(cls))
            user = ["--descriptor-set", dset, "--type", named]
            return named, cls, msg, user, user
        msg = onnx.TensorProto()
        try:
            msg.ParseFromString(data)
        except Exception:
            return None
        # What the file holds that no field of TensorProto does (a field
        # of its own number, a field of the wrong wire type) no text can
        # hold: the text is the rest.
        msg.DiscardUnknownFields()
        return "onnx.TensorProto (turned down)", onnx.TensorProto, msg, [], ["--as", "onnx-tensor"]

    def convert(self, path, how, text, msg, cls, extra, tmp):
        """`decode convert` text -> binary: the message protobuf parses."""
        src = os.path.join(tmp, "in.pbtxt")
        dst = os.path.join(tmp, "out.pb")
        with open(src, "wb") as f:
            f.write(text)
        if os.path.exists(dst):
            os.remove(dst)
        p = run(self.decoder, "convert", *extra, src, dst)
        if p.returncode != 0:
            self.fail(f"{path} [{how}]: convert to binary: exit {p.returncode}: {p.stderr[:300]!r}")
            return
        parsed = cls()
        text_format.Parse(text.decode(), parsed)
        got = cls()
        got.ParseFromString(open(dst, "rb").read())
        if got != parsed:
            self.fail(f"{path} [{how}]: convert to binary: another message")
            return
        if open(dst, "rb").read() != parsed.SerializeToString(deterministic=True) and not has_map(cls):
            self.fail(f"{path} [{how}]: convert to binary: not the bytes SerializeToString writes")
            return
        self.count("convert text->binary equal")

    def back(self, path, data, msg, cls, extra, tmp, unknown):
        """`decode convert` binary -> text: MessageToString's text (a file
        with fields the schema does not know is refused: protobuf's writer
        leaves them out, losing them)."""
        src = os.path.join(tmp, "in.bin")
        dst = os.path.join(tmp, "out.txtpb")
        if unknown:
            p = run(self.decoder, "convert", *extra, path, dst)
            if p.returncode == 1 and b"not in the schema" in p.stderr:
                self.count("convert to text refused (fields not in the schema)")
            else:
                self.fail(f"{path}: convert to text of unknown fields: exit {p.returncode}")
            return
        try:
            text_format.Parse(text_format.MessageToString(msg), cls())
        except (text_format.ParseError, UnicodeDecodeError):
            self.count("convert to text: protobuf cannot read its own text (skipped)")
            return
        with open(src, "wb") as f:
            f.write(msg.SerializeToString())
        if os.path.exists(dst):
            os.remove(dst)
        p = run(self.decoder, "convert", *extra, src, dst)
        if p.returncode != 0:
            self.fail(f"{path}: convert to text: exit {p.returncode}: {p.stderr[:300]!r}")
            return
        got = open(dst, "rb").read()
        want = text_format.MessageToString(msg).encode()
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            self.fail(f"{path}: convert to text differs from MessageToString at byte {first}: "
                      f"{got[max(0, first - 60):first + 60]!r} vs {want[max(0, first - 60):first + 60]!r}")
            return
        back = cls()
        text_format.Parse(got.decode(), back)
        if back != msg:
            self.fail(f"{path}: convert to text does not read back as the message")
            return
        self.count("convert binary->text equal")


def has_map(cls):
    """Whether a message type holds a map anywhere (whose serialized order
    protobuf leaves open)."""
    seen, todo = set(), [cls.DESCRIPTOR]
    while todo:
        d = todo.pop()
        if d.full_name in seen:
            continue
        seen.add(d.full_name)
        if d.GetOptions().map_entry:
            return True
        todo.extend(f.message_type for f in d.fields if f.message_type is not None)
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--decoder", default="target/release/decode")
    ap.add_argument("--show", type=int, default=15)
    ap.add_argument("folders", nargs="*", default=["../shared/corpus", "tests/fixtures"])
    args = ap.parse_args()
    files = []
    for folder in args.folders:
        for root, _, names in os.walk(folder):
            for n in sorted(names):
                if n.endswith((".json", ".md", ".py", ".txt", ".bin", ".data", ".png", ".npy")) or n.startswith("."):
                    continue
                files.append(os.path.join(root, n))
    with tempfile.TemporaryDirectory() as tmp_root:
        check = Check(args.decoder, args.show, tmp_root)
        tmp = os.path.join(tmp_root, "work")
        os.mkdir(tmp)
        for path in sorted(files):
            check.one(path, tmp)
    for k, v in sorted(check.counts.items()):
        print(f"{v:6}  {k}")
    print(f"{len(check.failures)} failures")
    sys.exit(1 if check.failures else 0)


if __name__ == "__main__":
    main()
