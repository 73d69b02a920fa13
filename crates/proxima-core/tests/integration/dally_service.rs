//! Service-order preemption under `dally:order=las` (`service=exchange|priority`) on a
//! scenario computed by hand. Units as in `dally.rs`: on one 4-GPU server a 4-GPU job
//! computes 1 s per iteration and exchanges 2·¾·1 GB at 100 GB/s, 1.015 s per iteration.
//!
//! Two 4-GPU servers in one rack. S (4 GPUs, 2 iterations) runs on server 0 from 0 to 2.03
//! s: the first completion.
//! O (4 GPUs, 1,000 iterations) runs on server 1 from 0 s. B (4 GPUs, very long) arrives at
//! 1 s and takes server 0 when S ends. P (4 GPUs, 20 iterations) arrives at 10 s and waits
//! in queue 0. O drops to queue 1 once it has attained the queue's threshold, and from
//! then on P may take its server (B, demoted 2.03 s later, has then run less).

use crate::common;
use crate::dally::secs;

use common::build::{cluster, scenario};
use common::record::{close, run_logged as run, Log};
use proxima_core::event::{Reason, SimEvent};

fn server_scenario() -> proxima_core::scenario::Scenario {
    scenario(cluster(1, 2, 4, 1.0), &[(0.0, 4, 2.0), (0.0, 4, 1000.0), (1.0, 4, 1e6), (10.0, 4, 20.0)])
}

/// The service-order preemptions of a run: (time, victim, gain_s, cost_s).
fn exchanges(log: &Log) -> Vec<(f64, u32, f64, f64)> {
    log.0
        .borrow()
        .iter()
        .filter_map(|(t, e)| match e {
            SimEvent::Preempted { job, reason: Reason::PreemptedFor { gain_s, cost_s, .. }, .. } => {
                Some((*t, job.0, *gain_s, *cost_s))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn priority_preempts_at_the_demotion_whatever_it_costs() {
    // queues=100: O attains 100 GPU-s at 25 s and is checkpointed at once; P runs 20 ×
    // 1.015 s to 45.3 s; O restores for 30 s and runs its last 990 s.
    let (las, log) = run("dally:order=las,queues=100,autotune=off,service=priority", server_scenario());
    let found = exchanges(&log);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(close(found[0].0, 25.0) && found[0].1 == 1, "{found:?}");
    assert!(close(secs(las.runs()[3].end), 45.3), "{}", secs(las.runs()[3].end));
    assert!(close(secs(las.runs()[1].end), 1065.3), "{}", secs(las.runs()[1].end));
}

#[test]
fn an_exchange_happens_only_when_the_waiter_saves_more_than_its_victim_loses() {
    // At its demotion (25 s) O has run 25 s; no completed job ran longer, so it is expected
    // to run about as long again: P would save 25 s by taking the server now. O would lose
    // the 30 s restore; no GPUs are free, so it would wait and come back on a server, as
    // fast as now. 25 s < 30 s, so P waits. (B, demoted at 27.03 s after 25 s, does not pay
    // either; O at 27.03 s would, 27.03 s > 30 s being false, not.)
    let (las, log) = run("dally:order=las,queues=100,autotune=off", server_scenario());
    assert!(exchanges(&log).is_empty(), "{:?}", exchanges(&log));
    assert!(close(secs(las.runs()[1].end), 1015.0), "{}", secs(las.runs()[1].end));
    assert!(close(secs(las.runs()[3].end), 1035.3), "{}", secs(las.runs()[3].end));
    // With a threshold of 200 GPU-s O is demoted after 50 s: P saves 50 s against 30 s,
    // and takes the server at 50 s.
    let (las, log) = run("dally:order=las,queues=200,autotune=off", server_scenario());
    let found = exchanges(&log);
    assert_eq!(found.len(), 1, "{found:?}");
    let (t, victim, gain, cost) = found[0];
    assert!(close(t, 50.0) && victim == 1, "{found:?}");
    assert!(close(gain, 50.0) && close(cost, 30.0), "gain {gain}, cost {cost}");
    assert!(close(secs(las.runs()[3].end), 70.3), "{}", secs(las.runs()[3].end));
    // The same exchange is refused to a victim already preempted max_preempt times (here
    // none may be).
    let (_, log) = run("dally:order=las,queues=200,autotune=off,max_preempt=0", server_scenario());
    assert!(exchanges(&log).is_empty(), "{:?}", exchanges(&log));
}

/// Two racks of one 4-GPU server each, under a 20:1 uplink: a ring across the racks is
/// several times slower than one inside a server. A (3 GPUs, 1,200 iterations) fills server
/// 0 but one GPU; H (1 GPU, 1,000 iterations) and B (2 GPUs, very long) share server 1. H's
/// completion near 1,000 s teaches the estimate that a job runs about 1,000 s, and leaves
/// three GPUs free, one in each rack but two in server 1. C (3 GPUs, 1,000 iterations)
/// arrives at 1,010 s.
fn patience_scenario() -> proxima_core::scenario::Scenario {
    scenario(cluster(2, 1, 4, 20.0), &[(0.0, 3, 1200.0), (0.0, 1, 1000.0), (0.0, 2, 1e6), (1010.0, 3, 1000.0)])
}

#[test]
fn a_job_holds_out_for_a_server_while_spreading_would_cost_more_than_the_wait() {
    let spec = "dally:order=las,queues=none,preempt=off,autotune=off,timers=5/5";
    // With the timers alone C takes the spread placement when both 5 s timers (server, then
    // rack) have run out.
    let (timed, _) = run(&format!("{spec},patient_above=off"), patience_scenario());
    let c = &timed.runs()[3];
    assert!(close(secs(c.first_start), 1020.0), "{}", secs(c.first_start));
    assert_eq!(c.tier.map(|t| t.0), Some(2));
    // Spreading would make C at least twice as slow for an expected 1,000 s: it waits for A's
    // server instead, free at about 1,218 s, and ends far sooner.
    let (patient, log) = run(spec, patience_scenario());
    let (a, c) = (&patient.runs()[0], &patient.runs()[3]);
    assert_eq!(c.first_start, a.end);
    assert_eq!(c.tier.map(|t| t.0), Some(0));
    assert!(secs(c.end) < secs(timed.runs()[3].end) - 500.0, "{} vs {}", secs(c.end), secs(timed.runs()[3].end));
    assert!(!log
        .0
        .borrow()
        .iter()
        .any(|(_, e)| matches!(e, SimEvent::Placed { job, reason: Reason::TimerExpired { .. }, .. } if job.0 == 3)));
}
