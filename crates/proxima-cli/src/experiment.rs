//! `proxima experiment`: runs a plan from the lab on every core of the machine and writes
//! the report and its figures.

use crate::figures;
use crate::inputs::UsageError;
use proxima_core::trace::Trace;
use proxima_host::inputs;
use proxima_lab::experiment::{aggregate, paper_plan, run_task, Plan, Report, TaskResult, TraceRef};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub fn plan_by_name(name: &str, quick: bool) -> Result<Plan, UsageError> {
    match name {
        "paper" => Ok(paper_plan(quick)),
        other => Err(UsageError(format!("experiment: unknown experiment '{other}' (known: paper)"))),
    }
}

/// Runs every task of the plan on `threads` threads and aggregates.
pub fn run_plan(plan: &Plan, philly_arg: Option<&str>, threads: usize) -> Result<Report, UsageError> {
    let needs_philly = plan.scenarios.iter().any(|s| matches!(s.trace, TraceRef::Philly { .. }));
    // The Philly trace is parsed once for the whole plan and only borrowed by the runs:
    // cloning 82,247 jobs per run would be work done thousands of times.
    let philly: Option<Trace> = if needs_philly { Some(inputs::philly_trace(philly_arg)?) } else { None };
    let tasks = plan.tasks();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<TaskResult, UsageError>>>> =
        Mutex::new((0..tasks.len()).map(|_| None).collect());
    let show = std::io::stderr().is_terminal();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= tasks.len() {
                    break;
                }
                let task = &tasks[i];
                let r = run_task(plan, task, philly.as_ref()).map_err(|e| {
                    UsageError(format!(
                        "experiment {}: {} with {} (seed {}): {e}",
                        plan.name,
                        plan.scenarios[task.scenario].window_name(task.window as usize),
                        task.policy,
                        task.seed
                    ))
                });
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
    let mut finished = Vec::with_capacity(tasks.len());
    for r in results.into_inner().expect("threads are done") {
        finished.push(r.expect("every task ran")?);
    }
    Ok(aggregate(plan, &finished))
}

/// Writes `report.md`, `report.json` and every figure into `dir`; returns the files.
pub fn write_report(report: &Report, dir: &str) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: cannot create directory: {e}"))?;
    let mut written = Vec::new();
    let mut write = |name: &str, bytes: &[u8]| -> Result<(), String> {
        let path = format!("{dir}/{name}");
        std::fs::write(&path, bytes).map_err(|e| format!("{path}: {e}"))?;
        written.push(path);
        Ok(())
    };
    write("report.md", report.to_markdown().as_bytes())?;
    write("report.json", (report.to_json() + "\n").as_bytes())?;
    for figure in report.figures() {
        let svg = figures::draw(report, &figure).map_err(|e| format!("{dir}/{}: {e}", figure.file))?;
        write(&figure.file, svg.as_bytes())?;
    }
    Ok(written)
}
