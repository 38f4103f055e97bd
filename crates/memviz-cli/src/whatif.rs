//! `memviz whatif`: the recorded trace replayed through memviz-allocator's
//! model under other allocator settings.

use memviz_allocator::WhatIf;

use crate::{load, pick_device, Opts};

pub(crate) fn run(file: &str, opts: &Opts) -> Result<(), String> {
    let snap = load(file)?;
    let device = pick_device(&snap, file, opts.device.as_deref())?;
    let capacity = opts.capacity.as_deref().map(parse_bytes).transpose()?;
    let w = WhatIf::new(&snap, device, capacity).map_err(|e| format!("{file}: {e}"))?;
    let mut settings = w.recording.settings.clone();
    for kv in &opts.sets {
        settings.set(kv).map_err(|e| format!("--set {e}"))?;
    }
    if opts.sweep {
        let ranked = w.sweep();
        if opts.json {
            let list: Vec<_> = ranked.iter().map(|p| w.to_json(p)).collect();
            println!("{}", serde_json::to_string_pretty(&list).unwrap());
        } else {
            println!("{file}\n{}\n{}", w.self_check_line(), w.capacity_line());
            println!("ranked by peak reserved memory, those with no OOM first:");
            for (k, p) in ranked.iter().enumerate() {
                let o = &p.outcome;
                let recorded_ooms = o.ooms.iter().filter(|o| o.recorded && o.happens).count();
                println!(
                    "{:>2}. {:<36} peak {:>9}  end {:>9}  needs {:>9}  recorded OOMs still: {}  new OOMs: {}",
                    k + 1,
                    memviz_allocator::whatif::conf_name(&p.settings),
                    memviz_core::format::format_size(o.peak_reserved_bytes, false),
                    memviz_core::format::format_size(o.end_reserved_bytes, false),
                    memviz_core::format::format_size(p.min_capacity_bytes, false),
                    recorded_ooms,
                    o.new_ooms().count()
                );
            }
            println!("{}", memviz_allocator::ASSUMPTION);
        }
        return Ok(());
    }
    let p = w.predict(settings);
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&w.to_json(&p)).unwrap());
    } else {
        print!("{file}\n{}", w.to_text(&p));
    }
    Ok(())
}

/// `80GiB`, `2.3GiB`, `512MiB`, `1e9`, `3221225472`: bytes.
pub(crate) fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" | "K" => 1 << 10,
        "MiB" | "M" => 1 << 20,
        "GiB" | "G" => 1 << 30,
        "TiB" | "T" => 1 << 40,
        "KB" => 1000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        u => return Err(format!("--capacity {text:?}: unknown unit {u:?} (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)")),
    };
    let n: f64 =
        num.trim().parse().map_err(|_| format!("--capacity {text:?}: expected a number of bytes or e.g. 80GiB"))?;
    if !(n.is_finite() && n > 0.0) {
        return Err(format!("--capacity {text:?}: must be a positive size"));
    }
    Ok((n * scale as f64) as u64)
}
