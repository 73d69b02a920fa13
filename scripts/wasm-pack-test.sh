#!/usr/bin/env bash
# The browser tests of the web app through wasm-pack, the route the project's card names:
#
#   wasm-pack test --headless --chrome
#
# They are the same tests `scripts/test.sh` runs with `cargo test --target
# wasm32-unknown-unknown -p proxima-web --tests`, so that script does not run them twice;
# this one is for whoever prefers wasm-pack. Nothing is downloaded at run time:
#   - wasm-pack is installed from crates.io, pinned (below), built with the light profile
#     scripts/ensure-tools.sh uses for wasm-bindgen-cli;
#   - `--mode no-install` forbids wasm-pack to fetch tools: it takes `wasm-bindgen` and
#     `wasm-bindgen-test-runner` from PATH, where scripts/ensure-tools.sh installed them at
#     the version in Cargo.lock (wasm-pack checks that version and refuses another);
#   - `--chromedriver /usr/bin/chromedriver` is Debian's, which drives Debian's Chromium.
# wasm-pack also asks crates.io at most once a day whether a newer wasm-pack exists; where
# it cannot reach the API it prints a warning and carries on.
#
# Extra arguments go to wasm-pack test (e.g. `-- --test browser`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PROXIMA_WASM_PACK_VERSION="0.15.1"

# shellcheck source=scripts/ensure-tools.sh
source scripts/ensure-tools.sh
proxima_ensure_tools

if [ "$(wasm-pack --version 2>/dev/null || true)" != "wasm-pack $PROXIMA_WASM_PACK_VERSION" ]; then
    _proxima_log "installing wasm-pack $PROXIMA_WASM_PACK_VERSION (cargo install --locked)"
    "${_proxima_light_cargo[@]}" install --locked wasm-pack --version "$PROXIMA_WASM_PACK_VERSION"
fi

exec wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver --mode no-install "$@"
