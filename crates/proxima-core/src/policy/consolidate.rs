//! `consolidate`: first come, first served; each job gets the tightest placement free now
//! (one server if it can, else one rack, ...), best fit within that tier, and never waits
//! for a better one. This is the consolidation baseline of Tiresias (Gu et al., NSDI 2019)
//! that the network-sensitive scheduler is compared with.

use super::{fcfs_step, Decision, Policy, PolicySpec, SizeClassQueue, View};
use crate::error::InputError;
use crate::event::{Reason, SimEvent};

pub struct Consolidate {
    queue: SizeClassQueue,
    backfill: bool,
}

impl Consolidate {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Consolidate, InputError> {
        Ok(Consolidate { queue: SizeClassQueue::default(), backfill: spec.take_bool("backfill", true)? })
    }
}

impl Policy for Consolidate {
    fn spec(&self) -> String {
        format!("consolidate:backfill={}", if self.backfill { "on" } else { "off" })
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        self.queue.track(event, view);
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        fcfs_step(&self.queue, view, self.backfill, out, |n| {
            view.cluster.place_tightest(view.topo, n).map(|(tier, gpus)| (gpus, Reason::TightestNow { tier }))
        });
    }
}
