#!/usr/bin/env python3
"""Write hostile memory snapshots: pickles in the layout that
torch.cuda.memory._dump_snapshot writes, whose contents no allocator would
produce (issue 9: "no view can be broken by a file").

    gen_hostile.py OUT_DIR [NAME...]     # all of them, or the NAMEs given

Each is small enough to write in well under a second except many_segments
(100,000 segments, about 10 MB). Only the Python standard library is needed.
The Rust tests (crates/memviz-render/tests/hostile_views.rs) and the browser
test (tests/e2e/hostile.test.mjs) run this at test time; nothing it writes
is committed.

| name | what is wrong with it |
|---|---|
| past_end | blocks (and their rounding waste) that run past their segment's end, in the last rows of a 150-row map (scroll down to see them) |
| overlap | blocks that overlap each other, blocks before / after / between segments, overlapping segments, trace events on all of them |
| sizes | zero, negative (read as 0) and wrapping sizes: 2**64 - 1, 2**63, 2**64 + 5; requested_size > size; addresses 0 and 2**127 - 1 (the largest 16-byte pickle integer) |
| many_segments | 100,000 segments, half of them each in a private pool of its own, and a 20,000-event trace over them |
| devices | segments on devices 3, 5000 and 4,000,000,000 and a trace on device 5000 (device_traces has 5001 entries, 5000 empty) |
| chaos | a trace with frees of unknown blocks, double allocs, segment events on unknown segments, oom / snapshot / unknown actions, free_requested never completed |
"""
import os
import pickle
import sys

MB = 1 << 20
U64 = (1 << 64) - 1


def frames(name, line=1):
    return [{'filename': f'hostile/{name}.py', 'line': line, 'name': name}]


def ev(action, addr, size, stream=0, t=None, fr=None):
    e = {'action': action, 'addr': addr, 'size': size, 'stream': stream, 'frames': fr or frames(action)}
    if t is not None:
        e['time_us'] = t
    return e


def block(size, requested=None, state='active_allocated', address=None, fr=None):
    b = {'size': size, 'requested_size': size if requested is None else requested, 'state': state,
         'frames': fr or frames('block')}
    if address is not None:
        b['address'] = address
    return b


def segment(address, total_size, blocks, device=0, pool=(0, 0), stream=0, expandable=False):
    return {
        'device': device, 'address': address, 'total_size': total_size,
        'allocated_size': sum(b['size'] for b in blocks if b['state'] != 'inactive'),
        'active_size': sum(b['size'] for b in blocks if b['state'] != 'inactive'),
        'requested_size': sum(b['requested_size'] for b in blocks if b['state'] != 'inactive'),
        'stream': stream, 'segment_type': 'large', 'segment_pool_id': pool,
        'is_expandable': expandable, 'frames': frames('segment'), 'blocks': blocks,
    }


def snapshot(segments, traces):
    return {'segments': segments, 'device_traces': traces,
            'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': 'hostile', 'expandable_segments': False}}


