//! `strict`: always consolidate. Each job waits, without any time limit, for a placement at
//! its tightest tier — the tightest tier that holds its GPU count on an empty cluster (one
//! server if it fits in one, else one rack, ...) — and never takes a looser one. It is the
//! consolidation constraint Tiresias (NSDI 2019) describes production schedulers enforcing,
//! which keeps jobs waiting while enough GPUs are free elsewhere, and which delay scheduling
//! relaxes with a timer; `slurm` with an unbounded wait behaves the same way.
//!
//! Jobs are considered first come, first served. With `backfill=on` (the default) a job
//! waiting for its tier does not hold up the jobs behind it: on every pass the
//! earliest-submitted job whose tightest tier has room now starts there (best fit, as under
//! `consolidate`); with `backfill=off` the first job in the queue blocks those behind it.
//!
//! No starvation protection beyond that definition: a job may wait for as long as other jobs
//! keep its tier fragmented. It cannot wait forever: once no job runs, the cluster is empty
//! and every job's tightest tier is free, so whenever jobs are queued either something runs
//! (and will end) or the first job in the queue starts. A run under `strict` always ends.
//!
//! `quota=on` respects the tenants' quotas ([`super::mechanisms::quota`]): jobs within quota first, a job
//! within quota short of free GPUs takes them back from borrowers (then waits for its tier as
//! any job does), and no job borrows GPUs a waiting job within quota needs; `restore_s`
//! (default 30) is what a reclaimed job pays.

use super::info::{PolicyInfo, BACKFILL, QUOTA, RESTORE_QUOTA};
use super::mechanisms::placement::TierCapacity;
use super::mechanisms::quota::{self, next_step, FcfsQuota, QuotaStep};
use super::{on_off, Decision, Policy, PolicySpec, SizeClassQueue, View};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use std::collections::BTreeSet;

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "strict",
    summary: "First come, first served with backfill; every job waits, without limit, for its tightest tier.",
    source: "the consolidation constraint Tiresias (Gu et al., NSDI 2019) describes",
    options: &[BACKFILL, QUOTA, RESTORE_QUOTA],
    build: |spec| Ok(Box::new(Strict::from_spec(spec)?)),
};

pub struct Strict {
    queue: SizeClassQueue,
    backfill: bool,
    caps: Option<TierCapacity>,
    /// Jobs that arrived or were requeued and have not been told why they wait.
    to_note: BTreeSet<JobId>,
    quota: Option<FcfsQuota>,
}

impl Strict {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Strict, InputError> {
        Ok(Strict {
            queue: SizeClassQueue::default(),
            backfill: spec.take_bool("backfill", true)?,
            caps: None,
            to_note: BTreeSet::new(),
            quota: FcfsQuota::from_spec(spec, None)?,
        })
    }
}

impl Policy for Strict {
    fn spec(&self) -> String {
        format!("strict:backfill={}{}", on_off(self.backfill), FcfsQuota::spec_suffix(&self.quota, true))
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        match &mut self.quota {
            Some(q) => q.on_event(event, view),
            None => self.queue.track(event, view),
        }
        match *event {
            SimEvent::Arrived { job } | SimEvent::Preempted { job, .. } => {
                self.to_note.insert(job);
            }
            SimEvent::Placed { job, .. } => {
                self.to_note.remove(&job);
            }
            _ => {}
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        let caps = self.caps.get_or_insert_with(|| TierCapacity::new(view.topo));
        let fits = |size: u32| caps.base(size).is_some_and(|tier| view.cluster.max_free_at(tier) >= size);
        let next = match &self.quota {
            Some(q) => match next_step(&q.queue, &q.book, view, self.backfill, |g, _| fits(g)) {
                Some(QuotaStep::Reclaim { for_job, victims }) => {
                    // Borrowed GPUs are given back; the job is placed in a later pass.
                    quota::reclaim(for_job, &victims, q.restore_s, out);
                    return;
                }
                Some(QuotaStep::Place(job, n)) => Some((job, n)),
                None => None,
            },
            None if self.backfill => self.queue.first_where(fits),
            None => self.queue.head().filter(|&(_, s)| fits(s)),
        };
        if let Some((job, size)) = next {
            let (tier, gpus) = view.cluster.place_tightest(view.topo, size).expect("its tier has room");
            let waited_s = (view.now - view.run(job).enqueued_at).as_secs_f64();
            out.push(Decision::Place { job, gpus, reason: Reason::wanted_tier(tier, waited_s) });
            return;
        }
        for job in std::mem::take(&mut self.to_note) {
            let size = view.job(job).gpus;
            let wanted = caps.base(size).unwrap_or(view.topo.top_tier());
            let best = view.cluster.place_tightest(view.topo, size);
            out.push(Decision::Wait {
                job,
                reason: Reason::WaitingForTier {
                    wanted,
                    left_s: f64::INFINITY,
                    best_now: best.as_ref().map(|(t, _)| *t),
                    slowdown: best.as_ref().map(|(_, g)| view.estimate_slowdown(job, g)).unwrap_or(0.0),
                },
            });
        }
    }
}
