//! `slurm`: the hand-set delay timer operators use today, Slurm's
//! `--switches=<count>[@<max-time>]` under `TopologyPlugin=topology/tree` (sbatch(1): "the
//! maximum count of leaf switches desired for the job allocation and optionally the maximum
//! time to wait for that number of switches. If Slurm finds an allocation containing more
//! switches than the count specified, the job remains pending until it either finds an
//! allocation with desired switch count or the time limit expires").
//!
//! A leaf switch is the switch right above a server (a rack's top-of-rack switch in the
//! parametric topologies). A job waits, from its submission, up to `wait_s` seconds for a
//! placement under at most `switches` leaf switches — or, for a job too large for that many
//! even on an empty cluster, under the fewest that can hold it (what a user asking for the
//! tightest placement the job can have would request) — then takes the tightest placement free
//! (Slurm's tree plugin: "the lowest level switch in the hierarchy that can satisfy a job's
//! request", then best fit below it — `place_tightest` here). Jobs are considered first come,
//! first served, and a waiting job does not hold up the jobs behind it (Slurm's backfill).
//!
//! Defaults: `switches=1`, `wait_s=300` — the cap Slurm puts on every job's wait unless the
//! operator raises it (`SchedulerParameters=max_switch_wait`, default 300 s: SchedMD/slurm
//! `src/slurmctld/job_mgr.c`, `_max_switch_wait`). Sites raise it to hours or days: the
//! `slurm.conf` that Azure/cyclecloud-slurm writes sets `max_switch_wait=24:00:00` and
//! suggests `--switches 1` (`cloud_bursting/slurm-23.11.9-1/scheduler/slurm-scheduler-builder.sh`);
//! `wait_s=86400` models that, `wait_s=0` is `consolidate`.
//!
//! `block=on` places as Slurm's `topology/block` plugin does ([`block`]): the
//! blocks are the leaf switches, and a job is confined to the best-fitting aggregated block
//! of the smallest level of `block_sizes` that holds it. `switches` is topology/tree's and
//! is refused with it. The block plugin has no wait limit, so `wait_s` defaults to `off`
//! there (a job waits until a block holds it); a number of seconds is Proxima's timer, after
//! which the job takes the tightest placement free, as under the tree.
//!
//! `wait_s=auto` tunes the wait online as `dally` tunes its timers ([`super::mechanisms::level_timer`]):
//! each job waits at most what it stands to gain from the tier its rule wants (a leaf switch
//! or a block; a job its rule spreads wider gets no tuned wait). Neither plugin has it.
//!
//! `evict=on` defragments through the [`super::mechanisms::migrate`] Migrator, as `consolidate:migrate=on`
//! does: queued jobs first (room is made for the job about to start looser than its tightest
//! tier, then for a waiting job no rule-abiding placement is free for), then a job running
//! looser than its tightest tier moves when room for it appears. Every moved job pays
//! `restore_s` (default 30), under the guard rails `min_run_s` (600) and `max_preempt` (2).
//!
//! `quota=on` respects the tenants' quotas ([`super::mechanisms::quota`]): jobs within quota first (each
//! class in submission order, timers as above), a job within quota short of free GPUs takes
//! them back from borrowers, and no job borrows GPUs a waiting job within quota needs; a
//! reclaimed job pays `restore_s` (default 30) and waits again from its requeue, as a job
//! requeued in Slurm is pending anew. It is not combined with `evict=on`: both checkpoint
//! jobs, and room made for a waiting job would pass over the quota's order.

use super::info::{
    opt, opt_with, profile, profile_error,
    OptionKind::{BlockSizes, Seconds, SecondsAutoOrOff, Switch, Whole},
    PolicyInfo,
};
use super::mechanisms::level_timer::LevelTimer;
use super::mechanisms::migrate::{MigrateOptions, Migrator};
use super::mechanisms::quota::{self, next_step, FcfsQuota, QuotaStep};
use super::{Decision, Policy, PolicySpec, View};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::tenants::TenantId;
use crate::time::SimTime;
use crate::topology::Tier;
use rule::Rule;
use std::collections::{BTreeMap, BTreeSet};

