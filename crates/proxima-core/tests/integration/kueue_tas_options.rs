//! `kueue-tas`'s two options that Kueue has not: a tuned time limit on a required level
//! (`required_for_s=auto`) and eviction to restore locality (`evict=on`), on scenarios
//! computed by hand. Clusters from `cluster(racks, servers, gpus, 1.0)`: GPUs numbered server
//! by server, rack by rack.

use crate::common;

use common::build::{cluster, scenario};
use common::record::{run_logged as run, Log};
use proxima_core::event::{PolicyNote, Reason, SimEvent};
use proxima_core::policy::resolve_policy;

fn placed(log: &Log, job: u32) -> Vec<(f64, Vec<u32>)> {
    log.0
        .borrow()
        .iter()
        .filter_map(|(t, e)| match e {
            SimEvent::Placed { job: j, gpus, .. } if j.0 == job => Some((*t, gpus.iter().map(|g| g.0).collect())),
            _ => None,
        })
        .collect()
}

fn preempted(log: &Log) -> Vec<(f64, u32, Reason)> {
    log.0
        .borrow()
        .iter()
        .filter_map(|(t, e)| match e {
            SimEvent::Preempted { job, reason, .. } => Some((*t, job.0, reason.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn the_options_parse_and_print_canonically() {
    let spec = |s: &str| resolve_policy(s).unwrap().spec();
    assert_eq!(
        spec("kueue-tas:required=rack,required_for_s=auto"),
        "kueue-tas:required=rack,queue=besteffort,required_for_s=auto,profile=table,profile_error=0"
    );
    assert_eq!(
        spec("kueue-tas:preferred=rack,evict=on,min_run_s=0"),
        "kueue-tas:preferred=rack,queue=besteffort,evict=on,restore_s=30,min_run_s=0,max_preempt=2"
    );
    let err = resolve_policy("kueue-tas:required=rack,required_for_s=soon").err().unwrap();
    assert_eq!(err.field, "required_for_s");
    assert!(err.message.contains("or auto"), "{}", err.message);
}

#[test]
fn a_tuned_limit_without_history_waits_its_starting_value() {
    // Two racks of two 4-GPU servers; A and B (6 GPUs each, long) take a rack each, C (4
    // GPUs) finds 2 free in each rack. Nothing has completed, so nothing is known of run
    // times: C waits the starting 300 s, then spreads.
    let jobs = [(0.0, 6, 1000.0), (1.0, 6, 1000.0), (2.0, 4, 10.0)];
    let (_, log) = run("kueue-tas:required=rack,required_for_s=auto", scenario(cluster(2, 2, 4, 1.0), &jobs));
    assert_eq!(placed(&log, 2), vec![(302.0, vec![6, 7, 14, 15])]);
}

#[test]
fn a_tuned_limit_caps_each_wait_by_what_the_job_stands_to_gain() {
    // Three 1-GPU jobs of 5 s complete first: a job is then expected to run about 5 s, so
    // waiting 300 s for a rack cannot pay. C spreads long before the fixed limit's 300 s.
    let jobs = [(0.0, 1, 5.0), (0.0, 1, 5.0), (0.0, 1, 5.0), (10.0, 6, 1000.0), (11.0, 6, 1000.0), (12.0, 4, 10.0)];
    let (_, tuned) = run("kueue-tas:required=rack,required_for_s=auto", scenario(cluster(2, 2, 4, 1.0), &jobs));
    let (_, fixed) = run("kueue-tas:required=rack,required_for_s=300", scenario(cluster(2, 2, 4, 1.0), &jobs));
    let tuned_start = placed(&tuned, 5)[0].0;
    assert!((12.0..312.0).contains(&tuned_start), "{tuned_start}");
    assert_eq!(placed(&fixed, 5)[0].0, 312.0);
}

#[test]
fn the_tuner_moves_the_limit_and_says_why() {
    // A busy teaching cluster of multi-GPU jobs, each required within one switch: the tuner
    // has waits to learn from; each move is a note with its evidence, at most a factor of two.
    let topo = proxima_core::topology::resolve_topology_arg("teaching").unwrap();
    let jobs: Vec<(f64, u32, f64)> =
        (0..400).map(|i| (i as f64 * 40.0, [2, 4, 3, 1][i % 4], 200.0 + (i % 7) as f64 * 100.0)).collect();
    let (sim, log) = run("kueue-tas:required=tightest,required_for_s=auto", scenario(topo, &jobs));
    assert_eq!(sim.summary().jobs_completed, 400);
    let log = log.0.borrow();
    let changes: Vec<&PolicyNote> = log
        .iter()
        .filter_map(|(_, e)| match e {
            SimEvent::Policy { note } => Some(note),
            _ => None,
        })
        .collect();
    assert!(!changes.is_empty(), "the limit never moved");
    for PolicyNote::TimerChanged { old_s, new_s, why, .. } in changes {
        assert!(old_s != new_s && *new_s >= 5.0 && *new_s <= 3600.0 && why.samples >= why.successes);
        assert!(*new_s <= old_s * 2.0 + 1e-9 && *new_s >= old_s / 2.0 - 1e-9);
    }
}

#[test]
fn eviction_moves_a_job_running_wider_than_its_level_back_into_one_domain() {
    // C (4 GPUs) prefers a rack and spreads at 2 s over both (2 free in each). When B (short)
    // leaves rack 1, C is checkpointed and moved into it, paying the 30 s restore.
    let jobs = [(0.0, 6, 1000.0), (1.0, 6, 10.0), (2.0, 4, 500.0)];
    let (sim, log) = run("kueue-tas:preferred=rack,evict=on,min_run_s=0", scenario(cluster(2, 2, 4, 1.0), &jobs));
    let b_end = sim.runs()[1].end.unwrap().as_secs_f64();
    let moves = placed(&log, 2);
    assert_eq!(moves[0], (2.0, vec![6, 7, 14, 15]));
    assert_eq!(moves.len(), 2, "{moves:?}");
    assert_eq!(moves[1].0, b_end);
    assert!(moves[1].1.iter().all(|g| (8..16).contains(g)), "{moves:?}");
    let p = preempted(&log);
    assert_eq!(p.len(), 1);
    assert!(matches!(p[0], (t, 2, Reason::Reconsolidating { cost_s, .. }) if t == b_end && cost_s == 30.0), "{p:?}");
    // Without eviction C stays spread; the guard rail min_run_s (600 s by default) stops a move
    // within C's first 10 minutes.
    for spec in ["kueue-tas:preferred=rack", "kueue-tas:preferred=rack,evict=on"] {
        let (_, log) = run(spec, scenario(cluster(2, 2, 4, 1.0), &jobs));
        assert_eq!(placed(&log, 2).len(), 1, "{spec}");
    }
}

#[test]
fn eviction_restores_the_level_asked_for_not_a_tighter_one() {
    // One rack of two 4-GPU servers: A (3) on server 0, B (3, short) on server 1, C (2) in
    // the rack's two last GPUs, one per server: inside its level. When B leaves, a server
    // could hold C, but C asked for the rack and has it: it is not moved. `consolidate`'s
    // migration, which knows only "tighter is better", does move it.
    let jobs = [(0.0, 3, 1000.0), (1.0, 3, 10.0), (2.0, 2, 500.0)];
    let (_, log) = run("kueue-tas:preferred=rack,evict=on,min_run_s=0", scenario(cluster(1, 2, 4, 1.0), &jobs));
    assert_eq!(placed(&log, 2), vec![(2.0, vec![3, 7])]);
    assert!(preempted(&log).is_empty());
    let (_, log) = run("consolidate:migrate=on,min_run_s=0", scenario(cluster(1, 2, 4, 1.0), &jobs));
    assert_eq!(placed(&log, 2).len(), 2);
}

#[test]
fn eviction_makes_room_for_a_job_its_level_cannot_hold() {
    // One rack of two 4-GPU servers. A and C (2 GPUs, long) run on servers 0 and 1, B left
    // server 0; D needs a whole server: 4 GPUs are free, 2 on each. Kueue would wait for A or
    // C to end; with eviction one of them moves next to the other and D starts at once.
    let jobs = [(0.0, 2, 1000.0), (1.0, 2, 5.0), (2.0, 2, 1000.0), (20.0, 4, 100.0)];
    let (_, plain) = run("kueue-tas:required=server", scenario(cluster(1, 2, 4, 1.0), &jobs));
    assert!(placed(&plain, 3)[0].0 > 1000.0);
    let (_, log) = run("kueue-tas:required=server,evict=on,min_run_s=0", scenario(cluster(1, 2, 4, 1.0), &jobs));
    let (start, gpus) = placed(&log, 3)[0].clone();
    assert_eq!(start, 20.0);
    assert!(gpus == vec![0, 1, 2, 3] || gpus == vec![4, 5, 6, 7], "{gpus:?}");
    let p = preempted(&log);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(matches!(p[0], (20.0, 0 | 2, Reason::PreemptedFor { for_job, .. }) if for_job.0 == 3), "{p:?}");
}
