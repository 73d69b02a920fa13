//! `proxima experiment`: runs a plan from the core on every core of the machine and writes
//! the report.

use crate::inputs::{read_text, UsageError};
use proxima_core::engine::Simulation;
use proxima_core::experiment::{aggregate, paper_plan, Plan, Report, Task, TraceRef};
use proxima_core::metrics::Summary;
use proxima_core::model::Catalog;
use proxima_core::policy::resolve_policy;
use proxima_core::topology::resolve_topology_arg;
use proxima_core::trace::synthetic::{generate, SyntheticSpec};
use proxima_core::trace::{parse_trace, Trace};
use proxima_core::workload::{build_scenario, ModelMix, WorkloadOptions};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub fn plan_by_name(name: &str, quick: bool) -> Result<Plan, UsageError> {
    match name {
        "paper" => Ok(paper_plan(quick)),
        other => Err(UsageError(format!("experiment: unknown experiment '{other}' (known: paper)"))),
    }
}

/// The Philly trace: `--philly`, else `$PROXIMA_DATA/philly/philly.csv`, else
/// `../shared/data/philly/philly.csv`.
fn philly_path(arg: Option<&str>) -> String {
    if let Some(a) = arg {
        return a.to_string();
    }
    match std::env::var("PROXIMA_DATA") {
        Ok(d) => format!("{d}/philly/philly.csv"),
        Err(_) => "../shared/data/philly/philly.csv".to_string(),
    }
}

fn run_task(plan: &Plan, task: &Task, philly: Option<&Trace>) -> Result<Summary, UsageError> {
    let def = &plan.scenarios[task.scenario];
    let topology = resolve_topology_arg(&def.topology).map_err(|e| UsageError(e.with_source(&def.topology)))?;
    // The Philly trace is parsed once for the whole plan and only borrowed here: resolution
    // reads it, and cloning 82,247 jobs per run would be work done hundreds of times.
    let generated;
    let (trace, skip, limit): (&Trace, u32, Option<u32>) = match &def.trace {
        TraceRef::Philly { skip, limit } => (philly.expect("loaded when the plan needs it"), *skip, Some(*limit)),
        TraceRef::Synthetic { jobs, load } => {
            let spec = SyntheticSpec { jobs: *jobs, load: *load, seed: task.seed };
            generated = generate(&spec, topology.gpu_count());
            (&generated, 0, None)
        }
    };
    let catalog = Catalog::built_in();
    let options = WorkloadOptions { seed: task.seed, skip, limit, mix: ModelMix::default_for(&catalog) };
    let scenario =
        build_scenario(topology, trace, &options, &def.trace.label()).map_err(|e| UsageError(e.to_string()))?;
    let policy = resolve_policy(&task.policy).map_err(|e| UsageError(e.with_source(&task.policy)))?;
    Ok(Simulation::new(scenario, policy).run())
}

/// Runs every task of the plan on `threads` threads and aggregates.
pub fn run_plan(plan: &Plan, philly_arg: Option<&str>, threads: usize) -> Result<Report, UsageError> {
    let needs_philly = plan.scenarios.iter().any(|s| matches!(s.trace, TraceRef::Philly { .. }));
    let philly = if needs_philly {
        let path = philly_path(philly_arg);
        if !std::path::Path::new(&path).is_file() {
            return Err(UsageError(format!(
                "{path}: the Philly trace is not there; pass --philly PATH or set PROXIMA_DATA to the data folder"
            )));
        }
        let text = read_text(&path)?;
        Some(parse_trace(&text).map_err(|e| UsageError(e.with_source(&path)))?)
    } else {
        None
    };
    let tasks = plan.tasks();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Summary, UsageError>>>> = Mutex::new((0..tasks.len()).map(|_| None).collect());
    let show = std::io::stderr().is_terminal();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= tasks.len() {
                    break;
                }
                let r = run_task(plan, &tasks[i], philly.as_ref());
                results.lock().expect("no thread panics holding it")[i] = Some(r);
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if show {
                    eprint!("\rexperiment {}: {d}/{} runs", plan.name, tasks.len());
                    let _ = std::io::stderr().flush();
                }
            });
        }
    });
    if show {
        eprintln!();
    }
    let mut summaries = Vec::with_capacity(tasks.len());
    for r in results.into_inner().expect("threads are done") {
        summaries.push(r.expect("every task ran")?);
    }
    Ok(aggregate(plan, &summaries))
}
