//! `kueue-tas`: Kueue's Topology Aware Scheduling (TAS) as a ClusterQueue with one TAS flavor
//! admits jobs, each job one PodSet of one-GPU pods. Read from kubernetes-sigs/kueue at
//! ff69552e (2026-08-22); `tas_flavor_snapshot.go` below is
//! `pkg/cache/scheduler/tas_flavor_snapshot.go`.
//!
//! The three kinds of request (`site/content/en/docs/concepts/topology_aware_scheduling.md`,
//! "User-facing APIs"):
//! - `required=LEVEL` (`kueue.x-k8s.io/podset-required-topology`): every pod inside one domain
//!   of that level. When no domain holds the job, `findLevelWithFitDomains`
//!   (`tas_flavor_snapshot.go:1374-1390`) returns a not-fit reason and never looks at a wider
//!   level, so the job waits however long it takes.
//! - `preferred=LEVEL` (`podset-preferred-topology`): the same level first; when no domain of
//!   it holds the job, the next level up at once (`tas_flavor_snapshot.go:1392-1393`, no
//!   timer), and at the widest level the job is spread over its domains.
//! - `unconstrained=on` (`podset-unconstrained-topology`): the lowest level, the nodes
//!   (`levelKey`, `tas_flavor_snapshot.go:1233`), filled by LeastFreeCapacity: nodes taken
//!   from the fewest free up (`sortedDomains`, `:1770-1797`), the first that holds the whole
//!   job if any (`:1360-1372`). That is the TASProfileMixed feature gate's choice, on by
//!   default since 0.15 (`pkg/features/kube_features.go:653-656`,
//!   `useLeastFreeCapacityAlgorithm`, `tas_flavor_snapshot.go:1468`).
//!
//! Otherwise placement is BestFit (`useBestFitAlgorithm`, `:1463`): among the domains that
//! hold the job, the one with the fewest free GPUs, ties to the first in the order domains
//! are sorted in (`findBestFitDomainBy`, `:1307-1331`); then level by level down to the nodes
//! the children of the chosen domains are pooled, sorted most free first, and taken in turn,
//! the last one by BestFit among those left (`findTopologyAssignment` phase 2b, `:1033-1041`,
//! `updateCountsToMinimumGeneric`, `:1575-1650`). Where upstream breaks ties by the domains'
//! label values (`compareDomainLevelValues`), Proxima uses node order.
//!
//! Admission is in submission order. `queue=besteffort` is Kueue's default
//! (`apis/kueue/v1beta2/clusterqueue_types.go:105`, BestEffortFIFO: "older workloads that
//! can't be admitted will not block admitting newer workloads that fit", `:198-201`);
//! `queue=strict` is StrictFIFO, where the head blocks the queue (`:194-196`).
//!
//! `required_for_s=T|auto` (with `required`) keeps the requirement for T seconds of waiting,
//! then treats the level as preferred: Proxima's timer, not a Kueue field, fixed or tuned
//! online as `dally`'s timers are ([`super::mechanisms::level_timer`]).
//!
//! `evict=on` (with `restore_s`, `min_run_s`, `max_preempt`, the defaults of
//! `consolidate:migrate=on`) adds the defragmentation Kueue users ask for (kubernetes-sigs/kueue
//! #9711: re-admit a workload to find it a better placement; #11078: move pods to free a node;
//! #4329: fragmentation blocking admissions) through [`super::mechanisms::migrate`]: a job running wider
//! than its level is checkpointed and moved back inside one domain of it once one has room,
//! and a job that does not fit its level although enough GPUs are free has server-local jobs
//! moved out of the way. Queued jobs come first; every moved job pays `restore_s`.
//!
//! A level is one of the cluster's tier names (a Kueue file's node labels, e.g.
//! `cloud.provider.com/topology-rack`), `kubernetes.io/hostname` or `server` for the
//! servers, `rack` for the first switch tier of a cluster with three tiers or more, `cluster`
//! for the widest, `tightest` for the first switch tier. It can only be checked against the
//! cluster: [`Policy::check_cluster`] lets a caller refuse the run before it starts (the CLI,
//! sweeps and experiments do), and a run started anyway stops at its first decision with
//! the same message, from [`resolve_level`].
//!
//! Not modelled: Kueue's own preemption and node replacement, TAS balanced placement (an alpha gate, off
//! by default), slices, leaders and PodSet groups, quotas and cohorts, and priorities.

