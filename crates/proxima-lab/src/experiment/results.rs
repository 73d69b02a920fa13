//! The finished runs of a plan, indexed by task, and the series the aggregation, the claims
//! and the per-tenant table read from them: a value per seed or per window of one policy in
//! one scenario.
//!
//! Apart from `aggregate.rs` because the claims (`claims.rs`) and the per-tenant table
//! (`tenant_table.rs`) read these series while `aggregate.rs` puts their results into the
//! report: with the index in `aggregate.rs`, each would import the other. The report's own
//! rows and comparisons (`Results::row`, `Results::comparison`) stay in `aggregate.rs`.

use super::execute::TaskResult;
use super::plan::Plan;
use super::stats::Resamples;
use std::collections::BTreeMap;

/// A plan's finished runs, found by (scenario, policy, window, seed), with the resamples
/// every interval over them shares.
pub(super) struct Results<'a> {
    pub(super) plan: &'a Plan,
    pub(super) index: BTreeMap<(usize, &'a str, u32, u64), usize>,
    pub(super) results: &'a [TaskResult],
    /// Resamples of seeds and, apart, of windows, by how many there are.
    pub(super) resamples: BTreeMap<usize, Resamples>,
    pub(super) window_resamples: BTreeMap<usize, Resamples>,
}

impl<'a> Results<'a> {
    pub(super) fn get(&self, scenario: usize, policy: &str, window: u32, seed: u64) -> &TaskResult {
        let i = self.index.get(&(scenario, policy, window, seed)).unwrap_or_else(|| {
            panic!(
                "the plan ran {policy} with seed {seed} on window {window} of {}",
                self.plan.scenarios[scenario].name
            )
        });
        &self.results[*i]
    }

    pub(super) fn window_indices(&self, scenario: usize) -> std::ops::Range<u32> {
        0..self.plan.scenarios[scenario].window_count() as u32
    }

    /// Per seed of the scenario, `value` of the policy's runs averaged over the windows.
    /// With one window (every synthetic workload), the run's own value.
    pub(super) fn per_seed(&self, scenario: usize, policy: &str, value: impl Fn(&TaskResult) -> f64) -> Vec<f64> {
        let windows = self.window_indices(scenario);
        let count = windows.len() as f64;
        self.plan.scenarios[scenario]
            .seeds
            .iter()
            .map(|&s| windows.clone().map(|w| value(self.get(scenario, policy, w, s))).sum::<f64>() / count)
            .collect()
    }

    /// Per seed of the scenario, metric `m` of the policy's runs averaged over the windows.
    pub(super) fn series(&self, scenario: usize, policy: &str, m: usize) -> Vec<f64> {
        self.per_seed(scenario, policy, |r| r.values[m])
    }

    /// Per window of the scenario, metric `m` of the policy's runs averaged over the seeds.
    pub(super) fn window_series(&self, scenario: usize, policy: &str, m: usize) -> Vec<f64> {
        let seeds = &self.plan.scenarios[scenario].seeds;
        self.window_indices(scenario)
            .map(|w| {
                seeds.iter().map(|&s| self.get(scenario, policy, w, s).values[m]).sum::<f64>() / seeds.len() as f64
            })
            .collect()
    }

    /// The runs of a policy on a scenario, window by window, in seed order.
    pub(super) fn runs(&self, scenario: usize, policy: &str) -> Vec<&TaskResult> {
        let seeds = &self.plan.scenarios[scenario].seeds;
        self.window_indices(scenario)
            .flat_map(|w| seeds.iter().map(move |&s| self.get(scenario, policy, w, s)))
            .collect()
    }
}
