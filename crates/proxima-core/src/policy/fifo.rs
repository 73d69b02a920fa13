//! `fifo`: first come, first served, topology-oblivious. A job takes the first free GPUs in
//! index order, wherever they are; this is what a scheduler that only counts GPUs does.

use super::{fcfs_step, Decision, Policy, PolicySpec, SizeClassQueue, View};
use crate::error::InputError;
use crate::event::{Reason, SimEvent};

pub struct Fifo {
    queue: SizeClassQueue,
    backfill: bool,
}

impl Fifo {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Fifo, InputError> {
        Ok(Fifo { queue: SizeClassQueue::default(), backfill: spec.take_bool("backfill", true)? })
    }
}

impl Policy for Fifo {
    fn spec(&self) -> String {
        format!("fifo:backfill={}", if self.backfill { "on" } else { "off" })
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        self.queue.track(event, view);
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        fcfs_step(&self.queue, view, self.backfill, out, |n| {
            view.cluster.first_free(n).map(|gpus| (gpus, Reason::FirstFit))
        });
    }
}
