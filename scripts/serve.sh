#!/usr/bin/env bash
# Builds the web app and serves it on localhost, rebuilding on changes, after
# installing whatever is missing (scripts/ensure-tools.sh).
#
#   scripts/serve.sh              # debug build on http://127.0.0.1:8080/
#   PORT=9000 scripts/serve.sh    # another port
#   scripts/serve.sh --release    # optimized build (slower to build)
#
# Other arguments go to `node scripts/site.mjs serve`. The page does not reload itself
# after a rebuild (a live-reload script would be inline, which the page's
# Content-Security-Policy forbids): reload it by hand.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=scripts/ensure-tools.sh
source scripts/ensure-tools.sh
proxima_ensure_tools --no-browser --no-wasm-bindgen
# On a fresh machine wasm-bindgen-cli is built while cargo compiles the site (the cargo
# step of scripts/site.mjs, which serve then finds done): each build leaves a core idle at
# times, which the other takes.
bash scripts/ensure-tools.sh --wasm-bindgen-only &
wasm_bindgen_pid=$!
trap 'proxima_stop_tree "$wasm_bindgen_pid"' EXIT
case " $* " in
    *" --release "*) node scripts/site.mjs compile --release ;;
    *) node scripts/site.mjs compile ;;
esac
wait "$wasm_bindgen_pid"
trap - EXIT

port="${PORT:-8080}"
echo "Proxima will be served at http://127.0.0.1:$port/ once built (Ctrl-C stops it)." >&2
exec node scripts/site.mjs serve --port "$port" "$@"
