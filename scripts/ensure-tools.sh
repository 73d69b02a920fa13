# shellcheck shell=bash
# Installs what building and testing Proxima needs, and only what is missing or at
# the wrong version, so a second run takes seconds. Sourced by scripts/serve.sh and
# scripts/test.sh (it puts node_modules/.bin first on PATH for them):
#
#   source scripts/ensure-tools.sh
#   proxima_ensure_tools               # everything
#   proxima_ensure_tools --no-browser  # without Chromium: enough to build and serve
#   proxima_ensure_tools --python      # also the Python test environment (.venv/)
#   proxima_ensure_tools --python-only # only that (scripts/test.sh, in the background)
#   proxima_ensure_tools --no-cargo-tools, --cargo-tools-only [--with-wasm-pack]
#                                      # without the tools cargo builds (wasm-bindgen-cli,
#                                      # Trunk; wasm-pack when asked), or only them: they
#                                      # build in the background while something else does
#
# It can also be run on its own: `bash scripts/ensure-tools.sh [--no-browser]`.
#
# What it expects on the machine: rustup/cargo, node >= 20 with npm, apt (Debian).
# Everything else comes from the registries, at pinned versions:
#   - the wasm32-unknown-unknown target            (rustup)
#   - wasm-bindgen-cli = wasm-bindgen in Cargo.lock (crates.io)
#   - trunk, and wasm-pack when asked              (crates.io, versions below)
#   - chromium + chromium-driver                   (Debian; only when missing)
#   - binaryen (wasm-opt) and playwright-core      (npm ci, pinned in package-lock.json)
#   - with --python: a virtual environment .venv/ with maturin, pytest, ray, pandas,
#     pyarrow and matplotlib (PyPI, pinned in tests/python/requirements.txt); it puts
#     .venv/bin first on PATH

PROXIMA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

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

    # Brings Cargo.lock up to date after someone changed a Cargo.toml, before we read
    # wasm-bindgen's version from it; quick when nothing is missing.
    (cd "$PROXIMA_ROOT" && cargo fetch --quiet)
}

# A build tool need not be fast, only quick to build: Cargo reads profile settings from
# the environment, and `cargo install` honours them, so the tools are built without the
# fat LTO and single codegen unit of their own release profiles, and without optimisation.
# `_proxima_light_cargo ARGS...` runs cargo with that profile.
_proxima_light_cargo() {
    env CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
        CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=0 cargo "$@"
}

# Trunk builds and serves the site (Trunk.toml); wasm-pack runs the browser tests. 0.21 is
# the last Trunk that builds with this toolchain (0.22 needs rustc 1.96.1).
PROXIMA_TRUNK_VERSION="0.21.14"
PROXIMA_WASM_PACK_VERSION="0.15.1"

# Installs the cargo tool $1 at version $2 unless `$1 --version` already says so, with the
# light profile above: neither does heavy work (Trunk hashes and copies files and calls
# wasm-bindgen and wasm-opt; wasm-pack calls cargo and the test runner). Without their
# default features: no TLS, since neither may download anything here (Trunk.toml sets
# `offline`, wasm-pack runs with `--mode no-install`).
_proxima_ensure_cargo_tool() {
    local tool="$1" version="$2"
    if [ "$("$tool" --version 2>/dev/null || true)" = "$tool $version" ]; then
        _proxima_log "ok: $tool $version"
        return 0
    fi
    _proxima_log "installing $tool $version (cargo install --locked)"
    _proxima_light_cargo install --quiet --locked --no-default-features "$tool" --version "$version"
    [ "$("$tool" --version 2>/dev/null || true)" = "$tool $version" ] ||
        { _proxima_log "$tool is not $version after installing"; return 1; }
}

# wasm-bindgen rewrites every wasm file of the site and of the browser tests, so the crates
# that do that work (walrus and the wasm-bindgen passes over the module) get opt-level 1:
# without it wasm-bindgen took about 4x the CPU time on the page's debug module (8 s
# against 2 s), and with it only on them the install takes about 30% less CPU time than
# all at opt-level 1, for 2.4-2.8 s on that module. Without its default features it builds
# without rustls and ring: the test runner only talks to a local chromedriver. (Not
# --locked: its lock file pins a webpki-roots version that the registry here lacks.)
_proxima_wasm_bindgen_hot_crates=(walrus wasmparser wasm-encoder wasm-bindgen-cli-support
    wasm-bindgen-wasm-interpreter wasm-bindgen-wasm-conventions wasm-bindgen-externref-xform
    wasm-bindgen-multi-value-xform wasm-bindgen-threads-xform wasm-bindgen-shared id-arena
    leb128 hashbrown indexmap)

