//! From finished runs to the report's figures: per scenario and policy the spread over
//! seeds, ratios of means with confidence intervals, makespan bounds, the sweeps, the
//! oracle check and the JCT distributions. A pure function of the runs.

use super::claims::{evaluate_claims, ClaimResult};
use super::execute::{metric_index, rho_values, TaskResult, METRICS, RHO_METRICS};
use super::plan::{Plan, ScenarioDef, Sweep, Task};
use super::results::Results;
use super::stats::{RatioCi, Resamples, Stat, RATIO_FLOOR_S};
use super::tenant_table::{tenant_table, TenantTable};
use proxima_core::metrics::nearest_rank_percentile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One policy's figures in one scenario: per metric key, the spread over seeds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyRow {
    pub policy: String,
    /// The spec that ran (differs from `policy` in a restore-cost sweep).
    pub spec: String,
    /// Per key of [`METRICS`], and of [`RHO_METRICS`] when some seeds have them (over
    /// those seeds only: a key is absent when none has).
    pub values: BTreeMap<String, Stat>,
    /// How many seeds' runs had finish-time fairness ρ (0: none, and no ρ keys).
    #[serde(default)]
    pub rho_seeds: u32,
}

/// `policy` against `baseline` on the same windows and seeds: per metric with ratios, the
/// ratio of means and its intervals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub policy: String,
    pub baseline: String,
    /// The interval resamples seeds (each seed's value the mean over the windows): it
    /// covers the model draw with the windows fixed, nothing else.
    pub ratios: BTreeMap<String, RatioCi>,
    /// On a scenario of several windows, the interval resamples windows (each window's
    /// value the mean over the seeds): it covers which stretch of the trace was run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub windows: BTreeMap<String, RatioCi>,
    /// On a scenario of several windows, per window the ratio of mean JCTs over the seeds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub window_jct_ratios: Vec<f64>,
}

/// The makespan's lower bounds over seeds ([`super::execute::Bounds`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundStats {
    pub makespan_s: Stat,
    pub critical_job_s: Stat,
    pub work_s: Stat,
    pub mean_ideal_run_s: Stat,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    pub scenario: ScenarioDef,
    pub jobs: u32,
    pub gpus: u32,
    pub bounds: BoundStats,
    pub rows: Vec<PolicyRow>,
    pub comparisons: Vec<Comparison>,
    /// Per tenant, when the scenario's jobs belong to several: preemptions and ρ under the
    /// subject, the reference and the fair baselines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenants: Option<TenantTable>,
}

impl ScenarioReport {
    pub fn row(&self, policy: &str) -> Option<&PolicyRow> {
        self.rows.iter().find(|r| r.policy == policy)
    }

    pub fn comparison(&self, policy: &str, baseline: &str) -> Option<&Comparison> {
        self.comparisons.iter().find(|c| c.policy == policy && c.baseline == baseline)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPointReport {
    pub x: f64,
    pub scenario: String,
    pub bounds: BoundStats,
    pub rows: Vec<PolicyRow>,
    /// The subject against every other policy of the sweep.
    pub comparisons: Vec<Comparison>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepReport {
    pub sweep: Sweep,
    pub points: Vec<SweepPointReport>,
}

/// How the auto-tuned timers compare with static ones chosen in hindsight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OracleReport {
    pub scenario: String,
    /// Per static setting, the mean JCT over seeds.
    pub grid: Vec<(String, Stat)>,
    pub best_static: String,
    pub tuned: Stat,
    /// Tuned over the best static setting, mean JCT. The best is picked on the same seeds,
    /// which flatters it.
    pub tuned_vs_best: RatioCi,
    /// Where the tuned run ranks among the static settings (1 = better than all).
    pub rank: u32,
}

/// The JCT distribution of each policy on one scenario, all windows and seeds pooled: points
/// `(jct_s, p)` at `p = 1/200, 2/200, …, 1` (nearest-rank quantiles).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CdfReport {
    pub scenario: ScenarioDef,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// Points per JCT distribution.
pub const CDF_POINTS: u32 = 200;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub plan: Plan,
    /// One per scenario of the main grid, in plan order.
    pub scenarios: Vec<ScenarioReport>,
    pub sweeps: Vec<SweepReport>,
    pub oracles: Vec<OracleReport>,
    pub cdfs: Vec<CdfReport>,
    /// The plan's primary claims, tested and corrected ([`super::claims`]).
    #[serde(default)]
    pub claims: Vec<ClaimResult>,
    /// Runs done (each task once).
    pub runs: u32,
}

impl Report {
    /// A report read back from its `report.json`.
    pub fn from_json(text: &str) -> Result<Report, serde_json::Error> {
        serde_json::from_str(text)
    }

    pub fn scenario(&self, name: &str) -> Option<&ScenarioReport> {
        self.scenarios.iter().find(|s| s.scenario.name == name)
    }
}

/// The report's rows and comparisons, read from the finished runs ([`Results`]).
impl<'a> Results<'a> {
    fn row(&self, scenario: usize, policy: &str, spec: &str) -> PolicyRow {
        let values = METRICS
            .iter()
            .enumerate()
            .map(|(m, metric)| (metric.key.to_string(), Stat::of(&self.series(scenario, spec, m))))
            .collect();
        PolicyRow { policy: policy.to_string(), spec: spec.to_string(), values, rho_seeds: 0 }
    }

