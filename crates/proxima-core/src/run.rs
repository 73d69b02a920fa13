//! The one run path: a scenario under a policy, from its spec to its record, with
//! finish-time fairness ρ when asked. The CLI, the sweeps (and so the Python package), the
//! experiment and the web worker all run through [`run_policy`], so that what one front end
//! writes for a run, the others write too, byte for byte.

use crate::cluster::JobId;
use crate::engine::Simulation;
use crate::error::InputError;
use crate::event::Observer;
use crate::fairness::isolated::{self, FinishTimeFairness};
use crate::metrics::Summary;
use crate::policy::replay::{check_place, AfterChoices, Choice, Replay, ReplayError};
use crate::policy::View;
use crate::run_files::RunRecord;
use crate::scenario::{JobStatus, Scenario};
use crate::topology::GpuId;
use std::collections::BTreeSet;

/// How finish-time fairness is made from a finished run. The native hosts run the isolated
/// runs on threads, which the core does not start; every way gives the same result bit for
/// bit ([`sequential_rho`] is the reference).
pub type Fairness<'a, E> = &'a (dyn Fn(&Simulation) -> Result<FinishTimeFairness, E> + 'a);

/// What a run does besides simulating.
pub struct RunOptions<'a, E> {
    /// Finish-time fairness ρ, written into the record; `None`: without ρ.
    pub rho: Option<Fairness<'a, E>>,
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

impl<E> Default for RunOptions<'_, E> {
    fn default() -> Self {
        RunOptions { rho: None, record: false, observers: Vec::new(), on_step: None, clock: None }
    }
}

/// Why a run failed: its policy does not fit the scenario, or ρ could not be made.
#[derive(Debug)]
pub enum RunError<E> {
    Policy(InputError),
    Fairness(RhoFailed<E>),
}

/// ρ could not be made (an isolated scenario the core cannot build, say); the run itself
/// finished, and `without` is it, with its record and without ρ, for a caller that shows a
/// run without ρ rather than none (the web worker does; the CLI fails).
pub struct RhoFailed<E> {
    pub problem: E,
    pub without: Box<Finished>,
}

impl<E: std::fmt::Debug> std::fmt::Debug for RhoFailed<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("RhoFailed").field(&self.problem).finish()
    }
}

