#!/usr/bin/env python3
"""The search that chose the page's first scenario (issue 32, point 1; docs/APP.md).

For each candidate (cluster, jobs, offered load, seed, model mix) it runs `dally` (with
its event log) and `consolidate` with the release CLI and counts what the first run must
show: waits that decline free GPUs (`waiting_for_tier` with a non-null `best_now`),
network-sensitive preemptions (`preempted_for`) and timer moves (`timer_changed`), with
the mean JCT of both policies. Prints one tab-separated row per candidate, best first:
candidates that show all three mechanisms and where dally beats consolidate, ranked by
dally's gain, then by fewer jobs (a faster first run).

Usage: scripts/first-run-search.py PROXIMA_BINARY [--quick]
"""

import itertools
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

TOPOLOGIES = [
    "racks=2,servers=4,gpus=4,oversub=32,fabric=tcp",
    "racks=2,servers=2,gpus=8,oversub=32,fabric=tcp",
    "racks=4,servers=2,gpus=4,oversub=32,fabric=tcp",
]
JOBS = [600, 800]
LOADS = [0.9, 1.0, 1.2]
SEEDS = range(1, 9)
# The default mix, and mixes of models that exchange much per step (every job sensitive
# to its placement: a queue of sensitive jobs is what leaves GPUs free and declined).
MIXES = [
    None,
    "bert,gpt2,vgg16,resnet50",
    "vgg16,vgg19,bert-large,gpt2",
    "bert,deepspeech2,yolov3,resnet50",
    "vgg16,bert,gpt2,alexnet,deepspeech2",
]


def run(binary, topology, jobs, load, seed, mix, policy, workdir, events):
    cmd = [
        binary, "run", "--topology", topology,
        "--trace", f"synthetic:jobs={jobs},load={load},seed={seed}",
        "--seed", str(seed), "--policy", policy, "--out", workdir, "--no-rho",
    ]
    if mix:
        cmd += ["--mix", mix]
    if events:
        cmd += ["--events", events]
    subprocess.run(cmd, check=True, capture_output=True)
    with open(os.path.join(workdir, "summary.json")) as f:
        return json.load(f)["avg_jct_s"]


def candidate(binary, point):
    topology, jobs, load, seed, mix = point
    with tempfile.TemporaryDirectory() as tmp:
        events = os.path.join(tmp, "events.jsonl")
        dally = run(binary, topology, jobs, load, seed, mix, "dally", os.path.join(tmp, "d"), events)
        consolidate = run(binary, topology, jobs, load, seed, mix, "consolidate", os.path.join(tmp, "c"), None)
        declines = preemptions = timer_moves = 0
        first_decline = None
        with open(events) as f:
            for line in f:
                e = json.loads(line)
                reason = e.get("reason") or {}
                if reason.get("kind") == "waiting_for_tier" and reason.get("best_now") is not None:
                    declines += 1
                    first_decline = first_decline if first_decline is not None else e["t_us"] / 1e6
                elif reason.get("kind") == "preempted_for":
                    preemptions += 1
                elif (e.get("note") or {}).get("kind") == "timer_changed":
                    timer_moves += 1
    return {
        "topology": topology, "jobs": jobs, "load": load, "seed": seed, "mix": mix or "default",
        "dally": dally, "consolidate": consolidate, "ratio": dally / consolidate,
        "declines": declines, "first_decline_s": first_decline,
        "preemptions": preemptions, "timer_moves": timer_moves,
    }


def main():
    binary = sys.argv[1]
    quick = "--quick" in sys.argv
    points = list(itertools.product(TOPOLOGIES[:1] if quick else TOPOLOGIES, JOBS, LOADS, SEEDS, MIXES))
    with ThreadPoolExecutor(max_workers=2) as pool:
        rows = list(pool.map(lambda p: candidate(binary, p), points))
    shows_all = lambda r: r["declines"] > 0 and r["preemptions"] > 0 and r["timer_moves"] > 0 and r["ratio"] < 1
    rows.sort(key=lambda r: (not shows_all(r), r["ratio"], r["jobs"]))
    cols = ["topology", "jobs", "load", "seed", "mix", "ratio", "dally", "consolidate",
            "declines", "first_decline_s", "preemptions", "timer_moves"]
    print("\t".join(cols))
    for r in rows:
        print("\t".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in cols))
    print(f"{sum(map(shows_all, rows))} of {len(rows)} candidates show all three and dally < consolidate",
          file=sys.stderr)


if __name__ == "__main__":
    main()
