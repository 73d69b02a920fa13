//! One run from its inputs to its record (`proxima_core::run_files`): the summary, one row
//! a job and the time series, from which `summary.json`, `jobs.csv` and `timeseries.csv`
//! are made only when someone wants them, the same bytes `proxima run --out` writes.

use crate::error::SourcedError;
use crate::fairness::Threads;
use crate::inputs::{self, Jobs, TopologyInput, WorkloadArgs};
use proxima_core::event::EventHasher;
use proxima_core::inputs::ArgumentNames;
use proxima_core::run::{Finished, RhoFailed, RunOptions};
use proxima_core::run_files::{summary_json, RunRecord};
use proxima_core::session::Session;

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
    simulate_last(inputs::session(topology, jobs, args, policies)?, 0, want)
}

/// Runs a session's policy `index` to its end (a sweep builds one scenario for all the runs
/// that differ only in their policy), through the core's one run loop.
pub fn simulate(session: &Session, index: usize, want: Want) -> Result<RunOutput, SourcedError> {
    simulate_with(want, |options| session.run(index, options))
}

/// [`simulate`] on the session's scenario itself, for its last run (a million-job trace is
/// not held twice).
pub fn simulate_last(session: Session, index: usize, want: Want) -> Result<RunOutput, SourcedError> {
    simulate_with(want, |options| session.into_run(index, options))
}

/// A run made by `run` with the options `want` asks for, timed, taken down as [`RunOutput`].
fn simulate_with(
    want: Want,
    run: impl FnOnce(RunOptions<'_>) -> Result<Finished, RhoFailed>,
) -> Result<RunOutput, SourcedError> {
    let mut hasher = EventHasher::default();
    let threads = Threads::quiet(want.rho_threads.unwrap_or(1));
    let started = std::time::Instant::now();
    let clock = || started.elapsed().as_secs_f64() * 1000.0;
    let options = RunOptions {
        rho: want.rho_threads.map(|_| &threads as _),
        record: want.record,
        observers: if want.event_hash { vec![&mut hasher] } else { Vec::new() },
        on_step: None,
        clock: Some(&clock),
    };
    // The policy was checked by the session: ρ's isolated runs fail only when a tenant's
    // share of the cluster cannot be made.
    let finished = run(options).map_err(|failed| rho_problem(failed.problem))?;
    let simulation_s = finished.simulation_ms.expect("timed") / 1000.0;
    let summary_json = summary_json(finished.summary());
    let record = if want.record { finished.record } else { None };
    Ok(RunOutput { record, summary_json, event_hash: want.event_hash.then(|| hasher.hash()), simulation_s })
}

/// A problem of ρ's isolated runs, named as the topology's argument (a tenant's share is
/// made of the cluster's servers).
pub fn rho_problem(problem: proxima_core::InputError) -> SourcedError {
    SourcedError::new(ArgumentNames::Flags.name("topology"), problem)
}
