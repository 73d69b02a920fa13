//! A time limit on a topology constraint: "required for T, then preferred", the timer the
//! production schedulers Proxima reproduces (`kueue-tas`, `volcano`, `slurm`'s block plugin)
//! do not have, and that Slurm's `--switches` has only fixed. T is either fixed by the operator or tuned online by `dally`'s tuner
//! ([`super::tuner`]), one timer for the constrained level.
//!
//! With a fixed T every job keeps the constraint for T seconds of waiting, whatever it
//! stands to gain: that is what an operator who sets such a limit would get. Tuned (`auto`),
//! the timer behaves as each of `dally`'s: it starts at 300 s (`dally`'s first timer), a job
//! waits at most `min(T, its gain)`, where its gain is its estimated remaining run time
//! ([`super::runtime`], never the trace's) times how much slower it would run one level
//! wider than inside the level ([`super::sensitivity`], predicted from the profile,
//! [`super::profile`]: `profile=table|exact`, `profile_error=E` with `auto`), and every `TUNE_EVERY_S` the tuner
//! moves T to the value that would have served the recent waits best. A job too large for
//! any domain of the level gets no tuned wait: waiting cannot help it. Waits are recorded as
//! `dally` records them: a placement inside the level after some waiting is a success, a
//! timer running out a censored observation.

use super::profile::{Profile, ProfileOptions};
use super::runtime::{RemainingTime, RuntimeKnowledge};
use super::sensitivity::sensitivity;
use super::tuner::{TimerTuner, WaitSample};
use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::{PolicyNote, Reason, SimEvent};
use crate::policy::{Decision, PolicySpec, View};
use crate::time::SimTime;
use crate::topology::Tier;
use std::collections::{BTreeMap, BTreeSet};

/// Where a tuned timer starts: `dally`'s default for its first switch tier.
pub const AUTO_START_S: f64 = 300.0;
/// How often a tuned timer is revised (`dally`'s `tune_every_s` default).
pub const TUNE_EVERY_S: f64 = 600.0;
/// Recent waits the tuner learns from (as `dally`'s).
const WINDOW: usize = 200;

/// One job waiting under the constraint.
#[derive(Clone, Copy, Debug)]
struct Wait {
    since: SimTime,
    deadline: SimTime,
    competitors: u32,
}

pub struct LevelTimer {
    /// The timer now (the fixed value, or the tuner's latest).
    timer_s: f64,
    /// `Some` when tuned.
    tuner: Option<TimerTuner>,
    next_tune: SimTime,
    remaining: RemainingTime,
    /// Where a tuned timer's gains read slowdowns (`profile=`, `profile_error=`, taken only
    /// with `auto`: a fixed timer predicts nothing).
    profile_options: ProfileOptions,
    profile: Option<Profile>,
    waits: BTreeMap<JobId, Wait>,
    deadlines: BTreeSet<(SimTime, JobId)>,
}

impl LevelTimer {
    /// Reads `key=T|auto|off` from a spec: `None` when absent or `off`.
    pub fn from_spec(spec: &mut PolicySpec, key: &str) -> Result<Option<LevelTimer>, InputError> {
        let tuned = spec.options.get(key).is_some_and(|v| v == "auto");
        let profile_options = if tuned { ProfileOptions::from_spec(spec)? } else { ProfileOptions::default() };
        let fixed = if tuned {
            spec.take(key);
            None
        } else {
            match crate::policy::take_optional_secs(spec, key, 0.0) {
                Ok(None) => return Ok(None),
                Ok(fixed) => fixed,
                Err(e) => return Err(InputError::new(key, format!("{}; or auto to tune it", e.message))),
            }
        };
        Ok(Some(LevelTimer {
            timer_s: fixed.unwrap_or(AUTO_START_S),
            tuner: tuned.then(|| TimerTuner::new(1, WINDOW, 5.0, 3600.0)),
            next_tune: SimTime::from_secs_f64(TUNE_EVERY_S),
            remaining: RemainingTime::new(RuntimeKnowledge::Estimate),
            profile_options,
            profile: None,
            waits: BTreeMap::new(),
            deadlines: BTreeSet::new(),
        }))
    }

