//! Writes the page's built-in example: a snapshot of two training steps of a
//! small transformer and a CUDA-graphed inference, as `_dump_snapshot` would
//! write it (a pickle dict with
//! `segments`, `device_traces`, `allocator_settings`), gzip-compressed.
//!
//! The trace comes from a small caching-allocator simulation (blocks rounded
//! to 512 bytes, small blocks in 2 MiB segments, freed blocks cached by size
//! and reused, so addresses get versions `_1`, `_2`...), and the segment dump
//! is that allocator's final state, so trace and dump agree.
//!
//! It is pickled the way `pickle.dump` writes a real snapshot (protocol 4:
//! every string and container memoized, repeated strings and stack frames
//! referred to with BINGET / LONG_BINGET, opcodes in 64 KiB FRAMEs), not the
//! way serde-pickle writes (protocol 3, nothing memoized): the page's idle
//! warm-up decodes this example so that V8 has compiled the decoder's hot
//! paths before a file comes, and they must be the paths real files take.

use serde_pickle::{HashableValue as H, Value as V};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("example.pickle.gz");
    let pickle = Pickler::dump(&Sim::training_run());
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
    /// `segment_pool_id`: (0, 0) the default pool, else a CUDA graph's.
    pool: (i64, i64),
}

struct Sim {
    events: Vec<V>,
    segments: Vec<Segment>,
    /// Cached free blocks by (pool, rounded size): addresses.
    cache: HashMap<((i64, i64), u64), Vec<u64>>,
    /// The pool new blocks come from (a CUDA graph's while it captures).
    pool: (i64, i64),
    /// Live blocks: addr -> (rounded size, requested size, frames).
    live: BTreeMap<u64, (u64, u64, V)>,
    next_segment: u64,
    time_us: i64,
    /// Events carry `compile_context` and `user_metadata` (the second step's).
    newer_fields: bool,
}

impl Sim {
    fn new() -> Sim {
        Sim {
            events: Vec::new(),
            segments: Vec::new(),
            cache: HashMap::new(),
            pool: (0, 0),
            live: BTreeMap::new(),
            next_segment: 0x7f3a_c000_0000,
            time_us: 1_732_245_000_000_000,
            newer_fields: false,
        }
    }

    fn tick(&mut self, us: i64) -> V {
        self.time_us += us;
        V::I64(self.time_us)
    }

    fn event(&mut self, action: &str, addr: u64, size: u64, frames: V) {
        let t = self.tick(3);
        let mut items = vec![
            ("action", s(action)),
            ("addr", V::I64(addr as i64)),
            ("size", V::I64(size as i64)),
            ("stream", V::I64(0)),
            ("time_us", t),
            ("frames", frames),
        ];
        if self.newer_fields {
            // As PyTorch 2.5+ records every event (outside torch.compile,
            // without user metadata): the warm-up then reaches the decoder's
            // path for these keys too, not only the six-key one.
            items.extend([("compile_context", s("N/A")), ("user_metadata", s(""))]);
        }
        self.events.push(dict(items));
    }

