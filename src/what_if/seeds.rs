//! The what-if repeated over seeds, in figures and in words (issue 32, point 6).
//!
//! One re-run without a preemption moves the mean JCT of the whole run, and that move is
//! mostly the rest of the run unfolding differently: the first page's run showed "−20.1%:
//! the preemption cost more than it gained" under a lesson where preempting cuts mean JCT
//! by a sixth. So the page concludes only from the what-if repeated on several seeds: the
//! mean of the per-seed changes with its 95% interval (Student's t, as the seeds are few),
//! and "cost more than it gained" or "paid off" only when that interval excludes zero.

use crate::protocol::SeedsOutcome;

/// The 97.5% quantiles of Student's t distribution for 1 to 30 degrees of freedom
/// (NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.2); beyond 30 the
/// normal's 1.96 is within 4% of them.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// The per-seed changes in mean JCT without the preemption, as shares of the run's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeedsSummary {
    pub n: usize,
    pub mean: f64,
    /// The 95% interval of the mean change; `None` with one seed.
    pub interval: Option<(f64, f64)>,
}

/// What the seeds say about the preemption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conclusion {
    /// Mean JCT lower without it, the interval below zero: it cost more than it gained.
    CostMore,
    /// Mean JCT higher without it, the interval above zero: it paid off.
    PaidOff,
    /// The interval includes zero.
    WithinNoise,
    /// One run: no interval.
    OneRun,
}

impl Conclusion {
    /// The name the page's tests read (`data-conclusion`).
    pub fn name(self) -> &'static str {
        match self {
            Conclusion::CostMore => "cost-more",
            Conclusion::PaidOff => "paid-off",
            Conclusion::WithinNoise => "within-noise",
            Conclusion::OneRun => "one-run",
        }
    }
}

/// The change of each seed's mean JCT without the preemption, as a share of its run's.
pub fn changes(outcome: &SeedsOutcome) -> Vec<f64> {
    outcome.seeds.iter().filter(|s| s.original_s > 0.0).map(|s| (s.rerun_s - s.original_s) / s.original_s).collect()
}

/// The mean change and its 95% interval; `None` without seeds.
pub fn summarize(changes: &[f64]) -> Option<SeedsSummary> {
    let n = changes.len();
    if n == 0 {
        return None;
    }
    let mean = changes.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Some(SeedsSummary { n, mean, interval: None });
    }
    let var = changes.iter().map(|c| (c - mean) * (c - mean)).sum::<f64>() / (n - 1) as f64;
    let t = T_975.get(n - 2).copied().unwrap_or(1.96);
    let half = t * (var / n as f64).sqrt();
    Some(SeedsSummary { n, mean, interval: Some((mean - half, mean + half)) })
}

impl SeedsSummary {
    /// The wording rule: a direction only when the interval excludes zero.
    pub fn conclusion(&self) -> Conclusion {
        match self.interval {
            None => Conclusion::OneRun,
            Some((_, high)) if high < 0.0 => Conclusion::CostMore,
            Some((low, _)) if low > 0.0 => Conclusion::PaidOff,
            Some(_) => Conclusion::WithinNoise,
        }
    }
}

/// A share as a signed percentage: `-3.1%`.
fn pct(x: f64) -> String {
    format!("{:+.1}%", x * 100.0).replace('-', "\u{2212}")
}

/// The seeds' conclusion in words. `rank` is the preemption's rank in the run (0 for the
/// first); `without_one` counts seeds where the policy made fewer preemptions.
pub fn conclusion_text(s: &SeedsSummary, rank: u32, without_one: usize) -> String {
    let nth = ordinal(rank + 1);
    let skipped = match without_one {
        0 => String::new(),
        1 => " (one more seed had no such preemption)".to_string(),
        k => format!(" ({k} more seeds had no such preemption)"),
    };
    let Some((low, high)) = s.interval else {
        return format!(
            "One run is all there is{skipped}: whether the change is the preemption's or noise cannot be told, so there is no conclusion."
        );
    };
    let head = format!(
        "Over {} seeds{skipped}, forbidding the policy's {nth} preemption changes mean JCT by {} on average (95% interval {} to {})",
        s.n,
        pct(s.mean),
        pct(low),
        pct(high)
    );
    match s.conclusion() {
        Conclusion::CostMore => {
            format!("{head}: the interval is below zero, so the preemption cost more than it gained.")
        }
        Conclusion::PaidOff => format!("{head}: the interval is above zero, so the preemption paid off."),
        _ => format!(
            "{head}: the interval includes zero, so the effect is within noise: neither lower nor higher is borne out."
        ),
    }
}

/// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::SeedWhatIf;

    fn summary(changes: &[f64]) -> SeedsSummary {
        summarize(changes).unwrap()
    }

    #[test]
    fn the_interval_is_the_mean_plus_or_minus_t_times_the_standard_error() {
        // Mean 0.1, sample sd 0.1 over 4 seeds: half-width 3.182 · 0.1 / 2.
        let s = summary(&[0.0, 0.1, 0.1, 0.2]);
        let (low, high) = s.interval.unwrap();
        let sd = (0.02f64 / 3.0).sqrt();
        assert!((s.mean - 0.1).abs() < 1e-12);
        assert!((high - s.mean - 3.182 * sd / 2.0).abs() < 1e-12);
        assert!((s.mean - low - 3.182 * sd / 2.0).abs() < 1e-12);
        assert_eq!(summarize(&[]), None);
        assert_eq!(summary(&[0.3]).interval, None);
    }

    #[test]
    fn a_direction_is_concluded_only_when_the_interval_excludes_zero() {
        let cost = summary(&[-0.20, -0.15, -0.18, -0.22, -0.17, -0.19, -0.21, -0.16]);
        assert_eq!(cost.conclusion(), Conclusion::CostMore);
        let text = conclusion_text(&cost, 0, 0);
        assert!(text.starts_with("Over 8 seeds, forbidding the policy's 1st preemption changes mean JCT by \u{2212}18.5% on average (95% interval \u{2212}"), "{text}");
        assert!(text.ends_with("so the preemption cost more than it gained."), "{text}");
        let paid = summary(&[0.05, 0.08, 0.06, 0.07]);
        assert_eq!(paid.conclusion(), Conclusion::PaidOff);
        assert!(conclusion_text(&paid, 4, 0).ends_with("so the preemption paid off."));
        // The first page's single run said −20.1%; with seeds that go both ways it is noise.
        let noise = summary(&[-0.201, 0.05, 0.12, -0.03, 0.08, -0.10, 0.02, 0.04]);
        assert_eq!(noise.conclusion(), Conclusion::WithinNoise);
        let text = conclusion_text(&noise, 1, 2);
        assert!(
            text.contains("Over 8 seeds (2 more seeds had no such preemption), forbidding the policy's 2nd preemption"),
            "{text}"
        );
        assert!(text.contains("the effect is within noise"), "{text}");
        assert!(!text.contains("cost more than it gained") && !text.contains("paid off"), "{text}");
        let one = summary(&[-0.201]);
        assert_eq!(one.conclusion(), Conclusion::OneRun);
        let text = conclusion_text(&one, 0, 0);
        assert!(text.contains("cannot be told") && !text.contains("cost more"), "{text}");
    }

    #[test]
    fn changes_are_shares_of_each_seeds_own_run() {
        let seed = |seed, original_s, rerun_s| SeedWhatIf { seed, original_s, rerun_s };
        let outcome = SeedsOutcome { seeds: vec![seed(1, 100.0, 80.0), seed(2, 50.0, 55.0)], without_one: vec![3] };
        let c = changes(&outcome);
        assert!((c[0] + 0.2).abs() < 1e-12 && (c[1] - 0.1).abs() < 1e-12);
        assert_eq!(
            [ordinal(1), ordinal(2), ordinal(3), ordinal(11), ordinal(22), ordinal(113)],
            ["1st", "2nd", "3rd", "11th", "22nd", "113th"]
        );
    }
}
