//! A recorded trace replayed through the [`Cache`] model, in steps.
//!
//! [`Recording::new`] takes what the replay needs from a snapshot once: the
//! allocator's state at the trace's first event (the state history rebuilds
//! it, blocks from before the trace included), the settings it ran under,
//! the private pool of each allocation (`segment_pool_id` of the segment
//! holding its address) and the recorded figures (reserved memory, OOMs).
//! A [`Replay`] then runs the trace through a model, a slice at a time
//! ([`Replay::step`]), in one of two modes:
//! - the self-check ([`Replay::self_check`]): the recording's own settings;
//!   every device call the model makes is compared with the trace's segment
//!   events around the same request, and every block's address with the
//!   recorded one (new segments take the recorded addresses, so that ties
//!   broken by address fall as they did). It also tells the program's
//!   `empty_cache()` calls from the releases the allocator made itself.
//! - a prediction ([`Replay::predict`]): other settings, another limit; the
//!   trace's segment events are ignored but for the program's
//!   `empty_cache()` calls, and requests the model cannot serve are OOMs.
//!
//! The replay assumes the program makes the same requests whatever the
//! allocator does: a request that fails here is served anyway (past the
//! limit) so that the rest of the trace still applies, and a request that
//! failed in the recording but fits here is freed at once.

use std::collections::HashMap;

use memviz_core::format::format_size;
use memviz_core::model::{Action, EventTable, Plain, PoolFinder, SegmentType, Snapshot};
use memviz_core::state::StateHistory;
use serde::Serialize;

use crate::cache::{round_size, Cache, Limit, Piece, PoolId, SegmentAction, SegmentEvent, SMALL_BUFFER, SMALL_SIZE};
use crate::settings::Settings;

/// The device size assumed for expandable segments' virtual reservations
/// (an H100's 80 GiB); only the reservation's length depends on it.
pub const DEFAULT_DEVICE_BYTES: u64 = 80 << 30;

/// Larger requests and segments (64 PiB) are refused as input no device
/// could have made.
pub const MAX_BYTES: u64 = 1 << 56;

/// A segment that existed at the trace's first event.
#[derive(Debug, Clone, PartialEq)]
pub struct InitialSegment {
    pub stream: u32,
    pub pool: PoolId,
    pub small: bool,
    pub expandable: bool,
    pub pieces: Vec<Piece>,
}

/// An `oom` event of the recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RecordedOom {
    pub event: usize,
    /// The rounded request.
    pub request_bytes: u64,
    /// What the device said it had free (`device_free`), if recorded.
    pub device_free: Option<u64>,
    /// Reserved bytes at the OOM (after the allocator's releases).
    pub reserved_bytes: u64,
}

/// What a replay needs from one device of a snapshot.
#[derive(Debug, Clone)]
pub struct Recording {
    pub device: u32,
    /// The settings the recording ran under (`allocator_settings`).
    pub settings: Settings,
    pub initial: Vec<InitialSegment>,
    pub initial_reserved: u64,
    /// Highest reserved memory the trace reaches.
    pub peak_reserved: u64,
    pub end_reserved: u64,
    pub ooms: Vec<RecordedOom>,
    /// Segment events in the trace.
    pub segment_events: usize,
    /// The device's segments' pools, when any is private.
    private: Option<PoolFinder>,
    synthetic_base: u64,
}

impl Recording {
    /// Reads `device`'s trace and its starting state. Errors name what the
    /// model cannot take (addresses past 64 bits).
    pub fn new(snap: &Snapshot, device: u32) -> Result<Recording, String> {
        let h = StateHistory::new(snap, device);
        Self::with_history(snap, &h)
    }

