//! `dally` without hidden knowledge (`runtime=estimate`, the default): its budget comes from
//! completed jobs, and its decisions never depend on a waiting job's true run time. Units and
//! scenarios as in `dally.rs`.

use crate::common;
use crate::dally::{first_wait, secs, waiting_scenario};

use common::build::{cluster, scenario};
use common::record::{close, run_logged as run, Log};
use proxima_core::event::{Reason, SimEvent};

/// A (3 GPUs, 10 iterations) and B (3 GPUs, long) take a server each at 0 s; E (1 GPU,
/// 2 iterations of 1 s) takes one of the two GPUs left and completes at 2 s. C (2 GPUs,
/// `c_iterations`) arrives at 3 s, when only a spread placement is free.
fn estimate_scenario(c_iterations: f64) -> proxima_core::scenario::Scenario {
    scenario(cluster(1, 2, 4, 1.0), &[(0.0, 3, 10.0), (0.0, 3, 100_000.0), (0.0, 1, 2.0), (3.0, 2, c_iterations)])
}

#[test]
fn the_budget_comes_from_completed_jobs_not_from_the_trace() {
    // By 3 s only E has completed, after 2 ideal seconds, and no 2-GPU job has: C, which has
    // run 0 s, expects to run 2 s (the mean of everyone's completed jobs). Its budget for a
    // server is 2 s × (1.1/1.01 − 1) = 0.178218 s; nothing frees up by then, and it takes the
    // spread placement at 3.178218 s. The oracle knows C's 1,010 s: a 90 s budget, and C gets
    // server 0 when A ends at 10.133334 s.
    let (estimate, log) = run("dally:autotune=off", estimate_scenario(1000.0));
    let budget = 2.0 * (1.1 / 1.01 - 1.0);
    let c = &estimate.runs()[3];
    assert!(close(secs(c.first_start), 3.0 + budget), "{}", secs(c.first_start));
    assert_eq!(c.tier.map(|t| t.0), Some(1));
    match first_wait(&log, 3) {
        Some((3.0, Reason::WaitingForTier { left_s, .. })) => assert!(close(left_s, budget), "{left_s}"),
        other => panic!("C should wait for a server: {other:?}"),
    }
    let (oracle, _) = run("dally:autotune=off,runtime=oracle", estimate_scenario(1000.0));
    let c = &oracle.runs()[3];
    assert!(close(secs(c.first_start), 10.133334), "{}", secs(c.first_start));
    assert_eq!(c.tier.map(|t| t.0), Some(0));
    // Before any job has completed there is no estimate: C of `waiting_scenario` waits its
    // server timer in full (300 s; A frees server 0 at 10.133334 s), as in classical delay
    // scheduling, instead of the oracle's 90 s budget.
    let (cold, log) = run("dally:autotune=off", waiting_scenario(10.0));
    match first_wait(&log, 2) {
        Some((1.0, Reason::WaitingForTier { left_s, .. })) => assert_eq!(left_s, 300.0),
        other => panic!("C should wait for a server: {other:?}"),
    }
    assert!(close(secs(cold.runs()[2].first_start), 10.133334));
}

/// Every event strictly before `until`, as the JSON lines `proxima run --events` writes.
fn events_before(log: &Log, until: f64) -> Vec<String> {
    log.0
        .borrow()
        .iter()
        .take_while(|(t, _)| *t < until)
        .map(|(t, e)| format!("{t} {}", serde_json::to_string(e).unwrap()))
        .collect()
}

#[test]
fn dally_does_not_read_a_waiting_jobs_true_run_time() {
    // Two runs of the golden scenario's jobs on its cluster at 8:1 (where waits and
    // preemptions are frequent) that differ only in one job's true length: until that
    // job completes (in the run where it is shorter) nothing a real scheduler sees differs,
    // so every decision must be the same. The jobs checked are the first few that wait for a
    // tighter tier after some job has completed and whose length sways the oracle (their
    // budget, or a preemption for them, depends on it): the check has teeth.
    use proxima_core::cluster::JobId;
    use proxima_core::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
    let input = ScenarioInput::new(
        TopologyInput::Argument("racks=2,servers=2,gpus=4,oversub=8,fabric=tcp".into()),
        TraceInput::Synthetic("synthetic:jobs=600,load=2".into()),
        1,
    );
    let base = build_scenario(&input).unwrap();
    let twins = |policy: &str, job: JobId| {
        let mut longer = base.clone();
        longer.jobs[job.0 as usize].iterations *= 3.0;
        let (short, short_log) = run(policy, base.clone());
        let (_, long_log) = run(policy, longer);
        let until = secs(short.runs()[job.0 as usize].end);
        (events_before(&short_log, until), events_before(&long_log, until))
    };
    let (_, log) = run("dally:runtime=oracle", base.clone());
    let first_completion = log.0.borrow().iter().find(|(_, e)| matches!(e, SimEvent::Completed { .. })).unwrap().0;
    let waiting: Vec<JobId> = log
        .0
        .borrow()
        .iter()
        .filter_map(|(t, e)| match e {
            SimEvent::Waiting { job, reason: Reason::WaitingForTier { .. } } if *t > first_completion => Some(*job),
            _ => None,
        })
        .take(12)
        .collect();
    let swaying: Vec<JobId> = waiting
        .into_iter()
        .filter(|&job| {
            let (short, long) = twins("dally:runtime=oracle", job);
            short != long
        })
        .take(4)
        .collect();
    assert!(!swaying.is_empty(), "the oracle's decisions depend on some waiting job's length");
    for job in swaying {
        let (short, long) = twins("dally", job);
        assert!(short.len() > 100, "{} events before job {} ends", short.len(), job.0);
        if let Some(i) = (0..short.len().max(long.len())).find(|&i| short.get(i) != long.get(i)) {
            panic!("dally's runs part at event {i} (job {}):\n  {:?}\n  {:?}", job.0, short.get(i), long.get(i));
        }
    }
}
