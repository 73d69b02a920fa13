//! The reference data folder, for the tests that need it: shared with the lab's integration
//! tests (`crates/proxima-lab/tests/integration/main.rs` includes this file), so that both
//! find, skip and require the data by one rule.

use std::path::PathBuf;

/// The environment variable that turns a missing data folder from a skip into a failure.
/// CI sets it (`.ci/run`), so a run where the data went missing cannot pass unnoticed.
pub const REQUIRE_DATA: &str = "PROXIMA_REQUIRE_DATA";

/// The folder of real reference data (`../shared/data` beside the repository, or
/// `$PROXIMA_DATA`), or `None` after telling the user why the test is skipped: the data is
/// not part of the repository, and a machine without it must still pass `cargo test`.
/// With `PROXIMA_REQUIRE_DATA=1`, a missing folder fails the test instead.
pub fn data_dir() -> Option<PathBuf> {
    let explicit = std::env::var_os("PROXIMA_DATA").map(PathBuf::from);
    let require = std::env::var(REQUIRE_DATA).is_ok_and(|v| v == "1");
    match locate_data(explicit, require) {
        Ok(dir) => dir,
        Err(message) => panic!("{message}"),
    }
}

/// Where the data folder is, given `$PROXIMA_DATA` and whether it is required: `Ok(None)`
/// (with a message on stderr) when it is missing and may be, `Err` when it must be there.
pub fn locate_data(explicit: Option<PathBuf>, require: bool) -> Result<Option<PathBuf>, String> {
    // crates/proxima-core -> repository root -> its parent.
    let dir = explicit.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    if dir.is_dir() {
        return Ok(Some(dir));
    }
    let missing = format!("../shared/data not found (looked in {}; set PROXIMA_DATA to its path)", dir.display());
    if require {
        return Err(format!("{missing}, and {REQUIRE_DATA}=1 requires it"));
    }
    eprintln!("skipping: {missing}");
    Ok(None)
}

/// The text of a file under the data folder, or `None` (with a message) when the folder is
/// missing; a file missing from a folder that is there fails the test.
pub fn read_data(relative: &str) -> Option<String> {
    let path = data_dir()?.join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => panic!("{} is in the data folder's listing but cannot be read: {e}", path.display()),
    }
}
