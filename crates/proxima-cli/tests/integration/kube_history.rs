//! The job histories of `examples/your-cluster` (Kueue Workloads and Volcano Jobs as
//! `kubectl get ... -A -o json` prints them) through the real `proxima` binary, on the
//! cluster files beside them: the workloads left out are counted in notes on stderr, and
//! every other one runs.

use std::path::PathBuf;
use std::process::{Command, Output};

fn example(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/your-cluster").join(name);
    path.to_str().unwrap().to_string()
}

fn proxima(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).output().unwrap()
}

#[test]
fn the_kueue_history_runs_on_its_cluster_with_the_left_out_workloads_counted() {
    let (trace, cluster) = (example("kueue-workloads.json"), example("kueue-cluster.yaml"));
    let out = proxima(&["run", "--topology", &format!("kueue:{cluster}"), "--trace", &trace, "--policy", "kueue-tas"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    // 80 Workloads: 67 finished with GPUs, 6 admitted and running, 4 pending, 3 CPU-only.
    assert!(stdout.contains("jobs        67 total: 67 completed, 0 rejected"), "{stdout}");
    for note in
        ["6 jobs still running (no end yet) left out", "4 pending jobs (never started) left out", "3 CPU-only jobs"]
    {
        assert!(stderr.contains(&format!("note: {trace}: {note}")), "{note}: {stderr}");
    }
    // The tenants are the LocalQueues.
    for queue in ["llm-train", "llm-eval", "vision", "recsys"] {
        assert!(stdout.lines().any(|l| l.trim_start().starts_with(queue)), "{queue}: {stdout}");
    }
}

#[test]
fn the_volcano_history_compares_on_its_hypernodes_and_on_the_kueue_cluster() {
    let trace = example("volcano-jobs.json");
    for topology in [
        format!("volcano:{},gpus=8", example("volcano-cluster.yaml")),
        format!("kueue:{}", example("kueue-cluster.yaml")),
    ] {
        let out = proxima(&[
            "compare",
            "--topology",
            &topology,
            "--trace",
            &trace,
            "--policy",
            "volcano",
            "--policy",
            "dally",
        ]);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{topology}: {stderr}");
        // 70 Jobs: 58 finished with GPUs, 6 pending, 3 running, 3 CPU-only.
        assert!(stdout.contains("volcano-jobs.json, seed 1, 58 jobs"), "{stdout}");
        assert!(stdout.lines().any(|l| l.starts_with("completed jobs") && l.matches(" 58").count() == 2), "{stdout}");
        assert!(stderr.contains("6 pending jobs (never started) left out"), "{stderr}");
    }
}
