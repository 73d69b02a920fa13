//! Who holds which GPU, how many GPUs are free under every node, and which rings share
//! each network link at what rate — kept incrementally so that no scheduling decision scans
//! the whole cluster.
//!
//! Free counts live on every node of the tree and, per height, in an ordered set of
//! `(free, node)`. "Is there a rack with 12 free GPUs?" is then the last element of the
//! racks' set, and "the fullest server that still fits 3" a range query: both O(log n).
//! Allocating or releasing a GPU touches only its ancestors.
//!
//! Every ring that spans servers is a flow on the network links it crosses, with a demand
//! cap (what its hosts can drive) and a rate, the max-min fair share of the links' nominal
//! bandwidth ([`crate::maxmin`]).
//! When a ring comes or goes, [`ClusterState::reshare`] re-solves the rings coupled to it:
//! the connected component of rings and links reachable from the links that changed, since
//! a change on one link can move rates on links it does not touch.

use crate::maxmin::MaxMinSolver;
use crate::topology::{GpuId, LinkId, NodeId, NodeKind, Tier, Topology};
use std::collections::BTreeSet;

mod rings;

/// Index of a job in the simulation's job list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct JobId(pub u32);

const FREE: u32 = u32::MAX;

/// The occupancy of the cluster.
#[derive(Clone, Debug)]
pub struct ClusterState {
    /// Per GPU, the job holding it or `FREE`.
    owner: Vec<u32>,
    /// Per node, free GPUs in its subtree.
    node_free: Vec<u32>,
    /// Per height (index 0 unused), the nodes of that height ordered by free GPUs.
    by_free: Vec<BTreeSet<(u32, NodeId)>>,
    /// Free GPUs in index order, for topology-oblivious first fit.
    free_gpus: BTreeSet<GpuId>,
    /// Per link, the jobs whose ring crosses it.
    link_jobs: Vec<Vec<JobId>>,
    /// Per link, the height of the node below it: 1 for a server's NIC, 2 for a rack's
    /// uplink, and so on (0 for a GPU's NVLink).
    link_level: Vec<u8>,
    /// Per level, the jobs on all links of that level together, and how many links there are:
    /// their ratio is the average contention a new job would meet at that level.
    level_load: Vec<u64>,
    level_links: Vec<u32>,
    /// Per link, its capacity in bytes/s.
    link_capacity: Vec<f64>,
    /// Per link, whether the caps of the rings on it add up to more than its capacity: only
    /// then can it hold a ring below its cap, and so couple rings to one another.
    link_binding: Vec<bool>,
    /// Per job (by index, grown on demand), its ring on the network, if it spans servers.
    rings: Vec<Option<Ring>>,
    /// Scratch of [`ClusterState::reshare`]: the mark of the last search per link, and
    /// the search counter; per link the search that last numbered it, and its number in the
    /// component being solved.
    link_mark: Vec<u32>,
    slot_mark: Vec<u32>,
    link_slot: Vec<u32>,
    search: u32,
    solver: MaxMinSolver,
    scratch: ReshareScratch,
}

/// Buffers of [`ClusterState::reshare`], kept between calls so that it does not allocate.
#[derive(Clone, Debug, Default)]
struct ReshareScratch {
    /// Links whose rings the search has taken in.
    queue: Vec<LinkId>,
    jobs: Vec<JobId>,
    capacity: Vec<f64>,
    /// The component's flows' links as local indices, flow after flow.
    local: Vec<u32>,
    /// Where each flow's links end in `local`.
    ends: Vec<usize>,
    rates: Vec<f64>,
}

/// A ring on the network: the links it crosses, what its hosts can drive, what it gets.
#[derive(Clone, Debug)]
struct Ring {
    links: Vec<LinkId>,
    cap: f64,
    rate: f64,
    /// The search that last visited it (see `link_mark`).
    mark: u32,
}

impl ClusterState {
    /// An empty cluster.
    pub fn new(topo: &Topology) -> ClusterState {
        let nodes = topo.nodes();
        let node_free: Vec<u32> = nodes.iter().map(|n| n.gpu_count).collect();
        let max_height = nodes.iter().map(|n| n.height).max().unwrap_or(0) as usize;
        let mut by_free = vec![BTreeSet::new(); max_height + 1];
        for (i, n) in nodes.iter().enumerate() {
            if n.height >= 1 {
                by_free[n.height as usize].insert((n.gpu_count, NodeId(i as u32)));
            }
        }
        let link_level: Vec<u8> = topo.links().iter().map(|l| topo.node(l.child).height).collect();
        let mut level_links = vec![0u32; max_height + 1];
        for &h in &link_level {
            level_links[h as usize] += 1;
        }
        ClusterState {
            owner: vec![FREE; topo.gpu_count() as usize],
            node_free,
            by_free,
            free_gpus: (0..topo.gpu_count()).map(GpuId).collect(),
            link_jobs: vec![Vec::new(); topo.links().len()],
            link_level,
            level_load: vec![0; max_height + 1],
            level_links,
            link_capacity: topo.links().iter().map(|l| l.bytes_per_s()).collect(),
            link_binding: vec![false; topo.links().len()],
            rings: Vec::new(),
            link_mark: vec![0; topo.links().len()],
            slot_mark: vec![0; topo.links().len()],
            link_slot: vec![0; topo.links().len()],
            search: 0,
            solver: MaxMinSolver::default(),
            scratch: ReshareScratch::default(),
        }
    }

