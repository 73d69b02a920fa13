//! Synthetic traces shaped like Philly: `synthetic:jobs=N[,load=L][,seed=S]`, or with
//! `shape=kalos|seren` like a cluster of the Acme trace ([`super::synthetic_shape`], which
//! takes the key out before this module's parser reads the rest).
//!
//! Each job draws its GPU count from the Philly trace's GPU-count shares, and its duration
//! from Philly's empirical run-time distribution *for that GPU count* (multi-GPU jobs ran
//! far longer: the median 1-GPU job ran 19 minutes, the median 8-GPU job 6.6 hours).
//!
//! Jobs arrive as a Poisson process stretched so that `load` is what the generated jobs
//! themselves offer the cluster while they arrive. With the arrival window `[0, W)`, job `i`
//! submitted at `t_i` with `g_i` GPUs and duration `d_i`:
//!
//! ```text
//! Σ g_i × min(d_i, W − t_i) = load × total_gpus × W
//! ```
//!
//! that is, the GPU-time the jobs would use inside the window if each started on arrival is
//! `load` times what the cluster has in it. So `load = 1` fills the cluster while jobs
//! arrive and `load = 1.2` builds a queue, whatever the sample drew. Defining it from the
//! distribution's expectation instead (as Proxima once did) left small traces nearly idle:
//! Philly's GPU-time is so heavy-tailed that a sample of a few thousand jobs rarely reaches
//! its mean, and its longest jobs run for weeks past the window, so their GPU-time, counted
//! in full, never loaded it. A window too short to be loaded even by every job at once (too
//! few jobs for the cluster) shrinks to 0: all jobs arrive at time 0.
//!
//! GPU counts above the cluster's size are dropped and the remaining shares renormalised (a
//! 16-GPU cluster gets no 32-GPU jobs).
//!
//! Job `i` draws its gap, size and duration from its own generator,
//! `Rng::for_item(seed, stream, i)`, so the first 100 jobs of `jobs=1000` have the sizes,
//! durations and order of the 100 jobs of `jobs=100`; their submission times differ by one
//! factor, the ratio of the two windows. Durations are sampled by inverse CDF with
//! log-linear interpolation between quantiles, using `libm` so the numbers are the same
//! natively and in WebAssembly; the window is solved exactly, with basic operations only.

use super::synthetic_shape::{AcmeStats, Shape};
use super::{Trace, TraceFormat, TraceJob, TraceWork};
use crate::error::InputError;
use crate::rng::Rng;

/// The parameters of a synthetic trace.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticSpec {
    pub jobs: u32,
    /// Offered load: the GPU-time the jobs offer while they arrive, as a fraction of the
    /// cluster's (1 = a full cluster; see the module's documentation).
    pub load: f64,
    pub seed: u64,
}

pub const DEFAULT_LOAD: f64 = 0.8;
pub const DEFAULT_SEED: u64 = 1;
/// The most jobs a synthetic trace may have; beyond this a browser tab runs out of memory.
pub const MAX_JOBS: u32 = 10_000_000;
/// The highest offered load accepted: 10 times what the cluster can run is already a
/// queue that never drains; a larger number is most likely a percentage typed as one.
pub const MAX_LOAD: f64 = 10.0;

const USAGE: &str = "the form is synthetic:jobs=N[,load=L][,seed=S]";

impl SyntheticSpec {
    /// Parses `synthetic:jobs=N[,load=L][,seed=S]` (the `synthetic:` prefix may be left
    /// out). Errors name the key at fault; spaces around keys and values are ignored.
    pub fn parse(text: &str) -> Result<SyntheticSpec, InputError> {
        SyntheticSpec::parse_with_seed(text, DEFAULT_SEED)
    }

