//! `memviz html` from the outside: the snapshot it embeds comes back byte
//! for byte through Python's base64 + gzip; bad input gets a message. (The
//! page itself, in a browser: tests/e2e/share.test.mjs.)

mod common;

use common::{fails, memviz, python, tmp};
use std::path::{Path, PathBuf};

fn snapshot(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/snapshots").join(name);
    assert!(p.is_file(), "{} is missing (../shared/snapshots beside the repository)", p.display());
    p
}

/// A minimal page with what `memviz html` needs from a viewer.
fn fake_viewer() -> PathBuf {
    let p = tmp("viewer.html");
    std::fs::write(&p, "<!doctype html><html><head><title>memviz</title></head><body><script>/* memviz-embedded-snapshot */</script></body></html>").unwrap();
    p
}

#[test]
fn html_embeds_the_file_gzip_base64_so_python_gets_the_same_bytes_back() {
    let file = snapshot("small_train_step.pickle");
    let out = tmp("small.html");
    let o = memviz(&[
        "html",
        file.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--viewer",
        fake_viewer().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let py = r#"
import base64, gzip, re, sys
page = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'<script type="application/octet-stream" id="memviz-embedded-snapshot" data-name="([^"]*)" data-encoding="gzip\+base64">([^<]*)</script>', page)
data = gzip.decompress(base64.b64decode(m.group(2)))
print('{"name": "%s", "same": %s, "title": %s}' % (m.group(1), 'true' if data == open(sys.argv[2], 'rb').read() else 'false', 'true' if '<title>small_train_step.pickle' in page else 'false'))
"#;
    let v = python(&["-c", py, out.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(v["name"], "small_train_step.pickle");
    assert_eq!(v["same"], true);
    assert_eq!(v["title"], true);
}

#[test]
fn html_refuses_bad_input_with_a_message() {
    let f = snapshot("small_train_step.pickle");
    let f = f.to_str().unwrap();
    let out = tmp("o.html");
    let out = out.to_str().unwrap();
    fails(&["html", f, "-o", out, "--viewer", "/nonexistent.html"], "--viewer /nonexistent.html: ");
    let old = tmp("old.html");
    std::fs::write(&old, "<html><body>memviz</body></html>").unwrap();
    fails(&["html", f, "-o", out, "--viewer", old.to_str().unwrap()], "cannot open an embedded snapshot");
    let garbage = tmp("garbage.pickle");
    std::fs::write(&garbage, b"\x80\x04\x95garbage").unwrap();
    fails(
        &["html", garbage.to_str().unwrap(), "-o", out, "--viewer", fake_viewer().to_str().unwrap()],
        "garbage.pickle: ",
    );
    fails(&["html", "-", "--viewer", fake_viewer().to_str().unwrap()], "must be a file");
    assert!(!Path::new(out).exists(), "nothing written on failure");
}
