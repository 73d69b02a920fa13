//! The network-sensitive scheduler on scenarios computed by hand.
//!
//! The rules that weigh a job's remaining run time are stated with that time known
//! (`runtime=oracle`), so that their figures follow from the trace by hand; what the default
//! estimate makes of the same scenarios, and that it never reads the future, is tested in
//! `dally_estimate.rs`.
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

use crate::common;

use common::build::{cluster, scenario, scenario_with, two_models};
use common::record::{close, run_logged as run, Log};
use proxima_core::event::{PolicyNote, Reason, SimEvent};
use proxima_core::policy::resolve_policy;
use proxima_core::time::SimTime;

pub(crate) fn secs(t: Option<SimTime>) -> f64 {
    t.expect("set").as_secs_f64()
}

/// A (3 GPUs, 10 iterations) and B (3 GPUs, long) fill most of both servers at 0 s, leaving
/// one GPU free on each. C (2 GPUs, 1,000 iterations) arrives at 1 s: right now it can only
/// run spread over the two servers.
pub(crate) fn waiting_scenario(a_iterations: f64) -> proxima_core::scenario::Scenario {
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
    let (dally, log) = run("dally:preempt=off,autotune=off,runtime=oracle", waiting_scenario(10.0));
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
    let (dally, log) = run("dally:preempt=off,autotune=off,timers=30/15,runtime=oracle", waiting_scenario(10_000.0));
    let c = &dally.runs()[2];
    assert!(close(secs(c.first_start), 31.0), "{}", secs(c.first_start));
    assert!(close(secs(c.end), 1131.0), "{}", secs(c.end));
    assert_eq!(c.tier.map(|t| t.0), Some(1));
    let log = log.0.borrow();
    assert!(log.iter().any(|(t, e)| *t == 31.0
        && matches!(e, SimEvent::Placed { job, reason: Reason::TimerExpired { waited_s, .. }, .. } if job.0 == 2 && close(*waited_s, 30.0))));
    // Without the short timer the budget is the break-even 90 s.
    let (dally, _) = run("dally:preempt=off,autotune=off,runtime=oracle", waiting_scenario(10_000.0));
    assert!(close(secs(dally.runs()[2].first_start), 91.0));
}