    /// A main-grid row with its [`RHO_METRICS`]: the spread over the seeds whose runs have
    /// them, and how many those are. Seeds without ρ are left out, not counted as a value.
    /// Over a seed's windows, the largest ρ is the largest of any window and the share of
    /// jobs with ρ > 1 the mean of the windows' shares (windows of equal size).
    fn row_with_rho(&self, scenario: usize, policy: &str) -> PolicyRow {
        let mut row = self.row(scenario, policy, policy);
        let per_seed: Vec<[f64; 2]> = self.plan.scenarios[scenario]
            .seeds
            .iter()
            .filter_map(|&s| {
                let windows: Vec<[f64; 2]> = self
                    .window_indices(scenario)
                    .map(|w| rho_values(&self.get(scenario, policy, w, s).summary))
                    .collect::<Option<_>>()?;
                let max = windows.iter().map(|v| v[0]).fold(f64::NEG_INFINITY, f64::max);
                let share = windows.iter().map(|v| v[1]).sum::<f64>() / windows.len() as f64;
                Some([max, share])
            })
            .collect();
        if !per_seed.is_empty() {
            for (k, metric) in RHO_METRICS.iter().enumerate() {
                let values: Vec<f64> = per_seed.iter().map(|v| v[k]).collect();
                row.values.insert(metric.key.to_string(), Stat::of(&values));
            }
            row.rho_seeds = per_seed.len() as u32;
        }
        row
    }

    fn comparison(
        &self,
        scenario: usize,
        (policy, spec): (&str, &str),
        (baseline, base_spec): (&str, &str),
    ) -> Comparison {
        let n = self.plan.scenarios[scenario].seeds.len();
        let resamples = &self.resamples[&n];
        let windows = self.plan.scenarios[scenario].window_count();
        let by_window = self.window_resamples.get(&windows).filter(|_| windows > 1);
        let (mut ratios, mut window_cis) = (BTreeMap::new(), BTreeMap::new());
        for (m, metric) in METRICS.iter().enumerate().filter(|(_, metric)| metric.ratio) {
            let ci = resamples.ratio_of_means(
                &self.series(scenario, spec, m),
                &self.series(scenario, base_spec, m),
                RATIO_FLOOR_S,
            );
            ratios.insert(metric.key.to_string(), ci);
            if let Some(w) = by_window {
                let ci = w.ratio_of_means(
                    &self.window_series(scenario, spec, m),
                    &self.window_series(scenario, base_spec, m),
                    RATIO_FLOOR_S,
                );
                window_cis.insert(metric.key.to_string(), ci);
            }
        }
        let window_jct_ratios = if by_window.is_some() {
            let jct = metric_index("avg_jct_s");
            let (mine, theirs) =
                (self.window_series(scenario, spec, jct), self.window_series(scenario, base_spec, jct));
            mine.iter().zip(&theirs).map(|(a, b)| a / b).collect()
        } else {
            Vec::new()
        };
        Comparison {
            policy: policy.to_string(),
            baseline: baseline.to_string(),
            ratios,
            windows: window_cis,
            window_jct_ratios,
        }
    }

