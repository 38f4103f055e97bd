#!/usr/bin/env python3
"""Independent facts for tests/render.rs (standard library only; shares no
code with the Rust side).

  render_reference.py oom FILE DEVICE active|segments
      {"oom_steps": [...], "actions": N}: per `oom` trace event, the actions
      of the timeline before it. memory_viz makes one action of each alloc,
      free and free_completed (Active Memory), of each segment_alloc and
      segment_free (Active Cached Segments; files with segment_map/unmap,
      whose actions are pieces, are refused here).
  render_reference.py svg FILE.svg
      What the SVG holds, parsed by xml.etree: its size, rect count, the
      polylines (stroke, points) and the texts.
"""
import json
import pickle
import sys
import xml.etree.ElementTree as ET


def oom(path, device, kind):
    counted = ('alloc', 'free', 'free_completed') if kind == 'active' else ('segment_alloc', 'segment_free')
    with open(path, 'rb') as f:
        snap = pickle.load(f)
    traces = snap.get('device_traces', []) if isinstance(snap, dict) else []
    trace = traces[device] if device < len(traces) else []
    steps, actions = [], 0
    for e in trace:
        if e['action'] == 'oom':
            steps.append(actions)
        elif e['action'] in counted:
            actions += 1
        elif kind != 'active' and e['action'] in ('segment_map', 'segment_unmap'):
            sys.exit('segment_map / segment_unmap: not handled here')
    return {'oom_steps': steps, 'actions': actions}


def svg(path):
    root = ET.parse(path).getroot()  # raises on malformed XML
    ns = '{http://www.w3.org/2000/svg}'
    assert root.tag == ns + 'svg', root.tag
    lines = []
    for p in root.iter(ns + 'polyline'):
        pts = [tuple(float(v) for v in xy.split(',')) for xy in p.get('points').split()]
        lines.append({'stroke': p.get('stroke'), 'points': pts})
    for p in root.iter(ns + 'line'):
        pts = [(float(p.get('x1')), float(p.get('y1'))), (float(p.get('x2')), float(p.get('y2')))]
        lines.append({'stroke': p.get('stroke'), 'points': pts})
    return {
        'width': int(root.get('width')),
        'height': int(root.get('height')),
        'rects': sum(1 for _ in root.iter(ns + 'rect')),
        'lines': lines,
        'texts': [''.join(t.itertext()) for t in root.iter(ns + 'text')],
    }


if __name__ == '__main__':
    if sys.argv[1] == 'oom':
        print(json.dumps(oom(sys.argv[2], int(sys.argv[3]), sys.argv[4])))
    elif sys.argv[1] == 'svg':
        print(json.dumps(svg(sys.argv[2])))
    else:
        sys.exit(f'unknown command {sys.argv[1]}')
