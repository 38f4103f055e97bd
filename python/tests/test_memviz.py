"""The memviz wheel, installed in a fresh virtual environment
(scripts/test-python.sh): its answers on real snapshots from ../shared
against numbers read with Python's own pickle / json modules in a few lines
here, a torch.cuda.memory._snapshot()-shaped dict built in the test, the
viewer page memviz.show() makes, record() around a stand-in for torch, and
the `memviz` command the wheel installs. (The page drawing in Chromium, and
`memviz open`: tests/python/e2e.mjs.)"""

import base64
import gzip
import html
import json
import os
import pickle
import re
import subprocess
import sys
import types
from collections import Counter

import pytest

import memviz

SHARED = os.environ.get("MEMVIZ_SHARED") or os.path.join(os.path.dirname(__file__), "../../../shared")
SNAPSHOTS = os.path.join(SHARED, "snapshots")


def snapshot(name):
    path = os.path.join(SNAPSHOTS, name)
    # Missing data fails loudly: never a skip.
    assert os.path.isfile(path), f"{path} is missing (../shared/snapshots beside the repository, or MEMVIZ_SHARED)"
    return path


def read(path):
    """The snapshot as Python reads it: pickle, or JSON."""
    with open(path, "rb") as f:
        data = f.read()
    return pickle.loads(data) if data[:1] == b"\x80" else json.loads(data)


def expected_summary(snap, device=0):
    """Trace events by action, segments, reserved / allocated bytes and active
    blocks of one device, counted from the dict."""
    trace = snap["device_traces"][device]
    segs = [s for s in snap["segments"] if s["device"] == device]
    return {
        "trace_events": len(trace),
        "actions": dict(Counter(e["action"] for e in trace)),
        "segments": len(segs),
        "reserved_bytes": sum(s["total_size"] for s in segs),
        "allocated_bytes": sum(s["allocated_size"] for s in segs),
        "active_blocks": sum(b["state"] == "active_allocated" for s in segs for b in s["blocks"]),
    }


def check_summary(got, snap, device=0):
    d = got["devices"][str(device)]
    for k, v in expected_summary(snap, device).items():
        assert d[k] == v, (k, d[k], v)


@pytest.mark.parametrize("name", ["small_train_step.pickle", "transformer_forward_bf16.pickle",
                                  "oom_pickle_named_json.json"])
def test_summary_from_a_path_bytes_and_the_dict_matches_pickle(name):
    path = snapshot(name)
    snap = read(path)
    by_path = memviz.load(path)
    assert by_path.name == name
    check_summary(by_path.summary(), snap)
    with open(path, "rb") as f:
        assert memviz.load(f.read()).summary() == by_path.summary()
    # The dict torch.cuda.memory._snapshot() returns: pickled in memory.
    assert memviz.load(snap).summary() == by_path.summary()


def replay(snap, device=0):
    """memory_viz's Active Memory Timeline in a few lines: the blocks alive
    before the trace (active in the segments, never allocated in it), then
    each alloc and free_completed. Returns the peak and the blocks alive at
    the end (address -> size)."""
    trace = snap["device_traces"][device]
    allocated_in_trace = {e["addr"] for e in trace if e["action"] == "alloc"}
    alive = {b["address"]: b["size"] for s in snap["segments"] if s["device"] == device for b in s["blocks"]
             if b["state"] == "active_allocated" and b["address"] not in allocated_in_trace}
    live = peak = sum(alive.values())
    for e in trace:
        if e["action"] == "alloc":
            alive[e["addr"]] = e["size"]
            live += e["size"]
        elif e["action"] == "free_completed" and e["addr"] in alive:
            live -= alive.pop(e["addr"])
        peak = max(peak, live)
    return peak, alive


def test_top_at_the_end_and_at_the_peak_match_the_replayed_trace():
    path = snapshot("small_train_step.pickle")
    snap = read(path)
    peak, alive = replay(snap)
    s = memviz.load(path)
    end = s.top(at="end", by="category")
    assert end["total_bytes"] == sum(alive.values())
    assert end["count"] == len(alive)
    assert end["reserved_bytes"] == sum(x["total_size"] for x in snap["segments"] if x["device"] == 0)
    assert sum(g["bytes"] for g in end["groups"]) == end["total_bytes"]
    assert end["by"] == "category" and end["at"] == "end"
    top = s.top()
    assert top["total_bytes"] == peak
    assert top["at"] == "peak" and top["by"] == "stack"
    two = s.top(limit=2)
    assert two["group_count"] == top["group_count"] and two["groups"] == top["groups"][:2]


def test_oom_names_the_request_of_the_files_oom_event():
    path = snapshot("oom_pickle_named_json.json")
    snap = read(path)
    ooms = [(i, e) for i, e in enumerate(snap["device_traces"][0]) if e["action"] == "oom"]
    got = memviz.load(path).oom()["devices"][0]
    assert got["device"] == 0
    assert [o["at"]["event"] for o in got["ooms"]] == [i for i, _ in ooms]
    assert [o["request"]["bytes"] for o in got["ooms"]] == [e["size"] for _, e in ooms]
    assert [o["request"]["device_free_bytes"] for o in got["ooms"]] == [e["device_free"] for _, e in ooms]
    assert got["peak"]["what"] == "peak"


