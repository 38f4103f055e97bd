//! Opening a file decoded elsewhere (the page's worker: `Decoder` in
//! memviz-wasm) from the model's wire form, as www/app.js does it: the model,
//! the replay (in steps, or in one go), then the address versions after the
//! file opens (sent by the worker, or computed here).
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
    // whole or in the worker's chunks (pulled one at a time, or given one
    // call each as the page does); the replay in steps (as the page runs
    // it) or in one go by adopt_finish. The file opens and draws before its
    // address versions; they come after (in pieces, as the page reads the
    // worker's), never (computed here when first needed), or after a
    // search needed them (computed here; the pieces are then ignored).
    // Meanwhile a band's text names its address without the version.
    #[derive(PartialEq, Clone, Copy)]
    enum Versions {
        After,
        Never,
        AfterASearch,
    }
    let mut pieces = Vec::new();
    versions::compute(&snap).wire_chunks_of(1000, |c| pieces.push(c));
    assert!(pieces.len() > snap.trace(0).len() * 4 / 1000, "{}", pieces.len());
    for (model, replay_in_steps, versions) in [
        ("whole", false, Versions::After),
        ("pulled", true, Versions::Never),
        ("given", true, Versions::After),
        ("given", false, Versions::AfterASearch),
    ] {
        let mut v = Viewer::new();
        v.open("small_train_step.pickle", &bytes("small_train_step.pickle")).unwrap();
        let mut chunks = Vec::new();
        snap.wire_chunks(|c| chunks.push(c));
        assert!(chunks.len() > 5, "{}", chunks.len());
        match model {
            "whole" => v.adopt(FULLSTEP, &wire).unwrap(),
            "pulled" => {
                let mut it = chunks.into_iter();
                v.adopt_chunks(FULLSTEP, &mut || it.next()).unwrap();
                assert_eq!(it.next(), None, "every chunk read");
            }
            _ => {
                v.adopt_begin(FULLSTEP);
                for c in &chunks {
                    v.adopt_chunk(c).unwrap();
                }
                v.adopt_end().unwrap();
            }
        }
        if replay_in_steps {
            let mut steps = 1;
            while !v.adopt_replay(1000).unwrap() {
                steps += 1;
            }
            assert!(steps > snap.trace(0).len() / 1000, "{steps} steps");
        }
        assert_eq!(v.file_names(), ["small_train_step.pickle"]);
        assert_eq!(v.adopt_finish().unwrap(), 1);
        assert_eq!(v.current_file(), 1);
        let got: Value = serde_json::from_str(&v.summary_json()).unwrap();
        assert_eq!(got, want);
        assert_eq!(v.render_plot(1200, 500).map(|f| f.bands_drawn), plot);
        assert!(v.plot_image().rgba == pixels, "the same pixels");
        // Neither the first draw nor the summary needed the versions; a
        // band's text does not wait for them.
        assert!(!v.has_versions(1), "{model}: versions computed before they came");
        let t = v.element_text(0);
        let (addr, rest) = texts[0].split_once(", Size").unwrap();
        let unversioned = addr.rsplit_once('_').unwrap().0;
        assert_eq!(t, format!("{unversioned}_…, Size{rest}"), "{model}");
        assert!(!v.has_versions(1), "{model}: a text waited for the versions");
        v.prepare_hover();
        assert!(!v.has_versions(1), "{model}: versions computed at idle while they come");
        match versions {
            Versions::After => {
                // The state history waits for them (the page calls again a
                // frame later) rather than compute them in one call.
                assert_eq!(v.prepare_view_step(3, 1000), 0.0);
                assert!(!v.has_versions(1), "{model}: the state history computed them");
                for p in &pieces {
                    v.versions_chunk(1, p).unwrap();
                }
                assert!(!v.has_versions(1), "{model}: versions known before their end");
                v.versions_end(1).unwrap();
                assert!(v.has_versions(1));
                assert!(v.prepare_view_step(3, 1000) > 0.0, "{model}: then it is built");
            }
            Versions::Never => v.versions_lost(1),
            Versions::AfterASearch => {
                assert_eq!(v.search("address", "_"), v.element_count());
                assert!(v.has_versions(1), "the search computed them");
                // Pieces of another file, once known: ignored.
                let other = memviz_core::load(&bytes("small_train_step.pickle")).unwrap();
                v.versions_chunk(1, &versions::compute(&other).to_wire()).unwrap();
                v.versions_end(1).unwrap();
            }
        }
        let got: Vec<String> = (0..v.element_count()).map(|e| v.element_text(e)).collect();
        assert!(got == texts, "{model}: the same element texts (address versions)");
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
    assert!(e.message.starts_with("cut.pickle: ") && e.message.contains("byte offset"), "{e}");
    assert!(v.adopt_finish().is_err());
    let snap: Snapshot = memviz_core::load(&bytes(FULLSTEP)).unwrap();
    // Chunks cut short: the error names the file; nothing changes.
    let mut chunks = Vec::new();
    snap.wire_chunks(|c| chunks.push(c));
    chunks.truncate(chunks.len() / 2);
    v.adopt_begin("half.pickle");
    for c in &chunks {
        v.adopt_chunk(c).unwrap();
    }
    let e = v.adopt_end().unwrap_err();
    assert!(e.message.starts_with("half.pickle: ") && e.message.contains("byte offset"), "{e}");
    assert!(v.adopt_finish().is_err());
    let mut it = chunks.into_iter();
    let e = v.adopt_chunks("half.pickle", &mut || it.next()).unwrap_err();
    assert!(e.message.starts_with("half.pickle: ") && e.message.contains("byte offset"), "{e}");
    assert!(v.adopt_finish().is_err());
    // A chunk cut: the error comes with that chunk.
    let mut chunks = Vec::new();
    snap.wire_chunks(|c| chunks.push(c));
    v.adopt_begin("cut.pickle");
    v.adopt_chunk(&chunks[0]).unwrap();
    let e = v.adopt_chunk(&chunks[1][..chunks[1].len() - 1]).unwrap_err();
    assert!(e.message.starts_with("cut.pickle: ") && e.message.contains("byte offset"), "{e}");
    assert!(v.adopt_chunk(&chunks[2]).is_err() && v.adopt_finish().is_err());
    assert_eq!(v.file_names(), ["small_train_step.pickle"]);
}