    /// Like [`SyntheticSpec::parse`], with `seed` for a spec that names none: a run gives
    /// its own seed to a trace it generates.
    pub fn parse_with_seed(text: &str, default_seed: u64) -> Result<SyntheticSpec, InputError> {
        let text = text.trim();
        let body = match text.strip_prefix("synthetic:") {
            Some(rest) => rest,
            None if text == "synthetic" => "",
            None => text,
        };
        let mut jobs = None;
        let mut load = DEFAULT_LOAD;
        let mut seed = default_seed;
        for part in body.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) =
                part.split_once('=').ok_or_else(|| InputError::new(part, format!("expected key=value; {USAGE}")))?;
            let (key, value) = (key.trim(), value.trim());
            match key {
                "jobs" => {
                    let n = value.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                        InputError::new("jobs", format!("expected a positive whole number of jobs, got '{value}'"))
                    })?;
                    if n > MAX_JOBS as u64 {
                        return Err(InputError::new(
                            "jobs",
                            format!("{n} jobs is more than the {MAX_JOBS} a synthetic trace may have"),
                        ));
                    }
                    jobs = Some(n as u32);
                }
                "load" => {
                    load = value.parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0).ok_or_else(|| {
                        InputError::new(
                            "load",
                            format!(
                                "expected a positive number (0.8 offers 80% of the cluster's GPU time), got '{value}'"
                            ),
                        )
                    })?;
                    if load > MAX_LOAD {
                        return Err(InputError::new(
                            "load",
                            format!("{value} is more than {MAX_LOAD}; load is a fraction of the cluster's GPU time (0.8 = 80%)"),
                        ));
                    }
                }
                "seed" => {
                    seed = value.parse::<u64>().map_err(|_| {
                        InputError::new(
                            "seed",
                            format!("expected a whole number from 0 to {}, got '{value}'", u64::MAX),
                        )
                    })?;
                }
                _ => return Err(InputError::new(key, format!("unknown key (expected jobs, load or seed); {USAGE}"))),
            }
        }
        let jobs = jobs.ok_or_else(|| InputError::new("jobs", format!("missing; {USAGE}")))?;
        Ok(SyntheticSpec { jobs, load, seed })
    }
}

impl std::fmt::Display for SyntheticSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "synthetic:jobs={},load={},seed={}", self.jobs, self.load, self.seed)
    }
}

/// Parses a synthetic spec; see [`SyntheticSpec::parse`].
pub fn parse(text: &str) -> Result<SyntheticSpec, InputError> {
    SyntheticSpec::parse(text)
}

// ---------------------------------------------------------------------------------------
// The distributions, measured on the Philly trace.
// ---------------------------------------------------------------------------------------

/// GPUs per job in the Philly trace (petuum/adaptdl, branch `osdi21-artifact`,
/// `simulator/traces/philly.csv`, 82,247 jobs; Philly traces are CC BY 4.0), with the
/// duration class each size uses. The trace also has 7 jobs of 12 GPUs and 7 of 24, which
/// are kept: they are real requests.
pub const PHILLY_GPU_COUNTS: &[(u32, u32)] =
    &[(1, 76_627), (2, 1_818), (4, 1_870), (8, 1_643), (12, 7), (16, 199), (24, 7), (32, 67), (64, 6), (128, 3)];

/// The probabilities at which [`DURATION_QUANTILES`] are given: dense in the tail, where
/// a few long jobs hold much of the GPU time.
const QUANTILE_P: [f64; 32] = [
    0.0, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75,
    0.8, 0.85, 0.9, 0.925, 0.95, 0.975, 0.99, 0.995, 0.998, 0.999, 0.9995, 1.0,
];

/// Run-time quantiles in seconds, per GPU-count class, of the Philly trace (source as
/// [`PHILLY_GPU_COUNTS`]): quantiles of log(duration) with linear interpolation between
/// order statistics, computed by a script kept outside the repository
/// (`philly_quantiles.py`) and rounded to 6 significant digits. Classes and their job
/// counts: 1 GPU (76,627; mean 8,301 s), 2 GPUs (1,818; 30,942 s), 4 GPUs (1,870;
/// 78,762 s), 8 GPUs (1,643; 129,775 s), 12 GPUs or more (289; 95,326 s). The 2-GPU class
/// is odd but real: most of its jobs ended within a minute, a few ran for weeks.
const DURATION_QUANTILES: [[f64; 32]; 5] = [
    [
        1.0, 22.0, 30.0, 44.0, 52.0, 58.0, 62.0, 69.0, 76.0, 122.0, 215.0, 385.0, 600.0, 855.0, 1117.0, 1446.0, 1728.0,
        2054.0, 2464.2, 2716.0, 3754.0, 5342.1, 8512.0, 11166.0, 19137.0, 55518.4, 135399.0, 266914.0, 502221.0,
        865705.0, 1.44751e6, 3.25604e6,
    ],
    [
        2.0, 3.0, 5.0, 7.0, 9.0, 10.0, 11.0, 13.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 23.0, 25.0, 28.0, 33.0,
        76.0, 149.197, 22255.2, 72737.9, 124487.0, 197062.0, 288907.0, 523281.0, 808037.0, 1.39836e6, 1.47405e6,
        1.59665e6, 2.5828e6,
    ],
    [
        3.0, 24.0, 35.687, 51.7231, 75.0, 107.174, 137.799, 179.349, 404.793, 772.749, 1695.7, 4457.65, 7467.79,
        13086.5, 17409.5, 26251.1, 36288.2, 56845.9, 78660.0, 89394.2, 106284.0, 151447.0, 184435.0, 196484.0,
        273968.0, 499339.0, 907375.0, 1.20595e6, 1.85879e6, 2.44518e6, 2.64858e6, 2.75067e6,
    ],
    [
        1.0, 20.4043, 33.4164, 72.0, 125.0, 172.15, 216.2, 463.898, 784.598, 1875.99, 4010.97, 7266.5, 12382.2,
        16650.6, 23683.0, 36595.0, 65011.9, 105941.0, 140721.0, 173248.0, 203050.0, 242251.0, 351981.0, 408314.0,
        525618.0, 743402.0, 1.06047e6, 2.00035e6, 2.23273e6, 2.65648e6, 2.93612e6, 4.62823e6,
    ],
    [
        1.0, 2.0, 3.68075, 10.5584, 35.3966, 45.7762, 72.1819, 218.996, 345.0, 566.0, 889.523, 1529.46, 3166.6,
        8512.21, 21137.0, 45313.8, 53749.3, 58974.2, 73309.0, 104218.0, 158989.0, 181582.0, 247961.0, 330209.0,
        443226.0, 532085.0, 919204.0, 1.26954e6, 1.50518e6, 1.60463e6, 1.65679e6, 1.71064e6,
    ],
];

