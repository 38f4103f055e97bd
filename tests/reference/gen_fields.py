#!/usr/bin/env python3
"""Snapshots with what newer PyTorch writes, and with broken entries, plus
what memviz must make of them, computed here (standard library only, and
memviz_reference.py for the timeline numbers) without the Rust code.

    gen_fields.py new-fields [--flat-host-traces] OUT.pickle
        PyTorch 2.15's additions: `annotate` trace entries
        (torch.cuda.memory._annotate_tensor) with user_metadata as a str and
        as a dict, `internal_metadata` and `pool_id` on trace entries, and
        pinned host memory in `host_segments` / `host_traces` (a list of
        traces, or with --flat-host-traces one trace). Prints JSON:
        {summary: memviz summary --json's numbers, with the host under
        "host"; annotations: per annotate event, the allocation it attaches
        to, its event-list line and the hover lines it adds; hover: texts
        that must appear in given allocations' hover text}.

    gen_fields.py bad-entries SOURCE OUT.pickle
        SOURCE (a real snapshot) with broken entries put in at known places.
        Prints JSON: {summary: SOURCE's numbers (the sound entries are all
        kept, the broken ones left out), warnings: the exact lines memviz
        must say, in order, kept_events: device 0's trace length}.

    gen_fields.py nothing-usable OUT.pickle
        A dict whose segments and trace entries are all broken. Prints JSON
        {error: the message}.
"""

import datetime
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memviz_reference as ref  # noqa: E402

MIB = 1 << 20
# 2026-03-01T12:00:00Z in microseconds.
T0 = int(datetime.datetime(2026, 3, 1, 12, tzinfo=datetime.timezone.utc).timestamp()) * 1_000_000


def iso(time_us):
    """JS `new Date(time_us / 1000).toISOString()`."""
    ms = time_us // 1000
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return d.strftime('%Y-%m-%dT%H:%M:%S.') + f'{ms % 1000:03d}Z'


def size_text(n):
    """memory_viz's formatSize(n, true), for the exact sizes used here."""
    v, units = float(n), ['', 'Ki', 'Mi', 'Gi']
    for u in units:
        if v < 1024:
            return f'{v:.1f}{u}B ({n} bytes)'
        v /= 1024
    raise ValueError(n)


def metadata_lines(m):
    """Metadata as memory_viz lists user metadata: '  text' or '  key: value'."""
    if isinstance(m, dict):
        return [f'  {k}: {v}' for k, v in m.items()]
    return [f'  {m}']


def metadata_inline(m):
    if isinstance(m, dict):
        return '{' + ', '.join(f'{k}: {v}' for k, v in m.items()) + '}'
    return str(m)


# ------------------------------------------------------------- new fields

