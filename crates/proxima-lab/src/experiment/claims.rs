//! The primary claims: a few ratios named in the plan before the runs, each tested with the
//! bootstrap over trace windows and corrected for multiplicity (Holm). The report's section
//! on them, and on what every interval covers, is `claims_report.rs`: the claims are part
//! of the aggregate, which the report's text reads, so their text sits above both.
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

use super::execute::{metric_index, METRICS};
use super::plan::ClaimDef;
use super::results::Results;
use super::stats::{bootstrap_p, RatioCi, Resamples, RATIO_FLOOR_S};
use serde::{Deserialize, Serialize};

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
}
