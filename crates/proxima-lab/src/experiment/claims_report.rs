//! The report's "Primary claims" section: the claims table ([`super::claims`]), then what
//! every interval of the report covers.
//!
//! Apart from `claims.rs` because the claims are evaluated while the runs are aggregated
//! (`aggregate.rs` calls [`super::claims::evaluate_claims`]) and written once the report
//! exists; in one file the aggregation and the claims would import each other.

use super::aggregate::Report;
use super::claims::CLAIM_ALPHA;
use super::plan::{ScenarioSet, TraceRef};
use super::report::{fmt_ci, fmt_ratio, header, label};
use std::fmt::Write;

/// A p-value, or `< 1/B` when no replicate of `B` fell on the other side of 1.
fn fmt_p(p: f64, resamples: u32) -> String {
    if p.is_nan() {
        "—".to_string()
    } else if p == 0.0 {
        format!("< {}", 1.0 / resamples.max(1) as f64)
    } else {
        format!("{p:.4}")
    }
}

impl Report {
    /// "Primary claims": the claims table, then what every interval of the report covers.
    pub(super) fn write_claims(&self, md: &mut String) {
        let b = &self.plan.bootstrap;
        if !self.claims.is_empty() {
            let _ = writeln!(md, "## Primary claims\n");
            let _ = writeln!(
                md,
                "Named in the plan before the runs (`crates/proxima-lab/src/experiment/paper.rs`). Each ratio is of means (below 1: the policy is lower). The interval and p-value come from {} resamples of the trace windows (each window's value the mean over its seeds; on a synthetic scenario, of the seeds, each a whole trace); p is two-sided (the ratio is 1), Holm-adjusted over the {} claims, and a claim holds when its ratio is below 1 and its adjusted p is at most {CLAIM_ALPHA} (\"the reverse holds\": the ratio is above 1 at that level). The seed interval, windows fixed, is shown beside it for comparison.\n",
                b.window_draws(),
                self.claims.len()
            );
            header(md, &["claim", "ratio", "interval (units)", "seed interval", "p", "Holm p", "holds"]);
            for c in &self.claims {
                let d = &c.claim;
                let _ = writeln!(
                    md,
                    "| `{}` beats `{}` on {}, {} | {} | [{}–{}] ({} {}) | [{}–{}] | {} | {} | {} |",
                    d.policy,
                    d.baseline,
                    d.scenario,
                    label(&d.metric),
                    c.ci.ratio.map_or("—".to_string(), fmt_ratio),
                    fmt_ratio(c.ci.low),
                    fmt_ratio(c.ci.high),
                    c.count,
                    c.units,
                    fmt_ratio(c.seed_ci.low),
                    fmt_ratio(c.seed_ci.high),
                    fmt_p(c.p, b.window_draws()),
                    fmt_p(c.holm_p, b.window_draws()),
                    c.verdict()
                );
            }
            md.push('\n');
        }
        self.write_interval_coverage(md);
    }

    fn write_interval_coverage(&self, md: &mut String) {
        let b = &self.plan.bootstrap;
        let windowed: Vec<_> = self.plan.workloads.iter().filter(|w| w.windows.len() > 1).collect();
        let _ = writeln!(
            md,
            "**What each interval covers.** Every interval is a {:.0}% percentile bootstrap interval of a ratio of means.",
            100.0 * b.confidence
        );
        if !windowed.is_empty() {
            let _ = writeln!(
                md,
                "- *Window intervals* (the claims above and the table of windows below) resample the trace windows of a Philly scenario with replacement ({} resamples): they cover which stretch of the trace was run, the model draw averaged within each window.",
                b.window_draws()
            );
        }
        let _ = writeln!(
            md,
            "- *Seed intervals* (every other bracket of this report, summary and full tables included) resample seeds in pairs ({} resamples), each seed's value the mean over the scenario's windows. On Philly scenarios they cover only the model each job is given: the jobs are fixed. On synthetic scenarios a seed draws the whole trace, so they cover the jobs too.",
            b.resamples
        );
        let _ = writeln!(
            md,
            "- Outside the primary claims every interval is **exploratory and uncorrected** for multiplicity: with thousands of them, some exclude 1 by chance.\n"
        );
        if windowed.is_empty() {
            return;
        }
        let _ = writeln!(
            md,
            "**Windows.** Each Philly workload runs windows of the trace in submission order, every window under every seed; {}:",
            match (self.split_is_disjoint(), self.has_set(ScenarioSet::FreshHeldOut)) {
                (true, false) => "no development window shares a job with a held-out one",
                (true, true) => "no development window shares a job with a held-out one, and no fresh held-out window with either",
                (false, false) => "**some development and held-out windows share jobs**",
                (false, true) => "**some windows of different sets share jobs**",
            }
        );
        for w in windowed {
            let spans: Vec<String> = w.windows.iter().map(|t| t.label().replace("Philly jobs ", "")).collect();
            let _ = writeln!(
                md,
                "- `{}` ({}): {} windows, jobs {}.",
                w.name,
                w.set.label(),
                w.windows.len(),
                spans.join(", ")
            );
        }
        md.push('\n');
    }

