#!/usr/bin/env python3
"""Writes a snapshot with private pools, trace and final state consistent.

    python3 tests/reference/gen_private_pool.py OUT.pickle [--seed N] [--steps N]

Device 0 holds:
* the default pool (0, 0): one segment (segment_alloc in the trace) and
  allocations in it;
* a CUDA-graph-like pool (1, 7) on stream 0 with an expandable segment: 2 MiB
  mapped before recording (with a block allocated then and never freed: a
  ghost, and one freed during the trace: an unmatched free), grown with
  segment_map and shrunk with segment_unmap in the trace;
* a MemPool-like pool (2, 3) on stream 1: one segment allocated in the trace
  and kept, plus one allocated and freed in the trace (absent from the dump,
  so memory_viz cannot see its pool).

The allocator below is a simple first-fit over each segment's blocks; the dump
is its final state, so replaying the trace from the dump is exact.
"""
import argparse
import pickle
import random

MB = 1 << 20


def rnd_size(rng):
    req = rng.choice([1000, 4096, 30000, 100000, 262144, 500000])
    return req, (req + 511) // 512 * 512


class Seg:
    def __init__(self, addr, size, stream, pool, expandable):
        self.addr, self.size, self.stream, self.pool, self.expandable = addr, size, stream, pool, expandable
        self.blocks = {}  # addr -> (size, requested, frames)

    def find(self, size):
        at = self.addr
        for a in sorted(self.blocks):
            if a - at >= size:
                return at
            at = a + self.blocks[a][0]
        return at if self.addr + self.size - at >= size else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument('out')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--steps', type=int, default=300)
    a = p.parse_args()
    rng = random.Random(a.seed)
    frames = [[{'filename': 'train.py', 'line': 10 + i, 'name': f'step_{i}'},
               {'filename': 'graphs.py', 'line': 99, 'name': 'capture'}] for i in range(5)]
    trace = []
    t = [1_700_000_000_000_000]

    def ev(action, addr, size, stream, fr=None):
        t[0] += 7
        trace.append({'action': action, 'addr': addr, 'size': size, 'stream': stream,
                      'time_us': t[0], 'frames': fr if fr is not None else rng.choice(frames)})

    default = Seg(0x7f0000000000, 8 * MB, 0, (0, 0), False)
    graph = Seg(0x7f1000000000, 2 * MB, 0, (1, 7), True)  # 2 MiB mapped before recording
    mempool = Seg(0x7f2000000000, 4 * MB, 1, (2, 3), False)
    gone = Seg(0x7f3000000000, 2 * MB, 1, (2, 3), False)
    # Allocated before recording: a ghost and one freed in the trace.
    graph.blocks[0x7f1000000000] = (512 * 1024, 500000, [])
    graph.blocks[0x7f1000080000] = (256 * 1024, 262144, [])
    ev('segment_alloc', default.addr, default.size, 0)
    live = []  # (seg, addr)

    def alloc(seg):
        req, size = rnd_size(rng)
        at = seg.find(size)
        if at is None and seg.expandable:
            # Grow by mapping 2 MiB at the end.
            ev('segment_map', seg.addr + seg.size, 2 * MB, seg.stream)
            seg.size += 2 * MB
            at = seg.find(size)
        if at is None:
            return
        fr = rng.choice(frames)
        seg.blocks[at] = (size, req, fr)
        ev('alloc', at, req, seg.stream, fr)
        live.append((seg, at))

    def free(k):
        seg, at = live.pop(k)
        size, req, fr = seg.blocks.pop(at)
        ev('free_requested', at, req, seg.stream)
        ev('free_completed', at, req, seg.stream)

    for step in range(a.steps):
        if step == a.steps // 3:
            ev('segment_alloc', mempool.addr, mempool.size, 1)
            ev('segment_alloc', gone.addr, gone.size, 1)
            ev('alloc', gone.addr, 4096, 1)
            ev('free_requested', gone.addr, 4096, 1)
            ev('free_completed', gone.addr, 4096, 1)
            ev('segment_free', gone.addr, gone.size, 1)
        if step == a.steps // 2:
            # The block allocated before recording is freed.
            size, req, _ = graph.blocks.pop(0x7f1000080000)
            ev('free_requested', 0x7f1000080000, req, 0)
            ev('free_completed', 0x7f1000080000, req, 0)
        pools = [default, graph] + ([mempool] if step > a.steps // 3 else [])
        if live and rng.random() < 0.45:
            free(rng.randrange(len(live)))
        else:
            alloc(rng.choice(pools))
        if step == 2 * a.steps // 3:
            # Shrink the graph pool: unmap trailing free 2 MiB pieces.
            end = max((at + s[0] for at, s in graph.blocks.items()), default=graph.addr)
            while graph.addr + graph.size - 2 * MB >= end and graph.size > 2 * MB:
                ev('segment_unmap', graph.addr + graph.size - 2 * MB, 2 * MB, 0)
                graph.size -= 2 * MB

    segments = []
    for seg in (default, graph, mempool):
        blocks, at, allocated, requested = [], seg.addr, 0, 0
        for b in sorted(seg.blocks):
            size, req, fr = seg.blocks[b]
            if b > at:
                blocks.append({'address': at, 'size': b - at, 'requested_size': 0, 'state': 'inactive', 'frames': []})
            blocks.append({'address': b, 'size': size, 'requested_size': req, 'state': 'active_allocated', 'frames': fr})
            allocated += size
            requested += req
            at = b + size
        if at < seg.addr + seg.size:
            blocks.append({'address': at, 'size': seg.addr + seg.size - at, 'requested_size': 0,
                           'state': 'inactive', 'frames': []})
        segments.append({'device': 0, 'address': seg.addr, 'total_size': seg.size, 'allocated_size': allocated,
                         'active_size': allocated, 'requested_size': requested, 'stream': seg.stream,
                         'segment_type': 'large', 'segment_pool_id': seg.pool, 'is_expandable': seg.expandable,
                         'frames': [], 'blocks': blocks})
    snap = {'segments': segments, 'device_traces': [trace],
            'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True',
                                   'expandable_segments': True, 'roundup_power2_divisions': [1, 2, 4, 8]}}
    with open(a.out, 'wb') as f:
        pickle.dump(snap, f, protocol=4)


if __name__ == '__main__':
    main()
