#!/usr/bin/env python3
"""A snapshot with legacy `free` events (the single-step free of snapshots
older than free_requested / free_completed), written with Python's pickle,
and the address versions memory_viz's annotate_snapshot gives it, computed
here from its JS (standard library only; see tests/versions.rs).

  python3 crates/memviz-core/tests/versions_reference.py OUT.pickle

prints JSON: {"events": [[version or null, ...] per device],
              "shown": [[version, ...] per device],
              "segments": [...], "blocks": [[...] per segment]}
"events" is memory_viz's value (null where it assigns none: the legacy
free, oom...); "shown" is what memviz prints for each event: the same, and
for a legacy free the address's current version (memory_viz prints
"_undefined" there).
"""
import json, pickle, random, sys

MB = 1 << 20


def version_space():
    version = {}

    def take(addr, increment):
        r = version.setdefault(addr, 0)
        if increment:
            version[addr] += 1
        return r
    return take


def annotate(snap):
    """memory_viz's annotate_snapshot, versions only (before it merges
    free_requested + free_completed, which does not change them)."""
    seg_v, blk_v = version_space(), version_space()
    events, shown = [], []
    for trace in snap['device_traces']:
        ev, sh = [], []
        for t in trace:
            a, addr = t['action'], t['addr']
            if a == 'free_completed':
                v = blk_v(addr, True)
            elif a in ('free_requested', 'alloc'):
                v = blk_v(addr, False)
            elif a in ('segment_free', 'segment_unmap'):
                v = seg_v(addr, True)
            elif a in ('segment_alloc', 'segment_map'):
                v = seg_v(addr, False)
            else:
                v = None  # 'free', 'oom', 'snapshot': JS leaves t.version undefined
            ev.append(v)
            if v is None and a == 'free':
                sh.append(blk_v(addr, False))
            else:
                sh.append(v if v is not None else 0)
        events.append(ev)
        shown.append(sh)
    segments, blocks = [], []
    for seg in snap['segments']:
        segments.append(seg_v(seg['address'], False))
        addr, bv = seg['address'], []
        for b in seg['blocks']:
            bv.append(blk_v(addr, False))
            addr += b['size']
        blocks.append(bv)
    return {'events': events, 'shown': shown, 'segments': segments, 'blocks': blocks}


def legacy_snapshot(seed=9):
    """Two devices; an allocator that reuses a few addresses, freeing with
    legacy `free` most of the time and with free_requested + free_completed
    now and then, so that versions of the two kinds interleave."""
    rng = random.Random(seed)
    frames = [{'filename': 'legacy.py', 'line': 7, 'name': 'step'}]
    traces, segments = [], []
    for dev in range(2):
        base = 0x7f10_0000_0000 + dev * 0x1_0000_0000
        trace = [{'action': 'segment_alloc', 'addr': base, 'size': 16 * MB, 'stream': 0, 'frames': frames}]
        slots = [base + k * 2 * MB for k in range(8)]
        live = {}
        for _ in range(300):
            a = rng.choice(slots)
            if a in live:
                if rng.random() < 0.7:
                    trace.append({'action': 'free', 'addr': a, 'size': live[a], 'stream': 0, 'frames': frames})
                else:
                    trace.append({'action': 'free_requested', 'addr': a, 'size': live[a], 'stream': 0, 'frames': frames})
                    trace.append({'action': 'free_completed', 'addr': a, 'size': live[a], 'stream': 0, 'frames': frames})
                del live[a]
            else:
                live[a] = rng.choice([512, MB, 2 * MB])
                trace.append({'action': 'alloc', 'addr': a, 'size': live[a], 'stream': 0, 'frames': frames})
        traces.append(trace)
        blocks = []
        for a in slots:
            if a in live:
                blocks.append({'size': live[a], 'requested_size': live[a], 'state': 'active_allocated', 'frames': frames})
                if live[a] < 2 * MB:
                    blocks.append({'size': 2 * MB - live[a], 'requested_size': 0, 'state': 'inactive', 'frames': []})
            else:
                blocks.append({'size': 2 * MB, 'requested_size': 0, 'state': 'inactive', 'frames': []})
        segments.append({'device': dev, 'address': base, 'total_size': 16 * MB, 'allocated_size': 0,
                         'active_size': 0, 'requested_size': 0, 'stream': 0, 'segment_type': 'large',
                         'segment_pool_id': (0, 0), 'is_expandable': False, 'frames': frames, 'blocks': blocks})
    return {'segments': segments, 'device_traces': traces}


if __name__ == '__main__':
    snap = legacy_snapshot()
    with open(sys.argv[1], 'wb') as f:
        pickle.dump(snap, f, protocol=4)
    print(json.dumps(annotate(snap)))
