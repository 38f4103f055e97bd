#!/usr/bin/env python3
"""The wall-clock x axis of a snapshot's Active Memory Timeline, from the
pickle with Python's own pickle module, for tests/e2e/timeaxis.test.mjs and
crates/memviz-viewer/tests/time_axis.rs.

Rules (README, "Time and phases"; as phases_reference.py): one step per
alloc / free_completed (legacy free) event of the device; a step's time is
its event's time_us (missing: the previous; never backwards); the last step
lasts the median positive gap. A gap is idle when longer than max(5% of the
run, 100 x the median gap, 1 ms) and is drawn 1% of the rest of the run wide
(at least one median gap, at most the threshold). Display x of a step: the
sum of the (compressed) gaps before it, in seconds.

For each ELEM:ALLOC_STEP:FREE_STEP given (free -1: never freed), prints the
real seconds of its alloc and free and the display x of the middle of its
life.

    python3 tests/reference/time_axis_reference.py SNAPSHOT [DEVICE] [ELEM:A:B ...]
"""
import json
import pickle
import sys

ACTIONS = ("alloc", "free_completed", "free")


def median_positive(d):
    p = sorted(v for v in d if v > 0)
    return p[len(p) // 2] if p else None


def main(path, device, elems):
    with open(path, "rb") as f:
        snap = pickle.load(f)
    trace = snap["device_traces"][device] if isinstance(snap, dict) else []
    times = [e.get("time_us") for e in trace if e.get("action") in ACTIONS]
    known = [t for t in times if t is not None]
    out = {"device": device, "n_steps": len(times), "has_time": bool(known)}
    if not known:
        print(json.dumps(out))
        return
    t_us, last = [], known[0]
    for t in times:
        if t is not None and t > last:
            last = t
        t_us.append(last)
    deltas = [b - a for a, b in zip(t_us, t_us[1:])]
    median = median_positive(deltas) or 1
    t_us.append(last + median)
    deltas.append(median)
    threshold = max(sum(max(d, 0) for d in deltas) * 0.05, median * 100, 1000)
    kept = sum(d for d in deltas if d <= threshold)
    shown = min(max(kept * 0.01, median), threshold)
    x, gaps = [0.0], []
    for i, d in enumerate(deltas):
        if d > threshold:
            gaps.append({"step": i + 1, "real_s": d / 1e6, "x_s": x[-1]})
        x.append(x[-1] + (shown if d > threshold else d) / 1e6)
    out.update(t0_us=known[0], span_s=x[-1], shown_s=shown / 1e6, gaps=gaps, elements=[])
    n = len(times)
    for spec in elems:
        e, a, b = (int(v) for v in spec.split(":"))
        b = n if b < 0 else b
        out["elements"].append({
            "elem": e, "alloc_step": a, "free_step": b,
            "alloc_s": (t_us[a] - known[0]) / 1e6, "free_s": (t_us[b] - known[0]) / 1e6,
            "x0_s": x[a], "x1_s": x[b], "mid_x_s": (x[a] + x[b]) / 2,
        })
    print(json.dumps(out))


if __name__ == "__main__":
    args = sys.argv[2:]
    dev = int(args.pop(0)) if args and ":" not in args[0] else 0
    main(sys.argv[1], dev, args)
