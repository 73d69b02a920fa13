//! `dally`: the network-sensitive scheduler of arXiv:2401.16492 (v2 calls it Dally), with
//! each of its three parts switchable for ablations.
//!
//! 1. **Delay scheduling for consolidation.** Jobs are considered first come, first served.
//!    A job waits for a placement at its tightest feasible tier (one server if it fits in
//!    one); when its timer for that tier runs out it accepts the next looser tier, and so on
//!    to the whole cluster. Its budget at tier `t` is the tier's timer capped by what waiting
//!    can win: its remaining ideal run time × (slowdown at `t+1` − slowdown at `t`), the
//!    slowdowns computed by the communication model on the cluster as loaded now, on the
//!    links the placement it would get now would cross ([`super::mechanisms::sensitivity`]). The
//!    remaining run time is estimated from the jobs completed so far and the service the job
//!    has attained ([`super::mechanisms::runtime`]); while nothing is known (no job has completed yet),
//!    the budget is the tier's full timer, as in classical delay scheduling. A job whose
//!    loss (its worst slowdown spread beyond its tightest tier, over its slowdown there) is
//!    below `threshold` is insensitive and takes what is free at once. Waiting jobs never
//!    block the queue: others behind them are placed meanwhile. `delay=off` makes nobody
//!    wait; `delay=all` makes every job wait its tier's full timer, sensitive or not.
//!
//!    *Starvation bound.* Letting later jobs pass is what makes a waiting job starve, as in
//!    all delay scheduling. Here the wait for a tighter placement is bounded by the sum of
//!    the job's budgets, each at most its tier's timer (itself at most an hour): after that
//!    the job accepts any tier and is exactly as placeable as under `consolidate`. For a hard
//!    bound on the whole wait, `starve_s=S` adds a reservation: once the oldest queued job
//!    has waited `S` seconds, it accepts any tier and, while it does not fit, no job behind it
//!    starts; it then waits at most until enough running jobs end. It is off by default,
//!    because on an overloaded cluster it turns the queue into strict first come, first
//!    served and costs far more mean JCT than it saves tail (see `docs/EXPERIMENTS.md`).
//! 2. **Network-sensitive preemption** ([`preempt`]): less sensitive running jobs are
//!    checkpointed when that gets a sensitive waiting job its tightest tier and the gain
//!    exceeds the cost; scattered jobs move to a tighter placement when room appears.
//! 3. **Auto-tuned timers** ([`super::mechanisms::tuner`]): every `tune_every_s` the per-tier timers are
//!    re-estimated from the run's own history.
//!
//! Within a tier, a job spanning servers goes where the links it would cross are coolest
//! ([`super::mechanisms::sensitivity::cool_placement`]); on an idle network that is the baseline's best
//! fit.
//!
//! With `quota=on` the tenants' quotas hold as under every other policy's `quota=on`
//! ([`super::mechanisms::quota`], [`quotas`]): jobs within their tenant's quota go first and take GPUs
//! back from borrowers, a borrower never starts on GPUs a waiting job within quota needs,
//! and the network-sensitive preemption never checkpoints another tenant's job unless that
//! tenant borrows and the job it serves is within its quota.
//!
//! Options (defaults in brackets): `delay=on|off|all` [on], `preempt=on|off` [on],
//! `autotune=on|off` [on], `timers=SERVER_S/RACK_S[/...]` [300/150: the static timers, or
//! the tuner's starting point], `threshold` [1.05], `starve_s` [off], `restore_s` [30],
//! `min_run_s` [600], `max_preempt` [2; 48 with `order=las`], `tune_every_s` [600], `quota=on|off` [off; reclaimed
//! jobs pay `restore_s`], `runtime=estimate|oracle` [estimate; `oracle` reads each job's true
//! remaining run time from the trace, for ablation only], `order=fifo|las` [fifo; `las`
//! serves least attained service first, [`order`]], `queues` [3600/57600, with `order=las`],
//! `service=exchange|priority` [exchange, with `order=las`: when service order may preempt,
//! [`service`]], `patient_above=S|off` [2, with `order=las`: a job waits as long as a looser
//! tier this much slower would cost it, [`options::LAS_PATIENT_ABOVE`]].

