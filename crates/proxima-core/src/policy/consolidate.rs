//! `consolidate`: first come, first served; each job gets the tightest placement free now
//! (one server if it can, else one rack, ...), best fit within that tier, and never waits
//! for a better one. This is the "tighter is better" placement of schedulers that pack
//! jobs but do not model the network; `dally` is compared with it.
//!
//! `migrate=on` lets it checkpoint and move running jobs to defragment, as Gandiva does
//! ([`super::mechanisms::migrate`]), at the restore cost and under the guard rails `dally` uses
//! (`restore_s=30`, `min_run_s=600`, `max_preempt=2`), so that a comparison with `dally`
//! isolates what knowing the network is worth. Off by default.
//!
//! `quota=on` respects the tenants' quotas ([`super::mechanisms::quota`]); a reclaimed job pays
//! `restore_s`.

use super::info::{
    opt, opt_with,
    OptionKind::{Seconds, Switch, Whole},
    PolicyInfo, BACKFILL, QUOTA,
};
use super::mechanisms::migrate::{MigrateOptions, Migrator};
use super::mechanisms::quota::{self, next_step, FcfsQuota, QuotaStep};
use super::{fcfs_next, on_off, Decision, Policy, PolicySpec, SizeClassQueue, View};
use crate::error::InputError;
use crate::event::{Reason, SimEvent};

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "consolidate",
    summary: "First come, first served; a job takes the tightest placement free now (one server if it can, else one rack, ...), best fit within that tier, and never waits for a better one. With `migrate=on`, running jobs are checkpointed and moved to defragment, network-blind, at `dally`'s restore cost and guard rails.",
    source: "\"tighter is better\" packing; migration as in Gandiva (Xiao et al., OSDI 2018)",
    options: &[
        BACKFILL,
        opt("migrate", Switch, "off", "on: move running jobs to tighter placements and out of the way"),
        opt("restore_s", Seconds, "30", "checkpoint and restore cost a moved or reclaimed job pays"),
        opt_with("min_run_s", Seconds, "600", "a job runs this long before it may be moved", "migrate=on"),
        opt_with("max_preempt", Whole, "2", "moves per job at most", "migrate=on"),
        QUOTA,
    ],
    build: |spec| Ok(Box::new(Consolidate::from_spec(spec)?)),
};

pub struct Consolidate {
    queue: SizeClassQueue,
    backfill: bool,
    migrator: Option<Migrator>,
    quota: Option<FcfsQuota>,
}

impl Consolidate {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Consolidate, InputError> {
        let backfill = spec.take_bool("backfill", true)?;
        let migrate = spec.take_bool("migrate", false)?;
        // The migration options are read even when migration is off, so that one sweep over
        // restore costs can name every policy alike; they change nothing then.
        let options = MigrateOptions::from_spec(spec)?;
        Ok(Consolidate {
            queue: SizeClassQueue::default(),
            backfill,
            quota: FcfsQuota::from_spec(spec, Some(options.restore_s))?,
            migrator: migrate.then(|| Migrator::new(options)),
        })
    }
}

impl Policy for Consolidate {
    fn spec(&self) -> String {
        let quota = match &self.quota {
            // Without migration the restore cost is the reclaim's alone: spell it out.
            Some(q) if self.migrator.is_none() => format!(",quota=on,restore_s={}", q.restore_s),
            q => FcfsQuota::spec_suffix(q, false),
        };
        match &self.migrator {
            None => format!("consolidate:backfill={}{quota}", on_off(self.backfill)),
            Some(m) => {
                format!("consolidate:backfill={},migrate=on,{}{quota}", on_off(self.backfill), m.options().spec())
            }
        }
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        match &mut self.quota {
            Some(q) => q.on_event(event, view),
            None => self.queue.track(event, view),
        }
        if let Some(m) = &mut self.migrator {
            m.on_event(event, view);
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        let next = match &self.quota {
            Some(q) => {
                let free = view.cluster.free_count();
                match next_step(&q.queue, &q.book, view, self.backfill, |g, _| g <= free) {
                    Some(QuotaStep::Reclaim { for_job, victims }) => {
                        quota::reclaim(for_job, &victims, q.restore_s, out);
                        return;
                    }
                    Some(QuotaStep::Place(job, n)) => Some((job, n)),
                    None => None,
                }
            }
            None => fcfs_next(&self.queue, view, self.backfill),
        };
        if let Some((job, n)) = next {
            if let Some(m) = &mut self.migrator {
                let base = m.base(view, n);
                if view.cluster.max_free_at(base) < n && m.try_make_room(view, job, out) {
                    return;
                }
            }
            let (tier, gpus) = view.cluster.place_tightest(view.topo, n).expect("fcfs_next checked that it fits");
            out.push(Decision::Place { job, gpus, reason: Reason::TightestNow { tier } });
            return;
        }
        if let Some(m) = &mut self.migrator {
            m.try_reconsolidate(view, out);
        }
    }
}
