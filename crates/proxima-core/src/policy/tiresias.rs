//! `tiresias`: discretised two-dimensional least-attained-service (2D-LAS), preemptive — the
//! information-agnostic scheduler of Tiresias (Gu et al., "Tiresias: A GPU Cluster Manager for
//! Distributed Deep Learning", NSDI 2019), with the settings of its published simulator
//! (SymbioticLab/Tiresias, `simulator/run_sim.py` `dlas_sim_jobs` and `simulator/jobs.py`).
//!
//! **Priority.** A job's attained service is its GPU count times the time it has run. Jobs
//! sit in `K` queues; a job enters the highest (queue 0) and is demoted to queue `k + 1` once
//! its attained service reaches the `k`-th threshold. Queues are served in order. Within a
//! queue, jobs holding GPUs come first, then waiting jobs, as in the Tiresias simulator,
//! which moves waiting jobs behind running ones after every pass; within each group jobs
//! keep the order in which they entered the queue (the simulator's lists drift from that
//! order as jobs start and stop; entry order is our simplification). `running_first=off`
//! keeps pure entry order, as the Pollux artifact's copy does.
//!
//! **Admission.** Whenever something changed (an arrival, a completion, a demotion or a
//! promotion), the scheduler walks the jobs in priority order and admits each whose GPUs fit
//! in what the jobs admitted before it left of the cluster's total, skipping those that do
//! not (the simulator's resource counting, `CLUSTER.free_gpu`). Running jobs not admitted
//! are preempted (checkpointed; they pay `restore_s` when they restart, as under `dally`);
//! admitted waiting jobs are placed. Since admitted jobs never need more GPUs than the
//! cluster has, every placement succeeds.
//!
//! **Starvation knob** (`starve=X`, Tiresias's PromoteKnob): a waiting job in a lower queue
//! is promoted to queue 0, its attained service counted afresh, once the time it has waited
//! since it last entered queue 0 (counted from its first run) reaches `X` times the time it
//! has run since then (`last_pending_time >= executed_time * solve_starvation` in the
//! simulator). Off by default, as in the simulator's `dlas-gpu` scheme.
//!
//! **Placement** (`place=`): `skew` (default) is Tiresias's consolidation rule: only jobs whose
//! model is sensitive to placement are consolidated. Tiresias profiles a model's tensor-size
//! skew; here the profile is the job's contention-free slowdown when spread across servers
//! ([`spread_slowdown`]): at or above `skew` (default 1.05) the job gets the tightest
//! placement free now, below it the first free GPUs wherever they are. A job never waits
//! for a better placement (our choice: admission has already decided that it runs). `tightest` consolidates every job, `first_fit` none, and `most_free` takes
//! the servers with the most free GPUs first, as the Pollux artifact does.
//!
//! **Scheduling rounds** (`round_s=S`): decisions, demotions and promotions happen only at
//! multiples of `S` seconds (the first at `S`), as in the Pollux simulator's 60 s rounds; a
//! job arriving between rounds waits for the next, GPUs freed between rounds stay idle until
//! then. Off by default: decisions at every event, as in the Tiresias simulator.
//!
//! Attained service counts the time a job makes progress, not the restore after a restart:
//! then every demotion and every promotion cycle carries real progress and a run always ends
//! (the Tiresias simulator has no restore cost; the Pollux simulator counts its 30 s restart
//! too, at most `restore_s` × GPUs per placement more than here).
//!
//! Defaults: `queues=3250/7200` GPU-seconds, three queues (`JOBS.num_queue = 3`,
//! `queue_limit = [3250, 7200, 18000]`, the last unused with three queues), `starve=off`,
//! `place=skew`, `skew=1.05`, `running_first=on`, `restore_s=30`, `round_s=off`.
//!
//! The setting of the Pollux artifact's `simulator/tiresias.py` (petuum/adaptdl, branch
//! `osdi21-artifact`: two queues split at 16 GPU-hours, `_solve_starvation = 0`, most free
//! node first, queues in entry order, rounds of 60 s) is
//! `tiresias:queues=57600,starve=off,place=most_free,running_first=off,round_s=60` ([`POLLUX_SPEC`]).
//!
//! **Quotas** (`quota=on`, [`super::mechanisms::quota`]): admission walks the same priority order twice,
//! first each tenant's jobs within its quota, then everyone's in what is left
//! ([`quota::admit_two_phase`](super::mechanisms::quota::admit_two_phase)); a borrower's running job
//! that loses its place is checkpointed for the jobs within quota (a reclaim). With
//! `round_s`, quotas hold at the rounds.

mod admission;
mod options;

pub use options::{PlaceRule, TiresiasOptions};