/// The duration class of a GPU count.
fn duration_class(gpus: u32) -> usize {
    match gpus {
        1 => 0,
        2 => 1,
        3..=4 => 2,
        5..=8 => 3,
        _ => 4,
    }
}

/// The GPU counts a cluster of `total_gpus` can run, with their Philly weights.
fn size_weights(total_gpus: u32) -> (Vec<u32>, Vec<f64>) {
    let cap = total_gpus.max(1);
    PHILLY_GPU_COUNTS.iter().filter(|(g, _)| *g <= cap).map(|&(g, n)| (g, n as f64)).unzip()
}

/// The share of each GPU count among synthetic jobs on a cluster of `total_gpus`.
pub fn gpu_shares(total_gpus: u32) -> Vec<(u32, f64)> {
    let (sizes, weights) = size_weights(total_gpus);
    let total: f64 = weights.iter().sum();
    sizes.into_iter().zip(weights).map(|(g, w)| (g, w / total)).collect()
}

/// The duration at probability `u` in [0, 1) of a class: log-linear interpolation between
/// the neighbouring quantiles.
fn duration_at(class: usize, u: f64) -> f64 {
    let q = &DURATION_QUANTILES[class];
    let k = QUANTILE_P.partition_point(|p| *p <= u).clamp(1, QUANTILE_P.len() - 1) - 1;
    let t = ((u - QUANTILE_P[k]) / (QUANTILE_P[k + 1] - QUANTILE_P[k])).clamp(0.0, 1.0);
    let (a, b) = (libm::log(q[k]), libm::log(q[k + 1]));
    libm::exp(a + t * (b - a))
}

/// The mean duration of a class under the interpolated distribution: over each segment
/// the duration grows exponentially in probability, so its mean is the logarithmic mean of
/// the two quantiles.
pub(crate) fn mean_duration(class: usize) -> f64 {
    let q = &DURATION_QUANTILES[class];
    let mut mean = 0.0;
    for k in 0..QUANTILE_P.len() - 1 {
        let (a, b) = (q[k], q[k + 1]);
        let dp = QUANTILE_P[k + 1] - QUANTILE_P[k];
        let seg = if b == a { a } else { (b - a) / (libm::log(b) - libm::log(a)) };
        mean += dp * seg;
    }
    mean
}

/// E[gpus × duration] in GPU-seconds for a synthetic job on a cluster of `total_gpus`.
pub fn expected_gpu_seconds(total_gpus: u32) -> f64 {
    gpu_shares(total_gpus).iter().map(|&(g, share)| share * g as f64 * mean_duration(duration_class(g))).sum()
}

/// The stream of the per-job generators (`"SYNTJOBS"` in ASCII); a fixed constant so other
/// users of the same seed draw independent numbers.
const JOB_STREAM: u64 = 0x5359_4E54_4A4F_4253;

/// Generates the Philly-shaped trace for a cluster of `total_gpus` GPUs (at least 1 is
/// assumed). The first job is submitted at time 0.
pub fn generate(spec: &SyntheticSpec, total_gpus: u32) -> Trace {
    generate_shaped(spec, &Shape::Philly, total_gpus)
}

/// [`generate`] with the jobs' sizes and run times drawn from `shape`
/// ([`super::synthetic_shape`]); the arrivals and the load are defined as for Philly.
pub fn generate_shaped(spec: &SyntheticSpec, shape: &Shape, total_gpus: u32) -> Trace {
    let total_gpus = total_gpus.max(1);
    let drawn = match shape {
        Shape::Philly => draw_jobs(spec, total_gpus),
        Shape::Acme(stats) => draw_acme_jobs(spec, stats, total_gpus),
    };
    let shares = arrival_shares(&drawn);
    let window = arrival_window(&drawn, &shares, spec.load * total_gpus as f64);
    let jobs = drawn
        .iter()
        .zip(shares)
        .enumerate()
        .map(|(i, (job, share))| TraceJob {
            name: format!("syn-{i}"),
            submit_s: share * window,
            gpus: job.gpus,
            model: None,
            work: TraceWork::DurationS(job.duration),
            batch: None,
            tenant: None,
            line: 0,
        })
        .collect();
    Trace::new(TraceFormat::Synthetic, jobs)
}

