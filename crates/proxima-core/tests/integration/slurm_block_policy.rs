//! `slurm:block=on` and `slurm:evict=on` on scenarios computed by hand. Clusters from
//! `cluster(racks, servers, gpus, 1.0)`: each rack's switch is a block, GPUs numbered server
//! by server, rack by rack, so block b holds GPUs 8b to 8b + 7 with two 4-GPU servers.
//!
//! Ties between blocks go to the later one, as upstream's `bnc <= block_node_cnt`
//! (`eval_nodes_block.c:672-679`): the first job on an empty cluster takes the last block.

use crate::common;

use common::build::{cluster, scenario};
use common::record::{close, run_logged as run, Log};
use proxima_core::event::{Reason, SimEvent};
use proxima_core::policy::resolve_policy;
use proxima_core::scenario::Scenario;
use proxima_core::topology::formats::{read_slurm_topology, SlurmOptions};
use proxima_core::topology::Topology;
use std::collections::BTreeSet;

const BLOCK_EXAMPLE: &str = include_str!("../../../../tests/fixtures/slurm/topology-block.conf");

/// Each placement of a job, in order.
fn gpus(log: &Log, job: u32) -> Vec<Vec<u32>> {
    let events = log.0.borrow();
    let placed = events.iter().filter_map(|(_, e)| match e {
        SimEvent::Placed { job: j, gpus, .. } if j.0 == job => Some(gpus.iter().map(|g| g.0).collect()),
        _ => None,
    });
    placed.collect()
}

fn placed_at(log: &Log, job: u32) -> f64 {
    let events = log.0.borrow();
    events.iter().find(|(_, e)| matches!(e, SimEvent::Placed { job: j, .. } if j.0 == job)).expect("placed").0
}

fn span(range: std::ops::RangeInclusive<u32>) -> Vec<u32> {
    range.collect()
}

#[test]
fn a_job_goes_to_the_fullest_block_that_holds_it() {
    // A (6) takes block 3, B (5) block 2 (blocks 0-2 tie at 8 free). C (2) goes where 2 are
    // left, block 3, not into an empty block; D (3) into block 2's last 3.
    let jobs = [(0.0, 6, 1000.0), (1.0, 5, 1000.0), (2.0, 2, 1000.0), (3.0, 3, 1000.0)];
    let (_, log) = run("slurm:block=on", scenario(cluster(4, 2, 4, 1.0), &jobs));
    assert_eq!(gpus(&log, 0), [span(24..=29)]);
    assert_eq!(gpus(&log, 1), [span(16..=20)]);
    assert_eq!(gpus(&log, 2), [vec![30, 31]]);
    assert_eq!(gpus(&log, 3), [vec![21, 22, 23]]);
}

/// Eight 4-GPU jobs fill the four blocks from the last (two a block); all but j2 (GPUs
/// 16-19) and j4 (8-11) end within 11 s. At 100 s X asks for 12 GPUs: free are 8 in block
/// 0, 4 in block 1, 4 in block 2, 8 in block 3.
fn pair_scenario() -> Scenario {
    let mut jobs: Vec<(f64, u32, f64)> =
        [10.0, 10.0, 1000.0, 10.0, 1000.0, 10.0, 10.0, 10.0].iter().map(|&it| (0.0, 4, it)).collect();
    jobs.push((100.0, 12, 1000.0));
    scenario(cluster(4, 2, 4, 1.0), &jobs)
}

#[test]
fn a_job_larger_than_a_block_takes_an_aligned_pair() {
    // X needs 2 blocks: the aligned pairs {0,1} and {2,3} hold 12 each, and the tie goes to
    // {2,3}. Inside it, the block with the most free first (block 3, all 8), then block 2's
    // 4, which holds the rest.
    let (_, log) = run("slurm:block=on", pair_scenario());
    let placed: Vec<Vec<u32>> = (0..8).map(|j| gpus(&log, j)[0].clone()).collect();
    assert_eq!(placed[0], span(24..=27));
    assert_eq!(placed[2], span(16..=19));
    assert_eq!(placed[4], span(8..=11));
    assert_eq!(gpus(&log, 8), [span(20..=31)]);
    // Tightest-free placement takes the two emptiest blocks, 0 and 3, which share no pair.
    let (_, log) = run("consolidate", pair_scenario());
    let blocks: BTreeSet<u32> = gpus(&log, 8)[0].iter().map(|g| g / 8).collect();
    assert_eq!(blocks, BTreeSet::from([0, 3]));
}

/// A (6 GPUs, long) takes block 1 (GPUs 8-13), B (6, 200 iterations) block 0 (0-5); C (4)
/// arrives at 2 s with 2 GPUs free in each block.
fn split_scenario() -> Scenario {
    scenario(cluster(2, 2, 4, 1.0), &[(0.0, 6, 100_000.0), (1.0, 6, 200.0), (2.0, 4, 1000.0)])
}

