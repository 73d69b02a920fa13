//! Max-min fair sharing of links among flows, by progressive filling.
//!
//! Every all-reduce ring that spans servers is one flow over the network links it crosses.
//! A flow has a demand cap (what its ring's hosts can drive: its calibrated efficiency
//! times its slowest GPU link or NIC, [`crate::comm_params::CommParams::ring_cap`]), and a link's
//! capacity, its nominal bandwidth, is shared among the flows crossing it so that
//! no flow can get more without taking from a flow that has no more than it (max-min
//! fairness, Bertsekas & Gallager, *Data Networks*, 1992, §6.5.2). Progressive filling
//! finds it: all flows grow at the same pace from zero; a flow stops when it reaches its cap
//! or when a link it crosses is full, and the others keep growing.
//!
//! An equal split per link (`C / n` for `n` flows) leaves capacity idle whenever some flow
//! on the link is held back elsewhere; max-min gives that capacity to the others. With an
//! uplink `U` of 10 GB/s carrying rings A and B, where B also crosses a 10 GB/s NIC shared
//! by four rings, the equal split gives A 5 GB/s and B 2.5 GB/s; max-min gives B 2.5 GB/s
//! and A 7.5 GB/s, and `U` is full.
//!
//! The solver is deterministic: flows and links are visited in index order, and every
//! figure comes from IEEE additions, subtractions and divisions.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One flow: its demand cap (bytes/s) and the indices of the links it crosses.
#[derive(Clone, Copy, Debug)]
pub struct Flow<'a> {
    pub cap: f64,
    pub links: &'a [u32],
}

/// Reusable scratch space, so that the simulator's frequent re-solves do not allocate.
#[derive(Clone, Debug, Default)]
pub struct MaxMinSolver {
    /// Per link, the capacity taken by flows already fixed.
    used: Vec<f64>,
    /// Per link, flows on it not fixed yet.
    active: Vec<u32>,
    /// Flows on each link, as a compressed adjacency list.
    start: Vec<u32>,
    members: Vec<u32>,
    fill: Vec<u32>,
    fixed: Vec<bool>,
    /// Flows by increasing cap.
    by_cap: Vec<u32>,
    /// Links by the level at which they would be full, lowest first: `(level bits, link)`.
    /// Levels only rise as flows are fixed, so an entry whose level is no longer the
    /// link's is stale and skipped (the bits of non-negative floats order as the floats do).
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// Links whose level changed in the current round, each once (`queued` marks them), so
    /// that a round pushes one heap entry per link however many of its flows it fixes.
    touched: Vec<u32>,
    queued: Vec<bool>,
}

impl MaxMinSolver {
    /// Writes the max-min fair rate of every flow to `rates` (resized to `flows.len()`).
    /// `capacity[l]` is link `l`'s capacity; every flow's links index into it. A flow that
    /// crosses no link gets its cap. Takes O((flows × links per flow + links) · log links).
    pub fn solve(&mut self, capacity: &[f64], flows: &[Flow], rates: &mut Vec<f64>) {
        rates.clear();
        rates.resize(flows.len(), 0.0);
        // Fast path: when no link is asked for more than it has, every flow gets its cap.
        // Under a low per-ring efficiency (NCCL over TCP) this is nearly always the case.
        if self.caps_fit(capacity, flows) {
            for (r, f) in rates.iter_mut().zip(flows) {
                *r = f.cap;
            }
            return;
        }
        self.index_links(capacity.len(), flows);
        self.order_by_cap(flows);
        self.seed_heap(capacity);
        self.fill_progressively(capacity, flows, rates);
    }

    /// Whether every link can carry the caps of all flows crossing it. Leaves in `used` the
    /// sum of those caps per link, added in flow order.
    fn caps_fit(&mut self, capacity: &[f64], flows: &[Flow]) -> bool {
        let links = capacity.len();
        self.used.clear();
        self.used.resize(links, 0.0);
        for f in flows {
            for &l in f.links {
                self.used[l as usize] += f.cap;
            }
        }
        (0..links).all(|l| self.used[l] <= capacity[l])
    }

