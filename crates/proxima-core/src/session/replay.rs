//! The challenge's replays: a scenario run from the start under the decisions a person
//! made ([`crate::policy::replay::Replay`]), paused where they run out. The replay policy
//! sits below the engine in the layers, so the run that steps it lives here, beside the
//! session's runs of policies by spec.

use crate::cluster::JobId;
use crate::engine::Simulation;
use crate::policy::replay::{check_place, AfterChoices, Choice, Replay, ReplayError};
use crate::policy::View;
use crate::scenario::{JobStatus, Scenario};
use crate::topology::GpuId;
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