mod learning;
mod options;
mod order;
mod preempt;
mod quotas;
mod service;
mod waiting;

pub use options::{
    DallyOptions, DelayMode, Order, ServiceRule, DEFAULT_MAX_PREEMPT, DEFAULT_TIMERS_S, INFO, LAS_MAX_PREEMPT,
    LAS_PATIENT_ABOVE,
};

use super::mechanisms::levels::LevelProfile;
use super::mechanisms::profile::Profile;
use super::mechanisms::quota::QuotaBook;
use super::mechanisms::runtime::RemainingTime;
use super::mechanisms::sensitivity::{cool_placement, Sensitivity};
use super::mechanisms::tuner::{TimerTuner, WaitSample};
use super::{Decision, Policy, PolicySpec, View};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{Reason, SimEvent};
use crate::time::SimTime;
use crate::topology::Tier;
use order::{LasBook, Rank};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WaitKind {
    /// Waiting for a tighter tier under delay timers.
    Delay,
    /// Insensitive, or nothing tighter exists: takes any tier.
    Any,
    /// Past the starvation bound.
    Starving,
}

/// A queued job as the policy tracks it.
#[derive(Clone, Debug)]
struct Waiter {
    gpus: u32,
    /// When this wait began (arrival or requeue).
    since: SimTime,
    /// When the current acceptable tier began.
    phase_start: SimTime,
    base: Tier,
    /// The loosest tier the job accepts now.
    accept: Tier,
    deadline: Option<SimTime>,
    kind: WaitKind,
    sens: Option<Sensitivity>,
    /// Remaining ideal run time when the wait began, as the policy knows it (`None`: no
    /// estimate yet).
    remaining_ideal_s: Option<f64>,
    /// Its place in the order while it waits.
    rank: Rank,
}

impl Waiter {
    /// The job's loss spread out, as estimated when its current phase began.
    fn loss(&self) -> f64 {
        self.sens.as_ref().map(Sensitivity::loss).unwrap_or(1.0)
    }
}

pub struct Dally {
    options: DallyOptions,
    /// Per tier below the top, the current timer in seconds.
    timers: Vec<f64>,
    /// What the policy predicts slowdowns from, built at its first decision.
    profile: Option<Profile>,
    waiters: BTreeMap<JobId, Waiter>,
    /// Queued jobs by (acceptable tier, GPUs), each group in the order served (submission
    /// order, or least attained service first).
    groups: BTreeMap<(Tier, u32), BTreeSet<Rank>>,
    deadlines: BTreeSet<(SimTime, JobId)>,
    /// Waiting jobs per acceptable tier in a delay phase (competition for the tuner).
    in_phase: Vec<u32>,
    /// Jobs to consider for preemption on their behalf.
    to_check: BTreeSet<JobId>,
    /// Jobs whose wait reason changed and should be reported.
    to_note: BTreeSet<JobId>,
    /// Running sensitive jobs placed looser than their tightest tier, by (tier, GPUs): a
    /// whole group is skipped when no tighter room for its size exists.
    scattered: BTreeMap<(Tier, u32), BTreeSet<JobId>>,
    scattered_key: BTreeMap<JobId, (Tier, u32)>,
    room_appeared: bool,
    /// Recent queueing delay of placed jobs (exponentially weighted): what a preempted job
    /// that cannot restart at once can expect to wait.
    recent_wait_s: f64,
    wake_requested: Option<SimTime>,
    next_tune: SimTime,
    tuner: TimerTuner,
    /// Per tier, recent ratios of realised iteration time to the representative estimate,
    /// and their median (kept up to date on each new ratio, read on every wait).
    realised: Vec<VecDeque<f64>>,
    realised_median: Vec<f64>,
    /// Who uses what, under `quota=on`.
    book: Option<QuotaBook>,
    /// Remaining run times: estimated from completions, or the oracle's.
    remaining: RemainingTime,
    /// The attained-service queues, under `order=las`.
    las: Option<LasBook>,
}

