"""How much does a congested network hurt, and how much of that does a network-sensitive
scheduler win back?

Sweeps policies x rack-uplink oversubscription x seeds on a 256-GPU cluster (4 racks of 16
servers with 4 T4 GPUs on PCIe, 50 Gbit/s NICs, NCCL over TCP: `fabric=tcp`, the network
the communication model was calibrated on) under 4,000 jobs of the Philly trace (a busy
window, jobs 50,000-54,000) whose models are drawn from ones measured on that GPU (BERT,
ResNet-50, DeepSpeech2) with the seed, then plots mean job completion time and communication overhead
against oversubscription, each policy with a 95% confidence band over seeds (Student's t).
Without the Philly trace (data:philly/philly.csv, under $PROXIMA_DATA or ../shared/data)
it uses a synthetic Philly-shaped trace instead.

    python examples/oversubscription.py                      # every local core
    python examples/oversubscription.py --ray 127.0.0.1:6379 # on a Ray cluster
    python examples/oversubscription.py --quick              # a smaller sweep

Writes OUT/runs.csv, OUT/runs.parquet and OUT/oversubscription.png (OUT defaults to
out/oversubscription). Run it again and it only runs what is missing.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import proxima  # noqa: E402

POLICIES = ["fifo", "consolidate", "dally"]
COLOURS = {"fifo": "#888888", "consolidate": "#1f77b4", "dally": "#d62728"}

# Two-sided 95% quantiles of Student's t for 1..10 degrees of freedom.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def mean_and_band(values):
    """The mean and the half-width of its 95% confidence interval over seeds."""
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return mean, 0.0
    t = T95[n - 2] if n - 2 < len(T95) else 1.96
    return mean, t * statistics.stdev(values) / math.sqrt(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/oversubscription")
    parser.add_argument("--ray", metavar="ADDRESS", help="run on the Ray cluster at ADDRESS")
    parser.add_argument("--quick", action="store_true", help="fewer jobs, levels and seeds")
    args = parser.parse_args()

    oversub = [1, 16, 64] if args.quick else [1, 4, 8, 16, 32, 64]
    seeds = [1, 2, 3] if args.quick else [1, 2, 3, 4, 5]
    jobs = 1500 if args.quick else 4000
    data = os.environ.get("PROXIMA_DATA") or os.path.join("..", "shared", "data")
    if os.path.isfile(os.path.join(data, "philly", "philly.csv")):
        trace = {"trace": "data:philly/philly.csv", "skip": 50000, "limit": jobs}
        label = f"{jobs} jobs of the Philly trace"
    else:
        print(f"no Philly trace under {data}: using a synthetic trace")
        trace = {"trace": f"synthetic:jobs={jobs},load=1.5"}
        label = f"{jobs} synthetic Philly-shaped jobs, offered load 1.5"
    spec = {
        "sweep": {"name": "oversubscription"},
        "grid": {
            "policy": POLICIES,
            "topology": [f"racks=4,servers=16,gpus=4,oversub={o},nic_gbps=50,fabric=tcp" for o in oversub],
            **trace,
            "mix": "bert,resnet50,deepspeech2",
            "seed": seeds,
        },
    }
    started = time.monotonic()
    table = proxima.sweep(spec, args.out, ray_address=args.ray)
    print(f"{len(table)} runs in {time.monotonic() - started:.1f} s -> {args.out}/runs.csv")

    # The topology column holds the spec; read the oversubscription back out of it.
    table["oversub"] = table["topology"].str.extract(r"oversub=(\d+)")[0].astype(int)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    panels = [
        ("avg_jct_s", "mean JCT (hours)", 3600.0),
        ("comm_overhead_s", "comm. overhead (hours, summed over jobs)", 3600.0),
    ]
    for ax, (metric, ylabel, scale) in zip(axes, panels):
        for policy in POLICIES:
            rows = table[table["policy"] == policy]
            xs, means, lows, highs = [], [], [], []
            for o in oversub:
                values = [v / scale for v in rows[rows["oversub"] == o][metric]]
                m, h = mean_and_band(values)
                xs.append(o)
                means.append(m)
                lows.append(m - h)
                highs.append(m + h)
            ax.plot(xs, means, marker="o", color=COLOURS[policy], label=policy)
            ax.fill_between(xs, lows, highs, color=COLOURS[policy], alpha=0.2, linewidth=0)
        ax.set_xscale("log", base=2)
        ax.set_xticks(oversub, [f"{o}:1" for o in oversub])
        ax.set_xlabel("rack uplink oversubscription")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    axes[0].legend(title="policy")
    fig.suptitle(
        f"256 T4 GPUs (4 racks, 50 Gbit/s TCP), {label}, BERT/ResNet-50/DeepSpeech2; "
        f"mean and 95% band over {len(seeds)} seeds",
        fontsize=10,
    )
    fig.tight_layout()
    path = os.path.join(args.out, "oversubscription.png")
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
