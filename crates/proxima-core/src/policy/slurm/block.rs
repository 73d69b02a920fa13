//! `slurm:block=on`: placement as Slurm's `topology/block` plugin does it, read from
//! SchedMD/slurm at 284c3b95 (2026-08-20); `eval_nodes_block.c` below is
//! `src/plugins/topology/block/eval_nodes_block.c`, `block_record.c` its neighbour.
//!
//! The blocks are the cluster's leaf switches in node order (a `topology/block` file read by
//! [`crate::topology`] gives one leaf switch per `BlockName`, in file order). Adjacent blocks
//! pair into aggregated blocks, pairs into fours, and so on ("Defined blocks of nodes are
//! paired with other contiguous blocks", `doc/man/man5/topology.conf.5` lines 88–92): the
//! aggregated blocks of level k are the aligned runs of 2^k blocks, as upstream indexes them
//! (`i / bblock_per_block`, `eval_nodes_block.c:572-584`). `block_sizes` lists the levels a
//! job may be confined to, in blocks (`1/2/4`: a block, a pair, a four); the default
//! `1/2/4/8/16` is what Slurm uses without `BlockSizes` (`block_record.c:105-106`, levels 0
//! to 4). The first block's size is the base (`block_record.c:319-321`).
//!
//! For a job of n GPUs (`eval_nodes_block.c`):
//! - it needs ⌈n / base⌉ base blocks; its level is the smallest of `block_sizes` that is at
//!   least that many, and its lower level the largest below (`_get_block_level`, `:226-244`).
//!   Larger than every level, it may use the whole cluster (`:346-349`): it is spread, not
//!   refused, but over as few lower-level blocks as can hold it (`max_llblock`, `:358-360`).
//! - among the aggregated blocks of its level whose emptiest ⌈n / lower size⌉ lower-level
//!   blocks hold it (`:628-642`), it takes the one with the fewest free GPUs: best fit, ties
//!   to the later block (`bnc <= block_node_cnt`, `:672-679`; node weights, which upstream
//!   compares first, are all equal here).
//! - when none holds it, the job stays pending (`ESLURM_TOPO_NO_FIT` with
//!   `EVAL_ACTION_BREAK`, `:687-695`, which ends the retries in
//!   `src/plugins/topology/common/common_topo.c:379-380`): no wider level is tried.
//! - inside the chosen block it takes base blocks one by one (`:1013-1077`), each chosen by
//!   `_choose_best_bblock` (`:65-172`): one in a lower-level block it already uses, else the
//!   lower-level block that holds the rest with the fewest free GPUs, else the one with the
//!   most; then the base block that holds the rest with the fewest free, else the one with
//!   the most (ties to the later block). It stops when it would need more lower-level
//!   blocks than `max_llblock` (`:1037-1041`).
//!
//! The plugin has no wait limit: `--switches=N@T` is topology/tree's (`doc/html/topology.shtml`
//! lines 370–377; `sbatch.1` line 2427, "When a tree topology is used"), and only the tree
//! plugin reads `wait4switch` (`src/plugins/topology/tree/eval_nodes_tree.c:184-189`,
//! `:708-733`). So `block=on` waits as long as it takes by default (`wait_s=off`), and a
//! number of seconds is Proxima's timer: the block rule holds for that long, then the job
//! takes the tightest placement free.
//!
//! Where Proxima differs: it counts free GPUs where Slurm counts free nodes, since Proxima's
//! jobs share servers; inside a base block it takes as few servers as possible
//! ([`crate::cluster::ClusterState::fill`]) where Slurm takes nodes in index order
//! (`:1046-1050`); a job the rule could not hold even on an empty cluster (blocks smaller
//! than the first) starts at once on the tightest placement, where Slurm would refuse it at
//! submission; when a job spreads over the whole cluster and the blocks do not fill the
//! last lower-level block, that partial one counts toward what the job may use, where
//! upstream's count of them rounds down (`:631-636`); `--segment` (`:322-342`), required
//! nodes and node weights are not modelled.

use crate::cluster::ClusterState;
use crate::error::InputError;
use crate::topology::{GpuId, NodeId, Tier, Topology};

use crate::policy::PolicySpec;

/// The largest level Slurm accepts, 2^15 base blocks (`block_record.c:131`).
const MAX_LEVEL: u32 = 15;

/// The levels of `block=on`, as a bit set (bit k: aggregated blocks of 2^k blocks).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockRule {
    levels: u32,
}