/// The oracle paradox of issue 31 asked whether remaining run times drive any decision at
/// all. They do: the same job on the same cluster waits for a server when it has much left
/// to run and takes the spread placement after a short wait when it has little.
#[test]
fn the_decision_to_wait_changes_with_the_remaining_run_time() {
    // C has 1,000 iterations: its budget for a server is 1,010 s × 0.0891 = 90 s, longer than
    // the 9.13 s until A frees server 0, so it waits and gets the server at 10.133334 s.
    let long_c = scenario(cluster(1, 2, 4, 1.0), &[(0.0, 3, 10.0), (0.0, 3, 100_000.0), (1.0, 2, 1000.0)]);
    let (dally, _) = run("dally:preempt=off,autotune=off,runtime=oracle", long_c);
    let c = &dally.runs()[2];
    assert!(close(secs(c.first_start), 10.133334), "{}", secs(c.first_start));
    assert_eq!(c.tier.map(|t| t.0), Some(0));
    // With 50 iterations left the budget is 50 × 1.01 s × 0.0891 = 4.5 s: waiting longer
    // would cost more than the server saves, so at 5.5 s C takes the spread placement.
    let short_c = scenario(cluster(1, 2, 4, 1.0), &[(0.0, 3, 10.0), (0.0, 3, 100_000.0), (1.0, 2, 50.0)]);
    let (dally, log) = run("dally:preempt=off,autotune=off,runtime=oracle", short_c);
    let c = &dally.runs()[2];
    assert!(close(secs(c.first_start), 5.5), "{}", secs(c.first_start));
    assert_eq!(c.tier.map(|t| t.0), Some(1));
    let log = log.0.borrow();
    assert!(log.iter().any(|(t, e)| close(*t, 5.5)
        && matches!(e, SimEvent::Placed { job, reason: Reason::TimerExpired { .. }, .. } if job.0 == 2)));
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
fn preemption_scenario() -> proxima_core::scenario::Scenario {
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
    let (dally, log) = run("dally:autotune=off,runtime=oracle", preemption_scenario());
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
    let (dally, _) = run("dally:autotune=off,restore_s=100,runtime=oracle", preemption_scenario());
    assert_eq!(dally.summary().preemptions, 0);
    assert!(close(secs(dally.runs()[2].first_start), 790.0));
    // Guard rail: before T has run its minimum time, it is not preempted either.
    let (early, _) = run("dally:autotune=off,min_run_s=1000,runtime=oracle", preemption_scenario());
    assert_eq!(early.summary().preemptions, 0);
    // And with preemption off, never.
    let (off, _) = run("dally:preempt=off,autotune=off,runtime=oracle", preemption_scenario());
    assert_eq!(off.summary().preemptions, 0);
}

#[test]
fn a_scattered_job_moves_when_room_appears() {
    // C starts spread at 31 s (short timers) and would gain 0.09 s per remaining iteration
    // on a server: far more than the 30 s restore cost, once a server frees up.
    // If A runs long, no room appears before C ends (1,131 s): it stays spread.
    let (dally, _) = run("dally:autotune=off,timers=30/15,runtime=oracle", waiting_scenario(10_000.0));
    let c = &dally.runs()[2];
    assert_eq!((c.placements, c.preemptions), (1, 0));
    // A ends at 500 × 1.013333 = 506.67 s, but C has run only 476 s there, less than its
    // minimum run time of 600 s: the guard rail keeps it where it is.
    let (dally, _) = run("dally:autotune=off,timers=30/15,runtime=oracle", waiting_scenario(500.0));
    assert_eq!(dally.runs()[2].preemptions, 0);
    // With a minimum run time of 0 it moves as soon as A's GPUs free up.
    let (dally, log) = run("dally:autotune=off,timers=30/15,min_run_s=0,runtime=oracle", waiting_scenario(500.0));
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
        assert!(old_s != new_s && *new_s >= 5.0 && *new_s <= 3600.0 && why.samples >= why.successes);
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
        "dally:runtime=oracle",
        "dally:runtime=estimate,quota=on",
    ] {
        let p = resolve_policy(spec).unwrap();
        assert!(p.spec().starts_with("dally:delay="), "{}", p.spec());
        // The canonical spec resolves to the same policy.
        assert_eq!(resolve_policy(&p.spec()).unwrap().spec(), p.spec());
    }
    // Every canonical spec says whether the run knew the future; estimating is the default.
    assert!(resolve_policy("dally").unwrap().spec().contains(",runtime=estimate"));
    assert!(resolve_policy("dally:runtime=oracle").unwrap().spec().contains(",runtime=oracle"));
    let bad = resolve_policy("dally:runtime=future").err().unwrap();
    assert_eq!((bad.field.as_str(), bad.message.as_str()), ("runtime", "expected estimate or oracle, got 'future'"));
    assert_eq!(resolve_policy("dally:timers=abc").err().unwrap().field, "timers");
    assert_eq!(resolve_policy("dally:preempt=maybe").err().unwrap().field, "preempt");
    assert_eq!(resolve_policy("dally:delay=sometimes").err().unwrap().field, "delay");
    assert_eq!(resolve_policy("dally:colour=red").err().unwrap().field, "colour");
}

/// The GPUs of `job`'s first placement.
fn placed_gpus(log: &Log, job: u32) -> Vec<u32> {
    log.0
        .borrow()
        .iter()
        .find_map(|(_, e)| match e {
            SimEvent::Placed { job: j, gpus, .. } if j.0 == job => Some(gpus.iter().map(|g| g.0).collect()),
            _ => None,
        })
        .expect("placed")
}

