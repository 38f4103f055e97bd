#!/usr/bin/env python3
"""Independent reference implementation of memory_viz's numbers, used as the
ground truth the Rust `memviz` CLI is tested against.

Written from the semantics of PyTorch's torch/utils/viz/MemoryViz.js and
process_alloc_data.js (annotate_snapshot, process_alloc_data, simulate_memory)
in plain Python; standard library only. It shares no code with the Rust side.

  memviz_reference.py summary FILE [--no-map-unmap]
  memviz_reference.py state FILE --device D --event N
  memviz_reference.py hover FILE --device D [--count K]
  memviz_reference.py expected FILE [--all-states]   (summary + states + hover)

Prints JSON on stdout. FILE is a pickle or JSON snapshot, optionally gzipped.
A bare list of segments (torch.cuda.memory_snapshot()) is wrapped as
{'segments': list, 'device_traces': []}.

Deliberate departures from memory_viz (each says why):
- `summary` replays segment_map / segment_unmap in segment_memory as the
  pieces they map and unmap (expandable.py: an unmap need not equal any map),
  because memory_viz's Active Cached Segment Timeline ignores them and so
  draws nothing for expandable segments. --no-map-unmap gives memory_viz's
  exact behaviour.
- `state` indexes RAW trace events (before free_requested + free_completed are
  merged into 'free'), so the state between the two halves of a free is
  observable (the block shows as pending free).
- Where memory_viz throws (free_requested of an unknown block, segment_map
  with no containing segment) or corrupts its list (segment_alloc of an
  unknown address removes the LAST segment: splice(-1, 1)), this script does
  nothing instead.
"""
import argparse
import gzip
import io
import os
import json
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expandable import pieces as expandable_pieces, steps as expandable_steps  # noqa: E402


# ---------------------------------------------------------------- loading

class _DataOnlyUnpickler(pickle.Unpickler):
    """Snapshots are plain containers; refuse anything that imports code."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f'refusing global {module}.{name}')


def load_snapshot(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    if data[:1] == b'\x80':
        snap = _DataOnlyUnpickler(io.BytesIO(data)).load()
    else:
        try:
            snap = json.loads(data.decode('utf-8'))
        except (UnicodeDecodeError, ValueError):
            snap = _DataOnlyUnpickler(io.BytesIO(data)).load()
    if isinstance(snap, list):
        snap = {'segments': snap, 'device_traces': []}
    snap.setdefault('segments', [])
    snap.setdefault('device_traces', [])
    return snap


def devices_of(snap):
    """memory_viz's device selector: devices with segments or a non-empty trace."""
    devs = {s['device'] for s in snap['segments']}
    devs |= {d for d, t in enumerate(snap['device_traces']) if t}
    return sorted(devs)


# ---------------------------------------------------------- annotate_snapshot

class Annotated:
    """What annotate_snapshot computes, without mutating the raw snapshot.

    traces[d]: the merged trace, a list of (raw_index, action, version).
    seg_blocks[i]: per segment, a list of dicts {addr, size, requested_size,
    state, frames, version} with the legacy fields resolved.
    """

    def __init__(self, snap):
        block_version, segment_version = {}, {}

        def take(space, addr, increment):
            v = space.get(addr, 0)
            space[addr] = v + 1 if increment else v
            return v

        self.traces = []
        for trace in snap['device_traces']:
            merged = []
            for i, e in enumerate(trace):
                action = e.get('action')
                addr = e.get('addr', 0)
                version = None
                if action == 'free_completed':
                    version = take(block_version, addr, True)
                    if merged:
                        j, pa, pv = merged[-1]
                        if pa == 'free_requested' and trace[j].get('addr', 0) == addr:
                            merged[-1] = (j, 'free', pv)
                            continue
                elif action in ('free_requested', 'alloc'):
                    version = take(block_version, addr, False)
                elif action in ('segment_free', 'segment_unmap'):
                    version = take(segment_version, addr, True)
                elif action in ('segment_alloc', 'segment_map'):
                    version = take(segment_version, addr, False)
                # legacy 'free' gets no version in memory_viz (undefined);
                # it keeps None here.
                merged.append((i, action, version))
            self.traces.append(merged)

        self.seg_version = []
        self.seg_blocks = []
        for seg in snap['segments']:
            self.seg_version.append(take(segment_version, seg['address'], False))
            addr = seg['address']
            blocks = []
            for b in seg.get('blocks', []):
                # memory_viz always places blocks at segment address + running
                # size; real files' 'address' agrees, old ones lack it.
                baddr = b.get('address', addr)
                frames = b.get('frames')
                requested = b.get('requested_size')
                if frames is None:
                    hist = b.get('history') or []
                    if hist:
                        frames = hist[0].get('frames') or []
                        requested = requested or hist[0].get('real_size', 0)
                    else:
                        frames = []
                        requested = requested or b['size']
                elif requested is None:
                    requested = b['size']
                blocks.append({'addr': baddr, 'size': b['size'],
                               'requested_size': requested,
                               'state': b.get('state'), 'frames': frames,
                               'version': take(block_version, baddr, False)})
                addr += b['size']
            self.seg_blocks.append(blocks)


