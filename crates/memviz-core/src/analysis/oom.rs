//! Every `oom` event and the peak, explained: what was asked for, what the
//! device and the caching allocator had, who held the memory, and advice
//! where (and only where) the numbers show a cause.
//!
//! Advice rules ([`advise`] is the one place they live):
//!
//! * `too_large` (OOM): the request alone exceeds reserved + device_free,
//!   all the memory this process could have had: no allocator setting helps.
//! * `fragmentation` (OOM): the free pieces inside reserved segments that
//!   this request could use (same stream; small pool for requests up to
//!   1 MiB, large pool above) add up to the request, but no single piece is
//!   large enough: `expandable_segments:True`, or `max_split_size_mb`.
//! * `live_tensors` (OOM, not `too_large`): live bytes + request exceed
//!   reserved + device_free: even a perfect allocator could not fit it;
//!   what is alive must shrink (the largest kinds are named).
//! * `caching`: at an OOM, reserved − allocated + device_free would hold the
//!   request although the usable pieces do not (the cache sits on other
//!   streams or pools, or in rounding); at the peak, reserved exceeds
//!   allocated by at least a fifth.
//!
//! A segment of exactly 2 MiB is taken to be a small-pool segment (PyTorch's
//! kSmallBuffer); every other size a large-pool one.

use serde::Serialize;

use super::{free_space, Analysis, At, FreeSpace, Group, GroupBy, Moment, StateTotals};
use crate::format::format_size;
use crate::model::Snapshot;
use crate::state::{Cursor, StateHistory};

/// PyTorch's kSmallSize: requests up to this go to the small pool.
const SMALL_REQUEST: u64 = 1 << 20;
/// PyTorch's kSmallBuffer: the size of every small-pool segment.
const SMALL_SEGMENT: u64 = 2 << 20;
/// The peak's `caching` advice: reserved − allocated at least this share of
/// reserved.
const CACHING_SHARE: f64 = 0.2;
/// Groups listed per grouping.
const TOP: usize = 5;

/// What an `oom` event asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Request {
    pub bytes: u64,
    pub stream: u32,
    /// The `device_free` the event recorded (memory_viz: "Device has … free").
    pub device_free_bytes: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AdviceKind {
    TooLarge,
    Fragmentation,
    LiveTensors,
    Caching,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Advice {
    pub kind: AdviceKind,
    pub text: String,
}

/// One OOM, or the peak, explained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// `oom` or `peak`.
    pub what: &'static str,
    pub device: u32,
    pub at: At,
    pub time_us: Option<i64>,
    /// `None` for the peak.
    pub request: Option<Request>,
    pub totals: StateTotals,
    /// Free pieces this request could have used (same stream and pool).
    pub usable: Option<FreeSpace>,
    /// reserved + device_free: the most this process could have held.
    pub device_limit_bytes: Option<u64>,
    pub by_category: Vec<Group>,
    pub by_stack: Vec<Group>,
    pub by_user_frame: Vec<Group>,
    pub advice: Vec<Advice>,
}

fn size(b: u64) -> String {
    format_size(b, false)
}

/// The advice rules of the module doc.
pub fn advise(
    request: Option<&Request>,
    totals: &StateTotals,
    usable: Option<&FreeSpace>,
    by_category: &[Group],
) -> Vec<Advice> {
    let mut out = Vec::new();
    let gap = totals.reserved_bytes.saturating_sub(totals.allocated_bytes);
    let Some(r) = request else {
        if totals.reserved_bytes > 0 && gap as f64 >= CACHING_SHARE * totals.reserved_bytes as f64 {
            out.push(Advice {
                kind: AdviceKind::Caching,
                text: format!(
                    "reserved {} is {} ({:.0}%) above the live bytes {}: the caching allocator holds it ({} free in {} pieces, the largest {}). expandable_segments:True lets freed memory be reused across segments; torch.cuda.empty_cache() returns whole unused segments.",
                    size(totals.reserved_bytes),
                    size(gap),
                    gap as f64 * 100.0 / totals.reserved_bytes as f64,
                    size(totals.allocated_bytes),
                    size(totals.free_bytes),
                    totals.free_pieces,
                    size(totals.largest_free_bytes)
                ),
            });
        }
        return out;
    };
    let limit = r.device_free_bytes.map(|f| totals.reserved_bytes.saturating_add(f));
    let too_large = limit.is_some_and(|l| r.bytes > l);
    if let (true, Some(l)) = (too_large, limit) {
        out.push(Advice {
            kind: AdviceKind::TooLarge,
            text: format!(
                "this one allocation ({}) is larger than all the memory this process could have had ({} reserved + {} free on the device = {}): no allocator setting helps; make the tensor smaller (batch size, sequence length, dtype) or split it.",
                size(r.bytes),
                size(totals.reserved_bytes),
                size(r.device_free_bytes.unwrap_or(0)),
                size(l)
            ),
        });
    }
    let fragmented = usable.is_some_and(|u| u.bytes >= r.bytes && u.largest < r.bytes);
    if let (true, Some(u)) = (fragmented, usable) {
        out.push(Advice {
            kind: AdviceKind::Fragmentation,
            text: format!(
                "fragmentation: {} is free inside reserved segments this request could use, in {} pieces, but the largest is {} < the request {}. Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (or max_split_size_mb, so that blocks above it are never split).",
                size(u.bytes),
                u.pieces,
                format_size(u.largest, true),
                format_size(r.bytes, true)
            ),
        });
    }
    if let (false, Some(l)) = (too_large, limit) {
        if totals.allocated_bytes.saturating_add(r.bytes) > l {
            let kinds: Vec<String> =
                by_category.iter().take(3).map(|g| format!("{} {}", g.key, size(g.bytes))).collect();
            out.push(Advice {
                kind: AdviceKind::LiveTensors,
                text: format!(
                    "live tensors ({}) + this request ({}) exceed all the memory this process could have had ({}): no allocator setting makes it fit; reduce what is alive (largest: {}).",
                    size(totals.allocated_bytes),
                    size(r.bytes),
                    size(l),
                    kinds.join(", ")
                ),
            });
        } else if !fragmented && gap.saturating_add(r.device_free_bytes.unwrap_or(0)) >= r.bytes {
            out.push(Advice {
                kind: AdviceKind::Caching,
                text: format!(
                    "reserved − allocated = {} is held by the caching allocator where this request cannot use it (other streams or pools, rounding); with it the request would fit. expandable_segments:True, or torch.cuda.empty_cache() before this step.",
                    size(gap)
                ),
            });
        }
    }
    out
}

