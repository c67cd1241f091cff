#!/usr/bin/env python3
"""Makes the TFRecord and event-file fixtures in tests/fixtures/tf-record/
(see its README.md) with TensorFlow 2.x's own writers.

Needs TensorFlow (pip install tensorflow-cpu); the tests do not. Every
record file is written by tf.io.TFRecordWriter, tf.summary or
tf.compat.v1.summary.FileWriter; the damaged copies are those files with
bytes changed here (each change is described where it is made). Event
files carry wall times, so running the script again changes their bytes;
the committed files are the ones the snapshots were made from.

Usage: scripts/make_tf_record_fixtures.py [OUT_DIR]
       (default tests/fixtures/tf-record)
"""
import glob
import os
import shutil
import struct
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "tests", "fixtures", "tf-record")
os.makedirs(OUT, exist_ok=True)


def path(name):
    return os.path.join(OUT, name)


def image(seed, size=8):
    """A small deterministic RGB image (a gradient and a square)."""
    y, x = np.mgrid[0:size, 0:size]
    img = np.stack([x * 255 // (size - 1), y * 255 // (size - 1),
                    np.full((size, size), (seed * 80) % 256)], axis=-1)
    img[2:5, 2:5] = [255, 255, 255]
    return img.astype(np.uint8)


def feature_bytes(values):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))


def feature_floats(values):
    return tf.train.Feature(float_list=tf.train.FloatList(value=values))


def feature_ints(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def examples():
    """Four Examples: an image (PNG, one JPEG), a label, weights (missing
    from the third), a caption; the last has two tags."""
    out = []
    for i in range(4):
        img = image(i)
        encoded = (tf.io.encode_jpeg(img, quality=90) if i == 2
                   else tf.io.encode_png(img)).numpy()
        feature = {
            "image": feature_bytes([encoded]),
            "label": feature_ints([i % 3]),
            "caption": feature_bytes([f"picture {i}".encode()]),
        }
        if i != 2:
            feature["weights"] = feature_floats([0.1 * (i + 1), 0.2, 0.5, 0.9])
        if i == 3:
            feature["tags"] = feature_bytes([b"cat", b"small"])
        ex = tf.train.Example(features=tf.train.Features(feature=feature))
        out.append(ex.SerializeToString(deterministic=True))
    return out


def sequence_examples():
    """Two SequenceExamples (2 and 3 steps): context `id`, `length`; feature
    lists `frames` (floats), `tokens` (int64s) and `images` (a PNG a step,
    two at step 1)."""
    out = []
    for i in range(2):
        steps = i + 2

        def pictures(s):
            count = 2 if s == 1 else 1
            return feature_bytes([tf.io.encode_png(image(10 * i + 3 * s + j, 6)).numpy()
                                  for j in range(count)])
        se = tf.train.SequenceExample(
            context=tf.train.Features(feature={
                "id": feature_bytes([f"clip-{i}".encode()]),
                "length": feature_ints([steps]),
            }),
            feature_lists=tf.train.FeatureLists(feature_list={
                "frames": tf.train.FeatureList(feature=[
                    feature_floats([float(s), float(s) / 2]) for s in range(steps)]),
                "tokens": tf.train.FeatureList(feature=[
                    feature_ints([s * 10 + i]) for s in range(steps)]),
                "images": tf.train.FeatureList(feature=[
                    pictures(s) for s in range(steps)]),
            }))
        out.append(se.SerializeToString(deterministic=True))
    return out


def write_records(name, records, compression=None):
    options = tf.io.TFRecordOptions(compression_type=compression) if compression else None
    with tf.io.TFRecordWriter(path(name), options=options) as w:
        for r in records:
            w.write(r)


def tensors():
    return [tf.io.serialize_tensor(t).numpy() for t in (
        tf.constant([[1.5, 2.5], [3.5, 4.5]], dtype=tf.float32),
        tf.constant([1, 2, 3], dtype=tf.int64),
    )]


def plugin(name, content=b""):
    """The SummaryMetadata TensorBoard's summary ops attach (its plugin
    name, version-0 content)."""
    from tensorflow.core.framework import summary_pb2
    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(
            plugin_name=name, content=content)).SerializeToString()


def histogram_buckets(values, bins):
    """TensorBoard's histogram tensor: rows of (left edge, right edge, count)."""
    counts, edges = np.histogram(values, bins=bins)
    return np.stack([edges[:-1], edges[1:], counts.astype(np.float64)], axis=1)


