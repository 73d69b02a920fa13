"""Sweeps on a real two-node Ray cluster on this machine (a head and a worker node, one CPU
each), inside a network namespace of their own so that they talk over loopback only (Ray
otherwise binds to the machine's interface address): the table is the local one byte for
byte, and losing the worker node mid-sweep still gives the full, exact table.

Run as a whole, this file is one test that starts `unshare -n` (root only) and runs itself
again inside, where loopback is the only interface; the tests below run there. Only the Ray
processes these tests start are stopped (`ray stop` would stop every Ray of the machine).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import pytest

INSIDE = os.environ.get("PROXIMA_RAY_NETNS") == "1"
PORT = 6390


if not INSIDE:

    def test_ray_suite_in_its_own_network_namespace():
        if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("ip") is None:
            pytest.skip("needs root, unshare and ip for a network namespace of its own")
        env = {**os.environ, "PROXIMA_RAY_NETNS": "1", "RAY_USAGE_STATS_ENABLED": "0"}
        script = 'ip link set lo up && exec "$0" -m pytest -q -p no:cacheprovider -rA "$1"'
        started = time.monotonic()
        done = subprocess.run(
            ["unshare", "-n", "sh", "-c", script, sys.executable, __file__],
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        print(done.stdout[-6000:])
        print(f"Ray tests in the namespace took {time.monotonic() - started:.1f} s")
        assert done.returncode == 0, done.stdout[-10000:] + done.stderr[-4000:]
        assert re.search(r"\b2 passed\b", done.stdout), done.stdout[-3000:]

else:
    import proxima
    from ray_cluster import interfaces, kill_node, running_task, start_cluster

    @pytest.fixture(scope="module")
    def cluster():
        assert interfaces() == ["lo"], "not in a network namespace of our own"
        with start_cluster(PORT) as c:
            yield c

    def table(out):
        return (out / "runs.csv").read_bytes(), (out / "runs.parquet").read_bytes()

    def test_ray_and_local_tables_are_identical(cluster, tmp_path):
        spec = (
            "[grid]\ntopology = ['teaching', 'racks=2,servers=4,gpus=4,oversub=4']\n"
            "trace = ['synthetic:jobs=400,load=1.0']\npolicy = ['consolidate', 'dally']\nseed = [1, 2, 3]\n"
        )
        proxima.sweep(spec, tmp_path / "local", threads=2)
        on_ray = proxima.sweep(spec, tmp_path / "ray", ray_address=cluster["address"], batch_size=2)
        assert len(on_ray) == 12
        assert table(tmp_path / "ray") == table(tmp_path / "local")
        # With tenants' quotas and ρ: the isolated runs are made on the workers too.
        rho = (
            "[grid]\ntopology = 'racks=2,servers=2,gpus=4'\ntrace = 'synthetic:jobs=60,load=1.6,tenants=2'\n"
            "policy = ['fifo', 'dally']\ntenants = ['equal', 'demand']\nrho = [false, true]\n"
        )
        proxima.sweep(rho, tmp_path / "rho-local", threads=2)
        rho_on_ray = proxima.sweep(rho, tmp_path / "rho-ray", ray_address=cluster["address"], batch_size=2)
        assert rho_on_ray["rho_max"].notna().sum() == 4
        assert table(tmp_path / "rho-ray") == table(tmp_path / "rho-local")

    def test_losing_the_worker_node_mid_sweep_gives_the_full_exact_table(cluster, tmp_path):
        spec = tmp_path / "lose.toml"
        # Each run lasts about half a second in the test build (Cargo's dev profile), long
        # enough for the node to be lost with a batch in hand; 24 runs, so that most of them
        # are still to do when it is.
        spec.write_text(
            "[grid]\ntopology = ['racks=2,servers=8,gpus=4,oversub=4']\ntrace = ['synthetic:jobs=20000,load=1.1']\n"
            "policy = ['consolidate', 'dally', 'dally:preempt=off']\nseed = [1, 2, 3, 4, 5, 6, 7, 8]\n"
        )
        expected = tmp_path / "local"
        proxima.sweep(spec, expected, threads=2)
        out = tmp_path / "ray"
        # Without Ray's own retries, a batch lost with the node is submitted again by the
        # driver, which says so: proof that the node went with work in hand.
        driver = subprocess.Popen(
            [sys.executable, "-m", "proxima.sweep", str(spec), "--out", str(out), "--ray", cluster["address"],
             "--batch-size", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PROXIMA_RAY_RETRIES": "0"},
        )
        # Lose the worker node while it runs a batch, once a few runs are recorded.
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and driver.poll() is None:
            if len(list(out.glob("runs/*/summary.json"))) >= 4 and running_task(cluster["worker"], "_run_batch"):
                break
            time.sleep(0.02)
        assert driver.poll() is None, f"the sweep ended before the node could be lost: {driver.stdout.read()}"
        kill_node(cluster["worker"])
        recorded_when_lost = len(list(out.glob("runs/*/summary.json")))
        output, _ = driver.communicate(timeout=600)
        assert driver.returncode == 0, output
        assert recorded_when_lost < 24, "the sweep was over before the node was lost"
        assert len(list(out.glob("runs/*/summary.json"))) == 24
        assert table(out) == table(expected)
        # The batch the worker node had in hand was submitted again, and ran.
        assert re.search(r"; [1-9]\d* batches submitted again after a loss", output), output
        print(output[-600:])
