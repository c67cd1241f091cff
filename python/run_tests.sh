#!/usr/bin/env bash
# The Python package's tests as a user gets the package: the wheel built by
# maturin in a fresh virtual environment (its size checked), the package
# installed there with `pip install ./python`, pytest run over
# python/tests against the `decode` command (cargo builds it first); Ray
# Data for the example's test, on a local Ray. Also
# rustfmt and clippy (warnings denied) on the binding crate, and the
# wheel's size (one abi3 wheel, at most 1 MiB).
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
  "maturin>=1.5,<2" pytest numpy ml_dtypes "ray[data]"
(cd "$here" && "$work/venv/bin/maturin" build --quiet --release --out "$work/dist")
wheel=$(ls "$work"/dist/*.whl)
size=$(stat -c %s "$wheel")
echo "wheel: $(basename "$wheel"), $size bytes"
if [ "$size" -gt 1048576 ]; then
  echo "the wheel is over 1 MiB" >&2
  exit 1
fi
# Installed as the README says, `pip install ./python` (pip builds it with
# maturin, in place, so the build above is reused).
"$venv_python" -m pip install --quiet --disable-pip-version-check "$here"
# From outside the source tree, so that the installed package is tested.
cd "$work"
"$venv_python" -m pytest -p no:cacheprovider -q --rootdir "$here/tests" "$here/tests" "$@"
