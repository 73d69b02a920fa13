#!/usr/bin/env bash
# Runs every test of Proxima, installing whatever is missing first
# (scripts/ensure-tools.sh). Steps:
#   0. style: formatting and lints                   cargo fmt --check, cargo clippy -D warnings
#      (the native crates, then the web app for wasm32)
#   1. native tests of the whole workspace           cargo test --workspace
#   1b. the Python package, built (Cargo profile python-test) and installed into .venv/,
#      and its tests (a two-node Ray cluster among them)                       pip install crates/proxima-py; pytest tests/python
#   2. browser tests of the web app (headless Chromium) cargo test --target wasm32-unknown-unknown -p proxima-web
#   3. release build of the site into dist/           trunk build --release
#   4. end-to-end tests of dist/ in headless Chromium node --test tests/e2e/*.test.mjs
#      (with the debug `proxima` CLI, which they compare the app's exports with)
# Stops at the first failing step and exits non-zero.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
step() {
    printf '\n==> [%ss] %s\n' "$((SECONDS - start))" "$*" >&2
}

step "tools"
# shellcheck source=scripts/ensure-tools.sh
source scripts/ensure-tools.sh
proxima_ensure_tools --python

step "style: cargo fmt --all --check (workspace and fuzz/)"
cargo fmt --all --check
(cd fuzz && cargo fmt --all --check)

step "style: cargo clippy --workspace --all-targets -D warnings (natively, the web app too)"
# The web app's native build is what its unit tests run on; its wasm32-only code is
# linted for that target in the next step.
cargo clippy --workspace --all-targets -- -D warnings

step "style: cargo clippy --target wasm32-unknown-unknown -p proxima-web --all-targets -D warnings (the web app)"
cargo clippy --target wasm32-unknown-unknown -p proxima-web --all-targets -- -D warnings

step "native tests: cargo test --workspace"
cargo test --workspace

step "python tests: pip install crates/proxima-py (into .venv), pytest tests/python"
# Built with the lighter `python-test` profile (Cargo.toml), not the release one users get.
MATURIN_PEP517_ARGS="--profile python-test" \
    python -m pip install --quiet --disable-pip-version-check --no-build-isolation ./crates/proxima-py
python -m pytest -q tests/python

step "browser tests: cargo test --target wasm32-unknown-unknown -p proxima-web --tests"
cargo test --target wasm32-unknown-unknown -p proxima-web --tests

step "release build: trunk build --release"
trunk build --release
for wasm_file in dist/*.wasm; do
    printf '%s: %s bytes, %s bytes gzipped\n' "$wasm_file" \
        "$(wc -c <"$wasm_file")" "$(gzip -9 -c "$wasm_file" | wc -c)" >&2
done

step "end-to-end tests: node --test tests/e2e/*.test.mjs"
# The end-to-end tests compare the app's exports with what the CLI writes, so they need
# the `proxima` binary. `cargo test --workspace` has built it already; this is a no-op
# that makes the dependency explicit, and PROXIMA_CLI finds it in any target directory.
cargo build --quiet -p proxima-cli
export PROXIMA_CLI="${PROXIMA_CLI:-${CARGO_TARGET_DIR:-target}/debug/proxima}"
node --test tests/e2e/*.test.mjs

step "all tests passed"
