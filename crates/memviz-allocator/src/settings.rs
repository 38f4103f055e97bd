//! The allocator settings the model runs under, in PyTorch's own spelling
//! (`PYTORCH_CUDA_ALLOC_CONF` keys), read from a snapshot's
//! `allocator_settings` and overridden by `KEY:VALUE`.

use memviz_core::model::Plain;

/// 1 MiB: PyTorch's `max_split_size_mb` and `roundup_power2_divisions` keys count in these.
pub const MIB: u64 = 1 << 20;
/// `kLargeBuffer`: large-pool segments for 1-10 MiB requests, the large
/// pool's expandable page, and the default oversize reuse tolerance.
pub const LARGE_BUFFER: u64 = 20 * MIB;
/// `roundup_power2_divisions` has one entry per power of two from 1 MiB to
/// 32 GiB (`kRoundUpPowerOfTwoIntervals`).
pub const ROUNDUP_INTERVALS: usize = 16;

/// The settings that change what the caching allocator does with memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `max_split_size_mb` in bytes; `u64::MAX` when unset (PyTorch's
    /// `SIZE_MAX`): blocks at or above it are never split.
    pub max_split_size: u64,
    /// `max_non_split_rounding_mb` in bytes: an oversize cached block serves
    /// a request up to this much smaller than itself.
    pub max_non_split_rounding_size: u64,
    /// Divisions per power-of-two interval (index 0: below 2 MiB, index i:
    /// sizes in [2^(20+i), 2^(21+i)), the last one open); 0 or 1: 512 B rounding only.
    pub roundup_power2_divisions: [u64; ROUNDUP_INTERVALS],
    /// `garbage_collection_threshold` (0: off); acts only under a per-process cap.
    pub garbage_collection_threshold: f64,
    pub expandable_segments: bool,
    /// Bytes added to every request before rounding: 0 on CUDA; torch_npu's
    /// allocator adds 32 (no setting of PyTorch's: read from a recording's blocks).
    pub request_padding: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_split_size: u64::MAX,
            max_non_split_rounding_size: LARGE_BUFFER,
            roundup_power2_divisions: [0; ROUNDUP_INTERVALS],
            garbage_collection_threshold: 0.0,
            expandable_segments: false,
            request_padding: 0,
        }
    }
}

/// The keys [`Settings::set`] takes.
pub const KEYS: [&str; 5] = [
    "expandable_segments",
    "max_split_size_mb",
    "roundup_power2_divisions",
    "garbage_collection_threshold",
    "max_non_split_rounding_mb",
];

