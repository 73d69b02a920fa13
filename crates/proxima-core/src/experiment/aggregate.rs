//! From finished runs to the report's figures: per scenario and policy the spread over
//! seeds, ratios of means with confidence intervals, makespan bounds, the sweeps, the
//! oracle check and the JCT distributions. A pure function of the runs.

use super::execute::{metric_index, rho_values, TaskResult, METRICS, RHO_METRICS};
use super::plan::{Plan, ScenarioDef, Sweep, Task};
use super::stats::{RatioCi, Resamples, Stat};
use super::tenant_table::{tenant_table, TenantTable};
use crate::metrics::nearest_rank_percentile;
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

/// `policy` against `baseline` on the same seeds: per metric with ratios, the ratio of
/// means and its interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub policy: String,
    pub baseline: String,
    pub ratios: BTreeMap<String, RatioCi>,
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

/// The JCT distribution of each policy on one scenario, all seeds pooled: points
/// `(jct_s, p)` at `p = 1/200, 2/200, …, 1` (nearest-rank quantiles).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CdfReport {
    pub scenario: ScenarioDef,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// Baselines whose mean is below this many seconds get no ratio: every metric with ratios
/// is a time, and a second summed over a whole run is rounding.
pub const RATIO_FLOOR_S: f64 = 1.0;

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

pub(super) struct Results<'a> {
    pub(super) plan: &'a Plan,
    index: BTreeMap<(usize, &'a str, u64), usize>,
    results: &'a [TaskResult],
    resamples: BTreeMap<usize, Resamples>,
}

impl<'a> Results<'a> {
    fn get(&self, scenario: usize, policy: &str, seed: u64) -> &TaskResult {
        let i = self.index.get(&(scenario, policy, seed)).unwrap_or_else(|| {
            panic!("the plan ran {policy} with seed {seed} on {}", self.plan.scenarios[scenario].name)
        });
        &self.results[*i]
    }

    /// Per seed of the scenario, metric `m` of the policy's run.
    fn series(&self, scenario: usize, policy: &str, m: usize) -> Vec<f64> {
        self.plan.scenarios[scenario].seeds.iter().map(|&s| self.get(scenario, policy, s).values[m]).collect()
    }

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
    fn row_with_rho(&self, scenario: usize, policy: &str) -> PolicyRow {
        let mut row = self.row(scenario, policy, policy);
        let per_seed: Vec<[f64; 2]> = self.plan.scenarios[scenario]
            .seeds
            .iter()
            .filter_map(|&s| rho_values(&self.get(scenario, policy, s).summary))
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

    /// The runs of a policy on a scenario, in seed order.
    pub(super) fn runs(&self, scenario: usize, policy: &str) -> Vec<&TaskResult> {
        self.plan.scenarios[scenario].seeds.iter().map(|&s| self.get(scenario, policy, s)).collect()
    }

    fn comparison(
        &self,
        scenario: usize,
        (policy, spec): (&str, &str),
        (baseline, base_spec): (&str, &str),
    ) -> Comparison {
        let n = self.plan.scenarios[scenario].seeds.len();
        let resamples = &self.resamples[&n];
        let ratios = METRICS
            .iter()
            .enumerate()
            .filter(|(_, metric)| metric.ratio)
            .map(|(m, metric)| {
                let ci = resamples.ratio_of_means(
                    &self.series(scenario, spec, m),
                    &self.series(scenario, base_spec, m),
                    RATIO_FLOOR_S,
                );
                (metric.key.to_string(), ci)
            })
            .collect();
        Comparison { policy: policy.to_string(), baseline: baseline.to_string(), ratios }
    }

    fn bounds(&self, scenario: usize, policy: &str) -> BoundStats {
        let seeds = &self.plan.scenarios[scenario].seeds;
        let of = |f: &dyn Fn(&TaskResult) -> f64| {
            Stat::of(&seeds.iter().map(|&s| f(self.get(scenario, policy, s))).collect::<Vec<_>>())
        };
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
    let mut resamples = BTreeMap::new();
    for s in &plan.scenarios {
        let n = s.seeds.len();
        resamples.entry(n).or_insert_with(|| {
            Resamples::draw(n, plan.bootstrap.resamples, plan.bootstrap.seed, plan.bootstrap.confidence)
        });
    }
    let index = tasks.iter().enumerate().map(|(i, t)| ((t.scenario, t.policy.as_str(), t.seed), i)).collect();
    let r = Results { plan, index, results, resamples };
    let subject = plan.subject.as_str();

    let scenarios = plan
        .main
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
            let first = r.get(s, &plan.reference, plan.scenarios[s].seeds[0]);
            ScenarioReport {
                scenario: plan.scenarios[s].clone(),
                jobs: first.summary.jobs_total,
                gpus: first.summary.gpus,
                bounds: r.bounds(s, &plan.reference),
                rows,
                comparisons,
                tenants: tenant_table(&r, s),
            }
        })
        .collect();

    let sweeps = plan
        .sweeps
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
        .collect();

    let jct = metric_index("avg_jct_s");
    let oracles = plan
        .oracles
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
        .collect();

    let cdfs = plan
        .cdf_scenarios
        .iter()
        .map(|&s| {
            let series = plan
                .cdf_policies
                .iter()
                .map(|p| {
                    let mut pooled: Vec<f64> = plan.scenarios[s]
                        .seeds
                        .iter()
                        .flat_map(|&seed| r.get(s, p, seed).jcts.iter().copied())
                        .collect();
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
        .collect();

    Report { plan: plan.clone(), scenarios, sweeps, oracles, cdfs, runs: tasks.len() as u32 }
}
