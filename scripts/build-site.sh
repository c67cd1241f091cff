#!/usr/bin/env bash
# Builds the explorer as a static site, with no server: the page (web/)
# and the WebAssembly build of its endpoints (wasm/), which reads the
# files dropped on the page in the browser. Every file the site needs is
# written into OUT; nothing it loads comes from anywhere else.
#
#   scripts/build-site.sh OUT
#
# Needs the wasm32 target (rustup target add wasm32-unknown-unknown).
# wasm-opt (Debian's binaryen) shrinks the module by a tenth when it is
# installed (it takes a while: only when the module changed).
set -euo pipefail
out=${1:?usage: scripts/build-site.sh OUT}
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
(cd "$repo/wasm" && CARGO_TARGET_DIR="$target" cargo build --quiet --release --locked --target wasm32-unknown-unknown)
mkdir -p "$out"
module="$target/wasm32-unknown-unknown/release/pbdecode_wasm.wasm"
if [ "$out/pbdecode.wasm" -nt "$module" ]; then
  : # built from this module already
elif command -v wasm-opt >/dev/null; then
  wasm-opt -O2 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext "$module" -o "$out/pbdecode.wasm"
else
  cp "$module" "$out/pbdecode.wasm"
fi
# The page's modules as they are now (none left of an earlier build).
rm -f "$out"/*.js
cp "$repo"/web/*.js "$repo/web/app.css" "$repo/web/icon.svg" "$out/"
python3 "$repo/scripts/site_pages.py" "$repo/web" "$out"
