//! The caching allocator itself: PyTorch's `DeviceCachingAllocator`
//! (c10/cuda/CUDACachingAllocator.cpp, PyTorch 2.x) as a state machine over
//! blocks, pools and segments, with no device behind it. What it would ask
//! the device for comes out as [`SegmentEvent`]s, the trace's own
//! `segment_alloc` / `segment_free` / `segment_map` / `segment_unmap`.

use std::collections::{BTreeSet, HashMap};

use crate::settings::{Settings, MIB};

/// `kMinBlockSize`: every size is rounded up to a multiple of this.
pub const MIN_BLOCK: u64 = 512;
/// `kSmallSize`: requests up to this go to the small pool.
pub const SMALL_SIZE: u64 = MIB;
/// `kSmallBuffer`: small-pool segments, and the small pool's expandable page.
pub const SMALL_BUFFER: u64 = 2 * MIB;
/// `kMinLargeAlloc`: requests below this (and above 1 MiB) get a 20 MiB segment.
pub const MIN_LARGE_ALLOC: u64 = 10 * MIB;
/// `kRoundLarge`: larger segments are rounded up to this.
pub const ROUND_LARGE: u64 = 2 * MIB;
pub use crate::settings::LARGE_BUFFER;

/// No block (the end of a segment's chain).
pub(crate) const NONE: u32 = u32::MAX;

/// What the allocator asked of the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SegmentAction {
    /// `cudaMalloc` (`segment_alloc`).
    Alloc,
    /// `cudaFree` (`segment_free`).
    Free,
    /// Pages mapped into an expandable segment (`segment_map`).
    Map,
    /// Pages unmapped from an expandable segment (`segment_unmap`).
    Unmap,
}

impl SegmentAction {
    /// The trace's name for it.
    pub fn name(self) -> &'static str {
        match self {
            SegmentAction::Alloc => "segment_alloc",
            SegmentAction::Free => "segment_free",
            SegmentAction::Map => "segment_map",
            SegmentAction::Unmap => "segment_unmap",
        }
    }
    /// Whether it adds reserved memory.
    pub fn grows(self) -> bool {
        matches!(self, SegmentAction::Alloc | SegmentAction::Map)
    }
}

/// One device call of the model, as a trace event would record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentEvent {
    pub action: SegmentAction,
    pub addr: u64,
    pub size: u64,
    pub stream: u32,
}

/// How much memory the device gives this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limit {
    /// Reserved bytes the process may hold; `None`: no limit.
    pub bytes: Option<u64>,
    /// The limit is a per-process cap (`set_per_process_memory_fraction`):
    /// checked before every device call with the whole allocation size, and
    /// `garbage_collection_threshold` acts under it. Otherwise the device
    /// itself runs out (checked with the bytes each call really takes).
    pub per_process: bool,
}

/// Which pool a request goes to: the default pools, or a private pool
/// (`segment_pool_id`, CUDA graphs) that the program chose.
pub type PoolId = Option<(i64, i64)>;

/// A request the device could not serve even after the cache was released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oom {
    /// The rounded request (what the trace's `oom` event records).
    pub size: u64,
    /// Reserved bytes after the releases, when the allocator gave up.
    pub reserved: u64,
    /// The largest cached free block then.
    pub largest_free: u64,
}

#[derive(Debug, Clone)]
struct Block {
    addr: u64,
    size: u64,
    requested: u64,
    stream: u32,
    pool: u32,
    prev: u32,
    next: u32,
    allocated: bool,
    mapped: bool,
    /// Index into `Cache::expandable`, or NONE.
    expandable: u32,
    /// The pool's `get_free_blocks_call_count` when the block was cached.
    gc_base: i64,
}

impl Block {
    /// A mapped, unallocated block of its own segment (no neighbours yet).
    fn free(addr: u64, size: u64, stream: u32, pool: u32) -> Block {
        Block {
            addr,
            size,
            requested: 0,
            stream,
            pool,
            prev: NONE,
            next: NONE,
            allocated: false,
            mapped: true,
            expandable: NONE,
            gc_base: 0,
        }
    }
}

#[derive(Debug, Clone)]
struct Pool {
    small: bool,
    private: PoolId,
    /// Cached free mapped blocks, ordered as PyTorch's `BlockComparatorSize`.
    blocks: BTreeSet<(u32, u64, u64, u32)>,
    /// The cached whole segments (in the same order), so that a release
    /// does not walk the split blocks.
    releasable: BTreeSet<(u32, u64, u64, u32)>,
    /// Cached blocks of expandable segments (a release walks them all).
    expandable_cached: usize,
    /// Unmapped address space of expandable segments (`BlockComparatorAddress`).
    unmapped: BTreeSet<(u32, u64, u32)>,
    free_calls: i64,
}

