//! The primary claims: a few ratios named in the plan before the runs, each tested with the
//! bootstrap over trace windows and corrected for multiplicity (Holm), and the report's
//! sections that say what every interval covers.
//!
//! Why windows: on a Philly window a seed only redraws which model each job trains; the
//! arrivals, sizes and durations are the trace's. An interval over seeds therefore says how
//! much the figure moves with the model draw on those very jobs, not how much it moves with
//! the jobs, and the swing between windows is larger (issue 21: `dally` ÷
//! `consolidate:migrate=on` 0.92, 1.03 and 1.08 on three windows, outside every seed
//! interval). The window bootstrap treats windows as the sampled units: each window's value
//! is the mean over its seeds, windows are drawn with replacement, and the ratio of means
//! over the drawn windows is one replicate. On a synthetic workload (one window) a seed
//! draws the whole trace, so there the seeds are the sampled units.

use super::aggregate::{Report, Results, RATIO_FLOOR_S};
use super::execute::{metric_index, METRICS};
use super::plan::{ClaimDef, ScenarioSet, TraceRef};
use super::report::{fmt_ci, fmt_ratio, header, label};
use super::stats::{bootstrap_p, RatioCi, Resamples};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The family-wise error rate the primary claims are held to.
pub const CLAIM_ALPHA: f64 = 0.05;

/// A primary claim as the runs answer it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClaimResult {
    pub claim: ClaimDef,
    /// The sampled units of the interval and the p-value: `windows`, or `seeds` on a
    /// scenario of one window (a synthetic trace, which each seed draws anew).
    pub units: String,
    /// How many units were resampled.
    pub count: u32,
    /// The ratio of means with its interval over `units`.
    pub ci: RatioCi,
    /// The interval over seeds, the windows fixed (the model draw only).
    pub seed_ci: RatioCi,
    /// Two-sided bootstrap p-value of "the ratio is 1" ([`bootstrap_p`]).
    pub p: f64,
    /// Holm's adjusted p-value over all the plan's claims.
    pub holm_p: f64,
    /// The ratio is below 1 and the adjusted p-value at most [`CLAIM_ALPHA`].
    pub holds: bool,
}

impl ClaimResult {
    /// "yes"; "no"; or, when the ratio is above 1 and the adjusted p at most
    /// [`CLAIM_ALPHA`], "no: the reverse holds" (the baseline is the better one, and the
    /// same test says so).
    pub fn verdict(&self) -> &'static str {
        if self.holds {
            "yes"
        } else if self.ci.ratio.is_some_and(|x| x > 1.0) && self.holm_p <= CLAIM_ALPHA {
            "no: the reverse holds"
        } else {
            "no"
        }
    }
}