impl BlockRule {
    /// Reads `block=on|off` and `block_sizes`; `None` with block off.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Option<BlockRule>, InputError> {
        let on = spec.take_bool("block", false)?;
        let sizes = spec.take("block_sizes");
        match (on, sizes) {
            (false, None) => Ok(None),
            (false, Some(_)) => Err(InputError::new("block_sizes", "applies to block=on only")),
            (true, None) => Ok(Some(BlockRule { levels: 0b1_1111 })),
            (true, Some(text)) => parse_sizes(&text).map(|levels| Some(BlockRule { levels })),
        }
    }

    pub fn spec(&self) -> String {
        let sizes: Vec<String> =
            (0..=MAX_LEVEL).filter(|k| self.levels >> k & 1 == 1).map(|k| (1u32 << k).to_string()).collect();
        format!("block=on,block_sizes={}", sizes.join("/"))
    }

    /// The base blocks a job of `n` GPUs needs, its level (`None`: the whole cluster) and
    /// its lower level, as `_get_block_level` computes them.
    fn levels_for(&self, base: u32, n: u32) -> (Option<u32>, u32) {
        let bblocks = n.div_ceil(base.max(1)).max(1) as u64;
        let raw = 64 - (bblocks - 1).leading_zeros();
        let below = if raw == 0 { 0 } else { self.levels & ((1u32 << raw.min(31)) - 1) };
        let lower = if below == 0 { 0 } else { 31 - below.leading_zeros() };
        let above = if raw > MAX_LEVEL { 0 } else { self.levels >> raw << raw };
        ((above != 0).then(|| above.trailing_zeros()), lower)
    }

    /// Whether the rule confines a job of `n` GPUs to one block (its level is a single block).
    pub fn one_block(&self, base: u32, n: u32) -> bool {
        self.levels_for(base, n).0 == Some(0)
    }

    /// Where a job of `n` GPUs goes given each block's free GPUs: (block, GPUs) pairs, or
    /// `None` when the job waits.
    pub fn choose(&self, base: u32, free: &[u32], n: u32) -> Option<Vec<(usize, u32)>> {
        let m = free.len();
        if n == 0 || m == 0 {
            return None;
        }
        let (level, lower) = self.levels_for(base, n);
        let per_block = level.map_or(m, |l| 1usize << l);
        let per_ll = 1usize << lower;
        let mut max_ll = n.div_ceil(per_ll as u32 * base.max(1)) as usize;
        // Upstream counts lower-level blocks only when their limit can bind (`:547-551`).
        let ll_free: Option<Vec<u32>> = (per_block != per_ll * max_ll).then(|| {
            (0..m.div_ceil(per_ll)).map(|l| free[l * per_ll..((l + 1) * per_ll).min(m)].iter().sum()).collect()
        });
        let mut chosen: Option<(usize, u32)> = None;
        for g in 0..m.div_ceil(per_block) {
            let range = g * per_block..((g + 1) * per_block).min(m);
            let total: u32 = free[range.clone()].iter().sum();
            let usable = match &ll_free {
                None => total,
                Some(ll) => {
                    let mut inside: Vec<u32> = ll[range.start / per_ll..range.end.div_ceil(per_ll)].to_vec();
                    inside.sort_unstable_by(|a, b| b.cmp(a));
                    inside.iter().take(max_ll).sum()
                }
            };
            if usable >= n && chosen.is_none_or(|(_, c)| total <= c) {
                chosen = Some((g, total));
            }
        }
        let (g, _) = chosen?;
        let range = g * per_block..((g + 1) * per_block).min(m);
        let mut taken = vec![false; m];
        let mut rem = n;
        let mut out = Vec::new();
        loop {
            let mut best = Best { inx: None, fit: false, same: true };
            for i in range.clone().filter(|&i| !taken[i]) {
                best.consider(&taken, lower, rem, free, ll_free.as_deref(), i);
            }
            let b = best.inx?;
            if max_ll == 0 && !best.same {
                return None;
            }
            taken[b] = true;
            let take = free[b].min(rem);
            if take == 0 {
                return None;
            }
            out.push((b, take));
            rem -= take;
            if rem == 0 {
                return Some(out);
            }
            if !best.same {
                max_ll -= 1;
            }
        }
    }
}