    /// As [`Recording::new`], from a state history already built (the page's).
    pub fn with_history(snap: &Snapshot, h: &StateHistory) -> Result<Recording, String> {
        let device = h.device();
        let trace = snap.trace(device);
        if let Some(i) = trace.addr_hi.keys().min() {
            return Err(format!("device {}: trace event {i} has an address above 2^64", snap.device_name(device)));
        }
        // Sizes no device holds would overflow the model's sums.
        let too_big = |size: u64| size > MAX_BYTES;
        if let Some(i) = (0..trace.len()).find(|&i| {
            matches!(trace.action[i], Action::Alloc | Action::Oom | Action::SegmentAlloc | Action::SegmentMap)
                && too_big(trace.size[i])
        }) {
            return Err(format!(
                "device {}: trace event {i} ({}) is {} bytes: more than any device holds",
                snap.device_name(device),
                trace.action_name(i),
                trace.size[i]
            ));
        }
        let mut settings = Settings::from_snapshot(snap.allocator_settings.as_ref());
        // Files older than `allocator_settings` (PyTorch < 2.1) still show
        // expandable segments: their map / unmap events, their segments.
        let says_expandable = matches!(&snap.allocator_settings, Some(Plain::Map(kv))
            if kv.iter().any(|(k, _)| matches!(k, Plain::Str(k) if k == "expandable_segments")));
        if !says_expandable
            && (trace.action.iter().any(|a| matches!(a, Action::SegmentMap | Action::SegmentUnmap))
                || snap.device_segments(device).any(|s| s.is_expandable))
        {
            settings.expandable_segments = true;
        }
        // torch_npu pads each request by 32 bytes: the dump's blocks show it
        // (a block of 1 MiB + 512 for a request of 1 MiB), CUDA's never do.
        let (mut plain, mut padded) = (0, 0);
        for seg in snap.device_segments(device) {
            for b in snap.segment_blocks(seg).iter().filter(|b| b.requested_size > 0) {
                let r = b.requested_size;
                let (cuda, npu) = (r.max(1).div_ceil(512) * 512, (r + 32).div_ceil(512) * 512);
                if cuda != npu {
                    if b.size == cuda {
                        plain += 1;
                    } else if b.size == npu {
                        padded += 1;
                    }
                }
            }
        }
        if padded > 0 && plain == 0 {
            settings.request_padding = 32;
        }
        let pools = PoolFinder::new(snap, device);
        let private = pools.has_private().then_some(pools);
        let find_private = |addr: u64| private.as_ref().and_then(|p| p.find(addr as u128)).filter(|&p| p != (0, 0));
        let mut c = h.cursor();
        c.seek_position(h, snap, 0);
        let st = c.state(h, snap);
        let mut max_addr = trace.addr_lo.iter().copied().max().unwrap_or(0);
        let mut initial = Vec::with_capacity(st.segments.len());
        for seg in &st.segments {
            let addr = u64::try_from(seg.address)
                .map_err(|_| format!("device {}: a segment's address is above 2^64", snap.device_name(device)))?;
            if too_big(seg.size) || addr > u64::MAX - MAX_BYTES {
                return Err(format!(
                    "device {}: the segment at {addr:#x} ({} bytes) is beyond what any device holds",
                    snap.device_name(device),
                    seg.size
                ));
            }
            max_addr = max_addr.max(addr.saturating_add(seg.size));
            let final_seg = seg.final_segment.map(|i| &snap.segments[i]);
            let pool = seg.pool_id.filter(|&p| p != (0, 0)).or_else(|| find_private(addr));
            let small = match final_seg.map(|s| s.segment_type) {
                Some(SegmentType::Small) => true,
                Some(SegmentType::Large) => false,
                _ if seg.is_expandable => {
                    // A rebuilt mapped range: the kind of the dump's expandable
                    // segment on its stream nearest to it, else by its blocks.
                    let near = snap
                        .device_segments(device)
                        .filter(|s| s.is_expandable && s.stream == seg.stream)
                        .min_by_key(|s| s.address.abs_diff(seg.address));
                    match near.map(|s| s.segment_type) {
                        Some(SegmentType::Small) => true,
                        Some(SegmentType::Large) => false,
                        _ => seg.blocks.iter().all(|b| b.size <= SMALL_SIZE),
                    }
                }
                _ => seg.size == SMALL_BUFFER,
            };
            let mut pieces = Vec::new();
            let end = addr.saturating_add(seg.size);
            let mut at = addr;
            let mut blocks: Vec<_> = seg.blocks.iter().collect();
            blocks.sort_by_key(|b| b.address);
            for (k, b) in blocks.iter().enumerate() {
                let ba = (b.address as u64).max(at);
                if ba >= end {
                    break;
                }
                if ba > at {
                    pieces.push(Piece::Free { addr: at, size: ba - at });
                }
                let next = blocks.get(k + 1).map(|n| (n.address as u64).min(end)).unwrap_or(end);
                // A block the trace rebuilt carries its request; the block
                // itself is the rounded size, and the rest of a large
                // segment's free space behind it when the allocator would
                // not have split that off (1 MiB or less, or an oversize block).
                let size = if b.final_block.is_some() {
                    b.size
                } else {
                    let r = round_size(&settings, b.size);
                    let gap = next.saturating_sub(ba + r);
                    if !small && !seg.is_expandable && (gap <= SMALL_SIZE || r >= settings.max_split_size) {
                        next - ba
                    } else {
                        r
                    }
                };
                let size = size.min(end - ba).max(1);
                pieces.push(Piece::Block { addr: ba, size, requested: b.requested_size });
                at = ba + size;
            }
            if end > at {
                pieces.push(Piece::Free { addr: at, size: end - at });
            }
            initial.push(InitialSegment { stream: seg.stream, pool, small, expandable: seg.is_expandable, pieces });
        }
        // The recorded figures.
        let initial_reserved = st.totals.reserved_bytes;
        let (mut reserved, mut peak) = (initial_reserved, initial_reserved);
        let mut ooms = Vec::new();
        let mut segment_events = 0;
        for i in 0..trace.len() {
            let size = trace.size[i];
            match trace.action[i] {
                Action::SegmentAlloc | Action::SegmentMap => {
                    reserved += size;
                    peak = peak.max(reserved);
                    segment_events += 1;
                }
                Action::SegmentFree | Action::SegmentUnmap => {
                    reserved = reserved.saturating_sub(size);
                    segment_events += 1;
                }
                Action::Oom => ooms.push(RecordedOom {
                    event: i,
                    request_bytes: size,
                    device_free: snap.extra(device, i).and_then(|x| x.device_free),
                    reserved_bytes: reserved,
                }),
                _ => {}
            }
        }
        Ok(Recording {
            device,
            settings,
            initial,
            initial_reserved,
            peak_reserved: peak,
            end_reserved: reserved,
            ooms,
            segment_events,
            private,
            // Invented segments go far above every recorded address.
            synthetic_base: (max_addr >> 40).saturating_add(2) << 40,
        })
    }

