#!/usr/bin/env bash
# Builds the memviz CLI with the web viewer inside: target/release/memviz,
# whose `memviz html` and `memviz open` need nothing else. The viewer page
# is built first (scripts/build-web.sh: trunk, wasm-bindgen, wasm-opt; the
# tools come from `scripts/setup.sh --build`, which skips what is there and
# installs no browser), then the CLI, whose build script compiles
# dist/memviz-standalone.html in (crates/memviz-cli/build.rs).
#   scripts/build-cli.sh          # then: target/release/memviz open FILE
# Honours CARGO_TARGET_DIR (the binary is then under it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --build
scripts/build-web.sh >/dev/null
export PATH="$HOME/.cargo/bin:$PATH"
# Named, not found: build.rs only watches a page that existed when it last
# ran, so a target/ that built the CLI before dist/ existed (or from another
# checkout) would keep a binary without this page.
MEMVIZ_VIEWER_HTML="$PWD/dist/memviz-standalone.html" cargo build --release -p memviz-cli
bin="${CARGO_TARGET_DIR:-target}/release/memviz"
echo "build-cli: $bin (the viewer inside: memviz html FILE, memviz open FILE)"