/// The time and reason of `job`'s first wait for a tier.
pub(crate) fn first_wait(log: &Log, job: u32) -> Option<(f64, Reason)> {
    log.0.borrow().iter().find_map(|(t, e)| match e {
        SimEvent::Waiting { job: j, reason: r @ Reason::WaitingForTier { .. } } if j.0 == job => Some((*t, r.clone())),
        _ => None,
    })
}

#[test]
fn sensitivity_sees_the_hot_uplink_a_placement_would_cross() {
    // Three racks of two one-GPU servers; NICs 10 GB/s, uplinks 2 × 80 / 2 Gbit/s = 10 GB/s.
    // Tiny one-GPU fillers hold every GPU at 0 s; those on GPUs 1 and 2 end at 5 s, so H
    // (unit, 2 GPUs, arriving at 6 s) can only run across racks 0 and 1: its ring crosses
    // both their uplinks alone, at 10 GB/s. The fillers on GPUs 3 and 5 end at 10 s; J (unit,
    // 2 GPUs, 1,000 iterations) arrives at 11 s and can only get GPUs 3 and 5, across racks
    // 1 and 2.
    // - What J would get now: rack 1's uplink already carries H, so a new ring gets 5 GB/s
    //   there: 1 + 1 GB / 5 GB/s = 1.2 s per iteration. J's ideal (one rack, idle) is 1.1 s.
    // - Waiting for a rack (its tightest tier), it would cross two NICs of unknown load: the
    //   NICs carry 2 rings over 6 links, 1/3 on average, so 10 / (1 + 1/3) = 7.5 GB/s:
    //   1 + 1/7.5 = 1.133333 s.
    // - Its budget is the break-even wait: 1,100 s × (1.2 − 1.133333) / 1.1 = 66.67 s. With
    //   the mean load over all uplinks instead of the uplink it would cross (2 rings on 3
    //   uplinks: 10 / (1 + 2/3) = 6 GB/s, 1.166667 s) it would have been 33.3 s.
    let mut jobs: Vec<(f64, u32, f64, u16)> = (0..6)
        .map(|g| {
            (
                0.0,
                1,
                if matches!(g, 1 | 2) {
                    5.0
                } else if matches!(g, 3 | 5) {
                    10.0
                } else {
                    1e6
                },
                1,
            )
        })
        .collect();
    jobs.push((6.0, 2, 1e6, 0)); // H
    jobs.push((11.0, 2, 1000.0, 0)); // J
    let (sim, log) =
        run("dally:autotune=off,runtime=oracle", scenario_with(cluster(3, 2, 1, 2.0), two_models(), &jobs));
    assert_eq!(placed_gpus(&log, 6), vec![1, 2], "H");
    match first_wait(&log, 7) {
        Some((t, Reason::WaitingForTier { wanted, left_s, best_now, slowdown })) => {
            assert_eq!((t, wanted.0, best_now.map(|b| b.0)), (11.0, 1, Some(2)));
            assert!(close(slowdown, 1.2 / 1.1), "{slowdown}");
            assert!(close(left_s, 1000.0 * (1.2 - (1.0 + 1.0 / 7.5))), "{left_s}");
        }
        other => panic!("J should wait for a rack: {other:?}"),
    }
    // Its budget runs out with no rack free: it takes GPUs 3 and 5 at 11 + 66.67 s.
    assert!(close(secs(sim.runs()[7].first_start), 11.0 + 200.0 / 3.0), "{}", secs(sim.runs()[7].first_start));
}

