#!/usr/bin/env bash
# Builds the web app and serves it on localhost with `trunk serve` (Trunk.toml), rebuilding
# on changes, after installing whatever is missing (scripts/ensure-tools.sh).
#
#   scripts/serve.sh              # debug build on http://127.0.0.1:8080/
#   PORT=9000 scripts/serve.sh    # another port
#   scripts/serve.sh --release    # optimised build (slower to build)
#
# Other arguments go to `trunk serve`. The page does not reload itself after a rebuild
# (Trunk's live-reload script is inline, which the page's Content-Security-Policy
# forbids): reload it by hand.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=scripts/ensure-tools.sh
source scripts/ensure-tools.sh
proxima_ensure_tools --no-browser --no-cargo-tools
# On a fresh machine wasm-bindgen-cli and Trunk are built while cargo compiles the app,
# with the very commands Trunk then runs (so it finds them done): each build leaves a core
# idle at times, which the other takes.
bash scripts/ensure-tools.sh --cargo-tools-only &
tools_pid=$!
trap 'proxima_stop_tree "$tools_pid"' EXIT
profile=()
case " $* " in *" --release "*) profile=(--profile wasm-page) ;; esac
cargo build --target wasm32-unknown-unknown --offline --bin proxima-web "${profile[@]}"
case " $* " in *" --release "*) profile=(--profile wasm-release) ;; esac
cargo build --target wasm32-unknown-unknown --offline --bin worker --no-default-features "${profile[@]}"
wait "$tools_pid"
trap - EXIT

exec trunk serve --port "${PORT:-8080}" "$@"
