//! `volcano`: Volcano's network-topology-aware scheduling, each job a gang of one-GPU pods
//! with a `networkTopology`. Read from volcano-sh/volcano at ed72c7c8 (2026-08-20); paths
//! below are under `pkg/scheduler/`, `nta.go` is
//! `plugins/network-topology-aware/network_topology_aware.go`.
//!
//! - `hard=TIER` (`mode: hard`, `highestTierAllowed` or `highestTierName`): the job's pods all
//!   inside one HyperNode of tier at most TIER, or none start. The plugin lists the
//!   HyperNodes of tier at most TIER with enough idle GPUs, grouped by tier, lowest tier first
//!   (`hyperNodeGradientFn` and `isEligibleHyperNode`, `nta.go:602-671`), and the allocate
//!   action tries the groups in turn, taking the first that holds the job
//!   (`actions/allocate/allocate.go:380-459`). When none does the job stays pending, however
//!   long, as the user guide says of its s0..s6 example
//!   (`docs/user-guide/how_to_use_network_topology_aware_scheduling.md:51`).
//! - `soft=on` (`mode: soft`): the session turns soft into hard with the tier of a virtual
//!   HyperNode above all others (`framework/session.go:1076-1088`, `:287-310`), so the same
//!   lowest-tier-first search runs and ends at the whole cluster: no timer, no wait.
//! - Within a tier, the HyperNode with the highest binpack score, (used + requested) /
//!   allocatable (`getSubJobHyperNodeBinPackingScore`, `nta.go:385-438`), wins
//!   (`selectBestHyperNodeForSubJob`, `allocate.go:562-583`): the fullest after placing the
//!   job, relative to its size. Upstream breaks ties at random
//!   (`util/scheduler_helper.go:213-228`); Proxima takes the first in node order.
//! - Inside it, pods one at a time (`allocateResourcesForTasks`, `allocate.go:719-867`): the
//!   plugin scores a node by the tier of its lowest common HyperNode with the pods already
//!   placed (`batchNodeOrderFnForNetworkAwarePods` and `networkTopologyAwareScore`,
//!   `nta.go:559-589`, `:760-775`), and the binpack plugin, which the guide's configuration
//!   enables (`how_to_use_network_topology_aware_scheduling.md:152`), prefers the fullest node
//!   (`plugins/binpack/binpack.go:249-259`). Proxima uses these two scores and no others (the
//!   guide also enables `nodeorder`, whose least-requested score pulls the other way).
//! - Gang: a job's pods are committed only when all of them fit (`allocate.go:314`).
//! - Queue order: by creation time (`framework/session_plugins.go:742-748`, what
//!   `JobOrderFn` falls back to with equal priorities). A job that does not fit is dropped
//!   from the session and the next one is tried (`allocate.go:305-366`), so it blocks no one.
//!
//! TIER is a tier's number, counted from the servers up (Volcano's `spec.tier` when a file
//! numbers its HyperNodes 1, 2, 3... from the nodes up, as the guide's does; a name `tier-N`
//! the file gave is looked up first), or one of the cluster's tier names (a Volcano file's
//! `tierName`s). Servers are not a HyperNode tier. [`Policy::check_cluster`] refuses an
//! unknown one before the run, listing the tiers.
//!
//! Proxima's additions, not Volcano's: `hard_for_s=T` keeps the hard constraint for T seconds
//! of waiting, then places the job as soft; `hard_for_s=auto` tunes T online as `dally`'s
//! timers are ([`super::mechanisms::level_timer`]). `evict=on` moves running jobs with the
//! [`Migrator`] as `consolidate:migrate=on` does (re-consolidating spread jobs when room
//! appears, and clearing a HyperNode for a hard job that fits nowhere), queued jobs first;
//! with a hard tier, only jobs running wider than it are moved, and only into it.
//! Volcano itself does not preempt for a job with a network topology (`actions/preempt/
//! preempt.go:132-137`; volcano-sh/volcano issue #4374 asks for it), and its newer
//! `gangpreempt` action evicts only lower-priority jobs (`actions/gangpreempt/
//! gangpreempt.go:211`), while Proxima's jobs share one priority.
//!
//! Not modelled: sub-groups (`partitionPolicy`), queues and their shares, the `enqueue` action,
//! resources other than GPUs, and HyperNode-level binpacking of jobs without a topology.

