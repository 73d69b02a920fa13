//! What a policy may know of a job's remaining run time: an estimate from what a real
//! scheduler sees, or the trace's truth (`runtime=estimate|oracle`).
//!
//! Run times here are *ideal* seconds: iterations at the job's ideal iteration time (its
//! tightest feasible placement, no contention). A scheduler knows a job's model and
//! GPU count, so it can profile that iteration time; it sees how many iterations a running job
//! has done; it learns how many a job needed only when the job completes. None of the
//! trace formats this project reads carries a requested time or a time limit (see
//! `docs/FORMATS.md`: Philly, Tiresias, Pollux, the CSV and native formats), so there is no
//! user estimate to cap the guess with.
//!
//! **The estimate** ([`RuntimeEstimator`]) of a job that has attained `a` ideal seconds is
//! the mean residual run time of completed jobs that ran longer than `a`:
//! `mean(X − a | X > a)` over the most recent [`WINDOW`] completions, taken among jobs of the
//! same GPU count when at least [`MIN_CLASS_SAMPLES`] of them ran longer than `a`, else among
//! all. This is the expectation a Gittins-index scheduler computes from the distribution of
//! past jobs' service (Tiresias, Gu et al., NSDI 2019, prioritises jobs by their Gittins
//! index when that distribution is known). It is the mean rather than a median because the
//! policies weigh it against a cost as an expected gain. Conditioning on `a` matters for run
//! times as skewed as Philly's: over the whole trace's run times (82,247 jobs) the mean
//! residual is 13,136 s for a job that has not started, 21,205 s past ten minutes, 51,153 s
//! past an hour and 162,877 s past ten hours. The longer a job has run, the longer it runs on.
//!
//! **The prior.** When no completed job ran longer than `a` (none has completed yet, or the
//! job has outlived every one remembered), the estimate is `a` itself: a job that has run `a`
//! is expected to run about as long again, the median remaining life of heavy-tailed
//! lifetimes with tail `P(X > t) ∝ 1/t` (Harchol-Balter and Downey, "Exploiting Process
//! Lifetime Distributions for Dynamic Load Balancing", ACM TOCS 15(3), 1997). For a job that
//! has not run at all and no history, that is no estimate: [`RuntimeEstimator::remaining_s`]
//! answers `None`, and each policy says what it does without one.
//!
//! **The oracle** reads the remaining iterations from the trace, as `dally` always did. It is
//! for ablation only: it measures what knowing the future is worth.

use crate::cluster::JobId;
use crate::error::InputError;
use crate::event::SimEvent;
use crate::policy::{PolicySpec, View};
use std::collections::{BTreeMap, VecDeque};

/// Completions remembered per pool: recent enough to follow a workload that drifts, many
/// enough that one long job does not swing the mean.
pub const WINDOW: usize = 1000;

/// Jobs of a GPU count, longer than the attained service, needed before that count's own
/// history is used instead of everyone's.
pub const MIN_CLASS_SAMPLES: usize = 20;

/// Where a policy's remaining run times come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeKnowledge {
    /// Estimated online from completed jobs and attained service (the default).
    Estimate,
    /// Read from the trace: the future, for ablation only.
    Oracle,
}

impl RuntimeKnowledge {
    /// Takes `runtime=estimate|oracle` out of a spec, `estimate` when absent.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<RuntimeKnowledge, InputError> {
        match spec.take("runtime").as_deref() {
            None | Some("estimate") => Ok(RuntimeKnowledge::Estimate),
            Some("oracle") => Ok(RuntimeKnowledge::Oracle),
            Some(other) => Err(InputError::new("runtime", format!("expected estimate or oracle, got '{other}'"))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RuntimeKnowledge::Estimate => "estimate",
            RuntimeKnowledge::Oracle => "oracle",
        }
    }
}

/// Recent completed run times, sorted, with the sums of their longest ones.
#[derive(Clone, Debug, Default)]
struct Pool {
    /// In completion order, to forget the oldest.
    arrivals: VecDeque<f64>,
    sorted: Vec<f64>,
    /// `tail_sums[i]` is the sum of `sorted[i..]`.
    tail_sums: Vec<f64>,
}