# ---------------------------------------------------------- process_alloc_data

def process_alloc_data(snap, ann, device, plot_segments, map_unmap=False):
    """Elements, actions and initially_allocated as memory_viz builds them.

    Each element is a dict {kind, size, addr, version, frames, raw}; kind is
    'trace' (alloc event), 'unmatched_free' or 'dump' (block/segment from the
    final dump). Returns (elements, actions, initially_allocated).
    """
    trace = snap['device_traces'][device] if device < len(snap['device_traces']) else []
    merged = ann.traces[device] if device < len(ann.traces) else []
    if plot_segments:
        allocs, frees = {'segment_alloc'}, {'segment_free'}
    else:
        allocs, frees = {'alloc'}, {'free', 'free_completed'}

    elements, actions, initially = [], [], []
    # Expandable segments: map / unmap replayed as pieces (expandable.py).
    plist, expandable = expandable_pieces(snap, device) if plot_segments and map_unmap else ([], [])
    by_event = expandable_steps(snap, device, plist)
    elem = {}
    for n, p in enumerate(plist):
        if p['map'] is None:
            elements.append({'kind': 'piece', 'size': p['size'], 'addr': p['addr'], 'version': 0,
                             'frames': [], 'raw': p['unmap']})
            elem[n] = len(elements) - 1
    addr_to_alloc = {}
    for raw_i, action, version in merged:
        e = trace[raw_i]
        if raw_i in by_event and action in ('segment_map', 'segment_unmap'):
            # One step (a list of its pieces) per event: issue 43.
            group = []
            for n in by_event[raw_i]:
                if n not in elem:
                    elements.append({'kind': 'piece', 'size': plist[n]['size'], 'addr': plist[n]['addr'],
                                     'version': version, 'frames': e.get('frames') or [], 'raw': raw_i})
                    elem[n] = len(elements) - 1
                group.append(elem[n])
            if group:
                actions.append(group)
        elif action in allocs:
            elements.append({'kind': 'trace', 'size': e.get('size', 0), 'addr': e.get('addr', 0),
                             'version': version, 'frames': e.get('frames') or [], 'raw': raw_i})
            addr_to_alloc[e.get('addr', 0)] = len(elements) - 1
            actions.append(len(elements) - 1)
        elif action in frees:
            addr = e.get('addr', 0)
            if addr in addr_to_alloc:
                actions.append(addr_to_alloc.pop(addr))
            else:
                # alloc not recorded: drawn from t=0 with the free's stack
                elements.append({'kind': 'unmatched_free', 'size': e.get('size', 0), 'addr': addr,
                                 'version': version, 'frames': e.get('frames') or [], 'raw': raw_i})
                initially.append(len(elements) - 1)
                actions.append(len(elements) - 1)

    initially += [elem[n] for n, p in sorted(enumerate(plist), key=lambda x: x[1]['addr']) if p['map'] is None]
    for si, seg in enumerate(snap['segments']):
        if seg['device'] != device:
            continue
        if plot_segments:
            if si not in expandable and seg['address'] not in addr_to_alloc:
                elements.append({'kind': 'dump', 'size': seg['total_size'], 'addr': seg['address'],
                                 'version': ann.seg_version[si], 'frames': [], 'raw': None})
                initially.append(len(elements) - 1)
        else:
            for b in ann.seg_blocks[si]:
                if b['state'] == 'active_allocated' and b['addr'] not in addr_to_alloc:
                    elements.append({'kind': 'dump', 'size': b['requested_size'], 'addr': b['addr'],
                                     'version': b['version'], 'frames': b['frames'], 'raw': None})
                    initially.append(len(elements) - 1)

    initially.reverse()
    if not actions and initially:
        # memory_viz: keep the plot from being blank
        actions.append(initially.pop())
    return elements, actions, initially


