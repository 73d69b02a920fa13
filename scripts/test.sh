#!/usr/bin/env bash
# Runs every test of Proxima, installing whatever is missing first
# (scripts/ensure-tools.sh). Two lanes run side by side, each in its order: on 2 cores
# either lane alone leaves a core idle much of the time (a test run, a link, an LTO pass),
# and each has a cargo target directory of its own, so neither waits for the other's lock.
#
#   native lane (target/)
#     0. style                           cargo fmt --check
#        repository checks (layers, circles, lengths, manifests; tidy-allow.toml)
#                                        cargo run -q -p proxima-tidy
#     1. native tests, compiled with Clippy's lints as errors
#                                        RUSTC_WORKSPACE_WRAPPER=scripts/rustc-with-clippy.sh cargo test --workspace
#     2. the Python package, built in Cargo's dev profile and installed into .venv/, and
#        its tests (a two-node Ray cluster among them)  pip install crates/proxima-py; pytest tests/python
#     3. end-to-end tests of dist/ in headless Chromium, once the web lane has built it,
#        except those that time the page   node --test tests/e2e/*.test.mjs
#        (with the debug `proxima` CLI, which they compare the app's exports with)
#   web lane (target/web/; its output is shown when it ends)
#     0. wasm-bindgen-cli, Trunk and wasm-pack, installed if missing
#     1. release build of the site       trunk build --release  -> dist/
#     2. browser tests (headless Chromium), compiled with Clippy's lints as errors, and the
#        example's build the same way (the web app's style for wasm32)
#                                        cargo build --target wasm32-unknown-unknown --examples
#                                        wasm-pack test --headless --chrome
#   then alone, on a quiet machine:
#     4. the end-to-end tests that time the page (responsiveness, frame rates)
#
# Stops at the first failure and exits non-zero.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
step() {
    printf '\n==> [%ss] %s\n' "$((SECONDS - start))" "$*" >&2
}

# Waits for a background job; on failure shows its output and stops here.
join() {
    local pid="$1" log="$2" what="$3"
    if ! wait "$pid"; then
        cat "$log" >&2
        echo "$what failed (its output above)" >&2
        exit 1
    fi
    cat "$log" >&2
}

# Waits for the web lane once, however many places ask.
web_joined=0
join_web_lane() {
    if [ "$web_joined" = 0 ]; then join "$web_pid" "$logs/web" "the web lane"; fi
    web_joined=1
}
# Stops here if the web lane has already failed, rather than at the end of the native lane.
check_web_lane() {
    if ! kill -0 "$web_pid" 2>/dev/null; then join_web_lane; fi
}

step "tools"
# shellcheck source=scripts/ensure-tools.sh
source scripts/ensure-tools.sh
proxima_ensure_tools --no-cargo-tools

logs="$(mktemp -d "${TMPDIR:-/tmp}/proxima-test.XXXXXX")"
# The Python test environment (mostly downloads: ray, pyarrow), in the background until
# the native lane needs it.
bash scripts/ensure-tools.sh --python-only >"$logs/python-env" 2>&1 &
python_pid=$!

