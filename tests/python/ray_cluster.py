"""A two-node Ray cluster on this machine (a head and a worker node, one CPU each) for the
tests and the benchmark, which run it inside a network namespace of their own (see
test_ray.py). Each node runs in a session of its own, so that its processes (the node's
raylet, and its workers, which Ray puts in process groups of their own but leaves in the
session) can be killed without touching any other Ray on the machine: `ray stop` would
stop them all."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def ray_bin() -> str:
    return str(Path(sys.executable).with_name("ray"))


def interfaces():
    """This network namespace's interfaces (/proc/net/dev is per namespace; sysfs
    shows the namespace it was mounted in)."""
    with open("/proc/net/dev") as f:
        return sorted(line.split(":")[0].strip() for line in f.readlines()[2:])


def start_node(args, temp_dir, num_cpus=1):
    """A node of the cluster in its own session, so that its process group (the node's
    raylet and workers) can be killed without touching any other Ray."""
    env = {
        **os.environ,
        # Notice a lost node in about two seconds instead of Ray's default thirty.
        "RAY_health_check_initial_delay_ms": "0",
        "RAY_health_check_period_ms": "500",
        "RAY_health_check_timeout_ms": "1000",
        "RAY_health_check_failure_threshold": "3",
    }
    return subprocess.Popen(
        [ray_bin(), "start", *args, f"--num-cpus={num_cpus}", "--block", "--disable-usage-stats"],
        env=env,
        stdout=open(os.path.join(temp_dir, f"node-{len(os.listdir(temp_dir))}.log"), "w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def session_processes(node):
    """The pids of the processes in the node's session."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == node.pid:
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


def kill_node(proc):
    """Kills every process of the node at once, as a machine that dies would."""
    for pid in session_processes(proc):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    proc.wait()


def cpus(address):
    done = subprocess.run([ray_bin(), "status", f"--address={address}"], capture_output=True, text=True)
    m = re.search(r"/([0-9.]+) CPU", done.stdout)
    return float(m.group(1)) if m else 0.0


def wait_for_gcs(address: str, head, deadline: float):
    """Waits until the head node's GCS listens on `address`: a connection attempt costs
    nothing, where each `ray status` starts a Python that imports Ray (about 1.5
    CPU-seconds, which a loaded machine feels)."""
    host, port = address.rsplit(":", 1)
    while time.monotonic() < deadline:
        assert head.poll() is None, "the head node did not start"
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listens on {address}: the head node did not start")


def running_task(node, name: str) -> bool:
    """Whether a worker process of `node` is running a task of the function `name` now:
    Ray titles a busy worker `ray::NAME`, an idle one `ray::IDLE`."""
    for pid in session_processes(node):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read().startswith(f"ray::{name}".encode()):
                    return True
        except OSError:
            continue
    return False


@contextlib.contextmanager


def start_cluster(port: int, cpus_per_node: int = 1):
    """Yields {"address", "head", "worker"} once the cluster has both nodes' CPUs."""
    # A short folder: Ray's socket paths must fit in 107 bytes.
    temp_dir = tempfile.mkdtemp(prefix="/tmp/prx-ray-")
    address = f"127.0.0.1:{port}"
    head = start_node(["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp_dir}"],
                      temp_dir, cpus_per_node)
    worker = None
    try:
        deadline = time.monotonic() + 180
        # The worker node can join as soon as the head's GCS listens (`ray start` retries
        # its first requests to it); both nodes then start side by side.
        wait_for_gcs(address, head, deadline)
        worker = start_node([f"--address={address}"], temp_dir, cpus_per_node)
        while cpus(address) < 2 * cpus_per_node and time.monotonic() < deadline:
            assert head.poll() is None, "the head node stopped"
            assert worker.poll() is None, "the worker node did not start"
            time.sleep(1)
        assert cpus(address) == 2 * cpus_per_node, "the cluster did not reach its CPUs"
        yield {"address": address, "head": head, "worker": worker}
    finally:
        if worker is not None:
            kill_node(worker)
        kill_node(head)
        shutil.rmtree(temp_dir, ignore_errors=True)