/// Holm's step-down adjustment (Holm, "A simple sequentially rejective multiple test
/// procedure", Scand. J. Statist. 6(2), 1979): with the m p-values sorted ascending, the
/// i-th (from 1) becomes the largest of (m − j + 1)·p₍ⱼ₎ over j ≤ i, at most 1. Rejecting
/// where the adjusted value is at most α holds the family-wise error rate at α. NaN counts
/// as 1 (no evidence). The result is in the order given.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let clean: Vec<f64> = p.iter().map(|&x| if x.is_nan() { 1.0 } else { x }).collect();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| clean[a].total_cmp(&clean[b]).then(a.cmp(&b)));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * clean[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// Tests every claim of the plan. A claim names a main-grid scenario and policies of the
/// main grid; the plan is code, so a claim that does not is a bug of the plan.
pub(super) fn evaluate_claims(r: &Results) -> Vec<ClaimResult> {
    let plan = r.plan;
    let b = &plan.bootstrap;
    let mut results: Vec<ClaimResult> = plan
        .claims
        .iter()
        .map(|claim| {
            let s = plan
                .main
                .iter()
                .copied()
                .find(|&s| plan.scenarios[s].name == claim.scenario)
                .unwrap_or_else(|| panic!("claim on {}: not a main-grid scenario", claim.scenario));
            for p in [&claim.policy, &claim.baseline] {
                assert!(plan.policies.contains(p), "claim on {}: {p} is not in the main grid", claim.scenario);
            }
            let m = metric_index(&claim.metric);
            assert!(METRICS[m].ratio, "claim on {}: {} has no ratios", claim.scenario, claim.metric);
            let def = &plan.scenarios[s];
            let seeds = Resamples::draw(def.seeds.len(), b.resamples, b.seed, b.confidence);
            let seed_series = |p: &str| r.series(s, p, m);
            let seed_ci =
                seeds.ratio_of_means(&seed_series(&claim.policy), &seed_series(&claim.baseline), RATIO_FLOOR_S);
            // The claims' own draw: as many resamples as the window intervals, so that the
            // p-values near Holm's thresholds are well resolved (docs/EXPERIMENTS.md).
            let (units, count, (ci, replicates)) = if def.window_count() > 1 {
                let w = &r.window_resamples[&def.window_count()];
                let series = |p: &str| r.window_series(s, p, m);
                (
                    "windows",
                    def.window_count(),
                    w.ratio_with_replicates(&series(&claim.policy), &series(&claim.baseline), RATIO_FLOOR_S),
                )
            } else {
                let many = Resamples::draw(def.seeds.len(), b.window_draws(), b.seed, b.confidence);
                (
                    "seeds",
                    def.seeds.len(),
                    many.ratio_with_replicates(
                        &seed_series(&claim.policy),
                        &seed_series(&claim.baseline),
                        RATIO_FLOOR_S,
                    ),
                )
            };
            ClaimResult {
                claim: claim.clone(),
                units: units.to_string(),
                count: count as u32,
                ci,
                seed_ci,
                p: bootstrap_p(&replicates),
                holm_p: f64::NAN,
                holds: false,
            }
        })
        .collect();
    let adjusted = holm(&results.iter().map(|c| c.p).collect::<Vec<_>>());
    for (c, h) in results.iter_mut().zip(adjusted) {
        c.holm_p = h;
        c.holds = c.ci.ratio.is_some_and(|x| x < 1.0) && h <= CLAIM_ALPHA;
    }
    results
}

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
                "Named in the plan before the runs (`crates/proxima-core/src/experiment/paper.rs`). Each ratio is of means (below 1: the policy is lower). The interval and p-value come from {} resamples of the trace windows (each window's value the mean over its seeds; on a synthetic scenario, of the seeds, each a whole trace); p is two-sided (the ratio is 1), Holm-adjusted over the {} claims, and a claim holds when its ratio is below 1 and its adjusted p is at most {CLAIM_ALPHA} (\"the reverse holds\": the ratio is above 1 at that level). The seed interval, windows fixed, is shown beside it for comparison.\n",
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
            if self.split_is_disjoint() {
                "no development window shares a job with a held-out one"
            } else {
                "**some development and held-out windows share jobs**"
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

    /// Whether no Philly window of a development workload overlaps one of a held-out
    /// workload.
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
        let held = spans(ScenarioSet::HeldOut);
        spans(ScenarioSet::Development).iter().all(|d| held.iter().all(|h| d.1 <= h.0 || h.1 <= d.0))
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
    fn holm_by_hand() {
        // p = (0.01, 0.04, 0.03, 0.005), m = 4. Sorted: 0.005, 0.01, 0.03, 0.04.
        // Step-down: 4·0.005 = 0.02; 3·0.01 = 0.03; 2·0.03 = 0.06; 1·0.04 = 0.04, raised to
        // 0.06 by the running maximum. Back in order: 0.03, 0.06, 0.06, 0.02. At α = 0.05
        // the first and last hold; Bonferroni (4·p) would give 0.04, 0.16, 0.12, 0.02.
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        let want = [0.03, 0.06, 0.06, 0.02];
        for (a, w) in adjusted.iter().zip(want) {
            assert!((a - w).abs() < 1e-12, "{adjusted:?}");
        }
        // Capped at 1, NaN as 1, and a single test unchanged.
        assert_eq!(holm(&[0.6, 0.7, f64::NAN]), vec![1.0, 1.0, 1.0]);
        assert_eq!(holm(&[0.02]), vec![0.02]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn verdicts() {
        let claim = |ratio: f64, holm_p: f64| ClaimResult {
            claim: ClaimDef {
                policy: "a".into(),
                baseline: "b".into(),
                scenario: "s".into(),
                metric: "avg_jct_s".into(),
            },
            units: "windows".into(),
            count: 10,
            ci: RatioCi { ratio: Some(ratio), low: ratio, high: ratio },
            seed_ci: RatioCi { ratio: Some(ratio), low: ratio, high: ratio },
            p: holm_p,
            holm_p,
            holds: ratio < 1.0 && holm_p <= CLAIM_ALPHA,
        };
        assert_eq!(claim(0.9, 0.01).verdict(), "yes");
        assert_eq!(claim(0.9, 0.2).verdict(), "no");
        assert_eq!(claim(1.2, 0.2).verdict(), "no");
        assert_eq!(claim(1.2, 0.01).verdict(), "no: the reverse holds");
    }

    #[test]
    fn p_value_formatting_names_the_resolution() {
        assert_eq!(fmt_p(0.0, 10_000), "< 0.0001");
        assert_eq!(fmt_p(0.0123, 10_000), "0.0123");
        assert_eq!(fmt_p(f64::NAN, 10_000), "—");
    }
}
