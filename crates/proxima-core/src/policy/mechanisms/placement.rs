//! Placement rules the baselines share, besides the cluster's own tightest placement
//! ([`ClusterState::place_tightest`]) and first fit ([`ClusterState::first_free`]):
//!
//! - the tightest tier a job could ever get ([`TierCapacity`]), which `strict` waits for and
//!   migration aims at;
//! - most free servers first ([`most_free`]), the rule of the Pollux artifact's Tiresias;
//! - uniformly random free GPUs ([`random_free`]), the `random` reference;
//! - the contention-free slowdown of a spread placement ([`spread_slowdown`]), the test by
//!   which `tiresias` decides whether a job must be consolidated;
//! - the jobs holding GPUs under a node, and how many ([`holders_under`]), from which
//!   preemption and migration choose what to move out of it.

use crate::cluster::{ClusterState, JobId};
use crate::rng::Rng;
use crate::topology::{GpuId, NodeId, NodeKind, Tier, Topology};
use crate::workload::{uncontended_shape, Job};
use crate::{comm_params::CommParams, model::Catalog};
use std::collections::BTreeMap;

/// Per tier, the largest group of GPUs one node of that tier holds: the tightest tier a job
/// of `n` GPUs fits in on an empty cluster.
#[derive(Clone, Debug)]
pub struct TierCapacity {
    max_gpus: Vec<u32>,
}

impl TierCapacity {
    pub fn new(topo: &Topology) -> TierCapacity {
        let max_gpus = (0..topo.tier_count())
            .map(|t| topo.tier_nodes(Tier(t)).iter().map(|&n| topo.node(n).gpu_count).max().unwrap_or(0))
            .collect();
        TierCapacity { max_gpus }
    }

    /// The tightest tier that can hold `n` GPUs at all (`None`: larger than the cluster).
    pub fn base(&self, n: u32) -> Option<Tier> {
        self.max_gpus.iter().position(|&c| c >= n).map(|t| Tier(t as u8))
    }
}

/// Whether `node` lies in the subtree of `ancestor` (GPUs of a subtree are contiguous).
pub fn inside(topo: &Topology, node: NodeId, ancestor: NodeId) -> bool {
    let (n, a) = (topo.node(node), topo.node(ancestor));
    n.first_gpu >= a.first_gpu && n.first_gpu + n.gpu_count <= a.first_gpu + a.gpu_count
}

/// The first `k` free GPUs of a server, in index order, skipping the first `skip` of them.
pub fn free_on_server(cluster: &ClusterState, topo: &Topology, server: NodeId, skip: u32, k: u32) -> Vec<GpuId> {
    let n = topo.node(server);
    (n.first_gpu..n.first_gpu + n.gpu_count)
        .map(GpuId)
        .filter(|&g| cluster.is_free(g))
        .skip(skip as usize)
        .take(k as usize)
        .collect()
}

/// `n` GPUs taken from the servers with the most free GPUs first (ties to the lower server
/// index), each server's free GPUs in index order. This is the allocation loop of the Pollux
/// artifact's Tiresias (petuum/adaptdl, branch `osdi21-artifact`, `simulator/tiresias.py`:
/// `free_gpus.most_common(1)` repeatedly, taking what the job still needs), which ignores
/// racks and so consolidates only by accident.
pub fn most_free(cluster: &ClusterState, topo: &Topology, n: u32) -> Option<Vec<GpuId>> {
    if cluster.free_count() < n {
        return None;
    }
    let servers = cluster.nodes_by_free(Tier::SERVER)?;
    let mut out = Vec::with_capacity(n as usize);
    let mut need = n;
    let mut level = servers.last().map(|&(f, _)| f);
    while need > 0 {
        let f = level.filter(|&f| f > 0)?;
        for &(free, server) in servers.range((f, NodeId(0))..=(f, NodeId(u32::MAX))) {
            let take = free.min(need);
            out.extend(free_on_server(cluster, topo, server, 0, take));
            need -= take;
            if need == 0 {
                break;
            }
        }
        level = servers.range(..(f, NodeId(0))).next_back().map(|&(f, _)| f);
    }
    out.sort_unstable();
    Some(out)
}

/// `n` free GPUs drawn uniformly at random without replacement: each draw picks one of the
/// GPUs still free by walking down the tree, choosing a child with probability proportional
/// to its free GPUs not drawn yet.
pub fn random_free(cluster: &ClusterState, topo: &Topology, n: u32, rng: &mut Rng) -> Option<Vec<GpuId>> {
    if cluster.free_count() < n {
        return None;
    }
    let mut picked: Vec<GpuId> = Vec::with_capacity(n as usize);
    let drawn_under = |picked: &[GpuId], node: NodeId| -> u32 {
        let nd = topo.node(node);
        let lo = picked.partition_point(|g| g.0 < nd.first_gpu);
        let hi = picked.partition_point(|g| g.0 < nd.first_gpu + nd.gpu_count);
        (hi - lo) as u32
    };
    for i in 0..n {
        let mut k = rng.below((cluster.free_count() - i) as u64) as u32;
        let mut node = topo.root();
        let gpu = loop {
            let nd = topo.node(node);
            if nd.kind == NodeKind::Server || nd.children.is_empty() {
                let g = (nd.first_gpu..nd.first_gpu + nd.gpu_count)
                    .map(GpuId)
                    .filter(|g| cluster.is_free(*g) && picked.binary_search(g).is_err())
                    .nth(k as usize)
                    .expect("the walk counted this many undrawn free GPUs here");
                break g;
            }
            let mut next = None;
            for &c in &nd.children {
                let left = cluster.free_under(c) - drawn_under(&picked, c);
                if k < left {
                    next = Some(c);
                    break;
                }
                k -= left;
            }
            node = next.expect("the draw is below the free GPUs not drawn yet");
        };
        let at = picked.binary_search(&gpu).unwrap_err();
        picked.insert(at, gpu);
    }
    Some(picked)
}

