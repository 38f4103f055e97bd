#!/usr/bin/env python3
"""Expected hover text (memory_viz context_for_id) of element 0 of the Active
Memory Timeline of compile_context_metadata.pickle, device 0, for tests/views.rs."""
import datetime, pickle, sys
s = pickle.load(open(sys.argv[1], 'rb'))
e = s['device_traces'][0][0]
segs = sorted((g for g in s['segments'] if g['device'] == 0), key=lambda g: g['address'])
pool = next((g['segment_pool_id'] for g in segs if g['address'] <= e['addr'] < g['address'] + g['total_size']), None)
def size(n):
    for k, u in enumerate(['', 'Ki', 'Mi', 'Gi', 'Ti']):
        if n < 1024 ** (k + 1):
            return '%s%sB (%d bytes)' % (format(n / 1024 ** k, '.1f'), u, n)
omit_f = ['unwind::unwind', 'CapturedTraceback::gather', 'gather_with_cpp', '_start', '__libc_start_main', 'PyEval_', 'PyObject_', 'PyFunction_']
omit_file = ['core/boxing', '/Register', '/Redispatch', 'pythonrun.c', 'Modules/main.c', 'Objects/call.c', 'Objects/methodobject.c', 'pycore_ceval.h', 'ceval.c', 'cpython/abstract.h']
fr = ['%s:%s:%s' % (f['filename'], f['line'], f['name']) for f in e['frames']
      if not any(o in f['name'] for o in omit_f) and not any(o in f['filename'] for o in omit_file)]
ts = datetime.datetime.fromtimestamp(e['time_us'] // 1000 / 1000, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3] + 'Z'
start = 1373919236  # active_memory start_bytes (views_reference.py)
print('Addr: b%x_0, Size: %s allocation, Total memory used after allocation: %s, Compile context: %s, stream 0, pool_id (%d, %d), timestamp %s\n%s'
      % (e['addr'], size(e['size']), size(start + e['size']), e['compile_context'], pool[0], pool[1], ts, '\n'.join(fr)))
