//! `volcano` on scenarios computed by hand: a hard tier is never crossed, soft widens at
//! once, the fullest HyperNode that holds a job wins and inside it the fullest server,
//! `hard_for_s` turns hard into soft at its deadline, `evict=on` moves a spread job back, and
//! the user guide's s0..s6 cluster read from its fixture. Clusters from
//! `cluster(racks, servers, gpus, 1.0)`: GPUs numbered server by server, rack by rack; a
//! rack is a tier-1 HyperNode.

use crate::common;

use common::build::{cluster, scenario};
use common::record::{run_logged as run, Log};
use proxima_core::engine::Simulation;
use proxima_core::event::{Reason, SimEvent};
use proxima_core::policy::resolve_policy;
use proxima_core::policy::volcano::resolve_tier;
use proxima_core::scenario::Scenario;
use proxima_core::topology::formats::{read_volcano_topology, VolcanoOptions};
use proxima_core::topology::{Tier, Topology};

const GUIDE_CLUSTER: &str = include_str!("../../../../tests/fixtures/volcano/hypernodes.yaml");

/// Each placement of a run: (time, job, GPUs).
fn placements(log: &Log) -> Vec<(f64, u32, Vec<u32>)> {
    log.0
        .borrow()
        .iter()
        .filter_map(|(t, e)| match e {
            SimEvent::Placed { job, gpus, .. } => Some((*t, job.0, gpus.iter().map(|g| g.0).collect())),
            _ => None,
        })
        .collect()
}

fn placement_of(log: &Log, job: u32) -> (f64, Vec<u32>) {
    let all = placements(log);
    let (t, _, gpus) = all.into_iter().find(|p| p.1 == job).unwrap_or_else(|| panic!("job {job} never placed"));
    (t, gpus)
}

fn end_of(sim: &Simulation, job: usize) -> f64 {
    sim.runs()[job].end.expect("the job ends").as_secs_f64()
}

/// Two racks of two 4-GPU servers. A (6 GPUs, long) takes rack 0 (GPUs 0-5), B (6 GPUs,
/// short) rack 1 (8-13). C (4 GPUs) arrives at 2 s: 4 GPUs are free, 2 in each rack.
fn split_racks() -> Scenario {
    scenario(cluster(2, 2, 4, 1.0), &[(0.0, 6, 1000.0), (1.0, 6, 10.0), (2.0, 4, 10.0)])
}

#[test]
fn a_hard_tier_is_never_crossed_while_enough_gpus_are_free_across_hypernodes() {
    let (sim, log) = run("volcano:hard=1", split_racks());
    assert_eq!(placement_of(&log, 0), (0.0, (0..6).collect()));
    assert_eq!(placement_of(&log, 1), (1.0, (8..14).collect()));
    // C waits with 4 GPUs free until B leaves rack 1, then takes its first empty server.
    let b_end = end_of(&sim, 1);
    assert!(b_end > 2.0);
    assert_eq!(placement_of(&log, 2), (b_end, vec![8, 9, 10, 11]));
    // The tier's name from the cluster is the same tier.
    let (_, by_name) = run("volcano:hard=rack", split_racks());
    assert_eq!(placements(&by_name), placements(&log));
}

#[test]
fn soft_widens_at_once() {
    let (_, log) = run("volcano:soft=on", split_racks());
    // No rack holds C: the cluster does, now. Servers 1 and 3 are equally full: server 1 by
    // node order, then the rest on server 3.
    assert_eq!(placement_of(&log, 2), (2.0, vec![6, 7, 14, 15]));
    assert!(log.0.borrow().iter().any(|(_, e)| matches!(e, SimEvent::Placed { job, tier, .. }
        if job.0 == 2 && *tier == Tier(2))));
    let (_, default_log) = run("volcano", split_racks());
    assert_eq!(placements(&default_log), placements(&log));
}

