//! Applying a policy's decisions: the scheduling passes of an instant, and the placements
//! and preemptions they make, each checked against the run before it changes anything. Apart
//! from `engine.rs` because this is where a policy's output meets the engine's state.

use super::{view_of, Simulation, TimedKind};
use crate::cluster::JobId;
use crate::comm::shape_of;
use crate::event::{Reason, SimEvent};
use crate::policy::Decision;
use crate::scenario::JobStatus;
use crate::time::SimTime;
use crate::topology::{GpuId, NodeId};

/// A pass limit per instant that no correct policy reaches: each pass must place or preempt
/// something for another to follow, and there are only so many jobs.
const MAX_PASSES_PER_INSTANT: u64 = 10_000_000;

impl Simulation {
    pub(super) fn schedule_passes(&mut self) {
        let mut passes = 0u64;
        loop {
            let mut decisions = std::mem::take(&mut self.decisions);
            decisions.clear();
            self.policy.schedule(&view_of(&self.scenario, &self.st), &mut decisions);
            let mut changed = false;
            for d in decisions.drain(..) {
                match d {
                    Decision::Place { job, gpus, reason } => {
                        self.place(job, gpus, reason);
                        changed = true;
                    }
                    Decision::Preempt { job, restore_s, reason } => {
                        self.preempt(job, restore_s, reason);
                        changed = true;
                    }
                    Decision::Wait { job, reason } => {
                        assert_eq!(
                            self.st.runs[job.0 as usize].status,
                            JobStatus::Queued,
                            "policy {} asked job {} to wait but it is not queued",
                            self.policy.spec(),
                            job.0
                        );
                        self.emit(SimEvent::Waiting { job, reason });
                    }
                    Decision::WakeAt(t) => {
                        // A wake-up in the past or now would loop; the next instant is the
                        // earliest the policy can be asked again.
                        let t = t.max(self.st.now + SimTime(1));
                        self.push_timed(t, TimedKind::Wake);
                    }
                    Decision::Note(note) => self.emit(SimEvent::Policy { note }),
                }
            }
            self.decisions = decisions;
            if !changed {
                break;
            }
            passes += 1;
            assert!(passes < MAX_PASSES_PER_INSTANT, "policy {} does not settle", self.policy.spec());
        }
    }

    fn place(&mut self, job: JobId, mut gpus: Vec<GpuId>, reason: Reason) {
        let topo = &self.scenario.topology;
        // The policy's name is formatted only if a check fails: formatting it on every
        // placement showed up in profiles.
        let spec = || self.policy.spec();
        let j = &self.scenario.jobs[job.0 as usize];
        assert_eq!(
            self.st.runs[job.0 as usize].status,
            JobStatus::Queued,
            "policy {} placed job {} which is not queued",
            spec(),
            job.0
        );
        assert_eq!(gpus.len() as u32, j.gpus, "policy {} gave job {} the wrong number of GPUs", spec(), job.0);
        gpus.sort_unstable();
        for w in gpus.windows(2) {
            assert_ne!(w[0], w[1], "policy {} gave job {} a GPU twice", spec(), job.0);
        }
        for &g in &gpus {
            assert!(
                g.0 < topo.gpu_count() && self.st.cluster.is_free(g),
                "policy {} gave job {} a busy GPU",
                spec(),
                job.0
            );
        }
        self.st.cluster.allocate(topo, job, &gpus);
        let mut servers: Vec<NodeId> = gpus.iter().map(|&g| topo.server_of(g)).collect();
        servers.dedup();
        let mut links = Vec::new();
        topo.inter_server_links(&servers, &mut links);
        let tier = topo.tier_of(&gpus);
        let shape = shape_of(topo, &gpus, &links);
        if !links.is_empty() {
            // The ring joins the network: it and every ring coupled to it get new shares.
            self.st.cluster.add_ring(job, &links, self.scenario.comm.ring_cap(&shape));
            Self::reshare(&mut self.st, &links, Some(job));
        }
        let shape = shape.with_share(self.st.cluster.ring_rate(job));
        let iter_s = self.scenario.comm.iteration_time(self.scenario.catalog.get(j.model), &shape);

        let now = self.st.now;
        let run = &mut self.st.runs[job.0 as usize];
        run.status = JobStatus::Running;
        run.queued_total = run.queued_total + (now - run.enqueued_at);
        run.gpus = gpus.clone();
        run.tier = Some(tier);
        run.links = links;
        run.iter_s = iter_s;
        run.updated = now;
        run.resume_at = now + run.pending_restore;
        run.pending_restore = SimTime::ZERO;
        run.first_start.get_or_insert(now);
        run.last_start = now;
        run.placements += 1;
        self.st.queued.remove(&job);
        self.st.busy_gpus += j.gpus;
        self.st.running += 1;
        self.st.tier_placements[tier.0 as usize] += 1;
        self.st.events += 1;
        self.schedule_completion(job);
        self.emit(SimEvent::Placed { job, gpus, tier, iter_s, reason });
    }

    fn preempt(&mut self, job: JobId, restore_s: f64, reason: Reason) {
        assert_eq!(
            self.st.runs[job.0 as usize].status,
            JobStatus::Running,
            "policy {} preempted job {} which is not running",
            self.policy.spec(),
            job.0
        );
        self.stop(job);
        let now = self.st.now;
        let run = &mut self.st.runs[job.0 as usize];
        run.enqueued_at = now;
        run.pending_restore = SimTime::from_secs_f64(restore_s);
        run.preemptions += 1;
        run.last_preempted = Some(now);
        let done = run.done;
        self.st.queued.insert(job);
        self.st.preemptions += 1;
        self.st.events += 1;
        self.emit(SimEvent::Preempted { job, done_iterations: done, reason });
    }
}
