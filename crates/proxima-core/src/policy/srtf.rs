//! `srtf`: shortest remaining time first, for reference — a scheduler that knows every job's
//! remaining work, which no real scheduler does (Tiresias, NSDI 2019, compares with it for
//! the same reason; its simulator's `shortest` scheme, SymbioticLab/Tiresias
//! `simulator/run_sim.py`). It is clairvoyant by definition: it reads each job's true
//! iterations from the trace, and has no `runtime=estimate` as `dally` has
//! ([`super::mechanisms::runtime`]).
//!
//! A job's remaining time is its remaining work at its ideal iteration time (tightest
//! placement, no contention). Jobs are ordered by it, shortest first (ties: a running job
//! before a waiting one, then submission order), and admitted greedily as in `tiresias`: each
//! job whose GPUs fit in what the jobs before it left of the cluster's total runs, the others
//! wait. With `preempt=on` (the default, SRTF proper) a running job not admitted any more —
//! a shorter job arrived or found room — is checkpointed and pays `restore_s` (default 30 s,
//! as under `dally`) when it restarts; with `preempt=off` running jobs keep their GPUs and
//! the order only decides who starts next (shortest job first among those that fit).
//! Admitted jobs get the tightest placement free now, as under `consolidate`.
//!
//! A running job's remaining time only shrinks, and a waiting job's stays put, so a job is
//! preempted only for one strictly shorter than itself, never the other way round: runs end.
//!
//! **Quotas** (`quota=on`, [`super::mechanisms::quota`]): the walk admits in two passes, first each
//! tenant's jobs within its quota, then everyone's in what is left
//! ([`quota::admit_two_phase`]), in the order above (with `preempt=off`, running jobs first,
//! so that only a reclaim displaces them).

use super::info::{opt, OptionKind::Switch, PolicyInfo, QUOTA, RESTORE};
use super::mechanisms::quota::{self, QuotaBook};
use super::{on_off, remaining_ideal, Decision, Policy, PolicySpec, View};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Bound;

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "srtf",
    summary: "Shortest remaining ideal time first, preemptive (`preempt=off`: shortest job first), tightest placement free now. Clairvoyant: it reads every job's true remaining run time from the trace, which no real scheduler knows. A reference, not a baseline.",
    source: "the Tiresias simulator's `shortest` scheme",
    options: &[opt("preempt", Switch, "on", "off: shortest job first, no preemption"), RESTORE, QUOTA],
    build: |spec| Ok(Box::new(Srtf::from_spec(spec)?)),
};

pub struct Srtf {
    preempt: bool,
    restore_s: f64,
    /// Waiting jobs by GPU count, each group ordered by (remaining µs, job).
    waiting: BTreeMap<u32, BTreeSet<(SimTime, JobId)>>,
    waiting_key: BTreeMap<JobId, SimTime>,
    /// GPUs the waiting jobs ask for together.
    waiting_gpus: u64,
    /// Running jobs by their remaining time when they started: an upper bound of it now.
    running_bound: BTreeSet<(SimTime, JobId)>,
    running_key: BTreeMap<JobId, SimTime>,
    dirty: bool,
    preempts: Vec<JobId>,
    places: VecDeque<JobId>,
    /// Who uses what, under `quota=on`.
    quota: Option<QuotaBook>,
}

impl Srtf {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Srtf, InputError> {
        Ok(Srtf {
            preempt: spec.take_bool("preempt", true)?,
            restore_s: spec.take_f64("restore_s", 30.0, 0.0)?,
            waiting: BTreeMap::new(),
            waiting_key: BTreeMap::new(),
            waiting_gpus: 0,
            running_bound: BTreeSet::new(),
            running_key: BTreeMap::new(),
            dirty: false,
            preempts: Vec::new(),
            places: VecDeque::new(),
            quota: spec.take_bool("quota", false)?.then(QuotaBook::default),
        })
    }

    fn wait(&mut self, view: &View, job: JobId) {
        let key = remaining_ideal(view, job);
        self.waiting.entry(view.job(job).gpus).or_default().insert((key, job));
        self.waiting_key.insert(job, key);
        self.waiting_gpus += view.job(job).gpus as u64;
        self.dirty = true;
    }

    fn unwait(&mut self, view: &View, job: JobId) {
        if let Some(key) = self.waiting_key.remove(&job) {
            let g = view.job(job).gpus;
            self.waiting_gpus -= g as u64;
            if let Some(set) = self.waiting.get_mut(&g) {
                set.remove(&(key, job));
                if set.is_empty() {
                    self.waiting.remove(&g);
                }
            }
        }
    }

    fn unrun(&mut self, job: JobId) {
        if let Some(key) = self.running_key.remove(&job) {
            self.running_bound.remove(&(key, job));
        }
    }

    /// The shortest waiting job after position `after` (a key and whether it belongs to a
    /// running job) with at most `room` GPUs.
    fn next_waiting(&self, after: Option<(SimTime, bool, JobId)>, room: u64) -> Option<(SimTime, JobId)> {
        let room = room.min(u32::MAX as u64) as u32;
        self.waiting
            .range(..=room)
            .filter_map(|(_, set)| match after {
                None => set.first().copied(),
                // Running jobs sort before waiting ones of equal key.
                Some((k, true, _)) => set.range((k, JobId(0))..).next().copied(),
                Some((k, false, j)) => set.range((Bound::Excluded((k, j)), Bound::Unbounded)).next().copied(),
            })
            .min()
    }

