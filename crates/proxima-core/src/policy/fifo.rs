//! `fifo`: first come, first served, topology-oblivious. A job takes the first free GPUs in
//! index order, wherever they are; this is what a scheduler that only counts GPUs does.
//! `quota=on` respects the tenants' quotas ([`super::mechanisms::quota`]).

use super::info::{PolicyInfo, BACKFILL, QUOTA, RESTORE_QUOTA};
use super::mechanisms::quota::FcfsQuota;
use super::{fcfs_step, Decision, Policy, PolicySpec, SizeClassQueue, View};
use crate::error::InputError;
use crate::event::{Reason, SimEvent};

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "fifo",
    summary: "First come, first served; a job takes the first free GPUs in index order, wherever they are. The topology-oblivious baseline.",
    source: "a scheduler that only counts GPUs",
    options: &[BACKFILL, QUOTA, RESTORE_QUOTA],
    build: |spec| Ok(Box::new(Fifo::from_spec(spec)?)),
};

pub struct Fifo {
    queue: SizeClassQueue,
    backfill: bool,
    quota: Option<FcfsQuota>,
}

impl Fifo {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Fifo, InputError> {
        Ok(Fifo {
            queue: SizeClassQueue::default(),
            backfill: spec.take_bool("backfill", true)?,
            quota: FcfsQuota::from_spec(spec, None)?,
        })
    }
}

impl Policy for Fifo {
    fn spec(&self) -> String {
        format!(
            "fifo:backfill={}{}",
            if self.backfill { "on" } else { "off" },
            FcfsQuota::spec_suffix(&self.quota, true)
        )
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        match &mut self.quota {
            Some(q) => q.on_event(event, view),
            None => self.queue.track(event, view),
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        if let Some(q) = &self.quota {
            let free = view.cluster.free_count();
            if let Some((job, n)) = q.next(view, self.backfill, |g, _| g <= free, out) {
                let gpus = view.cluster.first_free(n).expect("the job fits the free GPUs");
                out.push(Decision::Place { job, gpus, reason: Reason::FirstFit });
            }
            return;
        }
        fcfs_step(&self.queue, view, self.backfill, out, |n| {
            view.cluster.first_free(n).map(|gpus| (gpus, Reason::FirstFit))
        });
    }
}
