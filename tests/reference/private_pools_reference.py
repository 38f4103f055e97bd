#!/usr/bin/env python3
"""Independent replay of memory_viz's "Allocated Memory (incl. Private Pools)"
rules (process_alloc_data with include_private_inactive=true), standard library
only, on memviz's x axis: one step per alloc/free action, an alloc's step
counted after it, a free's before it.

    python3 tests/reference/private_pools_reference.py SNAPSHOT [DEVICE]

Prints JSON: {"start": bytes before the first action, "total": [bytes per
step], "pools": {"a,b,sN": {"first_step", "capacity", "reserved_start",
"heights": [per step]}}, "pool_elements": count}.
"""
import json
import pickle
import sys


def private(pid):
    return pid is not None and tuple(pid) != (0, 0)


def main():
    snap = pickle.load(open(sys.argv[1], 'rb'))
    device = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if isinstance(snap, list):
        snap = {'segments': snap, 'device_traces': []}
    traces = snap.get('device_traces') or []
    trace = traces[device] if device < len(traces) else []
    segs = sorted((s for s in snap['segments'] if s['device'] == device), key=lambda s: s['address'])

    def find_pool_id(addr):
        lo, hi = 0, len(segs) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            s = segs[mid]
            if addr < s['address']:
                hi = mid - 1
            elif addr >= s['address'] + s['total_size']:
                lo = mid + 1
            else:
                return s.get('segment_pool_id')
        return None

    # memory_viz renumbers streams: 0 stays 0, others by first appearance
    # (traces of all devices first, then segments).
    names = {0: 0}

    def stream(s):
        if s not in names:
            names[s] = len(names)
        return names[s]
    for tr in traces:
        for e in tr:
            stream(e.get('stream', 0))
    for s in snap['segments']:
        stream(s.get('stream', 0))

    elements, actions, initially, addr_to_alloc, pool_seg_events = [], [], [], {}, []
    for e in trace:
        act = e['action']
        if act == 'alloc':
            elements.append({'addr': e['addr'], 'size': e['size'], 'stream': stream(e.get('stream', 0))})
            addr_to_alloc[e['addr']] = len(elements) - 1
            actions.append(len(elements) - 1)
        elif act in ('free', 'free_completed'):
            if e['addr'] in addr_to_alloc:
                actions.append(addr_to_alloc.pop(e['addr']))
            else:
                elements.append({'addr': e['addr'], 'size': e['size'], 'stream': stream(e.get('stream', 0))})
                initially.append(len(elements) - 1)
                actions.append(len(elements) - 1)
        if act in ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap'):
            pid = find_pool_id(e['addr'])
            if private(pid):
                add = act in ('segment_alloc', 'segment_map')
                pool_seg_events.append((len(actions), e['size'] if add else -e['size'],
                                        f"{pid[0]},{pid[1]},s{stream(e.get('stream', 0))}"))
    for s in snap['segments']:
        if s['device'] != device:
            continue
        for b in s['blocks']:
            if b['state'] == 'active_allocated' and b['address'] not in addr_to_alloc:
                elements.append({'addr': b['address'], 'size': b['requested_size'],
                                 'stream': stream(s.get('stream', 0)), 'pool': s.get('segment_pool_id')})
                initially.append(len(elements) - 1)
    for el in elements:
        if not el.get('pool'):
            el['pool'] = find_pool_id(el['addr'])
    initially.reverse()
    if not actions and initially:
        actions.append(initially.pop())

    def key(i):
        pid = elements[i]['pool']
        return f"{pid[0]},{pid[1]},s{elements[i]['stream']}" if private(pid) else None

    pools = {}

    def pool(k):
        return pools.setdefault(k, {'max': 0, 'active': 0, 'reserved': 0, 'env': False,
                                    'first_step': None, 'reserved_start': 0})
    active = set()
    nonpool = 0
    for i in initially:
        k = key(i)
        if k is None:
            nonpool += elements[i]['size']
            continue
        p = pool(k)
        active.add(i)
        if not p['env']:
            p['env'], p['first_step'] = True, 0
        p['active'] += elements[i]['size']
        p['max'] = max(p['max'], p['active'], p['reserved'])
    snap_reserved = {}
    for s in segs:
        if private(s.get('segment_pool_id')):
            pid = s['segment_pool_id']
            k = f"{pid[0]},{pid[1]},s{stream(s.get('stream', 0))}"
            snap_reserved[k] = snap_reserved.get(k, 0) + s['total_size']
    for k, tot in snap_reserved.items():
        p = pool(k)
        p['reserved'] = tot - sum(d for _, d, kk in pool_seg_events if kk == k)
        p['reserved_start'] = p['reserved']
        if p['env'] and p['reserved'] > p['max']:
            p['max'] = p['reserved']
    start = nonpool + sum(p['max'] for p in pools.values())
    total, heights = [], {k: [] for k in pools}
    seen = set(initially)
    se = 0
    for step, i in enumerate(actions):
        last = step == len(actions) - 1
        while se < len(pool_seg_events) and (pool_seg_events[se][0] <= step):
            _, d, k = pool_seg_events[se]
            p = pool(k)
            p['reserved'] += d
            if p['env'] and p['reserved'] > p['max']:
                p['max'] = p['reserved']
            se += 1
        k = key(i)
        size = elements[i]['size']
        first = i not in seen
        seen.add(i)
        value_nonpool = None
        if k is None:
            if first:
                nonpool += size
                value_nonpool = nonpool
            else:
                value_nonpool = nonpool
                nonpool -= size
        else:
            p = pool(k)
            if i not in active:
                active.add(i)
                if not p['env']:
                    p['env'], p['first_step'] = True, step
                p['active'] += size
                p['max'] = max(p['max'], p['active'], p['reserved'])
            else:
                active.discard(i)
                p['active'] -= size
            value_nonpool = nonpool
        if last:
            while se < len(pool_seg_events):
                _, d, k2 = pool_seg_events[se]
                p = pool(k2)
                p['reserved'] += d
                if p['env'] and p['reserved'] > p['max']:
                    p['max'] = p['reserved']
                se += 1
        for kk in heights:
            heights.setdefault(kk, [])
        for kk, p in pools.items():
            heights.setdefault(kk, [0] * step)
            heights[kk].append(p['max'] if p['env'] else 0)
        total.append(value_nonpool + sum(p['max'] for p in pools.values() if p['env']))
    out = {'start': start, 'total': total,
           'pool_elements': sum(1 for i in range(len(elements)) if key(i)),
           'pools': {k: {'first_step': p['first_step'], 'capacity': p['max'],
                         'reserved_start': p['reserved_start'], 'heights': heights.get(k, [])}
                     for k, p in pools.items() if p['env']}}
    print(json.dumps(out))


if __name__ == '__main__':
    main()