/// How many times slower than its ideal the job runs spread across the cluster with no
/// other job on its links: its GPUs split evenly over the fewest servers that hold them (at
/// least two), servers taken at even intervals of the server list so that on a cluster of
/// several racks the ring crosses racks. 1 for a job that cannot be spread (one GPU, one
/// server). A property of the model and the GPU count only, as an offline profile is.
pub fn spread_slowdown(topo: &Topology, catalog: &Catalog, comm: &CommParams, job: &Job) -> f64 {
    let Some(ideal) = job.ideal_iter_s.filter(|&s| s > 0.0) else { return 1.0 };
    let servers = topo.servers();
    let per_server = servers.iter().map(|&s| topo.node(s).gpu_count).max().unwrap_or(1).max(1);
    let n = job.gpus;
    let k = n.div_ceil(per_server).max(2).min(n).min(servers.len() as u32);
    if k < 2 {
        return 1.0;
    }
    let each = n.div_ceil(k);
    let mut gpus: Vec<GpuId> = Vec::with_capacity(n as usize);
    let mut used = vec![0u32; servers.len()];
    for i in 0..k as usize {
        let s = i * servers.len() / k as usize;
        let node = topo.node(servers[s]);
        let take = each.min(node.gpu_count).min(n - gpus.len() as u32);
        gpus.extend((node.first_gpu..node.first_gpu + take).map(GpuId));
        used[s] = take;
    }
    // Servers smaller than the others may leave some GPUs to place: take them in order.
    for (s, &server) in servers.iter().enumerate() {
        let left = n - gpus.len() as u32;
        if left == 0 {
            break;
        }
        let node = topo.node(server);
        let take = (node.gpu_count - used[s]).min(left);
        let from = node.first_gpu + used[s];
        gpus.extend((from..from + take).map(GpuId));
    }
    gpus.sort_unstable();
    let shape = uncontended_shape(topo, &gpus);
    (comm.iteration_time(catalog.get(job.model), &shape) / ideal).max(1.0)
}

/// The jobs holding GPUs under `node`, each with how many of its GPUs are there: what a
/// preemption or a move inside the node could free.
pub fn holders_under(cluster: &ClusterState, topo: &Topology, node: NodeId) -> BTreeMap<JobId, u32> {
    let n = topo.node(node);
    let mut held: BTreeMap<JobId, u32> = BTreeMap::new();
    for g in n.first_gpu..n.first_gpu + n.gpu_count {
        if let Some(owner) = cluster.owner(GpuId(g)) {
            *held.entry(owner).or_default() += 1;
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::JobId;
    use crate::topology::resolve_topology_arg;

    #[test]
    fn tier_capacity_gives_the_tightest_possible_tier() {
        let t = resolve_topology_arg("teaching").unwrap(); // 2 racks x 2 servers x 4 GPUs
        let c = TierCapacity::new(&t);
        assert_eq!(c.base(1), Some(Tier(0)));
        assert_eq!(c.base(4), Some(Tier(0)));
        assert_eq!(c.base(5), Some(Tier(1)));
        assert_eq!(c.base(9), Some(Tier(2)));
        assert_eq!(c.base(17), None);
    }

    #[test]
    fn most_free_takes_the_emptiest_servers_first_lower_index_on_ties() {
        let t = resolve_topology_arg("teaching").unwrap();
        let mut c = ClusterState::new(&t);
        // Servers hold 1, 4, 2, 4 free GPUs.
        c.allocate(&t, JobId(0), &[GpuId(0), GpuId(1), GpuId(2)]);
        c.allocate(&t, JobId(1), &[GpuId(8), GpuId(9)]);
        // One GPU: the first server with 4 free (server 1), not the best fit (server 0).
        assert_eq!(most_free(&c, &t, 1).unwrap(), vec![GpuId(4)]);
        // Six: all of server 1, then two of server 3 (4 free) — across racks.
        assert_eq!(most_free(&c, &t, 6).unwrap(), vec![4, 5, 6, 7, 12, 13].into_iter().map(GpuId).collect::<Vec<_>>());
        // Eleven: 4 + 4 + 2 + 1.
        assert_eq!(most_free(&c, &t, 11).unwrap().len(), 11);
        assert!(most_free(&c, &t, 12).is_none());
    }

    #[test]
    fn random_free_draws_distinct_free_gpus_deterministically() {
        let t = resolve_topology_arg("teaching").unwrap();
        let mut c = ClusterState::new(&t);
        c.allocate(&t, JobId(0), &[GpuId(0), GpuId(5), GpuId(15)]);
        let a = random_free(&c, &t, 13, &mut Rng::new(3)).unwrap();
        assert_eq!(a.len(), 13);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert!(a.iter().all(|&g| c.is_free(g)));
        assert_eq!(a, random_free(&c, &t, 13, &mut Rng::new(3)).unwrap());
        assert!(random_free(&c, &t, 14, &mut Rng::new(3)).is_none());
        // Every free GPU is drawn about equally often.
        let mut hits = [0u32; 16];
        let mut rng = Rng::new(7);
        for _ in 0..13_000 {
            for g in random_free(&c, &t, 1, &mut rng).unwrap() {
                hits[g.0 as usize] += 1;
            }
        }
        for (g, &h) in hits.iter().enumerate() {
            if [0, 5, 15].contains(&g) {
                assert_eq!(h, 0);
            } else {
                assert!((800..1200).contains(&h), "GPU {g} drawn {h} times of 13,000");
            }
        }
    }
}
