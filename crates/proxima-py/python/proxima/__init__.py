"""Proxima from Python: simulate how distributed deep-learning jobs are placed and scheduled
on a GPU cluster whose network matters (the network-sensitive scheduler Dally,
arXiv:2401.16492, and its baselines).

The simulation is the same Rust core as the ``proxima`` command-line tool: the same inputs
give the same ``summary.json``, byte for byte. Simulations run without the GIL, so threads
and Ray workers run them in parallel.

- :func:`run` one policy, :func:`compare` several, on a topology and a trace;
- :func:`sweep` a grid of runs (a TOML spec) on local cores or on a Ray cluster;
- :func:`topology`, :func:`presets`, :func:`policies`, :func:`models`,
  :func:`calibrate`: what the CLI's listing commands show;
- :class:`InputError` for bad input, with the CLI's message and its parts.

Inputs are those of ``proxima run``: a topology is a preset name (``"oversub-2048"``), a
parametric spec (``"racks=4,servers=8,gpus=8,oversub=4"``), a topology JSON file or a dict
in that format; a trace is a file (Philly, Tiresias, Pollux or Proxima CSV/JSON), trace text,
``"synthetic:jobs=N[,load=L][,seed=S]"`` or a :class:`Trace` parsed once; a policy is
``NAME[:key=value,...]`` (``"dally:preempt=off"``).
"""

from __future__ import annotations

import csv
import io
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _native
from ._errors import InputError
from ._native import Trace
from ._sweep import sweep

__version__: str = _native.__version__

__all__ = [
    "InputError",
    "Trace",
    "Result",
    "Comparison",
    "run",
    "compare",
    "sweep",
    "load_trace",
    "topology",
    "presets",
    "policies",
    "models",
    "calibrate",
]

TopologyArg = Union[str, "os.PathLike[str]", Mapping[str, Any]]
TraceArg = Union[str, "os.PathLike[str]", Trace]


def _topology_arg(topology: TopologyArg) -> Any:
    if isinstance(topology, Mapping):
        return ("json", json.dumps(topology), "<topology>")
    return os.fspath(topology)


def _trace_arg(trace: TraceArg) -> Any:
    if isinstance(trace, Trace):
        return trace
    return os.fspath(trace)


def _table(text: str) -> Any:
    """CSV text as a pandas DataFrame, or as a list of dicts (numbers converted, empty
    cells ``None``) when pandas is not installed."""
    try:
        import pandas
    except ImportError:
        rows = []
        for row in csv.DictReader(io.StringIO(text)):
            rows.append({k: _number(v) for k, v in row.items()})
        return rows
    return pandas.read_csv(io.StringIO(text))


def _number(v: str) -> Any:
    if v == "":
        return None
    for kind in (int, float):
        try:
            return kind(v)
        except ValueError:
            pass
    return v


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


