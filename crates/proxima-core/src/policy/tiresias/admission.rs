//! The admission walk of `tiresias`: the per-queue index of jobs by GPU count, and the walk
//! in priority order (with or without quotas) that decides who is preempted and who is placed.

use super::Tiresias;
use crate::cluster::JobId;
use crate::policy::mechanisms::quota;
use crate::policy::View;
use std::collections::{BTreeMap, BTreeSet};

/// One queue's jobs of one kind (running, waiting, or both in entry order), indexed by GPU
/// count so that "the next job that fits" is a few ordered-set queries.
#[derive(Clone, Debug, Default)]
pub(super) struct Section {
    by_size: BTreeMap<u32, BTreeSet<(u64, JobId)>>,
    order: BTreeSet<(u64, JobId)>,
    /// The waiting jobs alone, in entry order.
    waiting: BTreeSet<(u64, JobId)>,
    gpus: u64,
    running: u32,
}

impl Section {
    pub(super) fn insert(&mut self, seq: u64, job: JobId, gpus: u32, running: bool) {
        self.by_size.entry(gpus).or_default().insert((seq, job));
        self.order.insert((seq, job));
        if !running {
            self.waiting.insert((seq, job));
        }
        self.gpus += gpus as u64;
        self.running += running as u32;
    }

    pub(super) fn remove(&mut self, seq: u64, job: JobId, gpus: u32, running: bool) {
        if let Some(set) = self.by_size.get_mut(&gpus) {
            set.remove(&(seq, job));
            if set.is_empty() {
                self.by_size.remove(&gpus);
            }
        }
        self.order.remove(&(seq, job));
        self.waiting.remove(&(seq, job));
        self.gpus -= gpus as u64;
        self.running -= running as u32;
    }

    /// The first job after `after` (in entry order) with at most `room` GPUs.
    fn next_fitting(&self, after: Option<(u64, JobId)>, room: u64) -> Option<(u64, JobId)> {
        let room = room.min(u32::MAX as u64) as u32;
        self.by_size
            .range(..=room)
            .filter_map(|(_, set)| match after {
                None => set.first().copied(),
                Some(a) => set.range((std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded)).next().copied(),
            })
            .min()
    }
}

impl Tiresias {
    /// Walks the jobs in priority order and records who runs from now on.
    pub(super) fn walk(&mut self, view: &View) {
        let Tiresias { queues, entries, plan, options, .. } = self;
        let mut room = view.topo.gpu_count() as u64;
        for sections in queues.iter() {
            for (s, sec) in sections.iter().enumerate() {
                if sec.order.is_empty() {
                    continue;
                }
                if options.running_first && s == 0 {
                    // Running jobs only: they all stay if they fit together.
                    if sec.gpus <= room {
                        room -= sec.gpus;
                        continue;
                    }
                    for &(_, job) in &sec.order {
                        let g = entries[job.0 as usize].gpus as u64;
                        if g <= room {
                            room -= g;
                        } else {
                            plan.preempt.push(job);
                        }
                    }
                    continue;
                }
                if sec.gpus <= room {
                    // Everyone here fits: the waiting jobs all start, nobody is preempted.
                    room -= sec.gpus;
                    plan.place.extend(sec.waiting.iter().map(|&(_, job)| job));
                    continue;
                }
                let mut after = None;
                let mut kept = BTreeSet::new();
                while let Some((seq, job)) = sec.next_fitting(after, room) {
                    after = Some((seq, job));
                    let e = &entries[job.0 as usize];
                    room -= e.gpus as u64;
                    if e.running {
                        kept.insert(job);
                    } else {
                        plan.place.push_back(job);
                    }
                }
                if (kept.len() as u32) < sec.running {
                    for &(_, job) in &sec.order {
                        if entries[job.0 as usize].running && !kept.contains(&job) {
                            plan.preempt.push(job);
                        }
                    }
                }
            }
        }
    }

    /// The walk under quotas: the priority order of [`Self::walk`], admitted in two passes.
    pub(super) fn walk_with_quota(&mut self, view: &View) {
        let (mut order, mut admitted) = std::mem::take(&mut self.walk_buffers);
        order.clear();
        order.extend(
            self.queues
                .iter()
                .flat_map(|sections| sections.iter())
                .flat_map(|sec| sec.order.iter())
                .map(|&(_, job)| (job, self.entries[job.0 as usize].gpus, view.job(job).tenant)),
        );
        quota::admit_two_phase(view, &order, &mut admitted);
        for (&(job, ..), &ok) in order.iter().zip(&admitted) {
            match (self.entries[job.0 as usize].running, ok) {
                (true, false) => self.plan.preempt.push(job),
                (false, true) => self.plan.place.push_back(job),
                _ => {}
            }
        }
        self.walk_buffers = (order, admitted);
    }
}
