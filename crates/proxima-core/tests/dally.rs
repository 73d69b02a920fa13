//! The network-sensitive scheduler on scenarios computed by hand.
//!
//! Units as in `common::build`: the unit model computes 1 s per iteration and exchanges
//! 1 GB with no overlap; NVLink gives 100 GB/s, NICs 10 GB/s, no latency, rings reach line
//! rate and nobody straggles. The exchange is a flat ring of all N GPUs at the speed of its
//! slowest link, 2(N−1)/N · 1 GB / B. Every spread placement below has two GPUs, one per
//! server, so these numbers are the same as under the hierarchical form the flat ring
//! replaced. On two 4-GPU servers of one rack:
//! - 2 GPUs in one server: 1 + 2·½·1 GB/100 GB/s = 1.01 s per iteration (ideal);
//! - 2 GPUs on two servers: 1 + 2·½·1 GB/10 GB/s = 1.1 s (slowdown 1.0891);
//! - 3 GPUs in one server: 1 + 2·⅔·0.01 = 1.013333 s.

mod common;

use common::build::{cluster, scenario, scenario_with, two_models};
use proxima_core::engine::Simulation;
use proxima_core::event::{Observer, PolicyNote, Reason, SimEvent};
use proxima_core::policy::resolve_policy;
use proxima_core::time::SimTime;
use std::cell::RefCell;
use std::rc::Rc;

fn secs(t: Option<SimTime>) -> f64 {
    t.expect("set").as_secs_f64()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-5
}

/// Collects every event with its time.
#[derive(Clone, Default)]
struct Log(Rc<RefCell<Vec<(f64, SimEvent)>>>);

impl Observer for Log {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.0.borrow_mut().push((now.as_secs_f64(), event.clone()));
    }
}

fn run(policy: &str, sc: proxima_core::engine::Scenario) -> (Simulation, Log) {
    let mut sim = Simulation::new(sc, resolve_policy(policy).unwrap());
    let log = Log::default();
    sim.add_observer(Box::new(log.clone()));
    sim.run();
    (sim, log)
}

/// A (3 GPUs, 10 iterations) and B (3 GPUs, long) fill most of both servers at 0 s, leaving
/// one GPU free on each. C (2 GPUs, 1,000 iterations) arrives at 1 s: right now it can only
/// run spread over the two servers.
fn waiting_scenario(a_iterations: f64) -> proxima_core::engine::Scenario {
    scenario(cluster(1, 2, 4, 1.0), &[(0.0, 3, a_iterations), (0.0, 3, 100_000.0), (1.0, 2, 1000.0)])
}

#[test]
fn delay_scheduling_waits_for_a_server_and_wins() {
    // consolidate starts C spread at 1 s: 1,000 × 1.1 s, done at 1,101 s.
    let (cons, _) = run("consolidate", waiting_scenario(10.0));
    assert!(close(secs(cons.runs()[2].end), 1101.0), "{}", secs(cons.runs()[2].end));
    // Delay scheduling: C's budget for a server is min(300 s, 1,010 s × (1.0891 − 1)) = 90 s.
    // A ends at 10 × 1.013333 = 10.133334 s (rounded up to the microsecond), freeing server 0:
    // C takes it and runs 1,000 × 1.01 s, done at 1,020.133334 s.
    let (dally, log) = run("dally:preempt=off,autotune=off", waiting_scenario(10.0));
    let c = &dally.runs()[2];
    assert!(close(secs(c.first_start), 10.133334), "{}", secs(c.first_start));
    assert!(close(secs(c.end), 1020.133334), "{}", secs(c.end));
    assert_eq!(c.tier.map(|t| t.0), Some(0));
    let log = log.0.borrow();
    // While waiting, the reason says what it waits for and what it would get now.
    let waiting = log.iter().find_map(|(t, e)| match e {
        SimEvent::Waiting { job, reason } if job.0 == 2 => Some((*t, reason.clone())),
        _ => None,
    });
    match waiting {
        Some((t, Reason::WaitingForTier { wanted, left_s, best_now, slowdown })) => {
            assert_eq!(t, 1.0);
            assert_eq!(wanted.0, 0);
            assert!(close(left_s, 1010.0 * (1.1 / 1.01 - 1.0)), "{left_s}");
            assert_eq!(best_now.map(|b| b.0), Some(1));
            assert!(close(slowdown, 1.1 / 1.01), "{slowdown}");
            let text =
                Reason::WaitingForTier { wanted, left_s, best_now, slowdown }.describe(&dally.scenario().topology);
            assert_eq!(
                text,
                "waiting for a server-local placement, timer 90 s left; best now: rack, estimated slowdown 1.09×"
            );
        }
        other => panic!("C should wait for a server: {other:?}"),
    }
    assert!(log
        .iter()
        .any(|(_, e)| matches!(e, SimEvent::Placed { job, reason: Reason::GotWantedTier { .. }, .. } if job.0 == 2)));
}

