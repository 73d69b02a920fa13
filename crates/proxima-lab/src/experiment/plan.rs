//! What an experiment runs, as data: networks, workloads, the scenarios they make, the
//! policies, the sweeps and the oracle grid, and the list of runs ([`Plan::tasks`]) that
//! covers them all, each run once. The networks, workloads and scenarios are defined in
//! `scenario.rs` and re-exported here.

pub use super::scenario::{Network, ScenarioDef, ScenarioSet, TraceRef, Workload};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A parameter swept on one scenario family: per point, the scenario and, per policy, the
/// spec that runs there (a restore-cost sweep changes the spec, an oversubscription sweep
/// the scenario).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// `oversub` or `restore_s`.
    pub parameter: String,
    /// In words, for tables and axes.
    pub label: String,
    pub network: String,
    pub workload: String,
    /// Policies by the names comparisons use (the main grid's spec).
    pub policies: Vec<String>,
    pub points: Vec<SweepPoint>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub x: f64,
    pub scenario: usize,
    /// Per entry of [`Sweep::policies`], the spec run at this point.
    pub specs: Vec<String>,
}

/// The auto-tuner against static timers chosen in hindsight, on one scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OracleDef {
    pub scenario: usize,
    /// `SERVER_S/RACK_S` settings and the spec each runs.
    pub statics: Vec<(String, String)>,
    pub tuned: String,
}

/// The percentile bootstrap of ratios (see [`super::stats`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BootstrapSettings {
    /// Resamples of seeds (the secondary intervals, over the model draw only).
    pub resamples: u32,
    /// Resamples of windows (the primary intervals and the claims' p-values); 0 in a
    /// report written before windows existed.
    #[serde(default)]
    pub window_resamples: u32,
    /// Seed of the one [`proxima_core::rng::Rng`] that draws every resample.
    pub seed: u64,
    /// E.g. 0.95.
    pub confidence: f64,
}

impl BootstrapSettings {
    /// Resamples of windows, or of seeds where a plan sets none for windows (a plan
    /// written before windows existed).
    pub fn window_draws(&self) -> u32 {
        if self.window_resamples > 0 {
            self.window_resamples
        } else {
            self.resamples
        }
    }
}

/// Everything an experiment runs and how its report is read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub name: String,
    pub networks: Vec<Network>,
    pub workloads: Vec<Workload>,
    /// Every cluster any part of the plan runs on.
    pub scenarios: Vec<ScenarioDef>,
    /// The scenarios of the main grid (every policy runs on each), in report order.
    pub main: Vec<usize>,
    /// The policies of the main grid.
    pub policies: Vec<String>,
    /// The policy every other one is compared with in the full tables (the paper's
    /// baseline).
    pub reference: String,
    /// The policy under study.
    pub subject: String,
    /// The baselines the subject must beat for a fair claim: they may use every mechanism
    /// that is not about the network.
    pub fair_baselines: Vec<String>,
    pub sweeps: Vec<Sweep>,
    pub oracles: Vec<OracleDef>,
    /// Scenarios whose per-job JCTs are kept for the JCT CDF, and the policies drawn.
    pub cdf_scenarios: Vec<usize>,
    pub cdf_policies: Vec<String>,
    pub bootstrap: BootstrapSettings,
    /// How many of each main-grid scenario's seeds, the first ones, also get finish-time
    /// fairness ρ: one isolated run per tenant after the shared run
    /// ([`proxima_core::fairness::isolated`]). Sweeps and oracle grids never do (a run they share
    /// with the main grid is the main grid's). Scenarios with a single tenant get none: its
    /// share would be the whole cluster, and ρ would be 1 by construction.
    #[serde(default)]
    pub rho_seeds: usize,
    /// The primary claims, tested with the window bootstrap and corrected for
    /// multiplicity (Holm); every other figure of the report is exploratory.
    #[serde(default)]
    pub claims: Vec<ClaimDef>,
    /// A policy proposed to replace the subject, held against the subject and every fair
    /// baseline on every main-grid scenario ([`super::candidate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate: Option<CandidateDef>,
}

/// The policy Proxima recommends, evaluated under a protocol a reviewer can check: tuned on
/// the development workloads only, its code frozen at a named commit before its first
/// held-out run, the held-out results reported once, as they came.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateDef {
    /// A policy of the main grid.
    pub policy: String,
    /// The commit at which the policy was frozen (its code and defaults).
    pub frozen_at: String,
    /// The commit of an earlier version of the policy that ran on the held-out workloads
    /// first, if any: the held-out rows have then been read before this version was frozen,
    /// and only the fresh held-out rows are its first results.
    #[serde(default)]
    pub held_out_read_at: Option<String>,
    /// The fair baseline whose tail (p99 JCT) and finish-time fairness (share of jobs with
    /// ρ > 1) the candidate's are held to.
    pub tails_against: String,
    /// The baselines the candidate must beat by `held_out_margin` on held-out workloads.
    pub held_out_rivals: Vec<String>,
    /// Mean JCT at most this fraction of each rival's counts as a held-out win (0.95: 5%
    /// lower).
    pub held_out_margin: f64,
    /// The upper end of a ratio's interval up to which the candidate counts as no worse
    /// than a baseline on a development workload.
    pub no_worse_high: f64,
    /// How far the candidate's p99 JCT and share of jobs with ρ > 1 may exceed those of
    /// `tails_against` (1.10: by 10%).
    pub tails_within: f64,
}

