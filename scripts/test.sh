#!/usr/bin/env bash
# Runs every test of Proxima, installing whatever is missing first
# (scripts/ensure-tools.sh). Steps:
#   1. formatting                                      cargo fmt --all --check
#   2. lints, native and for the browser               cargo clippy ... -D warnings (twice)
#   3. native tests of the whole workspace             cargo test --workspace
#   4. browser tests of the web app (headless Chromium) cargo test --target wasm32-unknown-unknown -p proxima-web
#   5. release build of the site into dist/            trunk build --release
#   6. end-to-end tests of dist/ in headless Chromium  node --test tests/e2e/*.test.mjs
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
proxima_ensure_tools

step "formatting: cargo fmt --all --check"
cargo fmt --all --check

step "lints: cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

# The web app's browser-only code (the worker client, the page's edges, the browser
# tests) compiles only for wasm32, so it is linted there too.
step "lints: cargo clippy --target wasm32-unknown-unknown -p proxima-web --all-targets -- -D warnings"
cargo clippy --target wasm32-unknown-unknown -p proxima-web --all-targets -- -D warnings

step "native tests: cargo test --workspace"
cargo test --workspace

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
