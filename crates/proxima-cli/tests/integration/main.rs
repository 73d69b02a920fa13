//! The command-line tool's integration tests, in one test binary: each module is one
//! subject. Run one with `cargo test -p proxima-cli --test integration -- sweep::`.

mod closed_output;
mod experiment;
mod inputs;
mod network;
mod sweep;
