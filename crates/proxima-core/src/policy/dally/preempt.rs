//! Network-sensitive preemption and re-consolidation.
//!
//! When a sensitive job waits and a node of its tightest tier could hold it if some less
//! sensitive running jobs there were checkpointed, and its estimated gain (remaining ideal
//! run time × the slowdown it would suffer otherwise minus the one it would get there)
//! exceeds the cost, those jobs are preempted; they requeue with their progress and pay
//! `restore_s` when they restart. The remaining run time is the one the policy knows
//! ([`crate::policy::mechanisms::runtime`]); while it has no estimate yet, nobody is preempted or moved,
//! since the cost is certain and the gain unknown. The cost is `restore_s` per preempted job, plus, for a job
//! that will not fit in the GPUs still free, the queueing delay jobs have recently seen (it
//! will wait too). Victims must be less sensitive than the waiting job by a margin, both
//! judged by their loss from representative placements on the network as it is at that
//! moment, so a job wider than a server is no preferred victim when the uplinks are busy.
//! Likewise, when GPUs free up, a job running looser than its tightest tier, wide
//! or not, moves to a tighter placement if the gain exceeds `restore_s`. Guard rails: a job
//! is preempted at most `max_preempt` times, and not within `min_run_s` of its start.

use super::{Dally, WaitKind, Waiter};
use crate::cluster::JobId;
use crate::event::Reason;
use crate::policy::mechanisms::placement::holders_under;
use crate::policy::mechanisms::sensitivity::{cool_placement, representative_loss};
use crate::policy::{Decision, View};
use crate::scenario::JobStatus;
use crate::time::SimTime;
use crate::topology::{GpuId, NodeId};

/// How much more sensitive than a victim a job must be to preempt it.
const SENSITIVITY_MARGIN: f64 = 0.05;

/// The cheapest way found to free one node for the waiting job.
struct Preemption {
    /// What preempting the victims costs ([`Dally::preemption_cost`]).
    cost: f64,
    /// GPUs the victims hold in all, which breaks ties in cost: fewer is better.
    gpus_moved: u32,
    victims: Vec<JobId>,
    /// The GPUs the waiting job gets: the node's free ones first, then the victims'.
    gpus: Vec<GpuId>,
}

impl Dally {
    /// Preempts less sensitive jobs so that `job` gets its tightest tier, if that pays.
    pub(super) fn try_preempt_for(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) -> bool {
        let Some(w) = self.waiters.get(&job).cloned() else { return false };
        let Some((gain, my_loss)) = self.preemption_gain(view, job, &w) else { return false };
        let restore = self.options.restore_s;
        if gain <= restore {
            return false;
        }
        let Some(best) = self.cheapest_preemption(view, job, &w, my_loss) else { return false };
        let Preemption { cost, victims, gpus, .. } = best;
        if gain <= cost || !self.may_start_after(view, job, &victims) {
            return false;
        }
        for &v in &victims {
            out.push(Decision::Preempt {
                job: v,
                restore_s: restore,
                reason: Reason::PreemptedFor { for_job: job, tier: w.base, gain_s: gain, cost_s: cost },
            });
        }
        out.push(Decision::Place {
            job,
            gpus,
            reason: Reason::PlacedByPreemption { tier: w.base, victims, gain_s: gain },
        });
        true
    }

    /// What getting its tightest tier now would save the waiting job (its remaining ideal
    /// run time × the slowdown it would suffer otherwise minus the one it would get there),
    /// with its representative loss, against which victims are judged. `None` when
    /// preemption is out of the question: the job starves (it takes anything), already has
    /// a node of its tier free, is not sensitive enough, or its remaining time is unknown.
    fn preemption_gain(&self, view: &View, job: JobId, w: &Waiter) -> Option<(f64, f64)> {
        let top = view.topo.top_tier();
        if w.kind == WaitKind::Starving || w.base >= top || view.cluster.max_free_at(w.base) >= w.gpus {
            return None;
        }
        let sens = w.sens.as_ref()?;
        if sens.loss() < self.options.threshold {
            return None;
        }
        let my_loss = representative_loss(self.profile(), view, job);
        // What the job would suffer otherwise: the placement it would get now, or spread wide.
        let otherwise = match view.cluster.tightest_tier_free(view.topo, w.gpus) {
            Some(tier) => match cool_placement(self.profile(), view, job, tier) {
                Some(gpus) => self.profile().slowdown(view, job, &gpus),
                None => sens.worst(),
            },
            None => sens.worst(),
        };
        let remaining = self.remaining.remaining_ideal_s(view, job, view.run(job).done)?;
        Some((remaining * (otherwise - sens.at(w.base)), my_loss))
    }