use super::info::{
    opt, opt_with, profile, profile_error,
    OptionKind::{Choice, Seconds, SecondsAutoOrOff, Switch, Whole},
    PolicyInfo,
};
use super::mechanisms::level_timer::{HoldNotes, LevelTimer};
use super::mechanisms::migrate::{MigrateOptions, Migrator};
use super::mechanisms::placement::inside;
use super::{on_off, Decision, Policy, PolicySpec, View};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::time::SimTime;
use crate::topology::{GpuId, NodeId, Tier, Topology};

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "volcano",
    summary: "Volcano's network-topology-aware scheduling: jobs in submission order (one that does not fit blocks no one), all of a job's GPUs or none. `hard=TIER`: inside one HyperNode of that tier or lower, waiting as long as it takes; `soft=on` (the default): the lowest tier with a HyperNode that holds the job, else anywhere, at once. Among the HyperNodes of that tier that hold it, the fullest after placing it (HyperNode binpack); inside it, servers closest to the job's other GPUs, fullest first. A tier is a number from the servers up or a tier name of the cluster (a Volcano file's `tierName`s).",
    source: "volcano-sh/volcano `pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go` (`hyperNodeGradientFn`, `getSubJobHyperNodeBinPackingScore`), `pkg/scheduler/actions/allocate/allocate.go` (`allocateForJob`), `pkg/scheduler/framework/session.go` (soft as hard at the top), `docs/user-guide/how_to_use_network_topology_aware_scheduling.md`",
    options: &[
        opt("soft", Switch, "on", "the lowest tier with a HyperNode that holds the job, else anywhere, at once"),
        opt("hard", Choice(&["TIER", "off"]), "off", "the highest HyperNode tier a job may use, however long it waits"),
        opt("hard_for_s", SecondsAutoOrOff, "off", "with hard: the tier holds for this long of waiting, then the job is placed as soft (Proxima's, not Volcano's); auto: tuned online as dally's timers"),
        profile(Some("hard=1,hard_for_s=auto")),
        profile_error("hard=1,hard_for_s=auto"),
        opt("evict", Switch, "off", "on: move running jobs to tighter placements and out of a hard job's way, as consolidate:migrate=on (Proxima's; Volcano does not preempt for topology jobs)"),
        opt_with("restore_s", Seconds, "30", "checkpoint and restore cost a moved job pays", "evict=on"),
        opt_with("min_run_s", Seconds, "600", "a job runs this long before it may be moved", "evict=on"),
        opt_with("max_preempt", Whole, "2", "moves per job at most", "evict=on"),
    ],
    build: |spec| Ok(Box::new(Volcano::from_spec(spec)?)),
};

pub struct Volcano {
    /// The hard tier as the user named it; `None` for soft.
    hard: Option<String>,
    /// The time limit on the hard tier, if any.
    timer: Option<LevelTimer>,
    options: MigrateOptions,
    migrator: Option<Migrator>,
    /// The hard tier, resolved against the cluster at the first decision.
    tier: Option<Tier>,
    wake_requested: Option<SimTime>,
    /// Holds for the hard tier while the GPUs are free elsewhere, noted once per wait.
    holds: HoldNotes,
}

/// The tier `tier` names on this cluster (a number or a tier name), or an error on `field`
/// listing the HyperNode tiers it has.
pub fn resolve_tier(topo: &Topology, field: &str, tier: &str) -> Result<Tier, InputError> {
    let top = topo.top_tier().0 as usize;
    // HyperNode tiers start above the servers: tier 1 is the first level of switches.
    let named = |name: &str| topo.tier_labelled(name).filter(|t| t.0 >= 1);
    let numbered = || {
        let n = tier.parse::<usize>().ok()?;
        named(&format!("tier-{n}")).or(Some(n).filter(|n| (1..=top).contains(n)).map(|n| Tier(n as u8)))
    };
    named(tier).or_else(numbered).ok_or_else(|| {
        let known: Vec<String> = (1..=top).map(|i| format!("{i} ({})", topo.tier_names()[i])).collect();
        let known = if known.is_empty() { "none: one server".to_string() } else { known.join(", ") };
        InputError::new(field, format!("unknown HyperNode tier '{tier}' (this cluster's tiers: {known})"))
    })
}

