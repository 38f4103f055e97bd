#!/usr/bin/env python3
"""Writes the traces the findings tests read (issue 40), and prints what
each must show, worked out here from what it wrote:

  gen_findings_traces.py leak OUT.pickle     a plain loop (no module, no
      optimizer, no annotations) that allocates two 256 MiB tensors an
      iteration at leak.py:12 and :13, keeps them for 8 iterations, frees
      half of them once (a collection), grows again for 8 iterations, then
      runs out of memory (an `oom` event asking 256 MiB);
  gen_findings_traces.py leak_steps OUT.pickle  the same leaking loop, each
      iteration inside a `record_function("ProfilerStep#N")` range
      (external_annotations START/END);
  gen_findings_traces.py healthy OUT.pickle  the same loop freeing both
      tensors every iteration: nothing grows;
  gen_findings_traces.py on_device OUT.pickle  a model made on the device
      (`with torch.device("cuda")`: torch's Linear.__init__ and
      reset_parameters / torch.nn.init, and a user module's own
      nn.Parameter in model.py's __init__), then 3 training iterations
      (forward, backward, SGD without state, zero_grad).

Prints JSON: leak: {"rate_bytes", "oom_event", "leak_lines", "repetitions"};
healthy: {}; on_device: {"weight_addrs": [...]} (the weights' addresses).
Every tensor gets its own segment (segment_alloc, never freed), so the
final segments are the trace's replay.
"""
import json
import pickle
import sys

MiB = 1 << 20


def frame(f, line, name):
    return {'filename': f, 'line': line, 'name': name}


TORCH = '/venv/lib/python3.12/site-packages/torch'
ALLOC_CPP = [frame('CUDACachingAllocator.cpp', 0,
                   'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(unsigned long, CUstream_st*)'),
             frame('??', 0, 'at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*)')]


class Trace:
    def __init__(self):
        self.events, self.segments, self.live, self.annotations = [], [], {}, []
        self.next_addr, self.t = 0x7f0000000000, 1_700_000_000_000_000

    def ev(self, **kw):
        self.t += 10
        kw.setdefault('stream', 0)
        kw['time_us'] = self.t
        self.events.append(kw)
        return len(self.events) - 1

    def alloc(self, size, frames):
        seg = (size + 2 * MiB - 1) // (2 * MiB) * (2 * MiB)
        addr = self.next_addr
        self.next_addr += seg + 2 * MiB
        self.ev(action='segment_alloc', addr=addr, size=seg, frames=frames)
        self.ev(action='alloc', addr=addr, size=size, frames=frames)
        self.segments.append([addr, seg, size, frames])
        self.live[addr] = True
        return addr

    def free(self, addr, frames):
        size = next(s[2] for s in self.segments if s[0] == addr)
        self.ev(action='free_requested', addr=addr, size=size, frames=frames)
        self.ev(action='free_completed', addr=addr, size=size, frames=frames)
        del self.live[addr]

    def dump(self, path):
        segs = []
        for addr, seg, size, frames in self.segments:
            alive = addr in self.live
            blocks = [{'address': addr, 'size': size, 'requested_size': size,
                       'state': 'active_allocated' if alive else 'inactive', 'frames': frames if alive else []}]
            if seg > size:
                blocks.append({'address': addr + size, 'size': seg - size, 'requested_size': 0,
                               'state': 'inactive', 'frames': []})
            segs.append({'device': 0, 'address': addr, 'total_size': seg, 'allocated_size': size if alive else 0,
                         'active_size': size if alive else 0, 'requested_size': size if alive else 0,
                         'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
                         'is_expandable': False, 'frames': frames, 'blocks': blocks})
        snap = {'segments': segs, 'device_traces': [self.events],
                'allocator_settings': {}, 'external_annotations': self.annotations}
        with open(path, 'wb') as f:
            pickle.dump(snap, f, protocol=4)


