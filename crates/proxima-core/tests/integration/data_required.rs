//! Tests that need `../shared/data` skip with a message when it is absent, and fail when
//! `PROXIMA_REQUIRE_DATA=1` (as CI sets it). Checked on the helper every such test goes
//! through, directly and by running this test binary again with the variables set.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

const NOWHERE: &str = "/nonexistent/proxima-data-for-a-test";

#[test]
fn a_missing_folder_skips_unless_required() {
    assert_eq!(common::locate_data(Some(PathBuf::from(NOWHERE)), false), Ok(None));
    let e = common::locate_data(Some(PathBuf::from(NOWHERE)), true).unwrap_err();
    assert!(e.contains(NOWHERE) && e.contains("PROXIMA_REQUIRE_DATA=1 requires it"), "{e}");
    // A folder that is there is found either way.
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(common::locate_data(Some(here.clone()), true), Ok(Some(here)));
}

/// What a data-backed test does first; run on its own by the test below.
#[test]
#[ignore = "run by required_data_fails_a_test_and_optional_data_skips_it, with its own environment"]
fn probe_reads_the_data_folder() {
    let found = common::data_dir();
    eprintln!("data folder: {found:?}");
}

fn probe(require: Option<&str>) -> (bool, String) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "data_required::probe_reads_the_data_folder", "--ignored", "--nocapture", "--test-threads=1"]);
    cmd.env("PROXIMA_DATA", NOWHERE);
    match require {
        Some(v) => cmd.env("PROXIMA_REQUIRE_DATA", v),
        None => cmd.env_remove("PROXIMA_REQUIRE_DATA"),
    };
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn required_data_fails_a_test_and_optional_data_skips_it() {
    let (passed, output) = probe(Some("1"));
    assert!(!passed, "with PROXIMA_REQUIRE_DATA=1 the probe must fail:\n{output}");
    assert!(output.contains("PROXIMA_REQUIRE_DATA=1 requires it"), "{output}");
    for require in [None, Some("0")] {
        let (passed, output) = probe(require);
        assert!(passed, "without the requirement the probe passes ({require:?}):\n{output}");
        assert!(output.contains("skipping: ../shared/data not found"), "{output}");
        assert!(output.contains("1 passed"), "the probe ran: {output}");
    }
}
