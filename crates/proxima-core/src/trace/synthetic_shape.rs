//! The shape of a synthetic trace's jobs: `shape=philly` (the default, [`super::synthetic`]'s
//! empirical distributions) or `shape=kalos|seren`, the two LLM-development clusters of the
//! Acme trace, reproduced from their published summary statistics.
//!
//! Acme (Hu et al. 2024, "Characterization of Large Language Model Development in the
//! Datacenter", NSDI '24; InternLM/AcmeTrace, `data/cluster_summary.csv`, CC BY 4.0) gives
//! per cluster, over its GPU jobs, the mean, median and largest GPU count and the mean,
//! median and longest run time. Those figures are all a shape is built from:
//!
//! - **GPU counts** are powers of two from 1 to the largest: one GPU with share `p1`, and
//!   the rest spread evenly over 2, 4, ..., the largest (log-uniform: multi-GPU requests in
//!   these clusters span three orders of magnitude, and no finer statistic is published).
//!   `p1` is solved so that the mean is the trace's; the median is then 1, as published,
//!   since `p1` > 1/2.
//! - **Run times** are lognormal with the trace's median, clamped to [1 s, the longest run
//!   time]; the spread σ is solved so that the clamped distribution's mean is the trace's.
//! - Sizes and run times are drawn independently. In the trace they are not: the clusters'
//!   GPU time per job (Kalos 267,904 GPU-s, Seren 32,404) is 8 and 4 times the product of
//!   the means, so large jobs ran longer. That is not reproduced.
//!
//! As with Philly, counts larger than the cluster are dropped and the other shares
//! renormalised, so a cluster smaller than 1,024 GPUs sees a smaller mean.

use crate::error::InputError;
use crate::rng::Rng;

/// An Acme cluster's published statistics over its GPU jobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AcmeStats {
    pub name: &'static str,
    pub gpu_jobs: u32,
    pub mean_gpus: f64,
    pub median_gpus: u32,
    pub max_gpus: u32,
    pub mean_run_s: f64,
    pub median_run_s: f64,
    pub max_run_s: f64,
}

/// Kalos (InternLM/AcmeTrace `data/cluster_summary.csv`: `gpu_job_num`, `avg_gpu_num`,
/// `med_gpu_num`, `max_gpu`, `avg_run_time_gpu`, `med_run_time_gpu`, `max_run_time_gpu`).
pub const KALOS: AcmeStats = AcmeStats {
    name: "kalos",
    gpu_jobs: 19_907,
    mean_gpus: 26.77,
    median_gpus: 1,
    max_gpus: 1024,
    mean_run_s: 1259.689,
    median_run_s: 124.0,
    max_run_s: 625_740.0,
};

/// Seren (same file and columns).
pub const SEREN: AcmeStats = AcmeStats {
    name: "seren",
    gpu_jobs: 663_813,
    mean_gpus: 5.68,
    median_gpus: 1,
    max_gpus: 1024,
    mean_run_s: 1414.335,
    median_run_s: 122.0,
    max_run_s: 1_209_604.0,
};

/// What a synthetic trace's jobs look like.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// Philly's empirical GPU counts and per-size run times (the default).
    Philly,
    /// An Acme cluster's summary statistics.
    Acme(AcmeStats),
}

const SHAPES: &str = "philly, kalos or seren";

/// Takes `shape=NAME` out of a synthetic spec, returning the rest and the shape (Philly
/// when absent), as [`super::tenant_mix::split_spec`] does for `tenants`.
pub fn split_spec(text: &str) -> Result<(String, Shape), InputError> {
    let (prefix, body) = match text.trim().strip_prefix("synthetic:") {
        Some(rest) => ("synthetic:", rest),
        None => ("", text.trim()),
    };
    let mut shape = None;
    let mut kept = Vec::new();
    for part in body.split(',') {
        match part.split_once('=') {
            Some((key, value)) if key.trim() == "shape" => {
                let found = match value.trim().to_ascii_lowercase().as_str() {
                    "philly" => Shape::Philly,
                    "kalos" => Shape::Acme(KALOS),
                    "seren" => Shape::Acme(SEREN),
                    other => return Err(InputError::new("shape", format!("expected {SHAPES}, got '{other}'"))),
                };
                if shape.replace(found).is_some() {
                    return Err(InputError::new("shape", "given twice"));
                }
            }
            _ => kept.push(part),
        }
    }
    Ok((format!("{prefix}{}", kept.join(",")), shape.unwrap_or(Shape::Philly)))
}

