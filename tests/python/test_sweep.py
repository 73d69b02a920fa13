"""Sweeps from Python: the same table as `proxima sweep`, stable run ids, resuming after an
interruption, specs as files, text or dicts."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas
import pyarrow.parquet as pq

import proxima
from conftest import ROOT, run_cli

SMALL = """
[sweep]
name = "small"

[grid]
topology = ["teaching", "racks=2,servers=4,gpus=4,oversub=4"]
trace = ["synthetic:jobs=300,load=1.0"]
policy = ["consolidate", "dally"]
seed = [1, 2]
"""


def table_files(out: Path):
    return (out / "runs.csv").read_bytes(), (out / "runs.parquet").read_bytes()


def test_python_and_cli_write_the_same_table(cli, tmp_path):
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL)
    done = run_cli(cli, ["sweep", str(spec), "--out", str(tmp_path / "cli"), "--threads", "2"], ROOT)
    assert done.returncode == 0, done.stderr
    table = proxima.sweep(spec, tmp_path / "py", threads=1)
    assert table_files(tmp_path / "py") == table_files(tmp_path / "cli")
    assert isinstance(table, pandas.DataFrame) and len(table) == 8
    assert list(table.columns[:5]) == ["run_id", "topology", "trace", "policy", "seed"]
    assert list(table["run_id"]) == sorted(table["run_id"])
    # The Parquet file holds the same table, with types.
    assert pq.read_table(tmp_path / "py" / "runs.parquet").to_pandas().equals(table)
    # Each row is the run's summary.json.
    row = table.iloc[0]
    # Without `rho = true` a sweep makes no isolated runs: the summaries are those of a run without ρ.
    r = proxima.run(row["topology"], row["trace"], row["policy"], seed=int(row["seed"]), rho=False)
    assert r.summary["avg_jct_s"] == row["avg_jct_s"] and r.summary["tier_counts"]["rack"] == row["tier_counts.rack"]
    assert (tmp_path / "py" / "runs" / row["run_id"] / "summary.json").read_text() == r.summary_json


RHO = """
[grid]
topology = "racks=2,servers=2,gpus=4"
trace = "synthetic:jobs=60,load=1.6,tenants=2"
policy = ["fifo", "dally"]
tenants = ["equal", "demand"]
rho = [false, true]
"""


def test_a_rho_sweep_is_the_clis_and_each_run_is_proxima_run(cli, tmp_path):
    spec = tmp_path / "rho.toml"
    spec.write_text(RHO)
    done = run_cli(cli, ["sweep", str(spec), "--out", str(tmp_path / "cli"), "--threads", "2"], ROOT)
    assert done.returncode == 0, done.stderr
    table = proxima.sweep(spec, tmp_path / "py", threads=1)
    assert table_files(tmp_path / "py") == table_files(tmp_path / "cli")
    assert len(table) == 8 and list(table.columns[-3:]) == ["rho_max", "rho_p50", "rho_over_1"]
    assert table[~table["rho"]][["rho_max", "rho_p50", "rho_over_1"]].isna().all().all()
    for _, row in table[table["rho"]].iterrows():
        r = proxima.run(row["topology"], row["trace"], row["policy"], tenants=row["tenants"])
        assert r.summary["quotas"] == row["tenants"] == row["quotas"]
        assert (r.summary["rho_max"], r.summary["rho_p50"], r.summary["rho_over_1"]) == (
            row["rho_max"], row["rho_p50"], row["rho_over_1"])
        assert (tmp_path / "py" / "runs" / row["run_id"] / "summary.json").read_text() == r.summary_json


def test_specs_as_text_and_dicts_give_the_same_runs(tmp_path):
    from_text = proxima.sweep(SMALL)
    grid = {
        "topology": ["teaching", "racks=2,servers=4,gpus=4,oversub=4"],
        "trace": "synthetic:jobs=300,load=1.0",
        "policy": ["consolidate", "dally"],
        "seed": [1, 2],
    }
    from_dict = proxima.sweep({"grid": grid}, tmp_path / "d")
    assert from_text.equals(from_dict)


def test_ids_do_not_depend_on_axis_order_and_extending_a_sweep_reuses_runs(tmp_path):
    out = tmp_path / "out"
    first = proxima.sweep(SMALL, out)
    stamps = {d.name: (d / "summary.json").stat().st_mtime_ns for d in (out / "runs").iterdir()}
    bigger = SMALL.replace("seed = [1, 2]", "seed = [2, 1, 3]").replace('policy = ["consolidate", "dally"]',
                                                                          'policy = ["dally", "consolidate"]')
    plan = proxima._sweep.plan(bigger)
    assert len(plan) == 12
    assert set(first["run_id"]) <= {r["run_id"] for r in plan.runs()}
    assert len(plan.pending(str(out))) == 4
    second = proxima.sweep(bigger, out)
    assert len(second) == 12
    for d in (out / "runs").iterdir():
        if d.name in stamps:
            assert (d / "summary.json").stat().st_mtime_ns == stamps[d.name], "a finished run ran again"


def test_compound_axes_and_policy_options(tmp_path):
    spec = """