def loop(path, leak, steps=False):
    tr = Trace()
    main = [frame('/home/me/leak.py', 20, '<module>')]
    line = lambda n: [frame('/home/me/leak.py', n, 'step')] + [frame('/home/me/leak.py', 18, 'run')] + main
    a_frames = ALLOC_CPP + [frame(TORCH + '/_tensor.py', 40, 'new_empty')] + line(12)
    b_frames = ALLOC_CPP + line(13)
    kept, out = [], {}
    iters = 0
    for phase in range(2):
        for _ in range(8):
            iters += 1
            step = {'device': 0, 'name': f'ProfilerStep#{iters}'}
            if steps:
                tr.t += 1
                tr.annotations.append({**step, 'stage': 'START', 'time_us': tr.t})
            a, b = tr.alloc(256 * MiB, a_frames), tr.alloc(256 * MiB, b_frames)
            if leak:
                kept += [a, b]
            else:
                tr.free(a, line(15))
                tr.free(b, line(15))
            if steps:
                tr.t += 1
                tr.annotations.append({**step, 'stage': 'END', 'time_us': tr.t})
        if leak and phase == 0:
            gc = [frame('/home/me/leak.py', 16, 'collect')] + main
            for addr in kept[: len(kept) // 2]:
                tr.free(addr, gc)
            kept = kept[len(kept) // 2:]
    if leak:
        oom = tr.ev(action='oom', addr=0, size=256 * MiB, device_free=100 * MiB, frames=a_frames)
        out = {'rate_bytes': 512 * MiB, 'oom_event': oom, 'leak_lines': ['leak.py:12', 'leak.py:13'],
               'iterations': iters}
    tr.dump(path)
    return out


def on_device(path):
    tr = Trace()
    root = [frame('/home/me/train.py', 30, 'main'), frame('/home/me/train.py', 40, '<module>')]
    make = [frame('/home/me/model.py', 10, '__init__'), frame('/home/me/train.py', 25, 'build')] + root
    linear_init = ALLOC_CPP + [frame(TORCH + '/nn/modules/linear.py', 106, '__init__')] + make
    reset = ALLOC_CPP + [frame(TORCH + '/nn/init.py', 500, 'kaiming_uniform_'),
                         frame(TORCH + '/nn/modules/linear.py', 117, 'reset_parameters'),
                         frame(TORCH + '/nn/modules/linear.py', 110, '__init__')] + make
    own = ALLOC_CPP + [frame('/home/me/model.py', 12, '__init__'), frame('/home/me/train.py', 25, 'build')] + root
    weights = [tr.alloc(64 * MiB, linear_init), tr.alloc(32 * MiB, own)]
    tmp = tr.alloc(4 * MiB, reset)  # init's scratch, freed at once
    tr.free(tmp, reset)
    module = [frame(TORCH + '/nn/modules/module.py', 1790, '_call_impl'),
              frame(TORCH + '/nn/modules/module.py', 1779, '_wrapped_call_impl')]
    fwd = ALLOC_CPP + [frame('/home/me/model.py', 20, 'forward')] + module + root
    bwd = ALLOC_CPP + [frame('??', 0, 'torch::autograd::generated::MmBackward0::apply(std::vector<at::Tensor>&&)'),
                       frame('??', 0, 'torch::autograd::Engine::thread_main(...)')]
    zero = [frame(TORCH + '/optim/optimizer.py', 900, 'zero_grad'), frame('/home/me/train.py', 34, 'main')]
    for _ in range(3):
        x = tr.alloc(8 * MiB, [frame('/home/me/train.py', 31, 'main')] + root[1:])
        act = tr.alloc(16 * MiB, fwd)
        grads = [tr.alloc(64 * MiB, bwd), tr.alloc(32 * MiB, bwd)]
        tr.free(act, bwd)
        step = ALLOC_CPP + [frame(TORCH + '/optim/sgd.py', 300, '_single_tensor_sgd'),
                            frame(TORCH + '/optim/sgd.py', 127, 'step'), frame('/home/me/train.py', 33, 'main')]
        t = tr.alloc(1 * MiB, step)
        tr.free(t, step)
        for g in grads:
            tr.free(g, zero)
        tr.free(x, [frame('/home/me/train.py', 35, 'main')] + root[1:])
    tr.dump(path)
    return {'weight_addrs': weights}


def main():
    what, path = sys.argv[1], sys.argv[2]
    out = {'leak': lambda: loop(path, True), 'leak_steps': lambda: loop(path, True, steps=True), 'healthy': lambda: loop(path, False),
           'on_device': lambda: on_device(path)}[what]()
    json.dump(out, sys.stdout)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
