//! Writes the page's built-in example: a snapshot of two training steps of a
//! small transformer, as `_dump_snapshot` would write it (a pickle dict with
//! `segments`, `device_traces`, `allocator_settings`), gzip-compressed.
//!
//! The trace comes from a small caching-allocator simulation (blocks rounded
//! to 512 bytes, small blocks in 2 MiB segments, freed blocks cached by size
//! and reused, so addresses get versions `_1`, `_2`...), and the segment dump
//! is that allocator's final state, so trace and dump agree.

use serde_pickle::{HashableValue as H, Value as V};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("example.pickle.gz");
    let pickle =
        serde_pickle::value_to_vec(&Sim::training_run(), serde_pickle::SerOptions::new()).expect("pickle the example");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&pickle).unwrap();
    std::fs::write(out, gz.finish().unwrap()).unwrap();
}

fn s(x: &str) -> V {
    V::String(x.to_string())
}

fn dict(items: Vec<(&str, V)>) -> V {
    V::Dict(items.into_iter().map(|(k, v)| (H::String(k.to_string()), v)).collect::<BTreeMap<_, _>>())
}

const SMALL: u64 = 1 << 20;
const SMALL_SEGMENT: u64 = 2 << 20;

struct Segment {
    addr: u64,
    size: u64,
    bump: u64,
    small: bool,
    frames: V,
}

struct Sim {
    events: Vec<V>,
    segments: Vec<Segment>,
    /// Cached free blocks by rounded size: addresses.
    cache: HashMap<u64, Vec<u64>>,
    /// Live blocks: addr -> (rounded size, requested size, frames).
    live: BTreeMap<u64, (u64, u64, V)>,
    next_segment: u64,
    time_us: i64,
}

impl Sim {
    fn new() -> Sim {
        Sim {
            events: Vec::new(),
            segments: Vec::new(),
            cache: HashMap::new(),
            live: BTreeMap::new(),
            next_segment: 0x7f3a_c000_0000,
            time_us: 1_732_245_000_000_000,
        }
    }

    fn tick(&mut self, us: i64) -> V {
        self.time_us += us;
        V::I64(self.time_us)
    }

    fn event(&mut self, action: &str, addr: u64, size: u64, frames: V) {
        let t = self.tick(3);
        self.events.push(dict(vec![
            ("action", s(action)),
            ("addr", V::I64(addr as i64)),
            ("size", V::I64(size as i64)),
            ("stream", V::I64(0)),
            ("time_us", t),
            ("frames", frames),
        ]));
    }

    fn alloc(&mut self, size: u64, frames: V) -> u64 {
        let rounded = size.div_ceil(512).max(1) * 512;
        let addr = match self.cache.get_mut(&rounded).and_then(|v| v.pop()) {
            Some(a) => a,
            None => self.carve(rounded, &frames),
        };
        self.live.insert(addr, (rounded, size, frames.clone()));
        self.event("alloc", addr, rounded, frames);
        addr
    }

    /// New block space: from the open small segment, or a new segment.
    fn carve(&mut self, rounded: u64, frames: &V) -> u64 {
        let small = rounded < SMALL;
        if let Some(seg) = self.segments.iter_mut().find(|g| g.small == small && g.size - g.bump >= rounded) {
            let a = seg.addr + seg.bump;
            seg.bump += rounded;
            return a;
        }
        let size = if small { SMALL_SEGMENT } else { rounded.div_ceil(SMALL_SEGMENT) * SMALL_SEGMENT };
        let addr = self.next_segment;
        self.next_segment += size.div_ceil(1 << 26) * (1 << 26);
        self.event("segment_alloc", addr, size, frames.clone());
        self.segments.push(Segment { addr, size, bump: rounded, small, frames: frames.clone() });
        addr
    }

    fn free(&mut self, addr: u64) {
        let (rounded, _, frames) = self.live.remove(&addr).expect("free of a live block");
        self.event("free_requested", addr, rounded, frames.clone());
        self.event("free_completed", addr, rounded, frames);
        self.cache.entry(rounded).or_default().push(addr);
    }

