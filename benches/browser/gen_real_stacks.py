#!/usr/bin/env python3
"""A long synthetic snapshot whose stacks are a real recording's (issue 44).

gen_snapshot.py (../shared/tools) simulates the allocator; its stacks are
short made-up Python frames, one list object shared by many events (a memo
reference each). Real recordings spend their bytes on stack frames: a new
frames list per alloc (free_requested and free_completed share one), ~36
frame dicts a list, each dict written once and then shared by memo
reference, C++ frames with long signatures. This runs gen_snapshot.py's
generator with the distinct stacks of TEMPLATE (a real recording) and a
fresh list per alloc / free, and gives each trace event the keys the
template's events have beyond gen_snapshot's (PyTorch 2.11's
compile_context, user_metadata), with the template's values.

    gen_real_stacks.py OUT.pickle [--events N] [--template PICKLE] [--seed S]

Reads ../shared at run time; only the Python standard library is needed.
"""
import argparse
import importlib.util
import os
import pickle

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, '../../../shared')


def load_gen():
    path = os.path.join(SHARED, 'tools/gen_snapshot.py')
    spec = importlib.util.spec_from_file_location('gen_snapshot', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def template_stacks(path):
    """The distinct non-empty frames lists of a recording's trace events, and
    the extra keys (with a value) its alloc events carry."""
    with open(path, 'rb') as f:
        snap = pickle.load(f)
    seen, stacks, extra = set(), [], {}
    for trace in snap['device_traces']:
        for ev in trace:
            fr = ev.get('frames') or []
            if fr and id(fr) not in seen:
                seen.add(id(fr))
                stacks.append(fr)
            if ev.get('action') == 'alloc' and not extra:
                extra = {k: v for k, v in ev.items()
                         if k not in ('action', 'addr', 'size', 'stream', 'time_us', 'frames')}
    if not stacks:
        raise SystemExit(f'{path}: no trace event has frames')
    return stacks, extra


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('out')
    p.add_argument('--events', type=int, default=300000)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--iters', type=int, default=40)
    p.add_argument('--template', default=os.path.join(SHARED, 'recordings/expandable_gpt2_varlen.pickle'))
    a = p.parse_args()
    gen = load_gen()
    stacks, extra = template_stacks(a.template)
    gen.make_stacks = lambda rng, n: stacks
    A = gen.Allocator
    malloc, free, event = A.malloc, A.free, A.event
    # A list object per alloc and per free (its two events share it), as
    # PyTorch writes them; the frame dicts stay shared.
    A.malloc = lambda self, size, stream, frames, meta: malloc(self, size, stream, list(frames), meta)
    A.free = lambda self, addr, frames: free(self, addr, list(frames))

    def event_with_extra(self, action, addr, size, stream, frames, **more):
        event(self, action, addr, size, stream, frames, **{**extra, **more})
    A.event = event_with_extra
    snap = gen.generate(a.events, 1, a.seed, False, False, a.iters)
    with open(a.out, 'wb') as f:
        pickle.dump(snap, f, protocol=4)


if __name__ == '__main__':
    main()
