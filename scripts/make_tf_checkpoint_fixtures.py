#!/usr/bin/env python3
"""Makes the TensorFlow checkpoint fixtures in tests/fixtures/tf-checkpoint/
(see its README.md): tensor bundles written by TensorFlow 2 itself, and
damaged copies of them.

Needs TensorFlow (pip install tensorflow-cpu); the tests do not.

Usage: scripts/make_tf_checkpoint_fixtures.py [--only FOLDER] [OUT_DIR]
       (default tests/fixtures/tf-checkpoint; --only rewrites that one
       folder and leaves the others as they are)
"""
import os
import shutil
import struct
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

args = sys.argv[1:]
ONLY = None
if args[:1] == ["--only"] and len(args) > 1:
    ONLY, args = args[1], args[2:]
OUT = args[0] if args else os.path.join(
    os.path.dirname(__file__), "..", "tests", "fixtures", "tf-checkpoint")
OUT = os.path.abspath(OUT)
if os.path.isdir(OUT):
    for name in os.listdir(OUT):
        if name != "README.md" and ONLY in (None, name):
            p = os.path.join(OUT, name)
            shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
os.makedirs(OUT, exist_ok=True)
tf.random.set_seed(7)
rng = np.random.default_rng(7)


def arr(dtype, shape):
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    if np.issubdtype(dtype, np.complexfloating):
        return (np.arange(n) + 1j * (np.arange(n) - 0.5)).astype(dtype).reshape(shape)
    if np.issubdtype(dtype, np.floating) or dtype == tf.bfloat16.as_numpy_dtype:
        return (np.arange(n, dtype=np.float64) * 0.25 - 1.5).astype(dtype).reshape(shape)
    info = np.iinfo(dtype)
    vals = np.array([info.min, info.max, 0, 1, 2, 3] * n, dtype=dtype)[:n]
    return vals.reshape(shape)


# Every dtype a bundle stores by memcpy, and strings.
DTYPES = [
    ("f32", tf.float32, (2, 3)), ("f64", tf.float64, (3,)),
    ("f16", tf.float16, (2, 2)), ("bf16", tf.bfloat16, (4,)),
    ("i8", tf.int8, (6,)), ("i16", tf.int16, (6,)), ("i32", tf.int32, (2, 3)),
    ("i64", tf.int64, (6,)), ("u8", tf.uint8, (6,)), ("u16", tf.uint16, (6,)),
    ("u32", tf.uint32, (6,)), ("u64", tf.uint64, (6,)), ("b", tf.bool, (5,)),
    ("c64", tf.complex64, (3,)), ("c128", tf.complex128, (2,)),
]


class AllTypes(tf.Module):
    def __init__(self):
        super().__init__()
        for name, dt, shape in DTYPES:
            setattr(self, name, tf.Variable(arr(dt.as_numpy_dtype, shape), dtype=dt, name=name))
        self.s = tf.Variable([b"alpha", b"", b"\x00\xff bytes", "gr\u00fc\u00df".encode()], dtype=tf.string, name="s")
        self.scalar = tf.Variable(3.5, name="scalar")

    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
    def __call__(self, x):
        return x * self.f32 + self.scalar


def saved_model():
    m = AllTypes()
    path = os.path.join(OUT, "saved_model_all_types")
    tf.saved_model.save(m, path)
    # Only what the decoder reads: the graph and the variables.
    for name in os.listdir(path):
        if name not in ("saved_model.pb", "variables"):
            p = os.path.join(path, name)
            shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)


class Dense(tf.Module):
    def __init__(self):
        super().__init__()
        self.kernel = tf.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="kernel")
        self.bias = tf.Variable(np.array([0.1, -0.2, 0.3], np.float32), name="bias")


def train_checkpoint():
    model = tf.Module()
    model.dense = Dense()
    model.step = tf.Variable(np.int64(42), name="step")
    opt = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.matmul(tf.ones((2, 4)), model.dense.kernel) + model.dense.bias)
    grads = tape.gradient(loss, [model.dense.kernel, model.dense.bias])
    opt.apply_gradients(zip(grads, [model.dense.kernel, model.dense.bias]))
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    d = os.path.join(OUT, "train")
    os.makedirs(d)
    ckpt.write(os.path.join(d, "ckpt"))


