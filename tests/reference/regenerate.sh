#!/bin/sh
# Regenerates tests/reference/expected/NAME.json from the real snapshots in
# ../shared/snapshots (beside the repository root) with the Python reference.
# Run from anywhere:  sh tests/reference/regenerate.sh [SNAPSHOT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
snaps=${1:-$root/../shared/snapshots}
[ -d "$snaps" ] || { echo "no snapshot directory at $snaps" >&2; exit 1; }
mkdir -p "$here/expected"
for f in "$snaps"/*; do
    case "$f" in *.md) continue ;; esac
    name=$(basename "$f")
    python3 "$here/memviz_reference.py" expected "$f" > "$here/expected/$name.json.tmp"
    mv "$here/expected/$name.json.tmp" "$here/expected/$name.json"
    echo "wrote expected/$name.json"
done
