#!/usr/bin/env python3
"""Independent numbers for tests/render43.rs (issue 43), standard library only.

  python3 render43_reference.py FILE --detail DEVICE N X0 X1
      the Active Memory elements drawn at detail N in the window of steps
      [X0, X1): the N largest live there (ties by element order), as
      sorted element indices, and how many elements there are in all
  python3 render43_reference.py FILE --unmaps DEVICE
      each segment_unmap / segment_free of the device: its trace index, and
      the step it falls on when every segment event is one step
"""
import json, pickle, sys

snap = pickle.load(open(sys.argv[1], 'rb'))
dev = int(sys.argv[3])
trace = snap['device_traces'][dev] if dev < len(snap['device_traces']) else []

if sys.argv[2] == '--detail':
    n, x0, x1 = map(int, sys.argv[4:7])
    # memory_viz's replay: an alloc makes an element, a free ends the live
    # one at its address (or makes one alive from the start).
    sizes, actions, initial, live = [], [], [], {}
    for e in trace:
        if e['action'] == 'alloc':
            sizes.append(e['size']); live[e['addr']] = len(sizes) - 1; actions.append(len(sizes) - 1)
        elif e['action'] in ('free', 'free_completed'):
            if e['addr'] in live:
                actions.append(live.pop(e['addr']))
            else:
                sizes.append(e['size']); initial.append(len(sizes) - 1); actions.append(len(sizes) - 1)
    for s in snap['segments']:
        if s['device'] == dev:
            addr = s['address']
            for b in s['blocks']:
                a = b.get('address', addr)
                if b['state'] == 'active_allocated' and a not in live.keys():
                    sizes.append(b['requested_size']); initial.append(len(sizes) - 1)
                addr = a + b['size']
    steps = len(actions)
    span = {i: [None, None] for i in range(len(sizes))}
    for k, e in enumerate(actions):
        if span[e][0] is None and e not in initial:
            span[e][0] = k
        else:
            span[e][1] = k + 1
    for i in initial:
        span[i][0] = 0
    for i in span:
        if span[i][1] is None:
            span[i][1] = steps
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    live_in = [i for i in order if span[i][0] < span[i][1] and span[i][0] < x1 and span[i][1] > x0]
    print(json.dumps(dict(elements=len(sizes), steps=steps, live=len(live_in), drawn=sorted(live_in[:n]))))
elif sys.argv[2] == '--unmaps':
    # One step per segment event (segment_alloc / free / map / unmap).
    # Reserved bytes before the first event: the dump's, less what the trace
    # mapped, plus what it unmapped. The total at a step is taken after an
    # alloc or map, before a free or unmap.
    seg = ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap')
    grows = ('segment_alloc', 'segment_map')
    running = sum(s['total_size'] for s in snap['segments'] if s['device'] == dev)
    for e in trace:
        if e['action'] in seg:
            running += -e['size'] if e['action'] in grows else e['size']
    out, totals = [], []
    for i, e in enumerate(trace):
        if e['action'] in seg:
            if e['action'] in grows:
                running += e['size']; totals.append(running)
            else:
                out.append(dict(event=i, step=len(totals), size=e['size']))
                totals.append(running); running -= e['size']
    print(json.dumps(dict(steps=len(totals), frees=out, totals=totals)))