def sharded_checkpoint(name, variables, max_shard_size):
    vs = [tf.Variable(np.full((8,), k, np.float32) + np.arange(8, dtype=np.float32) / 10, name=f"v{k}")
          for k in range(variables)]
    ckpt = tf.train.Checkpoint(vars=vs)
    d = os.path.join(OUT, name)
    os.makedirs(d)
    opts = tf.train.CheckpointOptions(
        experimental_sharding_callback=tf.train.experimental.MaxShardSizePolicy(
            max_shard_size=max_shard_size))
    ckpt.write(os.path.join(d, "ckpt"), options=opts)


def partitioned_checkpoint():
    d = os.path.join(OUT, "partitioned")
    os.makedirs(d)
    g = tf.Graph()
    with g.as_default():
        v1 = tf.compat.v1
        def rows(shape, dtype=None, partition_info=None):
            # Row r holds 3r, 3r+1, 3r+2 whichever part it lands in.
            first = partition_info.var_offset[0] if partition_info else 0
            n = shape[0] * shape[1]
            return tf.constant(np.arange(first * 3, first * 3 + n, dtype=np.float32).reshape(shape))
        w = v1.get_variable(
            "w", shape=[10, 3], dtype=tf.float32, initializer=rows,
            partitioner=v1.fixed_size_partitioner(3))
        b = v1.get_variable("b", shape=[2], initializer=v1.zeros_initializer())
        save_tf1(d, v1.train.SaverDef.V2)


def save_tf1(d, version):
    """The current graph's variables, initialised, saved by a TensorFlow 1
    Saver of `version` (V1: one file; V2: an index and data) as
    `d/model.ckpt` (the `checkpoint` state file it writes beside it is
    removed)."""
    v1 = tf.compat.v1
    saver = v1.train.Saver(write_version=version)
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        saver.save(sess, os.path.join(d, "model.ckpt"), write_meta_graph=False)
    for name in os.listdir(d):
        if name == "checkpoint":
            os.remove(os.path.join(d, name))


def v1_checkpoint():
    d = os.path.join(OUT, "v1")
    os.makedirs(d)
    g = tf.Graph()
    try:
        with g.as_default():
            v1 = tf.compat.v1
            v1.get_variable("a", initializer=np.arange(6, dtype=np.float32).reshape(2, 3))
            v1.get_variable("n", initializer=np.array([7, 8, 9], np.int64))
            save_tf1(d, v1.train.SaverDef.V1)
        print("v1: written")
    except Exception as e:  # noqa: BLE001
        print(f"v1: TensorFlow did not write a V1 checkpoint: {e}")
        shutil.rmtree(d)


V1_SLICED_DTYPES = [tf.float16, tf.float64, tf.int8, tf.uint8, tf.int16,
                    tf.int32, tf.bool, tf.complex64, tf.complex128]  # V1 saves no bfloat16


