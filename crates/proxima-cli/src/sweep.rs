//! `proxima sweep SPEC --out DIR`: every run of a sweep spec on this machine's cores, with a
//! progress bar, resuming what an earlier, interrupted start left; writes `DIR/runs.csv`
//! and `DIR/runs.parquet` (the `proxima-host` crate, which the Python package shares).

use crate::inputs::UsageError;
use clap::Args;
use proxima_host::runner::{run_local, Progress, SweepError};
use proxima_host::{inputs::sweep_spec, Paths, Plan, Store};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

#[derive(Args)]
pub struct SweepArgs {
    /// The sweep spec: a TOML file with a [grid] table (sweeps/README.md).
    spec: String,
    /// Directory for runs.csv, runs.parquet and one folder per run (runs/<run_id>/).
    #[arg(long)]
    out: String,
    /// Threads to run on (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Also write each run's jobs.csv and timeseries.csv.
    #[arg(long)]
    files: bool,
    /// Print the runs (id and parameters) without running them.
    #[arg(long)]
    dry_run: bool,
}

pub enum SweepFailure {
    Usage(UsageError),
    Io(String),
}

fn draw(p: Progress, started: Instant) {
    let width = 30;
    let fraction = if p.total > 0 { p.done as f64 / p.total as f64 } else { 1.0 };
    let filled = (fraction * width as f64) as usize;
    let bar = "=".repeat(filled) + &" ".repeat(width - filled);
    let ran = p.done - p.reused;
    let rate = ran as f64 / started.elapsed().as_secs_f64().max(1e-9);
    eprint!("\rsweep [{bar}] {:>3.0}%  {}/{} runs  {rate:.2} runs/s ", fraction * 100.0, p.done, p.total);
    let _ = std::io::stderr().flush();
}

pub fn run(args: &SweepArgs) -> Result<(), SweepFailure> {
    let usage = |e: proxima_host::SourcedError| SweepFailure::Usage(UsageError(e.to_string()));
    let spec = sweep_spec(&args.spec).map_err(usage)?;
    let spec_dir = Path::new(&args.spec).parent().map(Path::to_path_buf).unwrap_or_default();
    let paths = Paths { spec_dir, data_dir: Paths::data_dir_from_env() };
    let plan = Plan::new(&spec, &paths).map_err(usage)?;
    if args.dry_run {
        println!("run_id,{}", plan.columns.join(","));
        for r in &plan.runs {
            println!("{} {}", r.id, r.inputs.canonical().trim_end().replace('\n', " "));
        }
        return Ok(());
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let store = Store::open(Path::new(&args.out)).map_err(SweepFailure::Io)?;
    let show = std::io::stderr().is_terminal();
    let started = Instant::now();
    let result = run_local(&plan, &store, threads, args.files, &|p| {
        if show {
            draw(p, started)
        }
        true
    });
    if show {
        eprintln!();
    }
    let outcome = result.map_err(|e| match e {
        SweepError::Input(e) => usage(e),
        other => SweepFailure::Io(other.to_string()),
    })?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{} runs: {} run now on {threads} threads in {secs:.1} s ({:.2} runs/s), {} done before; wrote {}/runs.csv and {}/runs.parquet ({} columns)",
        plan.runs.len(),
        outcome.ran,
        outcome.ran as f64 / secs.max(1e-9),
        outcome.reused,
        args.out,
        args.out,
        outcome.table.columns.len()
    );
    Ok(())
}
