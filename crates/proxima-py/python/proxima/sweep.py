"""``python -m proxima.sweep SPEC --out DIR [--ray ADDRESS]``: runs a sweep spec on local
cores or on a Ray cluster and writes ``DIR/runs.csv`` and ``DIR/runs.parquet``.

(In Python, call the function :func:`proxima.sweep`; this module is the command line.)
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    from . import InputError
    from ._sweep import plan, sweep

    parser = argparse.ArgumentParser(
        prog="python -m proxima.sweep",
        description="Run every combination of a sweep spec's [grid], locally or on a Ray cluster.",
    )
    parser.add_argument("spec", help="the sweep spec (a TOML file with a [grid] table)")
    parser.add_argument("--out", required=True, help="output folder: runs.csv, runs.parquet, runs/<run_id>/")
    parser.add_argument("--ray", metavar="ADDRESS", help="run on the Ray cluster at ADDRESS (HOST:PORT or auto)")
    parser.add_argument("--threads", type=int, help="local threads (default: every core)")
    parser.add_argument("--files", action="store_true", help="also keep each run's jobs.csv and timeseries.csv")
    parser.add_argument("--batch-size", type=int, help="runs per Ray task (default: about four tasks per CPU)")
    parser.add_argument("--data", help="folder of data:PATH traces (default: $PROXIMA_DATA or ../shared/data)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    started = time.monotonic()
    try:
        total = len(plan(args.spec, data_dir=args.data))
        sweep(
            args.spec,
            args.out,
            ray_address=args.ray,
            threads=args.threads,
            files=args.files,
            batch_size=args.batch_size,
            data_dir=args.data,
        )
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    where = f"Ray at {args.ray}" if args.ray else "local cores"
    print(
        f"{total} runs on {where} in {time.monotonic() - started:.1f} s; wrote {args.out}/runs.csv and {args.out}/runs.parquet",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
