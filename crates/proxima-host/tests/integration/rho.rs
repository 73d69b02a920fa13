//! A sweep over tenants' quotas with finish-time fairness ρ: two tenants of a synthetic
//! trace, `rho = [false, true]`. The table is the same bytes on one thread and on two; each
//! run with ρ recorded the `summary.json` a single run on the same inputs writes (the path
//! `proxima run` and `proxima.run` take, its isolated runs on several threads); and the ρ
//! columns hold that summary's figures, empty for the runs without ρ.

use proxima_host::inputs::{Jobs, TopologyInput, TraceInput, WorkloadArgs};
use proxima_host::run::{execute, Want};
use proxima_host::runner::run_local;
use proxima_host::spec::Cell;
use proxima_host::{Paths, Plan, Spec, Store};
use std::path::PathBuf;

const SPEC: &str = "[grid]
topology = 'racks=2,servers=2,gpus=4'
trace = 'synthetic:jobs=60,load=1.6,tenants=2'
policy = ['fifo', 'dally']
tenants = ['equal', 'weights:t1=3']
rho = [false, true]
";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proxima-host-rho-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn sweep(plan: &Plan, name: &str, threads: usize) -> (PathBuf, String, Vec<u8>) {
    let dir = scratch(name);
    let store = Store::open(&dir).unwrap();
    let outcome = run_local(plan, &store, threads, false, &|_| true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outcome.ran, plan.runs.len());
    let csv = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let parquet = std::fs::read(dir.join("runs.parquet")).unwrap();
    (dir, csv, parquet)
}

/// The summary a single run with ρ writes for a planned run's inputs.
fn single_run_summary(inputs: &proxima_host::RunInputs) -> String {
    let trace = TraceInput::Synthetic(inputs.trace.clone());
    let args = WorkloadArgs {
        seed: inputs.seed,
        skip: inputs.skip,
        limit: inputs.limit,
        mix: inputs.mix.clone(),
        tenants: inputs.tenants.clone(),
    };
    let want = Want { record: false, event_hash: false, rho_threads: Some(2) };
    let topology = TopologyInput::Argument(inputs.topology.clone());
    execute(&topology, Jobs::Input(&trace), &args, &inputs.policy, want).unwrap().summary_json
}

#[test]
fn a_rho_sweep_is_the_single_runs_on_any_thread_count() {
    let spec = Spec::from_toml(SPEC, "rho.toml").unwrap();
    let plan = Plan::new(&spec, &Paths { spec_dir: ".".into(), data_dir: ".".into() }).unwrap();
    assert_eq!(plan.runs.len(), 8);
    let (one_dir, one_csv, one_parquet) = sweep(&plan, "one", 1);
    let (two_dir, two_csv, two_parquet) = sweep(&plan, "two", 2);
    assert_eq!(one_csv, two_csv);
    assert_eq!(one_parquet, two_parquet);

    let header: Vec<&str> = one_csv.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap_or_else(|| panic!("no column {name}"));
    let [rho_max, rho_p50, rho_over_1] = ["rho_max", "rho_p50", "rho_over_1"].map(column);
    assert_eq!(rho_over_1, header.len() - 1, "the ρ columns come last, as in a summary");
    let (quotas, rho_axis) = (column("quotas"), column("rho"));
    assert!(column("tenants") < rho_axis);

    let store = Store::open(&one_dir).unwrap();
    let table = store.write_table(&plan).unwrap();
    let mut measured = 0;
    for (run, row) in plan.runs.iter().zip(&table.rows) {
        let recorded = std::fs::read_to_string(one_dir.join("runs").join(&run.id).join("summary.json")).unwrap();
        let summary: serde_json::Value = serde_json::from_str(&recorded).unwrap();
        let expected_quotas = if run.inputs.tenants.is_some() { "weights" } else { "equal" };
        assert_eq!(row[quotas], Some(Cell::Str(expected_quotas.into())));
        assert_eq!(row[rho_axis], Some(Cell::Bool(run.inputs.rho)));
        if !run.inputs.rho {
            assert!(summary.get("rho_max").is_none(), "a run without ρ makes no isolated runs");
            assert_eq!((&row[rho_max], &row[rho_p50], &row[rho_over_1]), (&None, &None, &None));
            continue;
        }
        // Byte for byte the summary of a single run with ρ, isolated runs on two threads.
        assert_eq!(recorded, single_run_summary(&run.inputs), "run {}", run.id);
        let figure = |name: &str| Some(Cell::Float(summary[name].as_f64().unwrap()));
        assert_eq!(row[rho_max], figure("rho_max"));
        assert_eq!(row[rho_p50], figure("rho_p50"));
        assert_eq!(row[rho_over_1], figure("rho_over_1"));
        measured += 1;
    }
    assert_eq!(measured, 4);
    // Quotas change who waits: on this trace the runs with ρ do not all give one figure.
    let maxima: std::collections::BTreeSet<String> =
        table.rows.iter().filter_map(|r| r[rho_max].as_ref()).map(|c| c.text()).collect();
    assert!(maxima.len() > 1, "{maxima:?}");
    for dir in [one_dir, two_dir] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_plan_asking_for_rho_has_its_columns_even_when_no_run_measured_it() {
    let spec = Spec::from_toml(
        "[grid]\ntopology = 'teaching'\ntrace = 'synthetic:jobs=3'\npolicy = 'fifo'\nrho = [true, false]\n",
        "s.toml",
    )
    .unwrap();
    let plan = Plan::new(&spec, &Paths { spec_dir: ".".into(), data_dir: ".".into() }).unwrap();
    // Summaries as a run that completed no job writes them: no ρ to report.
    let summaries = plan.runs.iter().map(|r| (r.id.clone(), r#"{"avg_jct_s":0.0}"#.to_string())).collect();
    let table = proxima_host::table::Table::build(&plan, &summaries).unwrap();
    let names: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["run_id", "topology", "trace", "policy", "rho", "avg_jct_s", "rho_max", "rho_p50", "rho_over_1"]
    );
    assert!(table.columns[6..].iter().all(|c| c.kind == proxima_host::table::Kind::Float));
    assert!(table.rows.iter().all(|r| r[6..].iter().all(Option::is_none)));
}