/// `block_sizes=1/2/4`: powers of two from 1 up, increasing, as slurmctld requires of
/// `BlockSizes` in units of the base block.
fn parse_sizes(text: &str) -> Result<u32, InputError> {
    let mut levels = 0u32;
    let mut last: Option<u32> = None;
    for item in text.split('/').map(str::trim) {
        let k = match item.parse::<u32>() {
            Ok(s) if s.is_power_of_two() && s.trailing_zeros() <= MAX_LEVEL => s.trailing_zeros(),
            _ => {
                return Err(InputError::new(
                    "block_sizes",
                    format!(
                    "'{item}' is not a power of two up to 2^{MAX_LEVEL}: sizes are in blocks, as in block_sizes=1/2/4"
                ),
                ))
            }
        };
        let problem = match last {
            None if k != 0 => Some("the first size is 1, the base block (BlockSizes starts with the base size)"),
            Some(l) if k <= l => Some("sizes go from smaller to larger"),
            _ => None,
        };
        if let Some(p) = problem {
            return Err(InputError::new("block_sizes", format!("{p}, as in block_sizes=1/2/4, not '{text}'")));
        }
        levels |= 1 << k;
        last = Some(k);
    }
    Ok(levels)
}

/// The search state of `_choose_best_bblock`.
struct Best {
    inx: Option<usize>,
    fit: bool,
    same: bool,
}

impl Best {
    /// Upstream's comparison of base block `i` with the best so far (`:65-172`).
    fn consider(&mut self, taken: &[bool], lower: u32, rem: u32, free: &[u32], ll: Option<&[u32]>, i: usize) {
        let fit = free[i] >= rem;
        let in_same_ll = |a: usize| a >> lower == i >> lower;
        if let Some(ll) = ll.filter(|_| !self.inx.is_some_and(in_same_ll)) {
            // Fewest lower-level blocks: one already used, else one that holds the rest.
            let same = (0..taken.len()).any(|j| taken[j] && in_same_ll(j));
            let set = |s: &mut Best| *s = Best { inx: Some(i), fit, same };
            let Some(best) = self.inx else { return set(self) };
            if same && !self.same {
                return set(self);
            }
            if !same && self.same {
                return;
            }
            let (mine, theirs) = (ll[i >> lower], ll[best >> lower]);
            match (mine >= rem, theirs >= rem) {
                (true, false) => return set(self),
                (false, true) => return,
                // Both hold the rest: the fuller one, to leave room; neither: the emptier.
                (true, true) if mine < theirs => return set(self),
                (true, true) if mine > theirs => return,
                (false, false) if mine > theirs => return set(self),
                (false, false) if mine < theirs => return,
                _ => {}
            }
        }
        // Fewest base blocks: one that holds the rest (the fullest such), else the emptiest.
        let better = match self.inx {
            None => true,
            Some(b) => match (fit, self.fit) {
                (true, false) => true,
                (true, true) => free[i] <= free[b],
                (false, false) => free[i] >= free[b],
                (false, true) => false,
            },
        };
        if better {
            self.inx = Some(i);
            self.fit = fit;
        }
    }
}

/// The blocks of a cluster: its leaf switches ordered by their first GPU (the whole cluster
/// as one block when it has no switch), with their sizes in GPUs.
pub struct Blocks {
    pub nodes: Vec<NodeId>,
    pub sizes: Vec<u32>,
}

impl Blocks {
    pub fn of(topo: &Topology) -> Blocks {
        let tier = Tier(topo.top_tier().0.min(1));
        let mut nodes: Vec<NodeId> = topo.tier_nodes(tier).to_vec();
        nodes.sort_by_key(|&b| topo.node(b).first_gpu);
        let sizes = nodes.iter().map(|&b| topo.node(b).gpu_count).collect();
        Blocks { nodes, sizes }
    }

    /// The base block's size in GPUs: the first block's.
    pub fn base(&self) -> u32 {
        self.sizes.first().copied().unwrap_or(1)
    }

    pub fn free(&self, cluster: &ClusterState) -> Vec<u32> {
        self.nodes.iter().map(|&b| cluster.free_under(b)).collect()
    }

    /// The GPUs of a choice: in each block, as few servers as possible.
    pub fn gpus(&self, topo: &Topology, cluster: &ClusterState, picks: &[(usize, u32)]) -> Vec<GpuId> {
        let mut out = Vec::new();
        for &(b, count) in picks {
            cluster.fill(topo, self.nodes[b], count, &mut out);
        }
        out.sort_unstable();
        out
    }
}