[grid]
policy = ["dally"]
"policy.timers" = ["0/0", "300/150"]
"policy.autotune" = [false]
seed = [1]

[[grid.cluster]]
name = "small"
topology = "teaching"
trace = "synthetic:jobs=120"

[[grid.cluster]]
name = "congested"
topology = "racks=2,servers=4,gpus=4,oversub=8"
trace = "synthetic:jobs=120,load=1.5"
limit = 100
"""
    table = proxima.sweep(spec, tmp_path / "out")
    assert list(table.columns[:8]) == ["run_id", "policy", "policy.timers", "policy.autotune", "seed", "cluster",
                                       "topology", "trace"]
    assert "limit" in table.columns
    congested = table[table["cluster"] == "congested"]
    assert set(congested["jobs_total"]) == {100}
    assert table[table["cluster"] == "small"]["limit"].isna().all()
    r = proxima.run("teaching", "synthetic:jobs=120", "dally:timers=0/0,autotune=off")
    small = table[(table["cluster"] == "small") & (table["policy.timers"] == "0/0")].iloc[0]
    assert small["avg_jct_s"] == r.summary["avg_jct_s"]


def test_an_interrupted_sweep_resumes_with_the_same_table(tmp_path):
    """Kill a sweep (SIGKILL, no chance to tidy up) once some runs are recorded, start it
    again: it runs only what is missing, and the table is byte for byte that of a sweep
    that was never interrupted."""
    spec = tmp_path / "resume.toml"
    spec.write_text(
        "[grid]\ntopology = ['racks=2,servers=8,gpus=4,oversub=4']\ntrace = ['synthetic:jobs=4000,load=1.1']\n"
        "policy = ['consolidate', 'dally', 'dally:preempt=off']\nseed = [1, 2, 3, 4, 5, 6]\n"
    )
    out = tmp_path / "interrupted"
    cmd = [sys.executable, "-m", "proxima.sweep", str(spec), "--out", str(out), "--threads", "1"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list((out / "runs").glob("*/summary.json"))) >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, f"the sweep ended before it could be interrupted: {proc.stderr.read()}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = {p.parent.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*/summary.json")}
    assert 3 <= len(finished) < 18 and not (out / "runs.csv").exists()
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for rid, stamp in finished.items():
        assert (out / "runs" / rid / "summary.json").stat().st_mtime_ns == stamp, "a finished run ran again"
    proxima.sweep(spec, tmp_path / "whole", threads=2)
    assert table_files(out) == table_files(tmp_path / "whole")
    # No temporary files are left behind by the runs that finished.
    assert not [p for p in (out / "runs").rglob(".*.tmp")]
    assert len(list((out / "runs").iterdir())) >= 18


def test_run_files_on_request(tmp_path):
    proxima.sweep(SMALL, tmp_path / "out", files=True)
    some = next((tmp_path / "out" / "runs").iterdir())
    assert {p.name for p in some.iterdir()} == {"params.json", "summary.json", "jobs.csv", "timeseries.csv"}
