//! `dally`: the network-sensitive scheduler of arXiv:2401.16492 (v2 calls it Dally), with
//! each of its three parts switchable for ablations.
//!
//! 1. **Delay scheduling for consolidation.** Jobs are considered first come, first served.
//!    A job waits for a placement at its tightest feasible tier (one server if it fits in
//!    one); when its timer for that tier runs out it accepts the next looser tier, and so on
//!    to the whole cluster. Its budget at tier `t` is the tier's timer capped by what waiting
//!    can win: its remaining ideal run time × (slowdown at `t+1` − slowdown at `t`), the
//!    slowdowns computed by the communication model on the cluster as loaded now
//!    ([`super::sensitivity`]). A job whose slowdown even spread across the cluster is below
//!    `threshold` is insensitive and takes what is free at once. Waiting jobs never block
//!    the queue: others behind them are placed meanwhile.
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
//! 2. **Network-sensitive preemption.** When a sensitive job waits and a node of its
//!    tightest tier could hold it if some less sensitive running jobs there were
//!    checkpointed, and its estimated gain (remaining ideal run time × the slowdown it would
//!    suffer otherwise minus the one it would get there) exceeds the cost, those jobs are
//!    preempted; they requeue with their progress and pay `restore_s` when they restart. The
//!    cost is `restore_s` per preempted job, plus, for a job that will not fit in the GPUs
//!    still free, the queueing delay jobs have recently seen (it will wait too). Likewise, when GPUs free up, a sensitive job running
//!    scattered moves to a tighter placement if the gain exceeds `restore_s`. Guard rails: a
//!    job is preempted at most `max_preempt` times, and not within `min_run_s` of its start.
//! 3. **Auto-tuned timers** ([`super::tuner`]): every `tune_every_s` the per-tier timers are
//!    re-estimated from the run's own history.
//!
//! Options (defaults in brackets): `preempt=on|off` [on], `autotune=on|off` [on],
//! `timers=SERVER_S/RACK_S[/...]` [300/150: the static timers, or the tuner's starting
//! point], `threshold` [1.05], `starve_s` [off], `restore_s` [30], `min_run_s` [600],
//! `max_preempt` [2], `tune_every_s` [600].

use super::sensitivity::{sensitivity, LevelProfile, Sensitivity};
use super::tuner::{TimerTuner, WaitSample};
use super::{Decision, Policy, PolicySpec, View};
use crate::cluster::JobId;
use crate::engine::JobStatus;
use crate::error::InputError;
use crate::event::{PolicyNote, Reason, SimEvent};
use crate::model::ModelId;
use crate::time::SimTime;
use crate::topology::{GpuId, Tier};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Default timers, in seconds, for the server tier and the rack tier (further tiers repeat
/// the last). Not tuned to any experiment: five minutes for a server-local placement, half
/// that for a rack-local one, a scale at which jobs of the Philly trace (median run time
/// about 19 minutes) come and go.
pub const DEFAULT_TIMERS_S: &[f64] = &[300.0, 150.0];

#[derive(Clone, Debug, PartialEq)]
pub struct DallyOptions {
    pub preempt: bool,
    pub autotune: bool,
    pub timers_s: Vec<f64>,
    pub threshold: f64,
    /// The reservation bound; `None` (the default) leaves only the timers' bound.
    pub starve_s: Option<f64>,
    pub restore_s: f64,
    pub min_run_s: f64,
    pub max_preempt: u32,
    pub tune_every_s: f64,
}

impl DallyOptions {
    pub fn from_spec(spec: &mut PolicySpec) -> Result<DallyOptions, InputError> {
        let timers_s = match spec.take("timers") {
            None => DEFAULT_TIMERS_S.to_vec(),
            Some(text) => text
                .split('/')
                .map(|v| match v.trim().parse::<f64>() {
                    Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
                    _ => Err(InputError::new("timers", format!("expected seconds like 300/150, got '{text}'"))),
                })
                .collect::<Result<Vec<f64>, InputError>>()?,
        };
        Ok(DallyOptions {
            preempt: spec.take_bool("preempt", true)?,
            autotune: spec.take_bool("autotune", true)?,
            timers_s,
            threshold: spec.take_f64("threshold", 1.05, 1.0)?,
            starve_s: match spec.take("starve_s").as_deref() {
                None | Some("off") => None,
                Some(v) => match v.parse::<f64>() {
                    Ok(x) if x.is_finite() && x >= 0.0 => Some(x),
                    _ => return Err(InputError::new("starve_s", format!("expected seconds or off, got '{v}'"))),
                },
            },
            restore_s: spec.take_f64("restore_s", 30.0, 0.0)?,
            min_run_s: spec.take_f64("min_run_s", 600.0, 0.0)?,
            max_preempt: spec.take_u32("max_preempt", 2)?,
            tune_every_s: spec.take_f64("tune_every_s", 600.0, 1.0)?,
        })
    }

    fn spec(&self) -> String {
        let on = |b: bool| if b { "on" } else { "off" };
        let timers: Vec<String> = self.timers_s.iter().map(|t| format!("{t}")).collect();
        format!(
            "dally:preempt={},autotune={},timers={},threshold={},starve_s={},restore_s={},min_run_s={},max_preempt={},tune_every_s={}",
            on(self.preempt),
            on(self.autotune),
            timers.join("/"),
            self.threshold,
            self.starve_s.map(|s| s.to_string()).unwrap_or_else(|| "off".into()),
            self.restore_s,
            self.min_run_s,
            self.max_preempt,
            self.tune_every_s
        )
    }
}

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
    /// Remaining ideal run time when the wait began.
    remaining_ideal_s: f64,
}

