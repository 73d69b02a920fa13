//! One run from its inputs to its record (`proxima_core::run_files`): the summary, one row
//! a job and the time series, from which `summary.json`, `jobs.csv` and `timeseries.csv`
//! are made only when someone wants them, the same bytes `proxima run --out` writes.

use crate::error::SourcedError;
use crate::fairness;
use crate::inputs::{self, Jobs, TopologyInput, WorkloadArgs};
use proxima_core::engine::Simulation;
use proxima_core::event::EventHasher;
use proxima_core::run::{run_simulation, Fairness, RunOptions};
use proxima_core::run_files::{summary_json, RunRecord};

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// The run as data (job rows, time series), when asked for: it costs allocations
    /// about the size of the trace, which a sweep that keeps only summaries skips.
    pub record: Option<RunRecord>,
    /// `summary.json`, with its final line break.
    pub summary_json: String,
    /// The event-log hash (as `proxima run --events` prints it), when asked for.
    pub event_hash: Option<u64>,
    /// Wall-clock seconds of the simulation itself (its first instant to its summary), as
    /// `proxima bench` times it: for measuring, never part of a result file.
    pub simulation_s: f64,
}

/// What a run produces besides its summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Want {
    /// The run as data, for its files.
    pub record: bool,
    pub event_hash: bool,
    /// Finish-time fairness ρ (the isolated runs, one per tenant, on up to this many
    /// threads), in the summary and the job rows as `proxima run` writes them; `None`:
    /// without ρ, as `proxima run --no-rho`.
    pub rho_threads: Option<usize>,
}

/// Runs `policy` on the scenario of the inputs, through a session of one
/// (`proxima_core::session`): the policy parsed and built first, then the scenario, then
/// the policy checked against its cluster.
pub fn execute(
    topology: &TopologyInput,
    jobs: Jobs,
    args: &WorkloadArgs,
    policy: &str,
    want: Want,
) -> Result<RunOutput, SourcedError> {
    let policies = inputs::policies(&[policy])?;
    simulate(inputs::session(topology, jobs, args, policies)?.into_simulation(0), want)
}

/// Runs a simulation of a session's policy to its end (a sweep builds one scenario for all
/// the runs that differ only in their policy), through the core's one run loop.
pub fn simulate(simulation: Simulation, want: Want) -> Result<RunOutput, SourcedError> {
    let mut hasher = EventHasher::default();
    let rho = |sim: &Simulation| fairness::finish_time_fairness(sim, want.rho_threads.unwrap_or(1), &|_, _| {});
    let started = std::time::Instant::now();
    let clock = || started.elapsed().as_secs_f64() * 1000.0;
    let options = RunOptions {
        rho: want.rho_threads.is_some().then_some(&rho as Fairness<'_, SourcedError>),
        record: want.record,
        observers: if want.event_hash { vec![&mut hasher] } else { Vec::new() },
        on_step: None,
        clock: Some(&clock),
    };
    let finished = run_simulation(simulation, options).map_err(|failed| failed.problem)?;
    let simulation_s = finished.simulation_ms.expect("timed") / 1000.0;
    let summary_json = summary_json(finished.summary());
    let record = if want.record { finished.record } else { None };
    Ok(RunOutput { record, summary_json, event_hash: want.event_hash.then(|| hasher.hash()), simulation_s })
}
