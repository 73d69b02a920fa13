# shellcheck shell=bash
# Installs what building and testing Proxima needs, and only what is missing or at
# the wrong version, so a second run takes seconds. Sourced by scripts/serve.sh and
# scripts/test.sh (it puts node_modules/.bin first on PATH for them):
#
#   source scripts/ensure-tools.sh
#   proxima_ensure_tools               # everything
#   proxima_ensure_tools --no-browser  # without Chromium: enough to build and serve
#   proxima_ensure_tools --python      # also the Python test environment (.venv/)
#
# It can also be run on its own: `bash scripts/ensure-tools.sh [--no-browser]`.
#
# What it expects on the machine: rustup/cargo, node >= 20 with npm, apt (Debian).
# Everything else comes from the registries, at pinned versions:
#   - the wasm32-unknown-unknown target            (rustup)
#   - trunk 0.21.14                                (crates.io, cargo install --locked,
#                                                   without default features)
#   - wasm-bindgen-cli = wasm-bindgen in Cargo.lock (crates.io; without --locked: its own
#     lock file pins a webpki-roots version that the registry here lacks)
#   - chromium + chromium-driver                   (Debian; only when missing)
#   - binaryen (wasm-opt) and playwright-core      (npm ci, pinned in package-lock.json)
#   - with --python: a virtual environment .venv/ with maturin, pytest, ray, pandas,
#     pyarrow and matplotlib (PyPI, pinned in tests/python/requirements.txt); it puts
#     .venv/bin first on PATH

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

    local targets
    targets="$(rustup target list --installed)"
    if grep -qx wasm32-unknown-unknown <<<"$targets"; then
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

_proxima_trunk_ok() {
    [ "$(trunk --version 2>/dev/null || true)" = "trunk $PROXIMA_TRUNK_VERSION" ]
}

# Build tools need not be fast, only quick to build: with its own release profile (fat
# LTO, one codegen unit) Trunk alone took 17.7 of a 29-minute cold set-up. Cargo reads
# profile settings from the environment, and `cargo install` honours them. `env` execs
# cargo, so in the background below $! is cargo's own pid.
#
# Trunk only starts cargo and wasm-bindgen and copies files, so it is built without
# optimisation: 6.7 CPU-minutes instead of about 12 at opt-level 1. wasm-bindgen rewrites
# every wasm file the build and the browser tests make, and without optimisation it took
# 3.9x the CPU time on the page's wasm (1.04 s against 0.27 s), so it keeps opt-level 1
# (2.9 CPU-minutes to build at opt-level 0 would save little).
_proxima_light_cargo=(env CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
    CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=0 cargo)
_proxima_unoptimised_cargo=(env CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=0 cargo)

# Neither tool needs TLS here: Trunk runs offline (Trunk.toml) and serves plain HTTP on
# localhost, and wasm-bindgen-test-runner talks to a local chromedriver. Without their
# default features they build without rustls and ring (and Trunk without its update check).
_proxima_install_trunk() {
    "${_proxima_unoptimised_cargo[@]}" install --locked --no-default-features trunk --version "$PROXIMA_TRUNK_VERSION"
}

