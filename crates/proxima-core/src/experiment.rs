//! The paper's experiments as data: which scenarios, which policies, which seeds, and how
//! their summaries become the tables of `report.md` and `report.json`.
//!
//! Running the plan is the caller's business (the CLI spreads runs over every core); this
//! module only says what to run and aggregates what came back, so the report is a pure
//! function of the results.

use crate::metrics::Summary;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Where a scenario's jobs come from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TraceRef {
    /// A window of the Philly-derived trace: jobs `skip .. skip + limit` by submission time.
    Philly { skip: u32, limit: u32 },
    /// `synthetic:jobs=N,load=L` (the seed is the run's).
    Synthetic { jobs: u32, load: f64 },
}

impl TraceRef {
    pub fn label(&self) -> String {
        match self {
            TraceRef::Philly { skip, limit } => format!("Philly jobs {}-{}", skip, skip + limit),
            TraceRef::Synthetic { jobs, load } => format!("synthetic:jobs={jobs},load={load}"),
        }
    }
}

/// One cluster and workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioDef {
    pub name: String,
    /// `congested` (oversubscribed rack uplinks) or `uncongested`.
    pub network: String,
    /// In words, e.g. "high (offered load about 0.9)".
    pub load: String,
    /// A topology spec (preset or parametric).
    pub topology: String,
    pub trace: TraceRef,
}

/// Everything an experiment runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    pub name: String,
    pub scenarios: Vec<ScenarioDef>,
    pub policies: Vec<String>,
    pub seeds: Vec<u64>,
    /// Static timer settings (`SERVER/RACK`) swept for the auto-tuner's oracle check.
    pub oracle_timers: Vec<String>,
    /// The policy the oracle grid fixes the timers of (`{timers}` is replaced).
    pub oracle_policy: String,
    /// The auto-tuned policy the oracle is compared with.
    pub tuned_policy: String,
}

/// The policy everything is compared with.
pub const BASELINE: &str = "consolidate";

/// The paper's set: a congested and an uncongested network, two loads each, the Philly trace
/// (a busy window with many multi-GPU jobs) and a synthetic trace, the two baselines, dally
/// and its three ablations, three seeds, and a grid of static timers.
pub fn paper_plan(quick: bool) -> Plan {
    let mut scenarios = Vec::new();
    // The cluster: racks of 16 servers with 4 GPUs each (the shape of the Pollux and
    // Tiresias testbeds), 50 Gbit/s NICs at the calibrated efficiency of NCCL over TCP
    // (docs/CALIBRATION.md). Congested: rack uplinks 16:1 oversubscribed (at that
    // efficiency one ring uses a tenth of a link, so uplinks only congest when they are
    // much thinner than the servers below them); uncongested: full bisection. Loads: the
    // same Philly jobs on 512 and on 384 GPUs, or synthetic traces at offered loads of 0.8
    // and 1.2 (20,000 jobs: Philly's durations are heavy-tailed, and a short synthetic
    // trace leaves the cluster idle whatever its nominal load).
    // The Philly window: jobs 50,000-60,000, 15 days of mid-October 2017 with 1,064
    // multi-GPU jobs.
    let philly = TraceRef::Philly { skip: 50_000, limit: if quick { 2_000 } else { 10_000 } };
    let synth_jobs = if quick { 3_000 } else { 20_000 };
    for (network, oversub) in [("congested", 16), ("uncongested", 1)] {
        for (racks, load) in [(8, "moderate (512 GPUs)"), (6, "high (384 GPUs)")] {
            scenarios.push(ScenarioDef {
                name: format!("philly-{network}-{}gpus", racks * 64),
                network: network.into(),
                load: load.into(),
                topology: format!("racks={racks},servers=16,gpus=4,oversub={oversub},nic_gbps=50"),
                trace: philly.clone(),
            });
        }
        for (load, label) in [(0.8, "moderate (0.8)"), (1.2, "high (1.2)")] {
            scenarios.push(ScenarioDef {
                name: format!("synthetic-{network}-load{load}"),
                network: network.into(),
                load: label.into(),
                topology: format!("racks=8,servers=16,gpus=4,oversub={oversub},nic_gbps=50"),
                trace: TraceRef::Synthetic { jobs: synth_jobs, load },
            });
        }
    }
    let servers = ["0", "30", "120", "300", "900", "1800", "3600"];
    let racks = ["0", "60", "300", "900"];
    let oracle_timers = if quick {
        vec!["0/0".into(), "300/150".into(), "1800/300".into()]
    } else {
        servers.iter().flat_map(|s| racks.iter().map(move |r| format!("{s}/{r}"))).collect()
    };
    Plan {
        name: "paper".into(),
        scenarios,
        policies: vec![
            "fifo".into(),
            BASELINE.into(),
            "dally".into(),
            "dally:preempt=off".into(),
            "dally:autotune=off".into(),
            "dally:preempt=off,autotune=off".into(),
        ],
        seeds: if quick { vec![1, 2] } else { vec![1, 2, 3] },
        oracle_timers,
        oracle_policy: "dally:autotune=off,timers={timers}".into(),
        tuned_policy: "dally".into(),
    }
}

