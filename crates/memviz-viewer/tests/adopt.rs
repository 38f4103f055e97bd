//! Opening a file decoded elsewhere (the page's worker: `Decoder` in
//! memviz-wasm) from the model's wire form, as www/app.js does it: the model,
//! then the replay (in steps, or in one go) before or after the versions
//! (sent by the worker, or computed here).
//! The file shown is the one `open` shows: the numbers of
//! tests/reference/expected/ (Python's pickle) and the same pixels.

mod common;

use common::{bytes, expected, FULLSTEP};

use memviz_core::{versions, Snapshot};
use memviz_viewer::Viewer;
use serde_json::Value;

#[test]
fn an_adopted_file_shows_what_an_opened_one_shows() {
    let raw = bytes(FULLSTEP);
    let snap = memviz_core::load(&raw).unwrap();
    let wire = snap.to_wire();
    let vwire = versions::compute(&snap).to_wire();

    let mut opened = Viewer::new();
    opened.open(FULLSTEP, &raw).unwrap();
    let want: Value = serde_json::from_str(&opened.summary_json()).unwrap();
    let plot = opened.render_plot(1200, 500).map(|f| f.bands_drawn);
    let pixels = opened.plot_image().rgba.clone();
    // Each element's text names its address version ("b7f..._3").
    let texts: Vec<String> = (0..opened.element_count()).map(|e| opened.element_text(e)).collect();
    let reused = texts.iter().filter(|t| !t.contains("_0,")).count();
    assert!(reused > 100, "{reused} elements at a reused address");

    // A file already shown stays current until the last step; the model
    // whole or in the worker's chunks (pulled one at a time); the replay in
    // steps before the versions (as the page runs it, while its worker
    // computes them), after them, or in one go by adopt_finish.
    #[derive(PartialEq)]
    enum Replay {
        Before,
        After,
        InFinish,
    }
    for (with_versions, chunked, replay) in [
        (true, false, Replay::InFinish),
        (false, false, Replay::After),
        (true, true, Replay::Before),
        (true, true, Replay::After),
        (false, true, Replay::Before),
    ] {
        let mut v = Viewer::new();
        v.open("small_train_step.pickle", &bytes("small_train_step.pickle")).unwrap();
        if chunked {
            let mut chunks = Vec::new();
            snap.wire_chunks(|c| chunks.push(c));
            assert!(chunks.len() > 5, "{}", chunks.len());
            if with_versions {
                // Pulled one at a time.
                let mut it = chunks.into_iter();
                v.adopt_chunks(FULLSTEP, &mut || it.next()).unwrap();
                assert_eq!(it.next(), None, "every chunk read");
            } else {
                // Given one call each, as the page does.
                v.adopt_begin(FULLSTEP);
                for c in &chunks {
                    v.adopt_chunk(c).unwrap();
                }
                v.adopt_end().unwrap();
            }
        } else {
            v.adopt(FULLSTEP, &wire).unwrap();
        }
        let replay_in_steps = |v: &mut Viewer| {
            let mut steps = 1;
            while !v.adopt_replay(1000).unwrap() {
                steps += 1;
            }
            assert!(steps > snap.trace(0).len() / 1000, "{steps} steps");
        };
        if replay == Replay::Before {
            replay_in_steps(&mut v);
        }
        if with_versions && chunked {
            // In pieces, one call each, as the page reads the worker's.
            let mut pieces = Vec::new();
            versions::compute(&snap).wire_chunks_of(1000, |c| pieces.push(c));
            assert!(pieces.len() > snap.trace(0).len() * 4 / 1000, "{}", pieces.len());
            for p in &pieces {
                v.adopt_versions_chunk(p).unwrap();
            }
            v.adopt_versions_end().unwrap();
        } else if with_versions {
            v.adopt_versions_from(&vwire).unwrap();
        } else {
            v.adopt_versions();
        }
        if replay == Replay::After {
            replay_in_steps(&mut v);
        }
        assert_eq!(v.file_names(), ["small_train_step.pickle"]);
        assert_eq!(v.adopt_finish().unwrap(), 1);
        assert_eq!(v.current_file(), 1);
        let got: Value = serde_json::from_str(&v.summary_json()).unwrap();
        assert_eq!(got, want);
        assert_eq!(v.render_plot(1200, 500).map(|f| f.bands_drawn), plot);
        assert!(v.plot_image().rgba == pixels, "the same pixels");
        let got: Vec<String> = (0..v.element_count()).map(|e| v.element_text(e)).collect();
        assert!(got == texts, "the same element texts (address versions)");
    }
    // Against Python's numbers.
    let dev = &expected(FULLSTEP)["summary"]["devices"]["0"];
    assert_eq!(want["trace_events"], dev["trace_events"]);
    assert_eq!(want["timeline"]["peak_bytes"], dev["active_memory"]["peak_bytes"]);
    assert_eq!(want["timeline"]["elements"], dev["active_memory"]["elements"]);
}