use super::info::{
    opt, opt_with, profile, profile_error,
    OptionKind::{Choice, Seconds, SecondsAutoOrOff, Switch, Whole},
    PolicyInfo,
};
use super::mechanisms::level_timer::{HoldNotes, LevelTimer};
use super::mechanisms::migrate::{MigrateOptions, Migrator};
use super::{Decision, Policy, PolicySpec, View};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::time::SimTime;
use crate::topology::formats::HOSTNAME_LABEL;
use crate::topology::{GpuId, NodeId, NodeKind, Tier, Topology};
use std::cmp::Reverse;

/// What a job asks of the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Required,
    Preferred,
    Unconstrained,
}

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "kueue-tas",
    summary: "Kueue's Topology Aware Scheduling: jobs admitted in submission order, each within one domain of a topology level. `required`: never across the level, waiting as long as it takes; `preferred` (the default, at the tightest switch tier): the next level up at once when no domain of it holds the job; `unconstrained=on`: anywhere, fullest nodes first (LeastFreeCapacity). Among domains that hold a job, the one with the fewest free GPUs (BestFit). A level is a tier name of the cluster (a Kueue file's node labels), `kubernetes.io/hostname`, `server`, `rack`, `cluster` or `tightest`.",
    source: "kubernetes-sigs/kueue `pkg/cache/scheduler/tas_flavor_snapshot.go` (`findLevelWithFitDomains`, `findBestFitDomainBy`, `sortedDomains`), `site/content/en/docs/concepts/topology_aware_scheduling.md`, `apis/kueue/v1beta2/clusterqueue_types.go` (queueing strategies)",
    options: &[
        opt("preferred", Choice(&["LEVEL", "tightest"]), "tightest", "the level a job prefers, widened level by level at once when no domain holds it"),
        opt("required", Choice(&["LEVEL", "off"]), "off", "the level a job must stay within, however long it waits"),
        opt("unconstrained", Switch, "off", "on: anywhere, fullest servers first (LeastFreeCapacity)"),
        opt("queue", Choice(&["besteffort", "strict"]), "besteffort", "BestEffortFIFO: a job that fits passes a head that does not; strict: StrictFIFO, the head blocks"),
        opt("required_for_s", SecondsAutoOrOff, "off", "with required: the level is required for this long of waiting, then preferred (Proxima's, not Kueue's); auto: tuned online as dally's timers, each job waiting at most what it stands to gain"),
        profile(Some("required=tightest,required_for_s=auto")),
        profile_error("required=tightest,required_for_s=auto"),
        opt("evict", Switch, "off", "on: defragment (not Kueue's): move jobs running wider than their level back into one domain, and server-local jobs out of the way of a job that does not fit"),
        opt_with("restore_s", Seconds, "30", "checkpoint and restore cost a moved job pays", "evict=on"),
        opt_with("min_run_s", Seconds, "600", "a job runs this long before it may be moved", "evict=on"),
        opt_with("max_preempt", Whole, "2", "moves per job at most", "evict=on"),
    ],
    build: |spec| Ok(Box::new(KueueTas::from_spec(spec)?)),
};

pub struct KueueTas {
    mode: Mode,
    /// The level as the user named it, and the option that named it.
    level: String,
    field: &'static str,
    strict: bool,
    /// The time limit on a required level, if any.
    timer: Option<LevelTimer>,
    migrator: Option<Migrator>,
    /// The level's tier, resolved against the cluster at the first event.
    tier: Option<Tier>,
    wake_requested: Option<SimTime>,
    /// Holds for the required level while the GPUs are free elsewhere, noted once per wait.
    holds: HoldNotes,
}