/// One run to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub scenario: usize,
    pub policy: String,
    pub seed: u64,
}

impl Plan {
    /// Every run: each scenario × policy × seed, then each scenario × oracle timer × seed.
    pub fn tasks(&self) -> Vec<Task> {
        let mut tasks = Vec::new();
        for s in 0..self.scenarios.len() {
            for p in self.policies.iter().chain(self.oracle_policies().iter()) {
                for &seed in &self.seeds {
                    tasks.push(Task { scenario: s, policy: p.clone(), seed });
                }
            }
        }
        tasks
    }

    pub fn oracle_policies(&self) -> Vec<String> {
        self.oracle_timers.iter().map(|t| self.oracle_policy.replace("{timers}", t)).collect()
    }
}

/// The metrics the report tabulates: key in `summary.json`, label.
pub const METRICS: &[(&str, &str)] = &[
    ("makespan_s", "makespan"),
    ("avg_jct_s", "mean JCT"),
    ("p95_jct_s", "p95 JCT"),
    ("avg_queue_s", "mean queueing"),
    ("comm_overhead_s", "comm. overhead"),
    ("preemptions", "preemptions"),
];

fn metric(s: &Summary, key: &str) -> f64 {
    match key {
        "makespan_s" => s.makespan_s,
        "avg_jct_s" => s.avg_jct_s,
        "p95_jct_s" => s.p95_jct_s,
        "avg_queue_s" => s.avg_queue_s,
        "comm_overhead_s" => s.comm_overhead_s,
        "preemptions" => s.preemptions as f64,
        other => panic!("unknown metric {other}"),
    }
}

/// Mean and spread over seeds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stat {
    pub mean: f64,
    /// Sample standard deviation (0 with one seed).
    pub sd: f64,
    pub min: f64,
    pub max: f64,
}