/// Every job's draws, in job order.
fn draw_jobs(spec: &SyntheticSpec, total_gpus: u32) -> Vec<DrawnJob> {
    let (sizes, weights) = size_weights(total_gpus);
    (0..spec.jobs)
        .map(|i| {
            let mut rng = Rng::for_item(spec.seed, JOB_STREAM, i as u64);
            // Every job draws its gap, even the first, so that all jobs draw in the same
            // order; the first job's gap closes the window after the last arrival.
            let gap = rng.exponential(1.0);
            let gpus = sizes[rng.weighted_index(&weights)];
            let duration = duration_at(duration_class(gpus), rng.next_f64());
            DrawnJob { gap, gpus, duration }
        })
        .collect()
}

/// Every job's draws from an Acme cluster's statistics, in job order: the same gap, then
/// its GPUs and run time, from the same per-job generators as Philly's.
fn draw_acme_jobs(spec: &SyntheticSpec, stats: &AcmeStats, total_gpus: u32) -> Vec<DrawnJob> {
    let (sizes, weights) = stats.size_weights(total_gpus);
    let sigma = stats.run_time_sigma();
    (0..spec.jobs)
        .map(|i| {
            let mut rng = Rng::for_item(spec.seed, JOB_STREAM, i as u64);
            let gap = rng.exponential(1.0);
            let gpus = sizes[rng.weighted_index(&weights)];
            let duration = stats.draw_run_s(sigma, &mut rng);
            DrawnJob { gap, gpus, duration }
        })
        .collect()
}

/// A job's draws: its unit-mean exponential gap, its GPUs and its duration in seconds.
struct DrawnJob {
    gap: f64,
    gpus: u32,
    duration: f64,
}

/// Where in the arrival window each job arrives, as a fraction `u_i` of it: the gaps of
/// jobs `1..=i` over all gaps (the first job's gap closes the window).
fn arrival_shares(jobs: &[DrawnJob]) -> Vec<f64> {
    let total_gaps: f64 = jobs.iter().map(|j| j.gap).sum();
    let mut before = 0.0;
    jobs.iter()
        .enumerate()
        .map(|(i, job)| {
            if i > 0 {
                before += job.gap;
            }
            if total_gaps > 0.0 {
                before / total_gaps
            } else {
                0.0
            }
        })
        .collect()
}

/// The window `W` at which the jobs, arriving at `u_i × W`, offer `busy_gpus × W`
/// GPU-seconds inside it: `Σ g_i × min(d_i, (1 − u_i) W) = busy_gpus × W`.
///
/// The left side over `W` falls as `W` grows (each job's part is `min(d_i / W, g_i (1 − u_i))`
/// per second), from `Σ g_i (1 − u_i)` near 0 to 0, so there is one solution when the jobs
/// can load the cluster at all, and none (the window is 0) when even arriving at once they
/// cannot. It is linear between the breakpoints `b_i = d_i / (1 − u_i)`, where job `i`
/// comes to fit in the window whole: sorted, they are walked until the side crosses, and the
/// segment there solved exactly.
fn arrival_window(jobs: &[DrawnJob], shares: &[f64], busy_gpus: f64) -> f64 {
    // (breakpoint, g × d, g × (1 − u)) per job.
    let mut parts: Vec<(f64, f64, f64)> = jobs
        .iter()
        .zip(shares)
        .map(|(j, u)| {
            let rest = 1.0 - u;
            let g = j.gpus as f64;
            (j.duration / rest, g * j.duration, g * rest)
        })
        .collect();
    parts.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Below the first breakpoint every job is cut by the window's end.
    let mut whole = 0.0; // Σ g d of the jobs inside the window whole
    let mut cut: f64 = parts.iter().map(|p| p.2).sum(); // Σ g (1 − u) of the others
    if cut < busy_gpus {
        return 0.0;
    }
    for &(breakpoint, gd, g_rest) in &parts {
        // On this segment the offer is `whole + cut × W`; it meets `busy_gpus × W` at
        // `whole / (busy_gpus − cut)` if that is before this breakpoint.
        if cut < busy_gpus && whole / (busy_gpus - cut) <= breakpoint {
            return whole / (busy_gpus - cut);
        }
        whole += gd;
        cut -= g_rest;
    }
    whole / busy_gpus
}

#[cfg(test)]
#[path = "synthetic_tests.rs"]
mod tests;
