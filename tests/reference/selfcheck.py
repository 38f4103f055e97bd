#!/usr/bin/env python3
"""Checks memviz_reference.py against itself by a second route.

`state` walks the trace BACKWARDS from the final dump (as memory_viz does).
Here the state before the first event is taken from it, the trace is replayed
FORWARDS, and at sampled events (and at the end, against the dump itself) the
two routes must agree. The Active Memory Timeline's start/end totals must also
equal the allocated bytes before the first and after the last event.

  selfcheck.py FILE...      exit status 1 on any disagreement
"""
import sys

import memviz_reference as ref


def before_trace(snap, device):
    """Segments {addr: [size, stream]} and blocks {addr: [req, pending]} before event 0."""
    trace = snap['device_traces'][device]
    # state() after event 0, then undo event 0 by hand via a one-event copy
    clone = dict(snap)
    clone['device_traces'] = list(snap['device_traces'])
    clone['device_traces'][device] = [{'action': 'snapshot', 'addr': 0, 'size': 0}] + list(trace)
    return clone


def forward(snap, device, samples):
    """Replays forwards from the pre-trace state; returns totals at `samples` and the end."""
    trace = snap['device_traces'][device]
    clone = before_trace(snap, device)
    s0 = ref.state(clone, device, 0)  # state after the dummy event = before event 0
    # rebuild the detailed pre-trace state the same way state() does, forwards
    segs, blocks = _detailed_backward(clone, device)
    detailed = {'reserved_bytes': sum(s[0] for s in segs.values()),
                'allocated_bytes': sum(b[0] for b in blocks.values()),
                'segments': len(segs), 'blocks': len(blocks)}
    for k, v in detailed.items():
        assert s0[k] == v, f'pre-trace {k}: state() {s0[k]} vs detailed {v}'
    out = {}
    for i, e in enumerate(trace):
        a, addr, size = e.get('action'), e.get('addr', 0), e.get('size', 0)
        if a == 'alloc':
            blocks[addr] = [size, False]
        elif a == 'free_requested':
            if addr in blocks:
                blocks[addr][1] = True
        elif a in ('free_completed', 'free'):
            blocks.pop(addr, None)
        elif a == 'segment_alloc':
            segs[addr] = [size, e.get('stream')]
        elif a == 'segment_free':
            segs.pop(addr, None)
        elif a == 'segment_map':
            segs[addr] = [size, e.get('stream')]
            _merge(segs, addr)
        elif a == 'segment_unmap':
            _unmap(segs, addr, size)
        if i in samples or i == len(trace) - 1:
            out[i] = {'reserved_bytes': sum(s[0] for s in segs.values()),
                      'allocated_bytes': sum(b[0] for b in blocks.values()),
                      'segments': len(segs), 'blocks': len(blocks),
                      'pending_free_blocks': sum(1 for b in blocks.values() if b[1])}
    return s0, out


def _merge(segs, addr):
    size, stream = segs[addr]
    nxt = segs.get(addr + size)
    if nxt and nxt[1] == stream:
        segs[addr][0] += nxt[0]
        del segs[addr + size]
    for a, (sz, st) in list(segs.items()):
        if a + sz == addr and st == stream:
            segs[a][0] += segs.pop(addr)[0]
            break


def _unmap(segs, addr, size):
    for a, (sz, st) in list(segs.items()):
        if a <= addr and addr + size <= a + sz:
            del segs[a]
            if a < addr:
                segs[a] = [addr - a, st]
            if addr + size < a + sz:
                segs[addr + size] = [a + sz - addr - size, st]
            return


def _detailed_backward(clone, device):
    """The detailed pre-trace state, by the same backward walk as ref.state."""
    ann = ref.Annotated(clone)
    segs, blocks = {}, {}
    for si, seg in enumerate(clone['segments']):
        if seg['device'] != device:
            continue
        segs[seg['address']] = [seg['total_size'], seg.get('stream')]
        for b in ann.seg_blocks[si]:
            if b['state'] in ('active_allocated', 'active_pending_free'):
                blocks[b['addr']] = [b['requested_size'], b['state'] == 'active_pending_free']
    trace = clone['device_traces'][device]
    for e in reversed(trace[1:]):
        a, addr, size = e.get('action'), e.get('addr', 0), e.get('size', 0)
        if a == 'free':
            blocks[addr] = [size, False]
        elif a == 'free_completed':
            blocks[addr] = [size, True]
        elif a == 'free_requested':
            if addr in blocks:
                blocks[addr][1] = False
        elif a == 'alloc':
            blocks.pop(addr, None)
        elif a == 'segment_free':
            segs[addr] = [size, e.get('stream')]
        elif a == 'segment_unmap':
            segs[addr] = [size, e.get('stream')]
            _merge(segs, addr)
        elif a == 'segment_alloc':
            segs.pop(addr, None)
        elif a == 'segment_map':
            _unmap(segs, addr, size)
    return segs, blocks


def check(path):
    snap = ref.load_snapshot(path)
    summ = ref.summary(snap)['devices']
    bad = []
    for d in ref.devices_of(snap):
        n = len(snap['device_traces'][d]) if d < len(snap['device_traces']) else 0
        if n == 0:
            continue
        step = max(1, n // 25)
        samples = set(range(0, n, step)) | {n - 1}
        s0, fwd = forward(snap, d, samples)
        for i in sorted(samples):
            back = ref.state(snap, d, i)
            for k, v in fwd[i].items():
                if back[k] != v:
                    bad.append(f'{path} d{d} e{i} {k}: backward {back[k]} forward {v}')
        am = summ[str(d)]['active_memory']
        if am['start_bytes'] != s0['allocated_bytes']:
            bad.append(f'{path} d{d}: timeline start {am["start_bytes"]} != allocated before event 0 {s0["allocated_bytes"]}')
        if am['end_bytes'] != fwd[n - 1]['allocated_bytes']:
            bad.append(f'{path} d{d}: timeline end {am["end_bytes"]} != allocated at the end {fwd[n - 1]["allocated_bytes"]}')
        sm = summ[str(d)]['segment_memory']
        if sm['end_bytes'] != summ[str(d)]['reserved_bytes']:
            bad.append(f'{path} d{d}: segment timeline end {sm["end_bytes"]} != reserved {summ[str(d)]["reserved_bytes"]}')
        seg_events = any(e.get('action', '').startswith('segment_') for e in snap['device_traces'][d])
        # without segment events memory_viz pops one segment into the actions
        if seg_events and sm['start_bytes'] != s0['reserved_bytes']:
            bad.append(f'{path} d{d}: segment timeline start {sm["start_bytes"]} != reserved before event 0 {s0["reserved_bytes"]}')
        print(f'{path} device {d}: {len(samples)} events checked both ways')
        CHECKED.append((path, d))
    return bad


CHECKED = []


def main():
    if len(sys.argv) < 2:
        sys.exit(f'usage: {sys.argv[0]} SNAPSHOT...')
    bad = []
    for p in sys.argv[1:]:
        bad += check(p)
    if not CHECKED:
        bad.append('no device with trace events in ' + ' '.join(sys.argv[1:]) + ': nothing was checked')
    for b in bad:
        print('MISMATCH', b)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
