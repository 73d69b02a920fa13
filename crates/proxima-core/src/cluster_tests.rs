//! Tests of the cluster state: allocation, free counts per tier, link shares.

use super::*;
use crate::maxmin::Flow;
use crate::topology::resolve_topology_arg;

#[test]
fn tightest_placement_prefers_one_server_then_best_fit() {
    let t = resolve_topology_arg("teaching").unwrap(); // 4 servers x 4 GPUs
    let mut c = ClusterState::new(&t);
    assert_eq!(c.free_count(), 16);
    // Take 3 GPUs of server 0: it has 1 left.
    c.allocate(&t, JobId(0), &[GpuId(0), GpuId(1), GpuId(2)]);
    assert_eq!(c.max_free_at(Tier(0)), 4);
    // A 1-GPU job best-fits into server 0's last GPU rather than opening a fresh server.
    let (tier, g) = c.place_tightest(&t, 1).unwrap();
    assert_eq!((tier, g), (Tier(0), vec![GpuId(3)]));
    // A 6-GPU job cannot fit one server; rack 0 has 1 + 4 free, rack 1 has 8: best fit
    // is rack 1 (rack 0 holds only 5), spread over its two servers, fullest first.
    let (tier, g) = c.place_tightest(&t, 6).unwrap();
    assert_eq!(tier, Tier(1));
    assert_eq!(g, vec![GpuId(8), GpuId(9), GpuId(10), GpuId(11), GpuId(12), GpuId(13)]);
    // Thirteen GPUs only fit the whole cluster.
    assert_eq!(c.place_tightest(&t, 13).unwrap().0, Tier(2));
    assert!(c.place_tightest(&t, 14).is_none());
}

#[test]
fn release_restores_counts_and_first_fit_is_index_order() {
    let t = resolve_topology_arg("teaching").unwrap();
    let mut c = ClusterState::new(&t);
    c.allocate(&t, JobId(1), &[GpuId(1), GpuId(5), GpuId(9)]);
    assert_eq!(c.first_free(3).unwrap(), vec![GpuId(0), GpuId(2), GpuId(3)]);
    assert_eq!(c.owner(GpuId(5)), Some(JobId(1)));
    assert_eq!(c.free_under(t.root()), 13);
    c.release(&t, &[GpuId(1), GpuId(5), GpuId(9)]);
    assert_eq!(c.free_under(t.root()), 16);
    assert_eq!(c.max_free_at(Tier(1)), 8);
    assert!(c.first_free(17).is_none());
}

#[test]
fn rings_count_per_link_and_share_max_min() {
    let t = resolve_topology_arg("teaching").unwrap();
    let mut c = ClusterState::new(&t);
    let l = [LinkId(3), LinkId(4)];
    c.add_ring(JobId(0), &l, 1e9);
    c.add_ring(JobId(1), &l[..1], 1e9);
    assert_eq!(c.jobs_on(LinkId(3)), 2);
    assert_eq!(c.remove_ring(JobId(0)), l.to_vec());
    assert_eq!(c.jobs_on_link(LinkId(3)), &[JobId(1)]);
    assert_eq!(c.jobs_on(LinkId(4)), 0);
    assert_eq!(c.mean_jobs_at_level(1), 0.0);
    assert!(c.remove_ring(JobId(7)).is_empty(), "a job without a ring has nothing to remove");
    // One job on one server NIC (level 1): the teaching cluster has four of them.
    let nic = t.node(t.servers()[0]).uplink.unwrap();
    c.add_ring(JobId(2), &[nic], 1e9);
    assert_eq!(c.mean_jobs_at_level(1), 0.25);
}

