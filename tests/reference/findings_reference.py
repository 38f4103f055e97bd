#!/usr/bin/env python3
"""Independent figures for the findings (issue 40), read from a snapshot
with Python's own pickle module by replaying its trace by address; shares
no code with the Rust side.

  findings_reference.py FILE [--device D]

Prints JSON:
* gradients_kept_bytes: bytes allocated by the backward pass (a stack with
  an autograd engine / `…Backward…` node / Python `backward` frame; not
  cuBLAS's workspace, an `at::cuda::…Workspace…` frame) before the second
  forward pass began (the first event with a `forward` frame after a
  backward event) and still alive at the end of the trace: gradients one
  iteration left to the next;
* optimizer_state_bytes: bytes allocated under a `torch/optim/` frame during
  the first optimizer step (from the first such event to the next forward
  event) and alive when that step ended;
* gradient_bytes_before_step: backward allocations alive at the first
  `torch/optim/` event (the trainable parameters' size);
* ooms: per `oom` event, {event, bytes, device_free, free_bytes,
  largest_free_bytes}: the free (inactive) blocks of the dump's large-pool
  segments on the request's stream (the dump is taken after the OOM).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memviz_reference import load_snapshot  # noqa: E402


def names(e):
    return [(str(f.get('name', '')), str(f.get('filename', '')).replace('\\', '/')) for f in (e.get('frames') or [])]


def is_backward(e):
    return any('torch::autograd::Engine::' in n or ('torch::autograd::generated::' in n and 'Backward' in n)
               or n == 'backward' for n, _ in names(e))


def is_workspace(e):
    return any('at::cuda::' in n and 'Workspace' in n for n, _ in names(e))


def is_optim(e):
    return any('torch/optim/' in f for _, f in names(e))


def is_forward(e):
    return any(n == 'forward' or (f.endswith('torch/nn/modules/module.py') and n in ('_call_impl', '_wrapped_call_impl'))
               for n, f in names(e))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument('file')
    p.add_argument('--device', type=int, default=0)
    o = p.parse_args(argv)
    snap = load_snapshot(o.file)
    trace = snap['device_traces'][o.device] if o.device < len(snap['device_traces']) else []
    live = {}  # addr -> (size, event index, kind)
    seen_backward, second_forward = False, None
    first_optim, optim_end, grads_before = None, None, 0
    state = {}
    for i, e in enumerate(trace):
        a = e.get('action')
        if second_forward is None and seen_backward and is_forward(e):
            second_forward = i
        if first_optim is not None and optim_end is None and is_forward(e):
            optim_end = i
            state = {k: v for k, v in live.items() if v[2] == 'optim'}
        if a == 'alloc':
            back = is_backward(e) and not is_workspace(e)
            seen_backward = seen_backward or back
            optim = is_optim(e)
            if optim and first_optim is None:
                first_optim = i
                grads_before = sum(v[0] for v in live.values() if v[2] == 'backward')
            live[e['addr']] = (e['size'], i, 'backward' if back else 'optim' if optim and optim_end is None else '')
        elif a in ('free_completed', 'free'):
            live.pop(e.get('addr'), None)
    if first_optim is not None and optim_end is None:
        state = {k: v for k, v in live.items() if v[2] == 'optim'}
    kept = 0
    if second_forward is not None:
        kept = sum(v[0] for v in live.values() if v[2] == 'backward' and v[1] < second_forward)
    ooms = []
    for i, e in enumerate(trace):
        if e.get('action') != 'oom':
            continue
        free = [b['size'] for s in snap['segments'] if s.get('stream', 0) == e.get('stream', 0)
                and s['total_size'] != 2 << 20 for b in s['blocks'] if b['state'] == 'inactive']
        ooms.append({'event': i, 'bytes': e['size'], 'device_free': e.get('device_free'),
                     'free_bytes': sum(free), 'largest_free_bytes': max(free, default=0)})
    json.dump({'gradients_kept_bytes': kept, 'optimizer_state_bytes': sum(v[0] for v in state.values()),
               'gradient_bytes_before_step': grads_before, 'ooms': ooms}, sys.stdout)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
