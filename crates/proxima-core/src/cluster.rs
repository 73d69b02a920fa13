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

use crate::maxmin::{share_for_newcomer, Flow, MaxMinSolver};
use crate::topology::{GpuId, LinkId, NodeId, NodeKind, Tier, Topology};
use std::collections::BTreeSet;

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

    /// Records that `job`'s ring crosses the network links `links` and reaches `cap` bytes/s
    /// alone. Its rate is its cap until [`ClusterState::reshare`] runs.
    pub fn add_ring(&mut self, job: JobId, links: &[LinkId], cap: f64) {
        for &l in links {
            self.link_jobs[l.0 as usize].push(job);
            self.level_load[self.link_level[l.0 as usize] as usize] += 1;
        }
        let i = job.0 as usize;
        if self.rings.len() <= i {
            self.rings.resize(i + 1, None);
        }
        self.rings[i] = Some(Ring { links: links.to_vec(), cap, rate: cap, mark: 0 });
        for &l in links {
            self.update_binding(l);
        }
    }

    /// Re-adds the caps of the rings on `l` (afresh, so that no rounding accumulates).
    fn update_binding(&mut self, l: LinkId) {
        let demand: f64 = self.link_jobs[l.0 as usize]
            .iter()
            .map(|j| self.rings[j.0 as usize].as_ref().expect("a job on a link has a ring").cap)
            .sum();
        self.link_binding[l.0 as usize] = demand > self.link_capacity[l.0 as usize];
    }

    /// Takes `job`'s ring off the network (nothing if it had none). Returns its links.
    pub fn remove_ring(&mut self, job: JobId) -> Vec<LinkId> {
        let Some(ring) = self.rings.get_mut(job.0 as usize).and_then(Option::take) else { return Vec::new() };
        for &l in &ring.links {
            let jobs = &mut self.link_jobs[l.0 as usize];
            let pos = jobs.iter().position(|&j| j == job).expect("the job was on this link");
            jobs.swap_remove(pos);
            self.level_load[self.link_level[l.0 as usize] as usize] -= 1;
        }
        for &l in &ring.links {
            self.update_binding(l);
        }
        ring.links
    }

    /// The bandwidth `job`'s ring gets on the network now, bytes/s; infinite for a job that
    /// does not span servers (its GPU links are its own).
    pub fn ring_rate(&self, job: JobId) -> f64 {
        match self.rings.get(job.0 as usize) {
            Some(Some(r)) => r.rate,
            _ => f64::INFINITY,
        }
    }

    /// The mean number of jobs on the links of a level (1 = server NICs, 2 = rack uplinks).
    pub fn mean_jobs_at_level(&self, level: u8) -> f64 {
        let links = self.level_links.get(level as usize).copied().unwrap_or(0);
        if links == 0 {
            return 0.0;
        }
        self.level_load[level as usize] as f64 / links as f64
    }

    /// Re-solves the max-min rates of every ring coupled to the links `changed` and appends
    /// to `moved` the rings whose rate changed, in job order. The rings re-solved are those
    /// on `changed` and, transitively, those sharing a *binding* link with them (one whose
    /// rings' caps add up to more than it carries). A link that is not binding can hold no
    /// ring below its cap, so rings that meet only there do not affect each other.
    pub fn reshare(&mut self, changed: &[LinkId], moved: &mut Vec<JobId>) {
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            // After 2^32 searches the marks wrap; clear them once rather than misread one.
            self.link_mark.iter_mut().for_each(|m| *m = 0);
            self.slot_mark.iter_mut().for_each(|m| *m = 0);
            self.rings.iter_mut().flatten().for_each(|r| r.mark = 0);
            self.search = 1;
        }
        let search = self.search;
        let mut sc = std::mem::take(&mut self.scratch);
        sc.queue.clear();
        sc.jobs.clear();
        // Every ring on a changed link may move, binding or not: a link that stopped binding
        // releases the rings it held back.
        for &l in changed {
            if self.link_mark[l.0 as usize] != search {
                self.link_mark[l.0 as usize] = search;
                sc.queue.push(l);
            }
        }
        let mut next = 0;
        while next < sc.queue.len() {
            let l = sc.queue[next];
            next += 1;
            for &j in &self.link_jobs[l.0 as usize] {
                let ring = self.rings[j.0 as usize].as_mut().expect("a job on a link has a ring");
                if ring.mark == search {
                    continue;
                }
                ring.mark = search;
                sc.jobs.push(j);
                for &m in &ring.links {
                    if self.link_binding[m.0 as usize] && self.link_mark[m.0 as usize] != search {
                        self.link_mark[m.0 as usize] = search;
                        sc.queue.push(m);
                    }
                }
            }
        }
        if !sc.jobs.is_empty() {
            // Job order, and links numbered as the jobs meet them, whatever order the search
            // found them in: the same rings always give the same bits. Links that are not
            // binding are left out: they constrain nothing.
            sc.jobs.sort_unstable();
            sc.capacity.clear();
            sc.local.clear();
            sc.ends.clear();
            for j in &sc.jobs {
                let ring = self.rings[j.0 as usize].as_ref().expect("searched rings exist");
                for l in ring.links.iter().filter(|l| self.link_binding[l.0 as usize]) {
                    let i = l.0 as usize;
                    if self.slot_mark[i] != search {
                        self.slot_mark[i] = search;
                        self.link_slot[i] = sc.capacity.len() as u32;
                        sc.capacity.push(self.link_capacity[i]);
                    }
                    sc.local.push(self.link_slot[i]);
                }
                sc.ends.push(sc.local.len());
            }
            let mut begin = 0;
            let flows: Vec<Flow> = sc
                .jobs
                .iter()
                .zip(&sc.ends)
                .map(|(j, &end)| {
                    let links = &sc.local[begin..end];
                    begin = end;
                    Flow { cap: self.rings[j.0 as usize].as_ref().expect("exists").cap, links }
                })
                .collect();
            self.solver.solve(&sc.capacity, &flows, &mut sc.rates);
            drop(flows);
            for (j, &rate) in sc.jobs.iter().zip(&sc.rates) {
                let ring = self.rings[j.0 as usize].as_mut().expect("exists");
                if ring.rate != rate {
                    ring.rate = rate;
                    moved.push(*j);
                }
            }
        }
        self.scratch = sc;
    }

    /// The bandwidth a new ring capped at `cap` would get on `links` now: on each link the
    /// level a newcomer reaches when the rings already there keep their rates unless they are
    /// above it ([`share_for_newcomer`]), the lowest of these, and at most `cap`. It sees a
    /// hot link as hot, whatever the other links of its level carry.
    pub fn estimate_new_ring(&self, links: &[LinkId], cap: f64) -> f64 {
        let mut rate = cap;
        let mut rates: Vec<f64> = Vec::new();
        for &l in links {
            rates.clear();
            rates.extend(self.link_jobs[l.0 as usize].iter().map(|&j| self.ring_rate(j)));
            rate = rate.min(self.link_share(l, &mut rates));
        }
        rate
    }

    /// What a newcomer would get on link `l` whose rings run at `rates` (reordered).
    fn link_share(&self, l: LinkId, rates: &mut [f64]) -> f64 {
        share_for_newcomer(self.link_capacity[l.0 as usize], rates)
    }

    /// The share a new ring would get on one link, uncapped: how cool the link is.
    pub fn link_share_for_new_ring(&self, link: LinkId) -> f64 {
        let mut rates: Vec<f64> = self.link_jobs[link.0 as usize].iter().map(|&j| self.ring_rate(j)).collect();
        self.link_share(link, &mut rates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
                let mut servers: Vec<NodeId> =
                    (0..2 + rng.below(3)).map(|_| t.servers()[rng.below(16) as usize]).collect();
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
            let sets: Vec<Vec<u32>> = all
                .iter()
                .map(|j| c.rings[j.0 as usize].as_ref().unwrap().links.iter().map(|l| l.0).collect())
                .collect();
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
}