#[test]
fn reshare_moves_rings_coupled_through_other_links() {
    // The teaching cluster's NICs carry 25 GB/s. Rings are given links by hand to build a
    // chain A - NIC 1 - B - NIC 2 - C, with caps that never bind.
    let t = resolve_topology_arg("teaching").unwrap();
    let mut c = ClusterState::new(&t);
    let nic = |s: usize| t.node(t.servers()[s]).uplink.unwrap();
    let cap = 100e9;
    // A on NIC 0 and NIC 1; B on NIC 1 and NIC 2; C on NIC 2.
    c.add_ring(JobId(0), &[nic(0), nic(1)], cap);
    c.add_ring(JobId(1), &[nic(1), nic(2)], cap);
    let mut moved = Vec::new();
    c.reshare(&[nic(0), nic(1), nic(2)], &mut moved);
    // NIC 1 binds A and B at 12.5 GB/s each.
    assert_eq!((c.ring_rate(JobId(0)), c.ring_rate(JobId(1))), (12.5e9, 12.5e9));
    assert_eq!(moved, vec![JobId(0), JobId(1)]);
    // C joins NIC 2 only; re-solving from NIC 2 alone still reaches A through B. NIC 2
    // carries B and C; NIC 1 carries A and B: all three get 12.5 GB/s and nothing moves
    // but C.
    c.add_ring(JobId(2), &[nic(2)], cap);
    moved.clear();
    c.reshare(&[nic(2)], &mut moved);
    assert_eq!(moved, vec![JobId(2)]);
    assert_eq!(c.ring_rate(JobId(2)), 12.5e9);
    // B leaves: re-solving from its links frees A (NIC 0 and NIC 1 alone: 25 GB/s) and C.
    let links = c.remove_ring(JobId(1));
    moved.clear();
    c.reshare(&links, &mut moved);
    assert_eq!(moved, vec![JobId(0), JobId(2)]);
    assert_eq!((c.ring_rate(JobId(0)), c.ring_rate(JobId(2))), (25e9, 25e9));
    assert_eq!(c.ring_rate(JobId(1)), f64::INFINITY, "no ring any more");
    // A newcomer on NIC 0 would split it with A: 12.5 GB/s, or its cap if lower.
    assert_eq!(c.estimate_new_ring(&[nic(0)], 100e9), 12.5e9);
    assert_eq!(c.estimate_new_ring(&[nic(0)], 5e9), 5e9);
    assert_eq!(c.link_share_for_new_ring(nic(3)), 25e9);
}

#[test]
fn incremental_reshares_match_a_full_solve() {
    // Random rings come and go on a 4-rack cluster; after each change, re-solving only
    // the coupled component must give every ring the rate a solve of all rings gives.
    let t = resolve_topology_arg("racks=4,servers=4,gpus=2,oversub=2").unwrap();
    let mut c = ClusterState::new(&t);
    let mut rng = crate::rng::Rng::new(5);
    let mut live: Vec<JobId> = Vec::new();
    for step in 0..400u32 {
        let mut moved = Vec::new();
        if live.len() > 12 || (!live.is_empty() && rng.below(3) == 0) {
            let j = live.swap_remove(rng.below(live.len() as u64) as usize);
            let links = c.remove_ring(j);
            c.reshare(&links, &mut moved);
        } else {
            let mut servers: Vec<NodeId> = (0..2 + rng.below(3)).map(|_| t.servers()[rng.below(16) as usize]).collect();
            servers.sort_unstable();
            servers.dedup();
            let mut links = Vec::new();
            t.inter_server_links(&servers, &mut links);
            let j = JobId(step);
            // Caps from a tenth of a NIC to more than one, so that links bind or not.
            c.add_ring(j, &links, 25e9 * (1 + rng.below(12)) as f64 / 10.0);
            c.reshare(&links, &mut moved);
            live.push(j);
        }
        // The full solve: every live ring over every link.
        let mut all = live.clone();
        all.sort_unstable();
        let sets: Vec<Vec<u32>> =
            all.iter().map(|j| c.rings[j.0 as usize].as_ref().unwrap().links.iter().map(|l| l.0).collect()).collect();
        let flows: Vec<Flow> = all
            .iter()
            .zip(&sets)
            .map(|(j, l)| Flow { cap: c.rings[j.0 as usize].as_ref().unwrap().cap, links: l })
            .collect();
        let mut rates = Vec::new();
        MaxMinSolver::default().solve(&c.link_capacity, &flows, &mut rates);
        for (j, r) in all.iter().zip(&rates) {
            let got = c.ring_rate(*j);
            assert!((got - r).abs() <= 1e-6 * r, "step {step}: job {} has {got}, a full solve gives {r}", j.0);
        }
    }
}