impl Pool {
    fn record(&mut self, run_s: f64) {
        self.arrivals.push_back(run_s);
        let at = self.sorted.partition_point(|&x| x < run_s);
        self.sorted.insert(at, run_s);
        if self.arrivals.len() > WINDOW {
            let oldest = self.arrivals.pop_front().expect("longer than the window");
            let at = self.sorted.partition_point(|&x| x < oldest);
            self.sorted.remove(at);
        }
        self.tail_sums.clear();
        self.tail_sums.resize(self.sorted.len() + 1, 0.0);
        for i in (0..self.sorted.len()).rev() {
            self.tail_sums[i] = self.tail_sums[i + 1] + self.sorted[i];
        }
    }

    /// How many remembered run times exceed `attained_s`, and their mean excess over it.
    fn residual(&self, attained_s: f64) -> (usize, Option<f64>) {
        let from = self.sorted.partition_point(|&x| x <= attained_s);
        let longer = self.sorted.len() - from;
        if longer == 0 {
            return (0, None);
        }
        (longer, Some(self.tail_sums[from] / longer as f64 - attained_s))
    }
}

/// The online estimate of remaining run times (see the module's header).
#[derive(Clone, Debug, Default)]
pub struct RuntimeEstimator {
    everyone: Pool,
    by_gpus: BTreeMap<u32, Pool>,
}

impl RuntimeEstimator {
    /// Remembers the ideal run time of a job of `gpus` GPUs that completed.
    pub fn record(&mut self, gpus: u32, run_s: f64) {
        if !run_s.is_finite() || run_s < 0.0 {
            return;
        }
        self.everyone.record(run_s);
        self.by_gpus.entry(gpus).or_default().record(run_s);
    }

    /// The expected remaining ideal run time of a job of `gpus` GPUs that has attained
    /// `attained_s` ideal seconds; `None` before anything is known of a job that has not run.
    pub fn remaining_s(&self, gpus: u32, attained_s: f64) -> Option<f64> {
        let attained_s = attained_s.max(0.0);
        let own = self.by_gpus.get(&gpus).map(|p| p.residual(attained_s));
        let residual = match own {
            Some((longer, mean)) if longer >= MIN_CLASS_SAMPLES => mean,
            _ => self.everyone.residual(attained_s).1,
        };
        match residual {
            Some(mean) => Some(mean.max(0.0)),
            None if attained_s > 0.0 => Some(attained_s),
            None => None,
        }
    }
}

/// A policy's source of remaining run times: the estimator, fed by the engine's completion
/// events, or the oracle.
#[derive(Clone, Debug)]
pub struct RemainingTime {
    knowledge: RuntimeKnowledge,
    estimator: RuntimeEstimator,
}

impl RemainingTime {
    pub fn new(knowledge: RuntimeKnowledge) -> RemainingTime {
        RemainingTime { knowledge, estimator: RuntimeEstimator::default() }
    }

    pub fn knowledge(&self) -> RuntimeKnowledge {
        self.knowledge
    }

    /// Learns from a completion. The run time is read from the job's progress, which at
    /// completion is all the iterations it needed: what the scheduler saw it do.
    pub fn on_event(&mut self, event: &SimEvent, view: &View) {
        if let SimEvent::Completed { job } = event {
            let j = view.job(*job);
            if let Some(ideal) = j.ideal_iter_s {
                self.estimator.record(j.gpus, view.run(*job).done * ideal);
            }
        }
    }

