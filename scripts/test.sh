#!/usr/bin/env bash
# Sets up everything the tests need (idempotent; see scripts/setup.sh) and
# runs every test: the Rust workspace (core, CLI, renderer, reference numbers
# against Python), the wasm API in headless Chromium, the page end to end,
# and the CLI and Python package as a new user builds them (test-python.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d ../shared/snapshots ]; then
  echo "test.sh: ../shared/snapshots is missing: the tests read the real snapshots from there" >&2
  exit 1
fi
scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
echo "== cargo fmt --check (rustfmt.toml)"
cargo fmt --all --check
echo "== cargo clippy (native workspace, and the wasm crates for wasm32), warnings are errors"
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p memviz-wasm -p memviz-worker --all-targets -- -D warnings
echo "== cargo test (workspace)"
cargo test --workspace
echo "== the page's modules against the types generated from Rust (tsc)"
scripts/check-types.sh
echo "== web: wasm-bindgen tests and end-to-end tests in headless Chromium"
scripts/test-web.sh
echo "== Python package, scripts/build-cli.sh from a fresh checkout, memviz open and show() in Chromium"
scripts/test-python.sh
