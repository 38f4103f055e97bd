#!/usr/bin/env python3
"""Reserved bytes after every trace event, per device, from the dump alone:
the dump's reserved bytes minus what later events mapped / allocated plus
what they unmapped / freed (standard library only).

  python3 tests/reference/reserved_reference.py FILE
prints {"DEVICE": [reserved before event 0, after event 0, after event 1, ...]}.
"""
import gzip, json, pickle, sys

raw = open(sys.argv[1], 'rb').read()
if raw[:2] == b'\x1f\x8b':
    raw = gzip.decompress(raw)
snap = json.loads(raw) if raw.lstrip()[:1] in (b'{', b'[') else pickle.loads(raw)
if isinstance(snap, list):
    snap = {'segments': snap, 'device_traces': []}
SIGN = {'segment_alloc': 1, 'segment_map': 1, 'segment_free': -1, 'segment_unmap': -1}
out = {}
for d, trace in enumerate(snap.get('device_traces') or []):
    if not trace:
        continue
    reserved = sum(s['total_size'] for s in snap['segments'] if s['device'] == d)
    after = [reserved]
    for e in reversed(trace):
        reserved -= SIGN.get(e['action'], 0) * e.get('size', 0)
        after.append(reserved)
    out[str(d)] = after[::-1]
print(json.dumps(out))