    pub fn free_count(&self) -> u32 {
        self.free_gpus.len() as u32
    }

    pub fn is_free(&self, gpu: GpuId) -> bool {
        self.owner[gpu.0 as usize] == FREE
    }

    pub fn owner(&self, gpu: GpuId) -> Option<JobId> {
        let o = self.owner[gpu.0 as usize];
        (o != FREE).then_some(JobId(o))
    }

    /// Free GPUs under a node.
    pub fn free_under(&self, node: NodeId) -> u32 {
        self.node_free[node.0 as usize]
    }

    /// Free GPUs in index order.
    pub fn free_gpus(&self) -> impl Iterator<Item = GpuId> + '_ {
        self.free_gpus.iter().copied()
    }

    /// How many jobs' rings cross a link.
    pub fn jobs_on(&self, link: LinkId) -> u32 {
        self.link_jobs[link.0 as usize].len() as u32
    }

    pub fn jobs_on_link(&self, link: LinkId) -> &[JobId] {
        &self.link_jobs[link.0 as usize]
    }

    /// The most free GPUs under any one node bounding `tier`.
    pub fn max_free_at(&self, tier: Tier) -> u32 {
        self.by_free.get(tier.0 as usize + 1).and_then(|set| set.last()).map(|&(free, _)| free).unwrap_or(0)
    }

    /// The nodes bounding `tier` ordered by (free GPUs, node): the index behind the queries
    /// above, read-only, for policies that walk it their own way (most free first, best fit
    /// with exclusions).
    pub fn nodes_by_free(&self, tier: Tier) -> Option<&BTreeSet<(u32, NodeId)>> {
        self.by_free.get(tier.0 as usize + 1)
    }

    /// The tightest tier at which `n` GPUs are free together now, if any.
    pub fn tightest_tier_free(&self, topo: &Topology, n: u32) -> Option<Tier> {
        (0..topo.tier_count()).map(Tier).find(|&t| self.max_free_at(t) >= n)
    }

    /// The node bounding `tier` with the fewest free GPUs that still holds `n` (best fit, so
    /// that big holes stay open for big jobs); ties go to the first in GPU order.
    pub fn best_fit_node(&self, tier: Tier, n: u32) -> Option<NodeId> {
        let set = self.by_free.get(tier.0 as usize + 1)?;
        set.range((n, NodeId(0))..).next().map(|&(_, node)| node)
    }

    /// A consolidated placement of `n` GPUs within `tier`: the best-fitting node of that
    /// tier, then inside it as few servers as possible (see [`ClusterState::fill`]).
    pub fn place_within(&self, topo: &Topology, n: u32, tier: Tier) -> Option<Vec<GpuId>> {
        let node = self.best_fit_node(tier, n)?;
        let mut out = Vec::with_capacity(n as usize);
        self.fill(topo, node, n, &mut out);
        out.sort_unstable();
        Some(out)
    }

    /// The tightest consolidated placement available now: what the `consolidate` baseline
    /// does, and the "best now" of every other policy.
    pub fn place_tightest(&self, topo: &Topology, n: u32) -> Option<(Tier, Vec<GpuId>)> {
        let tier = self.tightest_tier_free(topo, n)?;
        self.place_within(topo, n, tier).map(|g| (tier, g))
    }

    /// The first `n` free GPUs in index order, whatever the topology: what a
    /// topology-oblivious scheduler does.
    pub fn first_free(&self, n: u32) -> Option<Vec<GpuId>> {
        if self.free_count() < n {
            return None;
        }
        Some(self.free_gpus.iter().take(n as usize).copied().collect())
    }

    /// Picks `need` free GPUs under `node` (which has at least that many): a child that holds
    /// them all if there is one (the best fit among such children), otherwise children in
    /// order of most free first, so the job spans as few children as possible.
    pub fn fill(&self, topo: &Topology, node: NodeId, need: u32, out: &mut Vec<GpuId>) {
        let n = topo.node(node);
        debug_assert!(self.free_under(node) >= need);
        if need == 0 {
            return;
        }
        if n.kind == NodeKind::Server {
            let first = n.first_gpu;
            out.extend((first..first + n.gpu_count).map(GpuId).filter(|&g| self.is_free(g)).take(need as usize));
            return;
        }
        let best =
            n.children.iter().copied().filter(|&c| self.free_under(c) >= need).min_by_key(|&c| self.free_under(c));
        if let Some(child) = best {
            self.fill(topo, child, need, out);
            return;
        }
        let mut children: Vec<NodeId> = n.children.iter().copied().filter(|&c| self.free_under(c) > 0).collect();
        // Stable sort: equal counts keep GPU order.
        children.sort_by_key(|&c| std::cmp::Reverse(self.free_under(c)));
        let mut left = need;
        for c in children {
            if left == 0 {
                break;
            }
            let take = left.min(self.free_under(c));
            self.fill(topo, c, take, out);
            left -= take;
        }
    }

    /// The nodes bounding `tier` that hold `n` free GPUs, best fit first (fewest free, then
    /// GPU order).
    pub fn nodes_fitting(&self, tier: Tier, n: u32) -> impl Iterator<Item = NodeId> + '_ {
        self.by_free
            .get(tier.0 as usize + 1)
            .into_iter()
            .flat_map(move |set| set.range((n, NodeId(0))..).map(|&(_, node)| node))
    }

    /// Like [`ClusterState::fill`], but preferring children with a higher `rank` (how cool
    /// the link above them is): among children that hold all `need` GPUs the highest rank
    /// wins, best fit breaking ties; when the job must span children, it takes them by rank,
    /// then most free first. With equal ranks it picks exactly what `fill` picks.
    pub fn fill_ranked(
        &self,
        topo: &Topology,
        node: NodeId,
        need: u32,
        out: &mut Vec<GpuId>,
        rank: &dyn Fn(NodeId) -> f64,
    ) {
        let n = topo.node(node);
        debug_assert!(self.free_under(node) >= need);
        if need == 0 {
            return;
        }
        if n.kind == NodeKind::Server {
            self.fill(topo, node, need, out);
            return;
        }
        let mut best: Option<(f64, u32, NodeId)> = None;
        for &c in &n.children {
            let free = self.free_under(c);
            if free < need {
                continue;
            }
            let r = rank(c);
            let better = match best {
                None => true,
                Some((br, bf, _)) => r > br || (r == br && free < bf),
            };
            if better {
                best = Some((r, free, c));
            }
        }
        if let Some((_, _, child)) = best {
            self.fill_ranked(topo, child, need, out, rank);
            return;
        }
        let mut children: Vec<(f64, u32, NodeId)> =
            n.children.iter().filter(|&&c| self.free_under(c) > 0).map(|&c| (rank(c), self.free_under(c), c)).collect();
        // Stable sort: equal keys keep GPU order.
        children.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut left = need;
        for (_, free, c) in children {
            if left == 0 {
                break;
            }
            let take = left.min(free);
            self.fill_ranked(topo, c, take, out, rank);
            left -= take;
        }
    }

    /// Gives `gpus` to `job`. Panics if any is taken: the engine checks decisions first.
    pub fn allocate(&mut self, topo: &Topology, job: JobId, gpus: &[GpuId]) {
        for &g in gpus {
            assert_eq!(self.owner[g.0 as usize], FREE, "GPU {} is already taken", g.0);
            self.owner[g.0 as usize] = job.0;
            self.free_gpus.remove(&g);
        }
        self.adjust_free(topo, gpus, false);
    }

    /// Frees `gpus`.
    pub fn release(&mut self, topo: &Topology, gpus: &[GpuId]) {
        for &g in gpus {
            self.owner[g.0 as usize] = FREE;
            self.free_gpus.insert(g);
        }
        self.adjust_free(topo, gpus, true);
    }

    fn adjust_free(&mut self, topo: &Topology, gpus: &[GpuId], freed: bool) {
        // GPUs arrive sorted, so those of one server are adjacent: one walk up per server.
        let mut i = 0;
        while i < gpus.len() {
            let server = topo.server_of(gpus[i]);
            let mut count = 0;
            while i < gpus.len() && topo.server_of(gpus[i]) == server {
                count += 1;
                i += 1;
            }
            let mut node = Some(server);
            while let Some(n) = node {
                let h = topo.node(n).height as usize;
                let old = self.node_free[n.0 as usize];
                let new = if freed { old + count } else { old - count };
                self.node_free[n.0 as usize] = new;
                self.by_free[h].remove(&(old, n));
                self.by_free[h].insert((new, n));
                node = topo.node(n).parent;
            }
        }
    }
}

#[cfg(test)]
#[path = "cluster_tests.rs"]
mod tests;
