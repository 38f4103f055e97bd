#!/usr/bin/env python3
"""The time axis and phases of a snapshot's Active Memory Timeline, computed
from the pickle with Python's own pickle module, for
crates/memviz-core/tests/phases.rs.

Rules (README, "Time and phases"): one step per alloc / free_completed
(legacy free) event of the device; a step's time is its event's time_us
(missing: the previous; never backwards); the last step lasts the median
positive gap. A gap is idle when longer than max(5% of the whole run,
100 x the median gap, 1 ms); it is drawn 1% of the rest of the run wide (at
least one median gap, at most the threshold). Phases: external_annotations
START/END pairs by name on the device; steps [a, b) are those whose time is
in [start, end].

    python3 tests/reference/phases_reference.py SNAPSHOT [DEVICE]
"""
import bisect
import json
import pickle
import sys

ACTIONS = ("alloc", "free_completed", "free")


def median_positive(d):
    p = sorted(v for v in d if v > 0)
    return p[len(p) // 2] if p else None


def main(path, device=None):
    with open(path, "rb") as f:
        snap = pickle.load(f)
    traces = snap.get("device_traces", []) if isinstance(snap, dict) else []
    if device is None:
        device = max(range(len(traces)), key=lambda d: (len(traces[d]), -d)) if traces else 0
    trace = traces[device] if device < len(traces) else []
    times = [e.get("time_us") for e in trace if e.get("action") in ACTIONS]
    out = {"device": device, "n_steps": len(times)}
    known = [t for t in times if t is not None]
    if not known:
        out["time_axis"] = None
    else:
        t_us, last = [], known[0]
        for t in times:
            if t is not None and t > last:
                last = t
            t_us.append(last)
        deltas = [b - a for a, b in zip(t_us, t_us[1:])]
        median = median_positive(deltas) or 1
        t_us.append(last + median)
        deltas.append(median)
        threshold_us = max(sum(max(d, 0) for d in deltas) * 0.05, median * 100, 1000)
        kept = sum(d for d in deltas if d <= threshold_us)
        shown = min(max(kept * 0.01, median), threshold_us)
        gaps, pos = [], 0.0
        for i, d in enumerate(deltas):
            if d > threshold_us:
                gaps.append({"step": i + 1, "real_s": d / 1e6, "x_s": pos / 1e6})
                pos += shown
            else:
                pos += d
        span = (kept + shown * len(gaps)) / 1e6
        out["time_axis"] = {"t0_us": known[0], "threshold_s": threshold_us / 1e6, "gaps": gaps,
                            "span_s": span, "shown_s": shown / 1e6}
    phases = []
    ann = snap.get("external_annotations") or [] if isinstance(snap, dict) else []
    opened = []
    for e in sorted((e for e in ann if e.get("device", device) == device), key=lambda e: e["time_us"]):
        if e["stage"] == "START":
            opened.append(e)
        else:
            for i in range(len(opened) - 1, -1, -1):
                if opened[i]["name"] == e["name"]:
                    s = opened.pop(i)
                    phases.append((s["name"], s["time_us"], e["time_us"]))
                    break
    phases.sort(key=lambda p: p[1])
    res = []
    for name, a, b in phases:
        rng = None
        if out["time_axis"]:
            starts = t_us[:-1]
            lo, hi = bisect.bisect_left(starts, a), bisect.bisect_right(starts, b)
            rng = [lo, hi] if hi > lo else None
        # "at": where a phase with no step inside is drawn (the step its start falls before).
        res.append({"name": name, "start_us": a, "end_us": b, "steps": rng,
                    "at": lo if out["time_axis"] else None})
    out["phases"] = res
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None)
