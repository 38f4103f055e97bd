#!/usr/bin/env bash
# Browser benchmark of the release page (issue 13): builds dist/
# (scripts/build-web.sh) and the native decode_speed binary (the same open
# natively, for the wasm / native ratio), makes the 2,000,000-event synthetic
# snapshot once into target/bench-data/, then benches/browser/run.mjs opens
# each snapshot in headless Debian chromium and prints issue 13's table
# (change -> painted frame, input latency during the big open, decode MB/s
# wasm / native, wasm memory x file, redraw with every allocation drawn; each
# against its target), then benches/browser/decode_rate.mjs the wasm
# decoder's own throughput against the native one. Needs scripts/setup.sh to have run.
#   scripts/bench-web.sh [--no-build] [--huge [PATH]] [--write] [--runs N] [--dist DIR] [--memory-viz DIR] [FILE...]
# Without FILEs the table is issue 13's three files, the real recordings of
# ../shared/recordings (read there at run time) and a 340,000-event file
# with a real recording's stacks (benches/browser/gen_real_stacks.py, made
# once into target/bench-data/: issue 44).
# --memory-viz DIR also opens the same files in PyTorch's memory_viz, in the
# same run (benches/browser/vs_memory_viz.mjs: DIR holds MemoryViz.js, read
# from pytorch/pytorch and never committed here, and node_modules/d3).
# --huge adds a ~1 GB snapshot (gen_snapshot.py --events 16000000; making it
# takes several minutes and ~8 GB of RAM in Python; PATH to reuse one).
# --write puts the tables into benches/browser/RESULTS.md ("bench-web: latest",
# "decode-rate: latest").
# Issue 6's older table: node benches/browser/issue6.mjs (--profile: CPU profiles).
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
args=()
files=()
mv=()
dist=()
write=()
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
    --dist) args+=("$1" "$2"); dist=(--dist "$2"); shift ;;
    --write) args+=("$1"); write=(--write) ;;
    --memory-viz) mv=(--memory-viz "$2"); shift ;;
    --runs) args+=("$1" "$2"); shift ;;
    --huge)
      if [ $# -gt 1 ] && [ -f "$2" ]; then args+=(--huge "$2"); shift
      else args+=(--huge "$(gen 16000000)"); fi ;;
    -*) args+=("$1") ;;
    *) files+=("$1") ;;
  esac
  shift
done
if [ "$build" = 1 ]; then
  scripts/build-web.sh >&2
  cargo build --release -p memviz-benches --bin decode_speed >&2
fi
gen 2000000 >/dev/null
real_stacks=target/bench-data/real_stacks_340000.pickle
if [ ! -f "$real_stacks" ]; then
  echo "bench-web: generating $real_stacks" >&2
  python3 benches/browser/gen_real_stacks.py "$real_stacks.tmp" --events 340000
  mv "$real_stacks.tmp" "$real_stacks"
fi
if [ ${#files[@]} -eq 0 ]; then
  files=(../shared/snapshots/compile_context_metadata.pickle ../shared/snapshots/transformer_fullstep_ctx128.pickle
    target/bench-data/gen_2000000.pickle ../shared/recordings/*.pickle "$real_stacks")
fi
node benches/browser/run.mjs "${args[@]}" "${files[@]}"
if [ ${#mv[@]} -gt 0 ]; then
  echo
  node benches/browser/vs_memory_viz.mjs "${mv[@]}" "${dist[@]}" "${write[@]}" "${files[@]}"
fi
# The wasm decoder's own throughput (the file read whole first) against the
# native one: the page's figure above also counts Chromium's file read.
echo
node benches/browser/decode_rate.mjs "${dist[@]}" "${write[@]}"