/// Weight of the newest queueing delay in [`Dally::recent_wait_s`]: about the last 50
/// placements count.
const RECENT_WAIT_WEIGHT: f64 = 0.02;

/// Recent realised ratios kept per tier.
const REALISED_WINDOW: usize = 200;
/// Recent waits per tier the tuner learns from.
const TUNER_WINDOW: usize = 200;

impl Dally {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Dally, InputError> {
        let options = DallyOptions::from_spec(spec)?;
        Ok(Dally {
            timers: options.timers_s.clone(),
            tuner: TimerTuner::new(0, TUNER_WINDOW, 5.0, 3600.0),
            book: options.quota.then(QuotaBook::default),
            remaining: RemainingTime::new(options.runtime),
            las: (options.order == Order::Las).then(|| LasBook::new(&options.thresholds_gpu_s)),
            options,
            profile: None,
            waiters: BTreeMap::new(),
            groups: BTreeMap::new(),
            deadlines: BTreeSet::new(),
            in_phase: Vec::new(),
            to_check: BTreeSet::new(),
            to_note: BTreeSet::new(),
            scattered: BTreeMap::new(),
            scattered_key: BTreeMap::new(),
            room_appeared: false,
            recent_wait_s: 0.0,
            wake_requested: None,
            next_tune: SimTime::ZERO,
            realised: Vec::new(),
            realised_median: Vec::new(),
        })
    }

    /// The timers in force now, per tier below the top.
    pub fn timers(&self) -> &[f64] {
        &self.timers
    }

    fn timer(&self, tier: Tier) -> f64 {
        let i = (tier.0 as usize).min(self.timers.len().saturating_sub(1));
        self.timers.get(i).copied().unwrap_or(0.0)
    }

    /// Sizes the per-tier state for the topology, the first time the policy sees it.
    fn ensure_levels(&mut self, view: &View) {
        if self.profile.is_some() {
            return;
        }
        let tiers = view.topo.tier_count() as usize;
        // One timer per tier below the top; a shorter list repeats its last value.
        let mut timers = self.options.timers_s.clone();
        let last = timers.last().copied().unwrap_or(0.0);
        timers.resize(tiers.saturating_sub(1).max(1), last);
        self.timers = timers;
        self.tuner = TimerTuner::new(tiers, TUNER_WINDOW, 5.0, 3600.0);
        self.in_phase = vec![0; tiers];
        self.realised = vec![VecDeque::new(); tiers];
        self.realised_median = vec![1.0; tiers];
        self.profile = Some(Profile::new(self.options.profile, view));
    }

    fn profile(&self) -> &Profile {
        self.profile.as_ref().expect("ensure_levels runs before any use")
    }

    fn levels(&self) -> &LevelProfile {
        self.profile().levels()
    }

    // -- queue bookkeeping ---------------------------------------------------------------

    fn group_insert(&mut self, job: JobId, w: &Waiter) {
        self.groups.entry((w.accept, w.gpus)).or_default().insert(w.rank);
        if w.kind == WaitKind::Delay {
            self.in_phase[w.accept.0 as usize] += 1;
        }
        if let Some(d) = w.deadline {
            self.deadlines.insert((d, job));
        }
    }

    fn group_remove(&mut self, job: JobId, w: &Waiter) {
        let key = (w.accept, w.gpus);
        if let Some(set) = self.groups.get_mut(&key) {
            set.remove(&w.rank);
            if set.is_empty() {
                self.groups.remove(&key);
            }
        }
        if w.kind == WaitKind::Delay {
            self.in_phase[w.accept.0 as usize] -= 1;
        }
        if let Some(d) = w.deadline {
            self.deadlines.remove(&(d, job));
        }
    }

    // -- decisions -----------------------------------------------------------------------