#[test]
fn with_a_timer_the_job_takes_the_tightest_free_at_exactly_wait_s() {
    let (_, log) = run("slurm:block=on,wait_s=50", split_scenario());
    assert_eq!(placed_at(&log, 2), 52.0);
    assert_eq!(gpus(&log, 2), [vec![6, 7, 14, 15]]);
    let events = log.0.borrow();
    let how = events.iter().find_map(|(_, e)| match e {
        SimEvent::Placed { job, reason, .. } if job.0 == 2 => Some(reason.clone()),
        _ => None,
    });
    assert!(matches!(how, Some(Reason::TimerExpired { waited_s, .. }) if waited_s == 50.0), "{how:?}");
}

#[test]
fn without_a_timer_the_job_waits_until_a_block_holds_it() {
    // Slurm's block plugin has no wait limit: C starts when B leaves block 0, on its first
    // server, and meanwhile waits with no timer.
    let (sim, log) = run("slurm:block=on", split_scenario());
    let b_end = sim.runs()[1].end.expect("B ends").as_secs_f64();
    assert!(b_end > 200.0);
    assert!(close(placed_at(&log, 2), b_end));
    assert_eq!(gpus(&log, 2), [span(0..=3)]);
    let events = log.0.borrow();
    let waiting = events.iter().find_map(|(_, e)| match e {
        SimEvent::Waiting { job, reason: Reason::WaitingForTier { left_s, .. } } if job.0 == 2 => Some(*left_s),
        _ => None,
    });
    assert!(waiting.is_some_and(f64::is_infinite), "{waiting:?}");
}

#[test]
fn slurms_block_example_read_from_topology_conf() {
    // topology.conf(5)'s example: four blocks of 32 nodes, BlockSizes=30,120 (a base block
    // and the four together: block_sizes=1/4). One GPU per node, so GPUs count as nodes.
    let options = SlurmOptions { gpus: 1, ..SlurmOptions::default() };
    let read = read_slurm_topology(BLOCK_EXAMPLE, &options).unwrap_or_else(|e| panic!("{e}"));
    let topo = Topology::from_spec(&read.spec).unwrap();
    // A (20 nodes): one base block, the last of four tying at 32 free: nodes 97-116.
    // B (40 nodes): two base blocks, so the level of four (there is no pair level), and at
    // most two blocks of it. The emptiest, block3, first; then, for the 8 left, the fullest
    // that holds them, block4 with its 12 free: nodes 65-96 and 117-124.
    // C (30 nodes): one base block, the fuller of block1 and block2 tying at 32: block2.
    let jobs = [(0.0, 20, 1000.0), (1.0, 40, 1000.0), (2.0, 30, 1000.0)];
    let (_, log) = run("slurm:block=on,block_sizes=1/4", scenario(topo, &jobs));
    assert_eq!(gpus(&log, 0), [span(96..=115)]);
    assert_eq!(gpus(&log, 1), [[span(64..=95), span(116..=123)].concat()]);
    assert_eq!(gpus(&log, 2), [span(32..=61)]);
}

#[test]
fn evict_moves_a_spread_job_back_when_room_appears_and_pays_restore_s() {
    // With no wait C starts spread at 2 s (GPUs 6, 7, 14, 15). When B ends, server 0 is
    // free: C is checkpointed there, restores 30 s and runs the rest at 1.015 s an
    // iteration (4 GPUs on one server: 1 + 2 × 3/4 × 1 GB / 100 GB/s).
    let spec = "slurm:block=on,wait_s=0,evict=on,min_run_s=0";
    let (sim, log) = run(spec, split_scenario());
    assert_eq!(gpus(&log, 2), [vec![6, 7, 14, 15], span(0..=3)]);
    let b_end = sim.runs()[1].end.expect("B ends").as_secs_f64();
    let events = log.0.borrow();
    let (moved_at, done) = events
        .iter()
        .find_map(|(t, e)| match e {
            SimEvent::Preempted { job, done_iterations, .. } if job.0 == 2 => Some((*t, *done_iterations)),
            _ => None,
        })
        .expect("C moved");
    assert!(close(moved_at, b_end));
    let c = &sim.runs()[2];
    assert_eq!((c.preemptions, c.restore_total.as_secs_f64()), (1, 30.0));
    let expect = b_end + 30.0 + (1000.0 - done) * 1.015;
    assert!((c.end.unwrap().as_secs_f64() - expect).abs() < 2e-6, "{:?} vs {expect}", c.end);
    drop(events);
    // Without eviction C stays where it started.
    let (_, log) = run("slurm:block=on,wait_s=0", split_scenario());
    assert_eq!(gpus(&log, 2), [vec![6, 7, 14, 15]]);
}