impl Settings {
    /// The settings a snapshot's `allocator_settings` records (PyTorch 2.1+:
    /// `max_split_size` in bytes or -1, `roundup_power2_divisions` as a dict
    /// from MiB to divisions or a list, `garbage_collection_threshold`,
    /// `expandable_segments`); defaults for what it lacks. Older files
    /// without the dict get the defaults.
    pub fn from_snapshot(settings: Option<&Plain>) -> Settings {
        let mut s = Settings::default();
        let Some(Plain::Map(kv)) = settings else {
            return s;
        };
        for (k, v) in kv {
            let Plain::Str(key) = k else { continue };
            match (key.as_str(), v) {
                ("max_split_size", Plain::Int(i)) if *i > 0 => s.max_split_size = *i as u64,
                ("max_non_split_rounding_size", Plain::Int(i)) if *i > 0 => s.max_non_split_rounding_size = *i as u64,
                ("garbage_collection_threshold", Plain::Float(f)) => s.garbage_collection_threshold = *f,
                ("garbage_collection_threshold", Plain::Int(i)) => s.garbage_collection_threshold = *i as f64,
                ("expandable_segments", Plain::Bool(b)) => s.expandable_segments = *b,
                ("roundup_power2_divisions", Plain::Map(m)) => {
                    for (mk, mv) in m {
                        let mib = match mk {
                            Plain::Str(t) => t.parse::<u64>().ok(),
                            Plain::Int(i) => u64::try_from(*i).ok(),
                            _ => None,
                        };
                        if let (Some(mib), Plain::Int(d)) = (mib, mv) {
                            if mib.is_power_of_two() && (mib.trailing_zeros() as usize) < ROUNDUP_INTERVALS {
                                s.roundup_power2_divisions[mib.trailing_zeros() as usize] = (*d).max(0) as u64;
                            }
                        }
                    }
                }
                ("roundup_power2_divisions", Plain::List(l)) => {
                    for (i, d) in l.iter().take(ROUNDUP_INTERVALS).enumerate() {
                        if let Plain::Int(d) = d {
                            s.roundup_power2_divisions[i] = (*d).max(0) as u64;
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }

    /// Applies `KEY:VALUE` as PyTorch parses it (`expandable_segments:True`,
    /// `max_split_size_mb:512`, `roundup_power2_divisions:4` or
    /// `roundup_power2_divisions:[256:1,512:2,>:8]`,
    /// `garbage_collection_threshold:0.8`); several may be joined by commas.
    pub fn set(&mut self, conf: &str) -> Result<(), String> {
        for item in split_conf(conf) {
            let (key, value) = item
                .split_once(':')
                .ok_or_else(|| format!("{item:?}: expected KEY:VALUE, KEY one of {}", KEYS.join(", ")))?;
            let (key, value) = (key.trim(), value.trim());
            let bad = |what: &str| format!("{key}:{value}: {what}");
            match key {
                "expandable_segments" => {
                    self.expandable_segments = match value {
                        "True" | "true" | "1" => true,
                        "False" | "false" | "0" => false,
                        _ => return Err(bad("expected True or False")),
                    }
                }
                "max_split_size_mb" | "max_non_split_rounding_mb" => {
                    let mb: u64 = value.parse().map_err(|_| bad("expected a whole number of MiB"))?;
                    if key == "max_split_size_mb" {
                        // PyTorch refuses 20 MiB and less (kLargeBuffer).
                        if mb <= LARGE_BUFFER / MIB {
                            return Err(bad("max_split_size_mb must be above 20"));
                        }
                        self.max_split_size = mb * MIB;
                    } else {
                        self.max_non_split_rounding_size = mb * MIB;
                    }
                }
                "garbage_collection_threshold" => {
                    let t: f64 = value.parse().map_err(|_| bad("expected a number between 0 and 1"))?;
                    if !(t > 0.0 && t < 1.0) {
                        return Err(bad("garbage_collection_threshold must be between 0.0 and 1.0, exclusive"));
                    }
                    self.garbage_collection_threshold = t;
                }
                "roundup_power2_divisions" => {
                    self.roundup_power2_divisions = parse_divisions(value).map_err(|e| bad(&e))?
                }
                _ => return Err(format!("unknown allocator setting {key:?}: one of {}", KEYS.join(", "))),
            }
        }
        Ok(())
    }

    /// Divisions that apply to a (rounded-to-512) request of `size` bytes
    /// (`CUDAAllocatorConfig::roundup_power2_divisions`).
    pub fn divisions_for(&self, size: u64) -> u64 {
        if size == 0 {
            return 0;
        }
        let log = 63 - size.leading_zeros() as usize;
        let index = log.saturating_sub(20).min(ROUNDUP_INTERVALS - 1);
        self.roundup_power2_divisions[index]
    }

    /// The settings as `PYTORCH_CUDA_ALLOC_CONF` would spell the ones that
    /// differ from PyTorch's defaults ("" when none do).
    pub fn conf_string(&self) -> String {
        let d = Settings::default();
        let mut parts = Vec::new();
        if self.expandable_segments {
            parts.push("expandable_segments:True".to_string());
        }
        if self.max_split_size != d.max_split_size {
            parts.push(format!("max_split_size_mb:{}", self.max_split_size / MIB));
        }
        if self.max_non_split_rounding_size != d.max_non_split_rounding_size {
            parts.push(format!("max_non_split_rounding_mb:{}", self.max_non_split_rounding_size / MIB));
        }
        if self.roundup_power2_divisions != d.roundup_power2_divisions {
            let first = self.roundup_power2_divisions[0];
            if self.roundup_power2_divisions.iter().all(|&v| v == first) {
                parts.push(format!("roundup_power2_divisions:{first}"));
            } else {
                let each: Vec<String> = self
                    .roundup_power2_divisions
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("{}:{v}", 1u64 << i))
                    .collect();
                parts.push(format!("roundup_power2_divisions:[{}]", each.join(",")));
            }
        }
        if self.garbage_collection_threshold > 0.0 {
            parts.push(format!("garbage_collection_threshold:{}", self.garbage_collection_threshold));
        }
        parts.join(",")
    }

    /// The effective settings as JSON (PyTorch's key names, `max_split_size_mb`
    /// null when unset).
    pub fn to_json(&self) -> serde_json::Value {
        let divisions: serde_json::Map<String, serde_json::Value> = self
            .roundup_power2_divisions
            .iter()
            .enumerate()
            .map(|(i, v)| ((1u64 << i).to_string(), (*v).into()))
            .collect();
        serde_json::json!({
            "expandable_segments": self.expandable_segments,
            "max_split_size_mb": (self.max_split_size != u64::MAX).then_some(self.max_split_size / MIB),
            "max_non_split_rounding_mb": self.max_non_split_rounding_size / MIB,
            "roundup_power2_divisions": divisions,
            "garbage_collection_threshold": self.garbage_collection_threshold,
        })
    }
}

/// Splits `a:1,b:[x:1,y:2]` at the commas outside brackets.
fn split_conf(conf: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in conf.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&conf[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&conf[start..]);
    out.into_iter().map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// `4` (every interval) or `[256:1,512:2,>:8]` (per interval in MiB, powers
/// of two; the first value also covers the intervals below it, `>` those above the last).
fn parse_divisions(value: &str) -> Result<[u64; ROUNDUP_INTERVALS], String> {
    let check = |d: u64| {
        if d == 0 || d == 1 || d.is_power_of_two() {
            Ok(d)
        } else {
            Err(format!("divisions must be a power of two, not {d}"))
        }
    };
    let mut out = [0; ROUNDUP_INTERVALS];
    let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) else {
        let d: u64 = value.parse().map_err(|_| "expected a number of divisions or [MiB:divisions,...]".to_string())?;
        return Ok([check(d)?; ROUNDUP_INTERVALS]);
    };
    let mut first = true;
    let mut last = 0;
    for pair in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once(':').ok_or_else(|| format!("{pair:?}: expected MiB:divisions"))?;
        let d = check(v.trim().parse().map_err(|_| format!("{pair:?}: expected MiB:divisions"))?)?;
        if k.trim() == ">" {
            for slot in out.iter_mut().skip(last + 1) {
                *slot = d;
            }
            continue;
        }
        let mib: u64 = k.trim().parse().map_err(|_| format!("{pair:?}: expected MiB:divisions"))?;
        if !mib.is_power_of_two() {
            return Err(format!("{pair:?}: the size must be a power of two MiB"));
        }
        let index = mib.trailing_zeros() as usize;
        if first {
            for slot in out.iter_mut().take(index.min(ROUNDUP_INTERVALS)) {
                *slot = d;
            }
            first = false;
        }
        if index < ROUNDUP_INTERVALS {
            out[index] = d;
        }
        last = index;
    }
    Ok(out)
}