/// The tier a level names on this cluster, or an error on `field` listing the levels it has.
pub fn resolve_level(topo: &Topology, field: &str, level: &str) -> Result<Tier, InputError> {
    if let Some(tier) = topo.tier_labelled(level) {
        return Ok(tier);
    }
    let top = topo.top_tier();
    let generic = match level {
        "tightest" => Some(Tier(top.0.min(1))),
        "server" | HOSTNAME_LABEL => Some(Tier::SERVER),
        "cluster" => Some(top),
        "rack" if topo.tier_count() >= 3 => Some(Tier(1)),
        _ => None,
    };
    generic.ok_or_else(|| {
        let known =
            topo.tier_names().iter().map(String::as_str).chain([HOSTNAME_LABEL, "tightest"]).collect::<Vec<_>>();
        InputError::new(
            field,
            format!("unknown topology level '{level}' (this cluster's levels: {})", known.join(", ")),
        )
    })
}

impl KueueTas {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<KueueTas, InputError> {
        let required = spec.take("required").filter(|v| v != "off");
        let preferred = spec.take("preferred");
        let unconstrained = spec.take_bool("unconstrained", false)?;
        let timer = LevelTimer::from_spec(spec, "required_for_s")?;
        let evict = spec.take_bool("evict", false)?;
        // The move options are read even without eviction, so that one sweep over them can
        // include `evict=off`.
        let migrate = MigrateOptions::from_spec(spec)?;
        let strict = match spec.take("queue").as_deref() {
            None | Some("besteffort") => false,
            Some("strict") => true,
            Some(other) => {
                return Err(InputError::new("queue", format!("expected strict or besteffort, got '{other}'")))
            }
        };
        let given = required.is_some() as u8 + preferred.is_some() as u8 + unconstrained as u8;
        if given > 1 {
            return Err(InputError::new("required", "give one of required=LEVEL, preferred=LEVEL, unconstrained=on"));
        }
        if timer.is_some() && required.is_none() {
            return Err(InputError::new("required_for_s", "applies to required=LEVEL only"));
        }
        let (mode, field, level) = match (required, unconstrained) {
            (Some(level), _) => (Mode::Required, "required", level),
            (None, true) => (Mode::Unconstrained, "unconstrained", "server".to_string()),
            (None, false) => (Mode::Preferred, "preferred", preferred.unwrap_or_else(|| "tightest".to_string())),
        };
        if level.is_empty() {
            return Err(InputError::new(field, "expected a topology level"));
        }
        let migrator = evict.then(|| Migrator::new(migrate));
        Ok(KueueTas {
            mode,
            level,
            field,
            strict,
            timer,
            migrator,
            tier: None,
            wake_requested: None,
            holds: HoldNotes::default(),
        })
    }

    /// The mode `job` is under now: a required level with a timer turns preferred once the
    /// job's time under it has run out.
    fn mode_at(&self, view: &View, job: JobId) -> Mode {
        match (self.mode, &self.timer) {
            (Mode::Required, Some(t)) if t.expired(view, job) => Mode::Preferred,
            (mode, _) => mode,
        }
    }

    /// The level's tier on this cluster, resolved once.
    fn level_tier(&mut self, view: &View) -> Tier {
        if let Some(tier) = self.tier {
            return tier;
        }
        let tier =
            resolve_level(view.topo, self.field, &self.level).unwrap_or_else(|e| panic!("policy {}: {e}", self.spec()));
        if let Some(m) = &mut self.migrator {
            m.set_goal(tier);
        }
        *self.tier.insert(tier)
    }
}

/// Whether `n` GPUs fit now: in one domain of `tier` when required, anywhere otherwise (the
/// widest level of a preferred request spreads over every domain).
fn fits(view: &View, mode: Mode, tier: Tier, n: u32) -> bool {
    match mode {
        Mode::Required => view.cluster.max_free_at(tier) >= n,
        Mode::Preferred | Mode::Unconstrained => view.cluster.free_count() >= n,
    }
}

