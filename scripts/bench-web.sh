#!/usr/bin/env bash
# Browser benchmark of the release page (issue 6): builds dist/
# (scripts/build-web.sh), makes the 2,000,000-event synthetic snapshot once
# into target/bench-data/, then benches/browser/run.mjs opens each snapshot
# in headless Debian chromium and prints the table (also written to
# benches/browser/RESULTS.md). Needs scripts/setup.sh to have run.
#   scripts/bench-web.sh [--no-build] [--huge [PATH]] [--profile] [FILE...]
# --huge adds a ~1 GB snapshot (gen_snapshot.py --events 16000000; making it
# takes several minutes and ~8 GB of RAM in Python; PATH to reuse one).
# --profile adds CDP CPU profiles summarised by function.
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
args=()
gen() { # events -> path, generated once
  local p="target/bench-data/gen_$1.pickle"
  if [ ! -f "$p" ]; then
    mkdir -p target/bench-data
    echo "bench-web: generating $p" >&2
    python3 ../shared/tools/gen_snapshot.py "$p.tmp" --events "$1" --devices 2 --oom
    mv "$p.tmp" "$p"
  fi
  echo "$p"
}
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --huge)
      if [ $# -gt 1 ] && [ -f "$2" ]; then args+=(--huge "$2"); shift
      else args+=(--huge "$(gen 16000000)"); fi ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ "$build" = 1 ] && scripts/build-web.sh >&2
gen 2000000 >/dev/null
node benches/browser/run.mjs "${args[@]}"