#[test]
fn the_fullest_hypernode_that_holds_the_job_wins_and_inside_it_the_fullest_server() {
    // A (5) takes rack 0 but 3 GPUs. B (2) scores 7/8 there and 2/8 in the empty rack: it
    // goes into rack 0 (the guide's section 2.5: pack the busier HyperNode).
    let jobs = [(0.0, 5, 1000.0), (1.0, 2, 1000.0)];
    let (_, log) = run("volcano:hard=1", scenario(cluster(2, 2, 4, 1.0), &jobs));
    assert_eq!(placement_of(&log, 1), (1.0, vec![5, 6]));
    // A (3) on server 0. B (4) goes into rack 0, pod by pod: the fullest server first (server
    // 0's last GPU), then server 1, although server 1 alone would hold B.
    let jobs = [(0.0, 3, 1000.0), (1.0, 4, 1000.0)];
    let (_, log) = run("volcano:hard=1", scenario(cluster(2, 2, 4, 1.0), &jobs));
    assert_eq!(placement_of(&log, 0), (0.0, vec![0, 1, 2]));
    assert_eq!(placement_of(&log, 1), (1.0, vec![3, 4, 5, 6]));
}

#[test]
fn hard_for_s_turns_hard_into_soft_exactly_at_the_deadline() {
    let (_, log) = run("volcano:hard=1,hard_for_s=5", split_racks());
    assert_eq!(placement_of(&log, 2), (7.0, vec![6, 7, 14, 15]));
    let reason = log.0.borrow().iter().find_map(|(_, e)| match e {
        SimEvent::Placed { job, reason, .. } if job.0 == 2 => Some(reason.clone()),
        _ => None,
    });
    assert!(matches!(reason, Some(Reason::TimerExpired { tier: Tier(2), waited_s, .. }) if waited_s == 5.0));
}

#[test]
fn evict_moves_a_spread_job_back_when_room_appears_and_it_pays_the_restore() {
    let (sim, log) = run("volcano:evict=on,min_run_s=0", split_racks());
    assert_eq!(placement_of(&log, 2), (2.0, vec![6, 7, 14, 15]));
    // When B leaves, server 2 is empty: C moves there, checkpointed at a 30 s restore.
    let b_end = end_of(&sim, 1);
    let moves: Vec<(f64, Vec<u32>)> = placements(&log).into_iter().filter(|p| p.1 == 2).map(|p| (p.0, p.2)).collect();
    assert_eq!(moves, vec![(2.0, vec![6, 7, 14, 15]), (b_end, vec![8, 9, 10, 11])]);
    let cost = log.0.borrow().iter().find_map(|(t, e)| match e {
        SimEvent::Preempted { job, reason: Reason::Reconsolidating { cost_s, .. }, .. } if job.0 == 2 => {
            Some((*t, *cost_s))
        }
        _ => None,
    });
    assert_eq!(cost, Some((b_end, 30.0)));
    assert!(end_of(&sim, 2) > b_end + 30.0);
    // Without eviction C stays spread and never pays a restore.
    let (plain, _) = run("volcano", split_racks());
    assert_eq!(plain.runs()[2].preemptions, 0);
    assert!(end_of(&plain, 2) < b_end + 30.0);
}

#[test]
fn the_same_run_twice_gives_the_same_events() {
    for spec in ["volcano", "volcano:hard=1", "volcano:hard=1,hard_for_s=3,evict=on,min_run_s=0"] {
        let jobs = [(0.0, 3, 100.0), (1.0, 5, 50.0), (1.0, 2, 80.0), (4.0, 7, 20.0), (5.0, 1, 30.0)];
        let (_, a) = run(spec, scenario(cluster(2, 2, 4, 1.0), &jobs));
        let (_, b) = run(spec, scenario(cluster(2, 2, 4, 1.0), &jobs));
        assert_eq!(format!("{:?}", a.0.borrow()), format!("{:?}", b.0.borrow()), "{spec}");
    }
}

/// The user guide's tree (section 2.1): s0..s3 (`rack`) over node0..node7 two by two, s4
/// and s5 (`zone`) over two of them each, s6 at the top; 8 GPUs a node, node k holding GPUs
/// 8k..8k+8.
fn guide_cluster() -> Topology {
    Topology::from_spec(&read_volcano_topology(GUIDE_CLUSTER, &VolcanoOptions::default()).unwrap().spec).unwrap()
}

