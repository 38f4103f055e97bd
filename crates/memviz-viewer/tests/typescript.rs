//! www/types.d.ts is what boundary.rs's types declare: a field renamed in
//! Rust must reach the page's type check (scripts/check-types.sh).

use std::path::Path;

#[test]
fn www_types_match_the_rust_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/types.d.ts");
    let want = memviz_viewer::boundary::typescript();
    // Two Rust types of one name would declare it twice; tsc skips .d.ts
    // files (skipLibCheck), so it would not say so.
    let mut names: Vec<&str> =
        want.lines().filter_map(|l| l.strip_prefix("export type ")?.split([' ', '<']).next()).collect();
    let all = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all, "a type declared twice in www/types.d.ts");
    assert!(all > 50, "{all} types");
    if std::env::var_os("UPDATE_TYPES").is_some() {
        std::fs::write(&path, &want).expect("write www/types.d.ts");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "www/types.d.ts is stale: regenerate it with UPDATE_TYPES=1 cargo test -p memviz-viewer --test typescript"
    );
}
