//! `memviz whatif`: the recorded trace replayed through memviz-allocator's
//! model under other allocator settings.

use memviz_allocator::WhatIf;

use crate::{api, load, pick_device, Opts};

pub(crate) fn run(file: &str, opts: &Opts) -> Result<(), String> {
    let snap = load(file)?;
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&api::whatif(&snap, file, opts)?).unwrap_or_default());
        return Ok(());
    }
    let device = pick_device(&snap, file, opts.device.as_deref())?;
    let capacity = opts.capacity.as_deref().map(parse_capacity).transpose()?;
    let w = WhatIf::new(&snap, device, capacity).map_err(|e| format!("{file}: {e}"))?;
    let mut settings = w.recording.settings.clone();
    for kv in &opts.sets {
        settings.set(kv).map_err(|e| format!("--set {e}"))?;
    }
    if opts.sweep {
        let ranked = w.sweep();
        {
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
    print!("{file}\n{}", w.to_text(&p));
    Ok(())
}

/// `--capacity`: memviz-core's size parser.
pub(crate) fn parse_capacity(text: &str) -> Result<u64, String> {
    memviz_core::format::parse_size("--capacity", text)
}