#[test]
fn the_guides_tiers_are_its_numbers_and_tier_names() {
    let topo = guide_cluster();
    assert_eq!(resolve_tier(&topo, "hard", "zone").unwrap(), Tier(2));
    assert_eq!(resolve_tier(&topo, "hard", "2").unwrap(), Tier(2));
    assert_eq!(resolve_tier(&topo, "hard", "tier-3").unwrap(), Tier(3));
    let e = resolve_policy("volcano:hard=block").unwrap().check_cluster(&topo).unwrap_err().to_string();
    assert!(e.starts_with("hard: unknown HyperNode tier 'block'"), "{e}");
    assert!(e.contains("1 (rack), 2 (zone), 3 (tier-3)"), "{e}");
    for bad in ["server", "0", "4"] {
        assert!(resolve_tier(&topo, "hard", bad).is_err(), "{bad}");
    }
    assert!(resolve_policy("volcano").unwrap().check_cluster(&cluster(1, 1, 1, 1.0)).is_ok());
}

#[test]
fn on_the_guides_cluster_a_job_held_to_a_zone_waits_for_one_zone() {
    // Section 2.3: with highestTierAllowed 2 a job stays within s4 or s5 (or a HyperNode
    // below), else pending. J0 (24 GPUs) fits in no rack: s4, the first of the equally empty
    // zones, on node0, node1 (s0, closer) and node2. J1 (24) fits only in s5. J2 (16) finds
    // node3 and node7 free, 16 GPUs in two zones, and waits until J0 leaves: then s0.
    let jobs = [(0.0, 24, 100.0), (1.0, 24, 1000.0), (2.0, 16, 10.0)];
    let guide = || scenario(guide_cluster(), &jobs);
    let (sim, log) = run("volcano:hard=zone", guide());
    assert_eq!(placement_of(&log, 0), (0.0, (0..24).collect()));
    assert_eq!(placement_of(&log, 1), (1.0, (32..56).collect()));
    assert_eq!(placement_of(&log, 2), (end_of(&sim, 0), (0..16).collect()));
    let (_, by_number) = run("volcano:hard=2", guide());
    assert_eq!(placements(&by_number), placements(&log));
    // Soft: J2 at once, across the zones under s6.
    let (_, soft) = run("volcano", guide());
    assert_eq!(placement_of(&soft, 2), (2.0, (24..32).chain(56..64).collect()));
}

#[test]
#[should_panic(expected = "unknown HyperNode tier 'zone'")]
fn an_unknown_tier_stops_an_unchecked_run_at_its_first_decision() {
    let mut sim = Simulation::new(split_racks(), resolve_policy("volcano:hard=zone").unwrap());
    sim.run();
}

#[test]
fn contradictory_options_are_refused() {
    for (spec, field) in [
        ("volcano:hard=1,soft=on", "soft"),
        ("volcano:soft=off", "soft"),
        ("volcano:hard_for_s=5", "hard_for_s"),
        ("volcano:hard=", "hard"),
    ] {
        let e = resolve_policy(spec).err().unwrap_or_else(|| panic!("{spec} accepted")).to_string();
        assert!(e.starts_with(field), "{spec}: {e}");
    }
    assert_eq!(
        resolve_policy("volcano:hard=zone,evict=on").unwrap().spec(),
        "volcano:hard=zone,hard_for_s=off,evict=on,restore_s=30,min_run_s=600,max_preempt=2"
    );
}

#[test]
fn a_tuned_limit_on_the_hard_tier_without_history_waits_its_starting_value() {
    // As in kueue-tas: nothing has completed, so the job waits the tuner's starting 300 s.
    let jobs = [(0.0, 6, 1000.0), (1.0, 6, 1000.0), (2.0, 4, 10.0)];
    let (_, log) = run("volcano:hard=1,hard_for_s=auto", scenario(cluster(2, 2, 4, 1.0), &jobs));
    let start = log.0.borrow().iter().find_map(|(t, e)| match e {
        SimEvent::Placed { job, .. } if job.0 == 2 => Some(*t),
        _ => None,
    });
    assert_eq!(start, Some(302.0));
    assert_eq!(
        resolve_policy("volcano:hard=1,hard_for_s=auto").unwrap().spec(),
        "volcano:hard=1,hard_for_s=auto,profile=table,profile_error=0,evict=off"
    );
}
