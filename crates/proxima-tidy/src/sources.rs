//! Which Rust files are production code: every `.rs` file under a crate's `src/`, except
//! test files by their names (`tests.rs`, `*_tests.rs`) and `tests/` directories. Test
//! items inside production files are skipped by the parser ([`crate::length`]).

use std::path::{Path, PathBuf};

/// The source directories of the workspace's crates: the web app's `src/` at the root and
/// each `crates/*/src`, sorted.
pub fn source_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("src")];
    if let Ok(entries) = std::fs::read_dir(root.join("crates")) {
        let mut crates: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path().join("src"))).collect();
        crates.sort();
        dirs.extend(crates.into_iter().filter(|d| d.is_dir()));
    }
    dirs
}

/// Whether a file name is a test file's.
pub fn is_test_file(name: &str) -> bool {
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// Every production `.rs` file under `dir`, sorted.
pub fn production_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "tests" {
                production_files(&path, out);
            }
        } else if name.ends_with(".rs") && !is_test_file(name) {
            out.push(path);
        }
    }
}

/// `path` relative to `root`, with `/` between its parts, for messages.
pub fn shown(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}
