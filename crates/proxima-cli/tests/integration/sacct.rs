//! The example Slurm history (`examples/your-cluster/sacct.txt`, `sacct --parsable2` output
//! with steps, an array, a heterogeneous job and CPU-only, pending and running rows) on the
//! example `topology.conf`, through the real `proxima` binary: `compare` reads it, says on
//! stderr what it left out, and every job it kept fits the cluster and completes.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn example(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/your-cluster").join(name);
    path.to_str().unwrap().to_string()
}

#[test]
fn compare_runs_the_example_history_on_the_example_cluster() {
    let (history, topology) = (example("sacct.txt"), example("topology.conf"));
    let out_dir = std::env::temp_dir().join(format!("proxima-sacct-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_proxima"))
        .args(["compare", "--topology", &format!("slurm:{topology},gpus=8,nics=8,nic_gbps=200")])
        .args(["--trace", &history, "--policy", "fifo", "--policy", "dally", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    for note in [
        "6 CPU-only jobs (no GPU asked for) left out (the first on line 74)",
        "5 jobs still running (no end yet) left out",
        "2 jobs that never ran (duration 0) left out",
        "2 pending jobs (never started) left out",
    ] {
        assert!(stderr.contains(&format!("note: {history}: {note}")), "{note} in:\n{stderr}");
    }
    assert!(stdout.contains("(192 GPUs), trace"), "{stdout}");
    assert!(stdout.contains(", 124 jobs"), "{stdout}");
    let summaries: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("compare.json")).unwrap()).unwrap();
    std::fs::remove_dir_all(&out_dir).ok();
    let summaries = summaries.as_array().expect("one summary per policy");
    assert_eq!(summaries.len(), 2);
    for s in summaries {
        assert_eq!((s["jobs_completed"].as_u64(), s["jobs_rejected"].as_u64()), (Some(124), Some(0)), "{s}");
    }
}