/// A primary claim: `policy` has a lower mean of `metric` than `baseline` on one main-grid
/// scenario, i.e. their ratio of means is below 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClaimDef {
    pub policy: String,
    pub baseline: String,
    /// A scenario name ([`ScenarioDef::name`]).
    pub scenario: String,
    /// A key of [`super::METRICS`] with ratios.
    pub metric: String,
}

/// One run to do: a policy on one window of a scenario under one seed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Task {
    pub scenario: usize,
    pub policy: String,
    /// The position in [`ScenarioDef::windows`].
    pub window: u32,
    pub seed: u64,
}

impl Plan {
    /// Every run, each once: the main grid (scenario × policy × the scenario's windows ×
    /// its seeds), then the sweeps' points, then the oracle grids. A run two parts share
    /// (the sweep point at 16:1 is a main-grid scenario) appears where it first does.
    pub fn tasks(&self) -> Vec<Task> {
        let mut seen = BTreeSet::new();
        let mut tasks = Vec::new();
        let mut add = |scenario: usize, policy: &str, seeds: &[u64]| {
            for window in 0..self.scenarios[scenario].window_count() as u32 {
                for &seed in seeds {
                    let task = Task { scenario, policy: policy.to_string(), window, seed };
                    if seen.insert(task.clone()) {
                        tasks.push(task);
                    }
                }
            }
        };
        for &s in &self.main {
            for p in &self.policies {
                add(s, p, &self.scenarios[s].seeds);
            }
        }
        for sweep in &self.sweeps {
            for point in &sweep.points {
                for spec in &point.specs {
                    add(point.scenario, spec, &self.scenarios[point.scenario].seeds);
                }
            }
        }
        for oracle in &self.oracles {
            let seeds = &self.scenarios[oracle.scenario].seeds;
            add(oracle.scenario, &oracle.tuned, seeds);
            for (_, spec) in &oracle.statics {
                add(oracle.scenario, spec, seeds);
            }
        }
        tasks
    }

    /// The plan with only the first `count` seeds of every workload: the same scenarios,
    /// policies and sweeps, fewer runs (for a machine too slow for all of them; the report
    /// lists the seeds it ran).
    pub fn with_seed_count(mut self, count: usize) -> Plan {
        for w in &mut self.workloads {
            w.seeds.truncate(count);
        }
        for s in &mut self.scenarios {
            s.seeds.truncate(count);
        }
        self
    }

    /// Whether a run also makes the isolated runs of finish-time fairness ρ: a main-grid
    /// policy on a main-grid scenario, with one of the scenario's first
    /// [`Plan::rho_seeds`] seeds. (Whether the scenario has several tenants is known only
    /// once its jobs are read; [`super::execute::run_task`] checks it.)
    pub fn computes_rho(&self, task: &Task) -> bool {
        let seeds = &self.scenarios[task.scenario].seeds;
        self.main.contains(&task.scenario)
            && self.policies.contains(&task.policy)
            && seeds.iter().take(self.rho_seeds).any(|&s| s == task.seed)
    }

    /// Whether a run keeps its per-job JCTs (for the CDF figure).
    pub fn keeps_jcts(&self, task: &Task) -> bool {
        self.cdf_scenarios.contains(&task.scenario) && self.cdf_policies.contains(&task.policy)
    }

    pub fn workload(&self, name: &str) -> Option<&Workload> {
        self.workloads.iter().find(|w| w.name == name)
    }

    pub fn network(&self, name: &str) -> Option<&Network> {
        self.networks.iter().find(|n| n.name == name)
    }