    /// Clears the capacity taken, counts the flows on each link (all active at first), and
    /// lists them per link as a compressed adjacency list (`start`, `members`), in flow order.
    fn index_links(&mut self, links: usize, flows: &[Flow]) {
        self.used.clear();
        self.used.resize(links, 0.0);
        self.active.clear();
        self.active.resize(links, 0);
        for f in flows {
            for &l in f.links {
                self.active[l as usize] += 1;
            }
        }
        self.start.clear();
        let mut total = 0u32;
        for &a in &self.active {
            self.start.push(total);
            total += a;
        }
        self.start.push(total);
        self.members.clear();
        self.members.resize(total as usize, 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.start);
        for (i, f) in flows.iter().enumerate() {
            for &l in f.links {
                self.members[self.fill[l as usize] as usize] = i as u32;
                self.fill[l as usize] += 1;
            }
        }
    }

    /// Marks every flow unfixed and lists them by increasing cap (ties by index).
    fn order_by_cap(&mut self, flows: &[Flow]) {
        self.fixed.clear();
        self.fixed.resize(flows.len(), false);
        self.by_cap.clear();
        self.by_cap.extend(0..flows.len() as u32);
        self.by_cap.sort_unstable_by(|&a, &b| flows[a as usize].cap.total_cmp(&flows[b as usize].cap).then(a.cmp(&b)));
    }

    /// Pushes the starting level of every link that carries a flow.
    fn seed_heap(&mut self, capacity: &[f64]) {
        let links = capacity.len();
        self.heap.clear();
        self.touched.clear();
        self.queued.clear();
        self.queued.resize(links, false);
        for l in 0..links {
            if self.active[l] > 0 {
                self.heap.push(Reverse((self.level(capacity, l).to_bits(), l as u32)));
            }
        }
    }

    /// Progressive filling proper: round after round, either the flows whose caps are below
    /// the lowest link level stop at their caps, or the link that fills first stops its flows.
    fn fill_progressively(&mut self, capacity: &[f64], flows: &[Flow], rates: &mut [f64]) {
        let mut next_cap = 0;
        let mut left = flows.len();
        while left > 0 {
            let lowest = self.lowest_level(capacity);
            let capped = self.fix_capped(lowest, &mut next_cap, flows, rates);
            left -= capped;
            if capped > 0 || left == 0 {
                self.push_touched(capacity);
                continue;
            }
            // Otherwise the fullest link binds: its flows stop at that level.
            let Some(Reverse((_, l))) = self.heap.pop() else { break };
            left -= self.fix_link(l as usize, lowest, flows, rates);
            self.push_touched(capacity);
        }
    }

    /// The level at which the first link fills up if the unfixed flows keep growing
    /// (infinity when no link binds any more). Drops the stale heap entries above it.
    fn lowest_level(&mut self, capacity: &[f64]) -> f64 {
        while let Some(&Reverse((bits, l))) = self.heap.peek() {
            let l = l as usize;
            if self.active[l] > 0 && self.level(capacity, l).to_bits() == bits {
                return f64::from_bits(bits);
            }
            self.heap.pop();
        }
        f64::INFINITY
    }

    /// Fixes at their caps the unfixed flows whose cap is no higher than `lowest`, going up
    /// the flows by cap from `next_cap`; returns how many it fixed. Fixing a flow below a
    /// link's level only raises that level, so all of them can be fixed before looking again.
    fn fix_capped(&mut self, lowest: f64, next_cap: &mut usize, flows: &[Flow], rates: &mut [f64]) -> usize {
        let mut capped = 0;
        while *next_cap < self.by_cap.len() {
            let f = self.by_cap[*next_cap] as usize;
            if self.fixed[f] {
                *next_cap += 1;
                continue;
            }
            if flows[f].cap > lowest {
                break;
            }
            self.fix(f, flows[f].cap, flows, rates);
            *next_cap += 1;
            capped += 1;
        }
        capped
    }