def test_leaks_count_what_the_trace_allocated_and_never_freed():
    path = snapshot("small_train_step.pickle")
    snap = read(path)
    alive = {}
    for e in snap["device_traces"][0]:
        if e["action"] == "alloc":
            alive[e["addr"]] = e["size"]
        elif e["action"] == "free_completed":
            alive.pop(e["addr"], None)
    got = memviz.load(path).leaks()["devices"][0]
    assert got["alive_at_end_count"] == len(alive)
    assert got["alive_at_end_bytes"] == sum(alive.values())


def test_diff_of_two_files_and_of_two_moments():
    a, b = snapshot("transformer_forward_bf16.pickle"), snapshot("small_train_step.pickle")
    sa, sb = memviz.load(a), memviz.load(b)
    d = sa.diff(b, at="end", by="category")
    assert d["total_bytes"] == {"a": sa.top(at="end")["total_bytes"], "b": sb.top(at="end")["total_bytes"]}
    same = sb.diff(sb, at_a="start", at_b="end")
    assert same["total_bytes"]["b"] == sb.top(at="end")["total_bytes"]
    assert same["a"]["at_spec"] == "start" and same["b"]["at_spec"] == "end"


def frame(name, filename, line):
    return {"name": name, "filename": filename, "line": line}


def built_snapshot():
    """What torch.cuda.memory._snapshot() returns, made here: one 2 MiB
    segment on device 0 with a 512 KiB block still allocated; its trace
    allocates three blocks and frees one; an OOM at the end."""
    seg = 0x7F0000000000
    user = [frame("forward", "model.py", 12), frame("<module>", "train.py", 3)]
    trace = [
        {"action": "segment_alloc", "addr": seg, "size": 2 << 20, "stream": 0, "frames": user},
        {"action": "alloc", "addr": seg, "size": 512 << 10, "stream": 0, "frames": user},
        {"action": "alloc", "addr": seg + (512 << 10), "size": 1 << 20, "stream": 0, "frames": user},
        {"action": "free_requested", "addr": seg + (512 << 10), "size": 1 << 20, "stream": 0, "frames": user},
        {"action": "free_completed", "addr": seg + (512 << 10), "size": 1 << 20, "stream": 0, "frames": user},
        {"action": "oom", "addr": 0, "size": 64 << 20, "stream": 0, "device_free": 3 << 20, "frames": user},
    ]
    blocks = [
        {"address": seg, "size": 512 << 10, "requested_size": 500_000, "state": "active_allocated", "frames": user},
        {"address": seg + (512 << 10), "size": (2 << 20) - (512 << 10), "requested_size": 0, "state": "inactive",
         "frames": []},
    ]
    segment = {"device": 0, "address": seg, "total_size": 2 << 20, "allocated_size": 512 << 10,
               "active_size": 512 << 10, "requested_size": 500_000, "stream": 0, "segment_type": "large",
               "segment_pool_id": (0, 0), "is_expandable": False, "blocks": blocks, "frames": user}
    return {"segments": [segment], "device_traces": [trace], "allocator_settings": {}, "external_annotations": []}


def test_a_snapshot_dict_built_here():
    snap = built_snapshot()
    s = memviz.load(snap, name="live")
    check_summary(s.summary(), snap)
    assert s.summary()["devices"]["0"]["active_memory"]["peak_bytes"] == (512 << 10) + (1 << 20)
    top = s.top(at="end", by="user")
    assert top["total_bytes"] == 512 << 10 and top["count"] == 1
    assert top["groups"][0]["key"].startswith("model.py:12")
    oom = s.oom()["devices"][0]["ooms"]
    assert [o["request"]["bytes"] for o in oom] == [64 << 20]
    assert s.leaks()["devices"][0]["alive_at_end_bytes"] == 512 << 10


def test_show_is_the_standalone_page_with_the_snapshot_inside_and_no_url():
    path = snapshot("small_train_step.pickle")
    with open(path, "rb") as f:
        data = f.read()
    viewer = memviz.show(path, height=500)
    out = viewer._repr_html_()
    assert out.startswith('<iframe srcdoc="') and "height:500px" in out
    page = html.unescape(re.search(r'srcdoc="([^"]*)"', out).group(1))
    assert page == viewer.page
    # Nothing to fetch: the only http(s) string is the SVG namespace (a name, never requested).
    assert set(re.findall(r"https?://[^\s\"'<>)]*", page)) <= {"http://www.w3.org/2000/svg"}
    m = re.search(r'<script type="application/octet-stream" id="memviz-embedded-snapshot" '
                  r'data-name="small_train_step.pickle" data-encoding="gzip\+base64">([^<]*)</script>', page)
    assert m, "no embedded snapshot"
    assert gzip.decompress(base64.b64decode(m.group(1))) == data
    # A live dict shows too (pickled in memory), and a Snapshot.
    assert "memviz-embedded-snapshot" in memviz.show(read(path)).page
    assert memviz.load(path).show().page == viewer.page