pub mod block;
mod rule;

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "slurm",
    summary: "A job waits up to `wait_s` for a placement under at most `switches` leaf switches, then takes the tightest free. With `block=on`, Slurm's topology/block placement instead: the leaf switches are the blocks, and a job goes to the best-fitting aligned run of 2^k blocks of the smallest size in `block_sizes` that holds it, waiting (by default as long as it takes) when none does. With `evict=on`, running jobs are checkpointed and moved to defragment, as `consolidate:migrate=on` does.",
    source: "Slurm `--switches=N@max-time` (sbatch(1)); `max_switch_wait` default 300 s (SchedMD/slurm `src/slurmctld/job_mgr.c`); `src/plugins/topology/block/eval_nodes_block.c`, `block_record.c` (default block sizes)",
    options: &[
        opt("switches", Whole, "1", "leaf switches a placement may span while the job waits (not with block=on)"),
        opt("wait_s", SecondsAutoOrOff, "300", "how long a job waits for that; with block=on the default is off (as long as it takes, as Slurm's block plugin) and a number is Proxima's timer; auto: tuned online as dally's timers (Proxima's)"),
        profile(Some("wait_s=auto")),
        profile_error("wait_s=auto"),
        opt("block", Switch, "off", "on: Slurm's topology/block placement, the leaf switches as blocks"),
        opt_with("block_sizes", BlockSizes, "1/2/4/8/16", "aggregated block sizes a job may be confined to, in blocks, from 1 up in powers of two", "block=on"),
        opt("evict", Switch, "off", "on: move running jobs to tighter placements and out of the way"),
        opt_with("restore_s", Seconds, "30", "checkpoint and restore cost a moved (evict=on) or reclaimed (quota=on) job pays", "evict=on"),
        opt_with("min_run_s", Seconds, "600", "a job runs this long before it may be moved", "evict=on"),
        opt_with("max_preempt", Whole, "2", "moves per job at most", "evict=on"),
        opt("quota", Switch, "off", "on: tenants' quotas, with jobs beyond them reclaimable (not with evict=on)"),
    ],
    build: |spec| Ok(Box::new(Slurm::from_spec(spec)?)),
};

pub struct Slurm {
    rule: Rule,
    /// How long a job waits for its rule; `None`: as long as it takes (`block=on` only).
    wait_s: Option<f64>,
    /// `wait_s=auto`: the wait tuned online, instead of `wait_s`.
    timer: Option<LevelTimer>,
    /// Queued jobs by (timer expired, GPUs), each group in submission order.
    groups: BTreeMap<(bool, u32), BTreeSet<JobId>>,
    /// Per queued job: its group key and its deadline.
    waiters: BTreeMap<JobId, ((bool, u32), Option<SimTime>)>,
    deadlines: BTreeSet<(SimTime, JobId)>,
    to_note: BTreeSet<JobId>,
    wake_requested: Option<SimTime>,
    quota: Option<FcfsQuota>,
    migrator: Option<Migrator>,
}

impl Slurm {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Slurm, InputError> {
        let tuned = spec.options.get("wait_s").is_some_and(|v| v == "auto");
        let timer = if tuned { LevelTimer::from_spec(spec, "wait_s")? } else { None };
        let (rule, wait_s) = Rule::from_spec(spec)?;
        let (migrator, quota) = if spec.take_bool("evict", false)? {
            let options = MigrateOptions::from_spec(spec)?;
            if FcfsQuota::from_spec(spec, Some(options.restore_s))?.is_some() {
                return Err(InputError::new(
                    "evict",
                    "not with quota=on: reclaiming and evicting both checkpoint jobs, and room made for a waiting job would pass over the quota's order",
                ));
            }
            (Some(Migrator::new(options)), None)
        } else {
            if let Some(key) = ["min_run_s", "max_preempt"].into_iter().find(|k| spec.options.contains_key(*k)) {
                return Err(InputError::new(key, "applies to evict=on only"));
            }
            (None, FcfsQuota::from_spec(spec, None)?)
        };
        Ok(Slurm {
            rule,
            wait_s,
            timer,
            groups: BTreeMap::new(),
            waiters: BTreeMap::new(),
            deadlines: BTreeSet::new(),
            to_note: BTreeSet::new(),
            wake_requested: None,
            quota,
            migrator,
        })
    }