    /// Fixes every unfixed flow on link `l` at `level`; returns how many it fixed.
    fn fix_link(&mut self, l: usize, level: f64, flows: &[Flow], rates: &mut [f64]) -> usize {
        let mut fixed = 0;
        for m in self.start[l]..self.start[l + 1] {
            let f = self.members[m as usize] as usize;
            if !self.fixed[f] {
                self.fix(f, level, flows, rates);
                fixed += 1;
            }
        }
        fixed
    }

    /// The level at which link `l` is full if its unfixed flows share what is left equally.
    fn level(&self, capacity: &[f64], l: usize) -> f64 {
        (capacity[l] - self.used[l]).max(0.0) / self.active[l] as f64
    }

    fn fix(&mut self, f: usize, rate: f64, flows: &[Flow], rates: &mut [f64]) {
        self.fixed[f] = true;
        rates[f] = rate;
        for &l in flows[f].links {
            let i = l as usize;
            self.used[i] += rate;
            self.active[i] -= 1;
            if !self.queued[i] {
                self.queued[i] = true;
                self.touched.push(l);
            }
        }
    }

    /// Pushes the new level of every link the round changed.
    fn push_touched(&mut self, capacity: &[f64]) {
        for k in 0..self.touched.len() {
            let l = self.touched[k] as usize;
            self.queued[l] = false;
            if self.active[l] > 0 {
                self.heap.push(Reverse((self.level(capacity, l).to_bits(), l as u32)));
            }
        }
        self.touched.clear();
    }
}