class Result:
    """What one run produced.

    Attributes:
        summary: the dict ``summary.json`` holds (policy in full, seed, topology, trace,
            GPUs, job counts, JCT mean and percentiles, makespan, queueing, communication
            overhead in job-seconds (``comm_overhead_s``) and GPU-seconds
            (``comm_overhead_gpu_s``), GPU utilisation, preemptions, placements per tier).
        summary_json: the text of ``summary.json``, byte for byte what ``proxima run
            --out`` writes.
        event_hash: the event-log hash as ``proxima run --events`` prints it (16 hex
            digits), or ``None`` unless the run was made with ``event_hash=True``.
        simulation_s: wall-clock seconds of the simulation itself (after the inputs were
            read), as ``proxima bench`` times it.
    """

    def __init__(self, output: Mapping[str, Any]) -> None:
        self.summary_json: str = output["summary_json"]
        self.summary: Dict[str, Any] = json.loads(self.summary_json)
        self.event_hash: Optional[str] = output.get("event_hash")
        self.simulation_s: float = output["simulation_s"]
        # The run as data; its CSV files are made on first use.
        self._record = output["record"]
        self._jobs_csv: Optional[str] = None
        self._timeseries_csv: Optional[str] = None

    @property
    def jobs_csv(self) -> str:
        """The text of ``jobs.csv``, as ``proxima run --out`` writes it."""
        if self._jobs_csv is None:
            self._jobs_csv = self._record.jobs_csv()
        return self._jobs_csv

    @property
    def timeseries_csv(self) -> str:
        """The text of ``timeseries.csv``, as ``proxima run --out`` writes it."""
        if self._timeseries_csv is None:
            self._timeseries_csv = self._record.timeseries_csv()
        return self._timeseries_csv

    @property
    def jobs(self) -> Any:
        """One row per job (``jobs.csv``): submit, start, end, JCT, queueing, GPUs, model,
        tier, placements, preemptions, ideal and actual run time, slowdown. A pandas
        DataFrame, or a list of dicts without pandas."""
        return _table(self.jobs_csv)

    @property
    def timeseries(self) -> Any:
        """GPU utilisation, busy GPUs, queued and running jobs over 500 equal intervals of
        the makespan (``timeseries.csv``). A pandas DataFrame, or a list of dicts."""
        return _table(self.timeseries_csv)

    def write(self, out: Union[str, "os.PathLike[str]"]) -> None:
        """Writes ``summary.json``, ``jobs.csv`` and ``timeseries.csv`` into ``out`` (created
        if missing), the same bytes as ``proxima run --out``."""
        out = os.fspath(out)
        os.makedirs(out, exist_ok=True)
        _write(os.path.join(out, "summary.json"), self.summary_json)
        _write(os.path.join(out, "jobs.csv"), self.jobs_csv)
        _write(os.path.join(out, "timeseries.csv"), self.timeseries_csv)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<proxima.Result {s['policy']!r} on {s['topology']!r}: {s['jobs_completed']}/{s['jobs_total']} jobs, "
            f"mean JCT {s['avg_jct_s']:.1f} s, makespan {s['makespan_s']:.0f} s>"
        )


class Comparison:
    """Several policies on the same inputs.

    Attributes:
        results: each policy's :class:`Result`, by the policy as given, in order.
        compare_json: the text of ``compare.json`` as ``proxima compare --out`` writes it.
    """

    def __init__(self, policies: Sequence[str], outputs: Sequence[Mapping[str, Any]], compare_json: str) -> None:
        self.results: Dict[str, Result] = {p: Result(o) for p, o in zip(policies, outputs)}
        self.compare_json = compare_json

    @property
    def summaries(self) -> List[Dict[str, Any]]:
        """The summaries in the order given."""
        return [r.summary for r in self.results.values()]

    @property
    def table(self) -> Any:
        """One row per policy and a column per summary field: a pandas DataFrame indexed by
        the policy as given, or a list of dicts without pandas."""
        rows = [dict(r.summary, label=p) for p, r in self.results.items()]
        try:
            import pandas
        except ImportError:
            return rows
        return pandas.DataFrame(rows).set_index("label")

    def write(self, out: Union[str, "os.PathLike[str]"]) -> None:
        """Writes ``compare.json`` and each run's files in a folder named after its policy,
        as ``proxima compare --out`` does."""
        out = os.fspath(out)
        os.makedirs(out, exist_ok=True)
        for p, r in self.results.items():
            r.write(os.path.join(out, _native.result_dir_name(p)))
        _write(os.path.join(out, "compare.json"), self.compare_json)