impl Shape {
    /// The name `shape=` takes.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Philly => "philly",
            Shape::Acme(stats) => stats.name,
        }
    }
}

impl AcmeStats {
    /// The GPU counts, 1 and every power of two up to the largest.
    fn sizes(&self) -> Vec<u32> {
        std::iter::successors(Some(1u32), |g| g.checked_mul(2)).take_while(|g| *g <= self.max_gpus).collect()
    }

    /// `p1`, the share of one-GPU jobs that makes the mean the trace's when the others are
    /// spread evenly over the larger sizes: `p1 + (1 − p1) · m = mean`, with `m` their mean.
    pub fn one_gpu_share(&self) -> f64 {
        let larger = &self.sizes()[1..];
        let m = larger.iter().map(|&g| g as f64).sum::<f64>() / larger.len() as f64;
        1.0 - (self.mean_gpus - 1.0) / (m - 1.0)
    }

    /// The GPU counts a cluster of `total_gpus` can run, with their shares (not
    /// renormalised: the draw is by weight).
    pub fn size_weights(&self, total_gpus: u32) -> (Vec<u32>, Vec<f64>) {
        let sizes = self.sizes();
        let p1 = self.one_gpu_share();
        let each = (1.0 - p1) / (sizes.len() - 1) as f64;
        sizes.into_iter().filter(|&g| g <= total_gpus.max(1)).map(|g| (g, if g == 1 { p1 } else { each })).unzip()
    }

    /// The mean of a lognormal with this median and spread `sigma`, clamped to
    /// [1 s, the longest run time]: `E[min(max(X, 1), M)]`.
    fn clamped_mean(&self, sigma: f64) -> f64 {
        let mu = libm::log(self.median_run_s);
        let phi = |z: f64| 0.5 * libm::erfc(-z / std::f64::consts::SQRT_2);
        // E[X; a < X < b] = e^(μ + σ²/2) (Φ((ln b − μ − σ²)/σ) − Φ((ln a − μ − σ²)/σ)).
        let (la, lb) = (0.0, libm::log(self.max_run_s));
        let inside = libm::exp(mu + sigma * sigma / 2.0)
            * (phi((lb - mu - sigma * sigma) / sigma) - phi((la - mu - sigma * sigma) / sigma));
        let below = phi((la - mu) / sigma);
        let above = 1.0 - phi((lb - mu) / sigma);
        inside + below * 1.0 + above * self.max_run_s
    }

