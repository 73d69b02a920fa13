//! What one run's events say about the three questions operators ask (kubernetes-sigs/kueue
//! #5243, #4329, #10168; Slurm's `--switches` hold), read by an observer of the run, so the
//! figures come from what the scheduler did, not from what it says it would do:
//!
//! - **Fragmentation.** A preemption (any [`SimEvent::Preempted`], evictions to restore
//!   locality and quota reclaims included) *freed GPUs nobody used* when no other job is
//!   placed on any GPU it freed within the window after it (300 s, [`super::WINDOW_S`]).
//!   Where the reason names the job it was for (`PreemptedFor`, `Reclaimed`), the
//!   preemption *left its beneficiary waiting* when that job was not placed within the window.
//! - **Holding for topology.** A queued job is *held* while at least as many GPUs as it asks
//!   for are free: by count it could run, and the scheduler keeps it waiting (for its
//!   topology level, or behind a job ahead of it in a queue without backfill). Per wait
//!   that ends in a placement, the held seconds, how the wait ended (the placement reason:
//!   it got the level it waited for, or its timer ran out and it took a wider one), the
//!   slowdown it got (its iteration time when placed, contention included, over its ideal)
//!   and, when the scheduler said so while it waited (`WaitingForTier` with `best_now`, the
//!   last such in the wait), the scheduler's estimate of the slowdown of the best placement
//!   free then and the run time the wait saved against it: (that slowdown − the one got) ×
//!   ideal iteration time × iterations left, negative when waiting bought nothing.
//! - **Quota admitted, not placed.** On a scenario with quotas: a wait in which the job was
//!   within its tenant's quota (its tenant's running GPUs plus its own at most the quota:
//!   Kueue's quota arithmetic admits it) with its GPUs free, for at least the window in
//!   all, and not placed then: quota counted GPUs the placement could not use (kueue
//!   #4329). Counted for every policy, by the ledger's own quota arithmetic; whether the
//!   policy itself admits by quota (`quota=on`) is recorded beside it, since one that does
//!   not may also hold such a job for its order.

use proxima_core::cluster::JobId;
use proxima_core::event::{Observer, Reason, SimEvent};
use proxima_core::time::SimTime;
use proxima_core::topology::GpuId;
use proxima_core::Scenario;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A job that a quota admitted and that waited anyway.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Admitted {
    pub job: u32,
    pub name: String,
    pub tenant: String,
    pub gpus: u32,
    /// Seconds of the wait within quota with its GPUs free.
    pub admitted_waiting_s: f64,
    /// Whether it was placed at the end of that wait (else it was still waiting at the end).
    pub placed: bool,
}

/// One run's analyses.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunAnalysis {
    pub preemptions: u64,
    pub freed_unused: u64,
    /// Preemptions whose reason names the job they were for, and of those, how many left it
    /// waiting past the window.
    pub with_beneficiary: u64,
    pub beneficiary_waiting: u64,
    /// Waits that ended in a placement after holding the job with its GPUs free.
    pub held_waits: u64,
    pub held_s: f64,
    /// Waits still open when the run ended that had held their job, and their held seconds
    /// (a required level that no domain can meet holds a job forever).
    pub held_at_end: u64,
    pub held_at_end_s: f64,
    /// How held waits ended: at the level waited for, after the timer ran out, otherwise.
    pub held_got_level: u64,
    pub held_timer_out: u64,
    pub held_other: u64,
    /// Mean slowdown (iteration time over ideal) of the placements that ended held waits.
    pub held_slowdown_got: f64,
    /// Held waits in which the scheduler named the best placement free (`best_now`), the
    /// mean slowdown of those placements, and run time saved against them, summed.
    pub with_best_now: u64,
    pub best_now_slowdown: f64,
    /// The mean slowdown got in those same waits, to compare with the line above.
    pub best_now_got_slowdown: f64,
    /// Negative when the placement got ran slower than the one free then (contention,
    /// which the scheduler's estimate leaves out, or a wider placement after all).
    pub saved_s: f64,
    /// Whether the policy itself admits by quota on a scenario with quotas; the waits
    /// admitted by quota (by the ledger's arithmetic) and not placed.
    pub admits_by_quota: bool,
    pub admitted_unplaced: Vec<Admitted>,
}