def past_end():
    """150 segments of nearly one size, so that each gets a row of its own
    and the map scrolls; the 8 largest (the last rows) have blocks whose
    sizes add up to more than the segment: the last block starts inside and
    ends past it (its rounding waste starts past it); one is 1,000x its
    segment."""
    segs, trace, t = [], [], 1_700_000_000_000_000
    base = 0x7f00_0000_0000
    n = 150
    for i in range(n):
        size = 20 * MB + i * 64 * 1024
        addr = base + i * 128 * MB
        if i < n - 8:
            blocks = [block(MB, MB - 512), block(size - MB, 0, 'inactive')]
        else:
            over = size * 1000 if i == n - 1 else size // 2 + 3 * MB
            blocks = [block(size // 2, size // 2 - 4096), block(over, over // 3)]
        segs.append(segment(addr, size, blocks))
        trace.append(ev('segment_alloc', addr, size, t=t + 3 * i))
        trace.append(ev('alloc', addr, blocks[0]['size'], t=t + 3 * i + 1))
        if i >= n - 8:
            trace.append(ev('alloc', addr + blocks[0]['size'], blocks[1]['size'], t=t + 3 * i + 2))
    return snapshot(segs, [trace])


def overlap():
    base = 0x7e00_0000_0000
    segs = [
        # Blocks overlapping each other, one before the segment's start,
        # one after its end, one inside the next segment.
        segment(base, 8 * MB, [
            block(4 * MB, 3 * MB, address=base),
            block(4 * MB, 4 * MB, address=base + 2 * MB),
            block(2 * MB, 1 * MB, address=base + 3 * MB, state='active_pending_free'),
            block(1 * MB, 1 * MB, address=base - 16 * MB),
            block(1 * MB, 1 * MB, address=base + 100 * MB),
            block(1 * MB, 1 * MB, address=base + 9 * MB),
        ]),
        # Overlaps the first segment.
        segment(base + 6 * MB, 8 * MB, [block(1 * MB, 512, address=base + 7 * MB)]),
        # Same address as the first one (a duplicate segment).
        segment(base, 2 * MB, [block(MB, MB, address=base)]),
        # Private pool overlapping a default-pool segment.
        segment(base + 12 * MB, 4 * MB, [block(2 * MB, 2 * MB, address=base + 12 * MB)], pool=(1, 2)),
    ]
    trace = []
    for k in range(40):
        a = base + (k % 9) * MB
        trace.append(ev('alloc', a, (k % 5 + 1) * MB))
        if k % 3 == 0:
            trace.append(ev('free_requested', a, (k % 5 + 1) * MB))
            trace.append(ev('free_completed', a, (k % 5 + 1) * MB))
        if k % 7 == 0:
            trace.append(ev('segment_alloc', base + 4 * MB, 8 * MB))
            trace.append(ev('segment_free', base + 4 * MB, 8 * MB))
    trace.append(ev('segment_map', base + 2 * MB, 64 * MB))
    trace.append(ev('segment_unmap', base + 1 * MB, 64 * MB))
    trace.append(ev('alloc', base - 16 * MB, MB))
    return snapshot(segs, [trace])


def sizes():
    top = (1 << 127) - 1  # the largest address a 16-byte pickle integer holds
    segs = [
        segment(0x1000, 0, [block(0, 0)]),
        segment(0x2000_0000, U64, [block(U64, U64), block(U64, 5)]),
        segment(0x3000_0000, 1 << 63, [block(1 << 63, (1 << 63) + 7), block(1 << 63, 0)]),
        segment(0x4000_0000, (1 << 64) + 5, [block((1 << 64) + 5, 3)]),
        segment(0x5000_0000, -4096, [block(-1, -1), block(512, 1024)]),
        segment(top - 100, 4096, [block(4096, 4000)]),
        segment(0, 512, [block(512, 512, address=0)]),
        segment(top, U64, [block(U64, U64, address=top)]),
    ]
    trace = [
        ev('segment_alloc', 0x2000_0000, U64),
        ev('alloc', 0x2000_0000, U64),
        ev('alloc', 0x3000_0000, 1 << 63),
        ev('alloc', 0x3000_0000 + (1 << 63), 1 << 63),
        ev('alloc', 0x4000_0000, (1 << 64) + 5),
        ev('alloc', 0x5000_0000, -1),
        ev('alloc', 0x1000, 0),
        ev('free_completed', 0x1000, 0),
        ev('alloc', top - 100, U64),
        ev('alloc', top, U64),
        ev('free_requested', top, U64),
        ev('free_completed', top, U64),
        ev('alloc', 0, -(1 << 70)),
        ev('segment_alloc', top - 5000, U64),
        ev('segment_free', top - 5000, U64),
        ev('alloc', 0x6000_0000, U64),
        ev('alloc', 0x6000_0001, U64),
        ev('free_completed', 0x6000_0000, U64),
        ev('oom', 0, U64),
    ]
    trace[-1]['device_free'] = -5
    return snapshot(segs, [trace])


def many_segments():
    n = 100_000
    base = 0x7a00_0000_0000
    segs = []
    for i in range(n):
        pool = (0, 0) if i % 2 == 0 else (1, i)
        segs.append(segment(base + i * 4 * MB, 2 * MB, [block(MB, MB - 1), block(MB, 0, 'inactive')], pool=pool, stream=i % 3))
    trace = []
    for k in range(5000):
        i = (k * 7919) % n
        a = base + i * 4 * MB
        trace.append(ev('free_completed', a, MB, stream=i % 3))
        trace.append(ev('alloc', a, MB, stream=i % 3))
        trace.append(ev('segment_free', base + (n + k) * 4 * MB, 2 * MB))
        trace.append(ev('segment_alloc', base + (n + k) * 4 * MB, 2 * MB))
    return snapshot(segs, [trace])


def devices():
    segs = [
        segment(0x1000_0000, 4 * MB, [block(MB, MB - 8), block(3 * MB, 0, 'inactive')], device=3),
        segment(0x2000_0000, 8 * MB, [block(2 * MB, 2 * MB), block(6 * MB, 0, 'inactive')], device=5000),
        segment(0x3000_0000, 2 * MB, [block(2 * MB, MB)], device=4_000_000_000),
    ]
    trace = [ev('segment_alloc', 0x2000_0000, 8 * MB), ev('alloc', 0x2000_0000, 2 * MB),
             ev('alloc', 0x2040_0000, MB), ev('free_completed', 0x2040_0000, MB)]
    traces = [[] for _ in range(5000)] + [trace]
    return snapshot(segs, traces)


def chaos():
    base = 0x7c00_0000_0000
    segs = [segment(base, 16 * MB, [block(4 * MB, 4 * MB - 3), block(12 * MB, 0, 'inactive')], stream=7)]
    trace = [
        ev('free_completed', base + 8 * MB, MB),  # no alloc
        ev('free', base + 9 * MB, MB),  # legacy free, no alloc
        ev('alloc', base, 4 * MB),
        ev('alloc', base, 4 * MB),  # double alloc
        ev('free_requested', base + 12 * MB, MB),  # never completed, unknown
        ev('segment_free', base + 64 * MB, 2 * MB),  # unknown segment
        ev('segment_alloc', base + 64 * MB, 2 * MB),
        ev('segment_unmap', base + 128 * MB, 2 * MB),  # outside every segment
        ev('segment_map', base + 15 * MB, 4 * MB),  # runs past the segment
        ev('oom', 0, 64 * MB),
        ev('snapshot', 0, 0),
        ev('teleport', base, MB),  # unknown action
        ev('annotate', 0, 0),
        ev('free_requested', base, 4 * MB, stream=3),
        ev('alloc', base + 4 * MB, 0),
        ev('free', base + 4 * MB, 0),
    ]
    trace[9]['device_free'] = 12 * MB
    return snapshot(segs, [trace, [ev('free_completed', base, 4 * MB)]])


ALL = {f.__name__: f for f in (past_end, overlap, sizes, many_segments, devices, chaos)}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or ALL:
        with open(os.path.join(out, f'{name}.pickle'), 'wb') as f:
            pickle.dump(ALL[name](), f, protocol=4)


if __name__ == '__main__':
    main()
