#!/usr/bin/env bash
# The CLI and the Python package as a new user gets them (after
# scripts/setup.sh; run by scripts/test.sh):
#   1. a fresh checkout, this one's tracked and not-ignored files copied
#      (no dist/, no build output), runs scripts/build-cli.sh; its memviz
#      `html` embeds the built-in viewer, and its `open` is tested below;
#   2. maturin builds the wheel there; a new virtual environment installs it
#      and pytest runs python/tests against it (real files from ../shared);
#   3. in headless Chromium (tests/python/e2e.test.mjs): memviz.show()'s
#      HTML from file:// with every request blocked, and `memviz open
#      --no-browser` serving two real files.
# The copy builds into this checkout's target/ (CARGO_TARGET_DIR), so only
# its own crates compile again; it borrows tests/e2e/node_modules (npm ci
# gives the same pins), and is removed at the end. Outputs: target/wheels,
# target/py-test, target/python-e2e.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="$root/target"
t0=$SECONDS

echo "== fresh checkout: scripts/build-cli.sh"
fresh="$root/target/fresh-checkout"
rm -rf "$fresh"
mkdir -p "$fresh"
# Gone at the end: its builds leave cargo's fingerprints in target/ naming its files, and while those
# exist (older than this checkout's), a build here counts this checkout's changed crates as up to date.
trap 'rm -rf "$fresh"' EXIT
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -xf - -C "$fresh"
ln -s "$root/tests/e2e/node_modules" "$fresh/tests/e2e/node_modules"
rm -f "$CARGO_TARGET_DIR/release/memviz"
(cd "$fresh" && scripts/build-cli.sh)
memviz="$CARGO_TARGET_DIR/release/memviz"
snap="$root/../shared/snapshots/small_train_step.pickle"
said=$("$memviz" html "$snap" -o "$root/target/python-e2e-html.html")
echo "$said"
case "$said" in
  *"viewer: the viewer built into memviz)"*) ;;
  *) echo "test-python: memviz html did not use a built-in viewer: $said" >&2; exit 1 ;;
esac
echo "build-cli: $((SECONDS - t0)) s"

echo "== the wheel (maturin), installed into a new virtual environment"
t1=$SECONDS
rm -rf target/wheels
target/py-tools/bin/maturin build --release -m "$fresh/python/Cargo.toml" -o target/wheels
rm -rf target/py-test
python3 -m venv target/py-test
target/py-test/bin/pip install -q target/wheels/memviz-*.whl 'pytest>=8,<10'
echo "wheel: $((SECONDS - t1)) s"

echo "== pytest python/tests (the installed wheel)"
# From the repository root, so that python/memviz (no binary module) is not imported instead.
MEMVIZ_SHARED="$root/../shared" target/py-test/bin/pytest -q -p no:cacheprovider python/tests

echo "== memviz.show() and memviz open in headless Chromium"
MEMVIZ_PYTHON="$root/target/py-test/bin/python" MEMVIZ="$memviz" node --test --test-concurrency=1 tests/python/
echo "test-python: $((SECONDS - t0)) s"