    /// The private pool (CUDA graphs) of the segment holding `addr`, if any.
    pub fn private_pool(&self, addr: u64) -> PoolId {
        self.private.as_ref()?.find(addr as u128).filter(|&p| p != (0, 0))
    }
}

/// Where the model first did something else than the recording.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// The trace event (index in the device's trace).
    pub event: usize,
    pub recorded: String,
    pub model: String,
}

/// The model against the recording, under the recording's own settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelfCheck {
    /// Events compared: segment events, OOMs and allocations (each block's address).
    pub events: usize,
    pub matched: usize,
    pub exact: bool,
    pub first_divergence: Option<Divergence>,
}

/// An OOM of a replay: a recorded one (whether it still happens) or a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReplayOom {
    pub event: usize,
    pub recorded: bool,
    pub happens: bool,
    /// The rounded request.
    pub request_bytes: u64,
    /// Reserved bytes when the allocator gave up (or served it).
    pub reserved_bytes: u64,
    /// The largest cached free block then.
    pub largest_free_bytes: u64,
}

/// What a replay found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Outcome {
    #[serde(skip)]
    pub settings: Settings,
    #[serde(skip)]
    pub limit: Limit,
    pub peak_reserved_bytes: u64,
    /// The event after which reserved memory first reached its peak (`None`: before the first).
    pub peak_event: Option<usize>,
    /// Bytes inside segments not allocated, at the peak.
    pub free_at_peak_bytes: u64,
    pub end_reserved_bytes: u64,
    pub ooms: Vec<ReplayOom>,
    /// Reserved bytes after each event, when asked for ([`Replay::keep_series`]).
    #[serde(skip)]
    pub series: Vec<u64>,
    /// The model's device calls with the event that made them, when asked
    /// for ([`Replay::keep_events`]).
    #[serde(skip)]
    pub segment_events: Vec<(usize, SegmentEvent)>,
    /// Self-check only.
    pub check: Option<SelfCheck>,
    /// Events before which the program called `empty_cache()` (found by the self-check).
    #[serde(skip)]
    pub empty_cache_at: Vec<usize>,
    /// Self-check only: for each device call the limit refused, reserved
    /// bytes plus the bytes asked for (the cap lies below each).
    #[serde(skip)]
    pub refused_at: Vec<u64>,
    /// Self-check only: the caps that replay the recording's garbage
    /// collection as it was, [LO, HI), when it needed one.
    #[serde(skip)]
    pub gc_cap_bounds: Option<(u64, u64)>,
}

