#!/usr/bin/env python3
"""Independent reference for memviz's analysis (crates/memviz-core/src/analysis):
what is alive at a moment and how it groups, the inferred kinds, the OOM and
peak figures, and the leak report.

Written from the rules in README.md ("Explaining the memory") in plain
Python, standard library only; it shares no code with the Rust side. The
trace replay (elements, actions, initially allocated) and the state history
come from memviz_reference.py, the re-implementation of memory_viz.

  analysis_reference.py FILE [--device D] [--category REGEX=KIND ...]

Prints JSON on stdout: {"devices": {"D": {...}}} for every device with a
trace (or only D).
"""
import argparse
import bisect
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memviz_reference import (Annotated, devices_of, load_snapshot,  # noqa: E402
                              process_alloc_data, state_structures,
                              _OMIT_FILENAMES, _OMIT_FUNCTIONS)

KINDS = ['parameter', 'gradient', 'optimizer_state', 'activation', 'autograd_saved', 'temporary', 'other']
NO_FRAMES = '<no frames>'
SMALL_REQUEST = 1 << 20
SMALL_SEGMENT = 2 << 20
MIN_SAMPLES = 3
TOP = 20


# ------------------------------------------------------------------ frames

_shown = {}


def shown(frame):
    # Cached by identity: the pickle memo shares frame dicts (the snapshot
    # stays alive for the whole run, so ids are not reused).
    k = id(frame)
    r = _shown.get(k)
    if r is None:
        name, filename = str(frame.get('name', '')), str(frame.get('filename', ''))
        r = _shown[k] = not (any(o in name for o in _OMIT_FUNCTIONS) or any(o in filename for o in _OMIT_FILENAMES))
    return r


def ident(frame):
    return (str(frame.get('filename', '')), int(frame.get('line', 0) or 0), str(frame.get('name', '')))


def label(frame):
    f, line, n = ident(frame)
    return f'{f}:{line}:{n}'


def elide(lines):
    out, i = [], 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j] == lines[i]:
            j += 1
        n = j - i
        out += [lines[i]] * n if n <= 2 else [lines[i], f'<repeats {n - 1} times>']
        i = j
    return out


def stack_key(frames):
    lines = [label(f) for f in frames if shown(f)]
    return '\n'.join(elide(lines)) if lines else NO_FRAMES


def stack_id(frames):
    return tuple(ident(f) for f in frames if shown(f))


def is_user_file(file):
    f = file.replace('\\', '/').lower()
    windows_stdlib = len(f) > 1 and f[1] == ':' and '/lib/' in f
    return (f.endswith('.py') and not f.startswith('<') and 'site-packages/' not in f
            and 'dist-packages/' not in f and '/lib/python' not in f and not windows_stdlib)


def is_torch_file(file):
    return '/torch/' in file.replace('\\', '/')


def is_torch_cpp(name, file):
    f = file.replace('\\', '/')
    return (any(name.startswith(ns) or (' ' + ns) in name for ns in ('c10::', 'at::', 'torch::', 'caffe2::'))
            or 'CUDACachingAllocator' in f or 'aten/' in f or 'c10/' in f or 'torch/csrc/' in f
            or f in ('', '??'))


def user_frame(frames):
    """The user's code: never PyTorch's own C++, never the torch package when
    another Python frame is there."""
    s = [f for f in frames if shown(f)]
    fn = lambda f: str(f.get('filename', ''))
    nm = lambda f: str(f.get('name', ''))
    for test in (lambda f: is_user_file(fn(f)),
                 lambda f: fn(f).endswith('.py') and not is_torch_file(fn(f)),
                 lambda f: fn(f).endswith('.py'),
                 lambda f: 'Backward' in nm(f) and '::apply' in nm(f),
                 lambda f: not fn(f).endswith('.py') and not is_torch_cpp(nm(f), fn(f))):
        for f in s:
            if test(f):
                return label(f)
    return NO_FRAMES


# ------------------------------------------------------------------ phases

def frame_mark(name, filename):
    f = filename.replace('\\', '/')
    if 'closure' in name:
        return 'barrier'
    if 'torch/optim/' in f:
        return 'optimizer'
    if ('torch::autograd::Engine::' in name
            or ('torch::autograd::generated::' in name and 'Backward' in name)
            or name == 'backward'
            or (name == 'grad' and f.endswith('torch/autograd/__init__.py'))):
        return 'backward'
    in_module = f.endswith('torch/nn/modules/module.py')
    if ((in_module and name in ('_apply', 'to', 'cuda', 'convert'))
            or name in ('load_state_dict', '_load_from_state_dict', 'reset_parameters', '_reset_parameters',
                        'to_empty', 'from_pretrained', 'from_config', '_from_config')
            or (name == '__init__' and 'torch/nn/modules/' in f) or f.endswith('torch/nn/init.py')):
        return 'setup'
    if name == 'forward' or (in_module and name in ('_call_impl', '_wrapped_call_impl')):
        return 'forward'
    return None


