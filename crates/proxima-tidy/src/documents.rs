//! `ARCHITECTURE.md` stays a map one can read in a sitting and stays true where a machine
//! can tell: at most [`MAX_ARCHITECTURE_LINES`] lines, and every path it names from the
//! repository's root (`crates/…`, `src/…`, `docs/…`, `scripts/…`, `www/…`) exists. Paths
//! relative to a crate (`engine/`, `tests/integration/golden.rs`) and patterns (`NAME.rs`,
//! `*`) are not checked: they name no one file.

use crate::Problem;
use std::path::Path;

const ARCHITECTURE: &str = "ARCHITECTURE.md";

/// A map, not an inventory: past this it has become a list of files again.
pub const MAX_ARCHITECTURE_LINES: usize = 200;

/// The prefixes of the paths the document writes from the repository's root.
const ROOTED: [&str; 5] = ["crates/", "src/", "docs/", "scripts/", "www/"];

/// The rooted paths written in backticks in `text`, each with its 1-based line.
pub fn rooted_paths(text: &str) -> Vec<(usize, String)> {
    let mut paths = Vec::new();
    for (index, line) in text.lines().enumerate() {
        // Odd pieces of a line split at backticks are the quoted ones.
        for quoted in line.split('`').skip(1).step_by(2) {
            let is_pattern = quoted.contains(['*', ' ', '[', '{']) || quoted.contains("NAME");
            if !is_pattern && ROOTED.iter().any(|r| quoted.starts_with(r)) {
                paths.push((index + 1, quoted.to_string()));
            }
        }
    }
    paths
}

/// The problems of `ARCHITECTURE.md`'s `text`, its paths looked up under `root`.
pub fn check_architecture(text: &str, root: &Path) -> Vec<Problem> {
    let mut problems = Vec::new();
    let lines = text.lines().count();
    if lines > MAX_ARCHITECTURE_LINES {
        problems.push(Problem {
            path: ARCHITECTURE.into(),
            line: 0,
            rule: "document",
            item: format!("{ARCHITECTURE}: length"),
            message: format!(
                "{lines} lines, over {MAX_ARCHITECTURE_LINES}: a map of crates, types and invariants, not an inventory"
            ),
        });
    }
    for (line, path) in rooted_paths(text) {
        if !root.join(&path).exists() {
            problems.push(Problem {
                path: ARCHITECTURE.into(),
                line,
                rule: "document",
                item: format!("{ARCHITECTURE}: {path}"),
                message: format!("names `{path}`, which does not exist"),
            });
        }
    }
    problems
}

/// The checks of the documents, read under `root`.
pub fn check(root: &Path) -> Vec<Problem> {
    match std::fs::read_to_string(root.join(ARCHITECTURE)) {
        Ok(text) => check_architecture(&text, root),
        Err(e) => vec![Problem {
            path: ARCHITECTURE.into(),
            line: 0,
            rule: "document",
            item: ARCHITECTURE.into(),
            message: format!("cannot be read: {e}"),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooted_paths_are_found_and_patterns_and_relative_paths_are_not() {
        let text = "see `crates/a/src/lib.rs` and `engine/`\n`src/x.rs`, `crates/a/NAME.rs`, `docs/*.md`";
        let found: Vec<String> = rooted_paths(text).into_iter().map(|(_, p)| p).collect();
        assert_eq!(found, vec!["crates/a/src/lib.rs".to_string(), "src/x.rs".to_string()]);
    }

    #[test]
    fn a_missing_path_and_a_long_map_are_problems() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let ok = check_architecture("`src/lib.rs`\n", root);
        assert!(ok.is_empty(), "{ok:?}");
        let missing = check_architecture("line\n`src/gone.rs`\n", root);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].line, 2);
        let long = "x\n".repeat(MAX_ARCHITECTURE_LINES + 1);
        assert_eq!(check_architecture(&long, root)[0].rule, "document");
    }
}
