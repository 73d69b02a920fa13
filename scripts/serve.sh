#!/usr/bin/env bash
# Builds the web app with Trunk and serves it on localhost, rebuilding on changes,
# after installing whatever is missing (scripts/ensure-tools.sh).
#
#   scripts/serve.sh              # debug build on http://127.0.0.1:8080/
#   PORT=9000 scripts/serve.sh    # another port
#   scripts/serve.sh --release    # optimized build (slower to build)
#
# Other arguments go to `trunk serve`. The page does not reload itself after a
# rebuild (see Trunk.toml): reload it by hand.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=scripts/ensure-tools.sh
source scripts/ensure-tools.sh
proxima_ensure_tools --no-browser

port="${PORT:-8080}"
echo "Proxima will be served at http://127.0.0.1:$port/ once built (Ctrl-C stops it)." >&2
exec trunk serve --port "$port" "$@"
