#!/usr/bin/env bash
# Web viewer tests (after scripts/setup.sh):
#   1. the wasm API in headless Chromium (wasm-bindgen-test, chromedriver);
#   2. the release page built into dist/ (scripts/build-web.sh), driven by
#      playwright-core in Debian's chromium with real snapshots from
#      ../shared/snapshots (tests/e2e/web.test.mjs).
# MEMVIZ_SCREENSHOTS=1 also refreshes docs/screenshot-*.png.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner

echo "== wasm-bindgen tests (headless Chromium)"
# --release: the deps are shared with the trunk release build. One test
# prints (never asserts) a timing, plotters-canvas vs the pixel buffer,
# which is only meaningful optimized; timings are checked in benches/.
cargo test --release --target wasm32-unknown-unknown -p memviz-wasm -p memviz-worker -- --nocapture

echo "== build dist/"
scripts/build-web.sh

echo "== end-to-end tests (playwright-core, Debian chromium)"
cd tests/e2e
node --test --test-concurrency=1
