//! The report's figures as data: which ones there are, their files and titles, and the
//! numbers each draws. The CLI draws them; the report embeds them by file name.

use super::aggregate::Report;
use super::plan::ScenarioSet;
use super::stats::RatioCi;
use serde::Serialize;

/// The metrics of the summary table and the ratio figure, by key, in column order.
pub const SUMMARY_METRICS: &[&str] =
    &["avg_jct_s", "makespan_s", "comm_overhead_s", "comm_overhead_gpu_s", "p95_jct_s"];

/// The metrics the ratio figure draws, one panel each.
pub const RATIO_FIGURE_METRICS: &[&str] = &["avg_jct_s", "makespan_s", "comm_overhead_s"];

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FigureKind {
    /// The JCT distribution of each policy: `Report::cdfs[index]`.
    Cdf { index: usize },
    /// The subject over each fair baseline, per scenario of one set and network.
    Ratios { set: ScenarioSet, network: String },
    /// `Report::sweeps[index]`: values per policy, and the subject over each baseline.
    Sweep { index: usize },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figure {
    /// File name beside `report.md`.
    pub file: String,
    pub title: String,
    pub kind: FigureKind,
}

/// One row of the summary: the subject against one baseline in one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatioRow {
    /// `WORKLOAD, congested (16:1)`.
    pub scenario: String,
    pub baseline: String,
    /// Per entry of the metrics asked for; `None` for a metric the report was written
    /// without (a `report.json` older than the metric).
    pub ratios: Vec<Option<RatioCi>>,
}

impl Report {
    /// The subject against each fair baseline, per main-grid scenario of `set` on
    /// `network`, for `metrics` (keys).
    pub fn ratio_rows(&self, set: ScenarioSet, network: &str, metrics: &[&str]) -> Vec<RatioRow> {
        let mut rows = Vec::new();
        for sc in self.scenarios.iter().filter(|s| s.scenario.set == set && s.scenario.network == network) {
            for baseline in &self.plan.fair_baselines {
                let Some(c) = sc.comparison(&self.plan.subject, baseline) else { continue };
                rows.push(RatioRow {
                    scenario: format!("{}, {}", sc.scenario.workload, sc.scenario.congestion_label()),
                    baseline: baseline.clone(),
                    ratios: metrics.iter().map(|m| c.ratios.get(*m).copied()).collect(),
                });
            }
        }
        rows
    }

    /// The sets present in the main grid, in order.
    pub fn sets(&self) -> Vec<ScenarioSet> {
        let mut sets: Vec<ScenarioSet> = self.scenarios.iter().map(|s| s.scenario.set).collect();
        sets.sort();
        sets.dedup();
        sets
    }

    /// Every figure the report embeds.
    pub fn figures(&self) -> Vec<Figure> {
        let mut figures = Vec::new();
        for set in self.sets() {
            for n in &self.plan.networks {
                figures.push(Figure {
                    file: format!("ratios-{}-{}.svg", set.slug(), n.name),
                    title: format!(
                        "{} over each baseline, {} workloads, {} network (ratio of means, 95% CI)",
                        self.plan.subject,
                        set.label(),
                        n.name
                    ),
                    kind: FigureKind::Ratios { set, network: n.name.clone() },
                });
            }
        }
        for (index, cdf) in self.cdfs.iter().enumerate() {
            let s = &cdf.scenario;
            figures.push(Figure {
                file: format!("cdf-{}-{}.svg", s.workload, s.network),
                title: format!(
                    "JCT distribution, {} ({}), {} network, {}, {} seeds pooled",
                    s.workload,
                    s.set.label(),
                    s.network,
                    s.congestion_label(),
                    s.seeds.len()
                ),
                kind: FigureKind::Cdf { index },
            });
        }
        for (index, sweep) in self.sweeps.iter().enumerate() {
            let s = &sweep.sweep;
            let short = if s.parameter == "restore_s" { "restore" } else { s.parameter.as_str() };
            figures.push(Figure {
                file: format!("sweep-{short}-{}.svg", s.network),
                title: format!("{} on {}, {} network: mean JCT", s.label, s.workload, s.network),
                kind: FigureKind::Sweep { index },
            });
        }
        figures
    }
}
