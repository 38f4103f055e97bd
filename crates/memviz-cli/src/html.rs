//! `memviz html`: one HTML file with the viewer and a snapshot inside, that
//! opens from file:// and connects nowhere.
//!
//! The viewer is dist/memviz-standalone.html (scripts/build-web.sh): wasm,
//! scripts and styles already inline. The snapshot goes in as gzip + base64
//! in a `<script type="application/octet-stream">` element, which browsers
//! never run (so the page's CSP hashes stay valid) and www/share.js opens
//! at load.

use std::io::Write;

/// The element www/share.js reads the snapshot from. A viewer without it
/// is one built before share.js existed.
pub const EMBED_ID: &str = "memviz-embedded-snapshot";

// BUILT_IN and CHECKOUT_VIEWER, written by build.rs.
include!(concat!(env!("OUT_DIR"), "/viewer.rs"));

pub const NO_VIEWER: &str = "this memviz has no web viewer: it was built before dist/memviz-standalone.html \
    existed, and its checkout has none now. Build the CLI with the viewer inside (target/release/memviz):\n\
    \x20   scripts/build-cli.sh\n\
    or name a built viewer: memviz html FILE --viewer dist/memviz-standalone.html";

/// The viewer page and where it came from: --viewer, else the one compiled
/// in, else the checkout's dist/ (a binary built before the viewer was).
pub fn viewer(option: Option<&str>) -> Result<(String, String), String> {
    let (page, origin) = match option {
        Some(p) => (std::fs::read_to_string(p).map_err(|e| format!("--viewer {p}: {e}"))?, p.to_string()),
        None => match BUILT_IN {
            Some(page) => (page.to_string(), "the viewer built into memviz".to_string()),
            None => match std::fs::read_to_string(CHECKOUT_VIEWER) {
                Ok(page) => (page, CHECKOUT_VIEWER.to_string()),
                Err(_) => return Err(NO_VIEWER.to_string()),
            },
        },
    };
    check_viewer(&page, &origin)?;
    Ok((page, origin))
}

/// Checks that `page` is a standalone viewer that can open an embedded snapshot.
pub fn check_viewer(page: &str, origin: &str) -> Result<(), String> {
    if !page.contains("memviz") || !page.contains("<body") || !page.contains("</body>") {
        return Err(format!("{origin}: not a memviz viewer page (dist/memviz-standalone.html)"));
    }
    if !page.contains(EMBED_ID) {
        return Err(format!(
            "{origin}: this viewer cannot open an embedded snapshot (built before `memviz html` existed): \
             rebuild it with scripts/build-web.sh"
        ));
    }
    Ok(())
}

/// The viewer page with `bytes` (a snapshot as read from the file, gzip or
/// not) embedded under `name`.
pub fn page(viewer: &str, name: &str, bytes: &[u8]) -> Result<String, String> {
    let gz = if bytes.starts_with(&[0x1f, 0x8b]) {
        bytes.to_vec()
    } else {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        enc.write_all(bytes).and_then(|_| enc.finish()).map_err(|e| format!("gzip: {e}"))?
    };
    let at = viewer.rfind("</body>").ok_or("the viewer page has no </body>")?;
    let b64 = base64(&gz);
    let mut out = String::with_capacity(viewer.len() + b64.len() + 256);
    let title = format!("<title>{} · memviz</title>", escape(name));
    match (viewer.find("<title>"), viewer.find("</title>")) {
        (Some(a), Some(b)) if a < b && b < at => {
            out.push_str(&viewer[..a]);
            out.push_str(&title);
            out.push_str(&viewer[b + "</title>".len()..at]);
        }
        _ => out.push_str(&viewer[..at]),
    }
    out.push_str(&format!(
        "<script type=\"application/octet-stream\" id=\"{EMBED_ID}\" data-name=\"{}\" data-encoding=\"gzip+base64\">",
        escape(name)
    ));
    out.push_str(&b64);
    out.push_str("</script>\n");
    out.push_str(&viewer[at..]);
    Ok(out)
}

/// Text safe inside an HTML attribute or element.
fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if c.is_control() => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
    o
}

/// Standard base64 with padding (what the browser's atob reads).
pub fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(data.len().div_ceil(3) * 4);
    let mut chunks = data.chunks_exact(3);
    for c in &mut chunks {
        let n = (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32;
        out.extend_from_slice(&[
            T[(n >> 18) as usize],
            T[(n >> 12 & 63) as usize],
            T[(n >> 6 & 63) as usize],
            T[(n & 63) as usize],
        ]);
    }
    match *chunks.remainder() {
        [a] => {
            let n = (a as u32) << 16;
            out.extend_from_slice(&[T[(n >> 18) as usize], T[(n >> 12 & 63) as usize], b'=', b'=']);
        }
        [a, b] => {
            let n = (a as u32) << 16 | (b as u32) << 8;
            out.extend_from_slice(&[
                T[(n >> 18) as usize],
                T[(n >> 12 & 63) as usize],
                T[(n >> 6 & 63) as usize],
                b'=',
            ]);
        }
        _ => {}
    }
    String::from_utf8(out).expect("base64 is ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn page_embeds_gzip_before_body_end_and_escapes_the_name() {
        let viewer =
            format!("<html><head><title>memviz</title></head><body><script>'{EMBED_ID}'</script></body></html>");
        let out = page(&viewer, "a\"<b>.pickle", b"\x80\x04N.").unwrap();
        assert!(out.contains("<title>a&quot;&lt;b&gt;.pickle · memviz</title>"));
        assert!(out.contains("data-name=\"a&quot;&lt;b&gt;.pickle\""));
        let start = out.find("data-encoding=\"gzip+base64\">").unwrap() + "data-encoding=\"gzip+base64\">".len();
        let b64 = &out[start..out[start..].find("</script>").unwrap() + start];
        // gzip magic 1f 8b 08 in base64
        assert!(b64.starts_with("H4sI"), "{b64}");
        assert!(out.ends_with("</script>\n</body></html>"));
        assert!(check_viewer(&viewer, "v").is_ok());
        assert!(check_viewer("<html><body>memviz</body></html>", "v").unwrap_err().contains("rebuild"));
    }
}
