"""The scenario every front end runs through the session (`tests/inputs/front_ends.json`):
Python's `compare` writes what the CLI's `compare` writes, byte for byte, for every policy.
`crates/proxima-cli/tests/integration/front_ends.rs` holds the page's worker to the CLI on
the same scenario, so the three front ends agree."""

from __future__ import annotations

import json

import pytest

import proxima
from conftest import ROOT, run_cli

CASE = json.loads((ROOT / "tests" / "inputs" / "front_ends.json").read_text())
FILES = ("summary.json", "jobs.csv", "timeseries.csv")


def result_dir_name(policy: str) -> str:
    """The folder `proxima compare --out` writes a policy's files into
    (`proxima_core::metrics::result_dir_name`)."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "-.") else "-" if c == "=" else "_" for c in policy)


def test_python_and_the_cli_write_the_same_bytes_for_every_policy(cli, tmp_path):
    args = ["compare", "--topology", CASE["topology"], "--trace", CASE["trace"], "--seed", str(CASE["seed"])]
    for p in CASE["policies"]:
        args += ["--policy", p]
    done = run_cli(cli, [*args, "--out", str(tmp_path / "cli")], ROOT)
    assert done.returncode == 0, done.stderr
    c = proxima.compare(CASE["topology"], CASE["trace"], CASE["policies"], seed=CASE["seed"])
    c.write(tmp_path / "py")
    assert (tmp_path / "py" / "compare.json").read_bytes() == (tmp_path / "cli" / "compare.json").read_bytes()
    for p in CASE["policies"]:
        for name in FILES:
            written = (tmp_path / "cli" / result_dir_name(p) / name).read_bytes()
            assert (tmp_path / "py" / result_dir_name(p) / name).read_bytes() == written, f"{p}: {name}"
    # ρ was made by both (the scenario has two tenants).
    assert all(json.loads((tmp_path / "cli" / result_dir_name(p) / "summary.json").read_text())["rho_max"]
               is not None for p in CASE["policies"])


def test_a_policy_the_cluster_lacks_is_refused_by_python_as_by_the_cli(cli):
    policies = [*CASE["policies"], "kueue-tas:required=nowhere"]
    args = ["compare", "--topology", CASE["topology"], "--trace", CASE["trace"]]
    for p in policies:
        args += ["--policy", p]
    done = run_cli(cli, args, ROOT)
    assert done.returncode == 2
    with pytest.raises(proxima.InputError) as refused:
        proxima.compare(CASE["topology"], CASE["trace"], policies)
    assert done.stderr.strip() == f"error: {refused.value}"
    assert (refused.value.file, refused.value.field) == ("--policy", "required")