/// Upstream's greedy step over domains already sorted: take each in turn, and once the next
/// one holds the rest, the best fit among those left instead (`updateCountsToMinimumGeneric`,
/// `tas_flavor_snapshot.go:1621-1636`, the branch phase 2b takes; without BestFit, for LeastFreeCapacity, the next one).
fn take_greedily(view: &View, sorted: &[NodeId], mut need: u32, best_fit: bool) -> Vec<(NodeId, u32)> {
    let mut out = Vec::new();
    for (i, &node) in sorted.iter().enumerate() {
        let free = view.cluster.free_under(node);
        if need == 0 {
            break;
        }
        if free >= need {
            let rest = &sorted[i..];
            let chosen = if best_fit {
                // The fewest free that still holds the rest; ties to the first in sort order.
                let holding = rest.iter().filter(|&&d| view.cluster.free_under(d) >= need);
                *holding.min_by_key(|&&d| view.cluster.free_under(d)).expect("this one holds it")
            } else {
                node
            };
            out.push((chosen, need));
            return out;
        }
        if free > 0 {
            out.push((node, free));
            need -= free;
        }
    }
    out
}

/// BestFit placement (phase 2a, then 2b): the tightest level from `tier` up with a domain that
/// holds the job (only `tier` itself when required: the caller checked it fits there), the
/// best-fitting domain of it, then down level by level to the servers.
fn place_best_fit(view: &View, tier: Tier, n: u32) -> Vec<GpuId> {
    let top = view.topo.top_tier().0;
    let level = (tier.0..=top).map(Tier).find(|&t| view.cluster.max_free_at(t) >= n).expect("the caller checked");
    let mut chosen = vec![(view.cluster.best_fit_node(level, n).expect("it fits at this level"), n)];
    while view.topo.node(chosen[0].0).kind != NodeKind::Server {
        let mut children: Vec<NodeId> =
            chosen.iter().flat_map(|&(d, _)| view.topo.node(d).children.iter().copied()).collect();
        // Most free first, then node order (`sortedDomains`, `tas_flavor_snapshot.go:1770-1797`).
        children.sort_by_key(|&c| (Reverse(view.cluster.free_under(c)), c));
        chosen = take_greedily(view, &children, n, true);
    }
    gpus_on(view, &chosen)
}

/// LeastFreeCapacity over the servers, for unconstrained requests: the fullest server that
/// holds the job, or servers from the fullest up until it fits.
fn place_least_free(view: &View, n: u32) -> Vec<GpuId> {
    let mut servers: Vec<NodeId> = view.topo.servers().to_vec();
    servers.sort_by_key(|&s| (view.cluster.free_under(s), s));
    let chosen = match view.cluster.best_fit_node(Tier::SERVER, n) {
        Some(server) => vec![(server, n)],
        None => take_greedily(view, &servers, n, false),
    };
    gpus_on(view, &chosen)
}

/// The first free GPUs of each chosen server, as many as it was given.
fn gpus_on(view: &View, chosen: &[(NodeId, u32)]) -> Vec<GpuId> {
    let mut out = Vec::new();
    for &(server, count) in chosen {
        view.cluster.fill(view.topo, server, count, &mut out);
    }
    out.sort_unstable();
    out
}

impl Policy for KueueTas {
    fn spec(&self) -> String {
        let queue = if self.strict { "strict" } else { "besteffort" };
        let request = match self.mode {
            Mode::Unconstrained => "unconstrained=on".to_string(),
            _ => format!("{}={}", self.field, self.level),
        };
        let timer = self.timer.as_ref().map(|t| format!(",required_for_s={}", t.spec_value())).unwrap_or_default();
        let evict = self.migrator.as_ref().map(|m| format!(",evict=on,{}", m.options().spec())).unwrap_or_default();
        format!("kueue-tas:{request},queue={queue}{timer}{evict}")
    }