#[test]
fn a_short_timer_cuts_a_losing_wait_short() {
    // A runs long, so no server frees up. With timers of 30 s C waits 30 s, then takes the
    // spread placement at 31 s: done at 31 + 1,100 = 1,131 s, instead of waiting ~10,000 s.
    let (dally, log) = run("dally:preempt=off,autotune=off,timers=30/15", waiting_scenario(10_000.0));
    let c = &dally.runs()[2];
    assert!(close(secs(c.first_start), 31.0), "{}", secs(c.first_start));
    assert!(close(secs(c.end), 1131.0), "{}", secs(c.end));
    assert_eq!(c.tier.map(|t| t.0), Some(1));
    let log = log.0.borrow();
    assert!(log.iter().any(|(t, e)| *t == 31.0
        && matches!(e, SimEvent::Placed { job, reason: Reason::TimerExpired { waited_s, .. }, .. } if job.0 == 2 && close(*waited_s, 30.0))));
    // Without the short timer the budget is the break-even 90 s.
    let (dally, _) = run("dally:preempt=off,autotune=off", waiting_scenario(10_000.0));
    assert!(close(secs(dally.runs()[2].first_start), 91.0));
}

#[test]
fn insensitive_jobs_are_placed_at_once() {
    // The same wait, but C exchanges 1 MB: spread costs it nothing worth waiting for.
    let sc = scenario_with(
        cluster(1, 2, 4, 1.0),
        two_models(),
        &[(0.0, 3, 10.0, 0), (0.0, 3, 100_000.0, 0), (1.0, 2, 1000.0, 1)],
    );
    let (dally, log) = run("dally:preempt=off,autotune=off", sc);
    assert_eq!(dally.runs()[2].first_start, Some(SimTime::from_secs_f64(1.0)));
    assert!(log
        .0
        .borrow()
        .iter()
        .any(|(_, e)| matches!(e, SimEvent::Placed { job, reason: Reason::Insensitive { .. }, .. } if job.0 == 2)));
}

/// T (tiny, insensitive: 3 GPUs) and B (unit, 3 GPUs) fill the servers at 0 s; S (unit,
/// 2 GPUs, 1,000 iterations) arrives at 700 s, after T's minimum run time of 600 s.
fn preemption_scenario() -> proxima_core::engine::Scenario {
    scenario_with(
        cluster(1, 2, 4, 1.0),
        two_models(),
        &[(0.0, 3, 100_000.0, 1), (0.0, 3, 100_000.0, 0), (700.0, 2, 1000.0, 0)],
    )
}