#[test]
fn a_wide_job_on_hot_uplinks_moves_to_a_rack_when_one_frees_up() {
    // Three racks of two two-GPU servers; NICs 10 GB/s, uplinks 10 GB/s. Tiny one-GPU fillers
    // hold all twelve GPUs at 0 s. Those on GPUs 1 and 4 end at 5 s: H (tiny, 2 GPUs; its
    // ring still takes up to a NIC's 10 GB/s) runs across racks 0 and 1 from 6 s. Those on GPUs 2, 3, 6, 7 end at 10 s: J (unit, 4 GPUs,
    // wider than a server, so its tightest tier is a rack) can only run across racks 0 and 1,
    // sharing both uplinks with H. With zero timers it starts there at 11 s.
    // Max-min: H and J get 5 GB/s each on the uplinks; J runs 1 + 2·¾ / 5 = 1.3 s per
    // iteration, where a rack of its own would give 1 + 1.5 / 10 = 1.15 s: it is scattered
    // and sensitive (loss 1.3/1.15 over the representative rack, above 1.05).
    // At 700 s the fillers of rack 2 end. J has run 689 s (past its 600 s minimum): 530
    // iterations, 1,470 left, worth 1,690.5 s ideal; moving gains 1,690.5 × (1.3/1.15 − 1) =
    // 220.5 s > the 30 s restore. It moves to rack 2, restores for 30 s and runs the rest at
    // 1.15 s: done at 730 + 1,470 × 1.15 = 2,420.5 s.
    let mut jobs: Vec<(f64, u32, f64, u16)> = (0..12)
        .map(|g| {
            let iterations = match g {
                1 | 4 => 5.0,
                2 | 3 | 6 | 7 => 10.0,
                8..=11 => 700.0,
                _ => 1e6,
            };
            (0.0, 1, iterations, 1)
        })
        .collect();
    jobs.push((6.0, 2, 1e6, 1)); // H
    jobs.push((11.0, 4, 2000.0, 0)); // J
    let (sim, log) =
        run("dally:autotune=off,timers=0/0,runtime=oracle", scenario_with(cluster(3, 2, 2, 2.0), two_models(), &jobs));
    let j = &sim.runs()[13];
    assert!(close(secs(j.first_start), 11.0));
    assert_eq!((j.placements, j.preemptions, j.tier.map(|t| t.0)), (2, 1, Some(1)));
    assert_eq!(j.gpus.len(), 0);
    assert!(close(secs(j.end), 730.0 + 1470.0 * 1.15), "{}", secs(j.end));
    assert!(log.0.borrow().iter().any(|(t, e)| *t == 700.0
        && matches!(e, SimEvent::Preempted { job, reason: Reason::Reconsolidating { gain_s, .. }, .. }
            if job.0 == 13 && close(*gain_s, 1690.5 * (1.3 / 1.15 - 1.0)))));
    // H is insensitive and stays where it is.
    assert_eq!(sim.runs()[12].preemptions, 0);
}

#[test]
fn node_choice_within_a_tier_prefers_cool_links_and_consolidate_stays_best_fit() {
    // Two racks of two four-GPU servers; NICs 10 GB/s. At 0 s tiny jobs A (3 GPUs) and B (3)
    // take servers 0 and 1, C (4) and D (4) servers 2 and 3; H (tiny, 2 GPUs) then fits
    // nowhere but across servers 0 and 1 (GPUs 3 and 7): its ring runs on their NICs at
    // 10 GB/s. D ends at 5 s and E (tiny, 1 GPU) takes a GPU of server 3 at 6 s; A, B and C
    // end at 10 s. J (unit, 6 GPUs) arrives at 20 s: rack 0 has 6 free GPUs, rack 1 has 7.
    // - consolidate takes the best fit, rack 0, and shares NICs 0 and 1 with H: max-min gives
    //   each 5 GB/s, so J runs 1 + 2·⅚ / 5 = 1.333333 s per iteration;
    // - dally sees that a new ring would get 5 GB/s on rack 0's NICs and 10 on rack 1's, and
    //   takes rack 1: 1 + 2·⅚ / 10 = 1.166667 s, its ideal.
    let jobs = [
        (0.0, 3, 10.0, 1),   // A
        (0.0, 3, 10.0, 1),   // B
        (0.0, 4, 10.0, 1),   // C
        (0.0, 4, 5.0, 1),    // D
        (0.0, 2, 1e6, 1),    // H
        (6.0, 1, 1e6, 1),    // E
        (20.0, 6, 100.0, 0), // J
    ];
    let (cons, cons_log) = run("consolidate", scenario_with(cluster(2, 2, 4, 1.0), two_models(), &jobs));
    let (dally, dally_log) = run("dally:autotune=off", scenario_with(cluster(2, 2, 4, 1.0), two_models(), &jobs));
    for log in [&cons_log, &dally_log] {
        assert_eq!(placed_gpus(log, 4), vec![3, 7], "H");
        assert_eq!(placed_gpus(log, 5), vec![12], "E");
    }
    assert_eq!(placed_gpus(&cons_log, 6), vec![0, 1, 2, 4, 5, 6], "consolidate: rack 0");
    assert_eq!(placed_gpus(&dally_log, 6), vec![8, 9, 10, 11, 13, 14], "dally: rack 1");
    assert!(
        close(secs(cons.runs()[6].end), 20.0 + 100.0 * (1.0 + 2.0 * 5.0 / 6.0 / 5.0)),
        "{}",
        secs(cons.runs()[6].end)
    );
    assert!(
        close(secs(dally.runs()[6].end), 20.0 + 100.0 * (1.0 + 2.0 * 5.0 / 6.0 / 10.0)),
        "{}",
        secs(dally.runs()[6].end)
    );
}

