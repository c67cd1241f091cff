#!/usr/bin/env bash
# End-to-end tests of the explorer (`decode serve`) in headless Chromium,
# driven by playwright-core with node's own test runner. Builds the binary,
# installs the locked npm packages when missing, runs every *.test.mjs here.
# Screenshots of each step: target/browser-screenshots/.
#
#   tests/browser/run.sh            (CHROMIUM=/path/to/chromium to pick one)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "browser tests: no Chromium at $CHROMIUM (apt-get install -y chromium)" >&2
  exit 1
fi
if ! command -v node >/dev/null; then
  echo "browser tests: no node (apt-get install -y nodejs npm)" >&2
  exit 1
fi
(cd "$repo" && cargo build --quiet --bin decode)
export DECODE_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/decode"
cd "$here"
if [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node --test --test-reporter=tap