#[test]
fn a_preemption_that_pays_happens() {
    // S's gain from a server: 1,010 s × (1.0891 − 1) = 90 s > the 30 s restore cost of T.
    // T is checkpointed; S takes server 0 at once and ends at 700 + 1,010 s.
    let (dally, log) = run("dally:autotune=off", preemption_scenario());
    let (t, s) = (&dally.runs()[0], &dally.runs()[2]);
    assert_eq!(t.preemptions, 1);
    assert_eq!(s.first_start, Some(SimTime::from_secs_f64(700.0)));
    assert!(close(secs(s.end), 1710.0), "{}", secs(s.end));
    assert_eq!(s.tier.map(|t| t.0), Some(0));
    let log = log.0.borrow();
    let done = log.iter().find_map(|(_, e)| match e {
        SimEvent::Preempted { job, done_iterations, reason: Reason::PreemptedFor { for_job, .. } }
            if job.0 == 0 && for_job.0 == 2 =>
        {
            Some(*done_iterations)
        }
        _ => None,
    });
    // T keeps its progress: 700 s at 1 s per iteration (its 1 MB exchange inside one server
    // costs 2·⅔·1 MB / 100 GB/s ≈ 13 µs more each), and it still completes all its work.
    let done = done.expect("T was preempted for S");
    assert!(done > 699.0 && done < 700.0, "{done}");
    assert_eq!(t.done, 100_000.0);
    assert_eq!(dally.summary().preemptions, 1);
}

#[test]
fn a_preemption_that_does_not_pay_does_not_happen() {
    // With a restore cost of 100 s the 90 s gain is not worth it: no preemption, and S
    // waits its 90 s budget, then runs spread.
    let (dally, _) = run("dally:autotune=off,restore_s=100", preemption_scenario());
    assert_eq!(dally.summary().preemptions, 0);
    assert!(close(secs(dally.runs()[2].first_start), 790.0));
    // Guard rail: before T has run its minimum time, it is not preempted either.
    let (early, _) = run("dally:autotune=off,min_run_s=1000", preemption_scenario());
    assert_eq!(early.summary().preemptions, 0);
    // And with preemption off, never.
    let (off, _) = run("dally:preempt=off,autotune=off", preemption_scenario());
    assert_eq!(off.summary().preemptions, 0);
}

#[test]
fn a_scattered_job_moves_when_room_appears() {
    // C starts spread at 31 s (short timers) and would gain 0.09 s per remaining iteration
    // on a server: far more than the 30 s restore cost, once a server frees up.
    // If A runs long, no room appears before C ends (1,131 s): it stays spread.
    let (dally, _) = run("dally:autotune=off,timers=30/15", waiting_scenario(10_000.0));
    let c = &dally.runs()[2];
    assert_eq!((c.placements, c.preemptions), (1, 0));
    // A ends at 500 × 1.013333 = 506.67 s, but C has run only 476 s there, less than its
    // minimum run time of 600 s: the guard rail keeps it where it is.
    let (dally, _) = run("dally:autotune=off,timers=30/15", waiting_scenario(500.0));
    assert_eq!(dally.runs()[2].preemptions, 0);
    // With a minimum run time of 0 it moves as soon as A's GPUs free up.
    let (dally, log) = run("dally:autotune=off,timers=30/15,min_run_s=0", waiting_scenario(500.0));
    let c = &dally.runs()[2];
    assert_eq!((c.placements, c.preemptions), (2, 1));
    assert_eq!(c.tier.map(|t| t.0), Some(0));
    let log = log.0.borrow();
    assert!(log
        .iter()
        .any(|(_, e)| matches!(e, SimEvent::Placed { job, reason: Reason::Reconsolidated { .. }, .. } if job.0 == 2)));
    // It ran 31 s → 506.67 s spread (432.4 iterations of 1.1 s), then 30 s restoring, then
    // the remaining 567.6 iterations at 1.01 s.
    let a_end = secs(dally.runs()[0].end);
    let done_spread = (a_end - 31.0) / 1.1;
    let expected = a_end + 30.0 + (1000.0 - done_spread) * 1.01;
    assert!((secs(c.end) - expected).abs() < 1e-4, "{} vs {expected}", secs(c.end));
}

