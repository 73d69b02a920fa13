//! The candidate's section of the report: the policy proposed to replace the subject,
//! against the subject and every fair baseline on every main-grid scenario, with the
//! verdicts the plan's [`CandidateDef`] asks for. Development and held-out workloads are
//! reported apart, and the held-out results as they came.

use super::aggregate::{Report, ScenarioReport};
use super::plan::{CandidateDef, ScenarioSet};
use super::report::{fmt_ci, fmt_ratio, header};
use super::stats::RatioCi;
use std::fmt::Write;

/// The candidate on one scenario: mean JCT over each rival, its tails against
/// [`CandidateDef::tails_against`], and the verdicts.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateRow<'a> {
    pub scenario: &'a ScenarioReport,
    /// Per rival (the subject, then the fair baselines), the mean JCT ratio with its
    /// interval over the scenario's units (windows on Philly, seeds elsewhere).
    pub jct: Vec<(&'a str, &'a RatioCi)>,
    /// Whether the interval is over trace windows (else over seeds, each a whole trace).
    pub over_windows: bool,
    /// p99 JCT over that of `tails_against`.
    pub p99: Option<f64>,
    /// Share of jobs with ρ > 1: the candidate's and that of `tails_against`, when the
    /// scenario has several tenants.
    pub rho_over_1: Option<(f64, f64)>,
}

impl CandidateRow<'_> {
    /// At or below every rival, the upper end of every interval at most `high`.
    pub fn no_worse(&self, high: f64) -> bool {
        self.jct.iter().all(|(_, ci)| ci.ratio.is_some_and(|r| r <= 1.0) && ci.high <= high)
    }

    /// p99 JCT and share of jobs with ρ > 1 within `within` × those of `tails_against`.
    pub fn tails_within(&self, within: f64) -> bool {
        let p99 = self.p99.is_some_and(|r| r <= within);
        let rho = self.rho_over_1.is_none_or(|(mine, theirs)| mine <= within * theirs + 1e-12);
        p99 && rho
    }

    /// Mean JCT at most `margin` × each of `rivals`'.
    pub fn beats_by(&self, rivals: &[String], margin: f64) -> bool {
        rivals
            .iter()
            .all(|r| self.jct.iter().any(|(name, ci)| *name == r.as_str() && ci.ratio.is_some_and(|x| x <= margin)))
    }
}

