//! "Had it not been preempted" (issue 24, item 9): a what-if on a preemption a policy made
//! in the run played back. The policy is re-run in the worker with that one preemption
//! forbidden (`proxima_core::session::Session::without_preemption`: identical decisions before it,
//! the policy's own after), and its mean JCT is shown beside the original's, as the
//! challenge's what-ifs are, after the reader has predicted which way it goes. The worker
//! then repeats the what-if on other seeds ([`seeds`]), and only their interval concludes.

use crate::protocol::{SeedsOutcome, WhatIfOutcome, WithoutPreemption};
use crate::results::Results;
use crate::Shared;

/// Which way the reader expects the mean JCT to go without the preemption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prediction {
    /// Lower without it: the preemption cost more than it gained.
    Lower,
    /// Higher without it: the preemption paid off.
    Higher,
}

/// A preemption in the run, as the what-if names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preemption {
    pub job: u32,
    pub at_us: u64,
    /// The job it made room for, when the policy said.
    pub for_job: Option<u32>,
}

/// What the reader does.
#[derive(Clone, Debug, PartialEq)]
pub enum WhatIfAct {
    /// Ask about this preemption of the run's policy at this index.
    Ask {
        policy: usize,
        preemption: Preemption,
        /// Its rank among the run's preemptions (0 for the first).
        rank: u32,
    },
    Predict(Prediction),
    Close,
}

/// A what-if asked, its prediction and its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct PreemptWhatIf {
    pub run_id: u32,
    pub policy: String,
    pub preemption: Preemption,
    /// The original run's mean JCT (`summary.json`'s `avg_jct_s`).
    pub original_s: f64,
    pub prediction: Option<Prediction>,
    /// The request for the worker; the app posts it once.
    pub request: Shared<WithoutPreemption>,
    pub answer: Option<Result<WhatIfOutcome, String>>,
    /// The what-if repeated over seeds, the run's own first.
    pub seeds: Option<Result<SeedsOutcome, String>>,
}

/// The answer in figures, once revealed.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub rerun_s: f64,
    /// The re-run's mean JCT less the original's, as a share of the original's.
    pub change: f64,
    /// Which way it went in this run, `None` for a change under [`SAME`].
    pub went: Option<Prediction>,
    /// The seeds' mean change and interval, once the worker sent them.
    pub seeds: Option<seeds::SeedsSummary>,
    /// Whether the prediction was right: `None` until the seeds concluded a direction.
    pub right: Option<bool>,
}

/// A change in mean JCT smaller than this share is "about the same".
pub const SAME: f64 = 0.0005;

impl PreemptWhatIf {
    /// The verdict, once the reader predicted and the worker answered.
    pub fn verdict(&self) -> Option<Verdict> {
        let prediction = self.prediction?;
        let Some(Ok(outcome)) = &self.answer else { return None };
        let change = (outcome.avg_jct_s - self.original_s) / self.original_s;
        let went = if change.abs() < SAME {
            None
        } else if change < 0.0 {
            Some(Prediction::Lower)
        } else {
            Some(Prediction::Higher)
        };
        let seeds = match &self.seeds {
            Some(Ok(outcome)) => seeds::summarize(&seeds::changes(outcome)),
            _ => None,
        };
        let right = match seeds.map(|s| s.conclusion()) {
            Some(seeds::Conclusion::CostMore) => Some(prediction == Prediction::Lower),
            Some(seeds::Conclusion::PaidOff) => Some(prediction == Prediction::Higher),
            _ => None,
        };
        Some(Verdict { rerun_s: outcome.avg_jct_s, change, went, seeds, right })
    }
}

/// The what-if on `preemption` in the run of `results`' policy at index `policy`, as
/// request `id`; `None` without that policy or the run's request.
pub(crate) fn ask(
    results: &Results,
    id: u32,
    policy: usize,
    preemption: Preemption,
    rank: u32,
) -> Option<PreemptWhatIf> {
    let outcome = results.outcomes.get(policy)?;
    let mut request = results.request.clone()?;
    request.run_id = id;
    request.policies = vec![outcome.policy.clone()];
    let request = WithoutPreemption {
        id,
        request,
        job: preemption.job,
        at_us: preemption.at_us,
        for_job: preemption.for_job,
        rank,
        seeds: crate::worker::WHAT_IF_SEEDS,
    };
    Some(PreemptWhatIf {
        run_id: results.run_id,
        policy: outcome.policy.clone(),
        preemption,
        original_s: outcome.summary.avg_jct_s,
        prediction: None,
        request: Shared::new(request),
        answer: None,
        seeds: None,
    })
}

pub mod seeds;

#[cfg(test)]
mod tests;
