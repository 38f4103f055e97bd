#!/usr/bin/env python3
"""memory_viz's Allocator State History map after raw event N, standard
library only: simulate_memory (undo from the dump) and MemoryView.draw's
packing, written from the JS semantics (shares no code with the Rust crates).

    python3 tests/reference/segment_map_reference.py FILE DEVICE EVENT...

Prints one JSON object per EVENT, one per line: {event, row_width, rows,
reserved, allocated, segments: [[addr, size, row, x]] in packing order,
blocks: [[addr, x, requested, waste, pending]] by address, free: largest
gap, gap bytes, gap pieces, hover: [[addr, free, internal % text or null]]
in packing order}.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memviz_reference import Annotated, load_snapshot  # noqa: E402


def simulate(snap, ann, device, event):
    trace = snap['device_traces'][device]
    segs = []
    blocks = {}
    for si, seg in enumerate(snap['segments']):
        if seg['device'] != device:
            continue
        segs.append([seg['address'], seg['total_size'], seg.get('stream')])
        for b in ann.seg_blocks[si]:
            if b['state'] in ('active_allocated', 'active_pending_free'):
                blocks[b['addr']] = [b['size'], b['requested_size'], b['state'] == 'active_pending_free']
    segs.sort()
    for i in range(len(trace) - 1, event, -1):
        e = trace[i]
        a, addr, size = e['action'], e.get('addr', 0), e.get('size', 0)
        if a == 'free':
            blocks[addr] = [size, size, False]
        elif a == 'free_completed':
            blocks[addr] = [size, size, True]
        elif a == 'free_requested':
            blocks[addr][2] = False
        elif a == 'alloc':
            blocks.pop(addr, None)
        elif a in ('segment_free', 'segment_unmap'):
            segs.append([addr, size, e.get('stream')])
            segs.sort()
            if a == 'segment_unmap':
                # Undoing an unmap joins same-stream neighbours that touch it.
                k = segs.index([addr, size, e.get('stream')])
                if k + 1 < len(segs) and addr + size == segs[k + 1][0] and segs[k + 1][2] == segs[k][2]:
                    segs[k][1] += segs.pop(k + 1)[1]
                if k > 0 and segs[k - 1][0] + segs[k - 1][1] == addr and segs[k - 1][2] == segs[k][2]:
                    segs[k - 1][1] += segs.pop(k)[1]
        elif a == 'segment_alloc':
            segs = [s for s in segs if s[0] != addr]
        elif a == 'segment_map':
            # Undoing a map cuts [addr, addr + size) out of its segment.
            end = addr + size
            for k, s in enumerate(segs):
                if s[0] <= addr and end <= s[0] + s[1]:
                    s_end = s[0] + s[1]
                    if s[0] == addr:
                        s[0], s[1] = end, s[1] - size
                        if s[1] == 0:
                            segs.pop(k)
                    elif s_end == end:
                        s[1] -= size
                    else:
                        s[1] = addr - s[0]
                        segs.insert(k + 1, [end, s_end - end, s[2]])
                    break
    return segs, blocks


def layout(segs, blocks):
    order = sorted(segs, key=lambda s: (s[1], s[0]))
    width = order[-1][1] if order else 0
    pad = width / 200
    row, cur, place = 0, 0.0, {}
    out = []
    for s in order:
        if cur + s[1] > width:
            cur, row = 0.0, row + 1
        place[s[0]] = (row, cur)
        out.append([s[0], s[1], row, cur])
        cur += s[1] + pad
    by_addr = sorted(segs)
    bl = []
    largest = gap_bytes = pieces = 0
    for s in by_addr:
        at = s[0]
        for a in sorted(b for b in blocks if s[0] <= b < s[0] + s[1]):
            size, req, pending = blocks[a]
            bl.append([a, place[s[0]][1] + (a - s[0]), req, size - req, pending])
            if a > at:
                largest, gap_bytes, pieces = max(largest, a - at), gap_bytes + a - at, pieces + 1
            at = max(at, a + size)
        if at < s[0] + s[1]:
            g = s[0] + s[1] - at
            largest, gap_bytes, pieces = max(largest, g), gap_bytes + g, pieces + 1
    # Segment hover figures: free = size - requested, internal % as JS prints it.
    hover = []
    for s in order:
        inside = [blocks[a] for a in blocks if s[0] <= a < s[0] + s[1]]
        free = s[1] - sum(b[1] for b in inside)
        waste = sum(b[0] - b[1] for b in inside)
        pct = None
        if waste > 0:
            v = waste / free * 100 if free else float('inf')
            pct = 'Infinity' if v == float('inf') else (str(int(v)) if v == int(v) else repr(v))
        hover.append([s[0], free, pct])
    return {'hover': hover, 'row_width': width, 'rows': row + 1, 'reserved': sum(s[1] for s in segs),
            'allocated': sum(b[1] for b in blocks.values()), 'segments': out, 'blocks': bl,
            'free': [largest, gap_bytes, pieces]}


def main():
    path, device = sys.argv[1], int(sys.argv[2])
    snap = load_snapshot(path)
    ann = Annotated(snap)
    for ev in sys.argv[3:]:
        segs, blocks = simulate(snap, ann, device, int(ev))
        r = layout(segs, blocks)
        r['event'] = int(ev)
        print(json.dumps(r))


if __name__ == '__main__':
    main()
