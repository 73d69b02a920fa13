//! `proxima experiment robust`: the robustness grid of one set
//! ([`proxima_lab::experiment::robust`]) run on every core, and its report and figure.

use crate::experiment::{run_parallel, ReportDir};
use crate::figures::regret_map;
use crate::inputs::UsageError;
use crate::{ExperimentOptions, Failure};
use proxima_core::trace::Trace;
use proxima_host::inputs;
use proxima_lab::experiment::robust::{
    aggregate_robust, cell_topologies, robust_plan, run_robust_task, RobustInputs, RobustPlan, RobustReport, FROZEN_AT,
};
use proxima_lab::experiment::ScenarioSet;

/// The set `--set` names: `development` (the default) or `held-out`.
pub fn parse_set(text: Option<&str>) -> Result<ScenarioSet, UsageError> {
    match text.unwrap_or("development") {
        "development" => Ok(ScenarioSet::Development),
        "held-out" => Ok(ScenarioSet::HeldOut),
        other => Err(UsageError(format!("--set: expected development or held-out, got '{other}'"))),
    }
}

/// Refuses to run the held-out set before the recommended policy's freeze is recorded in
/// the code ([`FROZEN_AT`]): the protocol's order, enforced.
pub fn check_frozen(plan: &RobustPlan) -> Result<(), UsageError> {
    if plan.set.is_held_out() && FROZEN_AT.is_none() {
        return Err(UsageError(
            "experiment robust --set held-out: the recommended policy is not frozen (set FROZEN_AT in crates/proxima-lab/src/experiment/robust/plan.rs to the commit it was frozen at, commit that, then run the held-out set once)".into(),
        ));
    }
    Ok(())
}

/// Runs every task of the plan on `threads` threads and aggregates; the Philly trace and
/// the Lingjun topology are read once, when some cell needs them. A held-out plan runs
/// only once the freeze is recorded.
pub fn run(
    plan: &RobustPlan,
    philly_arg: Option<&str>,
    lingjun_arg: Option<&str>,
    threads: usize,
) -> Result<RobustReport, UsageError> {
    check_frozen(plan)?;
    let philly: Option<Trace> = if plan.needs_philly() { Some(inputs::philly_trace(philly_arg)?) } else { None };
    let lingjun = if plan.needs_lingjun() { Some(inputs::lingjun_topology(lingjun_arg)?) } else { None };
    let inputs = RobustInputs {
        philly: philly.as_ref(),
        lingjun: lingjun.as_ref().map(|(path, text)| (path.as_str(), text.as_str())),
    };
    let topologies = cell_topologies(plan, inputs).map_err(UsageError::from)?;
    let finished = run_parallel(&plan.name, &plan.tasks(), threads, |task| {
        run_robust_task(plan, task, &topologies, philly.as_ref()).map_err(|e| {
            let cell = &plan.cells[task.cell];
            UsageError(format!(
                "experiment robust: {} with {} (seed {}): {e}",
                cell.name, task.policy, cell.seeds[task.seed_index as usize]
            ))
        })
    })?;
    Ok(aggregate_robust(plan, &finished))
}

/// Writes `report.md`, `report.json` and the regret figure into `dir`; returns the files.
pub fn write_report(report: &RobustReport, dir: &str) -> Result<Vec<String>, String> {
    let mut out = ReportDir::new(dir)?;
    out.write("report.md", report.to_markdown().as_bytes())?;
    out.write("report.json", (report.to_json() + "\n").as_bytes())?;
    let map = report.regret_map();
    let svg = regret_map::draw(&map).map_err(|e| format!("{dir}/{}: {e}", map.file))?;
    out.write(&map.file, svg.as_bytes())?;
    Ok(out.written)
}

/// `proxima experiment robust`: runs one set's cells, or redraws a report (`--from`).
pub fn run_experiment(
    out: &str,
    o: ExperimentOptions,
    set: Option<&str>,
    lingjun: Option<&str>,
) -> Result<(), Failure> {
    if let Some(path) = o.from {
        let report = proxima_host::inputs::robust_report(&path).map_err(UsageError::from)?;
        let written = write_report(&report, out).map_err(Failure::Io)?;
        eprintln!("redrew {} files from {path} into {out}/", written.len());
        return Ok(());
    }
    if o.write_sweeps.is_some() {
        return Err(Failure::Usage(UsageError("experiment robust: --write-sweeps is for the paper experiment".into())));
    }
    let mut plan = robust_plan(parse_set(set)?, o.quick);
    match o.seeds {
        Some(0) => return Err(Failure::Usage(UsageError("experiment: --seeds must be at least 1".into()))),
        Some(count) => plan = plan.with_seed_count(count),
        None => {}
    }
    let runs = plan.tasks().len();
    if o.dry_run {
        println!(
            "experiment robust ({} set): {} cells, {} policies: {runs} runs",
            plan.set.label(),
            plan.cells.len(),
            plan.policies.len()
        );
        return Ok(());
    }
    let threads = o.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let started = std::time::Instant::now();
    let report = run(&plan, o.philly.as_deref(), lingjun, threads)?;
    let elapsed = started.elapsed().as_secs_f64();
    let written = write_report(&report, out).map_err(Failure::Io)?;
    eprintln!("{runs} runs on {threads} threads in {elapsed:.1} s; wrote {} files to {out}/", written.len());
    Ok(())
}
