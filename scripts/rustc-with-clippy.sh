#!/usr/bin/env bash
# Compiles a workspace crate with Clippy's lints as errors: scripts/test.sh sets this as
# RUSTC_WORKSPACE_WRAPPER for the native tests and for the browser tests, so that one
# build both lints the workspace (what `cargo clippy --workspace --all-targets -- -D
# warnings` checks: the libraries, binaries, tests and examples, with and without
# cfg(test); for wasm32, the same of proxima-web) and compiles it for the tests. `cargo
# clippy` would first type-check every dependency a second time, in check mode, which on
# 2 cores cost about two minutes of a cold run for each target.
#
# Cargo calls it as `rustc-with-clippy.sh RUSTC ARGS...` for the workspace's own crates
# only; clippy-driver in that position lints and then compiles like rustc (it is the
# driver `cargo clippy` runs, which Clippy documents as a drop-in for rustc).
exec clippy-driver "$@" -D warnings
