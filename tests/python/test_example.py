"""The example a researcher would copy runs and draws its figure."""

from __future__ import annotations

import subprocess
import sys

import pandas

from conftest import ROOT


def test_oversubscription_example_draws_its_figure(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "oversubscription.py"), "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    png = (out / "oversubscription.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    table = pandas.read_csv(out / "runs.csv")
    assert len(table) == 3 * 3 * 3
    assert set(table["policy"]) == {"fifo", "consolidate", "dally"}