def new_fields(flat_host):
    seg = 0x7f0000000000
    a1, a2, a0, ghost, nowhere = seg, seg + 0x200, seg + 0x100000, seg + 0x180000, seg + 0xff000
    seg2, a3 = 0x7f0000400000, 0x7f0000400000
    step = [0]

    def ev(action, addr, size, **kw):
        e = {'action': action, 'addr': addr, 'size': size, 'stream': 0,
             'time_us': T0 + 1000 * step[0] + 7,
             'frames': [{'filename': 'train.py', 'line': 10 + step[0], 'name': action}]}
        e.update(kw)
        step[0] += 1
        return e

    trace = [
        ev('segment_alloc', seg, 2 * MIB),                                                      # 0
        ev('alloc', a1, 512, pool_id=(1, 5), internal_metadata={'phase': 'forward', 'seq': 7}),  # 1
        ev('annotate', a1, 512, user_metadata='saved for backward'),                            # 2
        ev('alloc', a2, 1024, internal_metadata='cudagraph warmup'),                            # 3
        ev('annotate', a2, 1024, user_metadata={'step': 3, 'module': 'attn'}),                  # 4
        ev('annotate', a1, 512, user_metadata='retained by autograd'),                          # 5
        ev('free_requested', a1, 512),                                                          # 6
        ev('free_completed', a1, 512),                                                          # 7
        ev('annotate', a0, 4096, user_metadata='old tensor'),                                   # 8: allocated before recording
        ev('alloc', a1, 256),                                                                   # 9
        ev('free_requested', a0, 4096),                                                         # 10
        ev('free_completed', a0, 4096),                                                         # 11
        ev('annotate', ghost, 512, user_metadata={'kind': 'ghost'}),                            # 12: alive at the dump only
        ev('annotate', nowhere, 0, user_metadata='orphan'),                                     # 13: nothing there
        ev('segment_alloc', seg2, 2 * MIB),                                                     # 14
        ev('alloc', a3, 4096, pool_id=(2, 9)),                                                  # 15: its segment is gone at the dump
        ev('free_requested', a3, 4096),                                                         # 16
        ev('free_completed', a3, 4096),                                                         # 17
        ev('segment_free', seg2, 2 * MIB),                                                      # 18
    ]

    def segment(device, address, total, blocks, pool=(0, 0)):
        active = [b for b in blocks if b['state'] == 'active_allocated']
        return {'device': device, 'address': address, 'total_size': total,
                'allocated_size': sum(b['size'] for b in active),
                'active_size': sum(b['size'] for b in active),
                'requested_size': sum(b['requested_size'] for b in active),
                'stream': 0, 'segment_type': 'large', 'segment_pool_id': pool,
                'is_expandable': False, 'frames': [], 'blocks': blocks}

    def block(address, size, requested, state):
        return {'address': address, 'size': size, 'requested_size': requested,
                'state': state, 'frames': []}

    segments = [segment(0, seg, 2 * MIB, [
        block(a1, 512, 256, 'active_allocated'),
        block(a2, 1024, 1024, 'active_allocated'),
        block(seg + 0x600, 0x180000 - 0x600, 0, 'inactive'),
        block(ghost, 512, 512, 'active_allocated'),
        block(ghost + 0x200, 2 * MIB - 0x180200, 0, 'inactive'),
    ])]

    # Pinned host memory: its own allocator, its own trace.
    h = 0x7fe000000000
    step[0] = 100
    host_trace = [
        ev('segment_alloc', h, MIB),
        ev('alloc', h, 4096),
        ev('alloc', h + 4096, 8192),
        ev('free_requested', h, 4096),
        ev('free_completed', h, 4096),
        ev('free_completed', h + 2 * MIB, 1024),  # allocated before recording
        ev('alloc', h + 12288, 2048),
        ev('free_requested', h + 12288, 2048),
        ev('free_completed', h + 12288, 2048),
    ]
    # The pinned allocator has no CUDA device: -1 must not be read as one.
    host_segments = [segment(-1, h, MIB, [
        block(h, 4096, 0, 'inactive'),
        block(h + 4096, 8192, 8192, 'active_allocated'),
        block(h + 12288, MIB - 12288, 0, 'inactive'),
    ]), segment(-1, h + 2 * MIB, MIB, [block(h + 2 * MIB, MIB, 0, 'inactive')])]

    snap = {'segments': segments, 'device_traces': [trace],
            'host_segments': host_segments,
            'host_traces': host_trace if flat_host else [host_trace],
            'allocator_settings': {'expandable_segments': False}}

    # Summary: the CUDA device as memory_viz sees it; the host as one more
    # device made of host_segments / host_traces.
    summary = ref.summary({'segments': segments, 'device_traces': [trace]})
    as_device = ref.summary({'segments': [dict(s, device=0) for s in host_segments],
                             'device_traces': [host_trace]})
    summary['devices']['host'] = as_device['devices']['0']

    # Each annotate event attaches to the allocation live at its address:
    # the latest alloc not yet freed (free_completed), else one allocated
    # before recording (a later free matching no alloc), else a block alive
    # at the dump that the trace never allocated.
    ann = ref.Annotated({'segments': segments, 'device_traces': [trace]})
    version_of = {raw: v for raw, _, v in ann.traces[0]}
    live, unmatched = {}, []
    for i, e in enumerate(trace):
        if e['action'] == 'alloc':
            live[e['addr']] = i
        elif e['action'] in ('free_completed', 'free'):
            if live.pop(e['addr'], None) is None:
                unmatched.append((i, e['addr']))
    ghosts = {b['addr']: b['version'] for b in ann.seg_blocks[0] if b['state'] == 'active_allocated'
              and b['addr'] not in live}
    live = {}
    annotations = []
    for i, e in enumerate(trace):
        if e['action'] == 'alloc':
            live[e['addr']] = i
        elif e['action'] in ('free_completed', 'free'):
            live.pop(e['addr'], None)
        elif e['action'] == 'annotate':
            addr = e['addr']
            later = [f for f, a in unmatched if a == addr and f > i]
            if addr in live:
                target = {'kind': 'alloc', 'event': live[addr]}
                version = version_of[live[addr]]
            elif later:
                # memory_viz merges the free_requested just before it.
                f = later[0]
                shown = f - 1 if trace[f - 1]['action'] == 'free_requested' and trace[f - 1]['addr'] == addr else f
                target = {'kind': 'before_recording', 'addr': addr}
                version = version_of[shown]
            elif addr in ghosts:
                target = {'kind': 'dump_block', 'addr': addr}
                version = ghosts[addr]
            else:
                target, version = None, 0
            m = e['user_metadata']
            line = (f"{'annotate':<14} {f'b{addr:x}_{version}':<18} {size_text(e['size'])} "
                    f"{metadata_inline(m)}\n              (stream 0)")
            block_text = '\n'.join([f"Annotation (event {i}, {iso(e['time_us'])}):"] + metadata_lines(m))
            annotations.append({'event': i, 'target': target, 'line': line, 'hover': block_text})

    # What the hover of an allocation shows of the fields on its alloc event.
    hover = [
        {'alloc_event': 1, 'contains': ['pool_id (1, 5)', 'Internal Metadata:\n' + '\n'.join(
            metadata_lines(trace[1]['internal_metadata']))]},
        {'alloc_event': 3, 'contains': ['Internal Metadata:\n' + '\n'.join(metadata_lines(trace[3]['internal_metadata']))]},
        # Segment gone at the dump: only the event knows the pool.
        {'alloc_event': 15, 'contains': ['pool_id (2, 9)']},
    ]
    return snap, {'summary': summary, 'annotations': annotations, 'hover': hover,
                  'host_trace_events': len(host_trace)}


