//! Loader (format sniffing, gzip, pickle machine, JSON, model builder) over
//! arbitrary bytes, whole and in the chunking the first byte picks: a bug
//! that only shows when an opcode is cut by a chunk boundary is found too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let whole = memviz_core::load(data);
    if let Some((&c, rest)) = data.split_first() {
        let size = 1 + (c as usize % 61);
        let mut loader = memviz_core::Loader::new();
        let mut chunked = Ok(());
        for piece in rest.chunks(size) {
            chunked = loader.feed(piece);
            if chunked.is_err() {
                break;
            }
        }
        let chunked = chunked.and_then(|_| loader.finish());
        // Streaming must not change the outcome (the same input, minus
        // the first byte, whole).
        let rest_whole = memviz_core::load(rest);
        match (&chunked, &rest_whole) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.segments, b.segments);
                assert_eq!(a.blocks, b.blocks);
                assert_eq!(
                    a.traces.iter().map(|t| t.len()).collect::<Vec<_>>(),
                    b.traces.iter().map(|t| t.len()).collect::<Vec<_>>()
                );
            }
            // In a gzip stream the chunking decides which of two faults
            // (corrupt deflate data, bad decompressed data) shows first.
            (Err(a), Err(b)) if !rest.starts_with(&[0x1f, 0x8b]) => assert_eq!(a.kind, b.kind, "{a} vs {b}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("chunked and whole disagree: {:?} vs {:?}", a.as_ref().err(), b.as_ref().err()),
        }
    }
    if let Ok(snap) = whole {
        // Touch what views will read.
        let _ = snap.devices();
        let _ = snap.default_device();
        for seg in &snap.segments {
            let _ = snap.segment_blocks(seg);
        }
    }
});