    /// The first waiter in the order that can be placed now within its acceptable tier and
    /// passes `allowed` (under quotas: may start now, [`Self::may_start`]).
    fn next_placeable(&self, view: &View, allowed: impl Fn(JobId) -> bool) -> Option<JobId> {
        self.groups
            .iter()
            .filter(|((accept, gpus), _)| view.cluster.max_free_at(*accept) >= *gpus)
            .filter_map(|(_, set)| set.iter().copied().find(|r| allowed(r.job)))
            .min()
            .map(|r| r.job)
    }

    fn place(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) {
        let w = &self.waiters[&job];
        let tier = view.cluster.tightest_tier_free(view.topo, w.gpus).expect("checked to fit");
        let gpus = cool_placement(self.profile(), view, job, tier).expect("checked to fit");
        let waited_s = (view.now - w.since).as_secs_f64();
        let sensitive = w.loss() >= self.options.threshold;
        let reason = if w.kind == WaitKind::Starving {
            Reason::StarvationBound { tier, waited_s }
        } else if !sensitive {
            Reason::Insensitive { tier, slowdown: w.loss() }
        } else if self.options.delay == DelayMode::Off {
            Reason::TightestNow { tier }
        } else if tier <= w.base {
            Reason::wanted_tier(tier, waited_s)
        } else {
            // Sensitive and placed looser than its tightest tier: its timers ran out (or were
            // worth nothing).
            Reason::TimerExpired { tier, waited_s, slowdown: view.estimate_slowdown(job, &gpus) }
        };
        out.push(Decision::Place { job, gpus, reason });
    }

    fn wait_reason(&self, view: &View, job: JobId) -> Reason {
        let w = &self.waiters[&job];
        let best = view.cluster.place_tightest(view.topo, w.gpus);
        match (w.kind, &best) {
            (WaitKind::Delay, _) => Reason::WaitingForTier {
                wanted: w.accept,
                left_s: w.deadline.map(|d| (d - view.now).as_secs_f64()).unwrap_or(0.0),
                best_now: best.as_ref().map(|(t, _)| *t),
                slowdown: best.as_ref().map(|(_, g)| view.estimate_slowdown(job, g)).unwrap_or(0.0),
            },
            _ => Reason::NoRoom { free: view.cluster.free_count() },
        }
    }
}

impl Policy for Dally {
    fn spec(&self) -> String {
        self.options.spec()
    }