step "web lane started in the background (output at the end, or in $logs/web)"
web_target="${CARGO_TARGET_DIR:-$PWD/target}/web"
(
    export CARGO_TARGET_DIR="$web_target"
    step "web lane: wasm-bindgen-cli, Trunk, wasm-pack"
    proxima_ensure_tools --cargo-tools-only --with-wasm-pack

    # First, so that the native lane's end-to-end tests can start as early as possible.
    step "web lane: release build: trunk build --release"
    trunk build --release
    for wasm_file in dist/*.wasm; do
        printf '%s: %s bytes, %s bytes gzipped\n' "$wasm_file" \
            "$(wc -c <"$wasm_file")" "$(gzip -9 -c "$wasm_file" | wc -c)" >&2
    done
    touch "$logs/site-built"

    # Clippy's lints, as errors, on the web app for wasm32, as the native lane does: the
    # browser tests' build compiles every target of proxima-web but its example (the
    # library with and without cfg(test), both binaries, the tests) through clippy-driver,
    # and the example's build does the rest. That covers what `cargo clippy --target
    # wasm32-unknown-unknown -p proxima-web --all-targets -- -D warnings` checks without
    # type-checking every dependency once more. Not for the release build above: its cargo
    # would then rebuild the workspace's crates whenever it is run without the wrapper.
    export RUSTC_WORKSPACE_WRAPPER="$PWD/scripts/rustc-with-clippy.sh"
    step "web lane: style, the example for wasm32: cargo build --target wasm32-unknown-unknown -p proxima-web --examples, linted by Clippy"
    cargo build --target wasm32-unknown-unknown -p proxima-web --examples

    # wasm-pack takes wasm-bindgen-test-runner from PATH at the version in Cargo.lock
    # (--mode no-install: it downloads nothing) and Debian's chromedriver. It asks
    # crates.io at most once a day whether a newer wasm-pack exists; where it cannot reach
    # the API it says so and carries on.
    step "web lane: browser tests, linted by Clippy: wasm-pack test --headless --chrome"
    wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver --mode no-install
    step "web lane: done"
) >"$logs/web" 2>&1 &
web_pid=$!
trap 'proxima_stop_tree "$web_pid"; proxima_stop_tree "$python_pid"; rm -rf "$logs"' EXIT

step "style: cargo fmt --all --check (workspace and fuzz/)"
cargo fmt --all --check
(cd fuzz && cargo fmt --all --check)

# Clippy's lints, as errors, on everything the native lane compiles of the workspace (the
# web app's native build too; its wasm32-only code is linted in the web lane): one build
# lints and compiles, instead of `cargo clippy --workspace --all-targets -- -D warnings`
# and then `cargo test --workspace` (scripts/rustc-with-clippy.sh says why).
export RUSTC_WORKSPACE_WRAPPER="$PWD/scripts/rustc-with-clippy.sh"

# After the wrapper's export, so that the test build below reuses this build of the crate.
step "repository checks: cargo run -q -p proxima-tidy (layers, circles, lengths, manifests)"
cargo run -q -p proxima-tidy

check_web_lane
step "style and native tests: cargo test --workspace, linted by Clippy (-D warnings)"
cargo test --workspace

check_web_lane
step "python tests: pip install crates/proxima-py (into .venv), pytest tests/python"
join "$python_pid" "$logs/python-env" "installing the Python test environment"
export PATH="$PWD/.venv/bin:$PATH"
# Built in Cargo's dev profile, not the release one users get: it shares the native
# tests' compiled crates, the core among them at opt-level 1 (Cargo.toml), where a release
# build would compile everything again at opt-level 3 for tests that are small
# simulations and a Ray cluster's start.
MATURIN_PEP517_ARGS="--profile dev" \
    python -m pip install --quiet --disable-pip-version-check --no-build-isolation ./crates/proxima-py
python -m pytest -q tests/python

# End-to-end tests that time the page: they run last, alone, so that no compiler takes
# the cores they measure. The others run in the native lane, beside the web lane.
timed_e2e=(tests/e2e/responsiveness.test.mjs tests/e2e/playback.test.mjs
    tests/e2e/editor-playback-determinism.test.mjs)
other_e2e=()
for file in tests/e2e/*.test.mjs; do
    case " ${timed_e2e[*]} " in *" $file "*) ;; *) other_e2e+=("$file") ;; esac
done
for file in "${timed_e2e[@]}"; do
    [ -f "$file" ] || { echo "test.sh: $file is gone: update timed_e2e" >&2; exit 1; }
done

check_web_lane
step "end-to-end tests, once the web lane has built dist/: node --test (${#other_e2e[@]} files)"
while [ ! -e "$logs/site-built" ]; do
    check_web_lane # stops here if the web lane failed
    if [ "$web_joined" = 1 ] && [ ! -e "$logs/site-built" ]; then
        echo "the web lane ended without building the site" >&2
        exit 1
    fi
    sleep 1
done
# The end-to-end tests compare the app's exports with what the CLI writes, so they need
# the `proxima` binary. `cargo test --workspace` has built it already; this is a no-op
# that makes the dependency explicit, and PROXIMA_CLI finds it in any target directory.
cargo build --quiet -p proxima-cli
export PROXIMA_CLI="${PROXIMA_CLI:-${CARGO_TARGET_DIR:-target}/debug/proxima}"
# Two files at a time: these wait on the page more than they compute, and none times it.
node --test --test-concurrency=2 "${other_e2e[@]}"

step "waiting for the web lane"
join_web_lane

step "end-to-end tests that time the page, alone: node --test ${timed_e2e[*]}"
node --test "${timed_e2e[@]}"

step "all tests passed"
