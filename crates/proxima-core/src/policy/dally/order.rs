//! `dally:order=las`: dally's placement, delay and network-sensitive preemption, serving
//! jobs in least-attained-service order instead of first come, first served.
//!
//! **Queues.** Attained service is GPUs × time making progress, as under `tiresias`
//! ([`crate::policy::mechanisms::las`]): a job enters queue 0 at its arrival and drops a queue each time
//! its attained service reaches the next threshold (`queues=3600/57600` GPU-seconds by
//! default, [`crate::policy::mechanisms::las::DALLY_LAS_THRESHOLDS_GPU_S`]). Within a queue, jobs keep the order in which they entered it. A waiting job's
//! rank is (queue, entry into it); under `order=fifo` it is the submission order, so that
//! both orders share one queue index.
//!
//! **Demotion happens only while a job runs** (waiting attains nothing). A job waiting for a
//! tight placement keeps its queue and its timer runs on. A job demoted while it ran and
//! then checkpointed (for a job of a higher queue, or by dally's own preemption) waits again
//! in its lower queue, keeping its place there, and starts a fresh wait, timers and all,
//! as every requeued `dally` job does: its sensitivity and gain are judged anew on the
//! network as it is now. Voluntary waiting (a sensitive job declining free GPUs for a
//! tighter tier) is not counted as service: the timers bound it already.
//!
//! **Service order and locality in one decision.** On each pass the waiters are walked in
//! rank order (one per queue-index group, its best ranked). The first that can be placed
//! within the tier it accepts is placed; before it, any better ranked waiter that cannot be
//! placed may checkpoint running jobs of strictly lower queues where that gets it a
//! placement within the tier it accepts ([`super::service`]: under the default
//! `service=exchange` only when the waiter saves more than its victims lose, the slowdown of
//! where they will resume included, and never a job already preempted `max_preempt` times;
//! under `service=priority` whenever the queues say so, as `tiresias` does). A sensitive job
//! still waiting for a server thus takes a server back from lower-queue jobs rather than any
//! GPUs anywhere. Dally's network-sensitive preemption (gain against cost) then runs as
//! under `order=fifo`, but never checkpoints a job of a higher queue than the one it serves.
//! Service-order preemption cannot cycle, since a victim ranks in a strictly lower queue
//! than the job it serves, and is not bounded by `min_run_s`.
//!
//! **Nothing of the future.** Under `order=las` the only remaining run times are the online
//! estimate from attained service and completed jobs ([`crate::policy::mechanisms::runtime`]);
//! `runtime=oracle` is refused.

use super::Dally;
use crate::cluster::JobId;
use crate::event::SimEvent;
use crate::policy::mechanisms::las;
use crate::policy::{Decision, View};
use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet};

/// A waiting job's place in the order: its queue, then when it entered it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Rank {
    pub queue: u8,
    pub seq: u64,
    pub job: JobId,
}

impl Rank {
    /// First come, first served: one queue, submission order.
    pub fn fifo(job: JobId) -> Rank {
        Rank { queue: 0, seq: 0, job }
    }
}

/// A job's attained service as the queues see it.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    queue: u8,
    seq: u64,
    gpus: u32,
    running: bool,
    /// Time making progress, over all runs.
    executed: SimTime,
    /// When the current run started making progress (after its restore).
    since: SimTime,
    deadline: Option<SimTime>,
}

/// The attained-service queues of the jobs in the system.
#[derive(Clone, Debug)]
pub(super) struct LasBook {
    thresholds_gpu_us: Vec<f64>,
    entries: BTreeMap<JobId, Entry>,
    demotions: BTreeSet<(SimTime, JobId)>,
    /// GPUs held by running jobs, per queue.
    running_gpus: Vec<u64>,
    next_seq: u64,
}

impl LasBook {
    pub fn new(thresholds_gpu_s: &[f64]) -> LasBook {
        LasBook {
            thresholds_gpu_us: thresholds_gpu_s.iter().map(|t| t * 1e6).collect(),
            entries: BTreeMap::new(),
            demotions: BTreeSet::new(),
            running_gpus: vec![0; thresholds_gpu_s.len() + 1],
            next_seq: 0,
        }
    }

    pub fn rank(&self, job: JobId) -> Rank {
        let e = &self.entries[&job];
        Rank { queue: e.queue, seq: e.seq, job }
    }

    pub fn queue(&self, job: JobId) -> u8 {
        self.entries.get(&job).map(|e| e.queue).unwrap_or(0)
    }

