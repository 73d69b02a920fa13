"""Shared fixtures of the Python tests: the repository, the `proxima` binary they compare
the package with, and the reference data (tests needing it skip when it is absent, and
fail when PROXIMA_REQUIRE_DATA=1)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    return Path(os.environ.get("PROXIMA_DATA") or (ROOT / ".." / "shared" / "data"))


def need_data(relative: str) -> Path:
    """A reference data file, or a skip (a failure when PROXIMA_REQUIRE_DATA=1)."""
    path = data_dir() / relative
    if not path.is_file():
        message = f"{path} is absent (reference data; set PROXIMA_DATA)"
        if os.environ.get("PROXIMA_REQUIRE_DATA") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def cli() -> Path:
    """The debug `proxima` binary (built if missing), or $PROXIMA_CLI."""
    if os.environ.get("PROXIMA_CLI"):
        return Path(os.environ["PROXIMA_CLI"]).resolve()
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    subprocess.run(["cargo", "build", "--quiet", "-p", "proxima-cli"], cwd=ROOT, check=True)
    return target / "debug" / "proxima"


def run_cli(cli: Path, args: List[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(cli), *args], cwd=cwd, capture_output=True, text=True)