    fn delay_timers(&self) -> Vec<f64> {
        self.options.timers_s.clone()
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
        if let Some(book) = &mut self.book {
            book.on_event(event, view);
        }
        self.remaining.on_event(event, view);
        if let Some(book) = &mut self.las {
            book.on_event(event, view);
        }
        match event {
            SimEvent::Arrived { job } => self.start_wait(view, *job),
            SimEvent::Preempted { job, .. } => {
                self.unscatter(*job);
                self.room_appeared = true;
                self.start_wait(view, *job);
            }
            SimEvent::Placed { job, tier, iter_s, .. } => {
                if let Some(w) = self.waiters.get(job) {
                    let waited = (view.now - w.since).as_secs_f64();
                    self.recent_wait_s += RECENT_WAIT_WEIGHT * (waited - self.recent_wait_s);
                }
                if let Some(w) = self.waiters.remove(job) {
                    self.group_remove(*job, &w);
                    // A job placed the moment its phase began never waited: the timer did not
                    // matter to it, so it says nothing about how long waits take.
                    if w.kind == WaitKind::Delay && *tier <= w.accept && view.now > w.phase_start {
                        let competitors = self.in_phase[w.accept.0 as usize];
                        self.tuner.record_wait(
                            w.accept.0 as usize,
                            WaitSample {
                                waited_s: (view.now - w.phase_start).as_secs_f64(),
                                success: true,
                                competitors,
                            },
                        );
                    }
                    // What placements at this tier really cost against the estimate.
                    let j = view.job(*job);
                    if tier.0 > 0 {
                        if let Some(estimate) = self.profile().representative_iter_s(view, *job, *tier) {
                            self.record_realised(*tier, iter_s / estimate);
                        }
                    }
                    // A job placed looser than its tightest tier may move back when room
                    // appears, if it is sensitive or runs slowly where it is (a wide job on hot
                    // uplinks).
                    let slowdown = j.ideal_iter_s.map(|ideal| iter_s / ideal).unwrap_or(1.0);
                    if *tier > w.base && (w.loss() >= self.options.threshold || slowdown >= self.options.threshold) {
                        let key = (*tier, w.gpus);
                        self.scattered.entry(key).or_default().insert(*job);
                        self.scattered_key.insert(*job, key);
                    }
                }
                self.to_check.remove(job);
                self.to_note.remove(job);
            }
            SimEvent::Completed { job } => {
                self.unscatter(*job);
                self.room_appeared = true;
            }
            _ => {}
        }
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        self.ensure_levels(view);
        if self.options.autotune && view.now >= self.next_tune {
            self.tune(out);
            self.next_tune = view.now + SimTime::from_secs_f64(self.options.tune_every_s);
        }
        self.expire_deadlines(view);
        if let Some(book) = &mut self.las {
            book.apply_demotions(view.now);
        }
        if self.quota_step(view, out) {
            return;
        }

        // The starvation bound: the oldest job, once it has waited long enough, goes first.
        let starve = self.options.starve_s.map(SimTime::from_secs_f64);
        if let (Some(starve), Some((&head, w))) = (starve, self.waiters.iter().next()) {
            if w.kind != WaitKind::Starving && view.now - w.since >= starve {
                let mut w = self.waiters.remove(&head).expect("present");
                self.group_remove(head, &w);
                w.kind = WaitKind::Starving;
                w.accept = view.topo.top_tier();
                w.deadline = None;
                self.group_insert(head, &w);
                self.waiters.insert(head, w);
                self.to_note.insert(head);
            }
            let w = &self.waiters[&head];
            if w.kind == WaitKind::Starving {
                if view.cluster.free_count() >= w.gpus && self.may_start(view, head) {
                    self.place(view, head, out);
                    return;
                }
                // Reserve: nobody behind it starts while it does not fit.
                self.emit_notes(view, out);
                return;
            }
        }

        if self.options.preempt && self.options.delay == DelayMode::Off {
            // Without delay, a sensitive job that cannot get its tightest tier is considered
            // for preemption before it takes a looser placement.
            while let Some(job) = self.to_check.pop_first() {
                if self.try_preempt_for(view, job, out) {
                    return;
                }
            }
        }

        if self.las.is_some() {
            if self.las_step(view, out) {
                return;
            }
        } else if let Some(job) = self.next_placeable(view, |j| self.may_start(view, j)) {
            self.place(view, job, out);
            return;
        }

        if self.options.preempt {
            while let Some(job) = self.to_check.pop_first() {
                if self.try_preempt_for(view, job, out) {
                    return;
                }
            }
            if self.room_appeared {
                let candidates: Vec<JobId> = self
                    .scattered
                    .iter()
                    .filter(|((tier, gpus), _)| {
                        view.cluster.tightest_tier_free(view.topo, *gpus).is_some_and(|t| t < *tier)
                    })
                    .flat_map(|(_, jobs)| jobs.iter().copied())
                    .collect();
                for job in candidates {
                    if self.try_reconsolidate(view, job, out) {
                        return;
                    }
                }
                self.room_appeared = false;
            }
        } else {
            self.to_check.clear();
        }

        self.emit_notes(view, out);
        let demotion = self.las.as_ref().and_then(LasBook::next_demotion);
        let deadline = self.deadlines.first().map(|&(d, _)| d);
        if let Some(d) = deadline.into_iter().chain(demotion).min() {
            if self.wake_requested.is_none_or(|r| r <= view.now || d < r) {
                self.wake_requested = Some(d);
                out.push(Decision::WakeAt(d));
            }
        }
    }
}

impl Dally {
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

    fn emit_notes(&mut self, view: &View, out: &mut Vec<Decision>) {
        let jobs: Vec<JobId> = std::mem::take(&mut self.to_note).into_iter().collect();
        for job in jobs {
            if self.waiters.contains_key(&job) {
                out.push(Decision::Wait { job, reason: self.wait_reason(view, job) });
            }
        }
    }
}