/// The rate one more flow would get on a link of capacity `capacity` already carrying flows
/// at `rates`, if those flows keep what they have unless the newcomer's fair level is below
/// it: the level `x` with `Σ min(rate, x) + x = capacity`. It is the newcomer's max-min
/// share when the link is its bottleneck and the others' rates are set elsewhere, without
/// re-solving the network; `rates` is reordered.
pub fn share_for_newcomer(capacity: f64, rates: &mut [f64]) -> f64 {
    rates.sort_by(f64::total_cmp);
    let mut below = 0.0;
    let n = rates.len();
    for (i, &r) in rates.iter().enumerate() {
        // If the first `i` flows keep their rates and the rest (with the newcomer) share what
        // is left equally, each of those gets `x`; it is the answer once `x` is no more than
        // the next flow's rate.
        let x = (capacity - below).max(0.0) / (n - i + 1) as f64;
        if x <= r {
            return x;
        }
        below += r;
    }
    (capacity - below).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(capacity: &[f64], flows: &[(f64, &[u32])]) -> Vec<f64> {
        let flows: Vec<Flow> = flows.iter().map(|&(cap, links)| Flow { cap, links }).collect();
        let mut rates = Vec::new();
        MaxMinSolver::default().solve(capacity, &flows, &mut rates);
        rates
    }

    #[test]
    fn the_uplink_example_by_hand() {
        // Link 0: the uplink U, 10 GB/s, carrying A and B. Link 1: a NIC of 10 GB/s carrying
        // B and three other rings. No ring is capped below 10 GB/s.
        // Filling: everyone rises to 2.5 GB/s, where the NIC (4 rings) is full; B and the
        // three others stop. A keeps rising until U is full: 10 − 2.5 = 7.5 GB/s.
        let u: &[u32] = &[0];
        let ub: &[u32] = &[0, 1];
        let nic: &[u32] = &[1];
        let r = solve(&[10.0, 10.0], &[(10.0, u), (10.0, ub), (10.0, nic), (10.0, nic), (10.0, nic)]);
        assert_eq!(r, vec![7.5, 2.5, 2.5, 2.5, 2.5]);
        // No capacity idle on U: A + B = 10. The equal split would have given A 10 / 2 = 5.
        assert_eq!(r[0] + r[1], 10.0);
    }

    #[test]
    fn caps_bind_before_links() {
        // Two rings capped at 2 and 3 on a 10 GB/s link: both get their caps (the fast path).
        let l: &[u32] = &[0];
        assert_eq!(solve(&[10.0], &[(2.0, l), (3.0, l)]), vec![2.0, 3.0]);
        // Three rings capped at 1, 6 and 6 on 10: the first stops at 1, the others share the
        // remaining 9 equally: 4.5 each, below their caps.
        assert_eq!(solve(&[10.0], &[(1.0, l), (6.0, l), (6.0, l)]), vec![1.0, 4.5, 4.5]);
        // A ring that crosses no link gets its cap.
        assert_eq!(solve(&[10.0], &[(4.0, &[]), (20.0, l)]), vec![4.0, 10.0]);
    }

    #[test]
    fn a_chain_of_bottlenecks() {
        // Links 0 (6), 1 (10), 2 (3). Flow a on 0 and 1, b on 1 and 2, c on 2, d on 0.
        // Round 1: levels 3, 5, 1.5: link 2 fills at 1.5, fixing b and c.
        // Round 2: link 0 has a and d: 3 each; link 1 has a with 10 − 1.5 = 8.5: link 0 binds.
        let r = solve(&[6.0, 10.0, 3.0], &[(100.0, &[0, 1]), (100.0, &[1, 2]), (100.0, &[2]), (100.0, &[0])]);
        assert_eq!(r, vec![3.0, 1.5, 1.5, 3.0]);
    }

    #[test]
    fn the_newcomers_share() {
        // An empty link: all of it.
        assert_eq!(share_for_newcomer(10.0, &mut []), 10.0);
        // Two flows at 2.5 (held back elsewhere): the newcomer gets the other 5.
        assert_eq!(share_for_newcomer(10.0, &mut [2.5, 2.5]), 5.0);
        // Two flows at 5 (the link is their bottleneck): three-way split.
        assert_eq!(share_for_newcomer(9.0, &mut [4.5, 4.5]), 3.0);
        // One flow at 1 and one at 6 on 10: the newcomer and the second split 9.
        assert_eq!(share_for_newcomer(10.0, &mut [6.0, 1.0]), 4.5);
    }

    #[test]
    fn random_instances_meet_the_max_min_conditions() {
        // A rate vector is max-min fair iff every flow is at its cap or crosses a full link on
        // which no flow gets more than it (its bottleneck). Checked on random networks.
        let mut rng = crate::rng::Rng::new(11);
        for case in 0..300 {
            let links = 1 + rng.below(12) as usize;
            let capacity: Vec<f64> = (0..links).map(|_| 1.0 + rng.below(40) as f64).collect();
            let sets: Vec<Vec<u32>> = (0..1 + rng.below(25))
                .map(|_| {
                    let mut l: Vec<u32> = (0..1 + rng.below(4)).map(|_| rng.below(links as u64) as u32).collect();
                    l.sort_unstable();
                    l.dedup();
                    l
                })
                .collect();
            let caps: Vec<f64> = sets.iter().map(|_| 0.5 + rng.below(30) as f64).collect();
            let flows: Vec<Flow> = sets.iter().zip(&caps).map(|(l, &cap)| Flow { cap, links: l }).collect();
            let mut rates = Vec::new();
            MaxMinSolver::default().solve(&capacity, &flows, &mut rates);
            let mut load = vec![0.0; links];
            for (f, r) in flows.iter().zip(&rates) {
                assert!(*r <= f.cap + 1e-9, "case {case}: above its cap");
                for &l in f.links {
                    load[l as usize] += r;
                }
            }
            for l in 0..links {
                assert!(load[l] <= capacity[l] + 1e-9, "case {case}: link {l} over capacity");
            }
            for (i, (f, r)) in flows.iter().zip(&rates).enumerate() {
                let at_cap = (r - f.cap).abs() < 1e-9;
                let bottleneck = f.links.iter().any(|&l| {
                    let full = (load[l as usize] - capacity[l as usize]).abs() < 1e-9;
                    let largest = flows
                        .iter()
                        .zip(&rates)
                        .filter(|(g, _)| g.links.contains(&l))
                        .all(|(_, other)| *other <= r + 1e-9);
                    full && largest
                });
                assert!(at_cap || bottleneck, "case {case}: flow {i} at {r} has neither its cap nor a bottleneck");
            }
        }
    }
}
