//! `replay`: a person's decisions, played back. The app's challenge mode ("be the
//! scheduler") lets a student place queued jobs by hand; each placement, and each choice to
//! wait, is a [`Choice`]. A run of this policy replays the choices in order, one per
//! *decision point* — a scheduling pass at which some queued job fits the free GPUs — so a
//! list of choices is a pure function to a run, like any policy. The page re-runs from the
//! start after every choice (a small scenario takes microseconds) and stops at the next
//! decision point; changing or dropping one choice and running again is the what-if.
//!
//! The policy tells whoever drives the run ([`ReplayLog`]) that it paused or refused a
//! choice; driving the simulation is the caller's (the page's `challenge` module), so
//! this file, like every policy, sits below the engine (a doc link is no import).
//!
//! It is not in the policy catalogue (`POLICIES`) or `resolve_policy`: its input is a list
//! of choices made for one scenario, not a spec a user could type for any cluster.
//!
//! The engine checks every decision with assertions (a policy that places a job on a busy
//! GPU is a bug). A person's choice is input, not code, so this policy checks each one
//! first and reports a bad one as data ([`ReplayError`]) instead of passing it on.

use super::{Decision, Policy, View};
use crate::cluster::JobId;
use crate::event::Reason;
use crate::scenario::JobStatus;
use crate::time::SimTime;
use crate::topology::GpuId;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

/// One decision a person made at a decision point.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// Start this queued job on exactly these GPUs.
    Place { job: JobId, gpus: Vec<GpuId> },
    /// Place nothing now: the run goes on to the next event (a completion or an arrival);
    /// with `for_s`, the next choice waits that many seconds (decision points before then
    /// pass by), which is how "had this decision waited 90 s" is asked.
    Wait { for_s: Option<f64> },
}

/// What the replay does when the choices run out (or, for [`AfterChoices::FirstFit`], stop
/// applying).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterChoices {
    /// Stop at the decision point: the person decides next.
    Pause,
    /// Place the rest as `fifo` does (the earliest queued job that fits, on the first free
    /// GPUs), so a what-if always runs to the end. A choice that no longer applies (its job
    /// is not queued or its GPUs are busy, after an earlier choice changed) hands over too.
    FirstFit,
}

/// A choice that cannot be applied, as data: which one and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayError {
    /// The choice's index (0-based) in the list.
    pub index: usize,
    pub message: String,
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "decision {}: {}", self.index + 1, self.message)
    }
}

/// What the policy tells its driver: it lives behind an `Rc` because the engine owns the
/// policy and gives no way back to it.
#[derive(Clone, Debug, Default)]
struct Log {
    paused: bool,
    error: Option<ReplayError>,
    diverged_at: Option<usize>,
}

/// The driver's view of a [`Replay`]'s log: step the simulation until it has paused or
/// refused a choice, or the run is over.
#[derive(Clone, Debug, Default)]
pub struct ReplayLog(Rc<RefCell<Log>>);

impl ReplayLog {
    /// Stopped at a decision point with every choice used ([`AfterChoices::Pause`]).
    pub fn paused(&self) -> bool {
        self.0.borrow().paused
    }

    /// The choice that could not be applied ([`AfterChoices::Pause`]).
    pub fn error(&self) -> Option<ReplayError> {
        self.0.borrow().error.clone()
    }

    /// The first choice that no longer applied, from which first fit placed the rest
    /// ([`AfterChoices::FirstFit`]).
    pub fn diverged_at(&self) -> Option<usize> {
        self.0.borrow().diverged_at
    }
}

/// The replay policy, with the log its driver reads.
pub struct Replay {
    choices: Vec<Choice>,
    next: usize,
    after: AfterChoices,
    first_fit: bool,
    /// A timed wait's end: no choice is taken before it.
    hold_until: Option<SimTime>,
    log: Rc<RefCell<Log>>,
}

/// Whether a scheduling pass is a decision point: some queued job fits the free GPUs.
pub fn is_decision_point(view: &View) -> bool {
    let free = view.cluster.free_count();
    view.queued.iter().any(|&j| view.job(j).gpus <= free)
}

