#!/usr/bin/env bash
# End-to-end tests of the explorer (`decode serve`, and the static site
# with its WebAssembly module) in headless Chromium, driven by
# playwright-core with node's own test runner. Builds the binary and the
# static site (scripts/build-site.sh, into target/site; it needs the wasm32
# target), installs the locked npm packages when missing, runs every
# *.test.mjs here.
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
export SITE_DIR="${CARGO_TARGET_DIR:-$repo/target}/site"
"$repo/scripts/build-site.sh" "$SITE_DIR"
cd "$here"
if [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
# The page's suites with each back end: the server, then the static site
# (harness.mjs); the module's own comparison with the command once.
status=0
node --test --test-reporter=tap || status=1
BACKEND=static node --test --test-reporter=tap explorer.test.mjs page.test.mjs summary.test.mjs graph.test.mjs graph_views.test.mjs responsive.test.mjs records.test.mjs checkpoints.test.mjs weights_search.test.mjs || status=1
exit $status
