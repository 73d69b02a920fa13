# shellcheck shell=bash
# Installs what building and testing Proxima needs, and only what is missing or at
# the wrong version, so a second run takes seconds. Sourced by scripts/serve.sh and
# scripts/test.sh (it puts node_modules/.bin first on PATH for them):
#
#   source scripts/ensure-tools.sh
#   proxima_ensure_tools               # everything
#   proxima_ensure_tools --no-browser  # without Chromium: enough to build and serve
#
# It can also be run on its own: `bash scripts/ensure-tools.sh [--no-browser]`.
#
# What it expects on the machine: rustup/cargo, node >= 20 with npm, apt (Debian).
# Everything else comes from the registries, at pinned versions:
#   - the wasm32-unknown-unknown target            (rustup)
#   - trunk 0.21.14                                (crates.io, cargo install --locked)
#   - wasm-bindgen-cli = wasm-bindgen in Cargo.lock (crates.io; without --locked: its own
#     lock file pins a webpki-roots version that the registry here lacks)
#   - chromium + chromium-driver                   (Debian; only when missing)
#   - binaryen (wasm-opt) and playwright-core      (npm ci, pinned in package-lock.json)

PROXIMA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROXIMA_TRUNK_VERSION="0.21.14"

_proxima_log() { printf '[ensure-tools] %s\n' "$*" >&2; }

# Prints the version of package $1 in Cargo.lock (the first one, if there are several).
_proxima_lock_version() {
    awk -v name="$1" '
        $0 == "name = \"" name "\"" { found = 1; next }
        found && /^version = / { gsub(/"/, "", $3); print $3; exit }
    ' "$PROXIMA_ROOT/Cargo.lock"
}

_proxima_ensure_rust() {
    command -v cargo >/dev/null || { _proxima_log "cargo is missing: install rustup first"; return 1; }
    # Tools installed by `cargo install` land here; make sure they are found.
    local cargo_bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"
    case ":$PATH:" in *":$cargo_bin:"*) ;; *) export PATH="$cargo_bin:$PATH" ;; esac

    if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        _proxima_log "ok: rust target wasm32-unknown-unknown"
    else
        _proxima_log "installing rust target wasm32-unknown-unknown"
        rustup target add wasm32-unknown-unknown
    fi

    # Trunk runs cargo offline (Trunk.toml), so every crate must be downloaded first.
    # This is quick when nothing is missing; it also brings Cargo.lock up to date after
    # someone changed a Cargo.toml, before we read wasm-bindgen's version from it.
    (cd "$PROXIMA_ROOT" && cargo fetch --quiet)
}

_proxima_ensure_trunk() {
    local have
    have="$(trunk --version 2>/dev/null || true)"
    if [ "$have" = "trunk $PROXIMA_TRUNK_VERSION" ]; then
        _proxima_log "ok: $have"
    else
        _proxima_log "installing trunk $PROXIMA_TRUNK_VERSION (found: ${have:-none}; takes ~6 min)"
        cargo install --locked trunk --version "$PROXIMA_TRUNK_VERSION"
    fi
}

_proxima_ensure_wasm_bindgen() {
    local want have have_runner
    want="$(_proxima_lock_version wasm-bindgen)"
    if [ -z "$want" ]; then
        _proxima_log "no wasm-bindgen in Cargo.lock: cannot pick a wasm-bindgen-cli version"
        return 1
    fi
    have="$(wasm-bindgen --version 2>/dev/null || true)"
    have_runner="$(wasm-bindgen-test-runner --version 2>/dev/null || true)"
    if [ "$have" = "wasm-bindgen $want" ] && [ "$have_runner" = "wasm-bindgen-test-runner $want" ]; then
        _proxima_log "ok: wasm-bindgen-cli $want"
    else
        _proxima_log "installing wasm-bindgen-cli $want (found: ${have:-none}; takes ~2 min)"
        cargo install wasm-bindgen-cli --version "$want"
    fi
}

_proxima_ensure_node_modules() {
    command -v node >/dev/null || { _proxima_log "node is missing: install node >= 20"; return 1; }
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    if [ "$major" -lt 20 ]; then
        _proxima_log "node $(node --version) is too old: need >= 20"
        return 1
    fi

    # `npm ci` only when node_modules is missing or was installed from another lock file.
    local stamp="$PROXIMA_ROOT/node_modules/.proxima-lock.sha256" want
    want="$(sha256sum "$PROXIMA_ROOT/package-lock.json" | cut -d' ' -f1)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        _proxima_log "ok: node_modules (package-lock.json unchanged)"
    else
        _proxima_log "installing npm packages (npm ci)"
        (cd "$PROXIMA_ROOT" && npm ci --no-audit --no-fund --loglevel=error)
        printf '%s\n' "$want" >"$stamp"
    fi
    # wasm-opt from binaryen@132 must win over any other wasm-opt (Debian's is too old).
    case ":$PATH:" in
        *":$PROXIMA_ROOT/node_modules/.bin:"*) ;;
        *) export PATH="$PROXIMA_ROOT/node_modules/.bin:$PATH" ;;
    esac
}

_proxima_ensure_browser() {
    if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
        _proxima_log "ok: chromium and chromedriver in /usr/bin"
        return 0
    fi
    _proxima_log "installing chromium and chromium-driver (apt)"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
}

proxima_ensure_tools() {
    local browser=1 arg
    for arg in "$@"; do
        case "$arg" in
            --no-browser) browser=0 ;;
            *) _proxima_log "unknown option: $arg"; return 2 ;;
        esac
    done
    _proxima_ensure_rust
    _proxima_ensure_trunk
    _proxima_ensure_wasm_bindgen
    _proxima_ensure_node_modules
    if [ "$browser" = 1 ]; then _proxima_ensure_browser; fi
}

# Run as a script: do it now. Sourced: the caller calls proxima_ensure_tools itself
# (under its own `set -e`, which stops at the first failure).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    proxima_ensure_tools "$@"
fi
