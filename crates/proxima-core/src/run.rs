//! The run loop under the session: a simulation built with its policy, run to its end, with
//! its record and finish-time fairness ρ when asked. Every front end reaches it through
//! `session::Session::run` (the policy parsed once and checked against the cluster), so
//! that what one front end writes for a run, the others write too, byte for byte.

use crate::engine::Simulation;
use crate::error::InputError;
use crate::event::Observer;
use crate::fairness::isolated::{finish_time_fairness, IsolatedRunner};
use crate::metrics::Summary;
use crate::policy::PolicySpec;
use crate::run_files::RunRecord;

/// What a run does besides simulating; by default, nothing.
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Finish-time fairness ρ, written into the record, its isolated runs spread as the
    /// runner does (`fairness::isolated::OneAfterAnother`, or a native host's threads: the
    /// same result bit for bit); `None`: without ρ.
    pub rho: Option<&'a dyn IsolatedRunner>,
    /// The record (job rows, time series): it costs allocations about the size of the
    /// trace, which a caller that keeps only the summary skips. Made anyway with ρ, which
    /// is written into it.
    pub record: bool,
    /// Observers of every event, borrowed for the run: the caller reads them afterwards.
    pub observers: Vec<&'a mut dyn Observer>,
    /// Called after every instant, for progress reports.
    pub on_step: Option<&'a mut dyn FnMut(&Simulation)>,
    /// Milliseconds from some origin (the host's clock: the core has none), to time the
    /// simulation and ρ apart.
    pub clock: Option<&'a dyn Fn() -> f64>,
}

/// ρ could not be made (an isolated scenario the core cannot build, say); the run itself
/// finished, and `without` is it, with its record and without ρ, for a caller that shows a
/// run without ρ rather than none (the web worker does; the CLI fails).
pub struct RhoFailed {
    pub problem: InputError,
    pub without: Box<Finished>,
}

impl std::fmt::Debug for RhoFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("RhoFailed").field(&self.problem).finish()
    }
}

/// A finished run.
pub struct Finished {
    /// The simulation at its end, for what the record does not keep (the runs, the cluster).
    pub simulation: Simulation,
    /// The record, when asked for or when ρ was made; its summary is [`Finished::summary`].
    pub record: Option<RunRecord>,
    summary: Option<Summary>,
    /// Milliseconds of the simulation and of ρ, with a clock.
    pub simulation_ms: Option<f64>,
    pub fairness_ms: Option<f64>,
}

impl Finished {
    /// The run's summary, with ρ when it was made.
    pub fn summary(&self) -> &Summary {
        match &self.record {
            Some(record) => &record.summary,
            None => self.summary.as_ref().expect("a summary without a record"),
        }
    }

    /// The run's record, made now if the run did not make it.
    pub fn into_record(self) -> RunRecord {
        match self.record {
            Some(record) => record,
            None => RunRecord::with_summary(&self.simulation, self.summary.expect("a summary without a record")),
        }
    }
}

/// Runs a simulation already built with its policy, of spec `policy`, to its end, with the
/// record and ρ as `options` ask: the one loop every run of a front end takes, from
/// `session::Session` (which builds the policy from its spec, or wraps it first).
pub(crate) fn run_simulation(
    mut simulation: Simulation,
    policy: &PolicySpec,
    options: RunOptions<'_>,
) -> Result<Finished, RhoFailed> {
    let RunOptions { rho, record, mut observers, mut on_step, clock } = options;
    let now = || clock.map(|c| c());
    let started = now();
    while simulation.step_observed(&mut observers).is_some() {
        if let Some(f) = on_step.as_mut() {
            f(&simulation);
        }
    }
    let summary = simulation.summary();
    let simulated = now();
    let simulation_ms = started.zip(simulated).map(|(a, b)| b - a);
    let Some(runner) = rho else {
        let (record, summary) = match record {
            true => (Some(RunRecord::with_summary(&simulation, summary)), None),
            false => (None, Some(summary)),
        };
        return Ok(Finished { simulation, record, summary, simulation_ms, fairness_ms: None });
    };
    let mut full = RunRecord::with_summary(&simulation, summary);
    match finish_time_fairness(simulation.scenario(), policy, simulation.runs(), runner) {
        Ok(fairness) => fairness.apply(&mut full),
        Err(problem) => {
            let without = Finished { simulation, record: Some(full), summary: None, simulation_ms, fairness_ms: None };
            return Err(RhoFailed { problem, without: Box::new(without) });
        }
    }
    let fairness_ms = simulated.zip(now()).map(|(a, b)| b - a);
    Ok(Finished { simulation, record: Some(full), summary: None, simulation_ms, fairness_ms })
}