#[test]
fn the_starvation_bound_reserves_the_cluster_for_the_oldest_job() {
    // Eight GPUs. A stream of 1-GPU jobs (every 10 s, each 25 iterations) keeps a few GPUs
    // busy until 1,000 s; an 8-GPU job submitted at 5 s never finds the cluster empty under
    // backfilling. With starve_s=100 it gets a reservation at 105 s: nobody else starts,
    // the running 1-GPU jobs end within 25 s, and it starts by 130 s.
    let mut jobs: Vec<(f64, u32, f64)> = (0..100).map(|i| (i as f64 * 10.0, 1, 25.0)).collect();
    jobs.insert(1, (5.0, 8, 10.0));
    let (cons, _) = run("consolidate", scenario(cluster(1, 2, 4, 1.0), &jobs));
    assert!(secs(cons.runs()[1].first_start) > 1000.0, "{}", secs(cons.runs()[1].first_start));
    let (dally, _) = run("dally:autotune=off,starve_s=100", scenario(cluster(1, 2, 4, 1.0), &jobs));
    let start = secs(dally.runs()[1].first_start);
    assert!((105.0..=130.0).contains(&start), "{start}");
    // The default has no reservation: the bound is on delay waits only.
    let (dally, _) = run("dally:autotune=off", scenario(cluster(1, 2, 4, 1.0), &jobs));
    assert!(secs(dally.runs()[1].first_start) > 1000.0);
}

#[test]
fn the_tuner_moves_timers_and_says_why() {
    // A busy cluster of sensitive jobs on the teaching preset: the tuner has waits to learn
    // from and moves at least one timer; each move is an event with its reason.
    let topo = proxima_core::topology::resolve_topology_arg("teaching").unwrap();
    let jobs: Vec<(f64, u32, f64)> =
        (0..400).map(|i| (i as f64 * 40.0, [2, 4, 3, 1][i % 4], 200.0 + (i % 7) as f64 * 100.0)).collect();
    let (sim, log) = run("dally:tune_every_s=300", scenario(topo, &jobs));
    assert_eq!(sim.summary().jobs_completed, 400);
    let log = log.0.borrow();
    let changes: Vec<&PolicyNote> = log
        .iter()
        .filter_map(|(_, e)| match e {
            SimEvent::Policy { note } => Some(note),
            _ => None,
        })
        .collect();
    assert!(!changes.is_empty(), "no timer moved");
    for PolicyNote::TimerChanged { old_s, new_s, why, .. } in changes {
        assert!(old_s != new_s && *new_s >= 5.0 && *new_s <= 3600.0 && !why.is_empty());
        assert!(*new_s <= old_s * 2.0 + 1e-9 && *new_s >= old_s / 2.0 - 1e-9, "at most a factor of two per step");
    }
}

#[test]
fn every_variant_parses_and_names_its_options() {
    for spec in [
        "dally",
        "dally:preempt=off",
        "dally:autotune=off",
        "dally:preempt=off,autotune=off",
        "dally:autotune=off,timers=60/30",
        "dally:delay=off",
        "dally:delay=all",
    ] {
        let p = resolve_policy(spec).unwrap();
        assert!(p.spec().starts_with("dally:delay="), "{}", p.spec());
        // The canonical spec resolves to the same policy.
        assert_eq!(resolve_policy(&p.spec()).unwrap().spec(), p.spec());
    }
    assert_eq!(resolve_policy("dally:timers=abc").err().unwrap().field, "timers");
    assert_eq!(resolve_policy("dally:preempt=maybe").err().unwrap().field, "preempt");
    assert_eq!(resolve_policy("dally:delay=sometimes").err().unwrap().field, "delay");
    assert_eq!(resolve_policy("dally:colour=red").err().unwrap().field, "colour");
}
