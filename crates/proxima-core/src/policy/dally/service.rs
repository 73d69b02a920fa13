//! Service-order preemption under `dally:order=las`: a waiter of a higher queue takes GPUs
//! from running jobs of lower queues, within the tier it accepts.
//!
//! Two rules decide whether it does (`service=exchange|priority`):
//!
//! - **`exchange`** (the default): a preemption is an exchange of time between the waiter
//!   and its victims, and happens only when the waiter saves more than the victims lose.
//!   The waiter saves the wait it would otherwise have: at least until the first of its
//!   victims ends on its own, their remaining ideal run time × the slowdown they run at now.
//!   Each victim loses `restore_s`, plus what it will run slower where it resumes: its
//!   remaining ideal run time × (the slowdown of the tier it will resume at − the one it has
//!   now), judged from representative placements on the network as loaded now. A victim that
//!   the GPUs left free can hold (victims taken in turn, once the waiter has taken the free
//!   GPUs of its node) restarts at once, at the tightest tier they offer; one they cannot
//!   hold waits, and, waiting afresh under delay scheduling like every requeued job, is
//!   expected back at the tier it has now. So a network-sensitive job running tight is not
//!   taken off its placement to be restarted scattered unless the waiter's gain pays for the
//!   scatter too; where the network costs nothing the rule is the queues' own, but for
//!   victims about to end. Victims already preempted `max_preempt` times are not taken.
//! - **`priority`**: the queue alone decides, as under `tiresias` (no gain estimate, no cap).
//!   It was the only rule of earlier versions, and breaks on network-sensitive jobs on a thin
//!   network: one LLM job was checkpointed 59 times and brought back across the cluster.
//!
//! Under either rule the placement is chosen the same way: the tightest tier first; within
//! it, the node whose victims are all of the lowest queues (a victim of a middle queue would
//! at once take GPUs from a job of a lower one: two checkpoints where one serves), then the
//! cheapest exchange, then the fewest GPUs checkpointed, lowest ranked victims first within a
//! node.

use super::order::Rank;
use super::{Dally, WaitKind};
use crate::cluster::JobId;
use crate::event::Reason;
use crate::policy::mechanisms::placement::holders_under;
use crate::policy::{Decision, View};
use crate::scenario::JobStatus;
use crate::topology::{GpuId, NodeId, Tier};
use std::cmp::Reverse;
use std::collections::BTreeMap;

/// How service-order preemption decides (`service=exchange|priority`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceRule {
    /// Only when the waiter saves more than its victims lose, victims capped by `max_preempt`.
    Exchange,
    /// The queue alone decides, as under `tiresias`.
    Priority,
}

impl ServiceRule {
    pub fn name(self) -> &'static str {
        match self {
            ServiceRule::Exchange => "exchange",
            ServiceRule::Priority => "priority",
        }
    }
}

/// What a service-order preemption costs, compared in this order: the queue of the best
/// ranked victim (lower queues cost less), the exchange's cost in milliseconds, the GPUs of
/// the jobs checkpointed, then (so that checkpoints spread over jobs rather than bring one
/// to the cap) the most preemptions any victim has had, and how many victims there are.
/// The cost and the preemption count are zero under `priority`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct VictimCost {
    top_queue: Reverse<u8>,
    cost_ms: u64,
    moved: u64,
    most_preempted: u32,
    victims: usize,
}

/// A node's victims and what taking them costs.
struct Candidate {
    cost: VictimCost,
    node: NodeId,
    victims: Vec<JobId>,
    gain_s: f64,
    cost_s: f64,
}

impl Dally {
    /// Checkpoints running jobs of queues below the waiter's so that it gets a placement
    /// within the tier it accepts (tightest tier first), if the rule in force allows, and
    /// places it there. Whether it did.
    pub(super) fn try_service_preempt(&mut self, view: &View, rank: Rank, out: &mut Vec<Decision>) -> bool {
        let Some(book) = &self.las else { return false };
        let w = &self.waiters[&rank.job];
        if w.kind == WaitKind::Starving
            || (view.cluster.free_count() as u64 + book.gpus_below(rank.queue)) < w.gpus as u64
        {
            return false;
        }
        let exchange = self.options.service == ServiceRule::Exchange;
        for t in w.base.0..=w.accept.0 {
            let tier = Tier(t);
            let mut best: Option<Candidate> = None;
            for &node in view.topo.tier_nodes(tier) {
                let Some(c) = self.service_candidate(view, rank, node) else { continue };
                if best.as_ref().is_none_or(|b| c.cost < b.cost) {
                    best = Some(c);
                }
            }
            if let Some(c) = best {
                let gpus = gpus_in_node(view, c.node, &c.victims, w.gpus);
                let placed_tier = view.topo.tier_of(&gpus);
                let job = rank.job;
                let restore_s = self.options.restore_s;
                for &v in &c.victims {
                    let reason = match exchange {
                        true => {
                            Reason::PreemptedFor { for_job: job, tier: placed_tier, gain_s: c.gain_s, cost_s: c.cost_s }
                        }
                        false => Reason::preempted_for(job, placed_tier, restore_s, false),
                    };
                    out.push(Decision::Preempt { job: v, restore_s, reason });
                }
                let reason = Reason::PlacedByPreemption { tier: placed_tier, victims: c.victims, gain_s: c.gain_s };
                out.push(Decision::Place { job, gpus, reason });
                return true;
            }
        }
        false
    }