/// One expandable segment: a virtual range whose pages are mapped on demand.
#[derive(Debug, Clone)]
struct Expandable {
    base: u64,
    page: u64,
    stream: u32,
    pool: u32,
}

/// A piece of a segment for [`Cache::add_segment`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// An allocated block (including one whose free still waits for another stream).
    Block { addr: u64, size: u64, requested: u64 },
    /// Cached free space.
    Free { addr: u64, size: u64 },
}

/// The caching allocator of one device.
#[derive(Debug, Clone)]
pub struct Cache {
    settings: Settings,
    limit: Limit,
    blocks: Vec<Block>,
    spare: Vec<u32>,
    pools: Vec<Pool>,
    /// (private pool, small) -> index into `pools`.
    pool_of: HashMap<(PoolId, bool), u32>,
    expandable: Vec<Option<Expandable>>,
    /// Bytes of segments and mapped pages (`total_allocated_memory`).
    reserved: u64,
    /// Bytes of allocated blocks (PyTorch's `allocated_bytes`).
    allocated: u64,
    /// Device calls since the caller last drained them.
    pub events: Vec<SegmentEvent>,
    /// For each device call the limit refused since the caller last drained
    /// them: reserved bytes plus the bytes asked for (the limit lies below).
    pub refusals: Vec<u64>,
    /// Addresses to give new segments before inventing one: (action, address,
    /// size) of the segment events the recording shows around this request.
    hints: Vec<(SegmentAction, u64, u64)>,
    next_synthetic: u64,
    /// Virtual size of a new expandable segment (PyTorch: 1 1/8 of the device).
    expandable_bytes: u64,
}