def memory_numbers(elements, actions, initially):
    """Totals over the replay. Peak = max(start, memory_viz's max_at_time):
    max_at_time samples the total after each alloc and before each free, so
    it equals the maximum over all running totals."""
    live = set(initially)
    total = sum(elements[i]['size'] for i in initially)
    start = peak = total
    for step in actions:
        # A map / unmap's step holds all its pieces (a list).
        for i in (step if isinstance(step, list) else [step]):
            if i in live:
                live.discard(i)
                total -= elements[i]['size']
            else:
                live.add(i)
                total += elements[i]['size']
                peak = max(peak, total)
    return {'start_bytes': start, 'peak_bytes': peak, 'end_bytes': total,
            'elements': len(elements), 'actions': len(actions),
            'initially_allocated': len(initially)}


# ------------------------------------------------------------------- summary

def summary(snap, map_unmap=True):
    ann = Annotated(snap)
    out = {}
    for d in devices_of(snap):
        trace = snap['device_traces'][d] if d < len(snap['device_traces']) else []
        counts = {}
        for e in trace:
            a = e.get('action')
            counts[a] = counts.get(a, 0) + 1
        segs = [s for s in snap['segments'] if s['device'] == d]
        out[str(d)] = {
            'trace_events': len(trace),
            'actions': {k: counts[k] for k in sorted(counts)},
            'segments': len(segs),
            'reserved_bytes': sum(s['total_size'] for s in segs),
            'allocated_bytes': sum(s.get('allocated_size', 0) for s in segs),
            'active_blocks': sum(1 for s in segs for b in s.get('blocks', [])
                                 if b.get('state') == 'active_allocated'),
            'active_memory': memory_numbers(*process_alloc_data(snap, ann, d, False)),
            'segment_memory': memory_numbers(*process_alloc_data(snap, ann, d, True, map_unmap)),
        }
    return {'devices': out}


# --------------------------------------------------------------------- state

def state(snap, device, event):
    """Allocator State History after raw event `event` (simulate_memory)."""
    trace = snap['device_traces'][device] if device < len(snap['device_traces']) else []
    if not 0 <= event < len(trace):
        raise SystemExit(f'event {event} out of range: device {device} has {len(trace)} trace events')
    segments, blocks = state_structures(snap, device, event)
    return {'device': device, 'event': event, 'action': trace[event].get('action'),
            'reserved_bytes': sum(s[1] for s in segments),
            'allocated_bytes': sum(b[1] for b in blocks.values()),
            'segments': len(segments),
            'blocks': len(blocks),
            'pending_free_blocks': sum(1 for b in blocks.values() if b[2])}


def state_structures(snap, device, event):
    """The segments ([addr, size, stream], by address) and blocks ({addr:
    [size, requested_size, pending]}) after raw event `event` (-1: before
    the first event)."""
    ann = Annotated(snap)
    trace = snap['device_traces'][device] if device < len(snap['device_traces']) else []

    segments = []  # [addr, size, stream]
    blocks = {}    # addr -> [size, requested_size, pending]
    for si, seg in enumerate(snap['segments']):
        if seg['device'] != device:
            continue
        segments.append([seg['address'], seg['total_size'], seg.get('stream')])
        for b in ann.seg_blocks[si]:
            if b['state'] in ('active_allocated', 'active_pending_free'):
                blocks[b['addr']] = [b['size'], b['requested_size'], b['state'] == 'active_pending_free']
    segments.sort(key=lambda s: s[0])

    def reinsert(seg, merge):
        idx = next((k for k, s in enumerate(segments) if s[0] > seg[0]), len(segments))
        segments.insert(idx, seg)
        if not merge:
            return
        # undoing an unmap: join the address-adjacent same-stream neighbours
        if idx + 1 < len(segments):
            nxt = segments[idx + 1]
            if seg[0] + seg[1] == nxt[0] and seg[2] == nxt[2]:
                seg[1] += nxt[1]
                del segments[idx + 1]
        if idx > 0:
            prev = segments[idx - 1]
            if prev[0] + prev[1] == seg[0] and prev[2] == seg[2]:
                prev[1] += seg[1]
                del segments[idx]

    def remove(seg, split):
        if not split:
            k = next((k for k, s in enumerate(segments) if s[0] == seg[0]), None)
            if k is not None:
                del segments[k]
            return
        end = seg[0] + seg[1]
        k = next((k for k, s in enumerate(segments) if s[0] <= seg[0] and end <= s[0] + s[1]), None)
        if k is None:
            return
        ex = segments[k]
        ex_end = ex[0] + ex[1]
        if ex[0] == seg[0]:
            ex[0] += seg[1]
            ex[1] -= seg[1]
            if ex[1] == 0:
                del segments[k]
        elif ex_end == end:
            ex[1] -= seg[1]
        else:
            ex[1] = seg[0] - ex[0]
            segments.insert(k + 1, [end, ex_end - end, ex[2]])

    for i in range(len(trace) - 1, event, -1):
        e = trace[i]
        a = e.get('action')
        addr, size = e.get('addr', 0), e.get('size', 0)
        if a == 'free':
            blocks[addr] = [size, size, False]
        elif a == 'free_completed':
            blocks[addr] = [size, size, True]
        elif a == 'free_requested':
            if addr in blocks:
                blocks[addr][2] = False
        elif a == 'alloc':
            blocks.pop(addr, None)
        elif a in ('segment_free', 'segment_unmap'):
            reinsert([addr, size, e.get('stream')], a == 'segment_unmap')
        elif a in ('segment_alloc', 'segment_map'):
            remove([addr, size, e.get('stream')], a == 'segment_map')

    return segments, blocks