    fn delay_timers(&self) -> Vec<f64> {
        // One timer, at the required level's tier (known once the run has begun).
        match (&self.timer, self.tier) {
            (Some(t), Some(tier)) => t.initial_timers(tier),
            _ => Vec::new(),
        }
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        let tier = self.level_tier(view);
        if let Some(m) = &mut self.migrator {
            m.on_event(event, view);
        }
        if let Some(timer) = &mut self.timer {
            timer.follow(event, view, tier);
        }
        self.holds.follow(event);
    }

    fn check_cluster(&self, topo: &Topology) -> Result<(), InputError> {
        resolve_level(topo, self.field, &self.level).map(|_| ())
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        let tier = self.level_tier(view);
        let next_deadline = self.timer.as_mut().and_then(|t| t.expire(view));
        if let Some(t) = &mut self.timer {
            t.tune(view, tier, out);
        }
        // Whether a job fits depends only on its size and mode, and a larger job of the same
        // mode fits no better: remember the smallest that did not, per mode.
        let mut smallest_unfit = [u32::MAX; 3];
        for &job in view.queued.iter() {
            let n = view.job(job).gpus;
            let mode = self.mode_at(view, job);
            if n < smallest_unfit[mode as usize] && fits(view, mode, tier, n) {
                if !self.make_room(view, job, mode, tier, out) {
                    self.place(view, job, mode, tier, out);
                }
                return;
            }
            if mode == Mode::Required && view.cluster.free_count() >= n {
                if self.make_room(view, job, mode, tier, out) {
                    return;
                }
                let deadline = self.timer.as_ref().and_then(|t| t.deadline(job));
                self.holds.note(view, job, tier, deadline, out);
            }
            smallest_unfit[mode as usize] = smallest_unfit[mode as usize].min(n);
            if self.strict {
                break;
            }
        }
        if let Some(m) = &mut self.migrator {
            m.try_reconsolidate(view, out);
        }
        if let Some(d) = next_deadline {
            if self.wake_requested.is_none_or(|r| r <= view.now || d < r) {
                self.wake_requested = Some(d);
                out.push(Decision::WakeAt(d));
            }
        }
    }
}

impl KueueTas {
    /// With eviction, moves server-local jobs so that `job` gets a domain of its level (or
    /// its tightest tier, if tighter) that the free GPUs do not offer; `true` if it did.
    fn make_room(&mut self, view: &View, job: JobId, mode: Mode, tier: Tier, out: &mut Vec<Decision>) -> bool {
        let Some(m) = &mut self.migrator else { return false };
        let n = view.job(job).gpus;
        let base = m.base(view, n);
        let wanted = match mode {
            Mode::Unconstrained => base,
            // Room is made inside one domain of the job's tightest tier: for a required level
            // that cannot hold the job, that domain would cross the level.
            Mode::Required if base > tier => return false,
            Mode::Required | Mode::Preferred => base.max(tier),
        };
        view.cluster.max_free_at(wanted) < n && m.try_make_room(view, job, out)
    }

    fn place(&self, view: &View, job: JobId, mode: Mode, tier: Tier, out: &mut Vec<Decision>) {
        let n = view.job(job).gpus;
        let gpus = match mode {
            Mode::Unconstrained => place_least_free(view, n),
            Mode::Required | Mode::Preferred => place_best_fit(view, tier, n),
        };
        let waited_s = (view.now - view.run(job).enqueued_at).as_secs_f64();
        let placed = view.topo.tier_of(&gpus);
        let reason = if self.mode == Mode::Required && placed > tier {
            Reason::TimerExpired { tier: placed, waited_s, slowdown: view.estimate_slowdown(job, &gpus) }
        } else {
            Reason::wanted_tier(placed, waited_s)
        };
        out.push(Decision::Place { job, gpus, reason });
    }
}
