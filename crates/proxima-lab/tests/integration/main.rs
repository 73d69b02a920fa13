//! The lab's integration tests, in one test binary (one build and one link instead of one
//! per file): each module is one subject. Run one with
//! `cargo test -p proxima-lab --test integration -- sia::`.

// The data folder's helpers are the core's tests' own, so that a missing folder skips or
// fails by the same rule in both crates.
#[path = "../../../proxima-core/tests/integration/common/data.rs"]
mod common;

mod calibration;
mod pollux;
mod robust;
mod sia;
