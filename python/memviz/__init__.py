"""memviz: PyTorch CUDA memory snapshots from Python.

    import memviz
    snap = memviz.load("snapshot.pickle")        # a path, bytes, or torch.cuda.memory._snapshot()
    snap.summary(); snap.top(by="category"); snap.oom(); snap.leaks(); snap.diff(other)
    memviz.show(snap)                             # the viewer inline in a notebook

    with memviz.record() as rec:                  # torch.cuda.memory._record_memory_history
        train_step()
    rec.show()

Each question returns what the `memviz` command prints with --json, as
dicts, computed by the same Rust code (memviz-cli's api). torch is imported
only by record().
"""

import html as _html
import json as _json
import os as _os
import pickle as _pickle

from . import _memviz

__all__ = ["load", "show", "record", "questions", "Snapshot", "Viewer", "Recording"]


def questions():
    """The names of the questions a Snapshot answers (its methods, and ask())."""
    return list(_memviz.questions())


def _read(x, name=None):
    """(bytes, name) of a path, bytes, a Snapshot or a _snapshot() dict."""
    if isinstance(x, Snapshot):
        return x._data, name or x.name
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x), name or "snapshot.pickle"
    if isinstance(x, (str, _os.PathLike)):
        path = _os.fspath(x)
        with open(path, "rb") as f:
            return f.read(), name or _os.path.basename(path)
    if isinstance(x, (dict, list)):
        # torch.cuda.memory._snapshot() (or memory_snapshot()'s segment
        # list): pickled as _dump_snapshot would write it; no file written.
        return _pickle.dumps(x), name or "snapshot.pickle"
    raise TypeError(
        "memviz.load: expected a path, bytes, or the dict torch.cuda.memory._snapshot() returns, "
        f"not {type(x).__name__}"
    )


def load(x, name=None):
    """Reads a snapshot: a path, bytes (a pickle, JSON, or gzip of either), or
    the dict torch.cuda.memory._snapshot() returns. `name` names it in errors
    and in the viewer. Raises ValueError naming what is wrong and where."""
    if isinstance(x, Snapshot):
        return x
    data, name = _read(x, name)
    return Snapshot(data, name)


class Snapshot:
    """A snapshot read once. Its questions return the CLI's --json as dicts:
    devices, bytes and counts as the `memviz` command prints them."""

    def __init__(self, data, name="snapshot.pickle"):
        self._data = data
        self._inner, warnings = _memviz.load(data, name)
        self.name = name
        #: Entries of the file memviz left out or read as a default, as text.
        self.warnings = list(warnings)

    def ask(self, question, other=None, **options):
        """Any question in memviz.questions() with its options (None: the
        default); `other` is snapshot B of a two-snapshot question."""
        options = {k: v for k, v in options.items() if v is not None}
        b = load(other)._inner if other is not None else None
        return _json.loads(self._inner.ask(question, _json.dumps(options), b))

    def summary(self):
        """Per device: trace events by action, segments, reserved and allocated
        bytes, and the timelines' start, peak and end (`memviz summary --json`)."""
        return self.ask("summary")

    def top(self, at="peak", by="stack", device=None, limit=None, category=None):
        """What is alive at a moment (peak, oom, oom:K, end, start, step:S or a
        trace event index), grouped by stack, user, frame or category
        (`memviz top --json`)."""
        return self.ask("top", at=at, by=by, device=device, limit=limit, category=category)

    def oom(self, device=None, category=None):
        """Each OOM explained, then the peak, per device (`memviz oom --json`)."""
        return self.ask("oom", device=device, category=category)

    def leaks(self, device=None, category=None):
        """Alive at the end, growing every iteration, frees left pending, per
        device (`memviz leaks --json`)."""
        return self.ask("leaks", device=device, category=category)

    def diff(self, other, at=None, at_a=None, at_b=None, by="stack", device=None, device_a=None, device_b=None,
             limit=None, category=None):
        """What changed from this snapshot (A) to `other` (B; a path, bytes, dict
        or Snapshot; self again for two moments) (`memviz diff A B --json`)."""
        return self.ask("diff", other, at=at, at_a=at_a, at_b=at_b, by=by, device=device, device_a=device_a,
                        device_b=device_b, limit=limit, category=category)

    def findings(self, device=None, category=None):
        """What to know first, most important first (`memviz findings --json`): {"device", "findings":
        [{"kind", "title", "bytes", "event", "detail"}]}; kinds peak, growth, gradients_kept,
        optimizer_state, oom, capped, caching."""
        return self.ask("findings", device=device, category=category)

    def whatif(self, device=None, capacity=None, sweep=False, **settings):
        """The trace replayed through a model of PyTorch's caching allocator under other settings, e.g.
        whatif(expandable_segments=True) or whatif(max_split_size_mb=512) (`memviz whatif --json`):
        the self-check, the predicted peak, each OOM's verdict, the capacity needed; a list with sweep."""
        sets = [f"{k}:{v}" for k, v in settings.items()]
        return self.ask("whatif", device=device, capacity=capacity, sweep=sweep or None, set=sets or None)

    def html(self):
        """The standalone viewer page with this snapshot inside (what `memviz
        html` writes): opens from file:// and fetches nothing."""
        return _memviz.page(self._data, self.name)

    def show(self, height=720):
        """The viewer inline in Jupyter / VS Code (see memviz.show)."""
        return show(self, height=height)

    def __repr__(self):
        return f"<memviz.Snapshot {self.name!r}, {len(self._data)} bytes>"