/// Why `job` cannot start on `gpus` now, if it cannot: the checks the engine would assert.
pub fn check_place(view: &View, job: JobId, gpus: &[GpuId]) -> Result<(), String> {
    let Some(j) = view.jobs.get(job.0 as usize) else {
        return Err(format!("there is no job {}", job.0 + 1));
    };
    if !view.queued.contains(&job) {
        return Err(format!("job {} is not waiting in the queue", j.name));
    }
    if gpus.len() as u32 != j.gpus {
        return Err(format!("job {} needs {} GPUs, {} were chosen", j.name, j.gpus, gpus.len()));
    }
    let mut seen = BTreeSet::new();
    for &g in gpus {
        if g.0 >= view.topo.gpu_count() {
            return Err(format!("there is no GPU {}", g.0));
        }
        if !seen.insert(g) {
            return Err(format!("GPU {} was chosen twice", g.0));
        }
        if let Some(owner) = view.cluster.owner(g) {
            return Err(format!("GPU {} is busy: job {} runs there", g.0, view.job(owner).name));
        }
    }
    Ok(())
}

/// Whether nothing else will ever happen if nobody places a job now: no job runs (so none
/// will complete) and none is still to arrive. Waiting then would leave the queue waiting
/// forever.
fn nothing_due(view: &View) -> bool {
    // Jobs arrive in submission order, those due now before the scheduling pass.
    view.cluster.free_count() == view.topo.gpu_count() && view.jobs.last().is_none_or(|j| j.submit <= view.now)
}

impl Replay {
    /// A replay of `choices`, and the log its driver reads.
    pub fn new(choices: Vec<Choice>, after: AfterChoices) -> (Replay, ReplayLog) {
        let log = ReplayLog::default();
        let policy = Replay { choices, next: 0, after, first_fit: false, hold_until: None, log: Rc::clone(&log.0) };
        (policy, log)
    }

    fn first_fit_step(view: &View, out: &mut Vec<Decision>) {
        let free = view.cluster.free_count();
        if let Some(&job) = view.queued.iter().find(|&&j| view.job(j).gpus <= free) {
            if let Some(gpus) = view.cluster.first_free(view.job(job).gpus) {
                out.push(Decision::Place { job, gpus, reason: Reason::FirstFit });
            }
        }
    }

    /// A choice that cannot be applied: an error when pausing (the person sees why), the
    /// hand-over to first fit otherwise.
    fn refuse(&mut self, view: &View, out: &mut Vec<Decision>, message: String) {
        match self.after {
            AfterChoices::Pause => self.log.borrow_mut().error = Some(ReplayError { index: self.next, message }),
            AfterChoices::FirstFit => {
                self.log.borrow_mut().diverged_at = Some(self.next);
                self.first_fit = true;
                Self::first_fit_step(view, out);
            }
        }
    }
}

impl Policy for Replay {
    fn spec(&self) -> String {
        "replay".to_string()
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        {
            let log = self.log.borrow();
            if log.paused || log.error.is_some() {
                return;
            }
        }
        if self.hold_until.is_some_and(|t| view.now < t) {
            return;
        }
        self.hold_until = None;
        if !is_decision_point(view) {
            return;
        }
        if self.first_fit {
            return Self::first_fit_step(view, out);
        }
        match self.choices.get(self.next).cloned() {
            None => match self.after {
                AfterChoices::Pause => self.log.borrow_mut().paused = true,
                AfterChoices::FirstFit => {
                    self.first_fit = true;
                    Self::first_fit_step(view, out);
                }
            },
            Some(Choice::Place { job, gpus }) => match check_place(view, job, &gpus) {
                Ok(()) => {
                    self.next += 1;
                    out.push(Decision::Place { job, gpus, reason: Reason::FirstFit });
                }
                Err(message) => self.refuse(view, out, message),
            },
            Some(Choice::Wait { for_s }) => {
                let for_s = for_s.filter(|s| s.is_finite() && *s > 0.0);
                if for_s.is_none() && nothing_due(view) {
                    let message =
                        "waiting here would leave the queue waiting forever: no job runs and none is still to arrive"
                            .into();
                    return self.refuse(view, out, message);
                }
                self.next += 1;
                if let Some(s) = for_s {
                    let until = view.now + SimTime::from_secs_f64_ceil(s);
                    self.hold_until = Some(until);
                    out.push(Decision::WakeAt(until));
                }
            }
        }
    }
}

