#!/usr/bin/env bash
# Fuzzes one target (or all) for a while: scripts/fuzz.sh [TARGET|all] [SECONDS]
# Targets: trace, topology_json, slurm, topology_arg, policy, share (see fuzz/fuzz_targets). New inputs that
# grow coverage land in fuzz/corpus/TARGET; commit the interesting ones, since the corpus is
# replayed by `cargo test` (crates/proxima-core/tests/integration/fuzz_corpus.rs).
#
# cargo-fuzz needs nightly compiler flags; this machine has one stable toolchain, so the
# script sets RUSTC_BOOTSTRAP=1 for the fuzz build only. Not part of scripts/test.sh: fuzzing
# runs for minutes, CI replays the corpus instead.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_FUZZ_VERSION="0.13.1"
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    echo "installing cargo-fuzz $CARGO_FUZZ_VERSION" >&2
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi
target="${1:-all}"
seconds="${2:-600}"
targets=(trace topology_json slurm topology_arg policy share)
[ "$target" = all ] || targets=("$target")
for t in "${targets[@]}"; do
    echo "fuzzing $t for $seconds s" >&2
    RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" "fuzz/corpus/$t" -- -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048
done
