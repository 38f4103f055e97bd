#!/usr/bin/env python3
"""What gen_snapshot.py's simulated allocator held when its trace started.

  state_gen_initial.py GEN_SNAPSHOT_PY [gen_snapshot options...]

Runs the generator's own `generate` with the same options (so the same random
draws) with its Allocator wrapped: the first time a device's trace is cleared
(right after the 20 parameter allocations) the allocator's segments and live
blocks are recorded. Prints a JSON list, one entry per device:
{"device", "segments": [{"address", "size", "stream", "blocks": [[addr, size, requested]]}]}.
"""
import argparse, importlib.util, json, sys

spec = importlib.util.spec_from_file_location('gen_snapshot', sys.argv[1])
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

p = argparse.ArgumentParser()
p.add_argument('--events', type=int, default=20000)
p.add_argument('--devices', type=int, default=1)
p.add_argument('--seed', type=int, default=0)
p.add_argument('--iters', type=int, default=5)
p.add_argument('--oom', action='store_true')
p.add_argument('--expandable', action='store_true')
p.add_argument('--protocol', type=int, default=4)
a = p.parse_args(sys.argv[2:])

initial = []


class Trace(list):
    def __init__(self, al):
        super().__init__()
        self.al, self.seen = al, False

    def clear(self):
        if not self.seen:
            self.seen = True
            segs = []
            for s in sorted(self.al.segments, key=lambda s: s.addr):
                blocks = [[addr, size, rec['size']] for addr, size, rec in s.blocks if rec is not None]
                segs.append({'address': s.addr, 'size': s.size, 'stream': s.stream, 'blocks': blocks})
            initial.append({'device': self.al.device, 'segments': segs})
        super().clear()


class Recorder(gen.Allocator):
    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.trace = Trace(self)


gen.Allocator = Recorder
gen.generate(a.events, a.devices, a.seed, a.oom, a.expandable, a.iters)
print(json.dumps(initial))
