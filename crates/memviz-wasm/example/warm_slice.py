"""Makes warm.pickle.gz, the page's idle warm-up input, from the built-in example.

The warm-up runs the open, draw and adopt paths many times so that V8 has
compiled and optimised them before a file comes; the whole 1.8 MB example a
round made a file picked during the warm-up wait and took 6 MB of wasm memory
for good. This keeps the example's format and shapes (the same keys, every
segment and block, real frames) at a tenth of the bytes: the last 1,000 trace
events (as a ring buffer that dropped the rest would) and each stack's
innermost 12 frames.

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