    /// Whether no Philly window of a workload overlaps one of a workload of another set
    /// (development, held-out, fresh held-out).
    fn split_is_disjoint(&self) -> bool {
        let spans = |set: ScenarioSet| -> Vec<(u32, u32)> {
            self.plan
                .workloads
                .iter()
                .filter(|w| w.set == set)
                .flat_map(|w| if w.windows.is_empty() { std::slice::from_ref(&w.trace) } else { &w.windows[..] })
                .filter_map(|t| match t {
                    TraceRef::Philly { skip, limit } => Some((*skip, skip + limit)),
                    TraceRef::Synthetic { .. } => None,
                })
                .collect()
        };
        // Every pair of different sets, the fresh held-out set included.
        let all = ScenarioSet::ALL.map(spans);
        let apart = |a: &[(u32, u32)], b: &[(u32, u32)]| a.iter().all(|x| b.iter().all(|y| x.1 <= y.0 || y.1 <= x.0));
        (0..all.len()).all(|i| (i + 1..all.len()).all(|j| apart(&all[i], &all[j])))
    }

    fn has_set(&self, set: ScenarioSet) -> bool {
        self.plan.workloads.iter().any(|w| w.set == set)
    }

    /// Per main-grid scenario of several windows, the subject against each baseline it is
    /// compared with: mean JCT ratio, window and seed intervals, and the range of the
    /// per-window ratios (the swing the seed interval does not see).
    pub(super) fn write_window_intervals(&self, md: &mut String) {
        let subject = &self.plan.subject;
        let rows: Vec<_> = self
            .scenarios
            .iter()
            .flat_map(|sc| sc.comparisons.iter().filter(|c| c.policy == *subject).map(move |c| (sc, c)))
            .filter(|(_, c)| c.windows.contains_key("avg_jct_s"))
            .collect();
        if rows.is_empty() {
            return;
        }
        let _ = writeln!(md, "## `{subject}` over trace windows (exploratory, uncorrected)\n");
        let _ = writeln!(md, "Mean JCT of `{subject}` ÷ each baseline on every Philly scenario: the window interval, the seed interval, and the lowest and highest ratio of a single window.\n");
        header(md, &["scenario", "baseline", "ratio [window interval]", "seed interval", "single windows"]);
        for (sc, c) in rows {
            let seed = &c.ratios["avg_jct_s"];
            let lowest = c.window_jct_ratios.iter().copied().fold(f64::INFINITY, f64::min);
            let highest = c.window_jct_ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let _ = writeln!(
                md,
                "| {} | `{}` | {} | [{}–{}] | {}–{} |",
                sc.scenario.name,
                c.baseline,
                fmt_ci(&c.windows["avg_jct_s"]),
                fmt_ratio(seed.low),
                fmt_ratio(seed.high),
                fmt_ratio(lowest),
                fmt_ratio(highest)
            );
        }
        md.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_value_formatting_names_the_resolution() {
        assert_eq!(fmt_p(0.0, 10_000), "< 0.0001");
        assert_eq!(fmt_p(0.0123, 10_000), "0.0123");
        assert_eq!(fmt_p(f64::NAN, 10_000), "—");
    }
}