def test_bad_input_says_what_and_where():
    with pytest.raises(ValueError, match=r"^snapshot.pickle: "):
        memviz.load(b"\x80\x04not a pickle")
    with pytest.raises(TypeError, match="expected a path, bytes"):
        memviz.load(42)
    with pytest.raises(FileNotFoundError):
        memviz.load("/nonexistent/x.pickle")
    s = memviz.load(snapshot("small_train_step.pickle"))
    with pytest.raises(ValueError, match='"colour"'):
        s.top(by="colour")
    with pytest.raises(ValueError, match="no device 7"):
        s.top(device=7)
    with pytest.raises(ValueError, match=r'no option "nope"'):
        s.ask("oom", nope=1)
    with pytest.raises(KeyError):
        s.ask("no-such-question")


def test_record_drives_torch_memory_history_and_keeps_the_snapshot(monkeypatch, tmp_path):
    """torch is not installed here: a stand-in module records the calls."""
    calls = []
    snap = read(snapshot("small_train_step.pickle"))
    mem = types.SimpleNamespace(
        _record_memory_history=lambda *a, **k: calls.append(("record", a, k)),
        _snapshot=lambda: calls.append(("snapshot",)) or snap,
        _dump_snapshot=lambda p: calls.append(("dump", p)) or open(p, "wb").write(pickle.dumps(snap)),
    )
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(memory=mem)
    monkeypatch.setitem(sys.modules, "torch", torch)

    with memviz.record(max_entries=1234) as rec:
        calls.append(("body",))
    assert [c[0] for c in calls] == ["record", "body", "snapshot", "record"]
    assert calls[0][2]["max_entries"] == 1234 and calls[-1][2] == {"enabled": None}
    check_summary(rec.snapshot.summary(), snap)
    assert "memviz-embedded-snapshot" in rec.show().page

    calls.clear()
    out = tmp_path / "step.pickle"
    with memviz.record(str(out)) as rec:
        pass
    assert [c[0] for c in calls] == ["record", "dump", "record"] and out.is_file()
    assert rec.snapshot.summary() == memviz.load(snap).summary()


def test_the_memviz_command_is_the_cli():
    exe = os.path.join(os.path.dirname(sys.executable), "memviz")
    path = snapshot("small_train_step.pickle")
    out = subprocess.run([exe, "top", path, "--by", "category", "--json"], capture_output=True, check=True)
    assert json.loads(out.stdout) == memviz.load(path).top(by="category")
    bad = subprocess.run([exe, "top", "/nonexistent.pickle"], capture_output=True)
    assert bad.returncode == 1 and bad.stderr.startswith(b"memviz: /nonexistent.pickle: ")
    helped = subprocess.run([exe, "--help"], capture_output=True, check=True)
    assert b"memviz open FILE..." in helped.stdout and b"memviz mcp" in helped.stdout


def recording(name):
    path = os.path.join(SHARED, "recordings", name)
    assert os.path.isfile(path), f"{path} is missing (../shared/recordings beside the repository, or MEMVIZ_SHARED)"
    return path


def test_findings_name_the_fragmentation_oom_and_the_cap():
    # oom_fragmentation_2gib: a 600 MiB request under a 2.3 GiB per-process cap,
    # while the OOM event says the device had far more than that free.
    path = recording("oom_fragmentation_2gib.pickle")
    trace = read(path)["device_traces"][0]
    (i, e), = [(i, e) for i, e in enumerate(trace) if e["action"] == "oom"]
    assert e["device_free"] > e["size"]
    got = memviz.load(path).findings()
    assert got["device"] == 0
    kinds = [f["kind"] for f in got["findings"]]
    assert "oom" in kinds and "capped" in kinds, kinds
    oom = next(f for f in got["findings"] if f["kind"] == "oom")
    assert oom["event"] == i
    assert "fragmentation" in json.dumps(oom["detail"])


def test_whatif_self_check_and_expandable_segments_avoid_the_oom():
    path = recording("oom_fragmentation_2gib.pickle")
    trace = read(path)["device_traces"][0]
    # The self-check compares each segment event, each OOM and each allocation's address.
    checked = [e for e in trace if e["action"].startswith("segment_") or e["action"] in ("oom", "alloc")]
    ooms = [i for i, e in enumerate(trace) if e["action"] == "oom"]
    snap = memviz.load(path)
    got = snap.whatif(expandable_segments=True)
    assert got["self_check"]["exact"] is True
    assert got["self_check"]["events"] == got["self_check"]["matched"] == len(checked)
    assert got["recorded"]["oom_events"] == ooms
    assert got["settings"]["expandable_segments"] is True
    assert [o["happens"] for o in got["predicted"]["ooms"] if o["recorded"]] == [False]
    assert got["capacity"]["source"] == "inferred_cap"
    # Under the recording's own settings the OOM happens again, where it happened.
    same = snap.whatif()
    assert [(o["event"], o["happens"]) for o in same["predicted"]["ooms"] if o["recorded"]] == [(ooms[0], True)]