    /// When `job`, starting to wait now, stops waiting for its rule: `wait_s` after now, or
    /// what the tuner gives it for the tier its rule wants.
    fn deadline(&mut self, view: &View, job: JobId) -> Option<SimTime> {
        match &mut self.timer {
            Some(timer) => {
                self.rule.prepare(view);
                timer.start(view, job, self.rule.wanted_tier(view, view.job(job).gpus));
                timer.deadline(job)
            }
            None => self.wait_s.map(|w| view.now + SimTime::from_secs_f64(w)),
        }
    }

    fn regroup(&mut self, job: JobId, tenant: TenantId, key: (bool, u32)) {
        if let Some(q) = &mut self.quota {
            q.queue.insert(job, tenant, key.0 as u8, key.1);
        }
        if let Some((old, _)) = self.waiters.get(&job).copied() {
            if let Some(set) = self.groups.get_mut(&old) {
                set.remove(&job);
                if set.is_empty() {
                    self.groups.remove(&old);
                }
            }
        }
        self.groups.entry(key).or_default().insert(job);
    }

    fn forget(&mut self, job: JobId) {
        if let Some(q) = &mut self.quota {
            q.queue.remove(job);
        }
        if let Some((key, deadline)) = self.waiters.remove(&job) {
            if let Some(set) = self.groups.get_mut(&key) {
                set.remove(&job);
                if set.is_empty() {
                    self.groups.remove(&key);
                }
            }
            if let Some(d) = deadline {
                self.deadlines.remove(&(d, job));
            }
        }
        self.to_note.remove(&job);
    }

    /// With `evict=on`, moves jobs out of the way of `job` if it would otherwise start (or
    /// wait) looser than its tightest tier, as `consolidate:migrate=on` does.
    fn make_room(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) -> bool {
        let Some(m) = &mut self.migrator else { return false };
        let n = view.job(job).gpus;
        let base = m.base(view, n);
        view.cluster.max_free_at(base) < n && m.try_make_room(view, job, out)
    }

    /// With `evict=on` and no job to start: room for the earliest waiting job that could
    /// have it (its timer running, its GPU count free), else a move back to a tighter
    /// placement for a job running spread.
    fn defragment(&mut self, view: &View, free: u32, out: &mut Vec<Decision>) -> bool {
        if self.migrator.is_none() {
            return false;
        }
        let mut heads: Vec<JobId> = self
            .groups
            .iter()
            .filter(|(&(expired, n), _)| !expired && free >= n)
            .filter_map(|(_, set)| set.first().copied())
            .collect();
        heads.sort_unstable();
        if heads.into_iter().any(|job| self.make_room(view, job, out)) {
            return true;
        }
        self.migrator.as_mut().is_some_and(|m| m.try_reconsolidate(view, out))
    }
}