use super::info::{
    opt,
    OptionKind::{Choice, Number, SecondsOrOff, Switch, Thresholds},
    PolicyInfo, QUOTA, RESTORE,
};
use super::mechanisms::las;
use super::mechanisms::placement::{spread_slowdown, TierCapacity};
use super::mechanisms::quota::QuotaBook;
use super::{Decision, Policy, PolicySpec, View};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::model::ModelId;
use crate::time::SimTime;
use crate::topology::Tier;
use admission::Section;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The Pollux artifact's Tiresias as one spec (see the module documentation).
pub const POLLUX_SPEC: &str = "tiresias:queues=57600,starve=off,place=most_free,running_first=off,round_s=60";

pub use super::mechanisms::las::DEFAULT_THRESHOLDS_GPU_S;

/// A job in the system, as the policy tracks it.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    active: bool,
    running: bool,
    queue: u8,
    /// Position in its queue: when it entered it.
    seq: u64,
    gpus: u32,
    /// Time spent making progress since it last entered queue 0.
    executed: SimTime,
    /// Time spent waiting since it last entered queue 0, counted once it has run.
    waited: SimTime,
    /// When the current run started making progress (after its restore), or the current
    /// wait began.
    since: SimTime,
    /// Its demotion (running) or promotion (waiting) time, if it has one.
    deadline: Option<SimTime>,
}

/// What the last walk decided, carried out over the engine's passes: preemptions first (so
/// that placements see the GPUs they free), then one placement per pass in priority order.
#[derive(Default)]
struct Plan {
    preempt: Vec<JobId>,
    place: VecDeque<JobId>,
}

/// This policy in the catalogue ([`crate::policy::POLICIES`]): its name, what it does, where it
/// comes from and its options with their defaults, and how it is built from a spec.
pub const INFO: PolicyInfo = PolicyInfo {
    name: "tiresias",
    summary: "Discretised 2D-LAS: queues by attained GPU-time, preemptive, optional PromoteKnob starvation rule, consolidates only placement-sensitive jobs. `tiresias:queues=57600,starve=off,place=most_free,running_first=off,round_s=60` is the Pollux artifact's `tiresias.py`.",
    source: "Gu et al., NSDI 2019; SymbioticLab/Tiresias `simulator/`; petuum/adaptdl `osdi21-artifact` `simulator/tiresias.py`",
    options: &[
        opt("queues", Thresholds, "3250/7200", "attained GPU-seconds at which a job drops a queue"),
        opt("starve", Switch, "off", "on: PromoteKnob, a job starved for long is promoted"),
        opt("place", Choice(&["skew", "tightest", "most_free", "first_fit"]), "skew", "skew: consolidate only placement-sensitive jobs; tightest: every job"),
        opt("skew", Number, "1.05", "the model skew above which a job is placement-sensitive"),
        opt("running_first", Switch, "on", "within a queue, running jobs before waiting ones"),
        RESTORE,
        opt("round_s", SecondsOrOff, "off", "reschedule only every this many seconds"),
        QUOTA,
    ],
    build: |spec| Ok(Box::new(Tiresias::from_spec(spec)?)),
};

pub struct Tiresias {
    options: TiresiasOptions,
    entries: Vec<Entry>,
    /// Per queue: section 0 (running jobs, or all jobs when `running_first=off`) and
    /// section 1 (waiting jobs).
    queues: Vec<[Section; 2]>,
    /// Per queue below the last, the attained service (GPU-µs) that demotes.
    thresholds_gpu_us: Vec<f64>,
    deadlines: BTreeSet<(SimTime, JobId)>,
    next_seq: u64,
    dirty: bool,
    plan: Plan,
    wake_requested: Option<SimTime>,
    caps: Option<TierCapacity>,
    skew_of: BTreeMap<(ModelId, u32), f64>,
    /// Who uses what, under `quota=on`.
    book: QuotaBook,
    /// The order and the admissions of the last walk under quotas, kept for their memory.
    walk_buffers: (Vec<(JobId, u32, crate::tenants::TenantId)>, Vec<bool>),
}

impl Tiresias {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Tiresias, InputError> {
        let options = TiresiasOptions::from_spec(spec)?;
        let queues = vec![<[Section; 2]>::default(); options.thresholds_gpu_s.len() + 1];
        let thresholds_gpu_us = options.thresholds_gpu_s.iter().map(|t| t * 1e6).collect();
        Ok(Tiresias {
            options,
            entries: Vec::new(),
            queues,
            thresholds_gpu_us,
            deadlines: BTreeSet::new(),
            next_seq: 0,
            dirty: false,
            plan: Plan::default(),
            wake_requested: None,
            caps: None,
            skew_of: BTreeMap::new(),
            book: QuotaBook::default(),
            walk_buffers: (Vec::new(), Vec::new()),
        })
    }

