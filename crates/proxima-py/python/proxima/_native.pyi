"""Types of the compiled module (Rust, PyO3). Use the functions of ``proxima`` instead."""

from typing import Any, Callable, Dict, List, Optional, Tuple, Union

__version__: str

TopologyIn = Union[str, Tuple[str, str, str]]

class Trace:
    """A parsed trace: parse a file once, run it many times."""

    @staticmethod
    def load(path: str) -> "Trace":
        """Reads and parses a trace file (Philly, Tiresias, Pollux or Proxima CSV/JSON)."""
    @staticmethod
    def parse(text: str, label: str) -> "Trace":
        """Parses trace text; ``label`` names it in summaries and errors."""
    @property
    def label(self) -> str:
        """The name runs report the trace by (``summary.json``'s ``trace``)."""
    @property
    def format(self) -> str:
        """The detected format: ``philly``, ``tiresias``, ``pollux``, ``proxima_csv`` or ``proxima_json``."""
    def __len__(self) -> int: ...

class Record:
    """A finished run as data; its CSV files are made on demand."""

    def jobs_csv(self) -> str: ...
    def timeseries_csv(self) -> str: ...

class StopFlag:
    def __init__(self) -> None: ...
    def set(self) -> None: ...

class Plan:
    def __init__(self, text: str, source: str, json: bool, spec_dir: str, data_dir: str) -> None: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def columns(self) -> List[str]: ...
    def __len__(self) -> int: ...
    def runs(self) -> List[Dict[str, Any]]: ...
    def pending(self, out: str) -> List[str]: ...
    def run_local(
        self,
        out: str,
        threads: int,
        files: bool,
        progress: Optional[Callable[[int, int, int], None]] = None,
        stop: Optional[StopFlag] = None,
    ) -> Tuple[int, int]: ...
    def record(self, out: str, run_id: str, output: Dict[str, Any]) -> None: ...
    def write_table(self, out: str) -> Tuple[List[str], List[List[Any]]]: ...

def run(
    topology: TopologyIn,
    trace: Union[str, Trace],
    policy: str,
    seed: int,
    skip: int,
    limit: Optional[int],
    mix: Optional[str],
    tenants: Optional[str],
    event_hash: bool,
    rho: bool,
) -> Dict[str, Any]: ...
def compare(
    topology: TopologyIn,
    trace: Union[str, Trace],
    policies: List[str],
    seed: int,
    skip: int,
    limit: Optional[int],
    mix: Optional[str],
    tenants: Optional[str],
    rho: bool,
) -> Tuple[List[Dict[str, Any]], str]: ...
def execute_planned(
    run: Dict[str, Any], topology_text: Optional[str], trace: Optional[Trace], files: bool
) -> Dict[str, Any]: ...
def topology(spec: TopologyIn) -> Dict[str, Any]: ...
def presets() -> List[Tuple[str, str]]: ...
def policies() -> List[Tuple[str, str, str, str]]: ...
def models() -> str: ...
def calibrate(path: str) -> str: ...
def read_text(path: str) -> str: ...
def result_dir_name(policy: str) -> str: ...