    /// The victims in `node` that would make room for the waiter, lowest ranked first, and
    /// what taking them costs; `None` if the node cannot hold it or (under `exchange`) the
    /// exchange does not pay.
    fn service_candidate(&self, view: &View, rank: Rank, node: NodeId) -> Option<Candidate> {
        let book = self.las.as_ref()?;
        let w = &self.waiters[&rank.job];
        let n = view.topo.node(node);
        if n.gpu_count < w.gpus {
            return None;
        }
        let exchange = self.options.service == ServiceRule::Exchange;
        let need = w.gpus.saturating_sub(view.cluster.free_under(node));
        // Running jobs of lower queues with GPUs in this node, lowest ranked first.
        let mut candidates: Vec<(Rank, u32)> = holders_under(view.cluster, view.topo, node)
            .into_iter()
            .filter(|&(v, _)| {
                let run = view.run(v);
                run.status == JobStatus::Running
                    && book.queue(v) > rank.queue
                    && (!exchange || run.preemptions < self.options.max_preempt)
            })
            .map(|(v, count)| (book.rank(v), count))
            .collect();
        candidates.sort_unstable_by_key(|c| Reverse(c.0));
        let (mut freed, mut victims, mut moved) = (0, Vec::new(), 0u64);
        for (v, count) in candidates {
            if freed >= need {
                break;
            }
            freed += count;
            moved += view.job(v.job).gpus as u64;
            victims.push(v.job);
        }
        if freed < need {
            return None;
        }
        let (gain_s, cost_s) = match exchange {
            true => {
                let free_in_node = view.cluster.free_under(node).min(w.gpus);
                let (gain, cost) = self.exchange_terms(view, &victims, free_in_node)?;
                if gain <= cost {
                    return None;
                }
                (gain, cost)
            }
            false => (0.0, 0.0),
        };
        // The best ranked victim's queue: a node whose victims all sit lower costs less.
        let top = victims.iter().map(|&v| book.queue(v)).min().unwrap_or(u8::MAX);
        let most_preempted = match exchange {
            true => victims.iter().map(|&v| view.run(v).preemptions).max().unwrap_or(0),
            false => 0,
        };
        let cost = VictimCost {
            top_queue: Reverse(top),
            most_preempted,
            cost_ms: (cost_s * 1e3) as u64,
            moved,
            victims: victims.len(),
        };
        Some(Candidate { cost, node, victims, gain_s, cost_s })
    }

    /// The exchange's two sides, in seconds: what the waiter saves (the earliest of its
    /// victims' own ends) and what the victims lose (restores and slower resumes). `None`
    /// when a victim's remaining run time is unknown.
    fn exchange_terms(&self, view: &View, victims: &[JobId], free_in_node: u32) -> Option<(f64, f64)> {
        // GPUs free elsewhere once the waiter has taken those free in its node.
        let mut spare = view.cluster.free_count().saturating_sub(free_in_node);
        let top = view.topo.top_tier();
        let mut gain = f64::INFINITY;
        let mut cost = 0.0;
        for &v in victims {
            let run = view.run(v);
            let job = view.job(v);
            let ideal = job.ideal_iter_s.filter(|&i| i > 0.0)?;
            let remaining = self.remaining.remaining_ideal_s(view, v, run.progress_at(view.now))?;
            let now_slowdown = (run.iter_s / ideal).max(1.0);
            gain = gain.min(remaining * now_slowdown);
            // Restarting at once means taking what is free now; waiting means a fresh wait
            // for a placement as tight as the one it had (assuming it got it before, it
            // should get it again).
            let resume_tier = match spare >= job.gpus {
                true => view.cluster.tightest_tier_free(view.topo, job.gpus).unwrap_or(top),
                false => run.tier.unwrap_or(top),
            };
            let resume_slowdown = self.representative_slowdown(view, v, resume_tier).unwrap_or(now_slowdown);
            cost += self.options.restore_s + remaining * (resume_slowdown - now_slowdown).max(0.0);
            spare = spare.saturating_sub(job.gpus);
        }
        Some((gain, cost))
    }

    /// The slowdown a job of `job`'s model and size would see at `tier` on a representative
    /// placement, on the network as loaded now, as the profile predicts it.
    fn representative_slowdown(&self, view: &View, job: JobId, tier: Tier) -> Option<f64> {
        let j = view.job(job);
        let ideal = j.ideal_iter_s.filter(|&i| i > 0.0)?;
        let tier = tier.max(self.levels().base_tier(j.gpus)?);
        Some((self.profile().representative_iter_s(view, job, tier)? / ideal).max(1.0))
    }
}

/// `count` GPUs of `node` that are free or held by `victims`, from the servers with the most
/// of them first (ties to the lower index): the fewest servers, so the tightest placement
/// the node offers.
fn gpus_in_node(view: &View, node: NodeId, victims: &[JobId], count: u32) -> Vec<GpuId> {
    let n = view.topo.node(node);
    let mut by_server: BTreeMap<NodeId, Vec<GpuId>> = BTreeMap::new();
    for g in (n.first_gpu..n.first_gpu + n.gpu_count).map(GpuId) {
        let available = match view.cluster.owner(g) {
            None => true,
            Some(o) => victims.contains(&o),
        };
        if available {
            by_server.entry(view.topo.server_of(g)).or_default().push(g);
        }
    }
    let mut servers: Vec<(NodeId, Vec<GpuId>)> = by_server.into_iter().collect();
    servers.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    let mut gpus: Vec<GpuId> = servers.into_iter().flat_map(|(_, g)| g).take(count as usize).collect();
    gpus.sort_unstable();
    gpus
}