#[test]
fn max_preempt_bounds_how_often_a_job_is_checkpointed() {
    // The preemption scenario, then a second sensitive job S2 (unit, 2 GPUs, 1,000
    // iterations) at 1,400 s. At 700 s T was preempted for S (its first preemption) and
    // restarted at once across both servers (2 + 1 GPUs; insensitive, it takes any tier).
    // At 1,400 s every GPU is busy: S on 2 of server 0, T on the other 2 and 1 of server 1,
    // B on 3 of server 1. Server 0 would hold S2 if T left it; T has run 700 s since its
    // restart, past the 600 s minimum, and S (as sensitive as S2) is no victim. Nothing is
    // free, so the alternative is spread out: T's ring now crosses both NICs (one ring per
    // NIC on average), so a new ring would get 5 GB/s: (1 + 1/5) / 1.01 = 1.1881. The gain is
    // S2's remaining 1,010 s × 0.1881 = 190 s; the cost T's 30 s restore, plus the recent
    // queueing delay because T will not fit in the free GPUs, and no job has waited yet: 0.
    let mut jobs = vec![(0.0, 3, 100_000.0, 1), (0.0, 3, 100_000.0, 0), (700.0, 2, 1000.0, 0)];
    jobs.push((1400.0, 2, 1000.0, 0));
    // With max_preempt=2 T is checkpointed again and S2 starts at once on server 0.
    let (two, log) = run(
        "dally:autotune=off,max_preempt=2,runtime=oracle",
        scenario_with(cluster(1, 2, 4, 1.0), two_models(), &jobs),
    );
    assert_eq!(two.runs()[0].preemptions, 2);
    assert!(log.0.borrow().iter().any(|(t, e)| *t == 1400.0
        && matches!(e, SimEvent::Preempted { job, reason: Reason::PreemptedFor { for_job, gain_s, cost_s, .. }, .. }
            if job.0 == 0 && for_job.0 == 3 && close(*gain_s, 1010.0 * (1.2 / 1.01 - 1.0)) && *cost_s == 30.0)));
    assert_eq!(two.runs()[3].first_start, Some(SimTime::from_secs_f64(1400.0)));
    // With max_preempt=1 T is spared: S2 waits (its 190 s budget runs out with nothing free)
    // until S ends at 700 + 1,010 s and frees its server.
    let (one, _) = run(
        "dally:autotune=off,max_preempt=1,runtime=oracle",
        scenario_with(cluster(1, 2, 4, 1.0), two_models(), &jobs),
    );
    assert_eq!(one.runs()[0].preemptions, 1);
    assert!(close(secs(one.runs()[2].end), 1710.0));
    assert_eq!(one.runs()[3].first_start, Some(SimTime::from_secs_f64(1710.0)));
    assert_eq!(one.runs()[3].tier.map(|t| t.0), Some(0));
    // And with max_preempt=0 nobody is ever preempted.
    let (zero, _) = run(
        "dally:autotune=off,max_preempt=0,runtime=oracle",
        scenario_with(cluster(1, 2, 4, 1.0), two_models(), &jobs),
    );
    assert_eq!(zero.summary().preemptions, 0);
}

