#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ for a while, seeded with the real
# snapshots in ../shared/snapshots and small generated ones (written into
# fuzz/corpus at run time: never committed).
#
#   scripts/fuzz.sh [TARGET] [SECONDS] [extra libFuzzer flags...]
#   scripts/fuzz.sh decode 600        # 10 minutes of the decoder + model builder
#   scripts/fuzz.sh views 600         # decode, then every view for every device
#   scripts/fuzz.sh pools 300         # Allocated Memory (incl. Private Pools), drawn both ways
#   scripts/fuzz.sh segment_map 300   # the state history's map: layout, drawing, scroll, hover
#   scripts/fuzz.sh search 300        # search by address and frame text
#   scripts/fuzz.sh hover 300         # the timelines drawn and hovered at odd sizes
#   scripts/fuzz.sh all 1800          # all six, a sixth of the time each
# The view targets read their canvas size, scroll offset, detail limit... from
# the input's last 16 bytes (fuzz/fuzz_targets/common.rs).
#
# Installs cargo-fuzz when missing. The sanitizer flags need a nightly
# compiler: the nightly toolchain when rustup has one, else the stable one
# with RUSTC_BOOTSTRAP=1 (which unlocks the same -Z flags; FUZZ_TOOLCHAIN=
# stable or nightly forces either). FUZZ_ASSERTIONS=1 builds with debug
# assertions and overflow checks (cargo fuzz -a), as `cargo test` runs.
# Crashes land in fuzz/artifacts/TARGET/; turn each into a regression test
# (crates/memviz-core/tests/regressions/, read by tests/hostile.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-all}"
secs="${2:-600}"
shift $(( $# > 2 ? 2 : $# ))
shared="${SHARED:-../shared}"
export PATH="$HOME/.cargo/bin:$PATH"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
toolchain="${FUZZ_TOOLCHAIN:-}"
if [ -z "$toolchain" ]; then
    if rustup run nightly rustc --version >/dev/null 2>&1; then toolchain=nightly; else toolchain=stable; fi
fi
if [ "$toolchain" = stable ]; then
    export RUSTC_BOOTSTRAP=1
    cargo_fuzz=(cargo fuzz)
else
    cargo_fuzz=(cargo "+$toolchain" fuzz)
fi
echo "== cargo-fuzz $(cargo fuzz --version 2>/dev/null | awk '{print $2}') on the $toolchain toolchain"

build_flags=()
if [ "${FUZZ_ASSERTIONS:-0}" = 1 ]; then build_flags=(-a); fi

if [ "$target" = all ]; then
    targets=(decode views pools segment_map search hover)
    secs=$(( secs / 6 ))
else
    targets=("$target")
fi

seed_corpus() {
    local dir="fuzz/corpus/$1"
    mkdir -p "$dir"
    # Real files; libFuzzer keeps only the first -max_len bytes of the big ones.
    cp "$shared"/snapshots/*.pickle "$shared"/snapshots/*.pkl "$dir"/ 2>/dev/null || true
    chmod u+w "$dir"/* 2>/dev/null || true
    # Small generated snapshots in every protocol, plus JSON and gzip forms.
    local tmp
    tmp=$(mktemp -d)
    for p in 2 3 4 5; do
        python3 "$shared/tools/gen_snapshot.py" "$tmp/gen_p$p.pickle" --events 40 --protocol "$p" --seed "$p" >/dev/null
    done
    python3 "$shared/tools/gen_snapshot.py" "$tmp/gen_2dev_oom.pickle" --events 60 --devices 2 --oom >/dev/null
    python3 "$shared/tools/gen_snapshot.py" "$tmp/gen_expandable.pickle" --events 60 --expandable >/dev/null
    python3 - "$tmp" <<'PY'
import gzip, json, pickle, sys, os
d = sys.argv[1]
s = pickle.load(open(os.path.join(d, "gen_p4.pickle"), "rb"))
for proto in (0, 1):
    open(os.path.join(d, f"gen_p{proto}.pickle"), "wb").write(pickle.dumps(s, protocol=proto))
open(os.path.join(d, "gen.json"), "w").write(json.dumps(s))
open(os.path.join(d, "gen.pickle.gz"), "wb").write(gzip.compress(pickle.dumps(s, protocol=4)))
PY
    # Hostile snapshots (issue 9) and private pools, for the view targets.
    python3 tests/hostile/gen_hostile.py "$tmp" past_end overlap sizes chaos devices
    python3 tests/reference/gen_private_pool.py "$tmp/gen_private_pool.pickle" >/dev/null
    cp "$tmp"/* "$dir"/
    rm -rf "$tmp"
}

for t in "${targets[@]}"; do
    seed_corpus "$t"
    mkdir -p "fuzz/artifacts/$t"
    echo "== fuzzing $t for ${secs}s"
    (cd fuzz && "${cargo_fuzz[@]}" run "${build_flags[@]}" "$t" "corpus/$t" -- \
        -dict=pickle.dict -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
        -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" "$@")
done
