//! `kueue-tas` on scenarios computed by hand: a required level is never crossed, a preferred
//! one widens at once, BestFit takes the fullest domain that holds a job, unconstrained
//! requests fill the fullest servers first, and BestEffortFIFO lets a job that fits pass a
//! head that does not. Clusters from `cluster(racks, servers, gpus, 1.0)`: GPUs numbered
//! server by server, rack by rack.

use crate::common;

use common::build::{cluster, scenario};
use common::record::{run_logged as run, Log};
use proxima_core::engine::Simulation;
use proxima_core::event::SimEvent;
use proxima_core::policy::kueue_tas::resolve_level;
use proxima_core::policy::resolve_policy;
use proxima_core::topology::formats::{read_kueue_topology, KueueOptions};
use proxima_core::topology::{Tier, Topology};

const KUEUE_CLUSTER: &str = include_str!("../../../../tests/fixtures/kueue/cluster.yaml");

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

/// Two racks of two 4-GPU servers. A (6 GPUs, long) takes rack 0 (GPUs 0-5), B (6 GPUs,
/// short) rack 1 (8-13). C (4 GPUs) arrives at 2 s: 4 GPUs are free, 2 in each rack.
fn split_racks() -> proxima_core::scenario::Scenario {
    scenario(cluster(2, 2, 4, 1.0), &[(0.0, 6, 1000.0), (1.0, 6, 10.0), (2.0, 4, 10.0)])
}

#[test]
fn a_required_level_is_never_crossed_and_the_job_starts_when_one_domain_has_room() {
    let (sim, log) = run("kueue-tas:required=rack", split_racks());
    assert_eq!(placement_of(&log, 0), (0.0, vec![0, 1, 2, 3, 4, 5]));
    assert_eq!(placement_of(&log, 1), (1.0, vec![8, 9, 10, 11, 12, 13]));
    // C waits although 4 GPUs are free, until B leaves rack 1.
    let b_end = sim.runs()[1].end.expect("B ends").as_secs_f64();
    assert!(b_end > 2.0);
    let (start, gpus) = placement_of(&log, 2);
    assert_eq!(start, b_end);
    assert!(gpus.iter().all(|&g| (8..16).contains(&g)), "{gpus:?}");
}

#[test]
fn a_preferred_level_widens_at_once() {
    let (_, log) = run("kueue-tas:preferred=rack", split_racks());
    // No rack holds C's 4 GPUs: the cluster does, now, across both racks.
    assert_eq!(placement_of(&log, 2), (2.0, vec![6, 7, 14, 15]));
    assert!(log.0.borrow().iter().any(|(_, e)| matches!(e, SimEvent::Placed { job, tier, .. }
        if job.0 == 2 && *tier == Tier(2))));
    // The default is preferred at the tightest switch tier: the same run.
    let (_, default_log) = run("kueue-tas", split_racks());
    assert_eq!(placements(&default_log), placements(&log));
}

#[test]
fn best_fit_takes_the_fullest_domain_that_holds_the_job() {
    // Servers: A (3) on server 0, B (2) on server 1, C (1) into server 0's last GPU, D (2)
    // into server 1's last two, not onto an empty server.
    let jobs = [(0.0, 3, 1000.0), (1.0, 2, 1000.0), (2.0, 1, 1000.0), (3.0, 2, 1000.0)];
    let (_, log) = run("kueue-tas:preferred=server", scenario(cluster(2, 2, 4, 1.0), &jobs));
    let got: Vec<Vec<u32>> = placements(&log).into_iter().map(|p| p.2).collect();
    assert_eq!(got, vec![vec![0, 1, 2], vec![4, 5], vec![3], vec![6, 7]]);
    // Racks: A (5) fills rack 0 but 3 GPUs, B (2) goes into those, not into the empty rack.
    let jobs = [(0.0, 5, 1000.0), (1.0, 2, 1000.0)];
    let (_, log) = run("kueue-tas:required=rack", scenario(cluster(2, 2, 4, 1.0), &jobs));
    let got: Vec<Vec<u32>> = placements(&log).into_iter().map(|p| p.2).collect();
    assert_eq!(got, vec![vec![0, 1, 2, 3, 4], vec![5, 6]]);
}

#[test]
fn unconstrained_fills_the_fullest_servers_first_and_best_fit_the_emptiest() {
    // Three 4-GPU servers: A (3) on server 0, B (2) on server 1; free 1, 2, 4. C (5) fits on
    // no server. LeastFreeCapacity takes server 0's 1, server 1's 2, then 2 of server 2.
    let jobs = [(0.0, 3, 1000.0), (1.0, 2, 1000.0), (2.0, 5, 1000.0)];
    let (_, log) = run("kueue-tas:unconstrained=on", scenario(cluster(1, 3, 4, 1.0), &jobs));
    assert_eq!(placement_of(&log, 2), (2.0, vec![3, 6, 7, 8, 9]));
    // BestFit, preferred: server 2's 4, then the best fit for the last one, server 0.
    let (_, log) = run("kueue-tas:preferred=server", scenario(cluster(1, 3, 4, 1.0), &jobs));
    assert_eq!(placement_of(&log, 2), (2.0, vec![3, 8, 9, 10, 11]));
}