    /// σ of the run-time lognormal: bisection for the clamped mean to equal the trace's
    /// (the clamped mean grows with σ over this range).
    pub fn run_time_sigma(&self) -> f64 {
        let (mut lo, mut hi) = (0.01, 5.0);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if self.clamped_mean(mid) < self.mean_run_s {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// A run time from the generator: the lognormal by Box–Muller, clamped.
    pub fn draw_run_s(&self, sigma: f64, rng: &mut Rng) -> f64 {
        let (u1, u2) = (rng.next_f64_open0(), rng.next_f64());
        let z = libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * std::f64::consts::PI * u2);
        (self.median_run_s * libm::exp(sigma * z)).clamp(1.0, self.max_run_s)
    }

    /// The mean run time the shape gives, for tests and docs.
    pub fn expected_mean_run_s(&self) -> f64 {
        self.clamped_mean(self.run_time_sigma())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::synthetic::{generate_shaped, SyntheticSpec};

    #[test]
    fn the_shape_is_a_key_of_its_own() {
        let (rest, shape) = split_spec("synthetic:jobs=10,shape=Kalos,load=0.5").unwrap();
        assert_eq!((rest.as_str(), shape), ("synthetic:jobs=10,load=0.5", Shape::Acme(KALOS)));
        assert_eq!(split_spec("jobs=3").unwrap().1, Shape::Philly);
        assert_eq!(split_spec("jobs=3,shape=seren").unwrap().1.name(), "seren");
        assert_eq!(split_spec("jobs=3,shape=helios").unwrap_err().field, "shape");
        assert_eq!(split_spec("jobs=3,shape=seren,shape=kalos").unwrap_err().field, "shape");
    }

    #[test]
    fn the_fitted_figures_are_the_published_ones() {
        for stats in [KALOS, SEREN] {
            let p1 = stats.one_gpu_share();
            // The mean of the sizes is the trace's exactly; the median is 1.
            let (sizes, weights) = stats.size_weights(u32::MAX);
            let mean: f64 = sizes.iter().zip(&weights).map(|(&g, w)| g as f64 * w).sum();
            assert!((mean - stats.mean_gpus).abs() < 1e-9, "{}: {mean}", stats.name);
            assert!(p1 > 0.5 && (weights.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{}: {p1}", stats.name);
            assert_eq!(*sizes.last().unwrap(), stats.max_gpus);
            assert!((stats.expected_mean_run_s() - stats.mean_run_s).abs() < 1e-6, "{}", stats.name);
        }
        // Kalos: 87.3% one-GPU jobs; Seren 97.7%.
        assert!((KALOS.one_gpu_share() - 0.8734).abs() < 1e-4, "{}", KALOS.one_gpu_share());
        assert!((SEREN.one_gpu_share() - 0.9770).abs() < 1e-4, "{}", SEREN.one_gpu_share());
    }

    /// The generated jobs' mean and median GPUs and run times against the published figures:
    /// within 5% for means (the heavy tails leave a sample of 200,000 about 1–2% from its
    /// expectation), exactly for the median GPU count, within 3% for the median run time.
    #[test]
    fn generated_jobs_reproduce_the_published_statistics() {
        for stats in [KALOS, SEREN] {
            let spec = SyntheticSpec { jobs: 200_000, load: 0.8, seed: 5 };
            let trace = generate_shaped(&spec, &Shape::Acme(stats), 2048);
            let n = trace.jobs.len() as f64;
            let mut gpus: Vec<u32> = trace.jobs.iter().map(|j| j.gpus).collect();
            let mut runs: Vec<f64> = trace
                .jobs
                .iter()
                .map(|j| match j.work {
                    crate::trace::TraceWork::DurationS(d) => d,
                    crate::trace::TraceWork::Iterations(_) => panic!("synthetic jobs have durations"),
                })
                .collect();
            let mean_gpus = gpus.iter().map(|&g| g as f64).sum::<f64>() / n;
            let mean_run = runs.iter().sum::<f64>() / n;
            gpus.sort_unstable();
            runs.sort_by(f64::total_cmp);
            let (median_gpus, median_run) = (gpus[gpus.len() / 2], runs[runs.len() / 2]);
            let name = stats.name;
            assert!((mean_gpus / stats.mean_gpus - 1.0).abs() < 0.05, "{name}: mean GPUs {mean_gpus}");
            assert_eq!(median_gpus, stats.median_gpus, "{name}");
            assert_eq!(*gpus.last().unwrap(), stats.max_gpus, "{name}");
            assert!((mean_run / stats.mean_run_s - 1.0).abs() < 0.05, "{name}: mean run {mean_run}");
            assert!((median_run / stats.median_run_s - 1.0).abs() < 0.03, "{name}: median run {median_run}");
            assert!(*runs.last().unwrap() <= stats.max_run_s && runs[0] >= 1.0, "{name}");
        }
    }
}
