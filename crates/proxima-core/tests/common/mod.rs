//! Helpers shared by the integration tests.

pub mod build;

use std::path::PathBuf;

/// The folder of real reference data (`../shared/data` beside the repository, or
/// `$PROXIMA_DATA`), or `None` after telling the user why the test is skipped: the data is
/// not part of the repository, and a machine without it must still pass `cargo test`.
/// With `PROXIMA_REQUIRE_DATA=1` (CI) a missing folder fails the test instead.
#[allow(dead_code)]
pub fn data_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("PROXIMA_DATA") {
        Some(d) => PathBuf::from(d),
        // crates/proxima-core -> repository root -> its parent.
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    if dir.is_dir() {
        Some(dir)
    } else if std::env::var("PROXIMA_REQUIRE_DATA").is_ok_and(|v| v == "1") {
        panic!("PROXIMA_REQUIRE_DATA=1 but the reference data is not at {}", dir.display());
    } else {
        eprintln!("skipping: ../shared/data not found (looked in {}; set PROXIMA_DATA to its path)", dir.display());
        None
    }
}

/// The text of a file under the data folder, or `None` (with a message) when it is missing.
#[allow(dead_code)]
pub fn read_data(relative: &str) -> Option<String> {
    let path = data_dir()?.join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => panic!("{} is in the data folder's listing but cannot be read: {e}", path.display()),
    }
}