# --------------------------------------------------------------------- hover

_OMIT_FUNCTIONS = ('unwind::unwind', 'CapturedTraceback::gather', 'gather_with_cpp', '_start',
                   '__libc_start_main', 'PyEval_', 'PyObject_', 'PyFunction_')
_OMIT_FILENAMES = ('core/boxing', '/Register', '/Redispatch', 'pythonrun.c', 'Modules/main.c',
                   'Objects/call.c', 'Objects/methodobject.c', 'pycore_ceval.h', 'ceval.c',
                   'cpython/abstract.h')


def first_frame(frames):
    """The first frame memory_viz's frameFilter keeps, as filename:line:name."""
    for f in frames:
        name, filename = str(f.get('name', '')), str(f.get('filename', ''))
        if any(o in name for o in _OMIT_FUNCTIONS) or any(o in filename for o in _OMIT_FILENAMES):
            continue
        return f'{filename}:{f.get("line")}:{name}'
    return None


def hover(snap, device, count=4):
    """The `count` largest elements of the Active Memory Timeline (size
    descending, ties by lowest element index)."""
    ann = Annotated(snap)
    elements, actions, initially = process_alloc_data(snap, ann, device, False)
    steps = {}
    for step, i in enumerate(actions):
        steps.setdefault(i, []).append(step)
    init = set(initially)
    order = sorted(range(len(elements)), key=lambda i: (-elements[i]['size'], i))
    out = []
    for i in order[:count]:
        el = elements[i]
        st = steps.get(i, [])
        if i in init:
            alloc_step, free_step = None, (st[0] if st else None)
        else:
            alloc_step, free_step = st[0], (st[1] if len(st) > 1 else None)
        out.append({'elem': i,
                    'addr': f'b{el["addr"]:x}_{el["version"]}',
                    'size': el['size'],
                    'first_frame': first_frame(el['frames']),
                    'alloc_step': alloc_step,
                    'free_step': free_step})
    return {'device': device, 'elements': out}


# ------------------------------------------------------------------ expected

def state_events(n):
    """The events the expected files pin: first, a third, the middle, last."""
    return sorted({0, n // 3, n // 2, n - 1}) if n > 0 else []


def expected(snap, name, all_states=False):
    """Everything tests/reference/expected/NAME.json holds."""
    summ = summary(snap)
    states = []
    for d in devices_of(snap):
        n = len(snap['device_traces'][d]) if d < len(snap['device_traces']) else 0
        events = range(n) if all_states else state_events(n)
        states += [state(snap, d, e) for e in events]
    return {'file': name, 'summary': summ, 'states': states,
            'hover': {str(d): hover(snap, d) for d in devices_of(snap)}}


# ---------------------------------------------------------------------- main

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('summary')
    s.add_argument('file')
    s.add_argument('--no-map-unmap', action='store_true',
                   help="memory_viz's exact segment timeline: ignore segment_map/segment_unmap")
    s = sub.add_parser('state')
    s.add_argument('file')
    s.add_argument('--device', type=int, required=True)
    s.add_argument('--event', type=int, required=True)
    s = sub.add_parser('hover')
    s.add_argument('file')
    s.add_argument('--device', type=int, required=True)
    s.add_argument('--count', type=int, default=4)
    s = sub.add_parser('expected')
    s.add_argument('file')
    s.add_argument('--all-states', action='store_true', help='a state after every event (small files)')
    a = p.parse_args(argv)

    snap = load_snapshot(a.file)
    if a.cmd == 'summary':
        out = summary(snap, map_unmap=not a.no_map_unmap)
    elif a.cmd == 'state':
        out = state(snap, a.device, a.event)
    elif a.cmd == 'hover':
        out = hover(snap, a.device, a.count)
    else:
        out = expected(snap, os.path.basename(a.file), a.all_states)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
