//! One run from its inputs to its record (`proxima_core::run_files`): the summary, one row
//! a job and the time series, from which `summary.json`, `jobs.csv` and `timeseries.csv`
//! are made only when someone wants them, the same bytes `proxima run --out` writes.

use crate::error::SourcedError;
use crate::fairness;
use crate::load::{self, Jobs, TopologyInput, WorkloadArgs};
use proxima_core::engine::Simulation;
use proxima_core::event::EventHasher;
use proxima_core::run_files::{summary_json, RunRecord};
use proxima_core::scenario::Scenario;
use proxima_core::time::SimTime;

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
    /// Wall-clock seconds of the simulation itself (`Simulation::new` to the summary), as
    /// `proxima bench` times it: for measuring, never part of a result file.
    pub simulation_s: f64,
}

/// Shares the hasher with the simulation, which owns its observers.
struct Shared(std::rc::Rc<std::cell::RefCell<EventHasher>>);

impl proxima_core::event::Observer for Shared {
    fn observe(&mut self, now: SimTime, event: &proxima_core::event::SimEvent) {
        self.0.borrow_mut().observe(now, event);
    }
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

/// Runs `policy` on the scenario of the inputs. As in the CLI, the scenario is checked
/// before the policy.
pub fn execute(
    topology: &TopologyInput,
    jobs: Jobs,
    args: &WorkloadArgs,
    policy: &str,
    want: Want,
) -> Result<RunOutput, SourcedError> {
    simulate(load::scenario(topology, jobs, args)?, policy, want)
}

/// Runs `policy` on a scenario already built (a sweep builds one for all the runs that
/// differ only in their policy).
pub fn simulate(scenario: Scenario, policy: &str, want: Want) -> Result<RunOutput, SourcedError> {
    let policy_box = load::policy_for(policy, &scenario.topology)?;
    let started = std::time::Instant::now();
    let mut sim = Simulation::new(scenario, policy_box);
    let hasher = std::rc::Rc::new(std::cell::RefCell::new(EventHasher::default()));
    if want.event_hash {
        sim.add_observer(Box::new(Shared(hasher.clone())));
    }
    let summary = sim.run();
    let simulation_s = started.elapsed().as_secs_f64();
    let event_hash = want.event_hash.then(|| hasher.borrow().hash());
    // The record costs allocations about the size of the trace: made only when wanted,
    // or when ρ is, which is written into it.
    let (summary_json, record) = if want.record || want.rho_threads.is_some() {
        let mut record = RunRecord::with_summary(&sim, summary);
        if let Some(threads) = want.rho_threads {
            fairness::finish_time_fairness(&sim, threads, &|_, _| {})?.apply(&mut record);
        }
        (summary_json(&record.summary), want.record.then_some(record))
    } else {
        (summary_json(&summary), None)
    };
    Ok(RunOutput { record, summary_json, event_hash, simulation_s })
}