# Both wasm-bindgen and wasm-bindgen-test-runner, at version $1.
_proxima_wasm_bindgen_ok() {
    [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $1" ] &&
        [ "$(wasm-bindgen-test-runner --version 2>/dev/null || true)" = "wasm-bindgen-test-runner $1" ]
}

_proxima_install_wasm_bindgen() {
    "${_proxima_light_cargo[@]}" install --no-default-features wasm-bindgen-cli --version "$1"
}

_proxima_ensure_cargo_tools() {
    local wbg need_trunk=0 need_wbg=0
    wbg="$(_proxima_lock_version wasm-bindgen)"
    if [ -z "$wbg" ]; then
        _proxima_log "no wasm-bindgen in Cargo.lock: cannot pick a wasm-bindgen-cli version"
        return 1
    fi
    if _proxima_trunk_ok; then
        _proxima_log "ok: trunk $PROXIMA_TRUNK_VERSION"
    else
        need_trunk=1
    fi
    if _proxima_wasm_bindgen_ok "$wbg"; then
        _proxima_log "ok: wasm-bindgen-cli $wbg"
    else
        need_wbg=1
    fi

    if [ "$need_trunk" = 1 ] && [ "$need_wbg" = 1 ]; then
        # Side by side: each build ends in a long single-threaded stretch (trunk's fat
        # LTO link above all), which leaves the other core to the other build.
        _proxima_log "installing trunk $PROXIMA_TRUNK_VERSION and wasm-bindgen-cli $wbg side by side (~6 min on 2 idle cores)"
        local trunk_log trunk_pid
        trunk_log="$(mktemp "${TMPDIR:-/tmp}/proxima-trunk-install.XXXXXX")"
        # cargo itself in the background (not a function in a subshell), so that
        # $! is cargo's pid and the kill below reaches it.
        "${_proxima_unoptimised_cargo[@]}" install --locked --no-default-features trunk --version "$PROXIMA_TRUNK_VERSION" >"$trunk_log" 2>&1 &
        trunk_pid=$!
        if ! _proxima_install_wasm_bindgen "$wbg"; then
            kill "$trunk_pid" 2>/dev/null || true
            wait "$trunk_pid" 2>/dev/null || true
            rm -f "$trunk_log"
            return 1
        fi
        _proxima_log "wasm-bindgen-cli installed; waiting for trunk"
        if ! wait "$trunk_pid"; then
            tail -n 60 "$trunk_log" >&2
            _proxima_log "installing trunk failed (its last lines above)"
            rm -f "$trunk_log"
            return 1
        fi
        rm -f "$trunk_log"
        _proxima_log "trunk installed"
    elif [ "$need_trunk" = 1 ]; then
        _proxima_log "installing trunk $PROXIMA_TRUNK_VERSION (~4 min on 2 idle cores)"
        _proxima_install_trunk
    elif [ "$need_wbg" = 1 ]; then
        _proxima_log "installing wasm-bindgen-cli $wbg (~3 min on 2 cores)"
        _proxima_install_wasm_bindgen "$wbg"
    fi
    # Check again: another copy earlier on PATH would otherwise fail later, confusingly.
    _proxima_trunk_ok || { _proxima_log "trunk --version is not $PROXIMA_TRUNK_VERSION after installing"; return 1; }
    _proxima_wasm_bindgen_ok "$wbg" || { _proxima_log "wasm-bindgen-cli is not $wbg after installing"; return 1; }
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

# The Python tests' virtual environment, .venv/ at the root (git-ignored): created, and
# filled from tests/python/requirements.txt, only when that file or the Python changed
# since the last install (a stamp, like node_modules' one). Needs python3 >= 3.9 with venv.
_proxima_ensure_python() {
    local python="${PROXIMA_PYTHON:-python3}" venv="$PROXIMA_ROOT/.venv"
    local requirements="$PROXIMA_ROOT/tests/python/requirements.txt"
    command -v "$python" >/dev/null || { _proxima_log "$python is missing: install Python >= 3.9"; return 1; }
    if ! "$python" -c 'import sys, venv; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
        _proxima_log "$("$python" --version 2>&1) is too old or lacks venv: need Python >= 3.9 with venv"
        return 1
    fi
    local stamp="$venv/.proxima-requirements.sha256" want
    want="$( (cat "$requirements"; "$python" -c 'import sys; print(sys.version)') | sha256sum | cut -d' ' -f1)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
        _proxima_log "ok: .venv (tests/python/requirements.txt unchanged)"
    else
        _proxima_log "installing the Python test environment into .venv (pip; ~750 MB, mostly ray and pyarrow)"
        # A venv belongs to the Python that made it: make it anew when that changed; else
        # pip installs only what differs from the pins.
        if [ "$("$venv/bin/python" --version 2>&1 || true)" != "$("$python" --version 2>&1)" ]; then
            rm -rf "$venv"
            "$python" -m venv "$venv"
        fi
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
        printf '%s\n' "$want" >"$stamp"
    fi
    case ":$PATH:" in
        *":$venv/bin:"*) ;;
        *) export PATH="$venv/bin:$PATH" ;;
    esac
}

proxima_ensure_tools() {
    local browser=1 python=0 arg
    for arg in "$@"; do
        case "$arg" in
            --no-browser) browser=0 ;;
            --python) python=1 ;;
            *) _proxima_log "unknown option: $arg"; return 2 ;;
        esac
    done
    _proxima_ensure_rust
    _proxima_ensure_cargo_tools
    _proxima_ensure_node_modules
    if [ "$browser" = 1 ]; then _proxima_ensure_browser; fi
    if [ "$python" = 1 ]; then _proxima_ensure_python; fi
}

# Run as a script: do it now. Sourced: the caller calls proxima_ensure_tools itself
# (under its own `set -e`, which stops at the first failure).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    proxima_ensure_tools "$@"
fi