def run(
    topology: TopologyArg,
    trace: TraceArg,
    policy: str,
    *,
    seed: int = 1,
    skip: int = 0,
    limit: Optional[int] = None,
    mix: Optional[str] = None,
    tenants: Optional[str] = None,
    event_hash: bool = False,
    rho: bool = True,
) -> Result:
    """Runs one policy, as ``proxima run`` does, and returns its :class:`Result`.

    Args:
        topology: preset, parametric spec, topology JSON file, or a dict in that format.
        trace: trace file, trace text, ``"synthetic:..."``, or a :class:`Trace`.
        policy: ``NAME[:key=value,...]``, e.g. ``"dally"``, ``"dally:autotune=off,timers=300/150"``.
        seed: seeds everything random (model assignment, synthetic traces); the CLI's
            default is 1, and so is this.
        skip: drop the first ``skip`` jobs by submission time.
        limit: then keep the first ``limit`` jobs.
        mix: models for jobs whose trace names none, ``"name[:weight],..."``.
        tenants: the tenants' GPU quotas, as the CLI's ``--tenants``: ``"equal"`` (the
            default), ``"demand"``, ``"weights:NAME=W,..."`` or ``"NAME=GPUS,..."``
            (docs/FORMATS.md).
        event_hash: also hash every event (costs time; see ``Result.event_hash``).
        rho: finish-time fairness ρ (docs/METRICS.md), as ``proxima run`` computes it by
            default: one more run per tenant, its jobs alone on its share of the cluster,
            side by side on every core. The summary gets ``rho_max``, ``rho_p50``,
            ``rho_over_1`` and each tenant's ρ, and ``jobs.csv`` its ``rho`` column.
            ``rho=False`` skips those runs, as ``proxima run --no-rho`` does.

    Raises:
        InputError: bad input, with the CLI's message.
    """
    out = _native.run(
        _topology_arg(topology), _trace_arg(trace), policy, seed, skip, limit, mix, tenants, event_hash, rho
    )
    return Result(out)


def compare(
    topology: TopologyArg,
    trace: TraceArg,
    policies: Sequence[str],
    *,
    seed: int = 1,
    skip: int = 0,
    limit: Optional[int] = None,
    mix: Optional[str] = None,
    tenants: Optional[str] = None,
    rho: bool = True,
) -> Comparison:
    """Runs several policies on the same inputs, as ``proxima compare`` does. Every policy
    is checked before any runs. Arguments as for :func:`run` (``rho=False``: as
    ``proxima compare --no-rho``)."""
    policies = list(policies)
    outputs, compare_json = _native.compare(
        _topology_arg(topology), _trace_arg(trace), policies, seed, skip, limit, mix, tenants, rho
    )
    return Comparison(policies, outputs, compare_json)


def load_trace(source: Union[str, "os.PathLike[str]"], *, label: Optional[str] = None) -> Trace:
    """Parses a trace once (a file name, or text containing a line break), to run it many
    times without parsing it again. ``label`` names text in summaries and errors."""
    s = os.fspath(source)
    if "\n" in s:
        return Trace.parse(s, label or "<trace>")
    return Trace.load(s)


def topology(spec: TopologyArg) -> Dict[str, Any]:
    """A topology's ``name``, ``gpus``, ``tiers`` (tightest first) and ``json`` (the
    topology file format, as ``proxima topologies --json`` prints it, parsed)."""
    info = dict(_native.topology(_topology_arg(spec)))
    info["json"] = json.loads(info["json"])
    return info


def presets() -> Dict[str, str]:
    """The topology presets: name → description."""
    return dict(_native.presets())


def policies() -> List[Dict[str, str]]:
    """The scheduling policies: ``name``, ``summary``, ``source`` and ``options`` (with
    defaults), as ``proxima policies`` lists them."""
    return [{"name": n, "summary": s, "source": src, "options": o} for n, s, src, o in _native.policies()]


def models() -> List[Dict[str, Any]]:
    """The model catalogue: per model its name, aliases, display name, parameters
    (millions), compute seconds per iteration at its local batch on its GPU, overlap and
    source."""
    return json.loads(_native.models())


def calibrate(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """Fits the communication model to a placements table
    (``placement,local_bsz,step_time,sync_time``) and reports its error: the dict
    ``proxima calibrate FILE --json`` prints."""
    return json.loads(_native.calibrate(os.fspath(path)))
