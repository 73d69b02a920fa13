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
//! `quota=on` respects the tenants' quotas ([`super::quota`]): jobs within quota first (each
//! class in submission order, timers as above), a job within quota short of free GPUs takes
//! them back from borrowers, and no job borrows GPUs a waiting job within quota needs; a
//! reclaimed job pays `restore_s` (default 30) and waits again from its requeue, as a job
//! requeued in Slurm is pending anew.

use super::quota::{self, next_step, FcfsQuota, QuotaStep};
use super::{Decision, Policy, PolicySpec, View};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::tenants::TenantId;
use crate::time::SimTime;
use crate::topology::{GpuId, NodeId, Tier};
use std::collections::{BTreeMap, BTreeSet};

pub struct Slurm {
    switches: u32,
    wait_s: f64,
    /// Queued jobs by (timer expired, GPUs), each group in submission order.
    groups: BTreeMap<(bool, u32), BTreeSet<JobId>>,
    /// Per queued job: its group key and its deadline.
    waiters: BTreeMap<JobId, ((bool, u32), SimTime)>,
    deadlines: BTreeSet<(SimTime, JobId)>,
    to_note: BTreeSet<JobId>,
    wake_requested: Option<SimTime>,
    /// Leaf switch sizes in GPUs, largest first.
    leaf_sizes: Option<Vec<u32>>,
    quota: Option<FcfsQuota>,
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

impl Slurm {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Slurm, InputError> {
        let switches = spec.take_u32("switches", 1)?;
        if switches == 0 {
            return Err(InputError::new("switches", "expected at least 1 leaf switch"));
        }
        Ok(Slurm {
            switches,
            wait_s: spec.take_f64("wait_s", 300.0, 0.0)?,
            groups: BTreeMap::new(),
            waiters: BTreeMap::new(),
            deadlines: BTreeSet::new(),
            to_note: BTreeSet::new(),
            wake_requested: None,
            leaf_sizes: None,
            quota: FcfsQuota::from_spec(spec, None)?,
        })
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
            self.deadlines.remove(&(deadline, job));
        }
        self.to_note.remove(&job);
    }

    /// The leaf switches a job of `n` GPUs may span: `switches`, or the fewest that hold it
    /// on an empty cluster if that is more.
    fn allowed(&mut self, view: &View, n: u32) -> u32 {
        let switches = self.switches;
        allowed_among(self.leaf_sizes(view), switches, n)
    }

    /// Leaf switch sizes in GPUs, largest first (computed once).
    fn leaf_sizes(&mut self, view: &View) -> &[u32] {
        self.leaf_sizes.get_or_insert_with(|| {
            let mut v: Vec<u32> = if view.topo.tier_count() < 2 {
                Vec::new()
            } else {
                view.topo.tier_nodes(Tier(1)).iter().map(|&l| view.topo.node(l).gpu_count).collect()
            };
            v.sort_unstable_by(|a, b| b.cmp(a));
            v
        })
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

    /// A placement under at most `switches` leaf switches: the tightest placement free if it
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

    fn wanted_tier(view: &View, allowed: u32) -> Tier {
        if allowed == 1 && view.topo.tier_count() >= 2 {
            Tier(1)
        } else {
            view.topo.top_tier()
        }
    }
}

impl Policy for Slurm {
    fn spec(&self) -> String {
        format!("slurm:switches={},wait_s={}{}", self.switches, self.wait_s, FcfsQuota::spec_suffix(&self.quota, true))
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        if let Some(q) = &mut self.quota {
            q.book.on_event(event, view);
        }
        match *event {
            // A requeued job (reclaimed under quotas) waits anew, as an arrival does.
            SimEvent::Arrived { job } | SimEvent::Preempted { job, .. } => {
                let deadline = view.now + SimTime::from_secs_f64(self.wait_s);
                let key = (deadline <= view.now, view.job(job).gpus);
                self.regroup(job, view.job(job).tenant, key);
                self.waiters.insert(job, (key, deadline));
                if !key.0 {
                    self.deadlines.insert((deadline, job));
                }
                self.to_note.insert(job);
            }
            SimEvent::Placed { job, .. } => self.forget(job),
            _ => {}
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
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
        let mut next: Option<(JobId, bool)> = None;
        if self.quota.is_some() {
            let switches = self.switches;
            let sizes = self.leaf_sizes(view).to_vec();
            let fits = |n: u32, expired: u8| {
                free >= n && (expired == 1 || Self::within_switches(view, n, allowed_among(&sizes, switches, n)))
            };
            let q = self.quota.as_ref().expect("checked");
            match next_step(&q.queue, &q.book, view, true, fits) {
                Some(QuotaStep::Reclaim { for_job, victims }) => {
                    quota::reclaim(for_job, &victims, q.restore_s, out);
                    return;
                }
                Some(QuotaStep::Place(job, _)) => next = Some((job, q.queue.kind(job) == Some(1))),
                None => {}
            }
        } else {
            let keys: Vec<(bool, u32)> = self.groups.keys().copied().collect();
            for (expired, n) in keys {
                let ok = free >= n && (expired || Self::within_switches(view, n, self.allowed(view, n)));
                if ok {
                    let first = *self.groups[&(expired, n)].first().expect("groups are never empty");
                    if next.is_none_or(|(j, _)| first < j) {
                        next = Some((first, expired));
                    }
                }
            }
        }
        if let Some((job, expired)) = next {
            let n = view.job(job).gpus;
            let allowed = self.allowed(view, n);
            let waited_s = (view.now - view.run(job).enqueued_at).as_secs_f64();
            let gpus = if !expired || Self::within_switches(view, n, allowed) {
                Self::place_within(view, n, allowed)
            } else {
                view.cluster.place_tightest(view.topo, n).expect("the GPUs are free").1
            };
            let tier = view.topo.tier_of(&gpus);
            let reason = if leaf_switches(view, &gpus) <= allowed {
                Reason::wanted_tier(tier, waited_s)
            } else {
                Reason::TimerExpired { tier, waited_s, slowdown: view.estimate_slowdown(job, &gpus) }
            };
            out.push(Decision::Place { job, gpus, reason });
            return;
        }
        for job in std::mem::take(&mut self.to_note) {
            let Some(&((expired, n), deadline)) = self.waiters.get(&job) else { continue };
            if expired {
                out.push(Decision::Wait { job, reason: Reason::NoRoom { free } });
                continue;
            }
            let best = view.cluster.place_tightest(view.topo, n);
            let allowed = self.allowed(view, n);
            out.push(Decision::Wait {
                job,
                reason: Reason::WaitingForTier {
                    wanted: Self::wanted_tier(view, allowed),
                    left_s: (deadline.max(view.now) - view.now).as_secs_f64(),
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
