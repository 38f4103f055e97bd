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

`step_at`: the step shown at 25%, 50% and 75% of the whole time axis (the
minimap), and at each fraction F given as `at=F`. With `pick`: the largest allocation made and freed in the trace (the
Active Memory Timeline's elements and steps as memviz_reference.py builds
them), its address as the hover text writes it, its alloc and free in
seconds from the first event, and a window of steps around it where the
middle of its life lies in different places on the time axis and on the
step axis (`time_frac`, `step_frac`: fractions of the plot width), so a
test can tell the axes apart.

    python3 tests/reference/time_axis_reference.py SNAPSHOT [DEVICE] [pick] [at=F ...]
"""
import bisect
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memviz_reference as mr  # noqa: E402

ACTIONS = ("alloc", "free_completed", "free")


def median_positive(d):
    p = sorted(v for v in d if v > 0)
    return p[len(p) // 2] if p else None


def main(path, device, pick, at):
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
    out.update(t0_us=known[0], span_s=x[-1], shown_s=shown / 1e6, gaps=gaps)
    # The step shown at fractions of the whole axis (the minimap's x).
    out["step_at"] = {str(f): bisect.bisect_right(x, f * x[-1]) - 1 for f in [0.25, 0.5, 0.75] + at}
    n = len(times)
    if pick:
        elements, actions, _ = mr.process_alloc_data(snap, mr.Annotated(snap), device, False)
        assert len(actions) == n, (len(actions), n)
        steps = {}
        for st, i in enumerate(actions):
            steps.setdefault(i, []).append(st)
        # The largest allocation made and freed in the trace: the tallest band.
        made = [i for i, st in steps.items() if elements[i]["kind"] == "trace" and len(st) == 2]
        i = max(made, key=lambda i: (elements[i]["size"], -i))
        a, b = steps[i]
        # A window of steps around it where its life lies apart on the two
        # axes, at least 3% of the width wide on the time axis.
        best = None
        for w0 in range(max(0, a - 300), a):
            for w1 in range(b + 1, min(n, b + 300) + 1):
                span = x[w1] - x[w0]
                t0, t1 = (x[a] - x[w0]) / span, (x[b] - x[w0]) / span
                s0, s1 = (a - w0) / (w1 - w0), (b - w0) / (w1 - w0)
                apart = max(t0 - s1, s0 - t1)
                if t1 - t0 >= 0.03 and (best is None or apart > best[0]):
                    best = (apart, w0, w1, (t0 + t1) / 2, (s0 + s1) / 2)
        assert best and best[0] > 0.02, "no window tells the axes apart"
        el = elements[i]
        out["picked"] = {
            "elem": i, "addr": f'b{el["addr"]:x}_{el["version"]}', "size": el["size"], "alloc_step": a,
            "free_step": b, "alloc_s": (t_us[a] - known[0]) / 1e6, "free_s": (t_us[b] - known[0]) / 1e6,
            "window": [best[1], best[2]], "time_frac": best[3], "step_frac": best[4],
        }
    print(json.dumps(out))


if __name__ == "__main__":
    args = sys.argv[2:]
    dev = int(args.pop(0)) if args and args[0].isdigit() else 0
    at = [float(a[3:]) for a in args if a.startswith("at=")]
    main(sys.argv[1], dev, "pick" in args, at)
