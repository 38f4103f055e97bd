//! The read of a file (the worker's and the page's) in headless Chromium
//! (wasm-bindgen-test; scripts/test-web.sh): every byte in order through
//! either reader, and the page's built-in example, a real recording
//! (crates/memviz-wasm/example/README.md), read through a "byob" reader and,
//! where the stream has none, a plain one. The expected numbers are what
//! tests/reference/memviz_reference.py (Python's pickle module) reads in it.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Uint8Array};
use memviz_viewer::Decoder;
use memviz_viewer::{CHUNK, FEED};
use memviz_worker::{feed_decoder, read, Read};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const EXAMPLE: &[u8] = include_bytes!("../../memviz-wasm/example/resnet50_no_zero_grad.pickle.gz");

#[wasm_bindgen(inline_js = "export function without_byob(file) {
  const stream = file.stream.bind(file);
  file.stream = () => {
    const r = stream().getReader();
    return new ReadableStream({ async pull(c) { const { done, value } = await r.read(); if (done) c.close(); else c.enqueue(value); } });
  };
  return file;
}")]
extern "C" {
    /// `file` whose stream is not a byte stream: no byob reader.
    fn without_byob(file: web_sys::File) -> web_sys::File;
}

#[wasm_bindgen(inline_js = "export function closing_late(file, state) {
  const stream = file.stream.bind(file);
  file.stream = () => {
    const r = stream().getReader();
    return new ReadableStream({
      async pull(c) {
        const { done, value } = await r.read();
        if (!done) return c.enqueue(value);
        await new Promise((ok) => setTimeout(ok, 3000));
        if (!state.cancelled) { state.closed = true; c.close(); }
      },
      cancel() { state.cancelled = true; },
    });
  };
  return file;
}
export const tick = () => new Promise((ok) => setTimeout(ok, 0));")]
extern "C" {
    /// `file` whose stream says its end 3 s after its last bytes (unless
    /// cancelled first), in `state.closed` / `state.cancelled`.
    fn closing_late(file: web_sys::File, state: &js_sys::Object) -> web_sys::File;
    fn tick() -> js_sys::Promise;
}

fn file(bytes: &[u8]) -> web_sys::File {
    let parts = Array::of1(&Uint8Array::from(bytes));
    web_sys::File::new_with_u8_array_sequence(&parts, "resnet50_no_zero_grad.pickle.gz").unwrap()
}

/// Reads `f` to the end: the trace events of device 0 and the progress steps.
async fn decode(f: &web_sys::File) -> Result<(usize, Vec<u64>), String> {
    let mut d = Decoder::new(f.name(), Some(f.size() as u64), None);
    let mut steps = vec![];
    let step = async |n| {
        steps.push(n);
        Ok(())
    };
    read(f, feed_decoder(&mut d), step).await.map_err(|e| match e {
        Read::Refused(e) => e.message,
        Read::Browser(e) => format!("{e:?}"),
    })?;
    d.finish().map_err(|e| e.message)?;
    Ok((d.snapshot().unwrap().trace(0).len(), steps))
}

#[wasm_bindgen_test]
async fn reads_a_real_recording_through_a_byob_reader_and_a_plain_one() {
    // memviz_reference.py summary: 9870 trace events.
    let size = EXAMPLE.len() as u64;
    assert_eq!(decode(&file(EXAMPLE)).await, Ok((9870, vec![size])));
    assert_eq!(decode(&without_byob(file(EXAMPLE))).await, Ok((9870, vec![size])));
}

#[wasm_bindgen_test]
async fn a_cut_file_is_refused_with_its_kind() {
    // Cut inside its gzip stream: the decoder says so (the page shows it; the worker posts it).
    let cut = &EXAMPLE[..EXAMPLE.len() / 2];
    let e = decode(&file(cut)).await.unwrap_err();
    assert!(e.starts_with("resnet50_no_zero_grad.pickle.gz: "), "{e}");
    assert!(e.contains("truncated") || e.contains("cut off"), "{e}");
}

/// Every byte of `bytes`, read as a file: in order, in pieces of at most
/// FEED, a step at least CHUNK after the one before, the last at the end.
async fn feeds_in_order(f: web_sys::File, bytes: &[u8]) {
    let (mut got, mut largest, mut steps) = (Vec::new(), 0, Vec::new());
    let feed = |b: &Uint8Array| {
        largest = largest.max(b.length() as usize);
        got.extend(b.to_vec());
        Ok(())
    };
    let step = async |n| {
        steps.push(n);
        Ok(())
    };
    assert!(read(&f, feed, step).await.is_ok());
    assert!(got == bytes, "{} bytes fed of {}", got.len(), bytes.len());
    assert!(largest <= FEED, "a piece of {largest} bytes");
    let size = bytes.len() as u64;
    assert_eq!(steps.last(), Some(&size));
    assert!(steps.len() >= 2, "{steps:?}");
    assert!(steps.windows(2).all(|w| w[1] - w[0] >= CHUNK || w[1] == size), "{steps:?}");
}

#[wasm_bindgen_test]
async fn hands_over_every_byte_in_order_through_a_byob_reader_and_a_plain_one() {
    // 9 MiB and a bit: three steps, the bytes a hash of their offset.
    let bytes: Vec<u8> = (0..(9u32 << 20) + 12345).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
    let f =
        || web_sys::File::new_with_u8_array_sequence(&Array::of1(&Uint8Array::from(&bytes[..])), "x.pickle").unwrap();
    feeds_in_order(f(), &bytes).await;
    feeds_in_order(without_byob(f()), &bytes).await;
}

#[wasm_bindgen_test]
async fn a_read_after_a_large_one_hands_over_its_own_bytes_only() {
    // The large read's buffer is kept for the next read (READ_AHEAD): the
    // small file after it, then the large one again, each exactly.
    let large: Vec<u8> = (0..(5u32 << 20) + 7).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
    let small: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8 ^ 0x5a).collect();
    let as_file = |b: &[u8]| web_sys::File::new_with_u8_array_sequence(&Array::of1(&Uint8Array::from(b)), "x").unwrap();
    for bytes in [&large, &small, &large, &small] {
        let mut got = Vec::new();
        let feed = |b: &Uint8Array| {
            got.extend(b.to_vec());
            Ok(())
        };
        assert!(read(&as_file(bytes), feed, async |_| Ok(())).await.is_ok());
        assert!(got == *bytes, "{} bytes fed of {}", got.len(), bytes.len());
    }
}

#[wasm_bindgen_test]
async fn a_read_ends_at_the_files_size_not_at_the_streams_end() {
    // The stream's end is one more message from the browser after the last
    // bytes: the read is over once it has the file's size, and lets the
    // stream go (cancelled).
    let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
    let state = js_sys::Object::new();
    let f = closing_late(
        web_sys::File::new_with_u8_array_sequence(&Array::of1(&Uint8Array::from(&bytes[..])), "x").unwrap(),
        &state,
    );
    let mut got = Vec::new();
    let feed = |b: &Uint8Array| {
        got.extend(b.to_vec());
        Ok(())
    };
    assert!(read(&f, feed, async |_| Ok(())).await.is_ok());
    assert!(got == bytes, "{} bytes fed of {}", got.len(), bytes.len());
    let flag = |k: &str| js_sys::Reflect::get(&state, &k.into()).unwrap().is_truthy();
    assert!(!flag("closed"), "the read waited for the stream's end");
    wasm_bindgen_futures::JsFuture::from(tick()).await.unwrap();
    assert!(flag("cancelled"), "the stream was not let go");
}
