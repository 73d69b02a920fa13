//! `proxima experiment`: runs a plan from the lab on every core of the machine and writes
//! the report and its figures.

use crate::figures;
use crate::inputs::UsageError;
use proxima_core::trace::Trace;
use proxima_host::inputs;
use proxima_lab::experiment::{aggregate, paper_plan, run_task, Plan, Report, TraceRef};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub fn plan_by_name(name: &str, quick: bool) -> Result<Plan, UsageError> {
    match name {
        "paper" => Ok(paper_plan(quick)),
        other => Err(UsageError(format!("experiment: unknown experiment '{other}' (known: paper, robust)"))),
    }
}

/// Runs `run` on every task on `threads` threads, showing progress on a terminal; the
/// results in task order, or the first task's error (in task order). The runner of every
/// experiment.
pub fn run_parallel<T: Sync, R: Send>(
    name: &str,
    tasks: &[T],
    threads: usize,
    run: impl Fn(&T) -> Result<R, UsageError> + Sync,
) -> Result<Vec<R>, UsageError> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<R, UsageError>>>> = Mutex::new((0..tasks.len()).map(|_| None).collect());
    let show = std::io::stderr().is_terminal();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= tasks.len() {
                    break;
                }
                let r = run(&tasks[i]);
                results.lock().expect("no thread panics holding it")[i] = Some(r);
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if show {
                    eprint!("\rexperiment {name}: {d}/{} runs", tasks.len());
                    let _ = std::io::stderr().flush();
                }
            });
        }
    });
    if show {
        eprintln!();
    }
    results.into_inner().expect("threads are done").into_iter().map(|r| r.expect("every task ran")).collect()
}

/// Runs every task of the plan on `threads` threads and aggregates.
pub fn run_plan(plan: &Plan, philly_arg: Option<&str>, threads: usize) -> Result<Report, UsageError> {
    let needs_philly = plan.scenarios.iter().any(|s| matches!(s.trace, TraceRef::Philly { .. }));
    // The Philly trace is parsed once for the whole plan and only borrowed by the runs:
    // cloning 82,247 jobs per run would be work done thousands of times.
    let philly: Option<Trace> = if needs_philly { Some(inputs::philly_trace(philly_arg)?) } else { None };
    let finished = run_parallel(&plan.name, &plan.tasks(), threads, |task| {
        run_task(plan, task, philly.as_ref()).map_err(|e| {
            UsageError(format!(
                "experiment {}: {} with {} (seed {}): {e}",
                plan.name,
                plan.scenarios[task.scenario].window_name(task.window as usize),
                task.policy,
                task.seed
            ))
        })
    })?;
    Ok(aggregate(plan, &finished))
}

/// Writes `report.md`, `report.json` and every figure into `dir`; returns the files.
pub fn write_report(report: &Report, dir: &str) -> Result<Vec<String>, String> {
    let mut out = ReportDir::new(dir)?;
    out.write("report.md", report.to_markdown().as_bytes())?;
    out.write("report.json", (report.to_json() + "\n").as_bytes())?;
    for figure in report.figures() {
        let svg = figures::draw(report, &figure).map_err(|e| format!("{dir}/{}: {e}", figure.file))?;
        out.write(&figure.file, svg.as_bytes())?;
    }
    Ok(out.written)
}

/// A report's folder, created on first use, and the files written into it.
pub struct ReportDir<'a> {
    dir: &'a str,
    pub written: Vec<String>,
}

impl<'a> ReportDir<'a> {
    pub fn new(dir: &'a str) -> Result<ReportDir<'a>, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: cannot create directory: {e}"))?;
        Ok(ReportDir { dir, written: Vec::new() })
    }

    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), String> {
        let path = format!("{}/{name}", self.dir);
        std::fs::write(&path, bytes).map_err(|e| format!("{path}: {e}"))?;
        self.written.push(path);
        Ok(())
    }
}