impl Report {
    /// The candidate on every main-grid scenario of `set`, in report order.
    pub fn candidate_rows(&self, set: ScenarioSet) -> Vec<CandidateRow<'_>> {
        let Some(c) = &self.plan.candidate else { return Vec::new() };
        let rivals: Vec<&String> =
            std::iter::once(&self.plan.subject).chain(&self.plan.fair_baselines).filter(|b| **b != c.policy).collect();
        self.scenarios
            .iter()
            .filter(|sc| sc.scenario.set == set)
            .map(|sc| {
                let over_windows = sc.scenario.window_count() > 1;
                let jct = rivals
                    .iter()
                    .filter_map(|b| {
                        let cmp = sc.comparison(&c.policy, b)?;
                        let ci = if over_windows { cmp.windows.get("avg_jct_s") } else { cmp.ratios.get("avg_jct_s") };
                        Some((b.as_str(), ci?))
                    })
                    .collect();
                let p99 = sc.comparison(&c.policy, &c.tails_against).and_then(|cmp| cmp.ratios.get("p99_jct_s")?.ratio);
                let share = |p: &str| Some(sc.row(p)?.values.get("rho_over_1")?.mean);
                let rho_over_1 = share(&c.policy).zip(share(&c.tails_against));
                CandidateRow { scenario: sc, jct, over_windows, p99, rho_over_1 }
            })
            .collect()
    }

    pub(super) fn write_candidate(&self, md: &mut String) {
        let Some(c) = &self.plan.candidate else { return };
        let _ = writeln!(
            md,
            "## `{}`, the recommended policy, against `{}` and every fair baseline\n",
            c.policy, self.plan.subject
        );
        let protocol = match &c.held_out_read_at {
            None => format!(
                "Tuned on the development workloads only, and frozen at commit `{}` before its first held-out run: the held-out rows are its first results there, reported as they came.",
                c.frozen_at
            ),
            Some(earlier) => format!(
                "Tuned on the development workloads only, and frozen at commit `{}` before its first run on the fresh held-out workloads, which were fixed with it: those rows are its first results there, reported as they came. An earlier version (frozen at `{earlier}`) ran on the held-out workloads first and its results there were read, so the held-out rows are not a first look.",
                c.frozen_at
            ),
        };
        let _ = writeln!(
            md,
            "{protocol} Each cell is its mean JCT over the rival's, a ratio of means, with the 95% interval over the scenario's units (trace windows on Philly, seeds elsewhere, each a whole trace). p99 is its p99 JCT over `{}`'s (seed interval not shown); ρ > 1 the shares of jobs with finish-time fairness ρ above 1, its and `{}`'s.\n",
            c.tails_against, c.tails_against
        );
        for set in ScenarioSet::ALL {
            let rows = self.candidate_rows(set);
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(md, "### {} workloads\n", set.label());
            self.write_candidate_table(md, c, &rows, set);
            self.write_candidate_verdict(md, c, &rows, set);
        }
    }

    fn write_candidate_table(&self, md: &mut String, c: &CandidateDef, rows: &[CandidateRow], set: ScenarioSet) {
        let rivals: Vec<String> = rows[0].jct.iter().map(|(b, _)| format!("÷ `{b}`")).collect();
        let verdict = if set.is_held_out() {
            format!("≥ {:.0}% below {}", 100.0 * (1.0 - c.held_out_margin), quoted(&c.held_out_rivals))
        } else {
            format!("no worse than all (≤ 1, high ≤ {})", c.no_worse_high)
        };
        let mut columns = vec!["scenario", "units"];
        columns.extend(rivals.iter().map(String::as_str));
        columns.extend(["p99", "ρ > 1", verdict.as_str()]);
        header(md, &columns);
        for row in rows {
            let cells: Vec<String> = row.jct.iter().map(|(_, ci)| fmt_ci(ci)).collect();
            let units = if row.over_windows { "windows" } else { "seeds" };
            let p99 = row.p99.map_or("—".to_string(), fmt_ratio);
            let rho = row
                .rho_over_1
                .map_or("—".to_string(), |(mine, theirs)| format!("{:.1}% / {:.1}%", 100.0 * mine, 100.0 * theirs));
            let holds = if set.is_held_out() {
                row.beats_by(&c.held_out_rivals, c.held_out_margin)
            } else {
                row.no_worse(c.no_worse_high)
            };
            let _ = writeln!(
                md,
                "| {} | {units} | {} | {p99} | {rho} | {} |",
                row.scenario.scenario.name,
                cells.join(" | "),
                if holds { "yes" } else { "no" }
            );
        }
        md.push('\n');
    }

    fn write_candidate_verdict(&self, md: &mut String, c: &CandidateDef, rows: &[CandidateRow], set: ScenarioSet) {
        let n = rows.len();
        let tails = rows.iter().filter(|r| r.tails_within(c.tails_within)).count();
        let tails_line = format!(
            "p99 JCT and share of jobs with ρ > 1 within {:.0}% of `{}`'s on {tails} of {n}",
            100.0 * (c.tails_within - 1.0),
            c.tails_against
        );
        let line = if set.is_held_out() {
            let won = rows.iter().filter(|r| r.beats_by(&c.held_out_rivals, c.held_out_margin)).count();
            let workloads: Vec<&str> = self.workload_wins(c, rows, set);
            let mut name = set.label().to_string();
            name[..1].make_ascii_uppercase();
            format!(
                "**{name}:** at least {:.0}% below {} on {won} of {n} scenarios; workloads won on every one of their scenarios: {} ({}); {tails_line}.",
                100.0 * (1.0 - c.held_out_margin),
                quoted(&c.held_out_rivals),
                workloads.len(),
                if workloads.is_empty() { "none".to_string() } else { workloads.join(", ") }
            )
        } else {
            let held = rows.iter().filter(|r| r.no_worse(c.no_worse_high)).count();
            format!("**Development:** no worse than every rival on {held} of {n} scenarios; {tails_line}.")
        };
        let _ = writeln!(md, "{line}\n");
    }

    /// The workloads of a held-out set on every scenario of which the candidate beats its
    /// rivals.
    fn workload_wins<'a>(&'a self, c: &CandidateDef, rows: &[CandidateRow], set: ScenarioSet) -> Vec<&'a str> {
        self.plan
            .workloads
            .iter()
            .filter(|w| w.set == set)
            .filter(|w| {
                let mine: Vec<&CandidateRow> = rows.iter().filter(|r| r.scenario.scenario.workload == w.name).collect();
                !mine.is_empty() && mine.iter().all(|r| r.beats_by(&c.held_out_rivals, c.held_out_margin))
            })
            .map(|w| w.name.as_str())
            .collect()
    }
}

fn quoted(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" and ")
}
