//! Delay scheduling's side of `dally`: what a wait can win, the budget each tier's phase
//! gets, a job's wait starting or starting afresh, and phases ending when their timers run
//! out. Apart from `dally.rs`, which serves and places the waiters, because this is where
//! the paper's first mechanism lives.

use super::{Dally, DelayMode, WaitKind, Waiter};
use crate::cluster::JobId;
use crate::policy::mechanisms::sensitivity::sensitivity;
use crate::policy::mechanisms::tuner::WaitSample;
use crate::policy::View;
use crate::time::SimTime;
use crate::topology::Tier;

impl Dally {
    /// What waiting at `tier` can win: the remaining ideal run time × (the slowdown at the
    /// next looser tier − the slowdown at `tier`). A representative slowdown is corrected by
    /// the ratio realised placements at that tier showed; the slowdown of the placement the
    /// job would get now is taken as it is. `None` without an estimate of the remaining time.
    fn gain(&self, w: &Waiter, tier: Tier) -> Option<f64> {
        let s = w.sens.as_ref()?;
        let looser = Tier(tier.0 + 1);
        let correction = if s.placeable == Some(looser) { 1.0 } else { self.realised_ratio(looser) };
        let gain = w.remaining_ideal_s? * (s.at(looser) * correction - s.at(tier));
        gain.is_finite().then_some(gain)
    }

    /// Budget for waiting at `tier`: the timer, capped by what waiting can win (the full
    /// timer under `delay=all`). When the next looser tier is at least `patient_above` times
    /// slower, what waiting can win is the whole budget: the job waits as long as taking the
    /// looser placement would cost it.
    fn budget(&self, w: &Waiter, tier: Tier) -> f64 {
        if self.options.delay == DelayMode::All {
            return self.timer(tier);
        }
        match (&w.sens, self.gain(w, tier)) {
            (None, _) => 0.0,
            (Some(_), None) => self.timer(tier),
            (Some(s), Some(gain)) => {
                let looser = s.at(Tier(tier.0 + 1)) / s.at(tier);
                if self.options.patient_above.is_some_and(|p| looser >= p) {
                    gain.max(0.0)
                } else {
                    self.timer(tier).min(gain.max(0.0))
                }
            }
        }
    }

    /// Starts (or restarts) the wait of a queued job.
    pub(super) fn start_wait(&mut self, view: &View, job: JobId) {
        let j = view.job(job);
        let run = view.run(job);
        let top = view.topo.top_tier();
        self.ensure_levels(view);
        let sens = sensitivity(self.profile(), view, job);
        let base = sens.as_ref().map(|s| s.base).unwrap_or(top);
        let remaining_ideal_s = self.remaining.remaining_ideal_s(view, job, run.done);
        let sensitive = sens.as_ref().is_some_and(|s| s.loss() >= self.options.threshold);
        let waits = match self.options.delay {
            DelayMode::Sensitive => sensitive,
            DelayMode::All => sens.is_some(),
            DelayMode::Off => false,
        };
        let kind = if waits && base < top { WaitKind::Delay } else { WaitKind::Any };
        if self.options.delay == DelayMode::Off && sensitive && base < top {
            // Without delay a sensitive job still gets a preemption check before it takes a
            // looser placement.
            self.to_check.insert(job);
        }
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
            rank: self.rank_of(job),
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
                if let Some(gain) = self.gain(w, w.accept) {
                    self.tuner.record_gain(w.accept.0 as usize, gain);
                }
                return;
            }
            w.accept = Tier(w.accept.0 + 1);
        }
        w.deadline = None;
        w.kind = WaitKind::Any;
    }

    /// Moves waiters whose deadline passed to their next tier.
    pub(super) fn expire_deadlines(&mut self, view: &View) {
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
            // The network has changed since the wait began: judge the next phase on it as it
            // is now.
            w.sens = sensitivity(self.profile(), view, job);
            self.enter_phase(view, &mut w);
            self.group_insert(job, &w);
            self.waiters.insert(job, w);
            self.to_note.insert(job);
            self.to_check.insert(job);
        }
    }
}