    fn round(&self) -> Option<u64> {
        self.options.round_s.map(|s| SimTime::from_secs_f64(s).0.max(1))
    }

    fn section(&self, e: &Entry) -> usize {
        (self.options.running_first && !e.running) as usize
    }

    fn index(&mut self, job: JobId) {
        let e = self.entries[job.0 as usize];
        let s = self.section(&e);
        self.queues[e.queue as usize][s].insert(e.seq, job, e.gpus, e.running);
    }

    fn unindex(&mut self, job: JobId) {
        let e = self.entries[job.0 as usize];
        let s = self.section(&e);
        self.queues[e.queue as usize][s].remove(e.seq, job, e.gpus, e.running);
    }

    fn set_deadline(&mut self, job: JobId, deadline: Option<SimTime>) {
        let e = &mut self.entries[job.0 as usize];
        if let Some(d) = e.deadline.take() {
            self.deadlines.remove(&(d, job));
        }
        e.deadline = deadline;
        if let Some(d) = deadline {
            self.deadlines.insert((d, job));
        }
    }

    /// When a running job's attained service reaches its queue's threshold.
    fn demotion_time(&self, e: &Entry) -> Option<SimTime> {
        las::demotion_time(&self.thresholds_gpu_us, e.queue, e.gpus, e.executed, e.since)
    }

    /// When a waiting job of a lower queue has waited `starve` times what it ran.
    fn promotion_time(&self, e: &Entry) -> Option<SimTime> {
        let knob = self.options.starve?;
        if e.queue == 0 || e.executed == SimTime::ZERO {
            return None;
        }
        let due = SimTime((e.executed.0 as f64 * knob).ceil() as u64);
        Some(e.since + SimTime(due.0.saturating_sub(e.waited.0)))
    }

    fn enter_queue(&mut self, job: JobId, queue: u8) {
        self.unindex(job);
        let e = &mut self.entries[job.0 as usize];
        e.queue = queue;
        e.seq = self.next_seq;
        self.next_seq += 1;
        self.index(job);
        self.dirty = true;
    }

    /// Applies the demotions and promotions due by now, in submission order.
    fn apply_due(&mut self, now: SimTime) {
        let mut due = Vec::new();
        while let Some(&(d, job)) = self.deadlines.first() {
            if d > now {
                break;
            }
            self.deadlines.remove(&(d, job));
            self.entries[job.0 as usize].deadline = None;
            due.push(job);
        }
        due.sort_unstable();
        for job in due {
            let e = self.entries[job.0 as usize];
            let elapsed = SimTime(now.0.saturating_sub(e.since.0));
            if e.running {
                let e = &mut self.entries[job.0 as usize];
                e.executed = e.executed + elapsed;
                e.since = now;
                let next = e.queue + 1;
                self.enter_queue(job, next);
                let d = self.demotion_time(&self.entries[job.0 as usize]);
                self.set_deadline(job, d);
            } else {
                // Promoted: its attained service and its wait count afresh.
                let e = &mut self.entries[job.0 as usize];
                e.since = now;
                e.executed = SimTime::ZERO;
                e.waited = SimTime::ZERO;
                self.enter_queue(job, 0);
            }
        }
    }

    fn skew(&mut self, view: &View, job: JobId) -> f64 {
        let j = view.job(job);
        *self.skew_of.entry((j.model, j.gpus)).or_insert_with(|| spread_slowdown(view.topo, view.catalog, view.comm, j))
    }

    /// Places `job`, admitted by the walk, as the placement rule says; `false` when it does
    /// not fit, which happens only when a preemption the walk planned was not carried out.
    fn place(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) -> bool {
        let n = view.job(job).gpus;
        let tightest = |view: &View| {
            view.cluster.place_tightest(view.topo, n).map(|(tier, gpus)| (gpus, Reason::TightestNow { tier }))
        };
        let placed = match self.options.place {
            PlaceRule::Tightest => tightest(view),
            PlaceRule::MostFree => {
                super::mechanisms::placement::most_free(view.cluster, view.topo, n).map(|g| (g, Reason::FirstFit))
            }
            PlaceRule::FirstFit => view.cluster.first_free(n).map(|g| (g, Reason::FirstFit)),
            PlaceRule::Skew => {
                let skew = self.skew(view, job);
                if skew >= self.options.skew {
                    tightest(view)
                } else {
                    view.cluster.first_free(n).map(|g| {
                        let tier = view.topo.tier_of(&g);
                        (g, Reason::Insensitive { tier, slowdown: skew })
                    })
                }
            }
        };
        let Some((gpus, reason)) = placed else { return false };
        out.push(Decision::Place { job, gpus, reason });
        true
    }

