#!/usr/bin/env python3
"""Independent numbers for tests/views.rs: memory_viz's process_alloc_data
totals, written from its JS semantics (standard library only).

  python3 crates/memviz-core/tests/views_reference.py ../shared/snapshots/NAME
  python3 crates/memviz-core/tests/views_reference.py FILE --hover DEVICE
      (the 4 largest Active Memory elements: index, "b<hex>_<version>",
       size, alloc step, free step; steps are indices into the actions)
"""
import json, os, pickle, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../tests/reference'))
from expandable import pieces as expandable_pieces, steps as expandable_steps  # noqa: E402


def timeline(snap, dev, segs):
    alloc = ('segment_alloc',) if segs else ('alloc',)
    free = ('segment_free',) if segs else ('free', 'free_completed')
    sizes, actions, initial, live = [], [], [], {}
    trace = snap['device_traces'][dev] if dev < len(snap['device_traces']) else []
    # Expandable segments: map / unmap replayed as pieces (tests/reference/expandable.py).
    plist, expandable = expandable_pieces(snap, dev) if segs else ([], [])
    by_event = expandable_steps(snap, dev, plist)
    elem = {}
    for n, p in enumerate(plist):
        if p['map'] is None:
            sizes.append(p['size']); elem[n] = len(sizes) - 1
    for i, e in enumerate(trace):
        if segs and e['action'] in ('segment_map', 'segment_unmap'):
            # One step per event, whatever the number of pieces (issue 43).
            group = []
            for n in by_event.get(i, []):
                if n not in elem:
                    sizes.append(plist[n]['size']); elem[n] = len(sizes) - 1
                group.append(elem[n])
            if group:
                actions.append(group)
        elif e['action'] in alloc:
            sizes.append(e['size']); live[e['addr']] = len(sizes) - 1; actions.append(len(sizes) - 1)
        elif e['action'] in free:
            if e['addr'] in live:
                actions.append(live.pop(e['addr']))
            else:
                sizes.append(e['size']); initial.append(len(sizes) - 1); actions.append(len(sizes) - 1)
    initial += [elem[n] for n, p in sorted(enumerate(plist), key=lambda x: x[1]['addr']) if p['map'] is None]
    for si, s in enumerate(snap['segments']):
        if s['device'] != dev:
            continue
        if segs:
            if si not in expandable and s['address'] not in live:
                sizes.append(s['total_size']); initial.append(len(sizes) - 1)
        else:
            addr = s['address']
            for b in s['blocks']:
                a = b.get('address', addr)
                if b['state'] == 'active_allocated' and a not in live:
                    sizes.append(b['requested_size']); initial.append(len(sizes) - 1)
                addr = a + b['size']
    initial.reverse()
    if not actions and initial:
        actions.append(initial.pop())
    total = start = sum(sizes[i] for i in initial)
    seen, peak, peak_step = set(initial), start, 0
    for k, group in enumerate(actions):
        # A step's pieces are all mapped or all unmapped.
        for e in (group if isinstance(group, list) else [group]):
            if e not in seen:
                seen.add(e); total += sizes[e]
            else:
                seen.discard(e); total -= sizes[e]
        if total > peak:
            peak, peak_step = total, k
    return dict(start_bytes=start, peak_bytes=peak, end_bytes=total, elements=len(sizes),
                actions=len(actions), initially_allocated=len(initial), peak_step=peak_step)


snap = pickle.load(open(sys.argv[1], 'rb'))
if isinstance(snap, list):
    snap = {'segments': snap, 'device_traces': []}


def versions(snap):
    """annotate_snapshot: one block and one segment version space."""
    blocks, segs = {}, {}
    def take(space, addr, inc):
        v = space.get(addr, 0)
        if inc:
            space[addr] = v + 1
        return v
    ev = []
    for trace in snap['device_traces']:
        vs = []
        for e in trace:
            a = e['action']
            if a in ('free_completed', 'free'):
                vs.append(take(blocks, e['addr'], True))
            elif a in ('alloc', 'free_requested'):
                vs.append(take(blocks, e['addr'], False))
            elif a in ('segment_free', 'segment_unmap'):
                vs.append(take(segs, e['addr'], True))
            elif a in ('segment_alloc', 'segment_map'):
                vs.append(take(segs, e['addr'], False))
            else:
                vs.append(0)
        ev.append(vs)
    bv = {}
    for s in snap['segments']:
        take(segs, s['address'], False)
        addr = s['address']
        for b in s['blocks']:
            a = b.get('address', addr)
            bv[(s['device'], a)] = take(blocks, a, False)
            addr = a + b['size']
    return ev, bv


if '--hover' in sys.argv:
    dev = int(sys.argv[sys.argv.index('--hover') + 1])
    ev, bv = versions(snap)
    els, actions, initial, live = [], [], [], {}
    trace = snap['device_traces'][dev] if dev < len(snap['device_traces']) else []
    for i, e in enumerate(trace):
        if e['action'] == 'alloc':
            els.append((e['addr'], ev[dev][i], e['size'])); live[e['addr']] = len(els) - 1; actions.append(len(els) - 1)
        elif e['action'] in ('free', 'free_completed'):
            if e['addr'] in live:
                actions.append(live.pop(e['addr']))
            else:
                els.append((e['addr'], ev[dev][i], e['size'])); initial.append(len(els) - 1); actions.append(len(els) - 1)
    for s in snap['segments']:
        if s['device'] == dev:
            addr = s['address']
            for b in s['blocks']:
                a = b.get('address', addr)
                if b['state'] == 'active_allocated' and a not in live:
                    els.append((a, bv[(dev, a)], b['requested_size'])); initial.append(len(els) - 1)
                addr = a + b['size']
    initial.reverse()
    if not actions and initial:
        actions.append(initial.pop())
    top = sorted(range(len(els)), key=lambda i: -els[i][2])[:4]
    out = []
    for i in top:
        steps = [k for k, x in enumerate(actions) if x == i]
        alloc = steps[0] if i not in initial else None
        free = steps[-1] if (i in initial and steps) or len(steps) == 2 else None
        out.append(dict(elem=i, addr='b%x_%d' % (els[i][0], els[i][1]), size=els[i][2], alloc_step=alloc, free_step=free))
    print(json.dumps(out))
    sys.exit(0)
ndev = max([len(snap['device_traces'])] + [s['device'] + 1 for s in snap['segments']])
out = {}
for d in range(ndev):
    trace = snap['device_traces'][d] if d < len(snap['device_traces']) else []
    segs = [s for s in snap['segments'] if s['device'] == d]
    if not trace and not segs:
        continue
    acts = {}
    for e in trace:
        acts[e['action']] = acts.get(e['action'], 0) + 1
    out[str(d)] = dict(
        trace_events=len(trace), actions=dict(sorted(acts.items())), segments=len(segs),
        reserved_bytes=sum(s['total_size'] for s in segs),
        allocated_bytes=sum(s['allocated_size'] for s in segs),
        active_blocks=sum(b['state'] == 'active_allocated' for s in segs for b in s['blocks']),
        active_memory=timeline(snap, d, False), segment_memory=timeline(snap, d, True))
print(json.dumps({'devices': out}))