    /// Whether the order may take GPUs from a running job: only if the waiting jobs do not
    /// all fit in the free GPUs and some waiting job is shorter than some running job.
    fn may_preempt(&self, view: &View) -> bool {
        if self.waiting_gpus <= view.cluster.free_count() as u64 {
            return false;
        }
        let shortest_waiting = self.waiting.values().filter_map(|s| s.first()).map(|&(k, _)| k).min();
        match (shortest_waiting, self.running_bound.last()) {
            (Some(w), Some(&(r, _))) => w < r,
            _ => false,
        }
    }

    /// The walk under quotas: every job in the order of [`Self::walk`] (running ones first
    /// with `preempt=off`), admitted in two passes.
    fn walk_with_quota(&mut self, view: &View) {
        let mut order: Vec<(bool, SimTime, bool, JobId)> = self
            .running_key
            .keys()
            .map(|&j| (self.preempt, remaining_ideal(view, j), false, j))
            .chain(self.waiting_key.iter().map(|(&j, &key)| (true, key, true, j)))
            .collect();
        order.sort_unstable();
        let jobs: Vec<(JobId, u32, crate::tenants::TenantId)> =
            order.iter().map(|&(.., j)| (j, view.job(j).gpus, view.job(j).tenant)).collect();
        let mut admitted = Vec::new();
        quota::admit_two_phase(view, &jobs, &mut admitted);
        for (&(_, _, waiting, job), ok) in order.iter().zip(admitted) {
            match (waiting, ok) {
                (false, false) => self.preempts.push(job),
                (true, true) => self.places.push_back(job),
                _ => {}
            }
        }
    }

    /// The exact greedy walk over running and waiting jobs in order of remaining time now.
    /// `candidate` is always the first waiting job not passed yet that fits the room left:
    /// passing a running job that fits shrinks the room, and only then may it change.
    fn walk(&mut self, view: &View) {
        let mut running: Vec<(SimTime, JobId)> =
            self.running_key.keys().map(|&j| (remaining_ideal(view, j), j)).collect();
        running.sort_unstable();
        let mut room = view.topo.gpu_count() as u64;
        let mut next_run = running.iter().peekable();
        let mut candidate = self.next_waiting(None, room);
        loop {
            let take_running = match (next_run.peek(), candidate) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(&&(rk, _)), Some((wk, _))) => rk <= wk,
            };
            if take_running {
                let &(key, job) = next_run.next().expect("peeked");
                let g = view.job(job).gpus as u64;
                if g > room {
                    self.preempts.push(job);
                    continue;
                }
                room -= g;
                if candidate.is_some_and(|(_, w)| view.job(w).gpus as u64 > room) {
                    candidate = self.next_waiting(Some((key, true, job)), room);
                }
            } else {
                let (key, job) = candidate.expect("chosen");
                room -= view.job(job).gpus as u64;
                self.places.push_back(job);
                candidate = self.next_waiting(Some((key, false, job)), room);
            }
        }
    }
}

impl Policy for Srtf {
    fn spec(&self) -> String {
        let quota = if self.quota.is_some() { ",quota=on" } else { "" };
        format!("srtf:preempt={},restore_s={}{quota}", on_off(self.preempt), self.restore_s)
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        if let Some(book) = &mut self.quota {
            book.on_event(event, view);
        }
        match *event {
            SimEvent::Arrived { job } => self.wait(view, job),
            SimEvent::Preempted { job, .. } => {
                self.unrun(job);
                self.wait(view, job);
            }
            SimEvent::Placed { job, .. } => {
                self.unwait(view, job);
                let key = remaining_ideal(view, job);
                self.running_bound.insert((key, job));
                self.running_key.insert(job, key);
            }
            SimEvent::Completed { job } => {
                self.unrun(job);
                self.dirty = true;
            }
            _ => {}
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        if !self.preempts.is_empty() {
            let for_job = *self.places.front().expect("a job is preempted only for a waiting one");
            let tier = view.topo.top_tier();
            let cost_s = self.restore_s;
            for job in std::mem::take(&mut self.preempts) {
                let reclaimed = self.quota.as_ref().is_some_and(|b| b.is_borrowing(view, view.job(job).tenant));
                let reason = Reason::preempted_for(for_job, tier, cost_s, reclaimed);
                out.push(Decision::Preempt { job, restore_s: cost_s, reason });
            }
            return;
        }
        if self.quota.is_some() && self.places.is_empty() {
            // Under quotas every decision comes from the full walk, made when something changed.
            if std::mem::take(&mut self.dirty) {
                self.walk_with_quota(view);
                if !self.preempts.is_empty() || !self.places.is_empty() {
                    self.schedule(view, out);
                }
            }
            return;
        }
        let next = match self.places.pop_front() {
            Some(job) => Some(job),
            None => {
                if self.preempt && std::mem::take(&mut self.dirty) && self.may_preempt(view) {
                    self.walk(view);
                    if !self.preempts.is_empty() || !self.places.is_empty() {
                        self.schedule(view, out);
                        return;
                    }
                }
                // No waiting job is ahead of a running one: the shortest that fits the
                // free GPUs starts.
                let free = view.cluster.free_count() as u64;
                self.next_waiting(None, free).map(|(_, job)| job)
            }
        };
        if let Some(job) = next {
            match view.cluster.place_tightest(view.topo, view.job(job).gpus) {
                Some((tier, gpus)) => out.push(Decision::Place { job, gpus, reason: Reason::TightestNow { tier } }),
                // The room the walk counted on is not there: a preemption it made was not
                // carried out (`replay::ForbidPreemption`, the what-if "had it not been
                // preempted"). Walk again when something changes.
                None => {
                    self.places.clear();
                    self.dirty = true;
                }
            }
        }
    }
}
