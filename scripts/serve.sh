#!/usr/bin/env bash
# Sets up what the page needs (scripts/setup.sh, idempotent), builds the
# release page into dist/ and serves it on http://127.0.0.1:${PORT:-8080}.
# Open it and drop a snapshot, or click "Example". dist/ is a plain static
# folder: any static server can host it, and dist/memviz-standalone.html
# opens straight from disk (file://).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-web.sh
PORT="${PORT:-8080}"
echo
echo "memviz: serving dist/ on http://127.0.0.1:$PORT  (Ctrl-C stops it)"
echo "        or open $(pwd)/dist/memviz-standalone.html directly"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist
