"""One workload recorded under several allocator settings, on a real CUDA device.

The what-if replay (memviz whatif) predicts from one recording what another setting
would have done; these recordings are the truth it is checked against. Run one
process per (workload, setting), because PYTORCH_CUDA_ALLOC_CONF is read once, when
CUDA starts:

    python3 record.py WORKLOAD SETTING_NAME OUTDIR

or `python3 record.py all|WORKLOAD OUTDIR` to run every pair (of one workload) in child processes. The workload
is deterministic (a seeded random.Random, no data-dependent sizes), so every run
makes the same requests in the same order; only the allocator's answers differ.
"""
import json, os, random, subprocess, sys

SETTINGS = {
    "default": "",
    "expandable": "expandable_segments:True",
    "maxsplit64": "max_split_size_mb:64",
    "roundup4": "roundup_power2_divisions:4",
    "gc06": "garbage_collection_threshold:0.6",
    "maxsplit512": "max_split_size_mb:512",
}
# which settings each workload runs under, and the per-process cap (GiB) if any
WORKLOADS = {
    "mixed": (["default", "expandable", "maxsplit64", "roundup4"], None),
    "capped": (["default", "expandable", "gc06"], 3.0),
    "tight": (["default", "expandable"], 2.0),
    "fragmentation": (["default", "expandable", "maxsplit512"], 2.3),
}


def run(workload, setting, out):
    conf = SETTINGS[setting]
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = conf
    os.environ["PYTORCH_ALLOC_CONF"] = conf
    import torch

    cap = WORKLOADS[workload][1]
    if cap:
        total = torch.cuda.get_device_properties(0).total_memory
        torch.cuda.set_per_process_memory_fraction(cap * 2**30 / total)
    torch.cuda.memory._record_memory_history(max_entries=200000, stacks="python")
    ooms = 0
    if workload == "fragmentation":
        # shared/recordings/cases.py's oom_fragmentation, as it is there
        big = torch.empty(2 * 2**30, dtype=torch.uint8, device="cuda")
        del big
        parts = [torch.empty(100 * 2**20, dtype=torch.uint8, device="cuda") for _ in range(20)]
        for i in range(0, 20, 2):
            parts[i] = None
        try:
            x = torch.empty(600 * 2**20, dtype=torch.uint8, device="cuda")
            del x
        except torch.OutOfMemoryError:
            ooms += 1
    else:
        rng = random.Random(1234)
        side = torch.cuda.Stream()
        live = []
        steps = 600
        for step in range(steps):
            r = rng.random()
            if r < 0.55:
                n = rng.randint(1, 1 << 20)  # small pool
            elif r < 0.85:
                n = rng.randint(1 << 20, 10 << 20)  # large pool, 20 MiB segments
            else:
                n = rng.randint(10 << 20, (300 if workload == "mixed" else 500) << 20)
            on_side = rng.random() < 0.2
            try:
                if on_side:
                    with torch.cuda.stream(side):
                        t = torch.empty(n, dtype=torch.uint8, device="cuda")
                else:
                    t = torch.empty(n, dtype=torch.uint8, device="cuda")
                live.append(t)
            except torch.OutOfMemoryError:
                ooms += 1
                live = live[len(live) // 2:]
            # free a few, at random places, so that segments fragment
            while live and rng.random() < 0.5:
                live.pop(rng.randrange(len(live)))
            if step % 150 == 149:
                del live[: len(live) // 2]
            if step == 300:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
        torch.cuda.synchronize()
        del live
    name = f"{workload}_{setting}.pickle"
    torch.cuda.memory._dump_snapshot(os.path.join(out, name))
    torch.cuda.memory._record_memory_history(enabled=None)
    print(json.dumps({"file": name, "conf": conf, "ooms": ooms,
                      "max_reserved": torch.cuda.max_memory_reserved(),
                      "max_allocated": torch.cuda.max_memory_allocated(),
                      "size": os.path.getsize(os.path.join(out, name))}))


if __name__ == "__main__":
    if sys.argv[1] in ("all", *WORKLOADS):
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        for w, (settings, _) in WORKLOADS.items():
            if sys.argv[1] not in ("all", w):
                continue
            for s in settings:
                subprocess.run([sys.executable, __file__, w, s, out], check=True)
    else:
        run(sys.argv[1], sys.argv[2], sys.argv[3])