    fn dump(&self) -> V {
        let mut segs = Vec::new();
        for g in &self.segments {
            let mut blocks = Vec::new();
            let (mut allocated, mut requested) = (0u64, 0u64);
            let mut at = g.addr;
            let end = g.addr + g.size;
            for (&a, (size, req, frames)) in self.live.range(g.addr..end) {
                if a > at {
                    blocks.push(block(at, a - at, 0, "inactive", V::List(vec![])));
                }
                blocks.push(block(a, *size, *req, "active_allocated", frames.clone()));
                allocated += size;
                requested += req;
                at = a + size;
            }
            if at < end {
                blocks.push(block(at, end - at, 0, "inactive", V::List(vec![])));
            }
            segs.push(dict(vec![
                ("device", V::I64(0)),
                ("address", V::I64(g.addr as i64)),
                ("total_size", V::I64(g.size as i64)),
                ("allocated_size", V::I64(allocated as i64)),
                ("active_size", V::I64(allocated as i64)),
                ("requested_size", V::I64(requested as i64)),
                ("stream", V::I64(0)),
                ("segment_type", s(if g.small { "small" } else { "large" })),
                ("segment_pool_id", V::Tuple(vec![V::I64(0), V::I64(0)])),
                ("is_expandable", V::Bool(false)),
                ("frames", g.frames.clone()),
                ("blocks", V::List(blocks)),
            ]));
        }
        V::List(segs)
    }

