"""diff, assert_close and testdata: the comparison and the report of
`decode diff`, on files and on the arrays a runtime returns."""

from __future__ import annotations

import numpy as np
import pytest

import pbdecode
from conftest import FIXTURES, cli

DIFF = FIXTURES / "onnx-testdata" / "diff"
PAIRS = [
    ("expected.pb", "same.pb"),
    ("expected.pb", "within.pb"),
    ("expected.pb", "out.pb"),
    ("expected.pb", "shape.pb"),
    ("expected.pb", "type.pb"),
    ("nan_expected.pb", "nan_actual.pb"),
    ("nan_expected.pb", "nan_same.pb"),
    ("str_expected.pb", "str_actual.pb"),
    ("seq_expected.pb", "seq_actual.pb"),
]


@pytest.mark.parametrize("x,y", PAIRS)
def test_diff_is_decode_diff_on_files_and_on_their_arrays(x, y):
    printed = cli("diff", str(DIFF / x), str(DIFF / y))
    body = "".join(printed.stdout.decode().splitlines(keepends=True)[2:])
    d = pbdecode.diff(DIFF / x, DIFF / y)
    assert d.report == body
    assert bool(d) == (printed.returncode == 0)
    # The same values as arrays (what a runtime returns): the same report.
    a = pbdecode.diff(pbdecode.load(DIFF / x), pbdecode.load(DIFF / y))
    assert a.report == body and bool(a) == bool(d)
    assert (a.compared, a.differing) == (d.compared, d.differing)


def test_worst_elements_and_counts():
    d = pbdecode.diff(DIFF / "expected.pb", DIFF / "out.pb")
    assert not d and d.compared == 1 and d.differing == 1
    (entry,) = d.entries
    assert entry["tensor"]["mismatches"] == 3
    assert len(entry["tensor"]["first_mismatches"]) == 3
    assert entry["tensor"]["max_abs_diff"]["index"] == [1, 2, 3]
    with pytest.raises(AssertionError, match="3 out of tolerance"):
        pbdecode.assert_close(pbdecode.load(DIFF / "expected.pb"), pbdecode.load(DIFF / "out.pb"))
    # Tolerances are the caller's.
    assert pbdecode.diff(DIFF / "expected.pb", DIFF / "out.pb", rtol=3.0)
    assert not pbdecode.diff(DIFF / "expected.pb", DIFF / "within.pb", rtol=1e-5)


def test_a_runtimes_test_reads_as_one_loop():
    folder = FIXTURES / "onnx-testdata" / "test_add_bias"
    bias = pbdecode.load(folder / "model.onnx", "bias")

    def run(inputs):
        return {"z": inputs["x"] + bias + inputs["y"]}

    cases = pbdecode.testdata(folder)
    assert [c.name for c in cases] == ["test_data_set_0", "test_data_set_1"]
    for case in cases:
        assert list(case.inputs) == ["x", "y"] and list(case.outputs) == ["z"]
        pbdecode.assert_close(case.outputs, run(case.inputs))
    with pytest.raises(AssertionError, match="out of tolerance"):
        pbdecode.assert_close(cases[0].outputs, {"z": run(cases[0].inputs)["z"] + 1})
    with pytest.raises(AssertionError, match="no output named 'z'"):
        pbdecode.assert_close(cases[0].outputs, {"w": 0})


def test_containers_compare_by_structure():
    folder = FIXTURES / "onnx-testdata"
    (m,) = pbdecode.testdata(folder / "test_map_identity")
    pbdecode.assert_close(m.outputs, {"out": dict(m.inputs["m"])})
    changed = {k: v + 1 for k, v in m.inputs["m"].items()}
    assert not pbdecode.diff(m.outputs["out"], changed)
    assert not pbdecode.diff({1: np.float32(1)}, {2: np.float32(1)})
    (s,) = pbdecode.testdata(folder / "test_sequence_length")
    assert s.outputs["len"] == 1
    pbdecode.assert_close(s.outputs, {"len": np.array(len(s.inputs["seq"]), dtype=np.int64)})
    assert not pbdecode.diff(s.inputs["seq"], s.inputs["seq"] * 2)
    assert pbdecode.diff(["a", "b"], np.array(["a", "b"], dtype=object)) is not None
    assert not pbdecode.diff(np.array(["a", "b"], dtype=object), np.array(["a", "c"], dtype=object))


def test_every_dtype_survives_the_comparison():
    tensors = FIXTURES / "onnx-tensor"
    for p in sorted([*tensors.glob("*_typed.pb"), *tensors.glob("*_raw.pb"), *tensors.glob("all_codes_*.pb")]):
        if p.name.startswith("bad_"):
            continue
        a = pbdecode.load(p)
        assert pbdecode.diff(a, a), p
        assert pbdecode.diff(p, a), p
