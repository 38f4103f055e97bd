#!/usr/bin/env python3
"""Writes small torch.profiler memory exports (no torch needed) and the
numbers memviz must find in them, computed here independently.

The shapes are the documented ones (torch/profiler/_memory_profiler.py,
kineto's Chrome trace):

- export_memory_timeline(".json" / ".json.gz"): json [times, sizes]; times in
  microseconds; sizes one row per time, 9 ints: an unused 0, then bytes by
  category index (0 parameter, 1 optimizer state, 2 input, 3 temporary,
  4 activation, 5 gradient, 6 autograd detail, 7 unknown).
- export_memory_timeline(".raw.json.gz"): gzip of json [[t_ns, action,
  numbytes, category], ...]; action 1 pre-existing, 2 create, 3 increment
  version (two tuples: -old category, +new category), 4 destroy (negative
  numbytes); t_ns -1 for pre-existing tensors.
- export_chrome_trace with profile_memory=True: {"traceEvents": [...]}, each
  allocation / free an instant event {"ph": "i", "s": "t", "name":
  "[memory]", "ts": us, "args": {"Addr", "Bytes", "Total Allocated",
  "Total Reserved", "Device Id", "Device Type"}} (Device Type 0 cpu, 1 cuda).

    python3 tests/reference/gen_profiler.py OUT_DIR

writes OUT_DIR/{train.memory_timeline.json, train.memory_timeline.json.gz,
train.raw.json.gz, train.trace.json, train.trace.json.gz, expected.json}.
"""
import gzip
import json
import os
import random
import sys

PARAM, OPT, INPUT, TEMP, ACT, GRAD, AUTOGRAD, UNKNOWN = range(8)
NAMES = ["parameter", "optimizer state", "input", "temporary", "activation",
         "gradient", "autograd detail", "unknown"]
PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY = 1, 2, 3, 4
MIB = 1 << 20


def simulate(seed=7, steps=3):
    """A small training run as the profiler's raw tuples."""
    rng = random.Random(seed)
    ev = []
    t = 1_700_000_000_000  # ns, like a real clock
    params = [rng.randint(1, 8) * MIB for _ in range(4)]
    for p in params:
        ev.append((-1, PREEXISTING, p, PARAM))
    opt_state = False
    for step in range(steps):
        t += 3_000_000  # 3 ms idle between steps
        x = 2 * MIB
        ev.append((t, CREATE, x, INPUT))
        acts = []
        for layer in range(4):
            t += rng.randint(900, 5000)  # sub-microsecond steps share a time
            a = rng.randint(1, 6) * MIB
            acts.append(a)
            ev.append((t, CREATE, a, ACT))
            tmp = rng.randint(1, 3) * MIB
            ev.append((t, CREATE, tmp, TEMP))
            t += rng.randint(200, 2500)
            ev.append((t, DESTROY, -tmp, TEMP))
        grads = []
        for a, p in zip(reversed(acts), params):
            t += rng.randint(900, 5000)
            ev.append((t, CREATE, p, GRAD))
            grads.append(p)
            ev.append((t, CREATE, 512 * 1024, AUTOGRAD))
            t += 1500
            ev.append((t, DESTROY, -512 * 1024, AUTOGRAD))
            ev.append((t, DESTROY, -a, ACT))
        ev.append((t, DESTROY, -x, INPUT))
        t += 4000
        if not opt_state:
            for p in params:
                ev.append((t, CREATE, 2 * p, OPT))
            opt_state = True
        # An in-place update read as a new version of an "unknown" buffer.
        ev.append((t, CREATE, MIB, UNKNOWN))
        t += 10
        ev.append((t, INCREMENT_VERSION, -MIB, UNKNOWN))
        ev.append((t, INCREMENT_VERSION, MIB, TEMP))
        t += 20
        ev.append((t, DESTROY, -MIB, TEMP))
        for g in grads:
            t += 700
            ev.append((t, DESTROY, -g, GRAD))
    return ev