impl Stat {
    pub fn of(values: &[f64]) -> Stat {
        let n = values.len() as f64;
        if values.is_empty() {
            return Stat { mean: f64::NAN, sd: 0.0, min: f64::NAN, max: f64::NAN };
        }
        let mean = values.iter().sum::<f64>() / n;
        let var = if values.len() > 1 {
            values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Stat {
            mean,
            sd: libm::sqrt(var),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// One policy's figures in one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyRow {
    pub policy: String,
    /// Per metric, the value over seeds.
    pub values: BTreeMap<String, Stat>,
    /// Per metric, the ratio to the baseline in the same seed, over seeds.
    pub ratios: BTreeMap<String, Stat>,
}

/// How the auto-tuned timers compare with the best static ones in hindsight.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OracleCheck {
    /// Mean JCT (mean over seeds) per static setting, in grid order.
    pub grid: Vec<(String, f64)>,
    pub best_static: String,
    pub best_static_jct_s: f64,
    pub tuned_jct_s: f64,
    /// (tuned − best static) / best static, in percent: how far the tuner is from the oracle.
    pub gap_percent: f64,
    /// Where the tuned run ranks among the static settings (1 = better than all).
    pub rank: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioReport {
    pub scenario: ScenarioDef,
    pub jobs: u32,
    pub gpus: u32,
    pub rows: Vec<PolicyRow>,
    pub oracle: Option<OracleCheck>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub plan: Plan,
    pub scenarios: Vec<ScenarioReport>,
}

/// Aggregates finished runs (`results[i]` belongs to `plan.tasks()[i]`).
pub fn aggregate(plan: &Plan, results: &[Summary]) -> Report {
    let tasks = plan.tasks();
    assert_eq!(tasks.len(), results.len(), "one result per task");
    let find = |scenario: usize, policy: &str, seed: u64| -> &Summary {
        let i = tasks
            .iter()
            .position(|t| t.scenario == scenario && t.policy == policy && t.seed == seed)
            .expect("every policy and seed of the plan ran");
        &results[i]
    };
    let mut scenarios = Vec::new();
    for (si, def) in plan.scenarios.iter().enumerate() {
        let mut rows = Vec::new();
        for policy in &plan.policies {
            let mut values = BTreeMap::new();
            let mut ratios = BTreeMap::new();
            for &(key, _) in METRICS {
                let v: Vec<f64> = plan.seeds.iter().map(|&s| metric(find(si, policy, s), key)).collect();
                let r: Vec<f64> = plan
                    .seeds
                    .iter()
                    .map(|&s| {
                        let base = metric(find(si, BASELINE, s), key);
                        let mine = metric(find(si, policy, s), key);
                        if base > 0.0 {
                            mine / base
                        } else if mine == 0.0 {
                            1.0
                        } else {
                            f64::NAN
                        }
                    })
                    .filter(|x| x.is_finite())
                    .collect();
                values.insert(key.to_string(), Stat::of(&v));
                ratios.insert(key.to_string(), Stat::of(&r));
            }
            rows.push(PolicyRow { policy: policy.clone(), values, ratios });
        }
        let mean_jct = |policy: &str| {
            plan.seeds.iter().map(|&s| find(si, policy, s).avg_jct_s).sum::<f64>() / plan.seeds.len() as f64
        };
        let oracle = (!plan.oracle_timers.is_empty()).then(|| {
            let grid: Vec<(String, f64)> =
                plan.oracle_timers.iter().zip(plan.oracle_policies()).map(|(t, p)| (t.clone(), mean_jct(&p))).collect();
            let (best_static, best_static_jct_s) =
                grid.iter().cloned().fold((String::new(), f64::INFINITY), |b, c| if c.1 < b.1 { c } else { b });
            let tuned_jct_s = mean_jct(&plan.tuned_policy);
            let rank = 1 + grid.iter().filter(|(_, j)| *j < tuned_jct_s).count() as u32;
            OracleCheck {
                grid,
                best_static,
                best_static_jct_s,
                tuned_jct_s,
                gap_percent: 100.0 * (tuned_jct_s - best_static_jct_s) / best_static_jct_s,
                rank,
            }
        });
        let first = find(si, BASELINE, plan.seeds[0]);
        scenarios.push(ScenarioReport {
            scenario: def.clone(),
            jobs: first.jobs_total,
            gpus: first.gpus,
            rows,
            oracle,
        });
    }
    Report { plan: plan.clone(), scenarios }
}

fn fmt_value(key: &str, s: &Stat) -> String {
    if key == "preemptions" {
        format!("{:.0} ± {:.0}", s.mean, s.sd)
    } else if s.mean >= 36_000.0 {
        format!("{:.1} h ± {:.1}", s.mean / 3600.0, s.sd / 3600.0)
    } else {
        format!("{:.0} s ± {:.0}", s.mean, s.sd)
    }
}

impl Report {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serialises")
    }

    /// The tables of `report.md`.
    pub fn to_markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# Experiment `{}`\n", self.plan.name);
        let _ = writeln!(
            md,
            "Seeds: {:?}. Each cell: mean ± sample standard deviation over seeds; in brackets, the mean over seeds of the ratio to `{BASELINE}` in the same seed (below 1 is better). Generated by `proxima experiment {}`.\n",
            self.plan.seeds, self.plan.name
        );
        for sc in &self.scenarios {
            let d = &sc.scenario;
            let _ = writeln!(md, "## {}\n", d.name);
            let _ = writeln!(
                md,
                "{} network, {} load: `{}` ({} GPUs), {} ({} jobs).\n",
                d.network,
                d.load,
                d.topology,
                sc.gpus,
                d.trace.label(),
                sc.jobs
            );
            let _ = write!(md, "| policy |");
            for (_, label) in METRICS {
                let _ = write!(md, " {label} |");
            }
            let _ = write!(md, "\n|---|");
            for _ in METRICS {
                let _ = write!(md, "---:|");
            }
            md.push('\n');
            for row in &sc.rows {
                let _ = write!(md, "| `{}` |", row.policy);
                for &(key, _) in METRICS {
                    let v = &row.values[key];
                    let r = &row.ratios[key];
                    if key == "preemptions" || row.policy == BASELINE {
                        let _ = write!(md, " {} |", fmt_value(key, v));
                    } else {
                        let _ = write!(md, " {} ({:.2}×) |", fmt_value(key, v), r.mean);
                    }
                }
                md.push('\n');
            }
            if let Some(o) = &sc.oracle {
                let _ = writeln!(
                    md,
                    "\nOracle check of the auto-tuner: the best of {} static timer settings in hindsight is `{}` with mean JCT {:.0} s; auto-tuned `{}` gets {:.0} s, {:+.1}% from it (rank {} of {}).\n",
                    o.grid.len(),
                    o.best_static,
                    o.best_static_jct_s,
                    self.plan.tuned_policy,
                    o.tuned_jct_s,
                    o.gap_percent,
                    o.rank,
                    o.grid.len() + 1
                );
            }
            md.push('\n');
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_and_plan_shape() {
        let s = Stat::of(&[1.0, 2.0, 3.0]);
        assert_eq!((s.mean, s.sd, s.min, s.max), (2.0, 1.0, 1.0, 3.0));
        let p = paper_plan(false);
        assert_eq!(p.scenarios.len(), 8);
        assert!(
            p.scenarios.iter().any(|s| s.network == "congested")
                && p.scenarios.iter().any(|s| s.network == "uncongested")
        );
        assert!(p.policies.contains(&BASELINE.to_string()));
        assert_eq!(p.tasks().len(), 8 * (6 + 28) * 3);
    }
}