impl Cache {
    /// An empty allocator; invented segment addresses start at `synthetic_base`.
    pub fn new(settings: Settings, limit: Limit, synthetic_base: u64, device_total: u64) -> Cache {
        Cache {
            settings,
            limit,
            blocks: Vec::new(),
            spare: Vec::new(),
            pools: Vec::new(),
            pool_of: HashMap::new(),
            expandable: Vec::new(),
            reserved: 0,
            allocated: 0,
            events: Vec::new(),
            refusals: Vec::new(),
            hints: Vec::new(),
            next_synthetic: synthetic_base,
            expandable_bytes: device_total + device_total / 8,
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }
    pub fn limit(&self) -> Limit {
        self.limit
    }
    /// Reserved bytes: segments and mapped pages.
    pub fn reserved(&self) -> u64 {
        self.reserved
    }
    /// Bytes of allocated blocks (including frees still waiting on a stream).
    pub fn allocated(&self) -> u64 {
        self.allocated
    }
    /// Address of an allocated block.
    pub fn block_addr(&self, b: u32) -> u64 {
        self.blocks[b as usize].addr
    }
    /// The largest cached free block, in any pool.
    pub fn largest_free(&self) -> u64 {
        // Per pool and stream, the last block of the stream is its largest.
        let mut largest = 0;
        for p in &self.pools {
            let mut next = p.blocks.iter().next().map(|k| k.0);
            while let Some(s) = next {
                if let Some(k) = p.blocks.range(..(s.saturating_add(1), 0, 0, 0)).next_back() {
                    largest = largest.max(k.1);
                }
                next = if s == u32::MAX { None } else { p.blocks.range((s + 1, 0, 0, 0)..).next().map(|k| k.0) };
            }
        }
        largest
    }
    /// Sets the recorded segment events new segments may take their addresses from.
    pub fn set_hints(&mut self, hints: impl IntoIterator<Item = (SegmentAction, u64, u64)>) {
        self.hints.clear();
        self.hints.extend(hints);
    }

    /// `round_size`: 512 B granularity, or the next power-of-two division.
    pub fn round_size(&self, size: u64) -> u64 {
        round_size(&self.settings, size)
    }

    /// `get_allocation_size`: the segment a rounded request gets.
    pub fn allocation_size(size: u64) -> u64 {
        if size <= SMALL_SIZE {
            SMALL_BUFFER
        } else if size < MIN_LARGE_ALLOC {
            LARGE_BUFFER
        } else {
            size.div_ceil(ROUND_LARGE) * ROUND_LARGE
        }
    }

    /// The pool (default or private, small or large) by index, made on first use.
    fn pool_index(&mut self, private: PoolId, small: bool) -> u32 {
        // Most devices have two pools: a look at each beats hashing.
        if self.pools.len() <= 8 {
            if let Some(i) = self.pools.iter().position(|p| p.private == private && p.small == small) {
                return i as u32;
            }
        } else if let Some(&i) = self.pool_of.get(&(private, small)) {
            return i;
        }
        self.pools.push(Pool {
            small,
            private,
            blocks: BTreeSet::new(),
            releasable: BTreeSet::new(),
            expandable_cached: 0,
            unmapped: BTreeSet::new(),
            free_calls: 0,
        });
        let i = (self.pools.len() - 1) as u32;
        self.pool_of.insert((private, small), i);
        i
    }

    fn new_block(&mut self, b: Block) -> u32 {
        match self.spare.pop() {
            Some(i) => {
                self.blocks[i as usize] = b;
                i
            }
            None => {
                self.blocks.push(b);
                (self.blocks.len() - 1) as u32
            }
        }
    }

    fn key(&self, b: u32) -> (u32, u64, u64, u32) {
        let x = &self.blocks[b as usize];
        (x.stream, x.size, x.addr, b)
    }
    /// Puts free block `b` (linked to its neighbours) in its pool. A cached
    /// block's neighbours change only through itself, so whether it is a
    /// whole segment (releasable) is decided here once.
    fn cache_block(&mut self, b: u32) {
        let pool = self.blocks[b as usize].pool as usize;
        self.blocks[b as usize].gc_base = self.pools[pool].free_calls;
        let k = self.key(b);
        self.pools[pool].blocks.insert(k);
        if self.blocks[b as usize].expandable != NONE {
            self.pools[pool].expandable_cached += 1;
        } else if !self.is_split(b) {
            self.pools[pool].releasable.insert(k);
        }
    }
    fn uncache_block(&mut self, b: u32) {
        let k = self.key(b);
        let pool = self.blocks[b as usize].pool as usize;
        if self.pools[pool].blocks.remove(&k) {
            if self.blocks[b as usize].expandable != NONE {
                self.pools[pool].expandable_cached -= 1;
            } else if !self.is_split(b) {
                self.pools[pool].releasable.remove(&k);
            }
        }
    }
    fn unmapped_key(&self, b: u32) -> (u32, u64, u32) {
        let x = &self.blocks[b as usize];
        (x.stream, x.addr, b)
    }
    fn is_split(&self, b: u32) -> bool {
        let x = &self.blocks[b as usize];
        x.prev != NONE || x.next != NONE
    }

    fn gc_active(&self) -> bool {
        self.limit.per_process && self.limit.bytes.is_some() && self.settings.garbage_collection_threshold > 0.0
    }

    /// Puts a segment that existed before the trace's first event: its
    /// allocated blocks and free space in address order, covering it whole
    /// (`expandable`: it is a mapped range of an expandable segment; ranges
    /// of one stream and pool kind share one).
    /// Returns the allocated blocks, in the order of `pieces`.
    pub fn add_segment(
        &mut self,
        stream: u32,
        private: PoolId,
        small: bool,
        expandable: bool,
        pieces: &[Piece],
    ) -> Vec<u32> {
        let pool = self.pool_index(private, small);
        let mut out = Vec::new();
        let es = if expandable { self.expandable_for(stream, pool, pieces) } else { NONE };
        let mut prev = NONE;
        let mut free = Vec::new();
        for p in pieces {
            let (addr, size, requested, allocated) = match *p {
                Piece::Block { addr, size, requested } => (addr, size, requested, true),
                Piece::Free { addr, size } => (addr, size, 0, false),
            };
            let b = self.new_block(Block {
                addr,
                size,
                requested,
                stream,
                pool,
                prev,
                next: NONE,
                allocated,
                mapped: true,
                expandable: es,
                gc_base: 0,
            });
            if prev != NONE {
                self.blocks[prev as usize].next = b;
            }
            prev = b;
            if allocated {
                self.allocated += size;
                out.push(b);
            } else {
                free.push(b);
            }
        }
        let total: u64 = pieces
            .iter()
            .map(|p| match *p {
                Piece::Block { size, .. } | Piece::Free { size, .. } => size,
            })
            .sum();
        self.reserved += total;
        if es != NONE {
            self.link_into_expandable(es, pieces);
        }
        // Cached once linked: see `cache_block`.
        for b in free {
            self.cache_block(b);
        }
        out
    }

    /// The expandable segment of `stream` and `pool` a mapped range from
    /// before the trace belongs to, made (starting at that range) if none.
    fn expandable_for(&mut self, stream: u32, pool: u32, pieces: &[Piece]) -> u32 {
        let start = match pieces.first() {
            Some(Piece::Block { addr, .. } | Piece::Free { addr, .. }) => *addr,
            None => 0,
        };
        for (i, e) in self.expandable.iter().enumerate() {
            if let Some(e) = e {
                if e.stream == stream && e.pool == pool && start >= e.base {
                    return i as u32;
                }
            }
        }
        let page = if self.pools[pool as usize].small { SMALL_BUFFER } else { LARGE_BUFFER };
        self.expandable.push(Some(Expandable { base: start, page, stream, pool }));
        (self.expandable.len() - 1) as u32
    }

    /// Links a pre-trace mapped range into its expandable segment's chain of
    /// blocks: unmapped space before it (back to the previous range or the
    /// segment's start) and after it (to the end of the reservation).
    fn link_into_expandable(&mut self, es: u32, pieces: &[Piece]) {
        let e = self.expandable[es as usize].clone().expect("live expandable segment");
        let end_of_reservation = e.base + self.expandable_bytes.div_ceil(e.page) * e.page;
        // The chain's blocks in address order, the new range's included.
        let mut chain: Vec<u32> = (0..self.blocks.len() as u32)
            .filter(|&b| self.blocks[b as usize].expandable == es && !self.spare.contains(&b))
            .collect();
        // Drop the unmapped ones: rebuilt below.
        for &b in &chain {
            if !self.blocks[b as usize].mapped {
                let k = self.unmapped_key(b);
                let pool = self.blocks[b as usize].pool as usize;
                self.pools[pool].unmapped.remove(&k);
                self.spare.push(b);
            }
        }
        chain.retain(|&b| self.blocks[b as usize].mapped);
        chain.sort_by_key(|&b| self.blocks[b as usize].addr);
        let _ = pieces;
        let (stream, pool) = (e.stream, e.pool);
        let mut linked = Vec::new();
        let mut at = e.base;
        for &b in &chain {
            let addr = self.blocks[b as usize].addr;
            if addr > at {
                linked.push(self.unmapped_block(es, stream, pool, at, addr - at));
            }
            linked.push(b);
            at = addr + self.blocks[b as usize].size;
        }
        if end_of_reservation > at {
            linked.push(self.unmapped_block(es, stream, pool, at, end_of_reservation - at));
        }
        for (i, &b) in linked.iter().enumerate() {
            self.blocks[b as usize].prev = if i == 0 { NONE } else { linked[i - 1] };
            self.blocks[b as usize].next = linked.get(i + 1).copied().unwrap_or(NONE);
        }
    }

    fn unmapped_block(&mut self, es: u32, stream: u32, pool: u32, addr: u64, size: u64) -> u32 {
        let b = self.new_block(Block { mapped: false, expandable: es, ..Block::free(addr, size, stream, pool) });
        let k = self.unmapped_key(b);
        self.pools[pool as usize].unmapped.insert(k);
        b
    }

    /// `get_free_block` without taking the block: the cached block best
    /// fitting `size` on `stream` that the rules allow, if any.
    fn find_free(&self, pool: u32, stream: u32, size: u64) -> Option<u32> {
        let p = &self.pools[pool as usize];
        let mut it = p.blocks.range((stream, size, 0, 0)..);
        let mut cur = *it.next()?;
        if cur.0 != stream {
            return None;
        }
        if self.blocks[cur.3 as usize].expandable != NONE {
            if self.settings.expandable_segments {
                // Best fit counts the unmapped space it can grow into.
                let grow = |b: u32| {
                    let x = &self.blocks[b as usize];
                    x.size
                        + if x.next != NONE && !self.blocks[x.next as usize].mapped {
                            self.blocks[x.next as usize].size
                        } else {
                            0
                        }
                };
                for next in it {
                    if self.blocks[cur.3 as usize].expandable != NONE && next.0 == stream && grow(next.3) < grow(cur.3)
                    {
                        cur = *next;
                    } else {
                        break;
                    }
                }
            } else {
                // Expandable segments switched off: only ordinary blocks.
                loop {
                    cur = *it.next()?;
                    if cur.0 != stream {
                        return None;
                    }
                    if self.blocks[cur.3 as usize].expandable == NONE {
                        break;
                    }
                }
            }
        }
        let max_split = self.settings.max_split_size;
        // Oversize blocks are kept for oversize requests...
        if size < max_split && cur.1 >= max_split {
            return None;
        }
        // ...that are at most max_non_split_rounding smaller.
        if size >= max_split && cur.1 >= size.saturating_add(self.settings.max_non_split_rounding_size) {
            return None;
        }
        Some(cur.3)
    }

    /// `malloc`: an allocated block for a request of `orig` bytes on
    /// `stream` in the default pools or a private one, or the OOM. Device
    /// calls are appended to [`Cache::events`].
    pub fn malloc(&mut self, orig: u64, stream: u32, private: PoolId) -> Result<u32, Oom> {
        let size = self.round_size(orig);
        let pool = self.pool_index(private, size <= SMALL_SIZE);
        let alloc_size = Self::allocation_size(size);
        let gc = self.gc_active();
        if gc {
            self.pools[pool as usize].free_calls += 1;
        }
        let block = match self.find_free(pool, stream, size) {
            Some(b) => {
                self.uncache_block(b);
                Some(b)
            }
            None => {
                if gc {
                    self.garbage_collect();
                }
                self.alloc_block(pool, stream, size, alloc_size, true)
                    .or_else(|| {
                        if self.release_available(pool, stream, size) {
                            self.alloc_block(pool, stream, size, alloc_size, true)
                        } else {
                            None
                        }
                    })
                    .or_else(|| {
                        self.release_cached();
                        self.alloc_block(pool, stream, size, alloc_size, true)
                    })
            }
        };
        let Some(b) = block else {
            return Err(Oom { size, reserved: self.reserved, largest_free: self.largest_free() });
        };
        Ok(self.alloc_found(b, size, orig))
    }

    /// Whether a request would make the allocator release cached memory
    /// first (no cached block fits, and the device call would be refused or
    /// garbage collection would act): how the replay tells a release the
    /// allocator made from the program's own `empty_cache()`.
    pub fn would_release(&self, orig: u64, stream: u32, private: PoolId) -> bool {
        let size = self.round_size(orig);
        let Some(&pool) = self.pool_of.get(&(private, size <= SMALL_SIZE)) else {
            return self.refused(Self::allocation_size(size));
        };
        if self.find_free(pool, stream, size).is_some() {
            return false;
        }
        let gc = self.gc_active()
            && self.reserved as f64
                > self.settings.garbage_collection_threshold * self.limit.bytes.unwrap_or(u64::MAX) as f64;
        gc || self.refused(Self::allocation_size(size))
    }

    fn refused(&self, bytes: u64) -> bool {
        matches!(self.limit.bytes, Some(cap) if self.reserved + bytes > cap)
    }

    /// The limit checked for a device call of `bytes`, the refusal noted.
    fn refuse(&mut self, bytes: u64) -> bool {
        let r = self.refused(bytes);
        if r {
            self.refusals.push(self.reserved + bytes);
        }
        r
    }

    /// A request served past the limit: after an OOM the replay goes on as
    /// if the program had the memory, so that later events still apply.
    pub fn malloc_unlimited(&mut self, orig: u64, stream: u32, private: PoolId) -> u32 {
        let limit = self.limit;
        self.limit = Limit::default();
        let b = self.malloc(orig, stream, private).expect("no limit, no OOM");
        self.limit = limit;
        b
    }

    /// `alloc_found_block`: splits off the rest when the rules say so.
    fn alloc_found(&mut self, b: u32, size: u64, orig: u64) -> u32 {
        let remaining = self.blocks[b as usize].size - size;
        let pool_small = self.pools[self.blocks[b as usize].pool as usize].small;
        // should_split
        let split = if pool_small || self.settings.expandable_segments {
            remaining >= MIN_BLOCK
        } else {
            size < self.settings.max_split_size && remaining > SMALL_SIZE
        };
        let out = if split {
            let old = self.blocks[b as usize].clone();
            let nb = self.new_block(Block { size, next: b, allocated: true, requested: orig, ..old.clone() });
            if old.prev != NONE {
                self.blocks[old.prev as usize].next = nb;
            }
            let rest = &mut self.blocks[b as usize];
            rest.prev = nb;
            rest.addr += size;
            rest.size -= size;
            self.cache_block(b);
            nb
        } else {
            let x = &mut self.blocks[b as usize];
            x.allocated = true;
            x.requested = orig;
            b
        };
        self.allocated += self.blocks[out as usize].size;
        out
    }

    /// `free_block`: the block goes back to its pool, merged with free neighbours.
    pub fn free(&mut self, b: u32) {
        let size = self.blocks[b as usize].size;
        self.allocated -= size;
        self.blocks[b as usize].allocated = false;
        self.blocks[b as usize].requested = 0;
        let (prev, next) = (self.blocks[b as usize].prev, self.blocks[b as usize].next);
        self.try_merge(b, prev);
        self.try_merge(b, next);
        self.cache_block(b);
    }

    /// `try_merge_blocks`: `dst` (in no set) absorbs its free neighbour `src`.
    fn try_merge(&mut self, dst: u32, src: u32) -> u64 {
        if src == NONE {
            return 0;
        }
        let s = self.blocks[src as usize].clone();
        if s.allocated || s.mapped != self.blocks[dst as usize].mapped {
            return 0;
        }
        if s.mapped {
            self.uncache_block(src);
        } else {
            let k = self.unmapped_key(src);
            self.pools[s.pool as usize].unmapped.remove(&k);
        }
        if self.blocks[dst as usize].prev == src {
            let d = &mut self.blocks[dst as usize];
            d.addr = s.addr;
            d.prev = s.prev;
            if s.prev != NONE {
                self.blocks[s.prev as usize].next = dst;
            }
        } else {
            self.blocks[dst as usize].next = s.next;
            if s.next != NONE {
                self.blocks[s.next as usize].prev = dst;
            }
        }
        self.blocks[dst as usize].size += s.size;
        self.spare.push(src);
        s.size
    }

    /// `alloc_block`: a new segment, or pages of an expandable one.
    fn alloc_block(&mut self, pool: u32, stream: u32, size: u64, alloc_size: u64, _first: bool) -> Option<u32> {
        if self.limit.per_process && self.refuse(alloc_size) {
            return None;
        }
        if self.settings.expandable_segments {
            return self.try_allocate_expandable(pool, stream, size);
        }
        if !self.limit.per_process && self.refuse(alloc_size) {
            return None;
        }
        let addr = self.take_hint(SegmentAction::Alloc, alloc_size).unwrap_or_else(|| self.synthetic(alloc_size));
        self.reserved += alloc_size;
        self.events.push(SegmentEvent { action: SegmentAction::Alloc, addr, size: alloc_size, stream });
        Some(self.new_block(Block::free(addr, alloc_size, stream, pool)))
    }

    fn take_hint(&mut self, action: SegmentAction, size: u64) -> Option<u64> {
        let i = self.hints.iter().position(|h| h.0 == action && (size == 0 || h.2 == size))?;
        Some(self.hints.remove(i).1)
    }

    fn synthetic(&mut self, size: u64) -> u64 {
        let a = self.next_synthetic;
        self.next_synthetic += size.div_ceil(ROUND_LARGE) * ROUND_LARGE;
        a
    }

    /// `try_allocate_expandable_block`: map pages at the lowest gap with room.
    fn try_allocate_expandable(&mut self, pool: u32, stream: u32, size: u64) -> Option<u32> {
        let mut c = self.find_expandable(pool, stream, size);
        if !self.blocks[c as usize].mapped {
            let want = self.blocks[c as usize].size.min(size);
            if !self.map_block(c, want) {
                return None;
            }
        }
        while self.blocks[c as usize].size < size {
            let remaining = size - self.blocks[c as usize].size;
            let n = self.blocks[c as usize].next;
            let want = remaining.min(self.blocks[n as usize].size);
            if !self.map_block(n, want) {
                return None;
            }
            c = n;
        }
        self.uncache_block(c);
        Some(c)
    }

    /// `find_expandable_block`: the lowest unmapped space (with the free
    /// block before it) that can hold `size`, else a new expandable segment.
    fn find_expandable(&mut self, pool: u32, stream: u32, size: u64) -> u32 {
        let free = |b: u32| b != NONE && !self.blocks[b as usize].allocated;
        let room = |mut b: u32| {
            let mut bytes = 0;
            while bytes < size && free(b) {
                bytes += self.blocks[b as usize].size;
                b = self.blocks[b as usize].next;
            }
            bytes >= size
        };
        for &(s, _, b) in self.pools[pool as usize].unmapped.range((stream, 0, 0)..) {
            if s != stream {
                break;
            }
            let prev = self.blocks[b as usize].prev;
            let c = if free(prev) { prev } else { b };
            if room(c) {
                return c;
            }
        }
        let page = if self.pools[pool as usize].small { SMALL_BUFFER } else { LARGE_BUFFER };
        let bytes = self.expandable_bytes.div_ceil(page) * page;
        let base = self.take_hint(SegmentAction::Map, 0).unwrap_or_else(|| {
            // Reservations are far apart, like the driver's.
            let a = self.next_synthetic.div_ceil(1 << 30) << 30;
            self.next_synthetic = a + bytes.div_ceil(1 << 30) * (1 << 30);
            a
        });
        self.expandable.push(Some(Expandable { base, page, stream, pool }));
        let es = (self.expandable.len() - 1) as u32;
        self.unmapped_block(es, stream, pool, base, bytes)
    }

    /// `map_block`: map the pages under the first `size` bytes of unmapped `b`.
    fn map_block(&mut self, b: u32, size: u64) -> bool {
        let x = self.blocks[b as usize].clone();
        let e = self.expandable[x.expandable as usize].clone().expect("live expandable segment");
        let begin = (x.addr - e.base) / e.page;
        let end = (x.addr + size - e.base).div_ceil(e.page);
        let bytes = (end - begin) * e.page;
        if bytes == 0 || (!self.limit.per_process && self.refuse(bytes)) {
            return false;
        }
        let k = self.unmapped_key(b);
        self.pools[x.pool as usize].unmapped.remove(&k);
        self.blocks[b as usize].mapped = true;
        if bytes < x.size {
            let rest = self.unmapped_block(x.expandable, x.stream, x.pool, x.addr + bytes, x.size - bytes);
            self.blocks[rest as usize].prev = b;
            self.blocks[rest as usize].next = x.next;
            if x.next != NONE {
                self.blocks[x.next as usize].prev = rest;
            }
            self.blocks[b as usize].next = rest;
            self.blocks[b as usize].size = bytes;
        }
        let (prev, next) = (self.blocks[b as usize].prev, self.blocks[b as usize].next);
        self.try_merge(b, prev);
        self.try_merge(b, next);
        self.cache_block(b);
        self.reserved += bytes;
        self.events.push(SegmentEvent { action: SegmentAction::Map, addr: x.addr, size: bytes, stream: x.stream });
        true
    }

    /// `release_block`: cudaFree of a whole cached segment.
    fn release_block(&mut self, b: u32) {
        self.uncache_block(b);
        let x = &self.blocks[b as usize];
        self.events.push(SegmentEvent { action: SegmentAction::Free, addr: x.addr, size: x.size, stream: x.stream });
        self.reserved -= x.size;
        self.spare.push(b);
    }

    /// `unmap_block`: unmap the whole pages inside free expandable block `b`.
    fn unmap_block(&mut self, b: u32) {
        let x = self.blocks[b as usize].clone();
        let e = self.expandable[x.expandable as usize].clone().expect("live expandable segment");
        let begin = (x.addr - e.base).div_ceil(e.page);
        let end = (x.addr + x.size - e.base) / e.page;
        if begin >= end {
            return;
        }
        self.uncache_block(b);
        let start = e.base + begin * e.page;
        let bytes = (end - begin) * e.page;
        if start > x.addr {
            let before = self.new_block(Block {
                size: start - x.addr,
                prev: x.prev,
                next: b,
                allocated: false,
                mapped: true,
                ..x.clone()
            });
            if x.prev != NONE {
                self.blocks[x.prev as usize].next = before;
            }
            self.blocks[b as usize].prev = before;
            self.cache_block(before);
        }
        let after_size = x.addr + x.size - (start + bytes);
        if after_size > 0 {
            let next = self.blocks[b as usize].next;
            let after = self.new_block(Block {
                addr: start + bytes,
                size: after_size,
                prev: b,
                next,
                allocated: false,
                mapped: true,
                ..x.clone()
            });
            if next != NONE {
                self.blocks[next as usize].prev = after;
            }
            self.blocks[b as usize].next = after;
            self.cache_block(after);
        }
        {
            let y = &mut self.blocks[b as usize];
            y.addr = start;
            y.size = bytes;
            y.mapped = false;
        }
        let (prev, next) = (self.blocks[b as usize].prev, self.blocks[b as usize].next);
        self.try_merge(b, prev);
        self.try_merge(b, next);
        let k = self.unmapped_key(b);
        self.pools[x.pool as usize].unmapped.insert(k);
        self.reserved -= bytes;
        self.events.push(SegmentEvent { action: SegmentAction::Unmap, addr: start, size: bytes, stream: x.stream });
    }

    /// `release_blocks`: every unsplit cached segment freed, every free page unmapped.
    fn release_pool(&mut self, pool: u32) {
        let mut to_unmap = Vec::new();
        let p = &self.pools[pool as usize];
        let walk = if p.expandable_cached > 0 { &p.blocks } else { &p.releasable };
        let list: Vec<u32> = walk.iter().map(|k| k.3).collect();
        for b in list {
            if self.blocks[b as usize].expandable != NONE {
                to_unmap.push(b);
            } else if !self.is_split(b) {
                self.release_block(b);
            }
        }
        for b in to_unmap {
            self.unmap_block(b);
            if !self.is_split(b) && !self.blocks[b as usize].mapped {
                let x = &self.blocks[b as usize];
                let k = (x.stream, x.addr, b);
                self.pools[x.pool as usize].unmapped.remove(&k);
                self.expandable[x.expandable as usize] = None;
                self.spare.push(b);
            }
        }
    }

    /// `release_cached_blocks`, also what `torch.cuda.empty_cache()` does:
    /// the default pools' large then small blocks (private pools keep theirs:
    /// the trace does not say when a graph released its pool).
    pub fn release_cached(&mut self) {
        for small in [false, true] {
            if let Some(&p) = self.pool_of.get(&(None, small)) {
                self.release_pool(p);
            }
        }
    }

    /// `release_available_cached_blocks`: with max_split_size set, free one
    /// unsplit oversize block that covers the request, or the largest ones
    /// until they do.
    fn release_available(&mut self, pool: u32, stream: u32, size: u64) -> bool {
        let max_split = self.settings.max_split_size;
        if max_split == u64::MAX {
            return false;
        }
        let key = size.max(max_split);
        let p = &self.pools[pool as usize];
        let found = p.blocks.range((stream, key, 0, 0)..).next().copied();
        match found {
            Some(k) if k.0 == stream => {
                if self.is_split(k.3) || self.blocks[k.3 as usize].expandable != NONE {
                    return false;
                }
                self.release_block(k.3);
                true
            }
            _ => {
                let below: Vec<(u32, u64, u64, u32)> = p
                    .blocks
                    .range(..(stream, key, 0, 0))
                    .rev()
                    .take_while(|k| k.0 == stream && k.1 >= max_split)
                    .copied()
                    .collect();
                let mut released = 0;
                for k in below {
                    if released >= key {
                        break;
                    }
                    if self.is_split(k.3) || self.blocks[k.3 as usize].expandable != NONE {
                        continue;
                    }
                    released += k.1;
                    self.release_block(k.3);
                }
                released >= key
            }
        }
    }

    /// `garbage_collect_cached_blocks`: over `threshold` of the cap, free the
    /// default large pool's unsplit cached blocks that waited longest (at
    /// least the average age) until reserved is back under it.
    fn garbage_collect(&mut self) {
        let cap = self.limit.bytes.unwrap_or(u64::MAX);
        let threshold = (self.settings.garbage_collection_threshold * cap as f64) as u64;
        if self.reserved <= threshold {
            return;
        }
        let target = self.reserved - threshold;
        let Some(&pool) = self.pool_of.get(&(None, false)) else {
            return;
        };
        let pool = pool as usize;
        let calls = self.pools[pool].free_calls;
        let age = |c: &Cache, b: u32| (calls - c.blocks[b as usize].gc_base) as u64;
        let mut total_age = 0u64;
        let mut count = 0u64;
        for k in &self.pools[pool].releasable {
            if !self.is_split(k.3) {
                total_age += age(self, k.3);
                count += 1;
            }
        }
        if count == 0 {
            return;
        }
        let mut reclaimed = 0;
        let mut freed = true;
        while reclaimed < target && freed && count > 0 {
            let threshold_age = total_age as f64 / count as f64;
            freed = false;
            let list: Vec<u32> = self.pools[pool].blocks.iter().map(|k| k.3).collect();
            for b in list {
                if !self.is_split(b)
                    && self.blocks[b as usize].expandable == NONE
                    && age(self, b) as f64 >= threshold_age
                {
                    freed = true;
                    reclaimed += self.blocks[b as usize].size;
                    total_age -= age(self, b);
                    count -= 1;
                    self.release_block(b);
                }
            }
        }
    }
}

/// `round_size`: 512 B granularity, or the next power-of-two division
/// where `roundup_power2_divisions` asks for one.
pub fn round_size(settings: &Settings, size: u64) -> u64 {
    let size = size.saturating_add(settings.request_padding);
    if size < MIN_BLOCK {
        return MIN_BLOCK;
    }
    let divisions = settings.divisions_for(size);
    if divisions > 1 && size > MIN_BLOCK * divisions {
        roundup_power2_next_division(size, divisions)
    } else {
        size.div_ceil(MIN_BLOCK) * MIN_BLOCK
    }
}

/// `roundup_power2_next_division`: `size` up to the next of `divisions`
/// equal steps between the powers of two around it.
fn roundup_power2_next_division(size: u64, divisions: u64) -> u64 {
    if size.is_power_of_two() {
        return size;
    }
    let floor = 1u64 << (63 - size.leading_zeros());
    let step = floor >> (63 - divisions.leading_zeros());
    if step == 0 {
        return floor << 1;
    }
    let down = size & !(step - 1);
    if down == size {
        size
    } else {
        down + step
    }
}