    /// Over the nodes of the job's tightest tier that are large enough, the cheapest set of
    /// victims whose GPUs, with the node's free ones, make room for it (ties: fewer GPUs
    /// moved, then the first node).
    fn cheapest_preemption(&self, view: &View, job: JobId, w: &Waiter, my_loss: f64) -> Option<Preemption> {
        let mut best: Option<Preemption> = None;
        for &node in view.topo.tier_nodes(w.base) {
            if view.topo.node(node).gpu_count < w.gpus {
                continue;
            }
            let free = view.cluster.free_under(node);
            let candidates = self.victim_candidates(view, job, node, my_loss);
            let Some(victims) = self.pick_victims(view, job, &candidates, w.gpus - free) else { continue };
            let cost = self.preemption_cost(view, &victims, free);
            let gpus_moved: u32 = victims.iter().map(|v| view.job(*v).gpus).sum();
            let better = match &best {
                None => true,
                Some(b) => cost < b.cost || (cost == b.cost && gpus_moved < b.gpus_moved),
            };
            if better {
                let gpus = gpus_after_preemption(view, node, &victims, w.gpus);
                best = Some(Preemption { cost, gpus_moved, victims, gpus });
            }
        }
        best
    }

    /// The jobs running inside `node` that may be preempted for `job` and are less
    /// sensitive than it by the margin, as `(loss, GPUs inside the node, job)`, least
    /// sensitive first, then those holding more GPUs there, then by id.
    fn victim_candidates(&self, view: &View, job: JobId, node: NodeId, my_loss: f64) -> Vec<(f64, u32, JobId)> {
        let min_run = SimTime::from_secs_f64(self.options.min_run_s);
        let mut candidates: Vec<(f64, u32, JobId)> = Vec::new();
        for (&v, &count) in &holders_under(view.cluster, view.topo, node) {
            let run = view.run(v);
            let eligible = run.status == JobStatus::Running
                && run.preemptions < self.options.max_preempt
                && view.now >= run.last_start + min_run
                && self.may_displace(job, v);
            if !eligible {
                continue;
            }
            let loss = representative_loss(self.profile(), view, v);
            if loss + SENSITIVITY_MARGIN < my_loss {
                candidates.push((loss, count, v));
            }
        }
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        candidates
    }

    /// Takes candidates in order until they free `need` GPUs; `None` if they cannot.
    fn pick_victims(&self, view: &View, job: JobId, candidates: &[(f64, u32, JobId)], need: u32) -> Option<Vec<JobId>> {
        let mut freed = 0;
        let mut victims = Vec::new();
        for &(_, count, v) in candidates {
            if freed >= need {
                break;
            }
            // Under quotas, another tenant's job only if that tenant borrows and `job` is
            // within its own quota.
            if self.book.as_ref().is_some_and(|b| !b.may_take(view, job, v, &victims)) {
                continue;
            }
            freed += count;
            victims.push(v);
        }
        (freed >= need).then_some(victims)
    }

    /// What preempting `victims` costs: `restore_s` each, and for each that will not fit in
    /// the GPUs left free once the waiting job has taken the `free_in_node` GPUs of the node
    /// (taken in order), the queueing delay placed jobs have seen lately: it will wait too.
    pub(super) fn preemption_cost(&self, view: &View, victims: &[JobId], free_in_node: u32) -> f64 {
        let mut spare = view.cluster.free_count() - free_in_node;
        let mut cost = 0.0;
        for v in victims {
            let g = view.job(*v).gpus;
            cost += self.options.restore_s;
            if spare >= g {
                spare -= g;
            } else {
                cost += self.recent_wait_s;
            }
        }
        cost
    }

    /// Moves a job running looser than its tightest tier to a tighter placement that
    /// appeared, if that pays.
    pub(super) fn try_reconsolidate(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) -> bool {
        let run = view.run(job);
        let j = view.job(job);
        let (Some(current), Some(ideal)) = (run.tier, j.ideal_iter_s) else { return false };
        if run.status != JobStatus::Running
            || run.preemptions >= self.options.max_preempt
            || view.now < run.last_start + SimTime::from_secs_f64(self.options.min_run_s)
        {
            return false;
        }
        let Some(tier) = view.cluster.tightest_tier_free(view.topo, j.gpus) else { return false };
        if tier >= current {
            return false;
        }
        let Some(gpus) = cool_placement(self.profile(), view, job, tier) else { return false };
        let Some(remaining) = self.remaining.remaining_ideal_s(view, job, run.progress_at(view.now)) else {
            return false;
        };
        let gain = remaining * (run.iter_s / ideal - self.profile().slowdown(view, job, &gpus));
        let cost = self.options.restore_s;
        if gain <= cost {
            return false;
        }
        out.push(Decision::Preempt {
            job,
            restore_s: cost,
            reason: Reason::Reconsolidating { from: current, to: tier, gain_s: gain, cost_s: cost },
        });
        out.push(Decision::Place { job, gpus, reason: Reason::Reconsolidated { from: current, to: tier } });
        true
    }
}

/// The `gpus` GPUs of `node` the waiting job takes once `victims` are preempted: free GPUs
/// first, then those of the victims, each group in GPU order, the result sorted.
fn gpus_after_preemption(view: &View, node: NodeId, victims: &[JobId], gpus: u32) -> Vec<GpuId> {
    let n = view.topo.node(node);
    let mut taken: Vec<GpuId> = (n.first_gpu..n.first_gpu + n.gpu_count)
        .map(GpuId)
        .filter(|&g| match view.cluster.owner(g) {
            None => true,
            Some(o) => victims.contains(&o),
        })
        .collect();
    taken.sort_by_key(|&g| (view.cluster.owner(g).is_some(), g));
    taken.truncate(gpus as usize);
    taken.sort_unstable();
    taken
}