impl Policy for Slurm {
    fn spec(&self) -> String {
        let rule = match &self.rule {
            Rule::Tree { switches, .. } => format!("switches={switches}"),
            Rule::Block { rule, .. } => rule.spec(),
        };
        let wait = match &self.timer {
            Some(t) => t.spec_value(),
            None => self.wait_s.map_or("off".to_string(), |w| w.to_string()),
        };
        let evict = self.migrator.as_ref().map(|m| format!(",evict=on,{}", m.options().spec())).unwrap_or_default();
        format!("slurm:{rule},wait_s={wait}{evict}{}", FcfsQuota::spec_suffix(&self.quota, true))
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        if let Some(q) = &mut self.quota {
            q.book.on_event(event, view);
        }
        if let Some(m) = &mut self.migrator {
            m.on_event(event, view);
        }
        if let Some(t) = &mut self.timer {
            t.on_event(event, view);
            if let SimEvent::Placed { job, tier, .. } = *event {
                t.placed(view, job, tier <= self.rule.wanted_tier(view, view.job(job).gpus));
            }
        }
        match *event {
            // A requeued job (reclaimed under quotas, or moved) waits anew, as an arrival does.
            SimEvent::Arrived { job } | SimEvent::Preempted { job, .. } => {
                let n = view.job(job).gpus;
                let deadline = self.deadline(view, job);
                let key = (deadline.is_some_and(|d| d <= view.now), n);
                self.regroup(job, view.job(job).tenant, key);
                self.waiters.insert(job, (key, deadline));
                if let Some(d) = deadline.filter(|_| !key.0) {
                    self.deadlines.insert((d, job));
                }
                self.to_note.insert(job);
            }
            SimEvent::Placed { job, .. } => self.forget(job),
            _ => {}
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        self.rule.prepare(view);
        if let Some(t) = &mut self.timer {
            t.expire(view);
            t.tune(view, Tier(1.min(view.topo.top_tier().0)), out);
        }
        while let Some(&(d, job)) = self.deadlines.first() {
            if d > view.now {
                break;
            }
            self.deadlines.remove(&(d, job));
            let (key, deadline) = self.waiters[&job];
            let expired = (true, key.1);
            self.regroup(job, view.job(job).tenant, expired);
            self.waiters.insert(job, (expired, deadline));
            self.to_note.insert(job);
        }
        let free = view.cluster.free_count();
        let rule = &self.rule;
        // A job may start when its GPUs are free and its timer ran out, or its rule holds it
        // now, or no rule could ever hold it.
        let fits = |n: u32, expired: bool| free >= n && (expired || rule.never(n) || rule.fits(view, n));
        let mut next: Option<JobId> = None;
        if let Some(q) = &self.quota {
            match next_step(&q.queue, &q.book, view, true, |n, expired| fits(n, expired == 1)) {
                Some(QuotaStep::Reclaim { for_job, victims }) => {
                    quota::reclaim(for_job, &victims, q.restore_s, out);
                    return;
                }
                Some(QuotaStep::Place(job, _)) => next = Some(job),
                None => {}
            }
        } else {
            for (&(expired, n), set) in &self.groups {
                if fits(n, expired) {
                    let first = *set.first().expect("groups are never empty");
                    if next.is_none_or(|j| first < j) {
                        next = Some(first);
                    }
                }
            }
        }
        if let Some(job) = next {
            if self.make_room(view, job, out) {
                return;
            }
            let n = view.job(job).gpus;
            let waited_s = (view.now - view.run(job).enqueued_at).as_secs_f64();
            let by_rule = self.rule.place(view, n);
            let held = by_rule.is_some() || self.rule.never(n);
            let gpus =
                by_rule.unwrap_or_else(|| view.cluster.place_tightest(view.topo, n).expect("the GPUs are free").1);
            let tier = view.topo.tier_of(&gpus);
            let reason = if held {
                Reason::wanted_tier(tier, waited_s)
            } else {
                Reason::TimerExpired { tier, waited_s, slowdown: view.estimate_slowdown(job, &gpus) }
            };
            out.push(Decision::Place { job, gpus, reason });
            return;
        }
        if self.defragment(view, free, out) {
            return;
        }
        for job in std::mem::take(&mut self.to_note) {
            let Some(&((expired, n), deadline)) = self.waiters.get(&job) else { continue };
            if expired || self.rule.never(n) {
                out.push(Decision::Wait { job, reason: Reason::NoRoom { free } });
                continue;
            }
            let best = view.cluster.place_tightest(view.topo, n);
            out.push(Decision::Wait {
                job,
                reason: Reason::WaitingForTier {
                    wanted: self.rule.wanted_tier(view, n),
                    left_s: deadline.map_or(f64::INFINITY, |d| (d.max(view.now) - view.now).as_secs_f64()),
                    best_now: best.as_ref().map(|(t, _)| *t),
                    slowdown: best.as_ref().map(|(_, g)| view.estimate_slowdown(job, g)).unwrap_or(0.0),
                },
            });
        }
        if let Some(&(d, _)) = self.deadlines.first() {
            if self.wake_requested.is_none_or(|r| r <= view.now || d < r) {
                self.wake_requested = Some(d);
                out.push(Decision::WakeAt(d));
            }
        }
    }
}