# ------------------------------------------------------------ bad entries

def bad_entries(source):
    good = ref.load_snapshot(source)
    summary = ref.summary(good)
    with open(source, 'rb') as f:
        bad = pickle.load(f)
    warnings = []

    segs = bad['segments']
    segs.insert(2, 'segment')
    warnings.append("segments[2]: a str, not a dict; skipped")
    blocks = segs[4]['blocks']
    blocks.insert(1, {'address': blocks[0]['address'], 'size': 'big', 'requested_size': 0,
                      'state': 'inactive', 'frames': []})
    warnings.append("segments[4]['blocks'][1]: 'size' is a str, not an int; skipped")
    segs.append({'device': 0, 'address': 0x7f00deadbeef, 'total_size': None, 'blocks': []})
    warnings.append(f"segments[{len(segs) - 1}]: 'total_size' is None, not an int; skipped")

    t = bad['device_traces'][0]
    for i in (17, 20, 25):
        t.insert(i, 7)
    warnings.append("device_traces[0][17]: an int, not a dict; 3 entries like it skipped")
    t.insert(30, {'action': 'alloc', 'addr': 'oops', 'size': 8, 'stream': 0, 'frames': []})
    warnings.append("device_traces[0][30]: 'addr' is a str, not an int; skipped")
    t.insert(40, {'addr': 1, 'size': 2})
    warnings.append("device_traces[0][40]: no 'action'; skipped")
    t[50] = dict(t[50], time_us='soon')
    warnings.append("device_traces[0][50]: 'time_us' is a str, not an int (read as no time)")
    return bad, {'summary': summary, 'warnings': warnings,
                 'kept_events': len(good['device_traces'][0])}


def nothing_usable():
    snap = {'segments': [1, 2], 'device_traces': [[3, 'x', None]]}
    error = ("not a memory snapshot: nothing usable is left: "
             "segments[0]: an int, not a dict; 2 entries like it skipped; "
             "device_traces[0][0]: an int, not a dict; skipped; "
             "device_traces[0][1]: a str, not a dict; skipped")
    return snap, {'error': error}


def main(argv):
    cmd = argv[0]
    out = argv[-1]
    if cmd == 'new-fields':
        snap, expected = new_fields('--flat-host-traces' in argv)
    elif cmd == 'bad-entries':
        snap, expected = bad_entries(argv[1])
    elif cmd == 'nothing-usable':
        snap, expected = nothing_usable()
    else:
        sys.exit(__doc__)
    with open(out, 'wb') as f:
        pickle.dump(snap, f, protocol=4)
    json.dump(expected, sys.stdout, indent=1)


if __name__ == '__main__':
    main(sys.argv[1:])
