//! Migration for `consolidate:migrate=on`: checkpoint running jobs and move them to
//! defragment the cluster, as Gandiva does (Xiao et al., "Gandiva: Introspective Cluster
//! Scheduling for Deep Learning", OSDI 2018: its scheduler migrates jobs so that
//! multi-GPU jobs find consolidated GPUs and to improve locality), at the restore cost
//! `dally` pays (`restore_s`, default 30 s) and under `dally`'s guard rails: a job is moved
//! at most `max_preempt` times (default 2) and not within `min_run_s` (default 600 s) of its
//! last start.
//!
//! Migration never looks at the network: like `consolidate` it knows only that a tighter
//! placement is better. Two moves:
//!
//! - **Re-consolidation.** When GPUs free up, a job running looser than its tightest tier
//!   (the tightest that holds its GPU count on an empty cluster) moves to the tightest
//!   placement free now if that is tighter than where it runs. Queued jobs are placed first,
//!   so a move only uses room none of them can take.
//! - **Making room.** When the next job would start looser than its tightest tier although
//!   the cluster has its GPU count free, the scheduler looks, node by node at that tier (the
//!   emptiest first), for server-local jobs inside the node that can move, each to one other
//!   server outside it (best fit), so that the node holds the job; the first node where
//!   that works is used, moving the largest jobs first. Moved jobs stay server-local.
//!
//! Every moved job pays `restore_s` without progress when it restarts.
//!
//! `kueue-tas:evict=on` uses the same moves with a goal ([`Migrator::set_goal`]): the level
//! the jobs asked for. Then only jobs running wider than it are re-consolidated, and only
//! into it, because a Kueue user asked for that level and no tighter one.

use super::placement::holders_under;
use super::placement::{free_on_server, inside, TierCapacity};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::policy::{Decision, View};
use crate::scenario::JobStatus;
use crate::time::SimTime;
use crate::topology::{GpuId, NodeId, Tier};
use std::collections::{BTreeMap, BTreeSet};

use crate::policy::PolicySpec;

#[derive(Clone, Debug, PartialEq)]
pub struct MigrateOptions {
    pub restore_s: f64,
    pub min_run_s: f64,
    pub max_preempt: u32,
}

impl MigrateOptions {
    /// The same options and defaults as `dally`'s preemption.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<MigrateOptions, InputError> {
        Ok(MigrateOptions {
            restore_s: spec.take_f64("restore_s", 30.0, 0.0)?,
            min_run_s: spec.take_f64("min_run_s", 600.0, 0.0)?,
            max_preempt: spec.take_u32("max_preempt", 2)?,
        })
    }

    pub fn spec(&self) -> String {
        format!("restore_s={},min_run_s={},max_preempt={}", self.restore_s, self.min_run_s, self.max_preempt)
    }
}

pub struct Migrator {
    options: MigrateOptions,
    caps: Option<TierCapacity>,
    /// The tier a policy asked for (`kueue-tas`'s level, say): when set, only jobs placed
    /// looser than it (and than their tightest tier) are moved, and only into it, so that
    /// migration restores the locality the policy wanted rather than any tighter one.
    goal: Option<Tier>,
    /// Running jobs placed looser than their tightest tier, by (tier, GPUs).
    scattered: BTreeMap<(Tier, u32), BTreeSet<JobId>>,
    scattered_key: BTreeMap<JobId, (Tier, u32)>,
    room_appeared: bool,
}

impl Migrator {
    pub fn new(options: MigrateOptions) -> Migrator {
        Migrator {
            options,
            caps: None,
            goal: None,
            scattered: BTreeMap::new(),
            scattered_key: BTreeMap::new(),
            room_appeared: false,
        }
    }

    /// Moves jobs only when they run looser than `goal`, and only to placements within it.
    pub fn set_goal(&mut self, goal: Tier) {
        self.goal = Some(goal);
    }

    pub fn options(&self) -> &MigrateOptions {
        &self.options
    }

    fn caps(&mut self, view: &View) -> &TierCapacity {
        self.caps.get_or_insert_with(|| TierCapacity::new(view.topo))
    }

    /// The tightest tier `n` GPUs could ever get.
    pub fn base(&mut self, view: &View, n: u32) -> Tier {
        self.caps(view).base(n).unwrap_or(view.topo.top_tier())
    }

    fn unscatter(&mut self, job: JobId) {
        if let Some(key) = self.scattered_key.remove(&job) {
            if let Some(set) = self.scattered.get_mut(&key) {
                set.remove(&job);
                if set.is_empty() {
                    self.scattered.remove(&key);
                }
            }
        }
    }

    pub fn on_event(&mut self, event: &SimEvent, view: &View) {
        match *event {
            SimEvent::Placed { job, tier, .. } => {
                let n = view.job(job).gpus;
                let loosest_wanted = self.base(view, n).max(self.goal.unwrap_or(Tier::SERVER));
                if tier > loosest_wanted {
                    self.scattered.entry((tier, n)).or_default().insert(job);
                    self.scattered_key.insert(job, (tier, n));
                }
            }
            SimEvent::Preempted { job, .. } => self.unscatter(job),
            SimEvent::Completed { job } => {
                self.unscatter(job);
                self.room_appeared = true;
            }
            _ => {}
        }
    }

    fn within_goal(&self, tier: Tier) -> bool {
        self.goal.is_none_or(|g| tier <= g)
    }

    /// Whether the guard rails let `job` move now.
    fn may_move(&self, view: &View, job: JobId) -> bool {
        let run = view.run(job);
        run.status == JobStatus::Running
            && run.preemptions < self.options.max_preempt
            && view.now >= run.last_start + SimTime::from_secs_f64(self.options.min_run_s)
    }