def tf2_events(folder):
    """Scalars (two tags, five steps), a histogram (three steps), an image,
    a text and a graph, written by tf.summary.write (TF 2's summary writer)
    with the tensors and metadata TensorBoard's tf.summary.scalar,
    histogram, image and text make (TensorBoard itself is not needed), and
    the graph of a traced tf.function (tf.summary.graph)."""
    writer = tf.summary.create_file_writer(folder)

    @tf.function
    def model(x):
        return tf.nn.relu(tf.matmul(x, tf.ones([2, 2])) + 1.0)

    with writer.as_default():
        graph = model.get_concrete_function(tf.TensorSpec([1, 2], tf.float32)).graph
        tf.summary.graph(graph.as_graph_def())
        for step in range(5):
            tf.summary.write("loss", tf.constant(1.0 / (step + 1)), step=step,
                             metadata=plugin("scalars"))
            tf.summary.write("accuracy", tf.constant(0.5 + 0.1 * step), step=step,
                             metadata=plugin("scalars"))
        for step in range(3):
            tf.summary.write("weights", histogram_buckets(np.linspace(-1, 1, 50) * (step + 1), 6),
                             step=step, metadata=plugin("histograms"))
        png = tf.io.encode_png(image(1)).numpy()
        tf.summary.write("sample", tf.constant([b"8", b"8", png]), step=4,
                         metadata=plugin("images"))
        tf.summary.write("note", tf.constant("a text summary"), step=0,
                         metadata=plugin("text"))
    writer.flush()
    writer.close()


def tf1_events(folder):
    """A TF1-style event file: simple_value scalars, a HistogramProto, an
    encoded image and a graph_def, through tf.compat.v1.summary.FileWriter."""
    graph = tf.Graph()
    with graph.as_default():
        a = tf.compat.v1.placeholder(tf.float32, [None, 2], name="a")
        tf.identity(a * 2.0, name="doubled")
    with tf.Graph().as_default():
        writer = tf.compat.v1.summary.FileWriter(folder, graph=graph)
        tf1_summaries(writer)


def tf1_summaries(writer):
    for step in range(3):
        s = tf.compat.v1.Summary(value=[
            tf.compat.v1.Summary.Value(tag="loss", simple_value=2.0 / (step + 1))])
        writer.add_summary(s, global_step=step)
    values = np.linspace(0, 1, 20)
    counts, edges = np.histogram(values, bins=4)
    histo = tf.compat.v1.HistogramProto(
        min=float(values.min()), max=float(values.max()), num=len(values),
        sum=float(values.sum()), sum_squares=float((values ** 2).sum()),
        bucket_limit=[float(e) for e in edges[1:]], bucket=[float(c) for c in counts])
    writer.add_summary(tf.compat.v1.Summary(value=[
        tf.compat.v1.Summary.Value(tag="values", histo=histo)]), global_step=3)
    with tf.compat.v1.Session() as session:
        png = session.run(tf.io.encode_png(image(2)))
    writer.add_summary(tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(
        tag="picture", image=tf.compat.v1.Summary.Image(
            height=8, width=8, colorspace=3, encoded_image_string=png))]), global_step=3)
    writer.flush()
    writer.close()


def only_file(folder):
    files = glob.glob(os.path.join(folder, "events.out.tfevents.*"))
    assert len(files) == 1, files
    return files[0]


def damaged():
    data = open(path("examples.tfrecord"), "rb").read()
    first_len = struct.unpack("<Q", data[:8])[0]
    second = 8 + 4 + first_len + 4  # where the second record starts

    # The last byte of the first record's data CRC changed.
    bad = bytearray(data)
    bad[second - 1] ^= 0xFF
    open(path("bad_data_crc.tfrecord"), "wb").write(bytes(bad))

    # The second record's length CRC changed.
    bad = bytearray(data)
    bad[second + 8] ^= 0xFF
    open(path("bad_length_crc.tfrecord"), "wb").write(bytes(bad))

    # Cut in the middle of the last record (a file still being written).
    open(path("cut.tfrecord"), "wb").write(data[:len(data) - 30])

    # The second record's length set to 2^40 with a correct length CRC.
    import crc32c_mask
    huge = 1 << 40
    header = struct.pack("<Q", huge)
    bad = bytearray(data)
    bad[second:second + 8] = header
    bad[second + 8:second + 12] = struct.pack("<I", crc32c_mask.masked(header))
    open(path("huge_length.tfrecord"), "wb").write(bytes(bad))


def main():
    exs = examples()
    write_records("examples.tfrecord", exs)
    write_records("examples.tfrecord.gz", exs, "GZIP")
    write_records("examples.tfrecord.zlib", exs, "ZLIB")
    # No record written: what sharded writers leave for an empty shard.
    write_records("empty.tfrecord", [])
    write_records("empty.tfrecord.gz", [], "GZIP")
    write_records("empty.tfrecord.zlib", [], "ZLIB")
    write_records("sequence_examples.tfrecord", sequence_examples())
    write_records("tensors.tfrecord", tensors())
    # Raw bytes that are no protobuf message: read without a schema or not at all.
    write_records("strings.tfrecord", [b"hello", b"", b"\xff\xfe not protobuf"])
    for maker, name in ((tf2_events, "tf2.tfevents"), (tf1_events, "tf1.tfevents")):
        folder = tempfile.mkdtemp()
        try:
            maker(folder)
            shutil.copy(only_file(folder), path(name))
        finally:
            shutil.rmtree(folder)
    damaged()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(__file__))
    main()
