#!/usr/bin/env bash
# The Python package's tests as a user gets the package: the wheel built by
# maturin in a fresh virtual environment (its size checked), the package
# installed there with `pip install ./python`, pytest run over
# python/tests against the `decode` command (cargo builds it first); Ray
# Data for pbdecode.ray and the example, on a local Ray. Also rustfmt and
# clippy (warnings denied) on the binding crate, mypy and stubtest on the
# installed package, and the wheel's size (one abi3 wheel, at most 1.5 MiB).
#
#   python/run_tests.sh [PYTEST ARGS]      (PYTHON=python3.12 to pick one)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
python=${PYTHON:-python3}
(cd "$repo" && cargo build --quiet --bin decode)
export PBDECODE_DECODE="${CARGO_TARGET_DIR:-$repo/target}/debug/decode"
cargo fmt --manifest-path "$here/Cargo.toml" --check
cargo clippy --quiet --manifest-path "$here/Cargo.toml" --all-targets -- -D warnings
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
"$venv_python" -m pip install --quiet --disable-pip-version-check \
  "maturin>=1.5,<2" pytest numpy ml_dtypes pyarrow pandas
# Ray Data for pbdecode.ray and the example: its tests skip only when this
# install fails (no wheel of Ray for this Python or platform), saying why.
if ! ray_log=$("$venv_python" -m pip install --quiet --disable-pip-version-check "ray[data]" 2>&1); then
  export PBDECODE_RAY_UNAVAILABLE="pip install 'ray[data]' failed: $(printf '%s' "$ray_log" | tail -n 1)"
  echo "$PBDECODE_RAY_UNAVAILABLE" >&2
fi
(cd "$here" && "$work/venv/bin/maturin" build --quiet --release --out "$work/dist")
wheel=$(ls "$work"/dist/*.whl)
size=$(stat -c %s "$wheel")
echo "wheel: $(basename "$wheel"), $size bytes"
# At most 1.5 MiB: 1 MiB with tensors alone, 1.11 MiB (1,163,482 bytes)
# with record files as columns, event files, Arrow through the C data
# interface, graphs (the operator tables of formal names) and pictures.
if [ "$size" -gt 1572864 ]; then
  echo "the wheel is over 1.5 MiB" >&2
  exit 1
fi
# Installed as the README says, `pip install ./python` (pip builds it with
# maturin, in place, so the build above is reused).
"$venv_python" -m pip install --quiet --disable-pip-version-check "$here" mypy
# From outside the source tree, so that the installed package is tested.
cd "$work"
# The types: the package's annotations and the native module's stub
# (_pbdecode.pyi) checked by mypy, and the stub against the built module.
"$venv_python" -m mypy --config-file "$here/pyproject.toml" -p pbdecode
"$venv_python" -m mypy.stubtest --mypy-config-file "$here/pyproject.toml" pbdecode
"$venv_python" -m pytest -p no:cacheprovider -q --rootdir "$here/tests" "$here/tests" "$@"