impl Outcome {
    /// The new OOMs (the recording had none there).
    pub fn new_ooms(&self) -> impl Iterator<Item = &ReplayOom> {
        self.ooms.iter().filter(|o| !o.recorded)
    }
    /// Whether any request failed (recorded or new).
    pub fn any_oom(&self) -> bool {
        self.ooms.iter().any(|o| o.happens)
    }
}

/// A trace being replayed; [`Replay::step`] runs it a slice at a time.
pub struct Replay<'a> {
    rec: &'a Recording,
    trace: &'a EventTable,
    /// Everything owned: what [`Replay::pause`] keeps between frames.
    run: Paused,
}

/// The self-check's bookkeeping.
#[derive(Default)]
struct Check {
    /// Recorded segment events since the last request: (action, addr, size, event).
    pending: Vec<(SegmentAction, u64, u64, usize)>,
    recorded_reserved: u64,
    events: usize,
    matched: usize,
    first: Option<Divergence>,
}

fn describe(action: SegmentAction, addr: u64, size: u64) -> String {
    format!("{} {} at {addr:#x}", action.name(), format_size(size, false))
}

impl<'a> Replay<'a> {
    /// The self-check: the recording's own settings; a cap at the highest
    /// reserved memory reached when the trace shows the allocator releasing
    /// memory or running out (any cap that refused what the trace shows
    /// refused and allowed what it allowed replays the same).
    pub fn self_check(snap: &'a Snapshot, rec: &'a Recording) -> Replay<'a> {
        let shows_limit = !rec.ooms.is_empty()
            || snap.trace(rec.device).action.iter().any(|a| matches!(a, Action::SegmentFree | Action::SegmentUnmap));
        let limit = Limit { bytes: shows_limit.then_some(rec.peak_reserved), per_process: true };
        Self::self_check_with(snap, rec, limit)
    }

    /// The self-check under a given limit (garbage collection depends on the cap's value).
    pub fn self_check_with(snap: &'a Snapshot, rec: &'a Recording, limit: Limit) -> Replay<'a> {
        let mut r = Self::predict(snap, rec, rec.settings.clone(), limit, Vec::new());
        r.run.check = Some(Check { recorded_reserved: rec.initial_reserved, ..Check::default() });
        r
    }

    /// A prediction under `settings` and `limit`; `empty_cache_at` from the
    /// self-check's [`Outcome::empty_cache_at`].
    pub fn predict(
        snap: &'a Snapshot,
        rec: &'a Recording,
        settings: Settings,
        limit: Limit,
        empty_cache_at: Vec<usize>,
    ) -> Replay<'a> {
        let mut cache = Cache::new(settings.clone(), limit, rec.synthetic_base, DEFAULT_DEVICE_BYTES);
        let mut live = HashMap::new();
        for seg in &rec.initial {
            let ids = cache.add_segment(seg.stream, seg.pool, seg.small, seg.expandable, &seg.pieces);
            let addrs = seg.pieces.iter().filter_map(|p| match p {
                Piece::Block { addr, .. } => Some(*addr),
                Piece::Free { .. } => None,
            });
            live.extend(addrs.zip(ids));
        }
        let reserved = cache.reserved();
        let free = reserved - cache.allocated();
        let run = Paused {
            cache,
            pos: 0,
            check: None,
            empty_cache_at,
            next_empty: 0,
            live,
            out: Outcome {
                settings,
                limit,
                peak_reserved_bytes: reserved,
                free_at_peak_bytes: free,
                end_reserved_bytes: reserved,
                ..Outcome::default()
            },
            keep_series: false,
            keep_events: false,
            stop_at_oom: false,
        };
        Replay { rec, trace: snap.trace(rec.device), run }
    }

    /// Keep reserved bytes after every event ([`Outcome::series`]): the
    /// predicted curve to draw over the recorded one.
    pub fn keep_series(mut self) -> Self {
        self.run.keep_series = true;
        self.run.out.series.reserve(self.trace.len());
        self
    }

    /// Keep the model's device calls ([`Outcome::segment_events`]): to
    /// compare a prediction with a recording made under those settings.
    pub fn keep_events(mut self) -> Self {
        self.run.keep_events = true;
        self
    }

    /// End the replay at its first OOM (whether there is one is all a
    /// capacity search asks).
    pub fn stop_at_first_oom(mut self) -> Self {
        self.run.stop_at_oom = true;
        self
    }

    /// Events replayed so far, of [`Replay::len`].
    pub fn position(&self) -> usize {
        self.run.pos
    }
    pub fn len(&self) -> usize {
        self.trace.len()
    }
    pub fn is_empty(&self) -> bool {
        self.trace.is_empty()
    }
    /// The model as it stands.
    pub fn cache(&self) -> &Cache {
        &self.run.cache
    }

    /// Replays up to `budget` events; true when the trace is done.
    pub fn step(&mut self, budget: usize) -> bool {
        let end = (self.run.pos + budget).min(self.trace.len());
        while self.run.pos < end {
            let i = self.run.pos;
            self.event(i);
            self.run.pos += 1;
            let reserved = self.run.cache.reserved();
            if reserved > self.run.out.peak_reserved_bytes {
                self.run.out.peak_reserved_bytes = reserved;
                self.run.out.peak_event = Some(i);
                self.run.out.free_at_peak_bytes = reserved - self.run.cache.allocated();
            }
            if self.run.keep_series {
                self.run.out.series.push(reserved);
            }
            if self.run.stop_at_oom && self.run.out.any_oom() {
                self.run.pos = self.trace.len();
            }
        }
        self.run.pos >= self.trace.len()
    }

    /// Replays the rest and says what happened.
    pub fn finish(mut self) -> Outcome {
        while !self.step(1 << 16) {}
        if self.run.check.is_some() {
            self.flush_releases(self.trace.len());
        }
        self.run.out.end_reserved_bytes = self.run.cache.reserved();
        if let Some(c) = self.run.check.take() {
            let exact = c.first.is_none();
            self.run.out.check =
                Some(SelfCheck { events: c.events, matched: c.matched, exact, first_divergence: c.first });
        }
        self.run.out
    }

    fn event(&mut self, i: usize) {
        let t = self.trace;
        let action = t.action[i];
        if self.run.check.is_none() {
            while self.run.empty_cache_at.get(self.run.next_empty) == Some(&i) {
                self.run.cache.release_cached();
                self.run.next_empty += 1;
                if self.run.keep_events {
                    self.run.out.segment_events.extend(self.run.cache.events.iter().map(|e| (i, *e)));
                }
                self.run.cache.events.clear();
            }
        }
        let addr = t.addr_lo[i];
        let size = t.size[i];
        let stream = t.stream[i];
        match action {
            Action::SegmentAlloc | Action::SegmentFree | Action::SegmentMap | Action::SegmentUnmap => {
                if let Some(c) = self.run.check.as_mut() {
                    let a = match action {
                        Action::SegmentAlloc => SegmentAction::Alloc,
                        Action::SegmentFree => SegmentAction::Free,
                        Action::SegmentMap => SegmentAction::Map,
                        _ => SegmentAction::Unmap,
                    };
                    c.pending.push((a, addr, size, i));
                }
            }
            Action::Alloc => {
                let pool = self.rec.private_pool(addr);
                self.before_request(i, size, stream, pool);
                let b = match self.run.cache.malloc(size, stream, pool) {
                    Ok(b) => b,
                    Err(oom) => {
                        self.run.out.ooms.push(ReplayOom {
                            event: i,
                            recorded: false,
                            happens: true,
                            request_bytes: oom.size,
                            reserved_bytes: oom.reserved,
                            largest_free_bytes: oom.largest_free,
                        });
                        self.diverge(i, "alloc served".into(), format!("OOM for {}", format_size(oom.size, false)));
                        self.run.cache.malloc_unlimited(size, stream, pool)
                    }
                };
                self.after_request(i);
                if let Some(c) = self.run.check.as_mut() {
                    c.events += 1;
                    let at = self.run.cache.block_addr(b);
                    if at == addr {
                        c.matched += 1;
                    } else {
                        let rec = format!("block at {addr:#x}");
                        let model = format!("block at {at:#x}");
                        self.diverge(i, rec, model);
                    }
                }
                self.run.live.insert(addr, b);
            }
            Action::Oom => {
                let pool = None;
                self.before_request(i, size, stream, pool);
                let (happens, reserved, largest) = match self.run.cache.malloc(size, stream, pool) {
                    Ok(b) => {
                        let r = (false, self.run.cache.reserved(), self.run.cache.largest_free());
                        self.run.cache.free(b);
                        r
                    }
                    Err(oom) => (true, oom.reserved, oom.largest_free),
                };
                self.run.out.ooms.push(ReplayOom {
                    event: i,
                    recorded: true,
                    happens,
                    request_bytes: self.run.cache.round_size(size),
                    reserved_bytes: reserved,
                    largest_free_bytes: largest,
                });
                self.after_request(i);
                if let Some(c) = self.run.check.as_mut() {
                    c.events += 1;
                    if happens {
                        c.matched += 1;
                    } else {
                        self.diverge(i, "oom".into(), "request served".into());
                    }
                }
            }
            Action::FreeCompleted | Action::Free => {
                if self.run.check.is_some() {
                    self.flush_releases(i);
                }
                if let Some(b) = self.run.live.remove(&addr) {
                    self.run.cache.free(b);
                }
            }
            _ => {
                if self.run.check.is_some() {
                    self.flush_releases(i);
                }
            }
        }
    }

    fn diverge(&mut self, i: usize, recorded: String, model: String) {
        if let Some(c) = self.run.check.as_mut() {
            if c.first.is_none() {
                c.first = Some(Divergence { event: i, recorded, model });
            }
        }
    }

    /// Self-check, before a request: releases the trace shows before it that
    /// the model would not make for it were the program's `empty_cache()`.
    fn before_request(&mut self, i: usize, size: u64, stream: u32, pool: PoolId) {
        let Some(c) = self.run.check.as_ref() else {
            return;
        };
        let releases = c.pending.iter().any(|p| !p.0.grows());
        if releases && !self.run.cache.would_release(size, stream, pool) {
            self.flush_releases(i);
        }
        let c = self.run.check.as_ref().expect("self-check");
        self.run.cache.set_hints(c.pending.iter().map(|p| (p.0, p.1, p.2)));
    }

    /// Self-check, after a request: the model's device calls against the
    /// recorded ones since the last request.
    fn after_request(&mut self, i: usize) {
        let Some(c) = self.run.check.as_mut() else {
            if self.run.keep_events {
                self.run.out.segment_events.extend(self.run.cache.events.iter().map(|e| (i, *e)));
            }
            self.run.cache.events.clear();
            self.run.cache.refusals.clear();
            return;
        };
        self.run.out.refused_at.append(&mut self.run.cache.refusals);
        if c.pending.is_empty() && self.run.cache.events.is_empty() {
            return;
        }
        // The buffers go back, cleared, so that a request costs no allocation.
        let mut pending = std::mem::take(&mut c.pending);
        let made = std::mem::take(&mut self.run.cache.events);
        self.compare(&pending, &made, i);
        pending.clear();
        self.run.check.as_mut().expect("self-check").pending = pending;
        self.run.cache.events = made;
        self.run.cache.events.clear();
    }

    /// Self-check: recorded releases not followed by a request that explains
    /// them are an `empty_cache()` call: the model makes one and compares.
    fn flush_releases(&mut self, i: usize) {
        let Some(c) = self.run.check.as_mut() else {
            return;
        };
        if c.pending.is_empty() {
            return;
        }
        let split = c.pending.iter().position(|p| p.0.grows()).unwrap_or(c.pending.len());
        let rest = c.pending.split_off(split);
        let releases = std::mem::replace(&mut c.pending, rest);
        if !releases.is_empty() {
            self.run.out.empty_cache_at.push(releases[0].3);
            self.run.cache.events.clear();
            self.run.cache.release_cached();
            let made = std::mem::take(&mut self.run.cache.events);
            self.compare(&releases, &made, releases[0].3);
        }
        // Growth the trace shows with no request after it: the model made none.
        let c = self.run.check.as_mut().expect("self-check");
        if !c.pending.is_empty() && i >= self.trace.len() {
            let rest = std::mem::take(&mut c.pending);
            self.compare(&rest, &[], i.saturating_sub(1));
        }
    }

    fn compare(&mut self, recorded: &[(SegmentAction, u64, u64, usize)], made: &[SegmentEvent], at: usize) {
        let c = self.run.check.as_mut().expect("self-check");
        c.events += recorded.len();
        for p in recorded {
            c.recorded_reserved =
                if p.0.grows() { c.recorded_reserved + p.2 } else { c.recorded_reserved.saturating_sub(p.2) };
        }
        let mut first = None;
        for k in 0..recorded.len().max(made.len()) {
            let r = recorded.get(k);
            let m = made.get(k);
            let same = matches!((r, m), (Some(r), Some(m)) if r.0 == m.action && r.1 == m.addr && r.2 == m.size);
            if same {
                c.matched += 1;
            } else if first.is_none() {
                let event = r.map(|r| r.3).unwrap_or(at);
                let rs = r.map(|r| describe(r.0, r.1, r.2)).unwrap_or_else(|| "nothing".into());
                let ms = m.map(|m| describe(m.action, m.addr, m.size)).unwrap_or_else(|| "nothing".into());
                first = Some((event, rs, ms));
            }
        }
        if let Some((event, rs, ms)) = first {
            self.diverge(event, rs, ms);
        }
    }
}

