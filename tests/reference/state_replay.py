#!/usr/bin/env python3
"""Independent reference for memviz's Allocator State History.

  state_replay.py SNAPSHOT DEVICE POSITION...

Prints one JSON object per line, for each POSITION (events applied: 0 = before
the first event of the device's raw trace, len = final dump): reserved,
allocated, segments, blocks, pending, and the free space inside segments not
covered by blocks: free (bytes), largest_free, free_pieces. It undoes events from the final dump the
way memory_viz's simulate_memory does (free/free_completed re-add a block of
size = requested = event size, free_requested clears the pending flag, alloc
deletes, segment_free re-inserts, segment_unmap re-inserts and merges with
address-adjacent segments on the same stream, segment_alloc removes,
segment_map shrinks or splits), skipping what memory_viz would throw on.
Only the Python standard library is needed.
"""
import json, pickle, sys


def main():
    path, device = sys.argv[1], int(sys.argv[2])
    positions = sorted(set(int(p) for p in sys.argv[3:]), reverse=True)
    with open(path, 'rb') as f:
        snap = pickle.load(f)
    if isinstance(snap, list):
        snap = {'segments': snap, 'device_traces': []}
    traces = snap.get('device_traces') or []
    trace = traces[device] if device < len(traces) else []
    segs = {}    # addr -> [size, stream]
    blocks = {}  # addr -> [requested, pending, size]
    for s in snap['segments']:
        if s['device'] != device:
            continue
        segs[s['address']] = [s['total_size'], s['stream']]
        addr = s['address']
        for b in s['blocks']:
            if b['state'] in ('active_allocated', 'active_pending_free'):
                req = b.get('requested_size', b['size'])
                blocks[addr] = [req, b['state'] == 'active_pending_free', b['size']]
            addr += b['size']

    def gaps():
        pieces = []
        order = sorted(blocks)
        k = 0
        for sa in sorted(segs):
            end = sa + segs[sa][0]
            at = sa
            while k < len(order) and order[k] < end:
                b = order[k]
                if b >= sa:
                    if b > at:
                        pieces.append(b - at)
                    at = max(at, b + blocks[b][2])
                k += 1
            if end > at:
                pieces.append(end - at)
        return pieces

    def report(pos):
        pieces = gaps()
        print(json.dumps({
            'free': sum(pieces),
            'largest_free': max(pieces, default=0),
            'free_pieces': len(pieces),
            'position': pos,
            'reserved': sum(v[0] for v in segs.values()),
            'allocated': sum(v[0] for v in blocks.values()),
            'segments': len(segs),
            'blocks': len(blocks),
            'pending': sum(1 for v in blocks.values() if v[1]),
        }))

    want = list(positions)
    pos = len(trace)
    while want and want[0] >= pos:
        report(want.pop(0))
    for i in range(len(trace) - 1, -1, -1):
        if not want:
            break
        e = trace[i]
        a, addr, size = e['action'], e.get('addr'), e.get('size', 0)
        if a in ('free', 'free_completed'):
            blocks[addr] = [size, a == 'free_completed', size]
        elif a == 'free_requested':
            if addr in blocks:
                blocks[addr][1] = False
        elif a == 'alloc':
            blocks.pop(addr, None)
        elif a == 'segment_free':
            segs[addr] = [size, e['stream']]
        elif a == 'segment_unmap':
            end = addr + size
            if end in segs and segs[end][1] == e['stream']:
                size += segs.pop(end)[0]
            prev = [p for p, v in segs.items() if p < addr and p + v[0] == addr and v[1] == e['stream']]
            if prev:
                segs[prev[0]][0] += size
            else:
                segs[addr] = [size, e['stream']]
        elif a == 'segment_alloc':
            segs.pop(addr, None)
        elif a == 'segment_map':
            end = addr + size
            for p, v in list(segs.items()):
                pend = p + v[0]
                if p <= addr and end <= pend:
                    if p == addr:
                        del segs[p]
                        if v[0] > size:
                            segs[end] = [v[0] - size, v[1]]
                    elif pend == end:
                        v[0] -= size
                    else:
                        v[0] = addr - p
                        segs[end] = [pend - end, e['stream']]
                    break
        while want and want[0] >= i:
            report(want.pop(0))


if __name__ == '__main__':
    main()
