#!/usr/bin/env python3
"""Writes fixtures/leak_growth.json: a hand-made training run whose stacks
say what each allocation is, for the analysis tests.

Four iterations of forward / backward / optimizer step on one 2 MiB-aligned
segment (bump allocation, so every block has its own address):

* forward: two activations of 2 MiB (model.py:forward), freed in backward;
  one 1 MiB `cache_append` per iteration that is never freed (the leak:
  1, 2, 3, 4 MiB live at the samples); one 512 KiB temporary freed at once;
* backward (autograd engine C++ frames): 4 MiB of gradients on the first
  iteration, kept; a 256 KiB temporary freed in backward;
* optimizer (torch/optim/adam.py): 8 MiB of state on the first step, kept;
  a 128 KiB temporary freed in the step;
* iteration 2 frees one activation with free_requested ... free_completed
  six events apart (a pending free);
* at the end two OOMs: one asking for a little more than the largest free
  piece while the free pieces add up to more (fragmentation), one asking
  for 64 GiB (larger than reserved + device_free).

The segment is exactly as large as the bump allocator went, so its free
space is only the holes.

    python3 tests/reference/gen_leak_fixture.py   # rewrites the fixture
"""
import json
import os

KiB, MiB = 1 << 10, 1 << 20
BASE = 0x7f0000000000
t = [1_700_000_000_000_000]


def frame(f, line, name):
    return {'filename': f, 'line': line, 'name': name}


ROOT = [frame('/home/me/proj/train.py', 50, 'train'), frame('/home/me/proj/train.py', 80, '<module>')]
MODULE = [frame('/venv/lib/python3.11/site-packages/torch/nn/modules/module.py', 1561, '_call_impl'),
          frame('/venv/lib/python3.11/site-packages/torch/nn/modules/module.py', 1511, '_wrapped_call_impl')]
FWD = [frame('/home/me/proj/model.py', 20, 'forward')] + MODULE + ROOT
FWD2 = [frame('/home/me/proj/model.py', 21, 'forward')] + MODULE + ROOT
LEAK = [frame('/home/me/proj/model.py', 30, 'cache_append'), frame('/home/me/proj/model.py', 22, 'forward')] + MODULE + ROOT
TMP = [frame('/venv/lib/python3.11/site-packages/torch/nn/functional.py', 2000, 'gelu'),
       frame('/home/me/proj/model.py', 23, 'forward')] + MODULE + ROOT
ENGINE = [frame('??', 0, 'torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)'),
          frame('??', 0, 'torch::autograd::Engine::evaluate_function(...)'),
          frame('??', 0, 'torch::autograd::Engine::thread_main(...)')]
BWD_PY = [frame('/venv/lib/python3.11/site-packages/torch/_tensor.py', 600, 'backward'),
          frame('/home/me/proj/train.py', 60, 'train'), frame('/home/me/proj/train.py', 80, '<module>')]
OPT = [frame('/venv/lib/python3.11/site-packages/torch/optim/adam.py', 400, '_single_tensor_adam'),
       frame('/venv/lib/python3.11/site-packages/torch/optim/adam.py', 200, 'step'),
       frame('/venv/lib/python3.11/site-packages/torch/optim/optimizer.py', 480, 'wrapper'),
       frame('/home/me/proj/train.py', 70, 'train'), frame('/home/me/proj/train.py', 80, '<module>')]


def main():
    trace, live = [], {}
    top = [BASE]

    def ev(action, addr, size, frames, **extra):
        t[0] += 10
        e = {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': t[0], 'frames': frames}
        e.update(extra)
        trace.append(e)

    def alloc(size, frames):
        addr = top[0]
        top[0] += size
        live[addr] = (size, frames)
        ev('alloc', addr, size, frames)
        return addr

    def free(addr, frames, pending_events=0):
        size, _ = live.pop(addr)
        ev('free_requested', addr, size, frames)
        for _ in range(pending_events):
            ev('alloc', alloc_silent(KiB), KiB, frames)
        ev('free_completed', addr, size, frames)

    def alloc_silent(size):
        # an allocation made while a free waits (freed right after)
        addr = top[0]
        top[0] += size
        pending_small.append((addr, size))
        return addr

    pending_small = []
    for it in range(4):
        a1 = alloc(2 * MiB, FWD)
        alloc(1 * MiB, LEAK)
        a2 = alloc(2 * MiB, FWD2)
        tmp = alloc(512 * KiB, TMP)
        free(tmp, TMP)
        if it == 0:
            grads = [alloc(2 * MiB, ENGINE), alloc(2 * MiB, ENGINE)]
        bt = alloc(256 * KiB, ENGINE)
        free(bt, ENGINE)
        free(a2, ENGINE, pending_events=3 if it == 2 else 0)
        for addr, size in pending_small:
            live[addr] = (size, ENGINE)
            free(addr, ENGINE)
        pending_small.clear()
        free(a1, BWD_PY)
        if it == 0:
            states = [alloc(4 * MiB, OPT), alloc(4 * MiB, OPT)]
        ot = alloc(128 * KiB, OPT)
        free(ot, OPT)
    del grads, states

    seg_size = top[0] - BASE
    # The segment_alloc comes first: the run starts on an empty device.
    t0 = trace[0]['time_us'] - 5
    trace.insert(0, {'action': 'segment_alloc', 'addr': BASE, 'size': seg_size, 'stream': 0,
                     'time_us': t0, 'frames': ROOT})
    # Free pieces now: the holes between live blocks.
    holes, at = [], BASE
    for addr in sorted(live):
        if addr > at:
            holes.append(addr - at)
        at = addr + live[addr][0]
    if BASE + seg_size > at:
        holes.append(BASE + seg_size - at)
    request = max(holes) + 512
    assert sum(holes) >= request, (holes, request)
    ev('oom', 0, request, FWD, device_free=100 * MiB)
    ev('oom', 0, 64 << 30, FWD, device_free=100 * MiB)

    blocks, at = [], BASE
    for addr in sorted(live):
        if addr > at:
            blocks.append({'address': at, 'size': addr - at, 'requested_size': 0, 'state': 'inactive', 'frames': []})
        size, frames = live[addr]
        blocks.append({'address': addr, 'size': size, 'requested_size': size, 'state': 'active_allocated',
                       'frames': frames})
        at = addr + size
    if BASE + seg_size > at:
        blocks.append({'address': at, 'size': BASE + seg_size - at, 'requested_size': 0, 'state': 'inactive',
                       'frames': []})
    allocated = sum(s for s, _ in live.values())
    snap = {'segments': [{'device': 0, 'address': BASE, 'total_size': seg_size, 'allocated_size': allocated,
                          'active_size': allocated, 'requested_size': allocated, 'stream': 0,
                          'segment_type': 'large', 'segment_pool_id': [0, 0], 'is_expandable': False,
                          'frames': ROOT, 'blocks': blocks}],
            'device_traces': [trace],
            'allocator_settings': {'expandable_segments': False}}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures', 'leak_growth.json')
    with open(out, 'w') as f:
        json.dump(snap, f, indent=0)
        f.write('\n')


if __name__ == '__main__':
    main()