/// A [`Replay`] between two steps, holding nothing borrowed: the page keeps
/// one across frames, while the snapshot it replays lives in a list of open
/// files that may move ([`Replay::pause`], [`Paused::resume`]).
pub struct Paused {
    cache: Cache,
    pos: usize,
    check: Option<Check>,
    /// Predictions: where the program called `empty_cache()`, ascending.
    empty_cache_at: Vec<usize>,
    next_empty: usize,
    /// Recorded block address -> the model's block.
    live: HashMap<u64, u32>,
    out: Outcome,
    keep_series: bool,
    keep_events: bool,
    /// Stop at the first OOM (a capacity search needs no more).
    stop_at_oom: bool,
}

impl<'a> Replay<'a> {
    /// The replay without its borrows, to go on later with [`Paused::resume`].
    pub fn pause(self) -> Paused {
        self.run
    }
}

impl Paused {
    /// Goes on with the replay; `snap` and `rec` must be the ones it started with.
    pub fn resume<'a>(self, snap: &'a Snapshot, rec: &'a Recording) -> Replay<'a> {
        Replay { rec, trace: snap.trace(rec.device), run: self }
    }

    /// Events replayed so far.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Recording {
    /// Reserved bytes after each event of the recorded trace (segment events
    /// add and take away what they map), from the reserved memory at its
    /// first event: the recorded curve the page draws a prediction against.
    pub fn reserved_series(&self, snap: &Snapshot) -> Vec<u64> {
        let trace = snap.trace(self.device);
        let mut reserved = self.initial_reserved;
        (0..trace.len())
            .map(|i| {
                match trace.action[i] {
                    Action::SegmentAlloc | Action::SegmentMap => reserved += trace.size[i],
                    Action::SegmentFree | Action::SegmentUnmap => reserved = reserved.saturating_sub(trace.size[i]),
                    _ => {}
                }
                reserved
            })
            .collect()
    }
}
