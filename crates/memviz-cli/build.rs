//! Embeds the standalone web viewer, dist/memviz-standalone.html (built by
//! scripts/build-web.sh), when it exists at build time, so that
//! `memviz html` needs no --viewer. MEMVIZ_VIEWER_HTML=PATH embeds another
//! file; MEMVIZ_VIEWER_HTML= (empty) builds without one.
//!
//! Only an existing file is watched: cargo treats a watched path that is
//! missing as changed and would rebuild the CLI on every build. A binary
//! built without the viewer looks for it in the checkout's dist/ at run
//! time instead (src/html.rs).

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MEMVIZ_VIEWER_HTML");
    let root = manifest.join("../..");
    let dist = root.canonicalize().unwrap_or(root).join("dist/memviz-standalone.html");
    let explicit = std::env::var_os("MEMVIZ_VIEWER_HTML");
    let path = match &explicit {
        Some(p) if p.is_empty() => None,
        Some(p) => Some(PathBuf::from(p)),
        None => Some(dist.clone()),
    };
    let mut built_in = "None".to_string();
    if let Some(path) = path {
        match std::fs::read_to_string(&path) {
            Ok(page) => {
                println!("cargo:rerun-if-changed={}", path.display());
                let copy = out.join("memviz-standalone.html");
                std::fs::write(&copy, page).expect("write OUT_DIR");
                built_in = format!("Some(include_str!({:?}))", copy.display().to_string());
            }
            Err(e) if explicit.is_some() => panic!("MEMVIZ_VIEWER_HTML={}: {e}", path.display()),
            Err(_) => {}
        }
    }
    let code = format!(
        "/// The viewer compiled in.\npub const BUILT_IN: Option<&str> = {built_in};\n\
         /// Where the checkout this binary was built from keeps the viewer.\npub const CHECKOUT_VIEWER: &str = {:?};\n",
        dist.display().to_string()
    );
    std::fs::write(out.join("viewer.rs"), code).expect("write OUT_DIR");
}
