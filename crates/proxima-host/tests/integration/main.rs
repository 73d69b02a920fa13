//! The native host's integration tests, in one test binary: each module is one subject.
//! Run one with `cargo test -p proxima-host --test integration -- rho::`.

mod paper;
mod preset_workloads;
mod rho;
