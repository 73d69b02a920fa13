"""The Ray backend of :func:`proxima.sweep`.

The driver plans the sweep, reads every input file the pending runs need once (so the
workers need no shared disk) and puts them in Ray's object store, then submits the runs as
tasks in batches. Each finished batch is recorded at once under ``OUT/runs/``. A task lost
with its worker or node is retried (by Ray, and then by this driver), and a retried run
writes the same bytes as the first try would have, so a lost node costs only time: no row
is lost or counted twice, because the table is built from the plan's run ids.
"""

from __future__ import annotations

import collections
import logging
import math
import os
import uuid
from typing import Any, Dict, List, Optional, Tuple

from . import _native

# Retries of a batch lost to a dead worker or node: Ray's own (PROXIMA_RAY_RETRIES, 3 by
# default), then this driver's.
RAY_RETRIES = int(os.environ.get("PROXIMA_RAY_RETRIES", "3"))
DRIVER_ATTEMPTS = 3
# Runs per task, at most: a task of a few seconds keeps the scheduling overhead (about a
# millisecond a task) and the work lost with a node small.
MAX_BATCH = 16

log = logging.getLogger("proxima.sweep")

# A worker process keeps the traces it parsed for the sweep under way.
_worker_cache: Dict[str, Any] = {"key": None, "traces": {}}


def _run_batch(
    runs: List[Dict[str, Any]], texts: Dict[str, str], key: str, files: bool
) -> Tuple[str, List[Tuple[str, Any]]]:
    """Runs on a Ray worker: each planned run of the batch, with the files' text. Returns
    the node it ran on and each run's output."""
    import ray

    if _worker_cache["key"] != key:
        _worker_cache["key"] = key
        _worker_cache["traces"] = {}
    traces = _worker_cache["traces"]
    results = []
    for run in runs:
        topology_file = run["topology_file"]
        trace_file = run["trace_file"]
        trace = None
        if trace_file is not None:
            trace = traces.get(trace_file)
            if trace is None:
                trace = traces[trace_file] = _native.Trace.parse(texts[trace_file], trace_file)
        topology_text = texts[topology_file] if topology_file is not None else None
        results.append((run["run_id"], _native.execute_planned(run, topology_text, trace, files)))
    return ray.get_runtime_context().get_node_id(), results


def default_batch_size(pending: int, cpus: int) -> int:
    """About four tasks per CPU (so that a slow batch does not hold up the end), at most
    ``MAX_BATCH`` runs each."""
    return max(1, min(MAX_BATCH, math.ceil(pending / (4 * max(cpus, 1)))))


def run_on_ray(planned, out: str, address: str, files: bool, batch_size: Optional[int], report) -> None:
    import ray
    from ray.exceptions import RayError, RayTaskError

    runs = {r["run_id"]: r for r in planned.runs()}
    pending = planned.pending(out)
    total = len(runs)
    reused = total - len(pending)
    report(reused, total, reused)
    if not pending:
        return
    # Read and check every file on the driver: a bad file fails here, with the same
    # message as a local sweep, before anything is submitted.
    texts: Dict[str, str] = {}
    for rid in pending:
        for key in ("topology_file", "trace_file"):
            path = runs[rid][key]
            if path is not None and path not in texts:
                texts[path] = _native.read_text(path)
                if key == "trace_file":
                    _native.Trace.parse(texts[path], path)
                else:
                    _native.topology(("json", texts[path], path))

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, logging_level=logging.WARNING)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        size = batch_size or default_batch_size(len(pending), cpus)
        texts_ref = ray.put(texts)
        sweep_key = uuid.uuid4().hex
        # SPREAD: Ray's default packs tasks onto the driver's node while it keeps up, which
        # leaves the other nodes idle for short runs.
        task = ray.remote(
            num_cpus=1, max_retries=RAY_RETRIES, retry_exceptions=False, scheduling_strategy="SPREAD"
        )(_run_batch)

        def submit(batch: List[str]):
            return task.remote([runs[r] for r in batch], texts_ref, sweep_key, files)

        in_flight = {}
        for i in range(0, len(pending), size):
            batch = pending[i : i + size]
            in_flight[submit(batch)] = (batch, 1)
        done = reused
        by_node: Dict[str, int] = collections.Counter()
        resubmitted = 0
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            ref = ready[0]
            batch, attempt = in_flight.pop(ref)
            try:
                node, outputs = ray.get(ref)
            except RayTaskError as e:
                # The task itself raised (bad input, or a bug): that is the answer.
                raise e.cause from None
            except RayError:
                # Lost with its worker or node after Ray's own retries: submit it again.
                if attempt >= DRIVER_ATTEMPTS:
                    raise
                in_flight[submit(batch)] = (batch, attempt + 1)
                resubmitted += 1
                continue
            for rid, output in outputs:
                planned.record(out, rid, output)
            done += len(outputs)
            by_node[node] += len(outputs)
            report(done, total, reused)
        spread = ", ".join(f"{n[:8]} {k}" for n, k in sorted(by_node.items()))
        log.info(
            "%d runs in batches of %d on %d nodes (runs by node: %s); %d batches submitted again after a loss",
            len(pending), size, len(by_node), spread, resubmitted,
        )
    finally:
        if started_here:
            ray.shutdown()