    /// The option's value as a spec prints it; tuned, followed by the profile options its
    /// gains are predicted with (they apply only then).
    pub fn spec_value(&self) -> String {
        if self.tuner.is_some() {
            format!("auto,{}", self.profile_options.spec_part())
        } else {
            format!("{}", self.timer_s)
        }
    }

    /// The timer a run starts with.
    pub fn initial_s(&self) -> f64 {
        if self.tuner.is_some() {
            AUTO_START_S
        } else {
            self.timer_s
        }
    }

    /// The timers a playback starts with, one per tier tightest first: this one at `level`,
    /// none below it.
    pub fn initial_timers(&self, level: Tier) -> Vec<f64> {
        let mut timers = vec![0.0; level.0 as usize + 1];
        timers[level.0 as usize] = self.initial_s();
        timers
    }

    /// Learns run times from completions (for the gains of tuned waits).
    pub fn on_event(&mut self, event: &SimEvent, view: &View) {
        self.remaining.on_event(event, view);
    }

    /// Follows a run whose constraint is one `level` for every job: learns from
    /// completions, starts a job's time under the level when it joins the queue (or rejoins
    /// it, checkpointed), and ends it when the job is placed, inside the level or not.
    pub fn follow(&mut self, event: &SimEvent, view: &View, level: Tier) {
        self.on_event(event, view);
        match *event {
            SimEvent::Arrived { job } | SimEvent::Preempted { job, .. } => self.start(view, job, level),
            SimEvent::Placed { job, tier, .. } => self.placed(view, job, tier <= level),
            _ => {}
        }
    }

    /// A job starts waiting under the constraint at `level` (on arrival or requeue).
    pub fn start(&mut self, view: &View, job: JobId, level: Tier) {
        self.forget(job);
        let budget = match &mut self.tuner {
            None => self.timer_s,
            Some(tuner) => {
                let options = self.profile_options;
                let profile = self.profile.get_or_insert_with(|| Profile::new(options, view));
                match wait_worth(profile, &self.remaining, view, job, level) {
                    Worth::Nothing => 0.0,
                    Worth::Unknown => self.timer_s,
                    Worth::Gain(g) => {
                        tuner.record_gain(0, g);
                        self.timer_s.min(g.max(0.0))
                    }
                }
            }
        };
        let deadline = view.now + SimTime::from_secs_f64(budget);
        let competitors = self.waits.len() as u32;
        self.waits.insert(job, Wait { since: view.now, deadline, competitors });
        self.deadlines.insert((deadline, job));
    }

    /// When `job`'s time under the constraint ends, if it is waiting under it.
    pub fn deadline(&self, job: JobId) -> Option<SimTime> {
        self.waits.get(&job).map(|w| w.deadline)
    }

    /// Whether `job`'s time under the constraint is over (a job not seen waiting keeps it).
    pub fn expired(&self, view: &View, job: JobId) -> bool {
        self.waits.get(&job).is_some_and(|w| view.now >= w.deadline)
    }

    /// The job was placed: inside the level or not. A wait that ended inside the level
    /// after some waiting is a success for the tuner.
    pub fn placed(&mut self, view: &View, job: JobId, inside: bool) {
        if let Some(w) = self.waits.get(&job).copied() {
            let waited_s = (view.now - w.since).as_secs_f64();
            if inside && view.now < w.deadline && waited_s > 0.0 {
                self.record(WaitSample { waited_s, success: true, competitors: w.competitors });
            }
        }
        self.forget(job);
    }

    /// Records the waits whose time ran out by now (censored observations), and returns the
    /// next deadline still ahead, for a wake-up.
    pub fn expire(&mut self, view: &View) -> Option<SimTime> {
        while let Some(&(d, job)) = self.deadlines.first() {
            if d > view.now {
                return Some(d);
            }
            self.deadlines.pop_first();
            let w = self.waits[&job];
            let waited_s = (d - w.since).as_secs_f64();
            if waited_s > 0.0 {
                self.record(WaitSample { waited_s, success: false, competitors: w.competitors });
            }
        }
        None
    }