/// "Had this job not been preempted then": a policy run as itself, except that at one
/// instant it may not preempt one job. The app's what-if on a preemption shown in a
/// playback re-runs the policy with it (`session::Session::without_preemption`). The policy is
/// deterministic, so every decision before that instant is the original run's; at the
/// instant the preemption is dropped, with the decisions that needed it (the other victims
/// freeing GPUs for the same job, and that job's placement), and after it the policy
/// decides as it would, from the run as it now is: if it preempts the job again later,
/// that is its own later decision, which the caller can count.
pub struct ForbidPreemption {
    inner: Box<dyn Policy>,
    job: JobId,
    at: SimTime,
    /// Set once the preemption was found and dropped, for the driver to read.
    dropped: Rc<RefCell<bool>>,
}

impl ForbidPreemption {
    /// `inner`, kept from preempting `job` at `at`; the flag says whether it tried.
    pub fn new(inner: Box<dyn Policy>, job: JobId, at: SimTime) -> (ForbidPreemption, Rc<RefCell<bool>>) {
        let dropped = Rc::new(RefCell::new(false));
        (ForbidPreemption { inner, job, at, dropped: Rc::clone(&dropped) }, dropped)
    }
}

/// The job a preemption made room for, when its reason names one.
fn preempted_for(reason: &Reason) -> Option<JobId> {
    match reason {
        Reason::PreemptedFor { for_job, .. } | Reason::Reclaimed { for_job, .. } => Some(*for_job),
        _ => None,
    }
}

/// `decisions` of one pass without the preemption of `job` and what needed it: the other
/// preemptions for the same job and its placement, then any placement the engine would
/// refuse once the preemptions kept are applied in order: of a job that is neither queued
/// nor checkpointed by a kept preemption (a move of `job` itself, whose checkpoint was
/// dropped), or on GPUs that are not free. `false`, and `decisions` as they were, when the
/// pass does not preempt `job`.
fn drop_preemption(view: &View, decisions: &mut Vec<Decision>, job: JobId) -> bool {
    let Some(forbidden) = decisions.iter().find_map(|d| match d {
        Decision::Preempt { job: j, reason, .. } if *j == job => Some(preempted_for(reason)),
        _ => None,
    }) else {
        return false;
    };
    let mut freed: BTreeSet<GpuId> = BTreeSet::new();
    let mut taken: BTreeSet<GpuId> = BTreeSet::new();
    let mut requeued: BTreeSet<JobId> = BTreeSet::new();
    let mut kept = Vec::with_capacity(decisions.len());
    for d in decisions.drain(..) {
        match &d {
            Decision::Preempt { job: j, reason, .. } => {
                if *j == job || (forbidden.is_some() && preempted_for(reason) == forbidden) {
                    continue;
                }
                freed.extend(view.run(*j).gpus.iter().copied());
                requeued.insert(*j);
            }
            Decision::Place { job: j, gpus, .. } => {
                let waiting = view.run(*j).status == JobStatus::Queued || requeued.contains(j);
                let free = |g: &GpuId| (view.cluster.owner(*g).is_none() || freed.contains(g)) && !taken.contains(g);
                if Some(*j) == forbidden || !waiting || !gpus.iter().all(free) {
                    continue;
                }
                taken.extend(gpus.iter().copied());
            }
            _ => {}
        }
        kept.push(d);
    }
    *decisions = kept;
    true
}

impl Policy for ForbidPreemption {
    fn spec(&self) -> String {
        self.inner.spec()
    }

    fn delay_timers(&self) -> Vec<f64> {
        self.inner.delay_timers()
    }

    fn check_cluster(&self, topo: &crate::topology::Topology) -> Result<(), crate::error::InputError> {
        self.inner.check_cluster(topo)
    }

    fn on_event(&mut self, event: &crate::event::SimEvent, view: &View) {
        self.inner.on_event(event, view);
    }

    fn schedule(&mut self, view: &View, out: &mut Vec<Decision>) {
        if view.now != self.at {
            return self.inner.schedule(view, out);
        }
        // Every pass of the instant: the policy may ask again once the first is refused.
        let mut mine = Vec::new();
        self.inner.schedule(view, &mut mine);
        if drop_preemption(view, &mut mine, self.job) {
            *self.dropped.borrow_mut() = true;
        }
        out.append(&mut mine);
    }
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
