//! Statistics over seeds and trace windows: the spread of a metric, ratios of means with
//! percentile bootstrap confidence intervals, and the bootstrap p-value of a ratio.
//!
//! The same resampling serves both units: a series is one value per seed (each the mean
//! over the scenario's windows) or one per window (each the mean over its seeds), and
//! [`Resamples::draw`] and [`Resamples::draw_windows`] draw their positions from separate
//! streams. What each interval covers is said in [`super::claims`].
//!
//! A ratio compares two policies run on the same seeds (the same jobs and models), so
//! seeds are resampled in pairs: each resample draws `n` seed positions with replacement
//! and takes mean(policy) / mean(baseline) over them. The ratio reported is that of the
//! means over all seeds, never a mean of per-seed ratios (which one seed with a tiny
//! baseline can blow up, and which is biased upwards by Jensen's inequality). The interval
//! is the percentile interval of the resampled ratios (Efron and Tibshirani, "An
//! Introduction to the Bootstrap", 1993, ch. 13). The resampled positions come from one
//! seeded [`Rng`] and are the same for every comparison with the same number of seeds, so
//! a report is a pure function of its runs.

use proxima_core::metrics::nearest_rank_percentile;
use proxima_core::rng::Rng;
use serde::{Deserialize, Serialize};

/// Baselines whose mean is below this many seconds get no ratio: every metric with ratios
/// is a time, and a second summed over a whole run is rounding. (Here, with the ratios,
/// because both the aggregation and the claims take ratios with it.)
pub const RATIO_FLOOR_S: f64 = 1.0;

/// Mean and spread over seeds. Figures of no seeds are NaN, written `null`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    #[serde(deserialize_with = "null_as_nan")]
    pub mean: f64,
    /// Sample standard deviation (0 with one seed).
    pub sd: f64,
    #[serde(deserialize_with = "null_as_nan")]
    pub min: f64,
    #[serde(deserialize_with = "null_as_nan")]
    pub max: f64,
}

/// JSON has no NaN or infinity: serde_json writes them as `null`. These read it back as
/// what it stood for here, so a report read from `report.json` renders the same text and
/// figures as the one that wrote it.
fn null_as_nan<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

fn null_as_infinity<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

impl Stat {
    pub fn of(values: &[f64]) -> Stat {
        if values.is_empty() {
            return Stat { mean: f64::NAN, sd: 0.0, min: f64::NAN, max: f64::NAN };
        }
        let n = values.len() as f64;
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

/// A ratio of means with its confidence interval. A bound is infinite when enough
/// resamples draw only seeds where the baseline is 0 (written `null`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatioCi {
    /// mean(policy) / mean(baseline) over all seeds; `None` when the baseline's mean is
    /// below the metric's floor (a ratio to nothing is no information).
    pub ratio: Option<f64>,
    #[serde(deserialize_with = "null_as_infinity")]
    pub low: f64,
    #[serde(deserialize_with = "null_as_infinity")]
    pub high: f64,
}

impl RatioCi {
    /// Whether the interval contains 1: the seeds do not show a difference.
    pub fn includes_one(&self) -> bool {
        self.ratio.is_some() && self.low <= 1.0 && self.high >= 1.0
    }
}

/// The resampled seed positions: `resamples` rows of `n` positions each.
#[derive(Clone, Debug, PartialEq)]
pub struct Resamples {
    pub n: usize,
    pub rows: Vec<Vec<u32>>,
    pub confidence: f64,
}

impl Resamples {
    /// Draws `resamples` rows of `n` positions in `0..n` with replacement from
    /// `Rng::for_item(seed, n, 0)`: the rows depend only on the seed and `n`.
    pub fn draw(n: usize, resamples: u32, seed: u64, confidence: f64) -> Resamples {
        Self::draw_from(Rng::for_item(seed, n as u64, 0), n, resamples, confidence)
    }

    /// As [`Resamples::draw`], from `Rng::for_item(seed, n, 1)`: the resamples of windows,
    /// independent of the seeds' even when there are as many windows as seeds.
    pub fn draw_windows(n: usize, resamples: u32, seed: u64, confidence: f64) -> Resamples {
        Self::draw_from(Rng::for_item(seed, n as u64, 1), n, resamples, confidence)
    }

    fn draw_from(mut rng: Rng, n: usize, resamples: u32, confidence: f64) -> Resamples {
        let rows = (0..resamples).map(|_| (0..n).map(|_| rng.below(n as u64) as u32).collect()).collect();
        Resamples { n, rows, confidence }
    }

    /// The ratio of means of `policy` to `baseline` (paired by position) with its
    /// percentile interval; none when the baseline's mean is below `floor` in absolute
    /// value (a communication overhead of a millisecond summed over thousands of jobs is
    /// rounding, and a ratio to it says nothing).
    pub fn ratio_of_means(&self, policy: &[f64], baseline: &[f64], floor: f64) -> RatioCi {
        self.ratio_with_replicates(policy, baseline, floor).0
    }

