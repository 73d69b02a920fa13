"""Sweeps: a grid of runs from a TOML spec, on local cores or on a Ray cluster.

Both backends record each finished run under ``OUT/runs/<run_id>/`` as soon as it is done
(so a sweep started again runs only what is missing) and end by writing ``OUT/runs.csv``
and ``OUT/runs.parquet`` from the recorded runs, in run-id order: the same bytes whichever
backend ran them, in whatever order. Planning, running, recording and the table are the
Rust crate ``proxima-host``, which ``proxima sweep`` in the CLI uses too.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from . import _native

SpecArg = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def _data_dir(data_dir: Optional[str]) -> str:
    """Where ``data:PATH`` points: the argument, else ``$PROXIMA_DATA``, else
    ``../shared/data`` (as the CLI finds it)."""
    return data_dir or os.environ.get("PROXIMA_DATA") or os.path.join("..", "shared", "data")


def plan(spec: SpecArg, *, data_dir: Optional[str] = None) -> "_native.Plan":
    """Expands a spec into its runs without running them: a path to a TOML file, TOML
    text, or a dict with the same tables (``{"grid": {...}}``). Raises
    :class:`proxima.InputError` for a bad spec, naming its line and key."""
    data = _data_dir(data_dir)
    if isinstance(spec, Mapping):
        return _native.Plan(json.dumps(spec), "<spec>", True, os.getcwd(), data)
    s = os.fspath(spec)
    if "\n" not in s and (os.path.isfile(s) or s.endswith(".toml")):
        try:
            with open(s, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            from ._errors import InputError

            raise InputError(f"{s}: cannot read: {e.strerror}", s, None, "cannot read", e.strerror) from None
        return _native.Plan(text, s, False, os.path.dirname(s), data)
    return _native.Plan(s, "<spec>", False, os.getcwd(), data)


class _Progress:
    """A one-line progress report on stderr, at most every half second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.started = time.monotonic()
        self.last = 0.0
        self.lock = threading.Lock()

    def __call__(self, done: int, total: int, reused: int) -> None:
        if not self.enabled:
            return
        with self.lock:
            now = time.monotonic()
            if done < total and now - self.last < 0.5:
                return
            self.last = now
            rate = (done - reused) / max(now - self.started, 1e-9)
            end = "\n" if done == total else ""
            print(f"\rsweep {done}/{total} runs ({reused} done before), {rate:.2f} runs/s ", end=end, file=sys.stderr)
            sys.stderr.flush()


def _to_table(columns: List[str], rows: List[List[Any]]) -> Any:
    try:
        import pandas
    except ImportError:
        return [dict(zip(columns, r)) for r in rows]
    return pandas.DataFrame(rows, columns=columns)


def sweep(
    spec: SpecArg,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    *,
    ray_address: Optional[str] = None,
    threads: Optional[int] = None,
    files: bool = False,
    batch_size: Optional[int] = None,
    progress: Optional[bool] = None,
    data_dir: Optional[str] = None,
) -> Any:
    """Runs every combination of a sweep spec's ``[grid]`` and returns the runs table.

    Args:
        spec: a TOML file, TOML text, or a dict with the same tables.
        out: the output folder (``runs.csv``, ``runs.parquet``, ``runs/<run_id>/``). A
            sweep started again on the same folder runs only what is missing. Without it, a
            temporary folder is used and removed.
        ray_address: run on the Ray cluster at this address (``"HOST:PORT"``, or ``"auto"``)
            instead of local cores. An already initialised Ray is used as it is.
        threads: local threads (default: every core). Ignored with Ray.
        files: also keep each run's ``jobs.csv`` and ``timeseries.csv``.
        batch_size: runs per Ray task (default: enough for about four tasks per CPU, at
            most 16 runs a task).
        progress: print progress on stderr (default: when stderr is a terminal).
        data_dir: where ``data:PATH`` traces are (default ``$PROXIMA_DATA``, else
            ``../shared/data``).

    Returns:
        The runs table: one row per run in run-id order, columns ``run_id``, the grid's
        keys, then every metric of ``summary.json``. A pandas DataFrame, or a list of dicts
        without pandas.
    """
    planned = plan(spec, data_dir=data_dir)
    show = sys.stderr.isatty() if progress is None else progress
    if out is None:
        with tempfile.TemporaryDirectory(prefix="proxima-runs-") as tmp:
            return _sweep_into(planned, tmp, ray_address, threads, files, batch_size, show)
    return _sweep_into(planned, os.fspath(out), ray_address, threads, files, batch_size, show)


def _sweep_into(planned, out, ray_address, threads, files, batch_size, show) -> Any:
    os.makedirs(out, exist_ok=True)
    report = _Progress(show)
    if ray_address is None:
        _run_local(planned, out, threads or os.cpu_count() or 1, files, report)
    else:
        from ._ray import run_on_ray

        run_on_ray(planned, out, ray_address, files, batch_size, report)
    columns, rows = planned.write_table(out)
    return _to_table(columns, rows)


def _run_local(planned, out: str, threads: int, files: bool, report) -> Tuple[int, int]:
    """The CLI's runner, in a thread so that Ctrl+C reaches Python: it stops the sweep after
    the runs under way, which are kept."""
    stop = _native.StopFlag()
    result: Dict[str, Any] = {}

    def work() -> None:
        try:
            result["value"] = planned.run_local(out, threads, files, report, stop)
        except BaseException as e:  # handed to the caller's thread below
            result["error"] = e

    worker = threading.Thread(target=work, name="proxima sweep", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        worker.join()
        raise
    if "error" in result:
        raise result["error"]
    return result["value"]
