//! From finished runs to regrets: per cell, the best fair baseline on each metric, and
//! every policy's ratio of means to it with a bootstrap interval over seeds
//! ([`crate::experiment::stats`]). A pure function of the runs.

use super::plan::{Cell, RobustPlan, RobustTask};
use super::policies::Role;
use crate::experiment::execute::{metric_index, TaskResult};
use crate::experiment::stats::{RatioCi, Resamples, RATIO_FLOOR_S};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The metrics whose regret the report gives: a policy's mean over seeds over the best
/// fair baseline's on the same seeds, the best chosen per cell and metric.
pub const REGRET_METRICS: &[&str] = &["avg_jct_s", "makespan_s", "p99_jct_s"];

/// The metrics kept per seed in the report (so that it can be checked and redrawn).
pub const KEPT_METRICS: &[&str] =
    &["avg_jct_s", "makespan_s", "p99_jct_s", "comm_overhead_s", "preemptions", "job_preemptions_max", "unfinished"];

/// One policy in one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyResult {
    pub policy: String,
    pub role: Role,
    /// Per key of [`KEPT_METRICS`], one value per seed of the cell, in seed order.
    pub per_seed: BTreeMap<String, Vec<f64>>,
    /// Per key of [`REGRET_METRICS`], the ratio of means to the cell's best fair baseline
    /// on that metric ([`CellResult::best`]).
    pub regret: BTreeMap<String, RatioCi>,
    /// p99 JCT over that of the protocol's `tails_against`.
    pub p99_vs_tails: RatioCi,
}

impl PolicyResult {
    /// The mean over seeds of a kept metric.
    pub fn mean(&self, key: &str) -> f64 {
        let v = &self.per_seed[key];
        v.iter().sum::<f64>() / v.len() as f64
    }

    /// The most preemptions of any one job in any seed.
    pub fn max_job_preemptions(&self) -> u32 {
        self.per_seed["job_preemptions_max"].iter().copied().fold(0.0, f64::max) as u32
    }

    /// Jobs left unfinished in the worst seed.
    pub fn unfinished(&self) -> u32 {
        self.per_seed["unfinished"].iter().copied().fold(0.0, f64::max) as u32
    }
}

/// One cell: its best fair baselines and every policy's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    pub cell: Cell,
    /// Jobs of the first seed's run.
    pub jobs: u32,
    /// Per key of [`REGRET_METRICS`], the fair baseline with the lowest mean over the
    /// seeds among those that finished every job in every seed (a policy that stalls has a
    /// mean JCT over the jobs it finished only, which flatters it).
    pub best: BTreeMap<String, String>,
    pub rows: Vec<PolicyResult>,
}

impl CellResult {
    pub fn row(&self, policy: &str) -> Option<&PolicyResult> {
        self.rows.iter().find(|r| r.policy == policy)
    }
}

/// The report's data: the plan and every cell's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobustReport {
    /// `robust`: what `--from` reads the file as.
    pub experiment: String,
    pub plan: RobustPlan,
    pub cells: Vec<CellResult>,
    pub runs: u32,
}

impl RobustReport {
    pub fn from_json(text: &str) -> Result<RobustReport, serde_json::Error> {
        serde_json::from_str(text)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serialises")
    }
}

/// Aggregates finished runs: `results[i]` belongs to `plan.tasks()[i]`.
pub fn aggregate_robust(plan: &RobustPlan, results: &[TaskResult]) -> RobustReport {
    let tasks = plan.tasks();
    assert_eq!(tasks.len(), results.len(), "one result per task");
    let index: BTreeMap<&RobustTask, &TaskResult> = tasks.iter().zip(results).collect();
    let b = &plan.bootstrap;
    let mut resamples: BTreeMap<usize, Resamples> = BTreeMap::new();
    let cells = plan
        .cells
        .iter()
        .enumerate()
        .map(|(c, cell)| {
            let n = cell.seeds.len();
            let r = resamples.entry(n).or_insert_with(|| Resamples::draw(n, b.resamples, b.seed, b.confidence));
            cell_result(plan, c, r, |policy, k| index[&RobustTask { cell: c, policy: policy.into(), seed_index: k }])
        })
        .collect();
    RobustReport { experiment: "robust".into(), plan: plan.clone(), cells, runs: tasks.len() as u32 }
}

fn cell_result<'a>(
    plan: &RobustPlan,
    c: usize,
    resamples: &Resamples,
    get: impl Fn(&str, u32) -> &'a TaskResult,
) -> CellResult {
    let cell = &plan.cells[c];
    let series: BTreeMap<&str, BTreeMap<String, Vec<f64>>> = plan
        .policies
        .iter()
        .map(|p| {
            let values = KEPT_METRICS
                .iter()
                .map(|&key| {
                    let m = metric_index(key);
                    let per_seed = (0..cell.seeds.len() as u32).map(|k| get(&p.spec, k).values[m]).collect();
                    (key.to_string(), per_seed)
                })
                .collect();
            (p.spec.as_str(), values)
        })
        .collect();
    let mean = |policy: &str, key: &str| {
        let v = &series[policy][key];
        v.iter().sum::<f64>() / v.len() as f64
    };
    let finished_all = |policy: &str| series[policy]["unfinished"].iter().all(|&u| u == 0.0);
    let mut eligible: Vec<&str> = plan.fair_baselines().map(|p| p.spec.as_str()).filter(|p| finished_all(p)).collect();
    if eligible.is_empty() {
        eligible = plan.fair_baselines().map(|p| p.spec.as_str()).collect();
    }
    let best: BTreeMap<String, String> = REGRET_METRICS
        .iter()
        .map(|&key| {
            let lowest = eligible.iter().fold(eligible[0], |b, &p| if mean(p, key) < mean(b, key) { p } else { b });
            (key.to_string(), lowest.to_string())
        })
        .collect();
    let ratio = |policy: &str, baseline: &str, key: &str| -> RatioCi {
        match series.get(baseline) {
            Some(base) => resamples.ratio_of_means(&series[policy][key], &base[key], RATIO_FLOOR_S),
            None => RatioCi { ratio: None, low: f64::INFINITY, high: f64::INFINITY },
        }
    };
    let rows = plan
        .policies
        .iter()
        .map(|p| PolicyResult {
            policy: p.spec.clone(),
            role: p.role,
            per_seed: series[p.spec.as_str()].clone(),
            regret: REGRET_METRICS.iter().map(|&k| (k.to_string(), ratio(&p.spec, &best[k], k))).collect(),
            p99_vs_tails: ratio(&p.spec, &plan.protocol.tails_against, "p99_jct_s"),
        })
        .collect();
    let first = &plan.policies[0].spec;
    CellResult { cell: cell.clone(), jobs: get(first, 0).summary.jobs_total, best, rows }
}