pub struct Dally {
    options: DallyOptions,
    /// Per tier below the top, the current timer in seconds.
    timers: Vec<f64>,
    levels: Option<LevelProfile>,
    waiters: BTreeMap<JobId, Waiter>,
    /// Queued jobs by (acceptable tier, GPUs), each group in submission order.
    groups: BTreeMap<(Tier, u32), BTreeSet<JobId>>,
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
    /// Worst-case slowdown without contention, per (model, GPUs): to compare sensitivities.
    static_worst: BTreeMap<(ModelId, u32), f64>,
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
            options,
            levels: None,
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
            static_worst: BTreeMap::new(),
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
        if self.levels.is_some() {
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
        self.levels = Some(LevelProfile::new(view.topo));
    }

    fn levels(&self) -> &LevelProfile {
        self.levels.as_ref().expect("ensure_levels runs before any use")
    }

    fn static_worst(&mut self, view: &View, job: JobId) -> f64 {
        let j = view.job(job);
        let key = (j.model, j.gpus);
        if let Some(&w) = self.static_worst.get(&key) {
            return w;
        }
        let worst = match (j.ideal_iter_s, self.levels().shape(j.gpus, view.topo.top_tier(), None)) {
            (Some(ideal), Some(shape)) if ideal > 0.0 => {
                view.comm.iteration_time(view.catalog.get(j.model), &shape) / ideal
            }
            _ => 1.0,
        };
        self.static_worst.insert(key, worst);
        worst
    }

    fn realised_ratio(&self, tier: Tier) -> f64 {
        self.realised_median[tier.0 as usize]
    }

    fn record_realised(&mut self, tier: Tier, ratio: f64) {
        let r = &mut self.realised[tier.0 as usize];
        r.push_back(ratio);
        if r.len() > REALISED_WINDOW {
            r.pop_front();
        }
        let mut v: Vec<f64> = r.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        self.realised_median[tier.0 as usize] = v[v.len() / 2];
    }

    // -- queue bookkeeping ---------------------------------------------------------------