def coalesce(raw):
    """[times_us, sizes] as export_memory_timeline writes it."""
    times, sizes = [], []
    positive = [e[0] // 1000 for e in raw if e[0] >= 0]
    t_min = min(positive) if positive else 0
    for t_ns, _action, nbytes, cat in raw:
        t = -1 if t_ns == -1 else t_ns // 1000
        if not times or times[-1] != t:
            times.append(t)
            sizes.append(list(sizes[-1]) if sizes else [0] * 9)
        sizes[-1][cat + 1] += nbytes
    return [t_min if t < 0 else t for t in times], sizes


def chrome_trace(seed=11):
    """A trace with ops, two CUDA devices and the CPU; memory events
    interleaved by thread (not in time order, as real traces are)."""
    rng = random.Random(seed)
    events = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}}]
    curves = {}  # label -> list of (ts, allocated, reserved)
    for dev_type, dev_id, label in [(1, 0, "cuda:0"), (1, 1, "cuda:1"), (0, -1, "cpu")]:
        allocated, reserved = 0, 0
        live = []
        ts = 1000.0 + dev_id
        pts = []
        for i in range(60):
            ts += rng.choice([1.5, 2.25, 7.0, 400.0])
            if live and rng.random() < 0.45:
                addr, size = live.pop(rng.randrange(len(live)))
                allocated -= size
                nbytes = -size
            else:
                size = rng.randint(1, 64) * 4096
                addr = 0x7F0000000000 + i * 0x100000
                live.append((addr, size))
                allocated += size
                nbytes = size
                while reserved < allocated:
                    reserved += 2 * MIB
            if dev_type == 0:
                reserved = 0  # the CPU allocator reports none
            args = {"Addr": addr, "Bytes": nbytes, "Total Allocated": allocated,
                    "Total Reserved": reserved, "Device Id": dev_id, "Device Type": dev_type}
            events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                           "pid": 1, "tid": 100 + dev_id, "ts": round(ts, 3), "args": args})
            pts.append((round(ts, 3), allocated, reserved))
            if i % 10 == 0:
                events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1,
                               "tid": 100 + dev_id, "ts": round(ts, 3), "dur": 3.0, "args": {}})
        curves[label] = pts
    # An older-style event without totals: skipped, with a warning.
    events.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5.0,
                   "args": {"Addr": 1, "Bytes": 4, "Device Type": 1, "Device Id": 0}})
    return {"schemaVersion": 1, "traceEvents": events, "traceName": "gen_profiler"}, curves


def chart_expect(title, times, curves, stacked):
    """Peak (first largest total: the stacked sum, else the first curve,
    allocated), the values there and at the end."""
    def total(i):
        vals = [c[i] for c in curves.values()]
        return sum(max(v, 0) for v in vals) if stacked else vals[0]
    n = len(times)
    peak = max(range(n), key=lambda i: (total(i), -i))
    return {
        "title": title,
        "points": n,
        "duration_s": (times[-1] - times[0]) / 1e6,
        "peak_index": peak,
        "peak_bytes": total(peak),
        "at_peak": {k: v[peak] for k, v in curves.items()},
        "at_end": {k: v[-1] for k, v in curves.items()},
        "max": {k: max(v) for k, v in curves.items()},
    }


def write_gz(path, value):
    """gzip of the JSON text, the same bytes every run (mtime 0, no name)."""
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(json.dumps(value).encode())


def main(out):
    os.makedirs(out, exist_ok=True)
    raw = simulate()
    times, sizes = coalesce(raw)
    with open(os.path.join(out, "train.memory_timeline.json"), "w") as f:
        json.dump([times, sizes], f)
    write_gz(os.path.join(out, "train.memory_timeline.json.gz"), [times, sizes])
    write_gz(os.path.join(out, "train.raw.json.gz"), raw)
    trace, curves = chrome_trace()
    with open(os.path.join(out, "train.trace.json"), "w") as f:
        json.dump(trace, f, indent=1)
    write_gz(os.path.join(out, "train.trace.json.gz"), trace)

    cats = {NAMES[c]: [row[c + 1] for row in sizes] for c in range(8)}
    timeline = chart_expect("memory by category", times, cats, True)
    trace_charts = []
    for label in ["cuda:0", "cuda:1", "cpu"]:
        pts = sorted(curves[label], key=lambda p: p[0])
        trace_charts.append(chart_expect(label, [p[0] for p in pts],
                                         {"allocated": [p[1] for p in pts],
                                          "reserved": [p[2] for p in pts]}, False))
    expected = {
        "train.memory_timeline.json": {"format": "MemoryTimeline", "charts": [timeline]},
        "train.memory_timeline.json.gz": {"format": "MemoryTimeline", "charts": [timeline]},
        # The raw file replays to the same rows as the coalesced one.
        "train.raw.json.gz": {"format": "MemoryTimelineRaw", "charts": [timeline]},
        "train.trace.json": {"format": "ChromeTrace", "charts": trace_charts, "warnings": 1},
        "train.trace.json.gz": {"format": "ChromeTrace", "charts": trace_charts, "warnings": 1},
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
    print(f"wrote {out}: {len(raw)} raw events, {len(times)} timeline rows, "
          f"peak {timeline['peak_bytes']} bytes at row {timeline['peak_index']}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "fixtures", "profiler"))
