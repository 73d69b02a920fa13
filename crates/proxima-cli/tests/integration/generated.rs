//! Parts of the docs that are generated from the code: each sits between two marker
//! comments, and a test fails when it differs from what the code makes now.
//! `UPDATE_DOCS=1` rewrites it instead.

use std::path::PathBuf;

/// Checks that `doc` (relative to the repository) holds `content` between `begin` and
/// `end`, or rewrites it under `UPDATE_DOCS`; `module` is the test module to re-run.
pub fn check(doc: &str, begin: &str, end: &str, content: &str, module: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(doc);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let (Some(b), Some(e)) = (text.find(begin), text.find(end)) else {
        panic!("{} lacks the markers {begin} and {end}", path.display());
    };
    let wanted = format!("\n{content}");
    if text[b + begin.len()..e] == wanted {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, format!("{}{begin}{wanted}{}", &text[..b], &text[e..])).unwrap();
    } else {
        panic!("{doc} is out of date; run UPDATE_DOCS=1 cargo test -p proxima-cli --test integration -- {module}");
    }
}