def stack_phase(frames):
    for fr in frames:
        m = frame_mark(str(fr.get('name', '')), str(fr.get('filename', '')))
        if m == 'barrier':
            return None
        if m:
            return m
    return None


def event_phases(trace):
    phases, runs = [], []
    last_stacked, last_marked, run = None, None, 0
    for e in trace:
        frames = e.get('frames') or []
        if not frames:
            p = 'backward' if last_stacked == 'backward' else None
        else:
            p = stack_phase(frames)
            last_stacked = p
        if p is not None and p != last_marked:
            run += 1  # the events before the first phase are run 0
            last_marked = p
        phases.append(p)
        runs.append(run)
    return phases, runs


def infer(alloc, free, own_phase, zero_grad, before_forward=False, workspace=False):
    """alloc / free: (phase, run) or None. README's rules 1-9."""
    if workspace:
        return 'other'
    if alloc is None:
        if free is None:
            return {'optimizer': 'optimizer_state', 'backward': 'gradient'}.get(own_phase, 'parameter')
        if free[0] == 'backward':
            return 'activation'
        if free[0] == 'optimizer' or zero_grad:
            return 'gradient'
        return 'other'
    if free is not None and free[1] == alloc[1] and alloc[1] > 0:
        return 'temporary'
    pa, pf = alloc[0], (free[0] if free else None)
    if pa == 'optimizer':
        return 'optimizer_state'
    if pa == 'backward':
        return 'gradient'
    if pa == 'setup':
        return 'parameter'
    if pf == 'backward':
        return 'activation' if pa == 'forward' else 'autograd_saved'
    if pa == 'forward':
        return 'activation'
    if pa is None and pf is None and free is None and before_forward:
        return 'parameter'
    return 'other'


# --------------------------------------------------------------- analysis

def stream_numbers(snap):
    """memory_viz's stream renaming: 0 stays 0, others by first appearance."""
    names = {0: 0}
    for t in snap['device_traces']:
        for e in t:
            names.setdefault(e.get('stream', 0), len(names))
    for s in snap['segments']:
        names.setdefault(s.get('stream', 0), len(names))
    return names


def group(elems, key_of, sizes):
    sums = {}
    for e in elems:
        for k in key_of(e):
            b, c = sums.get(k, (0, 0))
            sums[k] = (b + sizes[e], c + 1)
    out = [{'key': k, 'bytes': b, 'count': c} for k, (b, c) in sums.items()]
    out.sort(key=lambda g: (-g['bytes'], -g['count'], g['key']))
    return out


def free_space(segments, blocks, keep):
    addrs = sorted(blocks)
    out = {'bytes': 0, 'pieces': 0, 'largest': 0}
    for addr, size, stream in segments:
        if not keep(size, stream):
            continue
        at, end = addr, addr + size
        i = bisect.bisect_left(addrs, addr)
        while i < len(addrs) and addrs[i] < end:
            b = addrs[i]
            if b > at:
                g = b - at
                out['bytes'] += g
                out['pieces'] += 1
                out['largest'] = max(out['largest'], g)
            at = max(at, b + blocks[b][0])
            i += 1
        if end > at:
            g = end - at
            out['bytes'] += g
            out['pieces'] += 1
            out['largest'] = max(out['largest'], g)
    return out


