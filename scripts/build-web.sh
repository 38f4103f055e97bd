#!/usr/bin/env bash
# Builds the web viewer into dist/: trunk release build (wasm-bindgen 0.2.130
# and wasm-opt from binaryen@132 in tests/e2e/node_modules, nothing
# downloaded), then scripts/finish-dist.mjs pins the CSP and writes
# dist/memviz-standalone.html (runs from file://).
# Needs scripts/setup.sh to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tests/e2e/node_modules/.bin:$HOME/.cargo/bin:$PATH"
command -v wasm-opt >/dev/null || { echo "wasm-opt missing: run scripts/setup.sh" >&2; exit 1; }
trunk --offline=true build --release
node scripts/finish-dist.mjs dist
ls -l dist
