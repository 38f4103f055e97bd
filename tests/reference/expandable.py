"""Expandable segments for the reference scripts: the pieces that
segment_map / segment_unmap map and unmap (standard library only; shares no
code with the Rust side).

Written as a cell model: every address where a map, an unmap or an
expandable dump segment starts or ends cuts the address space into cells;
each cell is mapped or not at each moment. A piece is a run of adjacent cells
mapped by the same map (or mapped before the trace, in the same dump segment
or gap) and unmapped by the same unmap (or never).

  pieces(snap, device) -> (pieces, expandable_segment_indices)
  piece: {'addr', 'size', 'map': trace index or None, 'unmap': index or None,
          'seg': dump segment index (mapped before the trace, never unmapped)}
"""
from bisect import bisect_left, bisect_right

MAPS = ('segment_map', 'segment_unmap')


def pieces(snap, device):
    traces = snap.get('device_traces') or []
    trace = traces[device] if device < len(traces) else []
    events = [(i, e) for i, e in enumerate(trace) if e['action'] in MAPS and e['size'] > 0]
    ranges = [(e['addr'], e['addr'] + e['size']) for _, e in events]
    segs = [(si, s['address'], s['address'] + s['total_size']) for si, s in enumerate(snap['segments'])
            if s['device'] == device]
    expandable = [(si, a, b) for si, a, b in segs
                  if s_expandable(snap['segments'][si]) or any(x < b and a < y for x, y in ranges)]
    if not events and not expandable:
        return [], []
    cuts = sorted({p for a, b in ranges for p in (a, b)} | {p for _, a, b in expandable for p in (a, b)})
    cells = list(zip(cuts, cuts[1:]))

    def span(a, b):
        return range(bisect_left(cuts, a), bisect_left(cuts, b))

    starts = sorted(a for _, a, _ in expandable)

    def region(c):
        """The expandable dump segment a cell lies in, else the gap before the next one."""
        a = cells[c][0]
        for si, x, y in expandable:
            if x <= a < y:
                return ('seg', si)
        return ('gap', bisect_right(starts, a))

    mapped = [any(x <= a and b <= y for _, x, y in expandable) for a, b in cells]
    for i, e in reversed(events):
        for c in span(e['addr'], e['addr'] + e['size']):
            mapped[c] = e['action'] == 'segment_unmap'
    # Runs of cells mapped before the trace: a run is one mapping.
    run, before = 0, [None] * len(cells)
    for c in range(len(cells)):
        if mapped[c]:
            if c == 0 or not mapped[c - 1] or cells[c - 1][1] != cells[c][0]:
                run += 1
            before[c] = ('before', run, region(c))
    current = list(before)
    lives = []  # (cell, key, unmap)
    for i, e in events:
        for c in span(e['addr'], e['addr'] + e['size']):
            if e['action'] == 'segment_map':
                if current[c] is None:
                    current[c] = ('map', i)
            elif current[c] is not None:
                lives.append((c, current[c], i))
                current[c] = None
    lives += [(c, k, None) for c, k in enumerate(current) if k is not None]
    lives.sort(key=lambda l: (repr(l[1]), repr(l[2]), l[0]))
    out = []
    for c, key, unmap in lives:
        last = out[-1] if out else None
        if last and last['key'] == key and last['unmap'] == unmap and last['end_cell'] + 1 == c \
                and cells[c - 1][1] == cells[c][0]:
            last['end_cell'] = c
            last['size'] += cells[c][1] - cells[c][0]
            continue
        out.append({'key': key, 'unmap': unmap, 'end_cell': c, 'addr': cells[c][0],
                    'size': cells[c][1] - cells[c][0]})
    result = []
    for p in out:
        key = p['key']
        seg = key[2][1] if key[0] == 'before' and key[2][0] == 'seg' and p['unmap'] is None else None
        result.append({'addr': p['addr'], 'size': p['size'], 'map': key[1] if key[0] == 'map' else None,
                       'unmap': p['unmap'], 'seg': seg})
    return result, [si for si, _, _ in expandable]


def s_expandable(seg):
    return bool(seg.get('is_expandable'))


def steps(snap, device, piece_list):
    """{trace index: [pieces mapped or unmapped by it, by address]}"""
    by_event = {}
    for n, p in enumerate(piece_list):
        if p['map'] is not None:
            by_event.setdefault(p['map'], []).append(n)
        if p['unmap'] is not None:
            by_event.setdefault(p['unmap'], []).append(n)
    for v in by_event.values():
        v.sort(key=lambda n: piece_list[n]['addr'])
    return by_event