    fn alloc(&mut self, size: u64, frames: V) -> u64 {
        let rounded = size.div_ceil(512).max(1) * 512;
        let addr = match self.cache.get_mut(&(self.pool, rounded)).and_then(|v| v.pop()) {
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
        let pool = self.pool;
        if let Some(seg) =
            self.segments.iter_mut().find(|g| g.small == small && g.pool == pool && g.size - g.bump >= rounded)
        {
            let a = seg.addr + seg.bump;
            seg.bump += rounded;
            return a;
        }
        let size = if small { SMALL_SEGMENT } else { rounded.div_ceil(SMALL_SEGMENT) * SMALL_SEGMENT };
        let addr = self.next_segment;
        self.next_segment += size.div_ceil(1 << 26) * (1 << 26);
        self.event("segment_alloc", addr, size, frames.clone());
        self.segments.push(Segment { addr, size, bump: rounded, small, frames: frames.clone(), pool });
        addr
    }

    fn free(&mut self, addr: u64) {
        let (rounded, _, frames) = self.live.remove(&addr).expect("free of a live block");
        let pool = self.segments.iter().find(|g| (g.addr..g.addr + g.size).contains(&addr)).expect("its segment").pool;
        self.event("free_requested", addr, rounded, frames.clone());
        self.event("free_completed", addr, rounded, frames);
        self.cache.entry((pool, rounded)).or_default().push(addr);
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
                ("segment_pool_id", V::Tuple(vec![V::I64(g.pool.0), V::I64(g.pool.1)])),
                ("is_expandable", V::Bool(false)),
                ("frames", g.frames.clone()),
                ("blocks", V::List(blocks)),
            ]));
        }
        V::List(segs)
    }

    /// Two steps of forward, backward and AdamW on a 4-layer transformer
    /// (d_model 512, batch 8 x 256 tokens, fp32), then one inference
    /// captured in a CUDA graph.
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
            sim.newer_fields = step == 1;
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
        // Then inference of one sequence captured in a CUDA graph
        // (torch.cuda.graph): its blocks come from the graph's private pool
        // (0, 1), in segments of their own, and its static output stays for
        // the replays. The pools view has a pool to show (and the page's
        // warm-up draws one).
        sim.pool = (0, 1);
        let graph =
            |f: &str, l: i64| stack(&[(f, l, "forward"), ("model.py", 77, "forward"), ("infer.py", 40, "capture")]);
        let one = t * d * 4;
        let mut x = sim.alloc(one, graph("torch/nn/modules/sparse.py", 190));
        for _ in 0..layers {
            let hidden = sim.alloc(4 * one, graph(nn, 125));
            let y = sim.alloc(one, graph(nn, 125));
            sim.free(hidden);
            sim.free(x);
            x = y;
        }
        let _static_output = sim.alloc(t * vocab * 4, graph(nn, 125));
        sim.free(x);
        sim.pool = (0, 0);
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

/// Python's pickler at protocol 4, for the values the example holds.
struct Pickler {
    out: Vec<u8>,
    /// The current frame's opcodes (written out behind a FRAME header).
    frame: Vec<u8>,
    /// Strings and stack frames already written: their memo index. Python
    /// memoizes by identity; a snapshot's strings and frame dicts are shared
    /// objects, which this models by equal value.
    memo: HashMap<String, u32>,
    memo_len: u32,
}

impl Pickler {
    const FRAME_TARGET: usize = 64 * 1024; // pickle._FRAME_SIZE_TARGET
    const BATCH: usize = 1000; // pickle._BATCHSIZE

    fn dump(v: &V) -> Vec<u8> {
        let mut p = Pickler { out: vec![0x80, 4], frame: Vec::new(), memo: HashMap::new(), memo_len: 0 };
        p.save(v);
        p.frame.push(b'.');
        p.commit_frame();
        p.out
    }

    fn commit_frame(&mut self) {
        if self.frame.is_empty() {
            return;
        }
        self.out.push(0x95);
        self.out.extend_from_slice(&(self.frame.len() as u64).to_le_bytes());
        self.out.append(&mut self.frame);
    }

    fn memoize(&mut self, key: Option<String>) {
        self.frame.push(0x94);
        if let Some(k) = key {
            self.memo.insert(k, self.memo_len);
        }
        self.memo_len += 1;
    }

    /// BINGET / LONG_BINGET of `key` if it was written before.
    fn get(&mut self, key: &str) -> bool {
        let Some(&i) = self.memo.get(key) else { return false };
        if i < 256 {
            self.frame.extend_from_slice(&[b'h', i as u8]);
        } else {
            self.frame.push(b'j');
            self.frame.extend_from_slice(&i.to_le_bytes());
        }
        true
    }

