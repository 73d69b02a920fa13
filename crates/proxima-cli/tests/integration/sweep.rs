//! `proxima sweep` with tenants' quotas and ρ writes, for each run, the files `proxima run`
//! writes for the same cell (ρ included), and a spec whose quotas name a tenant the trace
//! lacks fails before writing a table, naming the tenant.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn proxima(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proxima")).args(args).current_dir(dir).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proxima-cli-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ok(out: &Output) {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_rho_sweeps_runs_are_proxima_run_on_the_same_cell() {
    let dir = scratch("rho");
    std::fs::write(
        dir.join("rho.toml"),
        "[grid]\ntopology = 'racks=2,servers=2,gpus=4'\ntrace = 'synthetic:jobs=60,load=1.6,tenants=2'\n\
         policy = 'dally'\ntenants = 'demand'\nrho = true\n",
    )
    .unwrap();
    ok(&proxima(&["sweep", "rho.toml", "--out", "swept", "--files", "--threads", "2"], &dir));
    let run = [
        "run",
        "--topology",
        "racks=2,servers=2,gpus=4",
        "--trace",
        "synthetic:jobs=60,load=1.6,tenants=2",
        "--policy",
        "dally",
        "--tenants",
        "demand",
        "--out",
        "single",
    ];
    ok(&proxima(&run, &dir));
    let csv = std::fs::read_to_string(dir.join("swept/runs.csv")).unwrap();
    let id = csv.lines().nth(1).unwrap().split(',').next().unwrap();
    for file in ["summary.json", "jobs.csv", "timeseries.csv"] {
        let swept = std::fs::read(dir.join("swept/runs").join(id).join(file)).unwrap();
        assert!(swept == std::fs::read(dir.join("single").join(file)).unwrap(), "{file} differs");
    }
    let summary = std::fs::read_to_string(dir.join("single/summary.json")).unwrap();
    assert!(summary.contains("\"rho_max\"") && summary.contains("\"quotas\": \"demand\""), "{summary}");
    assert!(csv.lines().next().unwrap().ends_with(",rho_max,rho_p50,rho_over_1"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn quotas_for_a_tenant_the_trace_lacks_fail_the_sweep() {
    let dir = scratch("bad");
    std::fs::write(
        dir.join("bad.toml"),
        "[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=20,tenants=2'\npolicy = 'fifo'\ntenants = 'ops=4'\n",
    )
    .unwrap();
    let out = proxima(&["sweep", "bad.toml", "--out", "out"], &dir);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ops: no job of the trace belongs to this tenant (tenants: t1, t2)"), "{stderr}");
    assert!(!dir.join("out/runs.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