#[test]
fn the_queueing_delay_a_victim_will_suffer_counts_against_a_preemption() {
    // The preemption scenario shifted by 4,020 s, after a queue has formed: Q (tiny, 1 GPU,
    // 4,000 iterations) runs from 0 s, and W (tiny, 8 GPUs, 10 iterations) waits for the
    // whole cluster until Q ends at 4,000 s. Recent queueing delay is a weighted mean
    // (weight 0.02) of the waits of placed jobs: Q 0 s, W 4,000 s (0.02 × 4,000 = 80 s), then
    // T and B at 4,020 s with 0 s each: 80 × 0.98² = 76.83 s.
    // At 4,720 s S (gain 90 s, as before) could have server 0 if T left it; T will not fit
    // in the 2 GPUs free elsewhere, so it would queue too: the cost is 30 + 76.83 s > 90 s.
    // No preemption; S waits its 90 s budget and runs spread from 4,810 s.
    let jobs = [
        (0.0, 1, 4000.0, 1),       // Q
        (0.0, 8, 10.0, 1),         // W
        (4020.0, 3, 100_000.0, 1), // T
        (4020.0, 3, 100_000.0, 0), // B
        (4720.0, 2, 1000.0, 0),    // S
    ];
    let (sim, log) =
        run("dally:autotune=off,runtime=oracle", scenario_with(cluster(1, 2, 4, 1.0), two_models(), &jobs));
    assert_eq!(sim.runs()[1].first_start, Some(SimTime::from_secs_f64(4000.0)));
    assert_eq!(sim.summary().preemptions, 0);
    assert!(close(secs(sim.runs()[4].first_start), 4810.0), "{}", secs(sim.runs()[4].first_start));
    assert_eq!(sim.runs()[4].tier.map(|t| t.0), Some(1));
    assert!(log.0.borrow().iter().all(|(_, e)| !matches!(e, SimEvent::Preempted { .. })));
    // Without the queue (Q and W gone) the same preemption costs only the restore: it
    // happens at 4,720 s.
    let (calm, _) =
        run("dally:autotune=off,runtime=oracle", scenario_with(cluster(1, 2, 4, 1.0), two_models(), &jobs[2..]));
    assert_eq!(calm.summary().preemptions, 1);
    assert_eq!(calm.runs()[2].first_start, Some(SimTime::from_secs_f64(4720.0)));
}

#[test]
fn preemption_without_delay_and_delay_for_everyone() {
    // delay=off: nobody waits. In the preemption scenario with a 100 s restore (the 90 s
    // gain does not pay for it) S starts spread at once at 700 s instead of waiting its 90 s
    // budget; with the default 30 s restore preempting T still pays, and S gets server 0 at
    // 700 s, as with delay.
    let (off, _) = run("dally:delay=off,autotune=off,restore_s=100,runtime=oracle", preemption_scenario());
    assert_eq!(off.summary().preemptions, 0);
    assert_eq!(off.runs()[2].first_start, Some(SimTime::from_secs_f64(700.0)));
    assert_eq!(off.runs()[2].tier.map(|t| t.0), Some(1));
    let (off, _) = run("dally:delay=off,autotune=off,runtime=oracle", preemption_scenario());
    assert_eq!(off.runs()[0].preemptions, 1);
    assert_eq!(
        (off.runs()[2].first_start, off.runs()[2].tier.map(|t| t.0)),
        (Some(SimTime::from_secs_f64(700.0)), Some(0))
    );
    // delay=all: the insensitive job C of `insensitive_jobs_are_placed_at_once` waits too,
    // for its tier's full timer (300 s, not capped by what it stands to win): A frees server
    // 0 at 10.133334 s and C takes it.
    let sc = || {
        scenario_with(
            cluster(1, 2, 4, 1.0),
            two_models(),
            &[(0.0, 3, 10.0, 0), (0.0, 3, 100_000.0, 0), (1.0, 2, 1000.0, 1)],
        )
    };
    let (all, _) = run("dally:delay=all,autotune=off,runtime=oracle", sc());
    assert!(close(secs(all.runs()[2].first_start), 10.133334), "{}", secs(all.runs()[2].first_start));
    assert_eq!(all.runs()[2].tier.map(|t| t.0), Some(0));
    let (on, _) = run("dally:autotune=off,runtime=oracle", sc());
    assert_eq!(on.runs()[2].first_start, Some(SimTime::from_secs_f64(1.0)));
}

