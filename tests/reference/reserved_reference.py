#!/usr/bin/env python3
"""Reserved bytes after every trace event, per device, from the dump alone:
the dump's reserved bytes minus what later events mapped / allocated plus
what they unmapped / freed (standard library only).

  python3 tests/reference/reserved_reference.py FILE [--pools]
prints {"DEVICE": [reserved before event 0, after event 0, after event 1, ...]};
with --pools, {"DEVICE": {"A,B,sSTREAM": [...]}} for each private pool and
stream, an event's pool being that of the dump segment holding its address
(memory_viz's find_pool_id).
"""
import gzip, json, pickle, sys

raw = open(sys.argv[1], 'rb').read()
if raw[:2] == b'\x1f\x8b':
    raw = gzip.decompress(raw)
snap = json.loads(raw) if raw.lstrip()[:1] in (b'{', b'[') else pickle.loads(raw)
if isinstance(snap, list):
    snap = {'segments': snap, 'device_traces': []}
SIGN = {'segment_alloc': 1, 'segment_map': 1, 'segment_free': -1, 'segment_unmap': -1}
pools = '--pools' in sys.argv[2:]
out = {}
for d, trace in enumerate(snap.get('device_traces') or []):
    if not trace:
        continue
    segs = [x for x in snap['segments'] if x['device'] == d]

    def key(addr, stream):
        if not pools:
            return 'all'
        for x in segs:
            if x['address'] <= addr < x['address'] + x['total_size']:
                pid = tuple(x.get('segment_pool_id') or (0, 0))
                return None if pid == (0, 0) else '%d,%d,s%d' % (pid[0], pid[1], stream)
        return None
    reserved = {}
    for x in segs:
        k = key(x['address'], x['stream'])
        if k is not None:
            reserved[k] = reserved.get(k, 0) + x['total_size']
    after = {k: [v] for k, v in reserved.items()}
    for e in reversed(trace):
        k = key(e.get('addr', 0), e.get('stream', 0)) if e['action'] in SIGN else None
        if k is not None and k not in after:
            after[k] = [0] * len(next(iter(after.values()), [0]))
            reserved[k] = 0
        if k is not None:
            reserved[k] -= SIGN[e['action']] * e.get('size', 0)
        for kk in after:
            after[kk].append(reserved[kk])
    res = {k: v[::-1] for k, v in after.items()}
    out[str(d)] = res if pools else res.get('all', [0] * (len(trace) + 1))
print(json.dumps(out))
