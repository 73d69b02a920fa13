"""`proxima.run` and `proxima.compare` give what the CLI writes, byte for byte; simulations
release the GIL; a panic becomes an exception."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pandas
import pytest

import proxima
from conftest import ROOT, need_data, run_cli

# The example of docs/FORMATS.md.
TOPOLOGY_JSON = {
    "version": 1,
    "name": "two-racks",
    "switches": [{"id": "spine", "role": "spine"}, {"id": "tor0", "role": "tor"}, {"id": "tor1", "role": "tor"}],
    "servers": [{"id": s, "gpus": 4, "nvlink_gbps": 2400.0} for s in ("r0s0", "r0s1", "r1s0", "r1s1")],
    "links": [
        {"a": "tor0", "b": "spine", "bandwidth_gbps": 200.0},
        {"a": "r0s0", "b": "tor0", "bandwidth_gbps": 200.0},
        {"a": "r0s1", "b": "tor0", "bandwidth_gbps": 200.0, "latency_us": 2.0},
        {"a": "tor1", "b": "spine", "bandwidth_gbps": 200.0},
        {"a": "r1s0", "b": "tor1", "bandwidth_gbps": 200.0},
        {"a": "r1s1", "b": "tor1", "bandwidth_gbps": 200.0},
    ],
}


def same_files(py_dir: Path, cli_dir: Path) -> None:
    for name in ("summary.json", "jobs.csv", "timeseries.csv"):
        assert (py_dir / name).read_bytes() == (cli_dir / name).read_bytes(), name


@pytest.mark.parametrize(
    "topology,trace,policy,extra",
    [
        ("teaching", "synthetic:jobs=200,load=1.2", "dally", {"seed": 3}),
        ("racks=2,servers=4,gpus=4,oversub=4", "synthetic:jobs=300", "consolidate", {"mix": "bert:2,resnet50"}),
        ("n32g4", "synthetic:jobs=150,load=0.8,seed=9", "fifo:backfill=off", {"skip": 20, "limit": 100}),
    ],
)
def test_summary_equals_the_cli_byte_for_byte(cli, tmp_path, topology, trace, policy, extra):
    args = ["run", "--topology", topology, "--trace", trace, "--policy", policy, "--out", str(tmp_path / "cli")]
    for k, v in extra.items():
        args += [f"--{k}", str(v)]
    done = run_cli(cli, args, ROOT)
    assert done.returncode == 0, done.stderr
    r = proxima.run(topology, trace, policy, **extra)
    assert r.summary_json == (tmp_path / "cli" / "summary.json").read_text()
    assert r.summary == json.loads(r.summary_json)
    r.write(tmp_path / "py")
    same_files(tmp_path / "py", tmp_path / "cli")
    assert isinstance(r.jobs, pandas.DataFrame) and len(r.jobs) == r.summary["jobs_total"]
    assert list(r.timeseries.columns)[:3] == ["start_s", "end_s", "gpu_util"]


def test_real_trace_file_text_and_parsed_trace_agree_with_the_cli(cli, tmp_path):
    philly = need_data("philly/philly.csv")
    args = ["--topology", "oversub-2048", "--trace", str(philly), "--policy", "dally", "--skip", "50000"]
    done = run_cli(cli, ["run", *args, "--limit", "1500", "--out", str(tmp_path / "cli")], ROOT)
    assert done.returncode == 0, done.stderr
    by_path = proxima.run("oversub-2048", str(philly), "dally", skip=50000, limit=1500)
    assert by_path.summary_json == (tmp_path / "cli" / "summary.json").read_text()
    parsed = proxima.load_trace(philly)
    assert len(parsed) == 82247 and parsed.format == "philly"
    assert proxima.run("oversub-2048", parsed, "dally", skip=50000, limit=1500).summary_json == by_path.summary_json
    # Trace text is labelled <trace>; everything else is the same.
    from_text = proxima.run("oversub-2048", philly.read_text(), "dally", skip=50000, limit=1500)
    assert from_text.summary["trace"] == "<trace>"
    assert {**from_text.summary, "trace": str(philly)} == by_path.summary


@pytest.mark.parametrize("rho", [True, False])
def test_tenants_and_rho_as_the_cli(cli, tmp_path, rho):
    trace = "synthetic:jobs=150,load=1.3,tenants=3"
    args = ["run", "--topology", "n32g4", "--trace", trace, "--policy", "dally:quota=on", "--tenants", "demand",
            "--out", str(tmp_path / "cli")]
    done = run_cli(cli, args + ([] if rho else ["--no-rho"]), ROOT)
    assert done.returncode == 0, done.stderr
    r = proxima.run("n32g4", trace, "dally:quota=on", tenants="demand", rho=rho)
    r.write(tmp_path / "py")
    same_files(tmp_path / "py", tmp_path / "cli")
    assert r.summary["quotas"] == "demand" and len(r.summary["tenants"]) == 3
    assert ("rho_max" in r.summary) == rho
    assert all(("rho" in t) == rho for t in r.summary["tenants"])
    assert any(row["rho"] is not None and row["rho"] == row["rho"] for row in r.jobs.to_dict("records")) == rho


def test_a_parsed_trace_takes_the_tenants_quotas_as_the_cli(cli, tmp_path):
    philly = need_data("philly/philly.csv")
    args = ["--topology", "oversub-2048", "--trace", str(philly), "--policy", "dally:quota=on", "--skip", "50000",
            "--limit", "600", "--tenants", "demand"]
    done = run_cli(cli, ["run", *args, "--out", str(tmp_path / "cli")], ROOT)
    assert done.returncode == 0, done.stderr
    expected = (tmp_path / "cli" / "summary.json").read_text()
    parsed = proxima.load_trace(philly)
    r = proxima.run("oversub-2048", parsed, "dally:quota=on", skip=50000, limit=600, tenants="demand")
    assert r.summary_json == expected
    assert r.summary["quotas"] == "demand" and "rho_p50" in r.summary
    with pytest.raises(proxima.InputError) as e:
        proxima.run("oversub-2048", parsed, "dally", limit=10, tenants="nonsense=")
    assert e.value.file == "--tenants"


def test_json_topology_file_and_dict(cli, tmp_path):
    path = tmp_path / "two-racks.json"
    path.write_text(json.dumps(TOPOLOGY_JSON))
    done = run_cli(cli, ["run", "--topology", str(path), "--trace", "synthetic:jobs=100", "--policy", "dally",
                         "--out", str(tmp_path / "cli")], ROOT)
    assert done.returncode == 0, done.stderr
    assert proxima.run(path, "synthetic:jobs=100", "dally").summary_json == (tmp_path / "cli" / "summary.json").read_text()
    from_dict = proxima.run(TOPOLOGY_JSON, "synthetic:jobs=100", "dally")
    assert from_dict.summary["gpus"] == 16 and from_dict.summary["topology"] == "two-racks"
    info = proxima.topology(TOPOLOGY_JSON)
    assert (info["name"], info["gpus"], info["tiers"][0]) == ("two-racks", 16, "server")


def test_event_hash_equals_the_cli(cli, tmp_path):
    done = run_cli(cli, ["run", "--topology", "teaching", "--trace", "synthetic:jobs=80", "--policy", "dally",
                         "--events", str(tmp_path / "events.jsonl")], ROOT)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.split("event-log hash ")[1][:16]
    assert proxima.run("teaching", "synthetic:jobs=80", "dally", event_hash=True).event_hash == printed
    assert proxima.run("teaching", "synthetic:jobs=80", "dally").event_hash is None


def test_compare_writes_what_the_cli_writes(cli, tmp_path):
    policies = ["fifo", "consolidate", "dally:preempt=off"]
    args = ["compare", "--topology", "teaching", "--trace", "synthetic:jobs=150", "--seed", "2"]
    for p in policies:
        args += ["--policy", p]
    done = run_cli(cli, [*args, "--out", str(tmp_path / "cli")], ROOT)
    assert done.returncode == 0, done.stderr
    c = proxima.compare("teaching", "synthetic:jobs=150", policies, seed=2)
    c.write(tmp_path / "py")
    assert (tmp_path / "py" / "compare.json").read_bytes() == (tmp_path / "cli" / "compare.json").read_bytes()
    for p in policies:
        name = "dally_preempt-off" if p == "dally:preempt=off" else p
        same_files(tmp_path / "py" / name, tmp_path / "cli" / name)
    assert list(c.table.index) == policies
    # Communication overhead in job-seconds, then in GPU-seconds (docs/METRICS.md).
    columns = list(c.table.columns)
    assert columns.index("comm_overhead_gpu_s") == columns.index("comm_overhead_s") + 1
    # A bad policy fails before anything runs.
    with pytest.raises(proxima.InputError, match="unknown policy 'lottery'"):
        proxima.compare("teaching", "synthetic:jobs=150", ["fifo", "lottery"])


def test_listings():
    assert {p["name"] for p in proxima.policies()} >= {"fifo", "consolidate", "dally"}
    dally = next(p for p in proxima.policies() if p["name"] == "dally")
    assert "arXiv:2401.16492" in dally["source"] and "timers=300/150" in dally["options"]
    assert "oversub-2048" in proxima.presets()
    names = [m["name"] for m in proxima.models()]
    assert "bert" in names and "resnet50" in names
    assert proxima.topology("oversub-2048")["gpus"] == 2048


def test_kueue_and_volcano_files_read_as_the_cli_reads_them(cli):
    """The cluster of Kueue's TAS guide (tests/fixtures/kueue/cluster.yaml) goes through the
    same core reader as `proxima topologies --json kueue:PATH`."""
    fixture = ROOT / "tests" / "fixtures" / "kueue" / "cluster.yaml"
    info = proxima.topology(f"kueue:{fixture},nic_gbps=400")
    assert info["gpus"] == 64
    rack, block = "cloud.provider.com/topology-rack", "cloud.provider.com/topology-block"
    assert info["tiers"] == ["server", rack, block, "cluster"]
    done = run_cli(cli, ["topologies", "--json", f"kueue:{fixture},nic_gbps=400"], ROOT)
    assert done.returncode == 0, done.stderr
    assert info["json"] == json.loads(done.stdout)
    with pytest.raises(proxima.InputError) as caught:
        proxima.topology(f"kueue:{fixture},gpus=4")
    assert (caught.value.file, caught.value.field) == ("--topology", "gpus")
    # Volcano's HyperNodes too: the tree of its guide, GPUs per node from the options.
    hypernodes = ROOT / "tests" / "fixtures" / "volcano" / "hypernodes.yaml"
    info = proxima.topology(f"volcano:{hypernodes},gpus=4")
    assert (info["gpus"], info["tiers"]) == (32, ["server", "rack", "zone", "tier-3"])


def test_kueue_tas_runs_on_a_kueue_file_as_the_cli_runs_it_and_refuses_a_level_it_lacks(cli, tmp_path):
    """`kueue-tas` with a level the Kueue file names gives the CLI's summary; a level the
    cluster lacks is an `InputError` on the policy before the run, as in the CLI (exit 2)."""
    fixture = ROOT / "tests" / "fixtures" / "kueue" / "cluster.yaml"
    topology = f"kueue:{fixture},nic_gbps=100"
    policy = "kueue-tas:required=cloud.provider.com/topology-rack"
    r = proxima.run(topology, "synthetic:jobs=80,load=1.2", policy, mix="llm")
    done = run_cli(cli, ["run", "--topology", topology, "--trace", "synthetic:jobs=80,load=1.2", "--mix", "llm",
                         "--policy", policy, "--out", str(tmp_path / "cli")], ROOT)
    assert done.returncode == 0, done.stderr
    assert r.summary == json.loads((tmp_path / "cli" / "summary.json").read_text())
    with pytest.raises(proxima.InputError) as caught:
        proxima.run(topology, "synthetic:jobs=5", "kueue-tas:required=aisle")
    assert (caught.value.file, caught.value.field) == ("--policy", "required")
    assert "unknown topology level 'aisle'" in caught.value.message
    # A Slurm topology.yaml reads as its cluster-default tree, as `topologies --json` does.
    yaml_file = ROOT / "tests" / "fixtures" / "slurm" / "topology.yaml"
    info = proxima.topology(f"slurm:{yaml_file},gpus=8")
    done = run_cli(cli, ["topologies", "--json", f"slurm:{yaml_file},gpus=8"], ROOT)
    assert done.returncode == 0, done.stderr
    assert info["json"] == json.loads(done.stdout)


@pytest.mark.parametrize("topology, policy", [
    ("kueue:tests/fixtures/kueue/cluster.yaml,nic_gbps=100",
     "kueue-tas:required=cloud.provider.com/topology-rack,required_for_s=auto,evict=on"),
    ("volcano:tests/fixtures/volcano/hypernodes.yaml,gpus=4", "volcano:hard=1,hard_for_s=auto,evict=on"),
    ("slurm:tests/fixtures/slurm/topology-block.conf,gpus=1", "slurm:block=on,wait_s=auto,evict=on"),
])
def test_each_schedulers_policy_with_a_tuned_limit_and_eviction_runs_as_the_cli(cli, tmp_path, topology, policy):
    """Kueue's, Volcano's and Slurm's placement, each with Proxima's tuned time limit and
    eviction, on a file of that scheduler: the same summary as the CLI's, byte for byte."""
    topology = topology.replace("tests/", f"{ROOT / 'tests'}/", 1)
    r = proxima.run(topology, "synthetic:jobs=120,load=1.2", policy, mix="llm")
    done = run_cli(cli, ["run", "--topology", topology, "--trace", "synthetic:jobs=120,load=1.2", "--mix", "llm",
                         "--policy", policy, "--out", str(tmp_path / "cli")], ROOT)
    assert done.returncode == 0, done.stderr
    assert r.summary == json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert r.summary["jobs_completed"] > 0


