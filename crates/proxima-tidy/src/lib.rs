//! The repository's checks in one place (`cargo run -p proxima-tidy`, which
//! `scripts/test.sh` runs): every crate's layers and import circles, the length of
//! production functions and files, read with a real Rust parser, the manifests, and
//! ARCHITECTURE.md's length and the paths it names.
//!
//! Each check returns [`Problem`]s; the known ones, each with its reason and issue, are in
//! `tidy-allow.toml` at the repository's root ([`allow`]), and the binary fails on any
//! other, and on an allowance that no longer matches anything, so the list only shrinks.

pub mod allow;
pub mod documents;
pub mod layers;
pub mod length;
pub mod manifests;
pub mod python;
pub mod sources;

use std::fmt;

/// One thing wrong, at a place in the repository.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// The file, relative to the repository's root.
    pub path: String,
    /// 1-based; 0 where the problem is the whole file.
    pub line: usize,
    /// Which check: `function-length`, `file-length`, `circle`, `layer`, `crate-graph`,
    /// `manifest`, `document`, `allowlist`.
    pub rule: &'static str,
    /// What an allowance names to excuse it (a function's path, a circle's members, a file).
    pub item: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}: {}", self.path, self.line, self.rule, self.message)
    }
}