/// One job's current wait.
#[derive(Default)]
struct Wait {
    held_s: f64,
    admitted_s: f64,
    /// The slowdown of the best placement free the scheduler last named in this wait.
    best_now: Option<f64>,
}

/// The observer: follows who holds which GPUs and who waits, and accumulates the analyses.
pub struct RunLedger<'a> {
    scenario: &'a Scenario,
    window: SimTime,
    quotas: bool,
    now: SimTime,
    free: u32,
    held: Vec<Vec<GpuId>>,
    tenant_use: Vec<u32>,
    done: Vec<f64>,
    waits: BTreeMap<u32, Wait>,
    /// Preemptions younger than the window: when, victim, freed GPUs, beneficiary, whether
    /// another job took a freed GPU, whether the beneficiary was placed.
    pending: Vec<Pending>,
    out: RunAnalysis,
    slowdown_sum: f64,
}

struct Pending {
    at: SimTime,
    victim: u32,
    freed: BTreeSet<GpuId>,
    for_job: Option<JobId>,
    used: bool,
    beneficiary_placed: bool,
}

impl<'a> RunLedger<'a> {
    /// A ledger for a run of `scenario`, with the window in seconds.
    pub fn new(scenario: &'a Scenario, window_s: f64) -> RunLedger<'a> {
        let tenants = scenario.jobs.iter().map(|j| j.tenant.0 as usize + 1).max().unwrap_or(0);
        RunLedger {
            scenario,
            window: SimTime::from_secs_f64(window_s),
            quotas: scenario.tenants.basis() != proxima_core::tenants::QuotaBasis::Unset,
            now: SimTime(0),
            free: scenario.topology.gpu_count(),
            held: vec![Vec::new(); scenario.jobs.len()],
            tenant_use: vec![0; tenants.max(scenario.tenants.len())],
            done: scenario.jobs.iter().map(|_| 0.0).collect(),
            waits: BTreeMap::new(),
            pending: Vec::new(),
            out: RunAnalysis::default(),
            slowdown_sum: 0.0,
        }
    }

    /// The analyses of the run, once it has ended; `spec` is the policy's, which says whether
    /// it admits by quota.
    pub fn finish(mut self, spec: &str) -> RunAnalysis {
        for p in std::mem::take(&mut self.pending) {
            settle(&mut self.out, p);
        }
        let admits = self.quotas && spec.split([':', ',']).any(|o| o.trim() == "quota=on");
        let window = self.window.as_secs_f64();
        let still: Vec<(u32, f64, f64)> = self.waits.iter().map(|(&j, w)| (j, w.held_s, w.admitted_s)).collect();
        for (job, held_s, admitted_s) in still {
            if held_s > 0.0 {
                self.out.held_at_end += 1;
                self.out.held_at_end_s += held_s;
            }
            if admitted_s >= window {
                self.record_admitted(job, admitted_s, false);
            }
        }
        let mut out = self.out;
        out.admits_by_quota = admits;
        if out.held_waits > 0 {
            out.held_slowdown_got = self.slowdown_sum / out.held_waits as f64;
        }
        if out.with_best_now > 0 {
            out.best_now_slowdown /= out.with_best_now as f64;
            out.best_now_got_slowdown /= out.with_best_now as f64;
        }
        out
    }

    /// Time passes from the last instant to `now` with the state as it is.
    fn advance(&mut self, now: SimTime) {
        if now <= self.now {
            return;
        }
        let dt = (now - self.now).as_secs_f64();
        self.now = now;
        // Fields apart, so that the waits are walked in place (no copy per instant).
        let (scenario, free, quotas, tenant_use) = (self.scenario, self.free, self.quotas, &self.tenant_use);
        for (&job, wait) in self.waits.iter_mut() {
            let j = &scenario.jobs[job as usize];
            if j.gpus > free {
                continue;
            }
            wait.held_s += dt;
            if quotas && tenant_use[j.tenant.0 as usize] + j.gpus <= scenario.tenants.quota(j.tenant) {
                wait.admitted_s += dt;
            }
        }
        // Preemptions are pending in time order: those older than the window are settled.
        let window = self.window;
        let expired = self.pending.iter().take_while(|p| now > p.at + window).count();
        for p in self.pending.drain(..expired) {
            settle(&mut self.out, p);
        }
    }

    fn release(&mut self, job: u32) -> Vec<GpuId> {
        let gpus = std::mem::take(&mut self.held[job as usize]);
        self.free += gpus.len() as u32;
        let tenant = self.scenario.jobs[job as usize].tenant.0 as usize;
        self.tenant_use[tenant] -= gpus.len() as u32;
        gpus
    }

    fn record_admitted(&mut self, job: u32, admitted_s: f64, placed: bool) {
        let j = &self.scenario.jobs[job as usize];
        self.out.admitted_unplaced.push(Admitted {
            job,
            name: j.name.clone(),
            tenant: self.scenario.tenants.name(j.tenant).to_string(),
            gpus: j.gpus,
            admitted_waiting_s: admitted_s,
            placed,
        });
    }

    fn placed(&mut self, job: u32, gpus: &[GpuId], iter_s: f64, reason: &Reason) {
        self.release(job);
        self.free -= gpus.len() as u32;
        let tenant = self.scenario.jobs[job as usize].tenant.0 as usize;
        self.tenant_use[tenant] += gpus.len() as u32;
        self.held[job as usize] = gpus.to_vec();
        for p in self.pending.iter_mut() {
            p.used |= p.victim != job && gpus.iter().any(|g| p.freed.contains(g));
            p.beneficiary_placed |= p.for_job == Some(JobId(job));
        }
        let Some(wait) = self.waits.remove(&job) else { return };
        if wait.admitted_s >= self.window.as_secs_f64() {
            self.record_admitted(job, wait.admitted_s, true);
        }
        if wait.held_s <= 0.0 {
            return;
        }
        let j = &self.scenario.jobs[job as usize];
        let ideal = j.ideal_iter_s.unwrap_or(iter_s).max(f64::MIN_POSITIVE);
        let got = iter_s / ideal;
        self.out.held_waits += 1;
        self.out.held_s += wait.held_s;
        self.slowdown_sum += got;
        match reason {
            Reason::GotWantedTier { .. } | Reason::TightestNow { .. } => self.out.held_got_level += 1,
            Reason::TimerExpired { .. } => self.out.held_timer_out += 1,
            _ => self.out.held_other += 1,
        }
        if let Some(best) = wait.best_now {
            let left = (j.iterations - self.done[job as usize]).max(0.0);
            self.out.with_best_now += 1;
            self.out.best_now_slowdown += best;
            self.out.best_now_got_slowdown += got;
            self.out.saved_s += (best - got) * ideal * left;
        }
    }

    fn preempted(&mut self, job: u32, done: f64, reason: &Reason) {
        let freed: BTreeSet<GpuId> = self.release(job).into_iter().collect();
        self.done[job as usize] = done;
        self.waits.insert(job, Wait::default());
        let for_job = match reason {
            Reason::PreemptedFor { for_job, .. } | Reason::Reclaimed { for_job, .. } => Some(*for_job),
            _ => None,
        };
        self.out.preemptions += 1;
        self.pending.push(Pending {
            at: self.now,
            victim: job,
            freed,
            for_job,
            used: false,
            beneficiary_placed: false,
        });
    }
}

/// Counts a preemption once its window has passed (or the run ended).
fn settle(out: &mut RunAnalysis, p: Pending) {
    out.freed_unused += u64::from(!p.used);
    if p.for_job.is_some() {
        out.with_beneficiary += 1;
        out.beneficiary_waiting += u64::from(!p.beneficiary_placed);
    }
}

impl Observer for RunLedger<'_> {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.advance(now);
        match event {
            SimEvent::Arrived { job } => {
                self.waits.insert(job.0, Wait::default());
            }
            SimEvent::Rejected { job, .. } => {
                self.waits.remove(&job.0);
            }
            SimEvent::Placed { job, gpus, iter_s, reason, .. } => self.placed(job.0, gpus, *iter_s, reason),
            SimEvent::Waiting { job, reason: Reason::WaitingForTier { best_now: Some(_), slowdown, .. } } => {
                if let Some(w) = self.waits.get_mut(&job.0) {
                    w.best_now = Some(*slowdown);
                }
            }
            SimEvent::Preempted { job, done_iterations, reason } => self.preempted(job.0, *done_iterations, reason),
            SimEvent::Completed { job } => {
                self.release(job.0);
            }
            SimEvent::Waiting { .. } | SimEvent::RateChanged { .. } | SimEvent::Policy { .. } => {}
        }
    }
}
