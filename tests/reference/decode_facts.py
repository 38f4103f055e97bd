#!/usr/bin/env python3
"""Facts about a snapshot, read with Python's own pickle module: the
independent side of crates/memviz-core/tests/decode.rs.

  decode_facts.py FILE            -> JSON facts on stdout
  decode_facts.py --rewrite FILE OUT FORMAT
      writes the same snapshot as FORMAT: p2, p3, p4, p5 (pickle protocols),
      json, p4.gz, json.gz
"""
import gzip, json, pickle, sys


def load(path):
    raw = open(path, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    if raw.lstrip()[:1] in (b'{', b'['):
        return json.loads(raw)
    return pickle.loads(raw)


def frames_of(fs):
    return [[f['filename'], f['line'], f['name']] for f in fs or []]


def facts(snap):
    if isinstance(snap, list):
        snap = {'segments': snap, 'device_traces': []}
    out = {'devices': [], 'segments': len(snap['segments']),
           'blocks': sum(len(s['blocks']) for s in snap['segments']),
           'total_size': sum(s['total_size'] for s in snap['segments']),
           'allocated_size': sum(s['allocated_size'] for s in snap['segments']),
           'has_settings': 'allocator_settings' in snap}
    for t in snap['device_traces']:
        acts = {}
        for e in t:
            acts[e['action']] = acts.get(e['action'], 0) + 1
        picks = sorted({0, len(t) // 2, len(t) - 1}) if t else []
        out['devices'].append({
            'events': len(t), 'actions': acts,
            'frame_refs': sum(len(e.get('frames', [])) for e in t),
            'size_sum': sum(e['size'] for e in t),
            'samples': [{'i': i, 'action': t[i]['action'], 'addr': str(t[i]['addr']),
                         'size': t[i]['size'], 'time_us': t[i].get('time_us'),
                         'frames': frames_of(t[i].get('frames'))} for i in picks]})
    segs = snap['segments']
    picks = sorted({0, len(segs) // 2, len(segs) - 1}) if segs else []
    out['segment_samples'] = [{
        'i': i, 'address': str(segs[i]['address']), 'total_size': segs[i]['total_size'],
        'device': segs[i]['device'], 'n_blocks': len(segs[i]['blocks']),
        'block0_size': segs[i]['blocks'][0]['size'] if segs[i]['blocks'] else None,
        'block0_state': segs[i]['blocks'][0]['state'] if segs[i]['blocks'] else None,
    } for i in picks]
    return out


def rewrite(path, out, fmt):
    snap = load(path)
    if fmt.startswith('json'):
        data = json.dumps(snap).encode()
    else:
        data = pickle.dumps(snap, protocol=int(fmt[1]))
    if fmt.endswith('.gz'):
        data = gzip.compress(data)
    open(out, 'wb').write(data)


if __name__ == '__main__':
    if sys.argv[1] == '--rewrite':
        rewrite(*sys.argv[2:5])
    else:
        print(json.dumps(facts(load(sys.argv[1]))))