impl Volcano {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Volcano, InputError> {
        let hard = spec.take("hard").filter(|v| v != "off");
        let soft = spec.take_bool("soft", hard.is_none())?;
        let timer = LevelTimer::from_spec(spec, "hard_for_s")?;
        let evict = spec.take_bool("evict", false)?;
        // Read even when eviction is off, so that one sweep over restore costs can name every
        // policy alike (as `consolidate` does); they change nothing then.
        let options = MigrateOptions::from_spec(spec)?;
        if soft == hard.is_some() {
            return Err(InputError::new("soft", "give one of hard=TIER or soft=on"));
        }
        if hard.as_deref() == Some("") {
            return Err(InputError::new("hard", "expected a HyperNode tier"));
        }
        if timer.is_some() && hard.is_none() {
            return Err(InputError::new("hard_for_s", "applies to hard=TIER only"));
        }
        let migrator = evict.then(|| Migrator::new(options.clone()));
        Ok(Volcano { hard, timer, options, migrator, tier: None, wake_requested: None, holds: HoldNotes::default() })
    }

    /// The hard tier, resolved at the first call (a run the caller did not check stops here).
    fn hard_tier(&mut self, topo: &Topology) -> Option<Tier> {
        let name = self.hard.as_deref()?;
        if self.tier.is_none() {
            let resolved = resolve_tier(topo, "hard", name).unwrap_or_else(|e| panic!("policy {}: {e}", self.spec()));
            self.tier = Some(resolved);
            if let Some(m) = &mut self.migrator {
                m.set_goal(resolved);
            }
        }
        self.tier
    }

    /// The highest tier `job` may use now: its hard tier until its time under it runs out,
    /// then the top (`None`).
    fn highest_tier(&self, view: &View, hard: Option<Tier>, job: JobId) -> Option<Tier> {
        match &self.timer {
            Some(t) if hard.is_some() && t.expired(view, job) => None,
            _ => hard,
        }
    }
}

/// The tiers the search walks for a job allowed up to `highest`: HyperNode tiers from 1 (a
/// one-server cluster has none: its server is the whole).
fn tiers_up_to(highest: Tier) -> impl Iterator<Item = Tier> {
    (highest.0.min(1)..=highest.0).map(Tier)
}

/// The HyperNode Volcano picks for `n` GPUs: the lowest tier up to `highest` with one that
/// holds them, and there the highest binpack score, (used + n) / size; ties to node order.
fn pick_hypernode(view: &View, highest: Tier, n: u32) -> Option<NodeId> {
    for tier in tiers_up_to(highest) {
        let score = |node: NodeId| {
            let size = view.topo.node(node).gpu_count as u64;
            ((size - view.cluster.free_under(node) as u64 + n as u64), size)
        };
        let best = view.cluster.nodes_fitting(tier, n).min_by(|&a, &b| {
            let ((ua, sa), (ub, sb)) = (score(a), score(b));
            // Higher (ua / sa) first, compared without division.
            (ub * sa).cmp(&(ua * sb)).then(a.cmp(&b))
        });
        if best.is_some() {
            return best;
        }
    }
    None
}

/// `n` GPUs inside `hypernode`, pod by pod as upstream scores nodes: a server closest to the
/// pods already placed (lowest common ancestor), then the fullest (binpack), then node order.
/// Once a server is chosen it stays the best until it is full, so it is taken whole.
fn fill_binpack(view: &View, hypernode: NodeId, n: u32) -> Vec<GpuId> {
    let topo = view.topo;
    let mut servers: Vec<NodeId> = topo
        .servers()
        .iter()
        .copied()
        .filter(|&s| inside(topo, s, hypernode) && view.cluster.free_under(s) > 0)
        .collect();
    let fuller = |a: NodeId, b: NodeId| {
        let used = |s: NodeId| (topo.node(s).gpu_count - view.cluster.free_under(s) + 1) as u64;
        let size = |s: NodeId| topo.node(s).gpu_count as u64;
        (used(b) * size(a)).cmp(&(used(a) * size(b)))
    };
    let (mut gpus, mut need, mut span) = (Vec::new(), n, None::<NodeId>);
    while need > 0 {
        let closeness = |s: NodeId| span.map_or(0, |a| topo.node(topo.common_ancestor(a, s)).height);
        let (i, &server) = servers
            .iter()
            .enumerate()
            .min_by(|(_, &a), (_, &b)| closeness(a).cmp(&closeness(b)).then(fuller(a, b)).then(a.cmp(&b)))
            .expect("the HyperNode holds the job");
        let take = need.min(view.cluster.free_under(server));
        view.cluster.fill(topo, server, take, &mut gpus);
        need -= take;
        span = Some(span.map_or(server, |a| topo.common_ancestor(a, server)));
        servers.swap_remove(i);
    }
    gpus.sort_unstable();
    gpus
}