impl<E> RunError<E> {
    /// The caller's error: `policy` makes it from the policy's, naming the argument as the
    /// caller does; ρ's is already one.
    pub fn into_error<T>(self, policy: impl FnOnce(InputError) -> T) -> T
    where
        E: Into<T>,
    {
        match self {
            RunError::Policy(e) => policy(e),
            RunError::Fairness(failed) => failed.problem.into(),
        }
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

/// Runs the policy `spec` names on `scenario`, the policy checked against the scenario's
/// cluster first, and returns the run with its record and ρ as `options` ask.
pub fn run_policy<E>(scenario: Scenario, spec: &str, options: RunOptions<'_, E>) -> Result<Finished, RunError<E>> {
    let simulation = Simulation::for_spec(scenario, spec).map_err(RunError::Policy)?;
    run_simulation(simulation, options).map_err(RunError::Fairness)
}

/// Runs a simulation already built with its policy to its end, with the record and ρ as
/// `options` ask: the one loop every run of a front end takes ([`run_policy`] builds the
/// policy from a spec; `session::Session::without_preemption` wraps it first).
pub fn run_simulation<E>(mut simulation: Simulation, options: RunOptions<'_, E>) -> Result<Finished, RhoFailed<E>> {
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
    let Some(rho) = rho else {
        let (record, summary) = match record {
            true => (Some(RunRecord::with_summary(&simulation, summary)), None),
            false => (None, Some(summary)),
        };
        return Ok(Finished { simulation, record, summary, simulation_ms, fairness_ms: None });
    };
    let mut full = RunRecord::with_summary(&simulation, summary);
    match rho(&simulation) {
        Ok(fairness) => fairness.apply(&mut full),
        Err(problem) => {
            let without = Finished { simulation, record: Some(full), summary: None, simulation_ms, fairness_ms: None };
            return Err(RhoFailed { problem, without: Box::new(without) });
        }
    }
    let fairness_ms = simulated.zip(now()).map(|(a, b)| b - a);
    Ok(Finished { simulation, record: Some(full), summary: None, simulation_ms, fairness_ms })
}

/// Finish-time fairness from the isolated runs one after another, in the calling thread.
pub fn sequential_rho(simulation: &Simulation) -> Result<FinishTimeFairness, InputError> {
    isolated::finish_time_fairness(simulation.scenario(), &simulation.policy_spec(), simulation.runs())
}

// Driving the replay policy (`policy::replay`) for the app's challenge mode and its tests:
// the policy sits below the engine in the layers, so the run that steps it lives here.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{EventHasher, SimEvent};
    use crate::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
    use crate::policy::policy_for;
    use crate::policy::replay::ForbidPreemption;
    use crate::session::Session;
    use crate::time::SimTime;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn scenario() -> Scenario {
        let mut input = ScenarioInput::new(
            TopologyInput::Argument("racks=2,servers=2,gpus=4".into()),
            TraceInput::Synthetic("synthetic:jobs=30,load=1.5,tenants=2".into()),
            3,
        );
        input.tenants = Some("demand".into());
        build_scenario(&input).unwrap()
    }

    /// An observer the simulation owns, read through its shared cell after the run.
    struct Owned(Rc<RefCell<EventHasher>>);

    impl Observer for Owned {
        fn observe(&mut self, now: SimTime, event: &SimEvent) {
            self.0.borrow_mut().observe(now, event);
        }
    }

    #[test]
    fn borrowed_observers_see_what_owned_ones_see() {
        let owned = Rc::new(RefCell::new(EventHasher::default()));
        let mut sim = Simulation::for_spec(scenario(), "dally").unwrap();
        sim.add_observer(Box::new(Owned(owned.clone())));
        let summary = sim.run();
        let mut borrowed = EventHasher::default();
        let options = RunOptions::<InputError> { observers: vec![&mut borrowed], ..RunOptions::default() };
        let finished = run_policy(scenario(), "dally", options).unwrap();
        assert_eq!((borrowed.hash(), borrowed.count()), (owned.borrow().hash(), owned.borrow().count()));
        assert!(borrowed.count() > 0);
        assert_eq!(finished.summary(), &summary);
        assert!(finished.record.is_none(), "not asked for");
    }

    #[test]
    fn rho_is_written_into_the_record_as_the_isolated_runs_give_it() {
        let mut sim = Simulation::for_spec(scenario(), "fifo").unwrap();
        let summary = sim.run();
        let mut expected = RunRecord::with_summary(&sim, summary);
        sequential_rho(&sim).unwrap().apply(&mut expected);
        let options = RunOptions { rho: Some(&sequential_rho), ..RunOptions::default() };
        let finished = run_policy(scenario(), "fifo", options).unwrap();
        assert_eq!(finished.into_record(), expected);
        assert!(expected.jobs.iter().any(|j| j.rho.is_some()));
    }

    #[test]
    fn a_run_whose_rho_cannot_be_made_is_an_error_that_carries_the_run_without_rho() {
        let refuse =
            |_: &Simulation| -> Result<FinishTimeFairness, InputError> { Err(InputError::new("rho", "no share")) };
        let options = RunOptions { rho: Some(&refuse), ..RunOptions::default() };
        let Err(RunError::Fairness(RhoFailed { problem, without })) = run_policy(scenario(), "fifo", options) else {
            panic!("expected the fairness error");
        };
        assert_eq!(problem.field, "rho");
        assert_eq!(without.fairness_ms, None);
        // Nothing of the run is lost: its record is the one a run without ρ writes.
        let plain = run_policy::<InputError>(scenario(), "fifo", RunOptions { record: true, ..RunOptions::default() });
        assert_eq!(without.into_record(), plain.unwrap().into_record());
    }

    #[test]
    fn a_preemption_forbidden_changes_the_run_from_that_instant_only() {
        use crate::event::Reason;
        // A loaded cluster on which dally preempts: its first preemption for another job.
        let input = ScenarioInput::new(
            TopologyInput::Argument("racks=2,servers=2,gpus=4,oversub=32,fabric=tcp".into()),
            TraceInput::Synthetic("synthetic:jobs=200,load=1.5,seed=1".into()),
            1,
        );
        let scenario = build_scenario(&input).unwrap();
        let mut log = Log::default();
        let original = run_policy(
            scenario.clone(),
            "dally",
            RunOptions::<InputError> { observers: vec![&mut log], ..RunOptions::default() },
        )
        .unwrap();
        let (at, job) = log
            .0
            .iter()
            .find_map(|(t, e)| match e {
                SimEvent::Preempted { job, reason: Reason::PreemptedFor { .. }, .. } => Some((*t, *job)),
                _ => None,
            })
            .expect("dally preempts on this cluster");
        let without = Session::of_one(scenario.clone(), "dally").unwrap().without_preemption(0, job, at);
        assert!(without.refused);
        // Every event before the instant is the original's; at it, the job is not preempted.
        let mut again = Log::default();
        let mut sim = Simulation::new(scenario.clone(), {
            let (p, _) = ForbidPreemption::new(policy_for("dally", &scenario.topology).unwrap(), job, at);
            Box::new(p)
        });
        while sim.step_observed(&mut [&mut again as &mut dyn Observer]).is_some() {}
        let before = |l: &Log| l.0.iter().filter(|(t, _)| *t < at).cloned().collect::<Vec<_>>();
        assert_eq!(before(&again), before(&log));
        assert!(!again.0.iter().any(|(t, e)| *t == at && matches!(e, SimEvent::Preempted { job: j, .. } if *j == job)));
        assert_ne!(without.simulation.summary(), *original.summary(), "the run differs after it");
        // No job is lost: the placement dropped with the preemption is made again later.
        let (done, all) = (without.simulation.summary().jobs_completed, original.summary().jobs_completed);
        assert_eq!((done, without.simulation.summary().jobs_unfinished), (all, 0));
        // Forbidding a preemption that never happened changes nothing.
        let none = Session::of_one(scenario, "dally").unwrap().without_preemption(0, job, SimTime(1));
        assert!(!none.refused);
        assert_eq!(none.simulation.summary(), *original.summary());
    }

    #[test]
    fn a_preemption_forbidden_loses_no_job_under_any_preempting_policy() {
        let input = ScenarioInput::new(
            TopologyInput::Argument("racks=2,servers=2,gpus=4,oversub=32,fabric=tcp".into()),
            TraceInput::Synthetic("synthetic:jobs=200,load=1.5,seed=1".into()),
            1,
        );
        let scenario = build_scenario(&input).unwrap();
        for spec in [
            "dally",
            "dally:order=las",
            "tiresias",
            "tiresias:place=tightest",
            "consolidate:migrate=on",
            "srtf",
            "slurm:evict=on",
            "kueue-tas:evict=on",
        ] {
            let mut log = Log::default();
            let options = RunOptions::<InputError> { observers: vec![&mut log], ..RunOptions::default() };
            let original = run_policy(scenario.clone(), spec, options).unwrap();
            let preemptions: Vec<(SimTime, JobId)> = log
                .0
                .iter()
                .filter_map(|(t, e)| match e {
                    SimEvent::Preempted { job, .. } => Some((*t, *job)),
                    _ => None,
                })
                .collect();
            assert!(!preemptions.is_empty(), "{spec} preempts here");
            // The first, a middle and the last preemption of the run.
            for &(at, job) in
                [preemptions[0], preemptions[preemptions.len() / 2], preemptions[preemptions.len() - 1]].iter()
            {
                let without = Session::of_one(scenario.clone(), spec).unwrap().without_preemption(0, job, at);
                assert!(without.refused, "{spec}: job {} at {at:?}", job.0);
                let summary = without.simulation.summary();
                assert_eq!(
                    (summary.jobs_completed, summary.jobs_unfinished),
                    (original.summary().jobs_completed, 0),
                    "{spec}: job {} at {at:?}",
                    job.0
                );
            }
        }
    }

    /// Every event of a run, with its time.
    #[derive(Default)]
    struct Log(Vec<(SimTime, SimEvent)>);

    impl Observer for Log {
        fn observe(&mut self, now: SimTime, event: &SimEvent) {
            self.0.push((now, event.clone()));
        }
    }

    #[test]
    fn a_policy_the_cluster_cannot_take_fails_before_the_run() {
        let steps = std::cell::Cell::new(0);
        let mut on_step = |_: &Simulation| steps.set(steps.get() + 1);
        let options = RunOptions::<InputError> { on_step: Some(&mut on_step), ..RunOptions::default() };
        let failed = run_policy(scenario(), "kueue-tas:required=nowhere", options);
        assert!(matches!(failed, Err(RunError::Policy(_))));
        assert_eq!(steps.get(), 0);
    }
}
