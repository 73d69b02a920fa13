//! The run loop's tests, through the session every front end takes.

use super::*;
use crate::event::{EventHasher, Observer, SimEvent};
use crate::fairness::isolated::{finish_time_fairness, OneAfterAnother};
use crate::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
use crate::policy::resolve_policy;
use crate::run_files::RunRecord;
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
    let session = Session::of_one(scenario(), "dally").unwrap();
    let mut sim = session.simulation(0);
    sim.add_observer(Box::new(Owned(owned.clone())));
    let summary = sim.run();
    let mut borrowed = EventHasher::default();
    let options = RunOptions { observers: vec![&mut borrowed], ..RunOptions::default() };
    let finished = session.run(0, options).unwrap();
    assert_eq!((borrowed.hash(), borrowed.count()), (owned.borrow().hash(), owned.borrow().count()));
    assert!(borrowed.count() > 0);
    assert_eq!(finished.summary(), &summary);
    assert!(finished.record.is_none(), "not asked for");
}

#[test]
fn rho_is_written_into_the_record_as_the_isolated_runs_give_it() {
    let session = Session::of_one(scenario(), "fifo").unwrap();
    let mut sim = session.simulation(0);
    let summary = sim.run();
    let mut expected = RunRecord::with_summary(&sim, summary);
    let spec = session.policies()[0].spec();
    finish_time_fairness(sim.scenario(), spec, sim.runs(), &OneAfterAnother).unwrap().apply(&mut expected);
    let options = RunOptions { rho: Some(&OneAfterAnother), ..RunOptions::default() };
    let finished = session.run(0, options).unwrap();
    assert_eq!(finished.into_record(), expected);
    assert!(expected.jobs.iter().any(|j| j.rho.is_some()));
}

#[test]
fn a_run_whose_rho_cannot_be_made_is_an_error_that_carries_the_run_without_rho() {
    // A spec that builds no policy: the isolated runs cannot be made (a session's spec
    // always builds, so this is the loop's own test).
    let unknown = crate::policy::PolicySpec { name: "lottery".into(), options: Default::default() };
    let simulation = Simulation::new(scenario(), resolve_policy("fifo").unwrap());
    let options = RunOptions { rho: Some(&OneAfterAnother), ..RunOptions::default() };
    let Err(RhoFailed { problem, without }) = run_simulation(simulation, &unknown, options) else {
        panic!("expected the fairness error");
    };
    assert_eq!(problem.field, "policy");
    assert_eq!(without.fairness_ms, None);
    // Nothing of the run is lost: its record is the one a run without ρ writes.
    let session = Session::of_one(scenario(), "fifo").unwrap();
    let plain = session.run(0, RunOptions { record: true, ..RunOptions::default() });
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
    let session = Session::of_one(scenario.clone(), "dally").unwrap();
    let original = session.run(0, RunOptions { observers: vec![&mut log], ..RunOptions::default() }).unwrap();
    let (at, job) = log
        .0
        .iter()
        .find_map(|(t, e)| match e {
            SimEvent::Preempted { job, reason: Reason::PreemptedFor { .. }, .. } => Some((*t, *job)),
            _ => None,
        })
        .expect("dally preempts on this cluster");
    let without = session.without_preemption(0, job, at);
    assert!(without.refused);
    // Every event before the instant is the original's; at it, the job is not preempted.
    let mut again = Log::default();
    let mut sim = Simulation::new(scenario.clone(), {
        let (p, _) = ForbidPreemption::new(resolve_policy("dally").unwrap(), job, at);
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
    let none = session.without_preemption(0, job, SimTime(1));
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
        let session = Session::of_one(scenario.clone(), spec).unwrap();
        let original = session.run(0, RunOptions { observers: vec![&mut log], ..RunOptions::default() }).unwrap();
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
            let without = session.without_preemption(0, job, at);
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
    let problem = Session::of_one(scenario(), "kueue-tas:required=nowhere").unwrap_err();
    let Problem::Policy { text, error } = problem else { panic!("{problem:?}") };
    assert_eq!((text.as_str(), error.field.as_str()), ("kueue-tas:required=nowhere", "required"));
}