def test_calibrate_equals_the_cli(cli):
    path = need_data("pollux/placements/bert.csv")
    done = run_cli(cli, ["calibrate", str(path), "--json"], ROOT)
    assert done.returncode == 0, done.stderr
    assert proxima.calibrate(path) == json.loads(done.stdout)


def test_simulations_release_the_gil():
    """While one thread simulates, another runs Python: with the GIL held, the counting
    thread would stand still until the run returned."""
    spans = {}

    def simulate():
        # Runs are repeated until half a second has passed, so the check does not hang on
        # how long one run of a given trace takes; an error would end the thread early and
        # is kept to be raised below.
        spans["start"] = time.perf_counter()
        try:
            while time.perf_counter() - spans["start"] < 0.5:
                proxima.run("oversub-2048", "synthetic:jobs=30000,load=1.0", "dally")
        except Exception as error:  # noqa: BLE001 - re-raised in the test's thread
            spans["error"] = error
        spans["end"] = time.perf_counter()

    ticks = []
    worker = threading.Thread(target=simulate)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    if "error" in spans:
        raise spans["error"]
    during = [t for t in ticks if spans["start"] + 0.05 < t < spans["end"] - 0.05]
    assert spans["end"] - spans["start"] > 0.2, "the run is too short to tell"
    # Without the GIL released, nothing could be counted while the run was under way.
    assert len(during) > 1000


def test_a_panic_becomes_an_exception():
    with pytest.raises(RuntimeError, match="panicked: a deliberate panic.*a bug in Proxima"):
        proxima._native._panic_for_test()