    /// Revises a tuned timer when it is time, noting a change for observers.
    pub fn tune(&mut self, view: &View, level: Tier, out: &mut Vec<Decision>) {
        let Some(tuner) = &mut self.tuner else { return };
        if view.now < self.next_tune {
            return;
        }
        while self.next_tune <= view.now {
            self.next_tune = self.next_tune + SimTime::from_secs_f64(TUNE_EVERY_S);
        }
        if !tuner.has_fresh(0) {
            return;
        }
        tuner.mark_seen(0);
        let waiting = self.deadlines.range((view.now, JobId(0))..).count() as u32;
        if let Some(p) = tuner.propose(0, waiting, self.timer_s) {
            if (p.timer_s - self.timer_s).abs() >= 1.0 {
                let old_s = std::mem::replace(&mut self.timer_s, p.timer_s);
                out.push(Decision::Note(PolicyNote::TimerChanged { tier: level, old_s, new_s: p.timer_s, why: p.why }));
            }
        }
    }

    /// When the tuner next wants a pass, if tuned.
    pub fn next_tune(&self) -> Option<SimTime> {
        self.tuner.as_ref().map(|_| self.next_tune)
    }

    fn record(&mut self, sample: WaitSample) {
        if let Some(tuner) = &mut self.tuner {
            tuner.record_wait(0, sample);
        }
    }

    fn forget(&mut self, job: JobId) {
        if let Some(w) = self.waits.remove(&job) {
            self.deadlines.remove(&(w.deadline, job));
        }
    }
}

/// What waiting for a level can win a job.
enum Worth {
    /// Nothing: the level can never hold the job, or nothing is wider.
    Nothing,
    /// Not known yet (no run time can be estimated): the job waits the whole timer, as
    /// `dally`'s jobs do before the first completions.
    Unknown,
    /// Its estimated remaining ideal run time times its slowdown one level wider less its
    /// slowdown inside the level.
    Gain(f64),
}

fn wait_worth(profile: &Profile, remaining: &RemainingTime, view: &View, job: JobId, level: Tier) -> Worth {
    let Some(s) = sensitivity(profile, view, job) else { return Worth::Nothing };
    if level < s.base || level >= view.topo.top_tier() {
        return Worth::Nothing;
    }
    let Some(left) = remaining.remaining_ideal_s(view, job, view.run(job).done) else { return Worth::Unknown };
    let gain = left * (s.at(Tier(level.0 + 1)) - s.at(level));
    if gain.is_finite() {
        Worth::Gain(gain)
    } else {
        Worth::Unknown
    }
}
/// The holds of jobs for their level, noted once per wait: a job that declines GPUs free
/// now because none of its level's domains holds it gets one `Waiting` event saying what it
/// wanted and what it could have had (`WaitingForTier` with `best_now`), as `slurm`,
/// `strict` and `dally` note theirs. The event log then says how long jobs held for their
/// topology and what placement they declined (`proxima what-if`, "held for their topology").
#[derive(Default)]
pub struct HoldNotes {
    noted: BTreeSet<JobId>,
}

impl HoldNotes {
    /// A placed or checkpointed job's next wait is a new one.
    pub fn follow(&mut self, event: &SimEvent) {
        match event {
            SimEvent::Placed { job, .. } | SimEvent::Preempted { job, .. } | SimEvent::Completed { job } => {
                self.noted.remove(job);
            }
            _ => {}
        }
    }

    /// Notes that `job` holds for `wanted` while its GPUs are free elsewhere, unless this
    /// wait was noted already; `deadline` is when its time under the constraint ends.
    pub fn note(&mut self, view: &View, job: JobId, wanted: Tier, deadline: Option<SimTime>, out: &mut Vec<Decision>) {
        if !self.noted.insert(job) {
            return;
        }
        let best = view.cluster.place_tightest(view.topo, view.job(job).gpus);
        out.push(Decision::Wait {
            job,
            reason: Reason::WaitingForTier {
                wanted,
                left_s: deadline.map_or(f64::INFINITY, |d| (d.max(view.now) - view.now).as_secs_f64()),
                best_now: best.as_ref().map(|(t, _)| *t),
                slowdown: best.as_ref().map(|(_, g)| view.estimate_slowdown(job, g)).unwrap_or(0.0),
            },
        });
    }
}
