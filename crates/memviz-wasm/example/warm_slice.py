"""Makes warm.pickle.gz and warm_old.pickle.gz, the page's idle warm-up input,
from the built-in example.

The warm-up runs the open, draw and adopt paths many times so that V8 has
compiled and optimised them before a file comes; the whole 1.8 MB example a
round made a file picked during the warm-up wait and took 6 MB of wasm memory
for good. This keeps the example's format and shapes (the same keys, every
segment and block, real frames) at a tenth of the bytes: the last 1,000 trace
events (as a ring buffer that dropped the rest would) and each stack's
innermost 12 frames. warm_old.pickle.gz has the same slice's events in the
shapes older PyTorch wrote, so that their decode paths are compiled too (a
path first taken by the user's file runs unoptimised code): a third with
PyTorch 2.1-2.4's six keys, a third without time_us and with expandable
segments' actions (segment_map, segment_unmap), a third without frames as
well, then an OOM event.

    python3 warm_slice.py   # in crates/memviz-wasm/example
"""
import gzip
import pickle

EVENTS, FRAMES = 1000, 12

with gzip.open("resnet50_no_zero_grad.pickle.gz") as f:
    s = pickle.load(f)
cut = lambda x: dict(x, frames=x.get("frames", [])[:FRAMES])
s["device_traces"] = [[cut(e) for e in t[-EVENTS:]] for t in s["device_traces"]]
s["segments"] = [dict(cut(g), blocks=[cut(b) for b in g["blocks"]]) for g in s["segments"]]
with open("warm.pickle.gz", "wb") as f:
    f.write(gzip.compress(pickle.dumps(s, protocol=4), 9, mtime=0))

# The older shapes, in one trace (a PyTorch of each would write one shape).
old = []
trace = s["device_traces"][0]
for i, e in enumerate(trace):
    e = {k: v for k, v in e.items() if k not in ("compile_context", "user_metadata")}
    if i >= len(trace) // 3:
        del e["time_us"]
        e["action"] = {"segment_alloc": "segment_map", "segment_free": "segment_unmap"}.get(e["action"], e["action"])
    if i >= 2 * len(trace) // 3:
        del e["frames"]
    old.append(e)
old.append({"action": "oom", "device_free": 1 << 20, "size": 1 << 30, "stream": 0, "frames": []})
with open("warm_old.pickle.gz", "wb") as f:
    f.write(gzip.compress(pickle.dumps(dict(s, device_traces=[old]), protocol=4), 9, mtime=0))
