//! `random`: random placement, for reference — a job takes GPUs drawn uniformly at random
//! among the free ones, wherever they are (the `random` placement scheme of the Tiresias
//! simulator, SymbioticLab/Tiresias `simulator/cluster.py`, "randomly select GPUs from the
//! entire cluster"). Jobs are considered first come, first served, with backfill as under
//! `fifo` (`backfill=off`: the first job that does not fit blocks those behind it).
//!
//! The draws come from the project's seeded generator, one independent stream per placement
//! (job and how many times it has been placed), so a run is reproducible natively and in
//! WebAssembly and one job's draw does not depend on how many others came before it.
//! `seed=run` (the default) uses the run's seed, the one that also assigns models; a number
//! fixes the placement draws on their own. `quota=on` respects the tenants' quotas
//! ([`super::mechanisms::quota`]; `restore_s`, default 30, is what a reclaimed job pays).

use super::info::{opt, OptionKind::Seed, PolicyInfo, BACKFILL, QUOTA, RESTORE_QUOTA};
use super::mechanisms::placement::random_free;
use super::mechanisms::quota::FcfsQuota;
use super::{fcfs_next, on_off, Decision, Policy, PolicySpec, SizeClassQueue, View};
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::rng::Rng;

/// The stream of [`Rng::for_item`] for placement draws ("place" in ASCII).
const PLACE_STREAM: u64 = 0x70_6c61_6365;

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "random",
    summary: "First come, first served with backfill; GPUs drawn uniformly at random among the free ones, from the run's seed.",
    source: "the Tiresias simulator's `random` placement",
    options: &[BACKFILL, opt("seed", Seed, "run", "the draws' seed: the run's, or this number"), QUOTA, RESTORE_QUOTA],
    build: |spec| Ok(Box::new(RandomPlacement::from_spec(spec)?)),
};

pub struct RandomPlacement {
    queue: SizeClassQueue,
    backfill: bool,
    /// `None`: the run's seed.
    seed: Option<u64>,
    quota: Option<FcfsQuota>,
}

impl RandomPlacement {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<RandomPlacement, InputError> {
        let seed = match spec.take("seed").as_deref() {
            None | Some("run") => None,
            Some(v) => Some(
                v.parse::<u64>()
                    .map_err(|_| InputError::new("seed", format!("expected run or a whole number, got '{v}'")))?,
            ),
        };
        Ok(RandomPlacement {
            queue: SizeClassQueue::default(),
            backfill: spec.take_bool("backfill", true)?,
            seed,
            quota: FcfsQuota::from_spec(spec, None)?,
        })
    }
}

impl Policy for RandomPlacement {
    fn spec(&self) -> String {
        let seed = self.seed.map(|s| s.to_string()).unwrap_or_else(|| "run".into());
        format!("random:backfill={},seed={seed}{}", on_off(self.backfill), FcfsQuota::spec_suffix(&self.quota, true))
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        match &mut self.quota {
            Some(q) => q.on_event(event, view),
            None => self.queue.track(event, view),
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        let next = match &self.quota {
            Some(q) => {
                let free = view.cluster.free_count();
                q.next(view, self.backfill, |g, _| g <= free, out)
            }
            None => fcfs_next(&self.queue, view, self.backfill),
        };
        let Some((job, n)) = next else { return };
        let draw = (job.0 as u64) << 32 | view.run(job).placements as u64;
        let mut rng = Rng::for_item(self.seed.unwrap_or(view.seed), PLACE_STREAM, draw);
        let gpus = random_free(view.cluster, view.topo, n, &mut rng).expect("fcfs_next checked that it fits");
        out.push(Decision::Place { job, gpus, reason: Reason::FirstFit });
    }
}