    /// Two steps of forward, backward and AdamW on a 4-layer transformer
    /// (d_model 512, batch 8 x 256 tokens, fp32).
    fn training_run() -> V {
        let mut sim = Sim::new();
        let (b, t, d, h, layers, vocab) = (8u64, 256u64, 512u64, 8u64, 4usize, 8000u64);
        let act = b * t * d * 4;
        let stack = |inner: &[(&str, i64, &str)]| -> V {
            let mut v: Vec<V> = inner
                .iter()
                .map(|(f, l, n)| dict(vec![("filename", s(f)), ("line", V::I64(*l)), ("name", s(n))]))
                .collect();
            v.push(dict(vec![("filename", s("train.py")), ("line", V::I64(142)), ("name", s("<module>"))]));
            V::List(v)
        };
        let nn = "torch/nn/modules/linear.py";
        // Parameters: model.to("cuda").
        let mut params = Vec::new();
        let init = stack(&[(nn, 105, "__init__"), ("model.py", 31, "__init__"), ("train.py", 88, "build_model")]);
        params.push((sim.alloc(vocab * d * 4, init.clone()), vocab * d * 4));
        for _ in 0..layers {
            for sz in [3 * d * d * 4, d * d * 4, 4 * d * d * 4, 4 * d * d * 4, d * 4, d * 4] {
                params.push((sim.alloc(sz, init.clone()), sz));
            }
        }
        let mut grads: Vec<u64> = Vec::new();
        let mut adam: Vec<u64> = Vec::new();
        for step in 0..2 {
            let tokens = sim.alloc(b * t * 8, stack(&[("data.py", 57, "get_batch"), ("train.py", 120, "train_step")]));
            // Forward.
            let fwd = |f: &str, l: i64| {
                stack(&[(f, l, "forward"), ("model.py", 77, "forward"), ("train.py", 124, "train_step")])
            };
            let x = sim.alloc(
                act,
                stack(&[
                    ("torch/nn/modules/sparse.py", 190, "forward"),
                    ("model.py", 70, "forward"),
                    ("train.py", 124, "train_step"),
                ]),
            );
            let mut saved = vec![x];
            for _ in 0..layers {
                let ln = sim.alloc(act, fwd("torch/nn/modules/normalization.py", 217));
                let qkv = sim.alloc(3 * act, fwd(nn, 125));
                let scores = sim.alloc(
                    b * h * t * t * 4,
                    stack(&[
                        ("model.py", 48, "attention"),
                        ("model.py", 77, "forward"),
                        ("train.py", 124, "train_step"),
                    ]),
                );
                let probs = sim.alloc(
                    b * h * t * t * 4,
                    stack(&[
                        ("torch/nn/functional.py", 2140, "softmax"),
                        ("model.py", 49, "attention"),
                        ("model.py", 77, "forward"),
                        ("train.py", 124, "train_step"),
                    ]),
                );
                let attn = sim.alloc(
                    act,
                    stack(&[
                        ("model.py", 50, "attention"),
                        ("model.py", 77, "forward"),
                        ("train.py", 124, "train_step"),
                    ]),
                );
                sim.free(scores);
                let proj = sim.alloc(act, fwd(nn, 125));
                let hidden = sim.alloc(4 * act, fwd(nn, 125));
                let gelu = sim.alloc(4 * act, fwd("torch/nn/modules/activation.py", 734));
                let out = sim.alloc(act, fwd(nn, 125));
                saved.extend([ln, qkv, probs, attn, proj, hidden, gelu, out]);
            }
            let logits = sim.alloc(b * t * vocab * 4, fwd(nn, 125));
            let loss = sim
                .alloc(4, stack(&[("torch/nn/functional.py", 3104, "cross_entropy"), ("train.py", 126, "train_step")]));
            // Backward: walk the saved activations in reverse, freeing them.
            let bwd = stack(&[
                ("torch/autograd/graph.py", 768, "_engine_run_backward"),
                ("torch/_tensor.py", 581, "backward"),
                ("train.py", 128, "train_step"),
            ]);
            let dlogits = sim.alloc(b * t * vocab * 4, bwd.clone());
            sim.free(logits);
            if step == 0 {
                for &(_, sz) in params.iter().rev() {
                    grads.push(sim.alloc(sz, bwd.clone()));
                }
            }
            let mut dx = sim.alloc(act, bwd.clone());
            sim.free(dlogits);
            while let Some(a) = saved.pop() {
                let tmp = sim.alloc(act, bwd.clone());
                sim.free(a);
                sim.free(dx);
                dx = tmp;
            }
            sim.free(dx);
            sim.free(loss);
            sim.free(tokens);
            // AdamW: exp_avg and exp_avg_sq on the first step.
            let opt = stack(&[
                ("torch/optim/adamw.py", 412, "_multi_tensor_adamw"),
                ("torch/optim/optimizer.py", 487, "step"),
                ("train.py", 131, "train_step"),
            ]);
            if step == 0 {
                for &(_, sz) in &params {
                    adam.push(sim.alloc(sz, opt.clone()));
                    adam.push(sim.alloc(sz, opt.clone()));
                }
            }
            let scratch: Vec<u64> = params.iter().take(8).map(|&(_, sz)| sim.alloc(sz, opt.clone())).collect();
            for a in scratch {
                sim.free(a);
            }
            // zero_grad(set_to_none=True) frees the gradients after the last step.
            if step == 1 {
                for g in grads.drain(..) {
                    sim.free(g);
                }
            }
        }
        let _ = adam;
        let segments = sim.dump();
        dict(vec![
            ("segments", segments),
            ("device_traces", V::List(vec![V::List(sim.events)])),
            (
                "allocator_settings",
                dict(vec![
                    ("PYTORCH_CUDA_ALLOC_CONF", s("")),
                    ("max_split_size", V::I64(-1)),
                    ("garbage_collection_threshold", V::F64(0.0)),
                    ("expandable_segments", V::Bool(false)),
                ]),
            ),
        ])
    }
}

fn block(addr: u64, size: u64, requested: u64, state: &str, frames: V) -> V {
    dict(vec![
        ("address", V::I64(addr as i64)),
        ("size", V::I64(size as i64)),
        ("requested_size", V::I64(requested as i64)),
        ("state", s(state)),
        ("frames", frames),
    ])
}