/// Periods of `period` s on two 4-GPU servers: L (tiny, 3 GPUs) holds one server
/// throughout; in each period X (tiny, 3 GPUs, `x_iterations` of 1 s) takes the other at
/// +10 s, and J (unit, 2 GPUs, `j_iterations`) arrives at +11 s, when only a spread
/// placement is free. A server for J appears when X ends.
fn periodic_waits(
    periods: usize,
    period: f64,
    x_iterations: f64,
    j_iterations: f64,
) -> proxima_core::scenario::Scenario {
    let mut jobs = vec![(0.0, 3, 1e9, 1)];
    for k in 0..periods {
        let t = k as f64 * period;
        jobs.push((t + 10.0, 3, x_iterations, 1));
        jobs.push((t + 11.0, 2, j_iterations, 0));
    }
    scenario_with(cluster(1, 2, 4, 1.0), two_models(), &jobs)
}

/// The server tier's timer moves, in order.
fn server_timer_moves(log: &Log) -> Vec<(f64, f64)> {
    log.0
        .borrow()
        .iter()
        .filter_map(|(_, e)| match e {
            SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, .. } } if tier.0 == 0 => {
                Some((*old_s, *new_s))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_tuner_raises_timers_when_waits_would_pay() {
    // X runs 40 s, so a server appears 39 s into J's wait; J (20,000 iterations) stands to
    // gain 20,000 × 1.01 × (1.1/1.01 − 1) = 1,800 s from it. A 20 s timer cuts every wait
    // short: all of them fail at 20 s. The tuner sees 1,800 s to win and placements that
    // appear at some rate beyond 20 s, and raises the timer (at most twice per step) until
    // the waits succeed.
    let (sim, log) =
        run("dally:preempt=off,timers=20/20,tune_every_s=100", periodic_waits(40, 23_000.0, 40.0, 20_000.0));
    let moves = server_timer_moves(&log);
    assert!(!moves.is_empty(), "the timer never moved");
    assert_eq!(moves[0], (20.0, 40.0), "first move: up by the factor-of-two limit");
    let last = moves.last().unwrap().1;
    assert!(last >= 40.0, "the timer ends at {last} s");
    // Once it is above 39 s, J waits for its server instead of running spread.
    let placed_on_a_server = (0..40).filter(|k| sim.runs()[2 + 2 * k].tier.map(|t| t.0) == Some(0)).count();
    assert!(placed_on_a_server >= 10, "{placed_on_a_server} of 40 got a server");
}

#[test]
fn the_tuner_lowers_timers_when_waits_do_not_pay() {
    // X runs 2,000 s, so no server appears while J (2,000 iterations, 180 s to gain) waits:
    // every wait fails after its 180 s budget. Waiting only loses time, and the tuner lowers
    // the 300 s timer, by at most half per step.
    let (_, log) =
        run("dally:preempt=off,timers=300/300,tune_every_s=100", periodic_waits(40, 2_500.0, 2000.0, 2000.0));
    let moves = server_timer_moves(&log);
    assert!(!moves.is_empty(), "the timer never moved");
    assert_eq!(moves[0], (300.0, 150.0), "first move: down by the factor-of-two limit");
    assert!(moves.iter().all(|(old, new)| new < old), "{moves:?}");
}