    fn save(&mut self, v: &V) {
        if self.frame.len() >= Self::FRAME_TARGET {
            self.commit_frame();
        }
        match v {
            V::None => self.frame.push(b'N'),
            V::Bool(b) => self.frame.push(if *b { 0x88 } else { 0x89 }),
            V::I64(i) => self.int(*i),
            V::F64(f) => {
                self.frame.push(b'G');
                self.frame.extend_from_slice(&f.to_be_bytes());
            }
            V::String(x) => {
                let key = format!("s:{x}");
                if self.get(&key) {
                    return;
                }
                if x.len() < 256 {
                    self.frame.extend_from_slice(&[0x8c, x.len() as u8]);
                } else {
                    self.frame.push(b'X');
                    self.frame.extend_from_slice(&(x.len() as u32).to_le_bytes());
                }
                self.frame.extend_from_slice(x.as_bytes());
                self.memoize(Some(key));
            }
            V::List(items) => {
                self.frame.push(b']');
                self.memoize(None);
                for batch in items.chunks(Self::BATCH) {
                    if let [one] = batch {
                        self.save(one);
                        self.frame.push(b'a');
                    } else {
                        self.frame.push(b'(');
                        batch.iter().for_each(|x| self.save(x));
                        self.frame.push(b'e');
                    }
                }
            }
            V::Dict(map) => {
                // A stack frame ({filename, line, name}) is one shared object.
                let key = map.contains_key(&H::String("filename".into())).then(|| format!("d:{map:?}"));
                if key.as_deref().is_some_and(|k| self.get(k)) {
                    return;
                }
                self.frame.push(b'}');
                self.memoize(key);
                let items = in_pytorch_order(map);
                for batch in items.chunks(Self::BATCH) {
                    let single = batch.len() == 1;
                    if !single {
                        self.frame.push(b'(');
                    }
                    for (k, x) in batch {
                        let H::String(k) = k else { panic!("the example's dict keys are strings") };
                        self.save(&V::String(k.clone()));
                        self.save(x);
                    }
                    self.frame.push(if single { b's' } else { b'u' });
                }
            }
            V::Tuple(items) if items.is_empty() => self.frame.push(b')'),
            V::Tuple(items) if items.len() <= 3 => {
                items.iter().for_each(|x| self.save(x));
                self.frame.push(0x84 + items.len() as u8); // TUPLE1..TUPLE3
                self.memoize(None);
            }
            other => panic!("the example holds no {other:?}"),
        }
    }

    /// pickle's save_long: the shortest of BININT1, BININT2, BININT, LONG1.
    fn int(&mut self, i: i64) {
        if (0..=0xff).contains(&i) {
            self.frame.extend_from_slice(&[b'K', i as u8]);
        } else if (0..=0xffff).contains(&i) {
            self.frame.push(b'M');
            self.frame.extend_from_slice(&(i as u16).to_le_bytes());
        } else if i32::try_from(i).is_ok() {
            self.frame.push(b'J');
            self.frame.extend_from_slice(&(i as i32).to_le_bytes());
        } else {
            // Two's complement, little-endian, as few bytes as keep the sign.
            let mut bytes = i.to_le_bytes().to_vec();
            while bytes.len() > 1 {
                let (last, prev) = (bytes[bytes.len() - 1], bytes[bytes.len() - 2]);
                if (last == 0 && prev & 0x80 == 0) || (last == 0xff && prev & 0x80 != 0) {
                    bytes.pop();
                } else {
                    break;
                }
            }
            self.frame.extend_from_slice(&[0x8a, bytes.len() as u8]);
            self.frame.extend_from_slice(&bytes);
        }
    }
}

/// A dict's items in the order `_dump_snapshot` writes them (the decoder
/// reads a trace event of the usual keys in that order in one pass); other
/// dicts in key order.
fn in_pytorch_order(map: &BTreeMap<H, V>) -> Vec<(&H, &V)> {
    const EVENT: &[&str] =
        &["action", "addr", "size", "stream", "time_us", "compile_context", "user_metadata", "frames"];
    const SEGMENT: &[&str] = &[
        "device",
        "address",
        "total_size",
        "allocated_size",
        "active_size",
        "requested_size",
        "stream",
        "segment_type",
        "segment_pool_id",
        "is_expandable",
        "frames",
        "blocks",
    ];
    const BLOCK: &[&str] = &["address", "size", "requested_size", "state", "frames"];
    let has = |k: &str| map.contains_key(&H::String(k.into()));
    let order = if has("action") {
        EVENT
    } else if has("blocks") {
        SEGMENT
    } else if has("state") {
        BLOCK
    } else {
        return map.iter().collect();
    };
    let rank = |k: &H| match k {
        H::String(k) => order.iter().position(|o| o == k).unwrap_or(order.len()),
        _ => order.len(),
    };
    let mut items: Vec<_> = map.iter().collect();
    items.sort_by_key(|(k, _)| rank(k));
    items
}