#[test]
fn runs_are_deterministic_and_specs_canonical() {
    let jobs: Vec<(f64, u32, f64)> =
        (0..30).map(|i| (i as f64 * 7.0, [1, 2, 4, 6, 8, 12, 16][i % 7], 50.0 + (i * 37 % 200) as f64)).collect();
    for spec in ["slurm:block=on", "slurm:block=on,block_sizes=1/4,wait_s=60,evict=on,min_run_s=0", "slurm:evict=on"] {
        let (a, log_a) = run(spec, scenario(cluster(4, 2, 4, 1.0), &jobs));
        let (_, log_b) = run(spec, scenario(cluster(4, 2, 4, 1.0), &jobs));
        assert_eq!(a.summary().jobs_unfinished, 0, "{spec}");
        assert_eq!(format!("{:?}", log_a.0.borrow()), format!("{:?}", log_b.0.borrow()), "{spec}");
        let canonical = resolve_policy(spec).unwrap().spec();
        assert_eq!(resolve_policy(&canonical).unwrap().spec(), canonical);
    }
    assert_eq!(resolve_policy("slurm:block=on").unwrap().spec(), "slurm:block=on,block_sizes=1/2/4/8/16,wait_s=off");
    assert_eq!(
        resolve_policy("slurm:evict=on").unwrap().spec(),
        "slurm:switches=1,wait_s=300,evict=on,restore_s=30,min_run_s=600,max_preempt=2"
    );
}

#[test]
fn option_combinations_that_make_no_sense_are_refused_on_their_field() {
    for (spec, field) in [
        ("slurm:block=on,switches=2", "switches"),
        ("slurm:block_sizes=1/2", "block_sizes"),
        ("slurm:block=on,block_sizes=2/4", "block_sizes"),
        ("slurm:block=on,block_sizes=1/3", "block_sizes"),
        ("slurm:block=on,block_sizes=1/4/2", "block_sizes"),
        ("slurm:wait_s=off", "wait_s"),
        ("slurm:evict=on,quota=on", "evict"),
        ("slurm:min_run_s=0", "min_run_s"),
        ("slurm:max_preempt=1", "max_preempt"),
    ] {
        let err = resolve_policy(spec).err().unwrap_or_else(|| panic!("{spec} accepted"));
        assert_eq!(err.field, field, "{spec}: {err}");
    }
}

#[test]
fn evict_makes_room_for_a_waiting_job() {
    // Eight 2-GPU jobs fill the four servers two a server; j1 and j5 end early, leaving 2
    // GPUs free in each rack. C (4 GPUs) arrives at 100 s and waits for one leaf switch.
    // With eviction, one 2-GPU job leaves a half-free server for the other, and C starts at
    // once on the server it vacated; without, C waits the 300 s, then spreads.
    let mut jobs: Vec<(f64, u32, f64)> =
        [1000.0, 10.0, 1000.0, 1000.0, 1000.0, 10.0, 1000.0, 1000.0].iter().map(|&it| (0.0, 2, it)).collect();
    jobs.push((100.0, 4, 1000.0));
    let (sim, log) = run("slurm:evict=on,min_run_s=0", scenario(cluster(2, 2, 4, 1.0), &jobs));
    assert_eq!(placed_at(&log, 8), 100.0);
    // Servers emptiest first, ties to the later: server 2 (j4 on 8-9, 10-11 free). j4 goes
    // to the best-fitting server outside it, server 0 (2-3 free), and C takes server 2.
    assert_eq!(gpus(&log, 8), [span(8..=11)]);
    assert_eq!(gpus(&log, 4), [vec![8, 9], vec![2, 3]]);
    let moved: Vec<u32> = (0..8).filter(|&j| sim.runs()[j as usize].preemptions > 0).collect();
    assert_eq!(moved, [4]);
    assert_eq!(sim.runs()[4].restore_total.as_secs_f64(), 30.0);
    let (_, log) = run("slurm", scenario(cluster(2, 2, 4, 1.0), &jobs));
    assert_eq!(placed_at(&log, 8), 400.0);
}

#[test]
fn a_tuned_wait_without_history_is_its_starting_value_under_either_plugin() {
    // Two racks of two 4-GPU servers; A and B (6 GPUs, long) take a rack each, C (4 GPUs)
    // finds 2 free in each. Nothing has completed: no run time can be estimated, so C waits
    // the tuner's starting 300 s for one leaf switch (or block), then spreads.
    let jobs = [(0.0, 6, 1000.0), (1.0, 6, 1000.0), (2.0, 4, 10.0)];
    for spec in ["slurm:wait_s=auto", "slurm:block=on,wait_s=auto"] {
        let (_, log) = run(spec, scenario(cluster(2, 2, 4, 1.0), &jobs));
        assert_eq!(placed_at(&log, 2), 302.0, "{spec}");
        assert_eq!(gpus(&log, 2), vec![vec![6, 7, 14, 15]], "{spec}");
    }
    assert_eq!(
        resolve_policy("slurm:wait_s=auto").unwrap().spec(),
        "slurm:switches=1,wait_s=auto,profile=table,profile_error=0"
    );
}