    /// The index of the scenario of `workload` on `network` at `oversub`, adding it if the
    /// plan has none yet.
    pub fn scenario_for(&mut self, workload: &str, network: &str, oversub: f64) -> usize {
        if let Some(i) =
            self.scenarios.iter().position(|s| s.workload == workload && s.network == network && s.oversub == oversub)
        {
            return i;
        }
        let w = self.workload(workload).expect("the plan defines the workload").clone();
        let n = self.network(network).expect("the plan defines the network").clone();
        let options = n.topology_options.replace("{gpus}", &w.gpus_per_server.to_string());
        let topology = format!(
            "racks={},servers={},gpus={},oversub={oversub},{options}",
            w.racks, w.servers_per_rack, w.gpus_per_server
        );
        self.scenarios.push(ScenarioDef {
            name: format!("{}/{}/oversub={oversub}", w.name, n.name),
            set: w.set,
            workload: w.name.clone(),
            network: n.name.clone(),
            oversub,
            topology,
            trace: w.trace.clone(),
            windows: w.windows.clone(),
            load: w.load.clone(),
            seeds: w.seeds.clone(),
            mix: w.mix.clone(),
        });
        self.scenarios.len() - 1
    }
}

/// A Cartesian part of a plan: every scenario × policy × seed, as one sweep spec's grid
/// can express it ([`Plan::grid_parts`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridPart {
    /// E.g. `development`, `oversub`.
    pub name: String,
    pub description: String,
    pub scenarios: Vec<usize>,
    pub policies: Vec<String>,
    pub seeds: Vec<u64>,
}

impl Plan {
    /// The plan as Cartesian parts whose runs together are exactly [`Plan::tasks`]: the
    /// main grid per scenario set (their seeds differ), each kind of sweep over every
    /// network, and the oracle grids. Parts may share runs (a sweep's default point is a
    /// main-grid run); a sweep tool that keys runs by their inputs runs those once.
    pub fn grid_parts(&self) -> Vec<GridPart> {
        let mut parts: Vec<GridPart> = Vec::new();
        let mut add = |name: String, description: String, scenarios: Vec<usize>, policies: Vec<String>| {
            // Scenarios with different seeds go to different parts.
            let mut by_seeds: Vec<(Vec<u64>, Vec<usize>)> = Vec::new();
            for s in scenarios {
                let seeds = &self.scenarios[s].seeds;
                match by_seeds.iter_mut().find(|(k, _)| k == seeds) {
                    Some((_, list)) if !list.contains(&s) => list.push(s),
                    Some(_) => {}
                    None => by_seeds.push((seeds.clone(), vec![s])),
                }
            }
            let several = by_seeds.len() > 1;
            for (i, (seeds, scenarios)) in by_seeds.into_iter().enumerate() {
                let name = if several { format!("{name}-{}", i + 1) } else { name.clone() };
                parts.push(GridPart {
                    name,
                    description: description.clone(),
                    scenarios,
                    policies: policies.clone(),
                    seeds,
                });
            }
        };
        let mut sets: Vec<ScenarioSet> = self.main.iter().map(|&s| self.scenarios[s].set).collect();
        sets.sort();
        sets.dedup();
        for set in sets {
            let scenarios = self.main.iter().copied().filter(|&s| self.scenarios[s].set == set).collect();
            add(
                set.slug().to_string(),
                format!(
                    "the main grid on the {} workloads: every policy, every network, congested and uncongested",
                    set.label()
                ),
                scenarios,
                self.policies.clone(),
            );
        }
        let mut parameters: Vec<&str> = Vec::new();
        for sweep in &self.sweeps {
            if !parameters.contains(&sweep.parameter.as_str()) {
                parameters.push(&sweep.parameter);
            }
        }
        for parameter in parameters {
            let sweeps: Vec<&Sweep> = self.sweeps.iter().filter(|s| s.parameter == parameter).collect();
            let mut scenarios = Vec::new();
            let mut policies: Vec<String> = Vec::new();
            for point in sweeps.iter().flat_map(|s| &s.points) {
                if !scenarios.contains(&point.scenario) {
                    scenarios.push(point.scenario);
                }
                for spec in &point.specs {
                    if !policies.contains(spec) {
                        policies.push(spec.clone());
                    }
                }
            }
            let name = if parameter == "restore_s" { "restore".to_string() } else { parameter.replace('_', "-") };
            add(name, format!("the sweep of {}", sweeps[0].label), scenarios, policies);
        }
        if let Some(first) = self.oracles.first() {
            let policies: Vec<String> = std::iter::once(first.tuned.clone())
                .chain(first.statics.iter().map(|(_, spec)| spec.clone()))
                .collect();
            let scenarios = self.oracles.iter().map(|o| o.scenario).collect();
            add(
                "oracle".into(),
                "the oracle check of the auto-tuner: static timers against the tuned ones".into(),
                scenarios,
                policies,
            );
        }
        parts
    }
}

/// `policy` with its checkpoint-restore cost set to `restore_s`; unchanged at
/// `default_s`, every preempting policy's default, so that the sweep's default point is the
/// main grid's run.
pub fn with_restore(policy: &str, restore_s: f64, default_s: f64) -> String {
    if restore_s == default_s {
        policy.to_string()
    } else if policy.contains(':') {
        format!("{policy},restore_s={restore_s}")
    } else {
        format!("{policy}:restore_s={restore_s}")
    }
}