    fn request_wake(&mut self, view: &View, out: &mut Vec<Decision>) {
        let round = self.round();
        let round_up = |t: SimTime| match round {
            Some(r) => SimTime(t.0.div_ceil(r).max(1) * r),
            None => t,
        };
        let mut want = None;
        if self.dirty {
            want = round.map(|r| SimTime((view.now.0 / r + 1) * r));
        }
        if let Some(&(d, _)) = self.deadlines.first() {
            let t = round_up(d).max(view.now + SimTime(1));
            want = Some(want.map_or(t, |w: SimTime| w.min(t)));
        }
        if let Some(t) = want {
            if self.wake_requested.is_none_or(|r| r <= view.now || t < r) {
                self.wake_requested = Some(t);
                out.push(Decision::WakeAt(t));
            }
        }
    }
}

impl Policy for Tiresias {
    fn spec(&self) -> String {
        self.options.spec()
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        if self.entries.len() < view.jobs.len() {
            self.entries.resize(view.jobs.len(), Entry::default());
        }
        if self.options.quota {
            self.book.on_event(event, view);
        }
        let now = view.now;
        match *event {
            SimEvent::Arrived { job } => {
                self.entries[job.0 as usize] = Entry {
                    active: true,
                    gpus: view.job(job).gpus,
                    seq: self.next_seq,
                    since: now,
                    ..Entry::default()
                };
                self.next_seq += 1;
                self.index(job);
                self.dirty = true;
            }
            SimEvent::Placed { job, .. } => {
                self.unindex(job);
                self.set_deadline(job, None);
                let e = &mut self.entries[job.0 as usize];
                if e.executed > SimTime::ZERO {
                    e.waited = e.waited + SimTime(now.0.saturating_sub(e.since.0));
                }
                e.running = true;
                e.since = view.run(job).resume_at.max(now);
                self.index(job);
                let d = self.demotion_time(&self.entries[job.0 as usize]);
                self.set_deadline(job, d);
            }
            SimEvent::Preempted { job, .. } => {
                self.unindex(job);
                self.set_deadline(job, None);
                let e = &mut self.entries[job.0 as usize];
                e.executed = e.executed + SimTime(now.0.saturating_sub(e.since.0));
                e.running = false;
                e.since = now;
                self.index(job);
                let d = self.promotion_time(&self.entries[job.0 as usize]);
                self.set_deadline(job, d);
            }
            SimEvent::Completed { job } if self.entries.get(job.0 as usize).is_some_and(|e| e.active) => {
                self.unindex(job);
                self.set_deadline(job, None);
                self.entries[job.0 as usize].active = false;
                self.dirty = true;
            }
            _ => {}
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        if self.caps.is_none() {
            self.caps = Some(TierCapacity::new(view.topo));
        }
        let decide_now = match self.round() {
            None => true,
            Some(r) => view.now.0 > 0 && view.now.0.is_multiple_of(r),
        };
        if decide_now {
            // Carry out the plan of this instant first: a pass emits preemptions, the
            // passes after it one placement each.
            if !self.plan.preempt.is_empty() {
                let victims = std::mem::take(&mut self.plan.preempt);
                let for_job = *self.plan.place.front().expect("a job is preempted only for a waiting one");
                let tier = view.job(for_job).gpus;
                let tier = self.caps.as_ref().and_then(|c| c.base(tier)).unwrap_or(Tier::SERVER);
                let cost_s = self.options.restore_s;
                for job in victims {
                    let reclaimed = self.options.quota && self.book.is_borrowing(view, view.job(job).tenant);
                    let reason = Reason::preempted_for(for_job, tier, cost_s, reclaimed);
                    out.push(Decision::Preempt { job, restore_s: cost_s, reason });
                }
                return;
            }
            if let Some(job) = self.plan.place.pop_front() {
                if self.place(view, job, out) {
                    return;
                }
                // The room the plan counted on is not there: a preemption it made was not
                // carried out (`replay::ForbidPreemption`, the what-if "had it not been
                // preempted"). Plan again from the cluster as it is.
                self.plan.place.clear();
                self.dirty = true;
            }
            self.apply_due(view.now);
            if self.dirty {
                self.dirty = false;
                if self.options.quota {
                    self.walk_with_quota(view);
                } else {
                    self.walk(view);
                }
                if !self.plan.preempt.is_empty() || !self.plan.place.is_empty() {
                    // Decide in the next pass, with the plan complete.
                    self.schedule(view, out);
                    return;
                }
            }
        }
        self.request_wake(view, out);
    }
}