impl Policy for Volcano {
    fn spec(&self) -> String {
        let mode = match &self.hard {
            Some(tier) => format!("hard={tier}"),
            None => "soft=on".to_string(),
        };
        let timer = self.timer.as_ref().map_or("off".to_string(), LevelTimer::spec_value);
        let evict = match &self.migrator {
            Some(_) => format!("on,{}", self.options.spec()),
            None => on_off(false).to_string(),
        };
        format!("volcano:{mode},hard_for_s={timer},evict={evict}")
    }

    fn check_cluster(&self, topo: &Topology) -> Result<(), InputError> {
        match &self.hard {
            Some(tier) => resolve_tier(topo, "hard", tier).map(|_| ()),
            None => Ok(()),
        }
    }

    fn delay_timers(&self) -> Vec<f64> {
        // One timer, at the hard tier (known once the run has begun).
        match (&self.timer, self.tier) {
            (Some(t), Some(tier)) => t.initial_timers(tier),
            _ => Vec::new(),
        }
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        let hard = self.hard_tier(view.topo);
        if let Some(m) = &mut self.migrator {
            m.on_event(event, view);
        }
        if let (Some(timer), Some(tier)) = (&mut self.timer, hard) {
            timer.follow(event, view, tier);
        }
        self.holds.follow(event);
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        let hard = self.hard_tier(view.topo);
        let top = view.topo.top_tier();
        // Whether a job fits depends only on its size and the tier it may use, and a larger
        // job fits no better: remember the smallest that did not, held hard or not.
        let mut smallest_unfit = [u32::MAX; 2];
        let next_deadline = self.timer.as_mut().and_then(|t| t.expire(view));
        if let (Some(t), Some(tier)) = (&mut self.timer, hard) {
            t.tune(view, tier, out);
        }
        let mut first_blocked: Option<JobId> = None;
        for &job in view.queued.iter() {
            let n = view.job(job).gpus;
            let held = self.highest_tier(view, hard, job);
            let slot = held.is_some() as usize;
            if n < smallest_unfit[slot] {
                if let Some(node) = pick_hypernode(view, held.unwrap_or(top), n) {
                    self.place(view, job, node, hard, out);
                    return;
                }
            }
            smallest_unfit[slot] = smallest_unfit[slot].min(n);
            if let Some(tier) = held.filter(|_| view.cluster.free_count() >= n) {
                let deadline = self.timer.as_ref().and_then(|t| t.deadline(job));
                self.holds.note(view, job, tier, deadline, out);
            }
            if held.is_some() && first_blocked.is_none() {
                first_blocked = Some(job);
            }
        }
        if self.evict(view, hard, first_blocked, out) {
            return;
        }
        if let Some(d) = next_deadline {
            if self.wake_requested.is_none_or(|r| r <= view.now || d < r) {
                self.wake_requested = Some(d);
                out.push(Decision::WakeAt(d));
            }
        }
    }
}

impl Volcano {
    fn place(&self, view: &View, job: JobId, hypernode: NodeId, hard: Option<Tier>, out: &mut Vec<Decision>) {
        let gpus = fill_binpack(view, hypernode, view.job(job).gpus);
        let waited_s = (view.now - view.run(job).enqueued_at).as_secs_f64();
        let placed = view.topo.tier_of(&gpus);
        let reason = match hard {
            Some(tier) if placed > tier => {
                Reason::TimerExpired { tier: placed, waited_s, slowdown: view.estimate_slowdown(job, &gpus) }
            }
            _ => Reason::wanted_tier(placed, waited_s),
        };
        out.push(Decision::Place { job, gpus, reason });
    }

    /// With `evict=on`, once no queued job could start: clear room for the first job held
    /// to its hard tier (when its tightest tier is within it and the cluster has its GPUs
    /// free), else move a spread job to a tighter placement that appeared.
    fn evict(&mut self, view: &View, hard: Option<Tier>, blocked: Option<JobId>, out: &mut Vec<Decision>) -> bool {
        let Some(m) = &mut self.migrator else { return false };
        if let (Some(job), Some(tier)) = (blocked, hard) {
            let n = view.job(job).gpus;
            let within = m.base(view, n) <= tier;
            if within && n <= view.cluster.free_count() && m.try_make_room(view, job, out) {
                return true;
            }
        }
        m.try_reconsolidate(view, out)
    }
}
