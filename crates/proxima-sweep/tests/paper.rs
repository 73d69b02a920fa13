//! The shipped sweep spec `sweeps/paper.toml` runs exactly what `proxima experiment paper`
//! runs: the same scenarios (cluster, trace window), policies and seeds. When the
//! experiment changes, this fails until the spec follows.

use proxima_core::experiment::{paper_plan, TraceRef};
use proxima_sweep::spec::Cell;
use proxima_sweep::{Paths, Plan, Spec};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Scenario name, topology, trace, skip, limit, policy, seed.
type Run = (String, String, String, u32, Option<u32>, String, u64);

#[test]
fn paper_spec_is_the_experiment() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join("sweeps/paper.toml");
    let text = std::fs::read_to_string(&path).expect("sweeps/paper.toml");
    let spec = Spec::from_toml(&text, "sweeps/paper.toml").expect("a valid spec");
    let paths = Paths { spec_dir: root.join("sweeps"), data_dir: PathBuf::from("/data") };
    let plan = Plan::new(&spec, &paths).expect("a valid plan");
    let scenario_column = plan.columns.iter().position(|c| c == "scenario").expect("a scenario axis");
    let got: BTreeSet<Run> = plan
        .runs
        .iter()
        .map(|r| {
            let i = &r.inputs;
            let Some(Cell::Str(name)) = &r.cells[scenario_column] else { panic!("named scenarios") };
            let trace = match &i.trace_file {
                Some(f) => {
                    assert_eq!(f, &PathBuf::from("/data/philly/philly.csv"));
                    "philly".to_string()
                }
                None => i.trace.clone(),
            };
            (name.clone(), i.topology.clone(), trace, i.skip, i.limit, i.policy.clone(), i.seed)
        })
        .collect();
    let experiment = paper_plan(false);
    let want: BTreeSet<Run> = experiment
        .tasks()
        .iter()
        .map(|t| {
            let s = &experiment.scenarios[t.scenario];
            let (trace, skip, limit) = match &s.trace {
                TraceRef::Philly { skip, limit } => ("philly".to_string(), *skip, Some(*limit)),
                TraceRef::Synthetic { jobs, load } => (format!("synthetic:jobs={jobs},load={load}"), 0, None),
            };
            (s.name.clone(), s.topology.clone(), trace, skip, limit, t.policy.clone(), t.seed)
        })
        .collect();
    assert_eq!(plan.runs.len(), experiment.tasks().len());
    assert_eq!(got, want);
}