    /// The earliest demotion due, if any.
    pub fn next_demotion(&self) -> Option<SimTime> {
        self.demotions.first().map(|&(t, _)| t)
    }

    /// GPUs held by running jobs of queues below `queue` (in priority).
    pub(super) fn gpus_below(&self, queue: u8) -> u64 {
        self.running_gpus.iter().skip(queue as usize + 1).sum()
    }

    fn set_deadline(&mut self, job: JobId) {
        let e = self.entries.get_mut(&job).expect("tracked");
        if let Some(d) = e.deadline.take() {
            self.demotions.remove(&(d, job));
        }
        if e.running {
            e.deadline = las::demotion_time(&self.thresholds_gpu_us, e.queue, e.gpus, e.executed, e.since);
            if let Some(d) = e.deadline {
                self.demotions.insert((d, job));
            }
        }
    }

    /// Keeps the queues in step with the engine's events (before dally's own bookkeeping,
    /// which reads a requeued job's rank).
    pub fn on_event(&mut self, event: &SimEvent, view: &View) {
        let now = view.now;
        match *event {
            SimEvent::Arrived { job } => {
                let e = Entry { seq: self.next_seq, gpus: view.job(job).gpus, since: now, ..Entry::default() };
                self.next_seq += 1;
                self.entries.insert(job, e);
            }
            SimEvent::Placed { job, .. } => {
                let e = self.entries.get_mut(&job).expect("arrived");
                e.running = true;
                e.since = view.run(job).resume_at.max(now);
                self.running_gpus[e.queue as usize] += e.gpus as u64;
                self.set_deadline(job);
            }
            SimEvent::Preempted { job, .. } => {
                let e = self.entries.get_mut(&job).expect("arrived");
                e.executed = e.executed + SimTime(now.0.saturating_sub(e.since.0));
                e.running = false;
                self.running_gpus[e.queue as usize] -= e.gpus as u64;
                self.set_deadline(job);
            }
            SimEvent::Completed { job } => {
                if let Some(e) = self.entries.remove(&job) {
                    if let Some(d) = e.deadline {
                        self.demotions.remove(&(d, job));
                    }
                    if e.running {
                        self.running_gpus[e.queue as usize] -= e.gpus as u64;
                    }
                }
            }
            _ => {}
        }
    }

    /// Demotes the running jobs whose attained service reached their queue's threshold by
    /// `now`, in (time, job) order.
    pub fn apply_demotions(&mut self, now: SimTime) {
        while let Some(&(d, job)) = self.demotions.first() {
            if d > now {
                break;
            }
            self.demotions.remove(&(d, job));
            let seq = self.next_seq;
            self.next_seq += 1;
            let e = self.entries.get_mut(&job).expect("demotions belong to entries");
            e.deadline = None;
            e.executed = e.executed + SimTime(now.0.saturating_sub(e.since.0));
            e.since = now;
            self.running_gpus[e.queue as usize] -= e.gpus as u64;
            e.queue += 1;
            e.seq = seq;
            self.running_gpus[e.queue as usize] += e.gpus as u64;
            self.set_deadline(job);
        }
    }
}

impl Dally {
    /// The rank of a job that starts waiting now.
    pub(super) fn rank_of(&self, job: JobId) -> Rank {
        match &self.las {
            Some(book) => book.rank(job),
            None => Rank::fifo(job),
        }
    }

    /// Whether dally's network-sensitive preemption may checkpoint `victim` for `job`: under
    /// `order=las`, never a job of a higher queue.
    pub(super) fn may_displace(&self, job: JobId, victim: JobId) -> bool {
        self.las.as_ref().is_none_or(|b| b.queue(victim) >= b.queue(job))
    }

    /// One step of the least-attained-service walk: places the best ranked waiter that fits
    /// within the tier it accepts, unless a better ranked one first checkpoints jobs of lower
    /// queues to get such a placement. Whether a decision was made.
    pub(super) fn las_step(&mut self, view: &View, out: &mut Vec<Decision>) -> bool {
        let mut heads: Vec<Rank> = self.groups.values().filter_map(|set| set.first().copied()).collect();
        heads.sort_unstable();
        for rank in heads {
            let w = &self.waiters[&rank.job];
            if view.cluster.max_free_at(w.accept) >= w.gpus {
                self.place(view, rank.job, out);
                return true;
            }
            if self.try_service_preempt(view, rank, out) {
                return true;
            }
        }
        false
    }
}