/// Address versions from elsewhere that are wrong (another file's, cut
/// short, or for no such file): the error names the file, and the versions
/// shown are computed here, the same as an opened file's.
#[test]
fn bad_versions_name_the_file_and_are_computed_here() {
    let raw = bytes(FULLSTEP);
    let snap: Snapshot = memviz_core::load(&raw).unwrap();
    let mut opened = Viewer::new();
    opened.open(FULLSTEP, &raw).unwrap();
    let texts: Vec<String> = (0..opened.element_count()).map(|e| opened.element_text(e)).collect();
    let other = memviz_core::load(&bytes("small_train_step.pickle")).unwrap();
    let mut pieces = Vec::new();
    versions::compute(&snap).wire_chunks_of(1000, |c| pieces.push(c));
    for what in ["another file's", "cut short", "after their end"] {
        let mut v = Viewer::new();
        v.adopt(FULLSTEP, &snap.to_wire()).unwrap();
        assert_eq!(v.adopt_finish().unwrap(), 0);
        let e = match what {
            "another file's" => v.versions_chunk(0, &versions::compute(&other).to_wire()).unwrap_err(),
            "cut short" => {
                v.versions_chunk(0, &pieces[0]).unwrap();
                v.versions_end(0).unwrap_err()
            }
            _ => {
                v.versions_lost(0);
                v.versions_chunk(0, &pieces[0]).unwrap_err()
            }
        };
        assert!(e.message.starts_with(&format!("{FULLSTEP}: ")), "{what}: {e}");
        assert!(!v.has_versions(0), "{what}");
        // Computed here at idle now, as for a file opened here.
        v.prepare_hover();
        assert!(v.has_versions(0), "{what}");
        let got: Vec<String> = (0..v.element_count()).map(|e| v.element_text(e)).collect();
        assert!(got == texts, "{what}: the element texts of an opened file");
    }
    let mut v = Viewer::new();
    assert!(v.versions_chunk(3, &pieces[0]).unwrap_err().message.contains("no file 3"));
    assert!(v.versions_end(3).is_err());
}