class Viewer:
    """The viewer in an iframe whose srcdoc is the standalone page with the
    snapshot inside: a notebook shows it from the cell's output, nothing is
    fetched, and the saved notebook keeps it."""

    def __init__(self, page, height=720):
        self.page = page
        self.height = height

    def _repr_html_(self):
        return (
            f'<iframe srcdoc="{_html.escape(self.page, quote=True)}" '
            f'style="width:100%;height:{int(self.height)}px;border:1px solid #ccc" '
            'title="memviz"></iframe>'
        )

    def save(self, path):
        """Writes the standalone page (open it from disk in any browser)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.page)
        return path


def show(x, height=720, name=None):
    """The viewer inline in a notebook for a path, bytes, a Snapshot or a live
    torch.cuda.memory._snapshot() dict. Returns a Viewer (its _repr_html_ is
    the iframe)."""
    data, name = _read(x, name)
    return Viewer(_memviz.page(data, name), height=height)


class Recording:
    """What memviz.record() gives: after the block, the snapshot."""

    def __init__(self, path):
        self.path = path
        self.snapshot = None

    def show(self, height=720):
        return show(self._need(), height=height)

    def load(self):
        return self._need()

    def _need(self):
        if self.snapshot is None:
            raise RuntimeError("memviz.record(): the snapshot exists once the with block has ended")
        return self.snapshot


class record:
    """Records the CUDA caching allocator's history around a block:

        with memviz.record("step.pickle", max_entries=100_000) as rec:
            train_step()
        rec.show(); rec.snapshot.top()

    Starts torch.cuda.memory._record_memory_history(max_entries=...), and on
    exit dumps the snapshot to `path` (when given) or keeps it in memory
    (torch.cuda.memory._snapshot(), no file written), then stops recording.
    `stacks` and `context` are passed on to _record_memory_history."""

    def __init__(self, path=None, max_entries=100_000, context="all", stacks="all"):
        self.recording = Recording(path)
        self.max_entries = max_entries
        self.context = context
        self.stacks = stacks

    def __enter__(self):
        import torch  # not a dependency of memviz: only this needs it

        self._memory = torch.cuda.memory
        self._memory._record_memory_history(context=self.context, stacks=self.stacks, max_entries=self.max_entries)
        return self.recording

    def __exit__(self, *exc):
        mem = self._memory
        try:
            path = self.recording.path
            if path is not None:
                mem._dump_snapshot(path)
                self.recording.snapshot = load(path)
            else:
                self.recording.snapshot = load(mem._snapshot())
        finally:
            mem._record_memory_history(enabled=None)
        return False