def v1_partitioned_checkpoint():
    """A V1 checkpoint whose tensors are saved in slices: `p` [5, 2]
    float32 split by rows in 2 (rows 0-2, 3-4), `q` [2, 6] int64 split by
    columns in 3, and `s` [4] string split in 2; p[r, c] = 2r + c,
    q[r, c] = 10r + c."""
    d = os.path.join(OUT, "v1_partitioned")
    os.makedirs(d)
    full = {
        "p": np.arange(10, dtype=np.float32).reshape(5, 2),
        "q": (np.arange(2)[:, None] * 10 + np.arange(6)).astype(np.int64),
        "s": np.array([b"alpha", b"", b"gamma", b"\xff\x00"], dtype=object),
    }

    def part(name):
        # Each partition's values cut from the full tensor at its offset.
        def init(shape, dtype=None, partition_info=None):
            offset = partition_info.var_offset if partition_info else [0] * len(shape)
            cut = tuple(slice(o, o + n) for o, n in zip(offset, shape))
            return tf.constant(full[name][cut])
        return init

    g = tf.Graph()
    with g.as_default():
        v1 = tf.compat.v1
        v1.get_variable("p", shape=[5, 2], dtype=tf.float32, initializer=part("p"),
                        partitioner=v1.fixed_size_partitioner(2))
        v1.get_variable("q", shape=[2, 6], dtype=tf.int64, initializer=part("q"),
                        partitioner=v1.fixed_size_partitioner(3, axis=1))
        v1.get_variable("s", shape=[4], dtype=tf.string, initializer=part("s"),
                        partitioner=v1.fixed_size_partitioner(2))
        # One [3, 2] variable a dtype, split by rows in 2, with values
        # that need the dtype's whole range (negatives, halves, true/false).
        for dtype in V1_SLICED_DTYPES:
            name = "t_" + dtype.name
            full[name] = arr(dtype.as_numpy_dtype, (3, 2))
            v1.get_variable(name, shape=[3, 2], dtype=dtype, initializer=part(name),
                            partitioner=v1.fixed_size_partitioner(2))
        save_tf1(d, v1.train.SaverDef.V1)


def many_checkpoint():
    vs = {f"layer{k:04d}": tf.Variable(np.float32(k) * np.ones((2,), np.float32), name=f"v{k}") for k in range(6000)}
    ckpt = tf.train.Checkpoint(**vs)
    d = os.path.join(OUT, "many")
    os.makedirs(d)
    ckpt.write(os.path.join(d, "ckpt"))


def saved_model_tf1(name, resource):
    """A TF1 SavedModel (no object graph): variables as VariableV2 nodes
    (`resource=False`, `simple_save`) or VarHandleOp nodes (`resource=True`,
    `SavedModelBuilder`), restored by the saver's `save/RestoreV2`; one
    variable saved under a key other than its node's name (a saver given a
    dict of names)."""
    v1 = tf.compat.v1
    path = os.path.join(OUT, name)
    with tf.Graph().as_default() as g, v1.Session(graph=g) as sess:
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        with v1.variable_scope("dense"):
            w = v1.get_variable("kernel", initializer=np.arange(6, dtype=np.float32).reshape(3, 2) / 4,
                                use_resource=resource)
            b = v1.get_variable("bias", initializer=np.array([0.5, -1.5], np.float32), use_resource=resource)
        step = v1.get_variable("global_step", initializer=np.int64(7), use_resource=resource, trainable=False)
        y = tf.identity(tf.matmul(x, w) + b, name="y")
        sess.run(v1.global_variables_initializer())
        if resource:
            saver = v1.train.Saver({"dense/kernel": w, "dense/bias": b, "counters/step": step})
            builder = v1.saved_model.Builder(path)
            sig = v1.saved_model.predict_signature_def(inputs={"x": x}, outputs={"y": y})
            builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"serving_default": sig},
                                                 saver=saver)
            builder.save()
        else:
            v1.saved_model.simple_save(sess, path, inputs={"x": x}, outputs={"y": y})
    for entry in os.listdir(path):
        if entry not in ("saved_model.pb", "variables"):
            p = os.path.join(path, entry)
            shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)


PARTS = {
    "saved_model_all_types": saved_model,
    "saved_model_tf1": lambda: saved_model_tf1("saved_model_tf1", False),
    "saved_model_tf1_resource": lambda: saved_model_tf1("saved_model_tf1_resource", True),
    "train": train_checkpoint,
    # Ten variables split into slices across shards of 40 bytes; and ten
    # in ten shards of 32 bytes (the object graph beside one of them).
    "sharded": lambda: sharded_checkpoint("sharded", 10, 40),
    "sharded10": lambda: sharded_checkpoint("sharded10", 10, 32),
    "partitioned": partitioned_checkpoint,
    "v1": v1_checkpoint,
    "v1_partitioned": v1_partitioned_checkpoint,
    "many": many_checkpoint,
}
if ONLY is not None:
    if ONLY not in PARTS:
        sys.exit(f"--only: one of {', '.join(PARTS)} (the damaged copies are made with train)")
    PARTS[ONLY]()
    sys.exit(0)
