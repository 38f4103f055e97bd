#!/usr/bin/env bash
# Installs what the build and the tests need, on a fresh Debian with only
# rustup's stable Rust, Node/npm, Python 3 and apt. Idempotent: each step is
# skipped when its tool is already there at the pinned version.
#   - the wasm32-unknown-unknown target
#   - trunk 0.21.14 (builds the page)
#   - wasm-bindgen-cli 0.2.130 (must equal the crate's pinned wasm-bindgen;
#     also the wasm-bindgen-test runner)
#   - Debian's chromium and chromium-driver (the tests' browser; no tool may
#     download a browser of its own)
#   - tests/e2e: npm ci (playwright-core, and binaryen@132 for wasm-opt)
#   - target/py-tools: a virtual environment with maturin and pytest from
#     PyPI (the Python package's build and tests; python3-venv from apt when
#     Debian's python3 lacks it)
# --build: only what building the page needs (scripts/build-cli.sh): no
# browser, no Python tools.
set -euo pipefail
build_only=0
[ "${1:-}" = --build ] && build_only=1
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

if ! trunk --version 2>/dev/null | grep -q '0\.21\.14'; then
  cargo install trunk --version 0.21.14 --locked
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q '0\.2\.130'; then
  # Not --locked: the CLI's own lockfile does not build with current Rust.
  cargo install wasm-bindgen-cli --version 0.2.130 --force
fi

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if [ "$build_only" = 0 ] && ! { command -v chromium && command -v chromedriver; } >/dev/null 2>&1; then
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium chromium-driver
fi

# npm ci only when node_modules does not match the lockfile's pins.
installed() { node -p "require('./tests/e2e/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(installed playwright-core)" != "$(node -p "require('./tests/e2e/package.json').devDependencies['playwright-core']")" ] ||
   [ "$(installed binaryen)" != "$(node -p "require('./tests/e2e/package.json').devDependencies.binaryen")" ]; then
  (cd tests/e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
fi
if [ "$build_only" = 1 ]; then
  exit 0
fi

# maturin and pytest: pinned to a major version, upgraded only when missing.
if ! target/py-tools/bin/python -c 'import maturin, pytest' >/dev/null 2>&1; then
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    py="python$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "$py-venv" python3-venv
  fi
  rm -rf target/py-tools
  python3 -m venv target/py-tools
  target/py-tools/bin/pip install -q 'maturin>=1.9,<2' 'pytest>=8,<10'
fi
echo "setup: wasm target, trunk $(trunk --version | awk '{print $2}'), $(wasm-bindgen --version), $(chromium --version 2>/dev/null | head -1), wasm-opt $(tests/e2e/node_modules/.bin/wasm-opt --version | awk '{print $3}'), $(target/py-tools/bin/maturin --version)"
