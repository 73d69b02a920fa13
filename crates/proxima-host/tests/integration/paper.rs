//! The shipped sweep specs `sweeps/paper/*.toml` run exactly what `proxima experiment paper`
//! runs: the same scenarios (cluster, trace window), policies and seeds, each part a
//! Cartesian grid and all parts together the experiment's runs. When the experiment
//! changes, this fails until the specs follow (`proxima experiment paper --write-sweeps
//! sweeps/paper` writes them).

use proxima_host::spec::Cell;
use proxima_host::{Paths, Plan, Spec};
use proxima_lab::experiment::{paper_plan, TraceRef};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Scenario name, topology, trace, skip, limit, model mix, policy, seed.
type Run = (String, String, String, u32, Option<u32>, Option<String>, String, u64);

#[test]
fn paper_specs_are_the_experiment() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("sweeps/paper");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("sweeps/paper")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "sweeps/paper holds the experiment's specs");
    let paths = Paths { spec_dir: dir.clone(), data_dir: PathBuf::from("/data") };
    let mut got: BTreeSet<Run> = BTreeSet::new();
    let mut ids: BTreeSet<String> = BTreeSet::new();
    for path in &files {
        let name = format!("sweeps/paper/{}", path.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(path).expect("a readable spec");
        let spec = Spec::from_toml(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        let plan = Plan::new(&spec, &paths).unwrap_or_else(|e| panic!("{e}"));
        let scenario_column = plan.columns.iter().position(|c| c == "scenario").expect("a scenario axis");
        for r in &plan.runs {
            let i = &r.inputs;
            let Some(Cell::Str(scenario)) = &r.cells[scenario_column] else { panic!("named scenarios") };
            let trace = match &i.trace_file {
                Some(f) => {
                    assert_eq!(f, &PathBuf::from("/data/philly/philly.csv"));
                    "philly".to_string()
                }
                None => i.trace.clone(),
            };
            got.insert((
                scenario.clone(),
                i.topology.clone(),
                trace,
                i.skip,
                i.limit,
                i.mix.clone(),
                i.policy.clone(),
                i.seed,
            ));
            ids.insert(r.id.clone());
        }
    }
    let experiment = paper_plan(false);
    let tasks = experiment.tasks();
    let want: BTreeSet<Run> = tasks
        .iter()
        .map(|t| {
            let s = &experiment.scenarios[t.scenario];
            let window = t.window as usize;
            let (trace, skip, limit) = match &s.windows()[window] {
                TraceRef::Philly { skip, limit } => ("philly".to_string(), *skip, Some(*limit)),
                synthetic => (synthetic.synthetic_spec().expect("synthetic"), 0, None),
            };
            (s.window_name(window), s.topology.clone(), trace, skip, limit, s.mix.clone(), t.policy.clone(), t.seed)
        })
        .collect();
    assert_eq!(got, want);
    // Run ids key runs by their inputs: the parts' shared runs are one run each, so the
    // folder they all run into holds exactly the experiment's runs.
    assert_eq!(ids.len(), tasks.len());
}
