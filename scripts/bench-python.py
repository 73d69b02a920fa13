"""Measures the Python package against the CLI (docs/PERFORMANCE.md, "Python and sweeps"):

  .venv/bin/python scripts/bench-python.py overhead   # proxima.run vs proxima run, full Philly trace
  .venv/bin/python scripts/bench-python.py sweep      # the paper sweep on 1 and 2 local threads
  .venv/bin/python scripts/bench-python.py ray        # the paper sweep on a two-node Ray cluster
                                                      # (root: in a network namespace of its own)

Needs the release CLI (cargo build --release -p proxima-cli), the package built in release
(pip install crates/proxima-py), and the Philly trace. Prints medians.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = str(ROOT / "target" / "release" / "proxima")
DATA = Path(os.environ.get("PROXIMA_DATA") or ROOT / ".." / "shared" / "data")
PHILLY = str(DATA / "philly" / "philly.csv")
# One part of `proxima experiment paper` as a sweep spec (sweeps/paper/ holds all of them);
# another spec can be named in PROXIMA_BENCH_SPEC.
PAPER = os.environ.get("PROXIMA_BENCH_SPEC") or str(ROOT / "sweeps" / "paper" / "oversub.toml")


def spec_runs(spec):
    """How many runs the spec plans (`proxima sweep --dry-run` prints a header and one line a run)."""
    out = subprocess.run([CLI, "sweep", spec, "--out", "-", "--dry-run"], check=True, capture_output=True,
                         text=True).stdout
    return len(out.splitlines()) - 1


def median_of(n, f):
    return statistics.median(f() for _ in range(n))


def overhead(repeats=7):
    import proxima

    def cli_process():
        t = time.perf_counter()
        subprocess.run([CLI, "run", "--topology", "oversub-2048", "--trace", PHILLY, "--policy", "dally"],
                       check=True, capture_output=True)
        return time.perf_counter() - t

    def py_call():
        t = time.perf_counter()
        proxima.run("oversub-2048", PHILLY, "dally")
        return time.perf_counter() - t

    trace = proxima.load_trace(PHILLY)
    sims = []

    def py_parsed():
        t = time.perf_counter()
        r = proxima.run("oversub-2048", trace, "dally")
        sims.append(r.simulation_s)
        return time.perf_counter() - t

    bench = subprocess.run([CLI, "bench", "targets", "--repeats", str(repeats)], check=True, capture_output=True,
                           text=True).stdout
    print(bench)
    # Interleaved, so that the load of a shared machine weighs on all three alike.
    rounds = [(cli_process(), py_call(), py_parsed()) for _ in range(repeats)]
    cli, py, parsed = (statistics.median(r[i] for r in rounds) for i in range(3))
    sim = statistics.median(sims)
    print(f"CLI process (proxima run, full Philly, oversub-2048, dally): {cli:.3f} s")
    print(f"proxima.run(path) whole call: {py:.3f} s ({py / cli:.3f}x the CLI process)")
    print(f"proxima.run(parsed Trace) whole call: {parsed:.3f} s; simulation itself {sim:.4f} s")


def sweep_local():
    runs = spec_runs(PAPER)
    name = Path(PAPER).name
    for threads in (1, 2):
        times = []
        for _ in range(3):
            out = tempfile.mkdtemp(prefix="prx-bench-")
            t = time.perf_counter()
            subprocess.run([CLI, "sweep", PAPER, "--out", out, "--threads", str(threads)], check=True,
                           capture_output=True)
            times.append(time.perf_counter() - t)
            shutil.rmtree(out)
        m = statistics.median(times)
        print(f"proxima sweep {name}, {threads} thread(s): median {m:.1f} s of 3, {runs / m:.1f} runs/s")
    import proxima

    out = tempfile.mkdtemp(prefix="prx-bench-")
    t = time.perf_counter()
    proxima.sweep(PAPER, out, threads=2, progress=False)
    m = time.perf_counter() - t
    shutil.rmtree(out)
    print(f"proxima.sweep({name}, threads=2): {m:.1f} s, {runs / m:.1f} runs/s")


def ray():
    if os.environ.get("PROXIMA_RAY_NETNS") != "1":
        script = 'ip link set lo up && exec "$0" "$1" ray'
        env = {**os.environ, "PROXIMA_RAY_NETNS": "1", "RAY_USAGE_STATS_ENABLED": "0"}
        subprocess.run(["unshare", "-n", "sh", "-c", script, sys.executable, __file__], env=env, check=True)
        return
    sys.path.insert(0, str(ROOT / "tests" / "python"))
    from ray_cluster import start_cluster

    runs = spec_runs(PAPER)
    with start_cluster(6395) as c:
        for batch in (None, 1):
            out = tempfile.mkdtemp(prefix="prx-bench-")
            t = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "proxima.sweep", PAPER, "--out", out, "--ray", c["address"]]
                + (["--batch-size", str(batch)] if batch else []),
                check=True, capture_output=True, text=True)
            m = time.perf_counter() - t
            shutil.rmtree(out)
            spread = re.findall(r"\d+ runs in batches of .*", done.stderr)
            print(f"Ray, 2 nodes x 1 CPU, batch {batch or 'default'}: {m:.1f} s (driver process), "
                  f"{runs / m:.1f} runs/s; {spread}")


if __name__ == "__main__":
    {"overhead": overhead, "sweep": sweep_local, "ray": ray}[sys.argv[1]]()
