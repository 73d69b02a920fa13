//! What the report concludes: for the recommended policy, a verdict per target of the
//! protocol over the set's cells; for every policy, its worst cell.

use super::regret::{CellResult, PolicyResult, RobustReport};
use crate::experiment::plan::ScenarioSet;
use crate::experiment::stats::RatioCi;
use serde::Serialize;

/// One cell's figure against a target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judged {
    pub cell: String,
    pub value: f64,
    /// The bootstrap interval of a ratio (none for a count).
    pub interval: Option<(f64, f64)>,
}

impl Judged {
    /// Whether the whole interval lies above `threshold`: the seeds show the miss.
    pub fn clearly_above(&self, threshold: f64) -> bool {
        self.interval.is_some_and(|(low, _)| low > threshold)
    }
}

/// A target over every cell of the set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// E.g. `mean-JCT regret ≤ 1.03`.
    pub target: String,
    pub threshold: f64,
    pub cells: usize,
    /// Cells whose figure is above the threshold, worst first.
    pub failing: Vec<Judged>,
    /// The cell with the highest figure.
    pub worst: Option<Judged>,
    /// Why the target could not be judged (a policy without a cap), if so.
    pub not_judged: Option<String>,
}

impl Verdict {
    pub fn holds(&self) -> bool {
        self.not_judged.is_none() && self.failing.is_empty()
    }
}

/// A figure of a policy in a cell, for one target.
type Figure = fn(&PolicyResult) -> Option<Judged>;

fn ratio(cell: &str, ci: &RatioCi) -> Option<Judged> {
    ci.ratio.map(|value| Judged { cell: cell.to_string(), value, interval: Some((ci.low, ci.high)) })
}

fn judge(
    report: &RobustReport,
    policy: &str,
    target: String,
    threshold: f64,
    figure: &dyn Fn(&CellResult, &PolicyResult) -> Option<Judged>,
) -> Verdict {
    let mut judged: Vec<Judged> =
        report.cells.iter().filter_map(|c| c.row(policy).and_then(|row| figure(c, row))).collect();
    judged.sort_by(|a, b| b.value.total_cmp(&a.value));
    let failing = judged.iter().filter(|j| j.value > threshold).cloned().collect();
    Verdict { target, threshold, cells: report.cells.len(), failing, worst: judged.first().cloned(), not_judged: None }
}

impl RobustReport {
    /// The protocol's targets for the recommended policy over the report's cells:
    /// development targets on the development set, the held-out target on the held-out one.
    pub fn verdicts(&self) -> Vec<Verdict> {
        let p = &self.plan.protocol;
        let policy = p.recommended.as_str();
        let regret = |key: &'static str| move |c: &CellResult, r: &PolicyResult| ratio(&c.cell.name, &r.regret[key]);
        if self.plan.set.is_held_out() {
            let t = format!("mean-JCT regret ≤ {} in every held-out cell", p.held_out_mean_jct_regret);
            return vec![judge(self, policy, t, p.held_out_mean_jct_regret, &regret("avg_jct_s"))];
        }
        let mut verdicts = vec![
            judge(
                self,
                policy,
                format!("mean-JCT regret ≤ {}", p.mean_jct_regret),
                p.mean_jct_regret,
                &regret("avg_jct_s"),
            ),
            judge(
                self,
                policy,
                format!("makespan regret ≤ {}", p.makespan_regret),
                p.makespan_regret,
                &regret("makespan_s"),
            ),
            judge(
                self,
                policy,
                format!("p99 JCT ≤ {} × `{}`'s", p.p99_within, p.tails_against),
                p.p99_within,
                &|c, r| ratio(&c.cell.name, &r.p99_vs_tails),
            ),
        ];
        let cap = self.plan.policy(policy).and_then(|d| d.max_preempt);
        let target = "most preemptions of a job ≤ the policy's max_preempt".to_string();
        let preemptions = |c: &CellResult, r: &PolicyResult| {
            Some(Judged { cell: c.cell.name.clone(), value: r.max_job_preemptions() as f64, interval: None })
        };
        let mut v = judge(self, policy, target, cap.map_or(f64::INFINITY, f64::from), &preemptions);
        match cap {
            Some(cap) => v.target = format!("most preemptions of a job ≤ {cap} (its max_preempt)"),
            None => v.not_judged = Some(format!("`{policy}`'s canonical spec has no max_preempt")),
        }
        verdicts.push(v);
        verdicts
    }

    /// Per policy, its worst cell on each regret and on p99 against `tails_against`.
    pub fn worst_cells(&self) -> Vec<WorstCells> {
        let worst = |policy: &str, figure: Figure| {
            self.cells
                .iter()
                .filter_map(|c| c.row(policy).and_then(figure).map(|j| Judged { cell: c.cell.name.clone(), ..j }))
                .max_by(|a, b| a.value.total_cmp(&b.value))
        };
        self.plan
            .policies
            .iter()
            .map(|p| WorstCells {
                policy: p.spec.clone(),
                mean_jct: worst(&p.spec, |r| ratio("", &r.regret["avg_jct_s"])),
                makespan: worst(&p.spec, |r| ratio("", &r.regret["makespan_s"])),
                p99_vs_tails: worst(&p.spec, |r| ratio("", &r.p99_vs_tails)),
                max_job_preemptions: self
                    .cells
                    .iter()
                    .filter_map(|c| c.row(&p.spec))
                    .map(|r| r.max_job_preemptions())
                    .max()
                    .unwrap_or(0),
            })
            .collect()
    }

    /// Whether this is the development set's report.
    pub fn is_development(&self) -> bool {
        self.plan.set == ScenarioSet::Development
    }
}

/// A policy's worst cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorstCells {
    pub policy: String,
    pub mean_jct: Option<Judged>,
    pub makespan: Option<Judged>,
    pub p99_vs_tails: Option<Judged>,
    pub max_job_preemptions: u32,
}