    /// The remaining ideal run time of `job` once it has done `progress` iterations, or `None`
    /// when nothing is known yet (estimate only).
    pub fn remaining_ideal_s(&self, view: &View, job: JobId, progress: f64) -> Option<f64> {
        let j = view.job(job);
        match self.knowledge {
            RuntimeKnowledge::Oracle => Some((j.iterations - progress).max(0.0) * j.ideal_iter_s.unwrap_or(0.0)),
            RuntimeKnowledge::Estimate => {
                let ideal = j.ideal_iter_s?;
                self.estimator.remaining_s(j.gpus, progress * ideal)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_no_history_a_fresh_job_has_no_estimate_and_a_running_one_runs_as_long_again() {
        let e = RuntimeEstimator::default();
        assert_eq!(e.remaining_s(4, 0.0), None);
        assert_eq!(e.remaining_s(4, 120.0), Some(120.0));
    }

    #[test]
    fn a_fresh_job_expects_the_mean_of_completed_jobs() {
        let mut e = RuntimeEstimator::default();
        for run_s in [100.0, 200.0, 600.0] {
            e.record(1, run_s);
        }
        // (100 + 200 + 600) / 3 = 300; a size never seen borrows everyone's history.
        assert_eq!(e.remaining_s(1, 0.0), Some(300.0));
        assert_eq!(e.remaining_s(8, 0.0), Some(300.0));
    }

    #[test]
    fn attained_service_keeps_only_the_jobs_that_ran_longer() {
        let mut e = RuntimeEstimator::default();
        for run_s in [100.0, 200.0, 600.0] {
            e.record(1, run_s);
        }
        // Past 150 s only 200 and 600 remain: mean 400, minus 150 = 250.
        assert_eq!(e.remaining_s(1, 150.0), Some(250.0));
        // Exactly 200 s attained: only 600 ran longer (a job at 200 s has not ended).
        assert_eq!(e.remaining_s(1, 200.0), Some(400.0));
        // Past the mean (300 s) the estimate still grows with age: 600 − 500 = 100 > 0.
        assert_eq!(e.remaining_s(1, 500.0), Some(100.0));
        // Longer than every completed job: as long again.
        assert_eq!(e.remaining_s(1, 900.0), Some(900.0));
    }

    #[test]
    fn a_size_class_with_enough_history_uses_its_own() {
        let mut e = RuntimeEstimator::default();
        for _ in 0..MIN_CLASS_SAMPLES {
            e.record(8, 1000.0);
        }
        for _ in 0..MIN_CLASS_SAMPLES {
            e.record(1, 10.0);
        }
        assert_eq!(e.remaining_s(8, 0.0), Some(1000.0));
        assert_eq!(e.remaining_s(1, 0.0), Some(10.0));
        // Past 10 s no one-GPU job is left: everyone's history (the 8-GPU jobs) answers.
        assert_eq!(e.remaining_s(1, 10.0), Some(990.0));
        // Too few of a class longer than the attained service: everyone's.
        let mut e = RuntimeEstimator::default();
        for _ in 0..MIN_CLASS_SAMPLES - 1 {
            e.record(2, 50.0);
        }
        e.record(4, 450.0);
        let everyone = (50.0 * (MIN_CLASS_SAMPLES - 1) as f64 + 450.0) / MIN_CLASS_SAMPLES as f64;
        assert_eq!(e.remaining_s(2, 0.0), Some(everyone));
    }

    #[test]
    fn the_oldest_completions_are_forgotten() {
        let mut e = RuntimeEstimator::default();
        e.record(1, 1_000_000.0);
        for _ in 0..WINDOW {
            e.record(1, 60.0);
        }
        assert_eq!(e.remaining_s(1, 0.0), Some(60.0));
        assert_eq!(e.remaining_s(1, 60.0), Some(60.0));
    }

    #[test]
    fn runtime_parses_estimate_and_oracle_and_names_itself_on_a_bad_value() {
        let take = |text: &str| RuntimeKnowledge::from_spec(&mut PolicySpec::parse(text).unwrap());
        assert_eq!(take("dally").unwrap(), RuntimeKnowledge::Estimate);
        assert_eq!(take("dally:runtime=estimate").unwrap(), RuntimeKnowledge::Estimate);
        assert_eq!(take("dally:runtime=oracle").unwrap(), RuntimeKnowledge::Oracle);
        let err = take("dally:runtime=psychic").unwrap_err();
        assert_eq!(err.field, "runtime");
        assert_eq!(err.message, "expected estimate or oracle, got 'psychic'");
    }
}