    fn group_insert(&mut self, job: JobId, w: &Waiter) {
        self.groups.entry((w.accept, w.gpus)).or_default().insert(job);
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
            set.remove(&job);
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

    /// Budget for waiting at `tier`: the timer, capped by what waiting can win.
    fn budget(&self, w: &Waiter, tier: Tier) -> f64 {
        let Some(s) = &w.sens else { return 0.0 };
        let looser = Tier(tier.0 + 1);
        let gain = w.remaining_ideal_s * (s.at(looser) * self.realised_ratio(looser) - s.at(tier));
        if !gain.is_finite() {
            return self.timer(tier);
        }
        self.timer(tier).min(gain.max(0.0))
    }

    /// Starts (or restarts) the wait of a queued job.
    fn start_wait(&mut self, view: &View, job: JobId) {
        let j = view.job(job);
        let run = view.run(job);
        let top = view.topo.top_tier();
        self.ensure_levels(view);
        let sens = sensitivity(self.levels(), view, j);
        let base = sens.as_ref().map(|s| s.base).unwrap_or(top);
        let remaining_ideal_s = (j.iterations - run.done).max(0.0) * j.ideal_iter_s.unwrap_or(0.0);
        let insensitive = sens.as_ref().is_none_or(|s| s.worst() < self.options.threshold);
        let kind = if insensitive || base >= top { WaitKind::Any } else { WaitKind::Delay };
        let mut w = Waiter {
            gpus: j.gpus,
            since: view.now,
            phase_start: view.now,
            base,
            accept: if kind == WaitKind::Any { top } else { base },
            deadline: None,
            kind,
            sens,
            remaining_ideal_s,
        };
        if kind == WaitKind::Delay {
            self.enter_phase(view, &mut w);
            self.to_check.insert(job);
        }
        self.group_insert(job, &w);
        self.waiters.insert(job, w);
        self.to_note.insert(job);
    }

    /// Sets the deadline of the waiter's current phase, skipping phases whose budget is zero.
    fn enter_phase(&mut self, view: &View, w: &mut Waiter) {
        let top = view.topo.top_tier();
        while w.accept < top {
            let budget = self.budget(w, w.accept);
            if budget > 0.0 {
                w.deadline = Some(view.now + SimTime::from_secs_f64(budget));
                if let Some(s) = &w.sens {
                    let looser = Tier(w.accept.0 + 1);
                    let gain = w.remaining_ideal_s * (s.at(looser) * self.realised_ratio(looser) - s.at(w.accept));
                    if gain.is_finite() {
                        self.tuner.record_gain(w.accept.0 as usize, gain);
                    }
                }
                return;
            }
            w.accept = Tier(w.accept.0 + 1);
        }
        w.deadline = None;
        w.kind = WaitKind::Any;
    }

    /// Moves waiters whose deadline passed to their next tier.
    fn expire_deadlines(&mut self, view: &View) {
        while let Some(&(d, job)) = self.deadlines.first() {
            if d > view.now {
                break;
            }
            let mut w = self.waiters.remove(&job).expect("deadlines belong to waiters");
            self.group_remove(job, &w);
            let competitors = self.in_phase[w.accept.0 as usize];
            self.tuner.record_wait(
                w.accept.0 as usize,
                WaitSample { waited_s: (view.now - w.phase_start).as_secs_f64(), success: false, competitors },
            );
            w.accept = Tier(w.accept.0 + 1);
            w.phase_start = view.now;
            w.deadline = None;
            self.enter_phase(view, &mut w);
            self.group_insert(job, &w);
            self.waiters.insert(job, w);
            self.to_note.insert(job);
            self.to_check.insert(job);
        }
    }

    // -- decisions -----------------------------------------------------------------------

    /// The earliest-submitted waiter that can be placed now within its acceptable tier.
    fn next_placeable(&self, view: &View) -> Option<JobId> {
        self.groups
            .iter()
            .filter(|((accept, gpus), _)| view.cluster.max_free_at(*accept) >= *gpus)
            .filter_map(|(_, set)| set.first().copied())
            .min()
    }

    fn place(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) {
        let w = &self.waiters[&job];
        let (tier, gpus) = view.cluster.place_tightest(view.topo, w.gpus).expect("checked to fit");
        let waited_s = (view.now - w.since).as_secs_f64();
        let sensitive = w.sens.as_ref().is_some_and(|s| s.worst() >= self.options.threshold);
        let reason = if w.kind == WaitKind::Starving {
            Reason::StarvationBound { tier, waited_s }
        } else if !sensitive {
            Reason::Insensitive { tier, slowdown: w.sens.as_ref().map(|s| s.worst()).unwrap_or(1.0) }
        } else if tier <= w.base {
            if waited_s > 0.0 {
                Reason::GotWantedTier { tier, waited_s }
            } else {
                Reason::TightestNow { tier }
            }
        } else {
            // Sensitive and placed looser than its tightest tier: its timers ran out (or were
            // worth nothing).
            Reason::TimerExpired { tier, waited_s, slowdown: view.estimate_slowdown(job, &gpus) }
        };
        out.push(Decision::Place { job, gpus, reason });
    }

    /// Preempts less sensitive jobs so that `job` gets its tightest tier, if that pays.
    fn try_preempt_for(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) -> bool {
        let Some(w) = self.waiters.get(&job).cloned() else { return false };
        if w.kind != WaitKind::Delay || view.cluster.max_free_at(w.base) >= w.gpus {
            return false;
        }
        let Some(sens) = &w.sens else { return false };
        let my_worst = self.static_worst(view, job);
        // What the job would suffer otherwise: the best placement free now, or spread wide.
        let otherwise = match view.cluster.place_tightest(view.topo, w.gpus) {
            Some((_, gpus)) => view.estimate_slowdown(job, &gpus),
            None => sens.worst(),
        };
        let remaining =
            (view.job(job).iterations - view.run(job).done).max(0.0) * view.job(job).ideal_iter_s.unwrap_or(0.0);
        let gain = remaining * (otherwise - sens.at(w.base));
        let restore = self.options.restore_s;
        if gain <= restore {
            return false;
        }
        let min_run = SimTime::from_secs_f64(self.options.min_run_s);
        let mut best: Option<(f64, u32, Vec<JobId>, Vec<GpuId>)> = None;
        for &node in view.topo.tier_nodes(w.base) {
            let n = view.topo.node(node);
            if n.gpu_count < w.gpus {
                continue;
            }
            let free = view.cluster.free_under(node);
            let need = w.gpus - free;
            // Eligible victims with their GPUs inside this node.
            let mut inside: BTreeMap<JobId, u32> = BTreeMap::new();
            for g in n.first_gpu..n.first_gpu + n.gpu_count {
                if let Some(owner) = view.cluster.owner(GpuId(g)) {
                    *inside.entry(owner).or_default() += 1;
                }
            }
            let mut candidates: Vec<(f64, u32, JobId)> = Vec::new();
            for (&v, &count) in &inside {
                let run = view.run(v);
                let eligible = run.status == JobStatus::Running
                    && run.preemptions < self.options.max_preempt
                    && view.now >= run.last_start + min_run;
                if !eligible {
                    continue;
                }
                let worst = self.static_worst(view, v);
                if worst + 0.05 < my_worst {
                    candidates.push((worst, count, v));
                }
            }
            candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
            let mut freed = 0;
            let mut victims = Vec::new();
            for &(_, count, v) in &candidates {
                if freed >= need {
                    break;
                }
                freed += count;
                victims.push(v);
            }
            if freed < need {
                continue;
            }
            // A victim that fits in the GPUs left free after the move restarts at once and pays
            // only its restore; one that does not also waits in the queue, about as long as
            // jobs have been waiting lately.
            let mut spare = view.cluster.free_count() - free;
            let mut cost = 0.0;
            for v in &victims {
                let g = view.job(*v).gpus;
                cost += restore;
                if spare >= g {
                    spare -= g;
                } else {
                    cost += self.recent_wait_s;
                }
            }
            let gpus_moved: u32 = victims.iter().map(|v| view.job(*v).gpus).sum();
            let better = match &best {
                None => true,
                Some((c, moved, _, _)) => cost < *c || (cost == *c && gpus_moved < *moved),
            };
            if better {
                let mut gpus: Vec<GpuId> = (n.first_gpu..n.first_gpu + n.gpu_count)
                    .map(GpuId)
                    .filter(|&g| match view.cluster.owner(g) {
                        None => true,
                        Some(o) => victims.contains(&o),
                    })
                    .collect();
                // Free GPUs first, then those of the victims.
                gpus.sort_by_key(|&g| (view.cluster.owner(g).is_some(), g));
                gpus.truncate(w.gpus as usize);
                best = Some((cost, gpus_moved, victims, gpus));
            }
        }
        let Some((cost, _, victims, gpus)) = best else { return false };
        if gain <= cost {
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

    /// Moves a scattered sensitive job to a tighter placement that appeared, if that pays.
    fn try_reconsolidate(&mut self, view: &View, job: JobId, out: &mut Vec<Decision>) -> bool {
        let run = view.run(job);
        let j = view.job(job);
        let (Some(current), Some(ideal)) = (run.tier, j.ideal_iter_s) else { return false };
        if run.status != JobStatus::Running
            || run.preemptions >= self.options.max_preempt
            || view.now < run.last_start + SimTime::from_secs_f64(self.options.min_run_s)
        {
            return false;
        }
        let Some((tier, gpus)) = view.cluster.place_tightest(view.topo, j.gpus) else { return false };
        if tier >= current {
            return false;
        }
        let remaining = (j.iterations - run.progress_at(view.now)).max(0.0) * ideal;
        let gain = remaining * (run.iter_s / ideal - view.estimate_slowdown(job, &gpus));
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

    fn tune(&mut self, out: &mut Vec<Decision>) {
        for t in 0..self.timers.len() {
            if !self.tuner.has_fresh(t) {
                continue;
            }
            self.tuner.mark_seen(t);
            let competitors = self.in_phase.get(t).copied().unwrap_or(0);
            if let Some(p) = self.tuner.propose(t, competitors, self.timers[t]) {
                let old = self.timers[t];
                if (p.timer_s - old).abs() >= 1.0 {
                    self.timers[t] = p.timer_s;
                    out.push(Decision::Note(PolicyNote::TimerChanged {
                        tier: Tier(t as u8),
                        old_s: old,
                        new_s: p.timer_s,
                        why: p.why.to_string(),
                    }));
                }
            }
        }
    }
}

impl Policy for Dally {
    fn spec(&self) -> String {
        self.options.spec()
    }

    fn on_event(&mut self, event: &SimEvent, view: &View) {
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
                        if let Some(shape) = self.levels().shape(j.gpus, *tier, Some(view.cluster)) {
                            let estimate = view.comm.iteration_time(view.catalog.get(j.model), &shape);
                            self.record_realised(*tier, iter_s / estimate);
                        }
                    }
                    if *tier > w.base && self.static_worst(view, *job) >= self.options.threshold {
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
                if view.cluster.free_count() >= w.gpus {
                    self.place(view, head, out);
                    return;
                }
                // Reserve: nobody behind it starts while it does not fit.
                self.emit_notes(view, out);
                return;
            }
        }

        if let Some(job) = self.next_placeable(view) {
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
        if let Some(&(d, _)) = self.deadlines.first() {
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