impl Analysis {
    /// The OOM or peak at `moment` explained (`Moment::Oom(k)` gives the
    /// request; any other moment is explained like the peak).
    pub fn explain(
        &self,
        snap: &Snapshot,
        h: &StateHistory,
        cursor: &mut Cursor,
        moment: Moment,
    ) -> Result<Explanation, String> {
        let at = self.resolve(moment)?;
        let trace = snap.trace(self.device);
        let request = match moment {
            Moment::Oom(_) => at.event.map(|i| Request {
                bytes: trace.size[i as usize],
                stream: trace.stream[i as usize],
                device_free_bytes: snap.extra(self.device, i as usize).and_then(|x| x.device_free),
            }),
            _ => None,
        };
        let totals = self.state_totals(snap, h, cursor, &at);
        let usable = request.map(|r| {
            free_space(h, snap, cursor, |seg_size, stream| {
                stream == r.stream && ((seg_size == SMALL_SEGMENT) == (r.bytes <= SMALL_REQUEST))
            })
        });
        let live = self.live(at.position);
        let top = |by| {
            let mut g = self.groups(&live, by);
            g.truncate(TOP);
            g
        };
        let by_category = self.groups(&live, GroupBy::Category);
        let advice = advise(request.as_ref(), &totals, usable.as_ref(), &by_category);
        Ok(Explanation {
            what: if request.is_some() { "oom" } else { "peak" },
            device: self.device,
            at,
            time_us: at.event.and_then(|i| trace.time_us(i as usize)),
            request,
            device_limit_bytes: request
                .and_then(|r| r.device_free_bytes)
                .map(|f| totals.reserved_bytes.saturating_add(f)),
            totals,
            usable,
            by_category,
            by_stack: top(GroupBy::Stack),
            by_user_frame: top(GroupBy::UserFrame),
            advice,
        })
    }

    /// Every OOM of the device, then the peak.
    pub fn explain_all(&self, snap: &Snapshot, h: &StateHistory) -> Vec<Explanation> {
        let mut cursor = h.cursor();
        let mut out: Vec<Explanation> = (0..self.oom_events.len() as u32)
            .filter_map(|k| self.explain(snap, h, &mut cursor, Moment::Oom(k)).ok())
            .collect();
        out.extend(self.explain(snap, h, &mut cursor, Moment::Peak).ok());
        out
    }
}

impl Explanation {
    /// Plain text for a terminal.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let t = &self.totals;
        let ev = self.at.event.map_or("before the first event".to_string(), |e| format!("event {e}"));
        match &self.request {
            Some(r) => {
                s.push_str(&format!("OOM on device {} at {ev}\n", self.device));
                s.push_str(&format!("  requested      {} on stream {}\n", size(r.bytes), r.stream));
                if let Some(f) = r.device_free_bytes {
                    s.push_str(&format!("  device free    {}\n", size(f)));
                }
            }
            None => s.push_str(&format!("Peak on device {}: {} at {ev}\n", self.device, size(t.allocated_bytes))),
        }
        s.push_str(&format!("  reserved       {}\n", size(t.reserved_bytes)));
        s.push_str(&format!("  allocated      {} (live tensors)\n", size(t.allocated_bytes)));
        s.push_str(&format!(
            "  cached free    {} (reserved − allocated); {} free in {} pieces, largest {}\n",
            size(t.gap_bytes),
            size(t.free_bytes),
            t.free_pieces,
            size(t.largest_free_bytes)
        ));
        if let Some(u) = &self.usable {
            s.push_str(&format!(
                "  usable for it  {} in {} pieces, largest {} (same stream and pool)\n",
                size(u.bytes),
                u.pieces,
                size(u.largest)
            ));
        }
        s.push_str("  held by kind\n");
        for g in &self.by_category {
            s.push_str(&format!("    {:>10}  {:<16} {} allocations\n", size(g.bytes), g.key, g.count));
        }
        s.push_str("  held by code (innermost user frame)\n");
        for g in &self.by_user_frame {
            s.push_str(&format!("    {:>10}  {}  ({} allocations)\n", size(g.bytes), g.key, g.count));
        }
        if self.advice.is_empty() {
            s.push_str("  advice         none: the numbers show no allocator problem\n");
        }
        for a in &self.advice {
            s.push_str(&format!("  advice         {}\n", a.text));
        }
        s
    }
}
