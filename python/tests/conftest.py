"""Shared helpers: the repository's fixtures and its `decode` command, the
reference every test compares with."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"

# Files under tests/fixtures that are no protobuf input of their own
# (schemas, descriptor sets, text formats, notes, side files).
_NOT_INPUTS = {".md", ".proto", ".desc", ".txtpb", ".json", ".bin"}


def decode_binary() -> Path:
    """The `decode` command: $PBDECODE_DECODE, or the one `cargo test` or
    `cargo build` left in target/."""
    named = os.environ.get("PBDECODE_DECODE")
    candidates = [Path(named)] if named else [REPO / "target" / "debug" / "decode", REPO / "target" / "release" / "decode"]
    for c in candidates:
        if c.is_file():
            return c
    pytest.fail(f"no decode command at {', '.join(map(str, candidates))}: run `cargo build` first")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(decode_binary()), *args], capture_output=True, check=False)


def cli_json(path: Path, *args: str) -> dict:
    out = cli("--json", *args, str(path))
    return json.loads(out.stdout)


def inputs() -> list[Path]:
    """Every protobuf input among the fixtures, in name order."""
    out = []
    for p in sorted(FIXTURES.rglob("*")):
        # Tensor bundles are a table, not one message: test_checkpoint.py.
        skip = "fuzz-regressions" in p.parts or "tf-checkpoint" in p.parts
        if p.is_file() and p.suffix not in _NOT_INPUTS and not skip:
            out.append(p)
    return out


def ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(FIXTURES)) for p in paths]
