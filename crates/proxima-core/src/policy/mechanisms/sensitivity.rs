//! How much a job slows down when spread out, predicted for the cluster as loaded now, and where within a tier the network-sensitive scheduler puts
//! a job.
//!
//! For each tier a job could land in, Proxima estimates its iteration time there and divides
//! by the job's ideal one (its tightest feasible placement, no contention):
//!
//! - at the tightest tier where the job fits *now*, the placement it would actually get
//!   ([`cool_placement`]), with the links it would cross at their current load: the rate a
//!   new ring gets on each under max-min sharing ([`crate::cluster::ClusterState::estimate_new_ring`]).
//!   A hot uplink on that path shows, whatever the other uplinks carry;
//! - at any other tier, where no placement is free now and the links are unknown, a
//!   representative placement spanning that tier (the fewest servers that hold the job, at
//!   least two once the tier is wider than a server), its links given the bandwidth a new
//!   ring would get on a link of that level carrying the level's mean number of rings.
//!
//! Every estimate comes from the policy's [`Profile`]: a table measured on an idle cluster
//! stretched by the observed link shares (the default), or the engine's own model with the
//! live load (`profile=exact`, the description above, for ablation).
//!
//! A job's *loss* is how many times slower than at its tightest tier it runs spread to the
//! worst looser tier: for a job wider than a server this compares rack with cluster (or
//! pod), not cluster with an ideal it already cannot have. Preemption compares jobs by
//! their loss from representative placements only ([`representative_loss`]), all on the
//! network as it is at the moment of the decision.

use super::profile::Profile;
use crate::cluster::JobId;
use crate::policy::View;
use crate::topology::{GpuId, NodeId, Tier};

/// A job's expected slowdown at each tier, from its tightest feasible tier outwards.
#[derive(Clone, Debug, PartialEq)]
pub struct Sensitivity {
    pub base: Tier,
    /// `slowdown[t]` for tiers `t >= base`; tiers below `base` hold `f64::INFINITY`.
    pub slowdown: Vec<f64>,
    /// The tier whose slowdown is that of the placement the job would get now (the
    /// tightest where it fits); the others are representative.
    pub placeable: Option<Tier>,
}

impl Sensitivity {
    /// The slowdown spread as wide as the cluster.
    pub fn worst(&self) -> f64 {
        self.slowdown.last().copied().unwrap_or(1.0)
    }

    pub fn at(&self, tier: Tier) -> f64 {
        self.slowdown.get(tier.0 as usize).copied().unwrap_or(f64::INFINITY)
    }

    /// How much the job has to lose: the largest slowdown at a tier looser than its tightest,
    /// over its slowdown at the tightest (1 when there is no looser tier).
    pub fn loss(&self) -> f64 {
        let base = self.at(self.base);
        self.slowdown[self.base.0 as usize + 1..]
            .iter()
            .map(|s| s / base)
            .filter(|r| r.is_finite())
            .fold(1.0f64, f64::max)
    }
}

/// The sensitivity of `job` on the cluster as it is loaded now, as `profile` predicts it.
pub fn sensitivity(profile: &Profile, view: &View, job: JobId) -> Option<Sensitivity> {
    let j = view.job(job);
    let ideal = j.ideal_iter_s?;
    let base = profile.levels().base_tier(j.gpus)?;
    let mut now = view.cluster.tightest_tier_free(view.topo, j.gpus);
    let slowdown = (0..view.topo.tier_count())
        .map(|t| {
            if t < base.0 {
                return f64::INFINITY;
            }
            if now == Some(Tier(t)) {
                match cool_placement(profile, view, job, Tier(t)) {
                    Some(gpus) => return (profile.iter_s(view, job, &gpus) / ideal).max(1.0),
                    None => now = None,
                }
            }
            match profile.representative_iter_s(view, job, Tier(t)) {
                Some(iter_s) => (iter_s / ideal).max(1.0),
                None => f64::INFINITY,
            }
        })
        .collect();
    Some(Sensitivity { base, slowdown, placeable: now })
}

/// The loss of `job` from representative placements alone, on the network as loaded now,
/// as `profile` predicts it: its slowdown spread to the worst looser tier over its slowdown
/// at its tightest. It needs no placement search, so preemption can compare a waiting job
/// with every candidate victim on the same footing.
pub fn representative_loss(profile: &Profile, view: &View, job: JobId) -> f64 {
    let Some(base) = profile.levels().base_tier(view.job(job).gpus) else { return 1.0 };
    let iter = |t: u8| profile.representative_iter_s(view, job, Tier(t));
    let Some(at_base) = iter(base.0) else { return 1.0 };
    (base.0 + 1..view.topo.tier_count()).filter_map(iter).map(|t| t / at_base).fold(1.0f64, f64::max)
}

/// Where the network-sensitive scheduler puts `job` within `tier` now, if it fits: on one
/// server, the best fit (no network is involved). Wider, each node of the tier that holds
/// the job is filled preferring children whose link up is coolest (the highest rate a new
/// ring would get on it, up to what the job's ring can use), and the node whose placement
/// gives the fastest predicted iteration wins, best fit breaking ties. With an idle network
/// this is exactly the consolidation baseline's best fit.
pub fn cool_placement(profile: &Profile, view: &View, job: JobId, tier: Tier) -> Option<Vec<GpuId>> {
    let n = view.job(job).gpus;
    if tier == Tier::SERVER {
        return view.cluster.place_within(view.topo, n, tier);
    }
    // What the job's ring can use at this tier: a link that gives it that much is as good
    // as an idle one.
    let cap = profile.ring_cap(view, job, tier);
    let rank = |c: NodeId| match view.topo.node(c).uplink {
        Some(l) => view.cluster.link_share_for_new_ring(l).min(cap),
        None => cap,
    };
    let mut best: Option<(f64, Vec<GpuId>)> = None;
    for node in view.cluster.nodes_fitting(tier, n) {
        let mut gpus = Vec::with_capacity(n as usize);
        view.cluster.fill_ranked(view.topo, node, n, &mut gpus, &rank);
        gpus.sort_unstable();
        let iter_s = profile.iter_s(view, job, &gpus);
        if best.as_ref().is_none_or(|(b, _)| iter_s < *b) {
            best = Some((iter_s, gpus));
        }
    }
    best.map(|(_, g)| g)
}
