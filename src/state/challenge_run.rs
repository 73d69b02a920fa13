//! Driving the core's replay policy (`proxima_core::policy::replay`) for the challenge:
//! run the scenario from the start with the decisions so far until the policy pauses at
//! the next decision point or refuses a decision, or the run ends. The policy sits below
//! the engine in the core's layers, so driving the simulation is the caller's.

use proxima_core::cluster::JobId;
use proxima_core::policy::replay::{check_place, AfterChoices, Choice, Replay, ReplayError};
use proxima_core::policy::View;
use proxima_core::scenario::JobStatus;
use proxima_core::topology::GpuId;
use proxima_core::{Scenario, Simulation};
use std::collections::BTreeSet;

/// Where a replay stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// At a decision point with every decision used ([`AfterChoices::Pause`]).
    Decision,
    /// The run is over.
    Finished,
}

/// A replayed run: the simulation where it stopped, why, and the first decision that no
/// longer applied, if any ([`AfterChoices::FirstFit`]).
pub struct Replayed {
    pub sim: Simulation,
    pub stop: Stop,
    pub diverged_at: Option<usize>,
}

/// Runs `scenario` from the start with `choices`.
pub fn replay(scenario: Scenario, choices: &[Choice], after: AfterChoices) -> Result<Replayed, ReplayError> {
    let (policy, log) = Replay::new(choices.to_vec(), after);
    let mut sim = Simulation::new(scenario, Box::new(policy));
    loop {
        if let Some(e) = log.error() {
            return Err(e);
        }
        if log.paused() {
            return Ok(Replayed { sim, stop: Stop::Decision, diverged_at: log.diverged_at() });
        }
        if sim.step().is_none() {
            return Ok(Replayed { sim, stop: Stop::Finished, diverged_at: log.diverged_at() });
        }
    }
}

/// How many times slower than ideal `job` would run on `gpus` at the simulation's current
/// instant, as the policies estimate it ([`View::estimate_slowdown`]); NaN for a placement
/// that cannot be made.
pub fn slowdown_now(sim: &Simulation, job: JobId, gpus: &[GpuId]) -> f64 {
    let sc = sim.scenario();
    let queued: BTreeSet<JobId> = (0..sc.jobs.len() as u32)
        .map(JobId)
        .filter(|&j| sim.runs()[j.0 as usize].status == JobStatus::Queued)
        .collect();
    let view = View {
        now: sim.now(),
        topo: &sc.topology,
        catalog: &sc.catalog,
        comm: &sc.comm,
        jobs: &sc.jobs,
        runs: sim.runs(),
        cluster: sim.cluster(),
        queued: &queued,
        seed: sc.seed,
        tenants: &sc.tenants,
    };
    match check_place(&view, job, gpus) {
        Ok(()) => view.estimate_slowdown(job, gpus),
        Err(_) => f64::NAN,
    }
}