def analyse(snap, device, rules, extra_specs=()):
    ann = Annotated(snap)
    trace = snap['device_traces'][device] if device < len(snap['device_traces']) else []
    elements, actions, initially = process_alloc_data(snap, ann, device, False)
    n = len(actions)
    ne = len(elements)
    sizes = [el['size'] for el in elements]

    # lifetimes in positions: alive at p when born <= p < dies
    born, dies, seen = [0] * ne, [n + 1] * ne, set(initially)
    action_alloc = []
    for k, e in enumerate(actions):
        if e not in seen:
            seen.add(e)
            born[e] = k + 1
            action_alloc.append(True)
        else:
            dies[e] = k + 1
            action_alloc.append(False)
    action_event = [i for i, e in enumerate(trace) if e.get('action') in ('alloc', 'free_completed', 'free')]
    ooms = [i for i, e in enumerate(trace) if e.get('action') == 'oom']

    # free_requested / free events per element, replaying addresses
    free_req, free_ev = [None] * ne, [None] * ne
    live_at = {}
    k = 0
    for i, e in enumerate(trace):
        a = e.get('action')
        if a in ('alloc', 'free_completed', 'free'):
            el = actions[k] if k < n else None
            k += 1
            if el is None:
                continue
            if a == 'alloc' and elements[el]['kind'] == 'trace' and elements[el]['raw'] == i:
                live_at[e.get('addr', 0)] = el
            else:
                free_ev[el] = i
                live_at.pop(e.get('addr', 0), None)
                if elements[el]['kind'] == 'unmatched_free' and elements[el]['raw'] != i:
                    free_req[el] = elements[el]['raw']  # merged free_requested before it
        elif a == 'free_requested':
            el = live_at.get(e.get('addr', 0))
            if el is not None and free_req[el] is None:
                free_req[el] = i

    phases, runs = event_phases(trace)
    first_forward = next((i for i, p in enumerate(phases) if p == 'forward'), None)
    kinds = []
    for i, el in enumerate(elements):
        frames = el['frames']
        let_go = free_req[i] if free_req[i] is not None else free_ev[i]
        freed = dies[i] <= n
        text = '\n'.join(label(f) for f in frames if shown(f))
        kind = next((kd for rx, kd in rules if re.search(rx, text)), None)
        if kind is None:
            alloc = (phases[el['raw']], runs[el['raw']]) if el['kind'] == 'trace' else None
            free = (phases[let_go], runs[let_go]) if freed and let_go is not None else None
            zero = let_go is not None and any(str(f.get('name', '')) == 'zero_grad' for f in (trace[let_go].get('frames') or []))
            before = el['kind'] == 'trace' and first_forward is not None and el['raw'] < first_forward
            workspace = any('at::cuda::' in str(f.get('name', '')) and 'Workspace' in str(f.get('name', ''))
                            for f in frames)
            kind = infer(alloc, free, stack_phase(frames), zero, before, workspace)
        kinds.append(kind)

    def step_of(p):
        if p > 0 and action_alloc[p - 1]:
            return p - 1
        if p < n and not action_alloc[p]:
            return p
        return None

    def at_position(p, event=None):
        ev = event if event is not None else (action_event[p - 1] if 0 < p <= len(action_event) else None)
        return {'position': p, 'step': step_of(p), 'event': ev}

    totals = []
    running = sum(sizes[e] for e in initially)
    start = running
    for e in actions:
        if action_alloc[len(totals)]:
            running += sizes[e]
            totals.append(running)
        else:
            totals.append(running)
            running -= sizes[e]
    peak = max([start] + totals)
    if n == 0 or start >= peak:
        peak_pos = 0
    else:
        s = totals.index(peak)
        peak_pos = s + 1 if action_alloc[s] else s

    def moment(spec):
        if spec == 'start':
            return at_position(0)
        if spec == 'end':
            return at_position(n, len(trace) - 1 if trace else None)
        if spec == 'peak':
            return at_position(peak_pos)
        kind, v = spec.split(':')
        v = int(v)
        if kind == 'step':
            return at_position(v + 1 if action_alloc[v] else v)
        i = ooms[v] if kind == 'oom' else v
        return at_position(bisect.bisect_right(action_event, i), i)

    def alive(p):
        return [e for e in range(ne) if born[e] <= p < dies[e]]

    def per_stack(f, cache={}):
        # The frames lists are shared by the pickle memo too.
        def go(frames):
            k = id(frames)
            if k not in cache:
                cache[k] = (frames, f(frames))
            return cache[k][1]
        return go

    def distinct_labels(frames):
        ids, ks = set(), []
        for f in frames:
            if shown(f) and ident(f) not in ids:
                ids.add(ident(f))
                ks.append(label(f))
        return ks or [NO_FRAMES]

    key_of, user_of, labels_of = per_stack(stack_key, {}), per_stack(user_frame, {}), per_stack(distinct_labels, {})
    stacks = [key_of(el['frames']) for el in elements]
    users = [user_of(el['frames']) for el in elements]
    frame_keys = [labels_of(el['frames']) for el in elements]

    def groups(elems):
        return {'category': group(elems, lambda e: [kinds[e]], sizes),
                'stack': group(elems, lambda e: [stacks[e]], sizes),
                'user_frame': group(elems, lambda e: [users[e]], sizes),
                'frame': group(elems, lambda e: frame_keys[e], sizes)}

    streams = stream_numbers(snap)

    def state_figures(at, request=None):
        ev = at['event'] if at['event'] is not None else -1
        segments, blocks = state_structures(snap, device, ev)
        out = {'reserved_bytes': sum(s[1] for s in segments),
               'state_allocated_bytes': sum(b[1] for b in blocks.values()),
               'free': free_space(segments, blocks, lambda size, stream: True)}
        if request is not None:
            big = request['bytes'] > SMALL_REQUEST
            out['usable'] = free_space(segments, blocks, lambda size, stream: streams.get(stream, stream) == request['stream']
                                       and (size != SMALL_SEGMENT) == big)
        return out

    specs = ['start', 'peak', 'end'] + [f'oom:{k}' for k in range(len(ooms))]
    if trace:
        specs += [f'event:{i}' for i in sorted({0, len(trace) // 4, len(trace) // 2, len(trace) - 1})]
    if n:
        specs += [f'step:{s}' for s in sorted({0, n // 3, n - 1})]
    specs += [s for s in extra_specs if s not in specs]  # diff_reference.py's moments
    moments = []
    for spec in specs:
        at = moment(spec)
        live = alive(at['position'])
        request = None
        if spec.startswith('oom:'):
            e = trace[at['event']]
            request = {'bytes': e.get('size', 0), 'stream': streams.get(e.get('stream', 0), 0),
                       'device_free_bytes': e.get('device_free')}
        m = {'at': spec, **at, 'total_bytes': sum(sizes[e] for e in live), 'count': len(live),
             'groups': groups(live), 'state': state_figures(at, request)}
        if request:
            m['request'] = request
        moments.append(m)

    # leaks: alive at the end, growth over iterations, pending frees
    end_live = alive(n)
    mine = [e for e in end_live if elements[e]['kind'] == 'trace']
    run_last = []  # per run with a phase: [last event with it, phase]
    current = None
    for i, (p, r) in enumerate(zip(phases, runs)):
        if p is None:
            continue
        if r != current:
            current = r
            run_last.append([i, p])
        else:
            run_last[-1][0] = i
    starts = []
    for (last, prev), (_, p) in zip(run_last, run_last[1:]):
        if p == 'forward' and prev in ('backward', 'optimizer'):
            pos = bisect.bisect_right(action_event, last)
            if (not starts or starts[-1] != pos) and 0 < pos < n:
                starts.append(pos)
    def finish(starts):
        starts = [p for p in starts if 0 < p < n]
        starts = [p for j, p in enumerate(starts) if j == 0 or starts[j - 1] != p]
        return starts + [n] if len(starts) >= 2 else None

    def annotation_starts():
        # the outermost record_function range that repeats (digits read as
        # one name), by its START times against the actions' events
        entries = []
        for a in (snap.get('external_annotations') or []):
            if not isinstance(a, dict) or ('device' in a and a['device'] != device):
                continue
            if a.get('stage') in ('START', 'END') and isinstance(a.get('name'), str) and 'time_us' in a:
                entries.append((a['time_us'], a['stage'] == 'START', a['name']))
        entries.sort(key=lambda x: x[0])
        opened, ranges = [], []
        for t, start, name in entries:
            if start:
                opened.append((name, t, len(opened)))
            else:
                for j in range(len(opened) - 1, -1, -1):
                    if opened[j][0] == name:
                        ranges.append(opened.pop(j))
                        break
        ranges += opened
        internal = ('dynamo', 'inductor', 'compiledfunction', 'compiled region', 'compiledfxgraph', 'aotdispatch',
                    'aot_', 'triton')
        by_name = {}
        for name, t, depth in ranges:
            if any(k in name.lower() for k in internal):
                continue
            key = '#'.join(x for x in re.split('[0-9]', name) if x)
            d, ts = by_name.setdefault(key, [depth, []])
            by_name[key][0] = min(d, depth)
            ts.append(t)
        rep = [(d, -len(ts), k) for k, (d, ts) in by_name.items() if len(ts) >= 2]
        if not rep:
            return []
        times = [trace[i].get('time_us', -2 ** 63) for i in action_event]
        return [bisect.bisect_left(times, t) for t in sorted(by_name[min(rep)[2]][1])]

    def pattern_starts():
        # the stack outside any phase allocating at fairly even intervals
        # over the widest stretch: right before each of its allocations
        allocs = sorted((born[e], stack_id(elements[e]['frames'])) for e in range(ne)
                        if elements[e]['kind'] == 'trace'
                        and stack_phase(trace[action_event[born[e] - 1]].get('frames') or []) is None)
        at = {}
        for k, (_, sid) in enumerate(allocs):
            at.setdefault(sid, []).append(k)
        best = None
        for ks in at.values():
            gaps = [b - a for a, b in zip(ks, ks[1:])]
            if len(ks) >= MIN_SAMPLES and max(gaps) <= 2 * min(gaps):
                rank = (ks[-1] - ks[0], -len(ks), -ks[0])
                if best is None or rank > best[0]:
                    best = (rank, ks)
        return [allocs[k][0] - 1 for k in best[1]] if best else []

    if len(starts) >= 2:
        samples, source = starts + [n], 'phases'
    elif finish(annotation_starts()):
        samples, source = finish(annotation_starts()), 'annotations'
    elif finish(pattern_starts()):
        samples, source = finish(pattern_starts()), 'pattern'
    else:
        samples, source = [], 'none'
    growing = []
    if len(samples) >= MIN_SAMPLES:
        series = {}
        for e in range(ne):
            lo, hi = bisect.bisect_left(samples, born[e]), bisect.bisect_left(samples, dies[e])
            if lo < hi:
                v = series.setdefault(stack_id(elements[e]['frames']), [0] * (len(samples) + 1))
                v[lo] += sizes[e]
                v[hi] -= sizes[e]
        for sid, d in series.items():
            vals, acc = [], 0
            for x in d[:len(samples)]:
                acc += x
                vals.append(acc)
            first = next((j for j, v in enumerate(vals) if v > 0), None)
            if first is None:
                continue
            rising = vals[first:]
            # mostly grows: rises at two thirds of the samples or more, at
            # the last one, and ends above where it began
            ups = sum(b > a for a, b in zip(rising, rising[1:]))
            if len(rising) >= MIN_SAMPLES and ups * 3 >= (len(rising) - 1) * 2 and rising[-1] > rising[-2] \
                    and rising[-1] > rising[0]:
                frames = [{'filename': f, 'line': l, 'name': nm} for f, l, nm in sid]
                growing.append({'key': stack_key(frames), 'first_sample': first, 'live_bytes': rising,
                                'growth_bytes': rising[-1] - rising[0]})
        growing.sort(key=lambda g: (-g['growth_bytes'], g['key']))
    pending = []
    for e, el in enumerate(elements):
        r = free_req[e]
        if el['kind'] != 'trace' or r is None:
            continue
        done = free_ev[e] if free_ev[e] is not None and free_ev[e] > r else None
        waited = (done if done is not None else len(trace)) - r
        if waited > 1:
            t0, t1 = trace[r].get('time_us'), (trace[done].get('time_us') if done is not None else None)
            pending.append({'element': e, 'size': el['size'], 'free_requested_event': r,
                            'free_completed_event': done, 'events': waited,
                            'time_us': t1 - t0 if t0 is not None and t1 is not None else None})
    pending.sort(key=lambda p: (-(p['time_us'] if p['time_us'] is not None else -1), -p['events'], -p['size'], p['element']))

    kind_totals = {k: [0, 0] for k in KINDS}
    for e, k in enumerate(kinds):
        kind_totals[k][0] += 1
        kind_totals[k][1] += sizes[e]
    return {
        'positions': n,
        'start_bytes': start,
        'peak_bytes': peak,
        'end_bytes': running,
        'kinds': ''.join(str(KINDS.index(k)) for k in kinds),
        'kind_totals': {k: {'count': c, 'bytes': b} for k, (c, b) in kind_totals.items() if c},
        'moments': moments,
        'leaks': {'alive_at_end': group(mine, lambda e: [stacks[e]], sizes)[:TOP],
                  'alive_at_end_bytes': sum(sizes[e] for e in mine),
                  'alive_at_end_count': len(mine),
                  'before_trace_bytes': sum(sizes[e] for e in end_live if elements[e]['kind'] != 'trace'),
                  'iterations_from': source, 'samples': samples,
                  'growing': growing[:TOP],
                  'pending_free_count': len(pending), 'pending_frees': pending[:TOP]},
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('file')
    p.add_argument('--device', type=int)
    p.add_argument('--category', action='append', default=[], help='REGEX=KIND, first match wins')
    a = p.parse_args(argv)
    rules = []
    for spec in a.category:
        rx, kind = spec.rsplit('=', 1)
        rules.append((rx, kind))
    snap = load_snapshot(a.file)
    devs = [a.device] if a.device is not None else [
        d for d in devices_of(snap) if d < len(snap['device_traces']) and snap['device_traces'][d]]
    json.dump({'devices': {str(d): analyse(snap, d, rules) for d in devs}}, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
