"""Every case of the bad-input catalogue (tests/inputs/catalogue.json, the cases of
docs/INPUTS.md) through `proxima.run`: bad input raises `proxima.InputError` (a ValueError)
whose text is exactly what the CLI prints after `error: `, with its file, line and field as
attributes; inputs that are odd but fine run as they do in the CLI. Then the sweep spec's
own errors."""

from __future__ import annotations

import base64
import json
import pickle
import re

import pytest

import proxima
from conftest import ROOT, run_cli

CASES = json.loads((ROOT / "tests" / "inputs" / "catalogue.json").read_text())["cases"]


def kwargs_of(args):
    """The positional arguments of `proxima.run` for a CLI command line, the keyword
    arguments for its other flags, and the flags `proxima.run` has no keyword for."""
    assert args[0] == "run"
    flags = dict(zip(args[1::2], args[2::2]))
    topology, trace, policy = flags.pop("--topology"), flags.pop("--trace"), flags.pop("--policy")
    kwargs = {name: flags.pop(f"--{name}") for name in ("tenants", "mix") if f"--{name}" in flags}
    return topology, trace, policy, kwargs, flags


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_catalogue_case(cli, tmp_path, monkeypatch, case):
    f = case.get("file")
    if f:
        data = f["text"].encode() if "text" in f else base64.b64decode(f["base64"])
        (tmp_path / f["name"]).write_bytes(data)
    done = run_cli(cli, case["args"], tmp_path)
    assert done.returncode == case["exit"], done.stderr
    monkeypatch.chdir(tmp_path)
    topology, trace, policy, kwargs, rest = kwargs_of(case["args"])
    assert not rest
    if case["exit"] == 0:
        r = proxima.run(topology, trace, policy, **kwargs)
        assert r.summary["jobs_total"] > 0
        return
    cli_message = done.stderr.strip().splitlines()[-1]
    assert cli_message.startswith("error: ")
    with pytest.raises(proxima.InputError) as caught:
        proxima.run(topology, trace, policy, **kwargs)
    e = caught.value
    assert isinstance(e, ValueError)
    assert str(e) == cli_message[len("error: "):]
    # The parts put together give the text again.
    where = f"{e.file}:{e.line}" if e.line is not None else e.file
    assert str(e) == f"{where}: {e.field}: {e.message}"
    # A Slurm, Lingjun, Kueue or Volcano topology's errors name its file, without the prefix and
    # the options.
    topology_file = topology.split(",")[0]
    for prefix in ("slurm:", "lingjun:", "kueue:", "volcano:"):
        topology_file = topology_file.removeprefix(prefix)
    assert e.file in (topology, topology_file, trace, "--topology", "--trace", "--policy", "--tenants")
    # It survives pickling (Ray ships exceptions between processes).
    again = pickle.loads(pickle.dumps(e))
    assert (type(again), str(again), again.file, again.line, again.field) == (
        proxima.InputError, str(e), e.file, e.line, e.field)


def test_the_catalogue_covers_every_documented_case():
    doc = (ROOT / "docs" / "INPUTS.md").read_text()
    cli_section = doc.split("<!-- BEGIN CLI CATALOGUE")[1].split("<!-- END CLI CATALOGUE")[0]
    documented = re.findall(r"^\| (\d+) \|", cli_section, flags=re.M)
    assert len(documented) == len(CASES)


@pytest.mark.parametrize(
    "spec,message",
    [
        ("[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=5'\npolicy = ['fifo', 'lottery']\n",
         "<spec>:4: grid.policy[1]: policy: unknown policy 'lottery' (known: fifo, consolidate, strict, slurm, tiresias, srtf, random, dally, kueue-tas, volcano)"),
        ("[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=5'\npolicy = 'fifo'\nseed = [1, 'two']\n",
         "<spec>:5: grid.seed[1]: expected a whole number, got a string"),
        ("[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=5'\n",
         "<spec>:1: grid.policy: missing: every run needs a topology, a trace and a policy"),
        ("[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=ten'\npolicy = 'fifo'\n",
         "<spec>:3: grid.trace[0]: jobs: expected a positive whole number of jobs, got 'ten'"),
    ],
)
def test_sweep_spec_errors_name_line_and_key(spec, message):
    with pytest.raises(proxima.InputError) as caught:
        proxima.sweep(spec)
    assert str(caught.value) == message
    assert caught.value.file == "<spec>" and caught.value.line is not None


def test_a_missing_trace_file_in_a_sweep_fails_before_any_run(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text("[grid]\ntopology = 'teaching'\ntrace = 'nowhere.csv'\npolicy = 'fifo'\n")
    with pytest.raises(proxima.InputError) as caught:
        proxima.sweep(spec, tmp_path / "out")
    assert str(caught.value).startswith(f"{tmp_path}/nowhere.csv: cannot read: ")
    assert not any((tmp_path / "out" / "runs").iterdir())


def check_parts(e, file, line, field, message):
    """An InputError with every part filled, and its text made of them."""
    assert (e.file, e.line, e.field, e.message) == (file, line, field, message)
    assert str(e) == f"{file}:{line}: {field}: {message}"


def test_a_bad_trace_row_names_file_line_and_field(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "neg.csv").write_text("id,submit_s,gpus,model,duration_s\na,0,1,resnet50,-5\n")
    message = "expected a positive number of seconds, got '-5'"
    with pytest.raises(proxima.InputError) as caught:
        proxima.run("teaching", "neg.csv", "fifo")
    check_parts(caught.value, "neg.csv", 2, "duration_s", message)
    # The same row in a sweep: the file is checked before any run, with the same parts.
    spec = tmp_path / "s.toml"
    spec.write_text("[grid]\ntopology = 'teaching'\ntrace = 'neg.csv'\npolicy = 'fifo'\n")
    with pytest.raises(proxima.InputError) as caught:
        proxima.sweep(spec, tmp_path / "out")
    check_parts(caught.value, f"{tmp_path}/neg.csv", 2, "duration_s", message)


def test_a_bad_placements_row_names_file_line_and_field(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.csv").write_text("placement,local_bsz,step_time,sync_time\n1,4,0.455,0.0137\n22,x,1.98,1.21\n")
    with pytest.raises(proxima.InputError) as caught:
        proxima.calibrate("bad.csv")
    check_parts(caught.value, "bad.csv", 3, "local_bsz", "expected a number, got 'x'")