    /// [`Resamples::ratio_of_means`] and the resampled ratios it was read from, sorted
    /// (empty when there is no ratio).
    pub fn ratio_with_replicates(&self, policy: &[f64], baseline: &[f64], floor: f64) -> (RatioCi, Vec<f64>) {
        assert_eq!(policy.len(), self.n, "one value per position");
        assert_eq!(baseline.len(), self.n, "one value per position");
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (p, b) = (mean(policy), mean(baseline));
        if b == 0.0 || b.abs() < floor {
            return (RatioCi { ratio: None, low: f64::INFINITY, high: f64::INFINITY }, Vec::new());
        }
        let mut ratios: Vec<f64> = self
            .rows
            .iter()
            .map(|row| {
                let (mut sp, mut sb) = (0.0, 0.0);
                for &i in row {
                    sp += policy[i as usize];
                    sb += baseline[i as usize];
                }
                if sb == 0.0 {
                    if sp == 0.0 {
                        1.0
                    } else {
                        f64::INFINITY
                    }
                } else {
                    sp / sb
                }
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        let tail = 100.0 * (1.0 - self.confidence) / 2.0;
        let ci = RatioCi {
            ratio: Some(p / b),
            low: nearest_rank_percentile(&ratios, tail),
            high: nearest_rank_percentile(&ratios, 100.0 - tail),
        };
        (ci, ratios)
    }
}

/// The two-sided bootstrap p-value of "the ratio is 1" from resampled ratios: twice the
/// smaller of the shares of replicates at or above 1 and at or below 1, at most 1 (the
/// percentile interval at confidence 1 − p just reaches 1; Efron and Tibshirani 1993,
/// ch. 15-16). A replicate of exactly 1 counts on both sides, so identical policies get
/// p = 1. NaN without replicates.
pub fn bootstrap_p(replicates: &[f64]) -> f64 {
    if replicates.is_empty() {
        return f64::NAN;
    }
    let n = replicates.len() as f64;
    let above = replicates.iter().filter(|&&r| r >= 1.0).count() as f64 / n;
    let below = replicates.iter().filter(|&&r| r <= 1.0).count() as f64 / n;
    (2.0 * above.min(below)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_by_hand() {
        let s = Stat::of(&[1.0, 2.0, 3.0]);
        assert_eq!((s.mean, s.sd, s.min, s.max), (2.0, 1.0, 1.0, 3.0));
        assert_eq!(Stat::of(&[5.0]).sd, 0.0);
    }

    #[test]
    fn ratio_of_means_not_mean_of_ratios() {
        // Seed 1: 1 against 0.001 (a ratio of 1,000); seed 2: 10 against 10. The mean of
        // ratios is 500.5; the ratio of means is 11 / 10.001.
        let r = Resamples::draw(2, 200, 7, 0.95);
        let ci = r.ratio_of_means(&[1.0, 10.0], &[0.001, 10.0], 0.0);
        assert!((ci.ratio.unwrap() - 11.0 / 10.001).abs() < 1e-12);
        // Every resample is one of {1000 (both seed 1), 11/10.001, 1 (both seed 2)}.
        assert!(ci.low >= 1.0 - 1e-12 && ci.high <= 1000.0 + 1e-9);
    }

    #[test]
    fn identical_policies_give_exactly_one_and_differences_exclude_it() {
        let r = Resamples::draw(10, 2000, 1, 0.95);
        let base: Vec<f64> = (1..=10).map(|i| 100.0 + i as f64).collect();
        let same = r.ratio_of_means(&base, &base, 1.0);
        assert_eq!((same.ratio, same.low, same.high), (Some(1.0), 1.0, 1.0));
        assert!(same.includes_one());
        // 20% better in every seed: every resample is exactly 0.8.
        let better: Vec<f64> = base.iter().map(|b| 0.8 * b).collect();
        let ci = r.ratio_of_means(&better, &base, 1.0);
        assert!((ci.low - 0.8).abs() < 1e-12 && (ci.high - 0.8).abs() < 1e-12);
        assert!(!ci.includes_one());
        // Noisy: better in half the seeds, worse in the other half; the interval spans 1.
        let mixed: Vec<f64> =
            base.iter().enumerate().map(|(i, b)| if i % 2 == 0 { 0.7 * b } else { 1.3 * b }).collect();
        let ci = r.ratio_of_means(&mixed, &base, 1.0);
        assert!(ci.low < 1.0 && ci.high > 1.0, "{ci:?}");
    }

    #[test]
    fn resamples_are_deterministic_and_cover_positions() {
        let a = Resamples::draw(10, 50, 3, 0.95);
        assert_eq!(a, Resamples::draw(10, 50, 3, 0.95));
        assert_ne!(a.rows, Resamples::draw(10, 50, 4, 0.95).rows);
        assert!(a.rows.iter().flatten().all(|&i| i < 10));
        let distinct: std::collections::BTreeSet<u32> = a.rows.iter().flatten().copied().collect();
        assert_eq!(distinct.len(), 10);
    }

    #[test]
    fn zero_baseline_has_no_ratio() {
        let r = Resamples::draw(3, 100, 1, 0.95);
        let ci = r.ratio_of_means(&[1.0, 2.0, 3.0], &[0.0, 0.0, 0.0], 0.0);
        assert_eq!(ci.ratio, None);
        assert!(!ci.includes_one());
        // Below the floor: rounding, not a baseline.
        assert_eq!(r.ratio_of_means(&[5.0, 5.0, 5.0], &[1e-3, 2e-3, 0.0], 1.0).ratio, None);
        // One seed at 0 of three: resamples of only that seed give an infinite ratio.
        let ci = Resamples::draw(3, 2000, 1, 0.95).ratio_of_means(&[1.0, 1.0, 1.0], &[0.0, 3.0, 3.0], 1.0);
        assert_eq!(ci.ratio, Some(0.5));
        assert_eq!(ci.high, f64::INFINITY, "1 in 27 resamples draws only the first seed");
    }

    #[test]
    fn non_finite_figures_survive_json() {
        let ci = RatioCi { ratio: Some(0.5), low: 0.25, high: f64::INFINITY };
        let text = serde_json::to_string(&ci).unwrap();
        assert_eq!(text, r#"{"ratio":0.5,"low":0.25,"high":null}"#);
        assert_eq!(serde_json::from_str::<RatioCi>(&text).unwrap(), ci);
        let empty = Stat::of(&[]);
        let back: Stat = serde_json::from_str(&serde_json::to_string(&empty).unwrap()).unwrap();
        assert!(back.mean.is_nan() && back.min.is_nan() && back.sd == 0.0);
    }

    #[test]
    fn window_bootstrap_is_wide_when_windows_disagree() {
        // Ten windows: the policy 30% faster on five, 30% slower on the other five, the
        // baseline the same everywhere. The ratio of means is exactly 1, and a resample
        // drawing mostly fast (or slow) windows moves it far: with n = 10 the 95% interval
        // reaches about ±1.96 · 0.3 / √10 ≈ ±0.19.
        let r = Resamples::draw_windows(10, 10_000, 11, 0.95);
        let base = vec![1000.0; 10];
        let policy: Vec<f64> = (0..10).map(|i| if i < 5 { 700.0 } else { 1300.0 }).collect();
        let (ci, replicates) = r.ratio_with_replicates(&policy, &base, 1.0);
        assert_eq!(ci.ratio, Some(1.0));
        assert!(ci.low < 0.88 && ci.high > 1.12, "{ci:?}");
        assert!(ci.low > 0.7 && ci.high < 1.3, "within the single windows: {ci:?}");
        assert!(bootstrap_p(&replicates) > 0.5, "no evidence either way");
        // Every window 10% faster: every replicate is 0.9, a zero-width interval, and no
        // replicate at or above 1.
        let faster: Vec<f64> = base.iter().map(|b| 0.9 * b).collect();
        let (ci, replicates) = r.ratio_with_replicates(&faster, &base, 1.0);
        assert!((ci.low - 0.9).abs() < 1e-12 && (ci.high - 0.9).abs() < 1e-12, "{ci:?}");
        assert_eq!(bootstrap_p(&replicates), 0.0);
        // Identical windows, whatever the policy's level in each, give exactly one ratio.
        let levels: Vec<f64> = (1..=10).map(|i| 100.0 * i as f64).collect();
        let same = r.ratio_of_means(&levels, &levels, 1.0);
        assert_eq!((same.ratio, same.low, same.high), (Some(1.0), 1.0, 1.0));
    }

    #[test]
    fn window_resamples_are_deterministic_and_apart_from_the_seeds() {
        let a = Resamples::draw_windows(10, 100, 3, 0.95);
        assert_eq!(a, Resamples::draw_windows(10, 100, 3, 0.95));
        assert_ne!(a.rows, Resamples::draw_windows(10, 100, 4, 0.95).rows);
        assert_ne!(a.rows, Resamples::draw(10, 100, 3, 0.95).rows, "windows and seeds draw apart");
        let policy: Vec<f64> = (0..10).map(|i| 90.0 + 3.0 * i as f64).collect();
        let base = vec![100.0; 10];
        assert_eq!(a.ratio_of_means(&policy, &base, 1.0), a.ratio_of_means(&policy, &base, 1.0));
    }

    #[test]
    fn bootstrap_p_by_hand() {
        // Ten replicates, two at or above 1: 2 · 2/10 = 0.4. One exactly 1 counts on both
        // sides: above 3/10, below 8/10, p = 0.6.
        let r = [0.8, 0.85, 0.9, 0.9, 0.92, 0.95, 0.97, 0.99, 1.01, 1.2];
        assert!((bootstrap_p(&r) - 0.4).abs() < 1e-12);
        let r = [0.8, 0.85, 0.9, 0.9, 0.92, 0.95, 0.97, 1.0, 1.01, 1.2];
        assert!((bootstrap_p(&r) - 0.6).abs() < 1e-12);
        assert_eq!(bootstrap_p(&[1.0, 1.0]), 1.0);
        assert!(bootstrap_p(&[]).is_nan());
    }
}