    fn bounds(&self, scenario: usize, policy: &str) -> BoundStats {
        let of = |f: &dyn Fn(&TaskResult) -> f64| Stat::of(&self.per_seed(scenario, policy, f));
        BoundStats {
            makespan_s: of(&|r| r.bounds.makespan_s()),
            critical_job_s: of(&|r| r.bounds.critical_job_s),
            work_s: of(&|r| r.bounds.work_s),
            mean_ideal_run_s: of(&|r| r.bounds.mean_ideal_run_s),
        }
    }
}

/// Aggregates finished runs: `results[i]` belongs to `plan.tasks()[i]`.
pub fn aggregate(plan: &Plan, results: &[TaskResult]) -> Report {
    let tasks: Vec<Task> = plan.tasks();
    assert_eq!(tasks.len(), results.len(), "one result per task");
    let b = &plan.bootstrap;
    let (mut resamples, mut window_resamples) = (BTreeMap::new(), BTreeMap::new());
    for s in &plan.scenarios {
        let n = s.seeds.len();
        resamples.entry(n).or_insert_with(|| Resamples::draw(n, b.resamples, b.seed, b.confidence));
        let w = s.window_count();
        window_resamples.entry(w).or_insert_with(|| Resamples::draw_windows(w, b.window_draws(), b.seed, b.confidence));
    }
    let index = tasks.iter().enumerate().map(|(i, t)| ((t.scenario, t.policy.as_str(), t.window, t.seed), i)).collect();
    let r = Results { plan, index, results, resamples, window_resamples };
    Report {
        plan: plan.clone(),
        scenarios: main_grid(&r),
        sweeps: sweeps(&r),
        oracles: oracles(&r),
        cdfs: cdfs(&r),
        claims: evaluate_claims(&r),
        runs: tasks.len() as u32,
    }
}

/// The main grid: per scenario, every policy's row and its comparisons.
fn main_grid(r: &Results) -> Vec<ScenarioReport> {
    let plan = r.plan;
    let subject = plan.subject.as_str();
    plan.main
        .iter()
        .map(|&s| {
            let rows = plan.policies.iter().map(|p| r.row_with_rho(s, p)).collect();
            let mut comparisons: Vec<Comparison> = plan
                .policies
                .iter()
                .filter(|p| **p != plan.reference)
                .map(|p| r.comparison(s, (p, p), (&plan.reference, &plan.reference)))
                .collect();
            for b in plan.fair_baselines.iter().filter(|b| **b != plan.reference) {
                comparisons.push(r.comparison(s, (subject, subject), (b, b)));
            }
            // The candidate against the subject and every fair baseline (the reference's
            // comparison is already there).
            if let Some(c) = &plan.candidate {
                let rivals = std::iter::once(&plan.subject).chain(&plan.fair_baselines);
                for b in rivals.filter(|b| **b != plan.reference && **b != c.policy) {
                    comparisons.push(r.comparison(s, (&c.policy, &c.policy), (b, b)));
                }
            }
            let first_seed = plan.scenarios[s].seeds[0];
            let jobs = r.window_indices(s).map(|w| r.get(s, &plan.reference, w, first_seed).summary.jobs_total).sum();
            ScenarioReport {
                scenario: plan.scenarios[s].clone(),
                jobs,
                gpus: r.get(s, &plan.reference, 0, first_seed).summary.gpus,
                bounds: r.bounds(s, &plan.reference),
                rows,
                comparisons,
                tenants: tenant_table(r, s),
            }
        })
        .collect()
}

/// Each sweep, point by point: the subject against the others at that point.
fn sweeps(r: &Results) -> Vec<SweepReport> {
    let plan = r.plan;
    let subject = plan.subject.as_str();
    plan.sweeps
        .iter()
        .map(|sweep| {
            let subject_at = sweep.policies.iter().position(|p| p == subject).expect("a sweep runs the subject");
            let points = sweep
                .points
                .iter()
                .map(|point| {
                    let s = point.scenario;
                    let rows = sweep.policies.iter().zip(&point.specs).map(|(p, spec)| r.row(s, p, spec)).collect();
                    let mine = (subject, point.specs[subject_at].as_str());
                    let comparisons = sweep
                        .policies
                        .iter()
                        .zip(&point.specs)
                        .filter(|(p, _)| p.as_str() != subject)
                        .map(|(p, spec)| r.comparison(s, mine, (p, spec)))
                        .collect();
                    SweepPointReport {
                        x: point.x,
                        scenario: plan.scenarios[s].name.clone(),
                        bounds: r.bounds(s, &point.specs[subject_at]),
                        rows,
                        comparisons,
                    }
                })
                .collect();
            SweepReport { sweep: sweep.clone(), points }
        })
        .collect()
}

/// The oracle check: the tuned timers against the best static ones of a grid.
fn oracles(r: &Results) -> Vec<OracleReport> {
    let plan = r.plan;
    let jct = metric_index("avg_jct_s");
    plan.oracles
        .iter()
        .map(|o| {
            let s = o.scenario;
            let grid: Vec<(String, Stat)> =
                o.statics.iter().map(|(label, spec)| (label.clone(), Stat::of(&r.series(s, spec, jct)))).collect();
            let best = grid
                .iter()
                .enumerate()
                .fold(0, |best, (i, (_, stat))| if stat.mean < grid[best].1.mean { i } else { best });
            let tuned = Stat::of(&r.series(s, &o.tuned, jct));
            let resamples = &r.resamples[&plan.scenarios[s].seeds.len()];
            let tuned_vs_best = resamples.ratio_of_means(
                &r.series(s, &o.tuned, jct),
                &r.series(s, &o.statics[best].1, jct),
                RATIO_FLOOR_S,
            );
            let rank = 1 + grid.iter().filter(|(_, stat)| stat.mean < tuned.mean).count() as u32;
            OracleReport {
                scenario: plan.scenarios[s].name.clone(),
                best_static: grid[best].0.clone(),
                grid,
                tuned,
                tuned_vs_best,
                rank,
            }
        })
        .collect()
}

/// JCT distributions, all seeds and windows pooled.
fn cdfs(r: &Results) -> Vec<CdfReport> {
    let plan = r.plan;
    plan.cdf_scenarios
        .iter()
        .map(|&s| {
            let series = plan
                .cdf_policies
                .iter()
                .map(|p| {
                    let mut pooled: Vec<f64> =
                        r.runs(s, p).into_iter().flat_map(|run| run.jcts.iter().copied()).collect();
                    pooled.sort_by(f64::total_cmp);
                    let points = (1..=CDF_POINTS)
                        .map(|k| {
                            let p = k as f64 / CDF_POINTS as f64;
                            (nearest_rank_percentile(&pooled, 100.0 * p), p)
                        })
                        .collect();
                    (p.clone(), points)
                })
                .collect();
            CdfReport { scenario: plan.scenarios[s].clone(), series }
        })
        .collect()
}