for make in PARTS.values():
    make()

# Damaged copies of train/ckpt (each folder holds one index and the shard).
src = os.path.join(OUT, "train")
index = open(os.path.join(src, "ckpt.index"), "rb").read()
shard_name = [n for n in os.listdir(src) if ".data-" in n][0]
shard = open(os.path.join(src, shard_name), "rb").read()


def footer(data):
    """(metaindex offset, size), (index offset, size) from the footer."""
    def varint(b, i):
        v = s = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7f) << s
            s += 7
            if c < 0x80:
                return v, i
    f = data[-48:]
    i = 0
    mo, i = varint(f, i)
    ms, i = varint(f, i)
    io, i = varint(f, i)
    isz, i = varint(f, i)
    return (mo, ms), (io, isz)


def damaged(name, idx=None, data=None, link_shard=None):
    d = os.path.join(OUT, "damaged", name)
    os.makedirs(d)
    open(os.path.join(d, "ckpt.index"), "wb").write(index if idx is None else idx)
    if link_shard:
        os.symlink(link_shard, os.path.join(d, shard_name))
    else:
        open(os.path.join(d, shard_name), "wb").write(shard if data is None else data)


(_, _), (io_, isz) = footer(index)
# The data block is the first block; flip a byte of it (its CRC fails).
b = bytearray(index)
b[5] ^= 0x40
damaged("bad_block_crc", idx=bytes(b))
# A byte of the shard changed: that tensor's value CRC fails.
b = bytearray(shard)
b[len(b) // 2] ^= 0x01
damaged("bad_value_crc", data=bytes(b))
# The index cut short (the footer gone) and the shard cut short.
damaged("cut_index", idx=index[: len(index) - 20])
damaged("cut_shard", data=shard[: len(shard) // 2])


def crc32c(data):
    crc = 0xffffffff
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff


def masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xffffffff) + 0xa282ead8) & 0xffffffff


def reseal(b, off, size):
    """Rewrites the trailer CRC of the block at [off, off+size)."""
    crc = masked(crc32c(bytes(b[off:off + size + 1])))
    b[off + size + 1:off + size + 5] = struct.pack("<I", crc)


# The index block's restart count claims 2^31-1 (its CRC made right, so
# that the count is what fails).
b = bytearray(index)
b[io_ + isz - 4:io_ + isz] = struct.pack("<I", 0x7fffffff)
reseal(b, io_, isz)
damaged("huge_restart_count", idx=bytes(b))
# The data block (one, at offset 0, before the metaindex block).
(mo, _), _ = footer(index)
data_size = mo - 5
# The second entry claims a shared prefix of 127 bytes, longer than the
# key before it (the first entry is the header, key "": 00 00 LEN value).
b = bytearray(index)
second = 3 + b[2]
b[second] = 0x7f
reseal(b, 0, data_size)
damaged("long_shared_prefix", idx=bytes(b))
# The second entry's value length claims 2^31-1 (a 5-byte varint in place
# of its 1-byte one is not possible without moving bytes: the key length
# grows instead).
b = bytearray(index)
b[second + 1] = 0x7f
reseal(b, 0, data_size)
damaged("huge_key_length", idx=bytes(b))
# A tensor's offset past the shard's end: the shard cut to 8 bytes.
damaged("offset_past_end", data=shard[:8])
# The shard is a link to a file outside the folder.
outside = os.path.join(OUT, "damaged", "outside.data")
open(outside, "wb").write(shard)
damaged("shard_link_escapes", link_shard="../outside.data")
# The block's compression type says snappy.
b = bytearray(index)
b[data_size] = 1
reseal(b, 0, data_size)
damaged("snappy_block", idx=bytes(b))

total = 0
for root, _, files in os.walk(OUT):
    for f in files:
        total += os.path.getsize(os.path.join(root, f))
print(f"total {total} bytes")