_proxima_install_wasm_bindgen() {
    local config=() crate
    for crate in "${_proxima_wasm_bindgen_hot_crates[@]}"; do
        config+=(--config "profile.release.package.$crate.opt-level=1")
    done
    _proxima_light_cargo install --quiet "${config[@]}" --no-default-features wasm-bindgen-cli \
        --version "$1" --bin wasm-bindgen --bin wasm-bindgen-test-runner
}

# Both wasm-bindgen and wasm-bindgen-test-runner, at version $1.
_proxima_wasm_bindgen_ok() {
    [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $1" ] &&
        [ "$(wasm-bindgen-test-runner --version 2>/dev/null || true)" = "wasm-bindgen-test-runner $1" ]
}

_proxima_ensure_wasm_bindgen() {
    local wbg
    wbg="$(_proxima_lock_version wasm-bindgen)"
    if [ -z "$wbg" ]; then
        _proxima_log "no wasm-bindgen in Cargo.lock: cannot pick a wasm-bindgen-cli version"
        return 1
    fi
    if _proxima_wasm_bindgen_ok "$wbg"; then
        _proxima_log "ok: wasm-bindgen-cli $wbg"
        return 0
    fi
    _proxima_log "installing wasm-bindgen-cli $wbg (~3 min on 2 cores)"
    _proxima_install_wasm_bindgen "$wbg"
    # Check again: another copy earlier on PATH would otherwise fail later, confusingly.
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
    # playwright-core for the end-to-end tests, and binaryen@132's wasm-opt for Trunk,
    # which finds it on PATH (Debian's is too old to read the module).
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
        # A venv belongs to the Python that made it: make it anew when that changed, or
        # when it has no pip (a set-up stopped while venv was still installing it); else
        # pip installs only what differs from the pins.
        if [ "$("$venv/bin/python" --version 2>&1 || true)" != "$("$python" --version 2>&1)" ] ||
            ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
            rm -rf "$venv"
            "$python" -m venv "$venv"
        fi
        # --no-compile: Python compiles what a test imports when it imports it, instead of
        # every module of ray and pyarrow up front (CPU time a cold set-up is short of).
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile -r "$requirements"
        printf '%s\n' "$want" >"$stamp"
    fi
    case ":$PATH:" in
        *":$venv/bin:"*) ;;
        *) export PATH="$venv/bin:$PATH" ;;
    esac
}

# Stops a background job and everything it started (cargo, rustc, pytest, Chromium):
# for the scripts that run installs or test lanes side by side.
proxima_stop_tree() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do proxima_stop_tree "$child"; done
    kill "$1" 2>/dev/null || true
}

# The tools cargo builds: wasm-bindgen-cli and Trunk, and wasm-pack when $1 is 1.
_proxima_ensure_cargo_tools() {
    _proxima_ensure_wasm_bindgen
    _proxima_ensure_cargo_tool trunk "$PROXIMA_TRUNK_VERSION"
    if [ "$1" = 1 ]; then _proxima_ensure_cargo_tool wasm-pack "$PROXIMA_WASM_PACK_VERSION"; fi
}

proxima_ensure_tools() {
    local browser=1 python=0 cargo_tools=1 wasm_pack=0 arg
    for arg in "$@"; do
        case "$arg" in
            --no-browser) browser=0 ;;
            --no-cargo-tools) cargo_tools=0 ;;
            --with-wasm-pack) wasm_pack=1 ;;
            --python) python=1 ;;
            --python-only) _proxima_ensure_python; return ;;
            --cargo-tools-only) cargo_tools=2 ;;
            *) _proxima_log "unknown option: $arg"; return 2 ;;
        esac
    done
    if [ "$cargo_tools" = 2 ]; then
        _proxima_ensure_rust
        _proxima_ensure_cargo_tools "$wasm_pack"
        return
    fi
    _proxima_ensure_rust
    if [ "$cargo_tools" = 1 ]; then _proxima_ensure_cargo_tools "$wasm_pack"; fi
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
