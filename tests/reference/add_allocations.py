#!/usr/bin/env python3
"""Makes run B from run A by adding known allocations, for `memviz diff`'s
tests: the difference between A and B at the end is exactly these.

  add_allocations.py A.pickle B.pickle [--count K] [--device D]

Appends to device D's trace (after everything A did) one segment_alloc of a
fresh segment and K allocs in it, each with its own stack (`added.py`, line
100+i, `extra_i`, called from `train.py:7:main`), sizes 1 MiB * (i+1) + 512*i;
adds the segment and its blocks to the final state so trace and state still
agree. Prints JSON: {"added": [{"key": stack text as memviz prints it,
"bytes": size}], "total_bytes": their sum}.
"""
import argparse
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memviz_reference import load_snapshot  # noqa: E402

MB = 1 << 20


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('a')
    p.add_argument('b')
    p.add_argument('--count', type=int, default=3)
    p.add_argument('--device', type=int, default=0)
    o = p.parse_args(argv)
    snap = load_snapshot(o.a)
    trace = snap['device_traces'][o.device]
    # Above every address the file uses, so nothing collides.
    top = max([s['address'] + s['total_size'] for s in snap['segments']] +
              [e.get('addr', 0) + e.get('size', 0) for t in snap['device_traces'] for e in t] + [0])
    base = (top // (1 << 30) + 1) << 30
    sizes = [MB * (i + 1) + 512 * i for i in range(o.count)]
    seg_size = (sum(sizes) // (2 * MB) + 1) * 2 * MB
    caller = {'filename': 'train.py', 'line': 7, 'name': 'main'}
    t0 = max([e.get('time_us', 0) for e in trace] + [0])
    trace.append({'action': 'segment_alloc', 'addr': base, 'size': seg_size, 'stream': 0,
                  'frames': [caller], 'time_us': t0 + 1})
    blocks, at, added = [], base, []
    for i, size in enumerate(sizes):
        frames = [{'filename': 'added.py', 'line': 100 + i, 'name': f'extra_{i}'}, caller]
        trace.append({'action': 'alloc', 'addr': at, 'size': size, 'stream': 0, 'frames': frames,
                      'time_us': t0 + 2 + i})
        blocks.append({'address': at, 'size': size, 'requested_size': size, 'state': 'active_allocated',
                       'frames': frames})
        added.append({'key': f'added.py:{100 + i}:extra_{i}\ntrain.py:7:main', 'bytes': size})
        at += size
    if at < base + seg_size:
        blocks.append({'address': at, 'size': base + seg_size - at, 'requested_size': 0, 'state': 'inactive',
                       'frames': []})
    snap['segments'].append({'device': o.device, 'address': base, 'total_size': seg_size,
                             'allocated_size': sum(sizes), 'active_size': sum(sizes), 'requested_size': sum(sizes),
                             'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
                             'is_expandable': False, 'frames': [caller], 'blocks': blocks})
    with open(o.b, 'wb') as f:
        pickle.dump(snap, f, protocol=4)
    json.dump({'added': added, 'total_bytes': sum(sizes)}, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