    /// Moves one scattered job to a tighter placement that appeared; `false` if none can.
    pub fn try_reconsolidate(&mut self, view: &View, out: &mut Vec<Decision>) -> bool {
        if !self.room_appeared {
            return false;
        }
        let candidates: Vec<JobId> = self
            .scattered
            .iter()
            .filter(|((tier, n), _)| {
                view.cluster.tightest_tier_free(view.topo, *n).is_some_and(|t| t < *tier && self.within_goal(t))
            })
            .flat_map(|(_, jobs)| jobs.iter().copied())
            .collect();
        for job in candidates {
            if !self.may_move(view, job) {
                continue;
            }
            let from = view.run(job).tier.expect("running jobs have a tier");
            let Some((to, gpus)) = view.cluster.place_tightest(view.topo, view.job(job).gpus) else { continue };
            if to >= from || !self.within_goal(to) {
                continue;
            }
            let cost_s = self.options.restore_s;
            out.push(Decision::Preempt {
                job,
                restore_s: cost_s,
                reason: Reason::Reconsolidating { from, to, gain_s: 0.0, cost_s },
            });
            out.push(Decision::Place { job, gpus, reason: Reason::Reconsolidated { from, to } });
            return true;
        }
        self.room_appeared = false;
        false
    }

    /// Moves server-local jobs out of one node of `job`'s tightest tier so that `job` starts
    /// there; `false` if no node can be cleared that way.
    pub fn try_make_room(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) -> bool {
        let n = view.job(job).gpus;
        let base = self.base(view, n);
        let Some(nodes) = view.cluster.nodes_by_free(base) else { return false };
        let servers = view.cluster.nodes_by_free(Tier::SERVER).expect("every cluster has servers");
        for &(free, node) in nodes.iter().rev() {
            if view.topo.node(node).gpu_count < n {
                continue;
            }
            let Some(moves) = self.plan_room(view, node, n - free, servers) else { continue };
            self.emit_room(view, job, node, base, moves, out);
            return true;
        }
        false
    }

    /// For `node`, jobs to move out (with their destination server) freeing at least `need`
    /// GPUs inside it, or `None`.
    fn plan_room(
        &self,
        view: &View,
        node: NodeId,
        need: u32,
        servers: &BTreeSet<(u32, NodeId)>,
    ) -> Option<Vec<(JobId, NodeId)>> {
        let mut movable: Vec<(u32, JobId)> = holders_under(view.cluster, view.topo, node)
            .into_iter()
            .filter(|&(j, count)| {
                view.job(j).gpus == count && view.run(j).tier == Some(Tier::SERVER) && self.may_move(view, j)
            })
            .map(|(j, count)| (count, j))
            .collect();
        // Largest first (fewest moves), then submission order.
        movable.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut freed = 0;
        let mut claimed: BTreeMap<NodeId, u32> = BTreeMap::new();
        let mut moves = Vec::new();
        for (count, j) in movable {
            if freed >= need {
                break;
            }
            // Best fit among servers outside the node with room left after earlier moves.
            let dest = servers.range((count, NodeId(0))..).find_map(|&(f, s)| {
                let left = f - claimed.get(&s).copied().unwrap_or(0);
                (left >= count && !inside(view.topo, s, node)).then_some(s)
            });
            let Some(dest) = dest else { continue };
            *claimed.entry(dest).or_default() += count;
            freed += count;
            moves.push((j, dest));
        }
        (freed >= need).then_some(moves)
    }

    fn emit_room(
        &self,
        view: &View,
        job: JobId,
        node: NodeId,
        tier: Tier,
        moves: Vec<(JobId, NodeId)>,
        out: &mut Vec<Decision>,
    ) {
        let cost_s = self.options.restore_s;
        let victims: Vec<JobId> = moves.iter().map(|&(j, _)| j).collect();
        // The job's GPUs: inside the node, free or freed, from as few servers as possible.
        let nd = view.topo.node(node);
        let mut by_server: BTreeMap<NodeId, Vec<GpuId>> = BTreeMap::new();
        for g in (nd.first_gpu..nd.first_gpu + nd.gpu_count).map(GpuId) {
            let usable = match view.cluster.owner(g) {
                None => true,
                Some(o) => victims.contains(&o),
            };
            if usable {
                by_server.entry(view.topo.server_of(g)).or_default().push(g);
            }
        }
        let mut groups: Vec<Vec<GpuId>> = by_server.into_values().collect();
        groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
        let mut gpus: Vec<GpuId> = groups.into_iter().flatten().take(view.job(job).gpus as usize).collect();
        gpus.sort_unstable();
        for &v in &victims {
            out.push(Decision::Preempt {
                job: v,
                restore_s: cost_s,
                reason: Reason::PreemptedFor { for_job: job, tier, gain_s: 0.0, cost_s },
            });
        }
        out.push(Decision::Place { job, gpus, reason: Reason::PlacedByPreemption { tier, victims, gain_s: 0.0 } });
        let mut claimed: BTreeMap<NodeId, u32> = BTreeMap::new();
        for (v, dest) in moves {
            let count = view.job(v).gpus;
            let skip = claimed.get(&dest).copied().unwrap_or(0);
            let gpus = free_on_server(view.cluster, view.topo, dest, skip, count);
            *claimed.entry(dest).or_default() += count;
            out.push(Decision::Place {
                job: v,
                gpus,
                reason: Reason::Reconsolidated { from: Tier::SERVER, to: Tier::SERVER },
            });
        }
    }
}
