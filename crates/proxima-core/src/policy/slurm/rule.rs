//! The placement rule a `slurm` job waits for: topology/tree's `--switches` (at most so many
//! leaf switches) or topology/block's aggregated blocks ([`super::block`]). The
//! policy ([`super::slurm`]) keeps the queue and the timers; a rule only says whether a job
//! fits now and where it goes.

use super::block::{BlockRule, Blocks};
use crate::error::InputError;
use crate::policy::{PolicySpec, View};
use crate::topology::{GpuId, NodeId, Tier};

pub enum Rule {
    /// `--switches`: at most `switches` leaf switches (more for a job too large for them),
    /// with the leaf switch sizes in GPUs, largest first.
    Tree { switches: u32, leaf_sizes: Vec<u32> },
    /// `block=on`, with the cluster's blocks.
    Block { rule: BlockRule, blocks: Blocks },
}

/// The leaf switches a job of `n` GPUs may span: `switches`, or the fewest of the leaf
/// switches (`sizes`, largest first) that hold it on an empty cluster if that is more.
fn allowed_among(sizes: &[u32], switches: u32, n: u32) -> u32 {
    let mut sum = 0;
    let fewest = sizes.iter().take_while(|&&c| {
        let short = sum < n;
        sum += c;
        short
    });
    (fewest.count() as u32).max(switches)
}

/// The leaf switches a set of GPUs hangs under.
fn leaf_switches(view: &View, gpus: &[GpuId]) -> u32 {
    let mut parents: Vec<NodeId> = gpus.iter().filter_map(|&g| view.topo.node(view.topo.server_of(g)).parent).collect();
    parents.sort_unstable();
    parents.dedup();
    parents.len() as u32
}

/// Whether `n` GPUs are free under at most `allowed` leaf switches: the leaf switches
/// with the most free GPUs hold them.
fn within_switches(view: &View, n: u32, allowed: u32) -> bool {
    if view.topo.tier_count() < 2 {
        return view.cluster.free_count() >= n;
    }
    let Some(leaves) = view.cluster.nodes_by_free(Tier(1)) else { return false };
    let most: u32 = leaves.iter().rev().take(allowed as usize).map(|&(f, _)| f).sum();
    most >= n
}

/// A placement under at most `allowed` leaf switches: the tightest placement free if it
/// qualifies, else the leaf switches with the most free GPUs, filled in turn.
fn place_within(view: &View, n: u32, allowed: u32) -> Vec<GpuId> {
    let (_, gpus) = view.cluster.place_tightest(view.topo, n).expect("the GPUs are free");
    if leaf_switches(view, &gpus) <= allowed {
        return gpus;
    }
    let leaves = view.cluster.nodes_by_free(Tier(1)).expect("checked");
    let mut out = Vec::with_capacity(n as usize);
    for &(free, leaf) in leaves.iter().rev() {
        let left = n - out.len() as u32;
        if left == 0 {
            break;
        }
        view.cluster.fill(view.topo, leaf, free.min(left), &mut out);
    }
    out.sort_unstable();
    out
}

impl Rule {
    /// Reads `block` (with `block_sizes`), `switches` and `wait_s`: the rule and how long a
    /// job waits for it (`None`: as long as it takes, the block plugin's way).
    pub fn from_spec(spec: &mut PolicySpec) -> Result<(Rule, Option<f64>), InputError> {
        let block = BlockRule::from_spec(spec)?;
        let switches_given = spec.options.contains_key("switches");
        let switches = spec.take_u32("switches", 1)?;
        if switches == 0 {
            return Err(InputError::new("switches", "expected at least 1 leaf switch"));
        }
        let rule = match block {
            Some(_) if switches_given => return Err(InputError::new(
                "switches",
                "is topology/tree's --switches, which the block plugin ignores: with block=on, block_sizes confines a job",
            )),
            Some(rule) => Rule::Block { rule, blocks: Blocks { nodes: Vec::new(), sizes: Vec::new() } },
            None => Rule::Tree { switches, leaf_sizes: Vec::new() },
        };
        let block_on = matches!(rule, Rule::Block { .. });
        let wait_s = match spec.take("wait_s").as_deref() {
            None => (!block_on).then_some(300.0),
            Some("off") if block_on => None,
            Some("off") => return Err(InputError::new(
                "wait_s",
                "off only with block=on: Slurm caps every --switches wait (max_switch_wait); give seconds, as many as you like",
            )),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Some(x),
                _ => return Err(InputError::new("wait_s", format!("expected a number of at least 0 or off, got '{v}'"))),
            },
        };
        Ok((rule, wait_s))
    }

    /// Reads the cluster's shape the first time the policy sees it.
    pub fn prepare(&mut self, view: &View) {
        match self {
            Rule::Tree { leaf_sizes, .. } if leaf_sizes.is_empty() && view.topo.tier_count() >= 2 => {
                *leaf_sizes = view.topo.tier_nodes(Tier(1)).iter().map(|&l| view.topo.node(l).gpu_count).collect();
                leaf_sizes.sort_unstable_by(|a, b| b.cmp(a));
            }
            Rule::Block { blocks, .. } if blocks.nodes.is_empty() => *blocks = Blocks::of(view.topo),
            _ => {}
        }
    }

    /// The leaf switches a job of `n` GPUs may span under `--switches`.
    pub fn allowed(&self, n: u32) -> u32 {
        match self {
            Rule::Tree { switches, leaf_sizes } => allowed_among(leaf_sizes, *switches, n),
            Rule::Block { .. } => u32::MAX,
        }
    }

    /// Whether the rule could not hold a job of `n` GPUs even on an empty cluster (blocks
    /// smaller than the first): such a job is not held to it.
    pub fn never(&self, n: u32) -> bool {
        match self {
            Rule::Tree { .. } => false,
            Rule::Block { rule, blocks } => rule.choose(blocks.base(), &blocks.sizes, n).is_none(),
        }
    }

    /// Whether the rule holds a job of `n` GPUs now.
    pub fn fits(&self, view: &View, n: u32) -> bool {
        match self {
            Rule::Tree { .. } => within_switches(view, n, self.allowed(n)),
            Rule::Block { rule, blocks } => rule.choose(blocks.base(), &blocks.free(view.cluster), n).is_some(),
        }
    }

    /// The placement the rule gives a job of `n` GPUs now, if it holds it.
    pub fn place(&self, view: &View, n: u32) -> Option<Vec<GpuId>> {
        match self {
            Rule::Tree { .. } => {
                let allowed = self.allowed(n);
                within_switches(view, n, allowed).then(|| place_within(view, n, allowed))
            }
            Rule::Block { rule, blocks } => {
                let picks = rule.choose(blocks.base(), &blocks.free(view.cluster), n)?;
                Some(blocks.gpus(view.topo, view.cluster, &picks))
            }
        }
    }

    /// The tier a waiting job of `n` GPUs wants: a leaf switch when the rule confines it to
    /// one, else the whole cluster.
    pub fn wanted_tier(&self, view: &View, n: u32) -> Tier {
        let one_leaf = match self {
            Rule::Tree { .. } => self.allowed(n) == 1,
            Rule::Block { rule, blocks } => rule.one_block(blocks.base(), n),
        };
        if one_leaf && view.topo.tier_count() >= 2 {
            Tier(1)
        } else {
            view.topo.top_tier()
        }
    }
}
