#!/usr/bin/env python3
"""Compare how pbdecode and protoc read .proto files.

For every .proto file given, protoc (from the grpcio-tools package) writes a
FileDescriptorSet (`--include_imports -o`), which the protobuf runtime loads
into a descriptor pool; pbdecode prints the schema it read from the same file
(`decode --schema FILE -I ROOT --dump-schema --json`). For every message of
the file (nested ones and map entries included) the two must agree on each
field's name, number, label (optional, repeated, required; proto3 optional),
type (scalar, enum, message or group, with the full name of the type),
packedness (proto2 [packed], proto3 defaults, editions features), oneof and
map-ness; and every enum of the file on its values. The descriptor set protoc
wrote is also read back with `decode --descriptor-set SET --dump-schema` and
compared the same way.

    scripts/proto_crosscheck.py [--decoder target/release/decode] ROOT [ROOT ...]
    scripts/proto_crosscheck.py --onnx            # the onnx wheel's .proto files

Each ROOT is an import root (`-I`); every *.proto below it is checked, its
name relative to ROOT. Prints one line per disagreement and the totals: files
protoc accepts, files pbdecode accepts, files on which both agree (from the
.proto file, and from protoc's descriptor set). pbdecode may accept a file
protoc refuses only when an import is found in the main file's folder, an
implied import root of pbdecode's.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FieldDescriptor as FD

SCALARS = {
    FD.TYPE_DOUBLE: "double",
    FD.TYPE_FLOAT: "float",
    FD.TYPE_INT64: "int64",
    FD.TYPE_UINT64: "uint64",
    FD.TYPE_INT32: "int32",
    FD.TYPE_FIXED64: "fixed64",
    FD.TYPE_FIXED32: "fixed32",
    FD.TYPE_BOOL: "bool",
    FD.TYPE_STRING: "string",
    FD.TYPE_BYTES: "bytes",
    FD.TYPE_UINT32: "uint32",
    FD.TYPE_SFIXED32: "sfixed32",
    FD.TYPE_SFIXED64: "sfixed64",
    FD.TYPE_SINT32: "sint32",
    FD.TYPE_SINT64: "sint64",
}


def protoc(root, files, out):
    cmd = [sys.executable, "-m", "grpc_tools.protoc", f"-I{root}", "--include_imports", f"-o{out}"]
    r = subprocess.run(cmd + files, capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def protoc_view(pool, fdset, name):
    """{message full name: [field tuples]} and {enum full name: values} of one file."""
    raw_file = next(f for f in fdset.file if f.name == name)
    fd = pool.FindFileByName(name)
    messages, enums = {}, {}

    def walk_enum(e):
        enums[e.full_name] = sorted((v.name, v.number) for v in e.values)

    def field_view(f, rf):
        if f.type == FD.TYPE_GROUP:
            ty, tn = "group", f.message_type.full_name
        elif f.type == FD.TYPE_MESSAGE:
            ty, tn = "message", f.message_type.full_name
        elif f.type == FD.TYPE_ENUM:
            ty, tn = "enum", f.enum_type.full_name
        else:
            ty, tn = SCALARS[f.type], None
        label = "repeated" if f.is_repeated else "required" if f.is_required else "optional"
        return {"name": f"[{f.full_name}]", "number": f.number, "label": label, "type": ty,
                "type_name": tn, "packed": bool(f.is_packed), "oneof": None,
                "proto3_optional": False, "map": False}

    extensions = []

    def walk(m, raw):
        raw_fields = {f.number: f for f in raw.field}
        extensions.extend((e, None) for e in m.extensions)
        fields = []
        for f in m.fields:
            rf = raw_fields[f.number]
            if f.type == FD.TYPE_GROUP:
                ty, tn = "group", f.message_type.full_name
            elif f.type == FD.TYPE_MESSAGE:
                ty, tn = "message", f.message_type.full_name
            elif f.type == FD.TYPE_ENUM:
                ty, tn = "enum", f.enum_type.full_name
            else:
                ty, tn = SCALARS[f.type], None
            label = "repeated" if f.is_repeated else "required" if f.is_required else "optional"
            is_map = (
                f.type == FD.TYPE_MESSAGE
                and f.is_repeated
                and f.message_type.GetOptions().map_entry
            )
            p3opt = rf.proto3_optional
            oneof = f.containing_oneof.name if f.containing_oneof and not p3opt else None
            fields.append(
                {
                    "name": f.name,
                    "number": f.number,
                    "label": label,
                    "type": ty,
                    "type_name": tn,
                    "packed": bool(f.is_packed),
                    "oneof": oneof,
                    "proto3_optional": bool(p3opt),
                    "map": bool(is_map),
                }
            )
        messages[m.full_name] = sorted(fields, key=lambda x: x["number"])
        raw_nested = {n.name: n for n in raw.nested_type}
        for n in m.nested_types:
            walk(n, raw_nested[n.name])
        for e in m.enum_types:
            walk_enum(e)

    raw_top = {m.name: m for m in raw_file.message_type}
    for m in fd.message_types_by_name.values():
        walk(m, raw_top[m.name])
    for e in fd.enum_types_by_name.values():
        walk_enum(e)
    # Messages declared inside extend blocks (proto2 groups) are nested in
    # their scope already; an extension field is a field of the message it
    # extends, named by its full name in brackets (as the text format
    # writes it), when that message is one of this file's.
    extensions.extend((e, None) for e in fd.extensions_by_name.values())
    for e, _ in extensions:
        target = e.containing_type.full_name
        if target in messages:
            messages[target] = sorted(messages[target] + [field_view(e, None)], key=lambda x: x["number"])
    return messages, enums


def pbdecode_view(decoder, root, name, descriptor_set=None):
    if descriptor_set:
        cmd = [decoder, "--descriptor-set", descriptor_set, "--dump-schema", "--json"]
    else:
        cmd = [decoder, "--schema", os.path.join(root, name), "-I", root, "--dump-schema", "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    d = json.loads(r.stdout)
    messages = {
        m["name"]: sorted(m["fields"], key=lambda x: x["number"]) for m in d["messages"]
    }
    enums = {e["name"]: sorted((v["name"], v["number"]) for v in e["values"]) for e in d["enums"]}
    return (messages, enums), None


def compare(theirs, ours):
    """The first disagreement, or None."""
    (tm, te), (om, oe) = theirs, ours
    for name, fields in tm.items():
        if name not in om:
            return f"message {name}: missing"
        mine = om[name]
        if len(mine) != len(fields):
            return f"message {name}: {len(mine)} fields, protoc {len(fields)}"
        for a, b in zip(fields, mine):
            for k in a:
                if a[k] != b.get(k):
                    return f"{name}.{a['name']}: {k} is {b.get(k)!r}, protoc {a[k]!r}"
    for name, values in te.items():
        if name not in oe:
            return f"enum {name}: missing"
        if oe[name] != values:
            return f"enum {name}: values differ"
    return None


def find_protos(root):
    out = []
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".proto"):
                out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return out


def check_root(root, files, decoder, batch, jobs, show):
    totals = {"files": len(files), "protoc": 0, "pbdecode": 0, "agree": 0, "desc_agree": 0}
    problems = []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for start in range(0, len(files), batch):
            chunk = files[start : start + batch]
            ours = dict(zip(chunk, ex.map(lambda n: pbdecode_view(decoder, root, n), chunk)))
            out = os.path.join(tmp, "set.desc")
            ok, err = protoc(root, chunk, out)
            accepted = {}
            if ok:
                accepted = {n: out for n in chunk}
            else:
                for i, n in enumerate(chunk):
                    one = os.path.join(tmp, f"one{i}.desc")
                    ok1, err1 = protoc(root, [n], one)
                    if ok1:
                        accepted[n] = one
                    else:
                        first = err1.strip().splitlines()[0] if err1.strip() else "?"
                        problems.append(f"{n}: protoc rejects it: {first}")
            sets = {}
            for n in chunk:
                view, err = ours[n]
                if view is not None:
                    totals["pbdecode"] += 1
                if n not in accepted:
                    if view is not None:
                        problems.append(f"{n}: pbdecode accepts a file protoc rejects")
                    continue
                totals["protoc"] += 1
                path = accepted[n]
                if path not in sets:
                    fdset = descriptor_pb2.FileDescriptorSet()
                    with open(path, "rb") as fh:
                        fdset.ParseFromString(fh.read())
                    pool = descriptor_pool.DescriptorPool()
                    for f in fdset.file:
                        pool.Add(f)
                    dview, derr = pbdecode_view(decoder, root, None, descriptor_set=path)
                    if dview is None:
                        problems.append(f"{n}: pbdecode rejects protoc's descriptor set: {derr}")
                    sets[path] = (pool, fdset, dview)
                pool, fdset, dview = sets[path]
                theirs = protoc_view(pool, fdset, n)
                # The same file read from protoc's descriptor set.
                if dview is not None:
                    ddiff = compare(theirs, dview)
                    if ddiff is None:
                        totals["desc_agree"] += 1
                    else:
                        problems.append(f"{n} (--descriptor-set): {ddiff}")
                if view is None:
                    problems.append(f"{n}: pbdecode rejects it: {err}")
                    continue
                diff = compare(theirs, view)
                if diff is None:
                    totals["agree"] += 1
                else:
                    problems.append(f"{n}: {diff}")
            done = min(start + batch, len(files))
            print(f"  {root}: {done}/{len(files)}", file=sys.stderr)
    for p in problems[:show]:
        print(p)
    if len(problems) > show:
        print(f"... {len(problems) - show} more")
    return totals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="*")
    ap.add_argument("--decoder", default="target/release/decode")
    ap.add_argument("--onnx", action="store_true", help="check the onnx wheel's .proto files")
    ap.add_argument("--batch", type=int, default=200, help="files per protoc run")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=200, help="disagreements to print")
    args = ap.parse_args()
    todo = [(r, find_protos(r)) for r in args.roots]
    if args.onnx:
        import onnx

        site = os.path.dirname(os.path.dirname(onnx.__file__))
        todo.append((site, sorted(f"onnx/{f}" for f in os.listdir(os.path.dirname(onnx.__file__)) if f.endswith(".proto"))))
    grand = {"files": 0, "protoc": 0, "pbdecode": 0, "agree": 0, "desc_agree": 0}
    for root, files in todo:
        t = check_root(root, files, args.decoder, args.batch, args.jobs, args.show)
        print(
            f"{root}: {t['files']} files; protoc accepts {t['protoc']}, pbdecode accepts {t['pbdecode']}, "
            f"both agree on {t['agree']}; read from protoc's descriptor sets: {t['desc_agree']} agree"
        )
        for k in grand:
            grand[k] += t[k]
    if len(todo) > 1:
        print(
            f"total: {grand['files']} files; protoc accepts {grand['protoc']}, pbdecode accepts {grand['pbdecode']}, "
            f"both agree on {grand['agree']}; read from protoc's descriptor sets: {grand['desc_agree']} agree"
        )
    ok = grand["agree"] == grand["protoc"] == grand["desc_agree"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