#[test]
fn best_effort_lets_a_job_that_fits_pass_the_head_and_strict_does_not() {
    // Two 4-GPU servers: A (3) and B (3) take one each; C (2) fits on no server; D (1) does.
    let jobs = [(0.0, 3, 1000.0), (1.0, 3, 500.0), (2.0, 2, 10.0), (3.0, 1, 10.0)];
    let (_, log) = run("kueue-tas:required=server", scenario(cluster(1, 2, 4, 1.0), &jobs));
    assert_eq!(placement_of(&log, 3).0, 3.0);
    let (sim, log) = run("kueue-tas:required=server,queue=strict", scenario(cluster(1, 2, 4, 1.0), &jobs));
    let b_end = sim.runs()[1].end.expect("B ends").as_secs_f64();
    assert_eq!(placement_of(&log, 2).0, b_end);
    assert_eq!(placement_of(&log, 3).0, b_end);
}

#[test]
fn a_required_level_with_a_timer_turns_preferred_when_it_runs_out() {
    // As in the required test, C waits for a rack; after 5 s it takes the 4 GPUs across racks.
    let (_, log) = run("kueue-tas:required=rack,required_for_s=5", split_racks());
    assert_eq!(placement_of(&log, 2), (7.0, vec![6, 7, 14, 15]));
}

#[test]
fn the_same_run_twice_gives_the_same_events() {
    for spec in ["kueue-tas", "kueue-tas:required=rack", "kueue-tas:unconstrained=on,queue=strict"] {
        let jobs = [(0.0, 3, 100.0), (1.0, 5, 50.0), (1.0, 2, 80.0), (4.0, 7, 20.0), (5.0, 1, 30.0)];
        let (_, a) = run(spec, scenario(cluster(2, 2, 4, 1.0), &jobs));
        let (_, b) = run(spec, scenario(cluster(2, 2, 4, 1.0), &jobs));
        assert_eq!(format!("{:?}", a.0.borrow()), format!("{:?}", b.0.borrow()), "{spec}");
    }
}

fn kueue_cluster() -> Topology {
    Topology::from_spec(&read_kueue_topology(KUEUE_CLUSTER, &KueueOptions::default()).unwrap().spec).unwrap()
}

#[test]
fn levels_are_the_kueue_files_node_labels_or_the_generic_tier_names() {
    let topo = kueue_cluster();
    assert_eq!(resolve_level(&topo, "required", "kubernetes.io/hostname").unwrap(), Tier(0));
    assert_eq!(resolve_level(&topo, "required", "cloud.provider.com/topology-rack").unwrap(), Tier(1));
    assert_eq!(resolve_level(&topo, "required", "cloud.provider.com/topology-block").unwrap(), Tier(2));
    assert_eq!(resolve_level(&topo, "required", "rack").unwrap(), Tier(1));
    let e = resolve_level(&topo, "required", "topology-rack").unwrap_err().to_string();
    assert!(e.contains("required") && e.contains("cloud.provider.com/topology-rack"), "{e}");
    let parametric = cluster(2, 2, 4, 1.0);
    assert_eq!(resolve_level(&parametric, "preferred", "rack").unwrap(), Tier(1));
    assert!(resolve_level(&parametric, "preferred", "cloud.provider.com/topology-rack").is_err());
}

#[test]
fn a_required_rack_of_the_kueue_file_keeps_each_job_in_one_rack() {
    // Racks of two 8-GPU nodes: three 12-GPU jobs each get a rack of their own.
    let jobs = [(0.0, 12, 100.0), (1.0, 12, 100.0), (2.0, 12, 100.0)];
    let (_, log) = run("kueue-tas:required=cloud.provider.com/topology-rack", scenario(kueue_cluster(), &jobs));
    let tiers: Vec<Tier> = log
        .0
        .borrow()
        .iter()
        .filter_map(|(_, e)| match e {
            SimEvent::Placed { tier, .. } => Some(*tier),
            _ => None,
        })
        .collect();
    assert_eq!(tiers, vec![Tier(1); 3]);
}

#[test]
#[should_panic(expected = "unknown topology level 'block'")]
fn an_unknown_level_stops_the_run_at_its_first_decision_naming_the_levels() {
    let mut sim = Simulation::new(split_racks(), resolve_policy("kueue-tas:required=block").unwrap());
    sim.run();
}

#[test]
fn a_caller_can_check_the_level_against_the_cluster_before_the_run() {
    let policy = resolve_policy("kueue-tas:preferred=cloud.provider.com/topology-block").unwrap();
    assert!(policy.check_cluster(&kueue_cluster()).is_ok());
    let e = policy.check_cluster(&cluster(2, 2, 4, 1.0)).unwrap_err().to_string();
    assert!(e.starts_with("preferred: unknown topology level"), "{e}");
    assert!(resolve_policy("kueue-tas").unwrap().check_cluster(&cluster(1, 1, 1, 1.0)).is_ok());
}
