//! `proxima experiment robust --quick` through the real binary: the report, its figure and
//! its redrawing from report.json; issue 31's first scenario is what `proxima compare
//! --no-rho` gives on the issue's arguments; the held-out set refuses to run unfrozen.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn proxima(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).output().expect("proxima runs")
}

fn ok(args: &[&str]) {
    let out = proxima(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs the quick development set into a fresh folder and returns it with its report.json.
fn quick_run(tag: &str) -> (std::path::PathBuf, Value) {
    let dir = std::env::temp_dir().join(format!("proxima-robust-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    ok(&["experiment", "robust", "--quick", "--threads", "2", "--out", dir.to_str().unwrap()]);
    let report = serde_json::from_slice(&read(&dir.join("report.json"))).unwrap();
    (dir, report)
}

#[test]
fn quick_robust_experiment_writes_its_report_and_redraws_it_from_json() {
    let (dir, report) = quick_run("report");
    let md = String::from_utf8(read(&dir.join("report.md"))).unwrap();
    for part in ["## Robustness (development set)", "### Verdicts for `dally:order=las`", "## Full tables"] {
        assert!(md.contains(part), "report.md lacks {part:?}");
    }
    let svg = String::from_utf8(read(&dir.join("regret-development.svg"))).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("issue-thin-ib"));
    // In every cell the best fair baseline's regret is exactly 1, with a zero-width interval.
    for cell in report["cells"].as_array().unwrap() {
        for (metric, best) in cell["best"].as_object().unwrap() {
            let row = cell["rows"].as_array().unwrap().iter().find(|r| r["policy"] == *best).unwrap();
            let ci = &row["regret"][metric];
            assert_eq!(
                (ci["ratio"].as_f64(), ci["low"].as_f64(), ci["high"].as_f64()),
                (Some(1.0), Some(1.0), Some(1.0))
            );
        }
    }
    let redrawn = dir.join("redrawn");
    let from = dir.join("report.json");
    ok(&["experiment", "robust", "--from", from.to_str().unwrap(), "--out", redrawn.to_str().unwrap()]);
    for file in ["report.md", "report.json", "regret-development.svg"] {
        assert_eq!(read(&dir.join(file)), read(&redrawn.join(file)), "{file} redrawn differs");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The cell is issue 31's scenario 1: every policy's run under seed 1 is the run `proxima
/// compare` makes on the issue's arguments, figure for figure.
#[test]
fn issue_31s_first_cell_is_what_compare_gives_on_the_issues_arguments() {
    let (dir, report) = quick_run("issue");
    let cell = report["cells"].as_array().unwrap().iter().find(|c| c["cell"]["family"] == "issue31-1").unwrap();
    assert_eq!(cell["cell"]["seeds"][0], 1);
    let rows = cell["rows"].as_array().unwrap();
    let out = dir.join("compare");
    let mut args = vec![
        "compare",
        "--topology",
        "racks=4,servers=4,gpus=8,oversub=16,nics=1,nic_gbps=100",
        "--trace",
        "synthetic:jobs=1000,load=0.9",
        "--mix",
        "llama-13b",
        "--no-rho",
        "--out",
        out.to_str().unwrap(),
    ];
    for r in rows {
        args.extend(["--policy", r["policy"].as_str().unwrap()]);
    }
    ok(&args);
    let compared: Value = serde_json::from_slice(&read(&out.join("compare.json"))).unwrap();
    let compared = compared.as_array().unwrap();
    assert_eq!(compared.len(), rows.len());
    for (row, summary) in rows.iter().zip(compared) {
        for metric in ["avg_jct_s", "makespan_s", "p99_jct_s", "comm_overhead_s", "preemptions", "job_preemptions_max"]
        {
            assert_eq!(row["per_seed"][metric][0].as_f64(), summary[metric].as_f64(), "{} {metric}", row["policy"]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_held_out_set_does_not_run_before_the_freeze_and_set_is_robusts_alone() {
    let out = std::env::temp_dir().join(format!("proxima-robust-held-{}", std::process::id()));
    let held = proxima(&["experiment", "robust", "--set", "held-out", "--quick", "--out", out.to_str().unwrap()]);
    if proxima_lab::experiment::robust::FROZEN_AT.is_none() {
        assert_eq!(held.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&held.stderr).contains("not frozen"));
        assert!(!out.exists(), "nothing written");
    }
    let paper = proxima(&["experiment", "paper", "--set", "held-out", "--dry-run"]);
    assert_eq!(paper.status.code(), Some(2));
    let bad = proxima(&["experiment", "robust", "--set", "heldout", "--dry-run"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected development or held-out"));
    let _ = std::fs::remove_dir_all(&out);
}
