#!/usr/bin/env python3
"""Independent reference for `memviz diff A B` (crates/memviz-core/src/analysis/diff.rs):
the live bytes of each side at its moment, grouped by text keys, matched
across the two files by key.

Standard library only, no code shared with the Rust side: each side's
groups come from analysis_reference.py (itself built on memviz_reference.py,
the re-implementation of memory_viz), which keys a frame as
`filename:line:name` and a stack as its shown frames one a line, innermost
first -- text, never addresses.

  diff_reference.py A B [--at SPEC] [--at-a SPEC] [--at-b SPEC]
                    [--device D] [--device-a D] [--device-b D]
                    [--by stack|user|frame|category]

SPEC: peak, end, start, oom, oom:K, step:S or an event index (as the CLI).
Prints JSON: {"a": {total_bytes, count}, "b": {...}, "groups": [{key,
bytes_a, bytes_b, count_a, count_b}]} with every key of either side, sorted
by key.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analysis_reference import analyse  # noqa: E402
from memviz_reference import devices_of, load_snapshot  # noqa: E402

BY = {'stack': 'stack', 'user': 'user_frame', 'frame': 'frame', 'category': 'category'}


def spec_name(spec):
    """The CLI's moment spelling -> analysis_reference's."""
    if spec == 'oom':
        return 'oom:0'
    if spec.isdigit():
        return f'event:{spec}'
    return spec


def default_device(snap):
    # As Snapshot::default_device: the CUDA device with the longest trace,
    # the lowest on ties (these files have no pinned host memory).
    devs = devices_of(snap)
    traces = snap['device_traces']
    return max(devs, key=lambda d: (len(traces[d]) if d < len(traces) else 0, -d))


def side(path, device, spec, cache={}):
    if path not in cache:
        cache[path] = load_snapshot(path)
    snap = cache[path]
    d = default_device(snap) if device is None else int(device)
    name = spec_name(spec)
    res = analyse(snap, d, [], extra_specs=[name])
    m = next(m for m in res['moments'] if m['at'] == name)
    return m


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('a')
    p.add_argument('b')
    p.add_argument('--at', default='peak')
    p.add_argument('--at-a')
    p.add_argument('--at-b')
    p.add_argument('--device')
    p.add_argument('--device-a')
    p.add_argument('--device-b')
    p.add_argument('--by', default='stack', choices=sorted(BY))
    o = p.parse_args(argv)
    ma = side(o.a, o.device_a or o.device, o.at_a or o.at)
    mb = side(o.b, o.device_b or o.device, o.at_b or o.at)
    ga = {g['key']: g for g in ma['groups'][BY[o.by]]}
    gb = {g['key']: g for g in mb['groups'][BY[o.by]]}
    groups = []
    for k in sorted(set(ga) | set(gb)):
        a, b = ga.get(k, {}), gb.get(k, {})
        groups.append({'key': k, 'bytes_a': a.get('bytes', 0), 'bytes_b': b.get('bytes', 0),
                       'count_a': a.get('count', 0), 'count_b': b.get('count', 0)})
    out = {'a': {'total_bytes': ma['total_bytes'], 'count': ma['count']},
           'b': {'total_bytes': mb['total_bytes'], 'count': mb['count']},
           'groups': groups}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