#[test]
fn bad_wire_bytes_name_the_file_and_change_nothing() {
    let mut v = Viewer::new();
    v.open("small_train_step.pickle", &bytes("small_train_step.pickle")).unwrap();
    let e = v.adopt("cut.pickle", b"MVZWIRE\0\x01\0\0\0\xff").unwrap_err();
    assert!(e.starts_with("cut.pickle: ") && e.contains("byte offset"), "{e}");
    assert!(v.adopt_finish().is_err());
    // Versions of another file.
    let snap: Snapshot = memviz_core::load(&bytes(FULLSTEP)).unwrap();
    v.adopt(FULLSTEP, &snap.to_wire()).unwrap();
    let other = memviz_core::load(&bytes("small_train_step.pickle")).unwrap();
    let e = v.adopt_versions_from(&versions::compute(&other).to_wire()).unwrap_err();
    assert!(e.starts_with(&format!("{FULLSTEP}: ")), "{e}");
    // Versions in pieces, of another file or cut short: the same, after
    // the first timeline's replay too.
    v.adopt(FULLSTEP, &snap.to_wire()).unwrap();
    while !v.adopt_replay(1000).unwrap() {}
    let e = v.adopt_versions_chunk(&versions::compute(&other).to_wire()).unwrap_err();
    assert!(e.starts_with(&format!("{FULLSTEP}: ")) && e.contains("a column of"), "{e}");
    assert!(v.adopt_finish().is_err(), "the file was dropped");
    v.adopt(FULLSTEP, &snap.to_wire()).unwrap();
    let mut pieces = Vec::new();
    versions::compute(&snap).wire_chunks_of(1000, |c| pieces.push(c));
    v.adopt_versions_chunk(&pieces[0]).unwrap();
    let e = v.adopt_versions_end().unwrap_err();
    assert!(e.starts_with(&format!("{FULLSTEP}: ")) && e.contains("before the versions do"), "{e}");
    assert!(v.adopt_finish().is_err(), "the file was dropped");
    assert_eq!(v.file_names(), ["small_train_step.pickle"]);
    // Chunks cut short: the error names the file; nothing changes.
    let mut chunks = Vec::new();
    snap.wire_chunks(|c| chunks.push(c));
    chunks.truncate(chunks.len() / 2);
    v.adopt_begin("half.pickle");
    for c in &chunks {
        v.adopt_chunk(c).unwrap();
    }
    let e = v.adopt_end().unwrap_err();
    assert!(e.starts_with("half.pickle: ") && e.contains("byte offset"), "{e}");
    assert!(v.adopt_finish().is_err());
    let mut it = chunks.into_iter();
    let e = v.adopt_chunks("half.pickle", &mut || it.next()).unwrap_err();
    assert!(e.starts_with("half.pickle: ") && e.contains("byte offset"), "{e}");
    assert!(v.adopt_finish().is_err());
    // A chunk cut: the error comes with that chunk.
    let mut chunks = Vec::new();
    snap.wire_chunks(|c| chunks.push(c));
    v.adopt_begin("cut.pickle");
    v.adopt_chunk(&chunks[0]).unwrap();
    let e = v.adopt_chunk(&chunks[1][..chunks[1].len() - 1]).unwrap_err();
    assert!(e.starts_with("cut.pickle: ") && e.contains("byte offset"), "{e}");
    assert!(v.adopt_chunk(&chunks[2]).is_err() && v.adopt_finish().is_err());
    assert_eq!(v.file_names(), ["small_train_step.pickle"]);
}
