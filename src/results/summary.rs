//! The summary table for people: which `summary.json` numbers it shows, how each is
//! written (three significant figures with a unit), how it compares with a baseline
//! policy, and the one-sentence headline that opens the results.
//!
//! Pure: the panels render what these functions return, and tests check them natively.

use notes::{common_policy, generated, unfinished_caveat, FLOAT_NOISE_S};

/// What the table and headline add so that their numbers can be trusted; a child of this
/// module, since it builds on the formatting here and the headline builds on it.
#[path = "summary_notes.rs"]
pub mod notes;
pub use crate::numbers::{count, duration, in_unit, ratio, sig3};
use proxima_core::metrics::Summary;

/// How a metric is written, in the summary table and in the per-tenant table alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Seconds, written in s, min, h or d.
    Duration,
    /// GPU-seconds (seconds times GPUs), written in GPU-s, GPU-min, GPU-h or GPU-d.
    GpuTime,
    /// A fraction, written as a percentage.
    Fraction,
    /// A count, written in full.
    Count,
    /// A number without unit (an index, a slowdown, ρ), three significant figures.
    Plain,
}

impl Unit {
    /// `v` for people: three significant figures and the unit.
    pub fn format(self, v: f64) -> String {
        let noise = v != 0.0 && v.abs() < FLOAT_NOISE_S;
        match self {
            Unit::Duration if noise => "≈0 s".to_string(),
            Unit::GpuTime if noise => "≈0 GPU-s".to_string(),
            Unit::Duration => duration(v),
            Unit::GpuTime => {
                let (value, unit) = in_unit(v);
                format!("{} GPU-{unit}", sig3(value))
            }
            Unit::Fraction => format!("{}%", sig3(v * 100.0)),
            Unit::Count => count(v),
            Unit::Plain => sig3(v),
        }
    }
}

/// Which way a metric is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
    /// Neither way is better in itself (e.g. utilisation: slow jobs also keep GPUs busy).
    Neither,
}

/// A row of the summary table: a `summary.json` key, what it is called, its unit, its
/// direction and its value in a summary.
pub struct Metric {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: Unit,
    pub better: Better,
    value: fn(&Summary) -> f64,
    /// The number exactly as `summary.json` writes it.
    raw: fn(&Summary) -> String,
}

impl Metric {
    pub fn value(&self, s: &Summary) -> f64 {
        (self.value)(s)
    }

    /// The number as `summary.json` writes it (serde_json's shortest text that reads back
    /// to the same bits), for `data-value`.
    pub fn raw(&self, s: &Summary) -> String {
        (self.raw)(s)
    }

    /// The value for people: three significant figures and a unit.
    pub fn format(&self, v: f64) -> String {
        self.unit.format(v)
    }

    /// What the direction says, for the row's heading.
    pub fn direction(&self) -> &'static str {
        match self.better {
            Better::Lower => "lower is better",
            Better::Higher => "higher is better",
            Better::Neither => "neither way is better in itself",
        }
    }

    /// How `v` compares with the baseline's `base`: no ratio when the baseline is zero, or
    /// a negligible duration ([`NEGLIGIBLE_S`]).
    pub fn compare(&self, v: f64, base: f64) -> Comparison {
        // A ratio to a duration under a second is noise, not a finding: on a light load the
        // baseline's communication overhead can be 0.000153 s, and any other policy's
        // 726,000,000 times it. The headline calls such a duration "none"; the table says
        // "vs ≈0" instead of a ratio.
        let timed = matches!(self.unit, Unit::Duration | Unit::GpuTime);
        let meaningful = if timed { base.abs() >= NEGLIGIBLE_S } else { base != 0.0 };
        let ratio = meaningful.then(|| v / base);
        let both_negligible = timed && v.abs() < NEGLIGIBLE_S && base.abs() < NEGLIGIBLE_S;
        let verdict = if self.better == Better::Neither || both_negligible || within(v, base, SAME_WITHIN) {
            Verdict::Same
        } else if (v < base) == (self.better == Better::Lower) {
            Verdict::Better
        } else {
            Verdict::Worse
        };
        Comparison { ratio, verdict }
    }
}

/// Durations below this are "none" in the headline and have no ratio in the table.
pub const NEGLIGIBLE_S: f64 = 1.0;

macro_rules! real {
    ($field:ident) => {
        (|s: &Summary| s.$field, |s: &Summary| serde_json::to_string(&s.$field).unwrap_or_default())
    };
}
macro_rules! whole {
    ($field:ident) => {
        (|s: &Summary| s.$field as f64, |s: &Summary| s.$field.to_string())
    };
}

/// How a metric is read from a summary: as a number, and as `summary.json` writes it.
type Readers = (fn(&Summary) -> f64, fn(&Summary) -> String);

const fn metric(key: &'static str, label: &'static str, unit: Unit, better: Better, (value, raw): Readers) -> Metric {
    Metric { key, label, unit, better, value, raw }
}

/// The rows of the summary table, in order.
pub const METRICS: &[Metric] = &[
    metric("avg_jct_s", "mean job completion time", Unit::Duration, Better::Lower, real!(avg_jct_s)),
    metric("p50_jct_s", "median (p50) JCT", Unit::Duration, Better::Lower, real!(p50_jct_s)),
    metric("p95_jct_s", "p95 JCT", Unit::Duration, Better::Lower, real!(p95_jct_s)),
    metric("p99_jct_s", "p99 JCT", Unit::Duration, Better::Lower, real!(p99_jct_s)),
    metric("makespan_s", "makespan", Unit::Duration, Better::Lower, real!(makespan_s)),
    metric("avg_queue_s", "mean time queued", Unit::Duration, Better::Lower, real!(avg_queue_s)),
    // Job-seconds: each job's time beyond its ideal run, summed; GPU-seconds: the same times
    // each job's GPUs (docs/METRICS.md).
    metric(
        "comm_overhead_s",
        "communication overhead, all jobs (job-s)",
        Unit::Duration,
        Better::Lower,
        real!(comm_overhead_s),
    ),
    metric(
        "comm_overhead_gpu_s",
        "communication overhead, all jobs (GPU-s)",
        Unit::GpuTime,
        Better::Lower,
        real!(comm_overhead_gpu_s),
    ),
    metric("avg_gpu_util", "GPU utilisation", Unit::Fraction, Better::Neither, real!(avg_gpu_util)),
    metric("preemptions", "preemptions", Unit::Count, Better::Lower, whole!(preemptions)),
    metric("jain_slowdown", "Jain's index over tenants' slowdowns", Unit::Plain, Better::Higher, real!(jain_slowdown)),
    metric("jobs_completed", "jobs completed", Unit::Count, Better::Higher, whole!(jobs_completed)),
    metric("jobs_rejected", "jobs rejected", Unit::Count, Better::Lower, whole!(jobs_rejected)),
    metric("jobs_unfinished", "jobs unfinished", Unit::Count, Better::Lower, whole!(jobs_unfinished)),
];

/// The metric with this `summary.json` key.
pub fn metric_of(key: &str) -> &'static Metric {
    METRICS.iter().find(|m| m.key == key).expect("a metric of the table")
}

/// Values this close (relative) count as the same: run-to-run differences smaller than
/// this say little about a policy.
pub const SAME_WITHIN: f64 = 0.02;

fn within(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Better,
    Same,
    Worse,
}

impl Verdict {
    pub fn class(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Same => "same",
            Verdict::Worse => "worse",
        }
    }
}

/// A value against the baseline's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    /// `None` when the baseline's value is 0.
    pub ratio: Option<f64>,
    pub verdict: Verdict,
}

/// The baseline offered first: `consolidate` if it ran, else the first policy.
pub fn default_baseline<'a>(policies: impl IntoIterator<Item = &'a str> + Clone) -> Option<&'a str> {
    policies.clone().into_iter().find(|p| *p == "consolidate").or_else(|| policies.into_iter().next())
}

/// The sentence that opens the results, and the facts it is made of (for the page's
/// attributes and the tests).
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    pub text: String,
    /// The policy the sentence is about: `dally` when it ran, else the best on mean JCT
    /// other than the baseline and the clairvoyant references.
    pub subject: Option<String>,
    pub baseline: String,
    /// Every policy within [`SAME_WITHIN`] of the baseline on mean JCT.
    pub all_equal: bool,
    /// Which policy does best on each of the main metrics: "lowest mean JCT: tiresias".
    pub wins: Vec<String>,
    /// Which policies left jobs unfinished, whose JCT figures then cover fewer jobs.
    pub caveat: Option<String>,
}

/// The metrics whose winners the headline names.
const WINS: &[&str] = &["avg_jct_s", "p95_jct_s", "makespan_s", "comm_overhead_s", "avg_queue_s"];

/// The headline for these (policy, summary) pairs against `baseline`, on a cluster whose
/// most oversubscribed uplink is `oversub`:1 (`None` when no uplink is narrower than the
/// NICs below it); `None` without results or when the baseline did not run.
pub fn headline(runs: &[(&str, &Summary)], baseline: &str, oversub: Option<f64>) -> Option<Headline> {
    let base = runs.iter().find(|r| r.0 == baseline)?.1;
    let others: Vec<&(&str, &Summary)> = runs.iter().filter(|r| r.0 != baseline).collect();
    let mut headline = Headline {
        text: String::new(),
        subject: None,
        baseline: baseline.to_string(),
        all_equal: false,
        wins: Vec::new(),
        caveat: unfinished_caveat(runs),
    };
    if others.is_empty() {
        headline.text = format!(
            "{baseline}: mean JCT {}, communication overhead {}, {} preemptions. Choose a second policy to compare with.",
            duration(base.avg_jct_s),
            duration(base.comm_overhead_s),
            base.preemptions
        );
        return Some(headline);
    }
    if others.iter().all(|r| within(r.1.avg_jct_s, base.avg_jct_s, SAME_WITHIN)) {
        headline.all_equal = true;
        let names: Vec<&str> = runs.iter().map(|r| r.0).collect();
        let equal = format!(
            "{} come out equal on mean JCT (within {:.0}% of {baseline}'s {})",
            list(&names),
            SAME_WITHIN * 100.0,
            duration(base.avg_jct_s)
        );
        // Variants of one policy may all place alike: their being equal is what this run
        // shows of their options, and says nothing of placement.
        headline.text = match common_policy(&names) {
            Some(policy) => format!(
                "{equal}: on this run, the options that set these {policy} variants apart hardly change it. \
                 To see what placement does, compare {policy} with another policy."
            ),
            None => format!("{equal}: placement hardly matters here. {}", what_to_change(base, oversub)),
        };
        return Some(headline);
    }
    let subject = subject_of(&others);
    let (name, s) = (subject.0, subject.1);
    headline.text = compared_in_words(name, s, baseline, base);
    headline.subject = Some(name.to_string());
    headline.wins = WINS.iter().filter_map(|key| winner(runs, metric_of(key))).collect();
    Some(headline)
}

/// Below this mean queueing, as a share of the mean JCT, jobs hardly waited for GPUs: the
/// cluster had room for each as it came, so every policy found it a tight placement. (Not
/// the GPU utilisation: over a Philly-shaped run's makespan it stays low however busy the
/// cluster was while jobs arrived, since a few jobs run for weeks after the rest. Measured
/// with `proxima compare` (fifo, consolidate, dally; load 0.9): on `oversub-2048` 1,000
/// jobs, all at once, queue 0% of the JCT; 5,000 jobs 3%; 10,000 jobs 7%; on the 1,024-GPU
/// presets with 5,000 jobs 4.7%. Kept low so that the advice to add work is given only
/// where work was plainly missing.)
pub const IDLE_QUEUE_SHARE: f64 = 0.02;

/// What would make placement matter, after a run where every policy came out equal: more
/// work when jobs hardly waited; else a more congested network, without advising to
/// oversubscribe uplinks that already are (the `oversub-2048` preset's are 4:1).
fn what_to_change(base: &Summary, oversub: Option<f64>) -> String {
    if base.avg_queue_s < IDLE_QUEUE_SHARE * base.avg_jct_s {
        // An uploaded trace is what it is: the advice is to run it on fewer GPUs.
        let more = if generated(base) {
            "give the generator more jobs or a higher offered load"
        } else {
            "run this trace on a cluster with fewer GPUs"
        };
        return format!(
            "Jobs hardly waited for GPUs (mean queueing {} against a mean JCT of {}), so each found a tight placement \
             as it came: to see a difference, {more}.",
            duration(base.avg_queue_s),
            duration(base.avg_jct_s)
        );
    }
    // Jobs waited, so more load would not part the policies (measured on `oversub-2048`
    // with 20,000 jobs: dally and consolidate equal at load 0.9, 1.5 and 2.5): the network
    // makes a scattered job cheap.
    match oversub {
        Some(r) => format!(
            "Jobs did wait for GPUs, so it is the network: its uplinks are already {}:1 oversubscribed, yet a scattered \
             job loses little. To see a difference, thin the uplinks further, give the servers slower NICs, or use fabric=tcp.",
            sig3(r)
        ),
        None => "Jobs did wait for GPUs, so it is the network: with uplinks as fast as the NICs below them a scattered job \
                 loses little. To see a difference, oversubscribe the uplinks, give the servers slower NICs, or use fabric=tcp."
            .to_string(),
    }
}

/// A clairvoyant reference rather than a policy one could run: `srtf` reads every job's
/// true remaining run time, `dally:runtime=oracle` too.
fn is_reference(policy: &str) -> bool {
    policy == "srtf" || policy.starts_with("srtf:") || policy.contains("runtime=oracle")
}

/// The policy the headline is about: `dally` when it ran (the page's subject), else the
/// best on mean JCT among the policies one could run, else the best of all.
fn subject_of<'a>(others: &[&'a (&'a str, &'a Summary)]) -> &'a (&'a str, &'a Summary) {
    let best =
        |pool: Vec<&'a (&'a str, &'a Summary)>| pool.into_iter().min_by(|a, b| a.1.avg_jct_s.total_cmp(&b.1.avg_jct_s));
    others
        .iter()
        .copied()
        .find(|r| r.0 == "dally")
        .or_else(|| best(others.iter().copied().filter(|r| !is_reference(r.0)).collect()))
        .or_else(|| best(others.to_vec()))
        .expect("not empty")
}

/// `dally finished jobs 29% sooner than consolidate: 7.1 h against 10.1 h mean JCT;
/// communication overhead 2 h against 12 h; 9 against 24 placements across racks; 36
/// preemptions.` Absolute figures beside the words, and no ratio of overheads: a baseline
/// with next to no overhead would make any ratio meaningless.
fn compared_in_words(name: &str, s: &Summary, baseline: &str, base: &Summary) -> String {
    let (mine, theirs) = (s.avg_jct_s, base.avg_jct_s);
    let how = if within(mine, theirs, SAME_WITHIN) {
        format!("finished jobs about as fast as {baseline}")
    } else if mine < theirs {
        format!("finished jobs {:.0}% sooner than {baseline}", 100.0 * (1.0 - mine / theirs))
    } else {
        format!("took {:.0}% longer than {baseline} to finish jobs", 100.0 * (mine / theirs - 1.0))
    };
    let overhead = |x: f64| if x < NEGLIGIBLE_S { "none".to_string() } else { duration(x) };
    // Placements above the rack tier, when the cluster has one (tiers tightest first).
    let across = |t: &proxima_core::tier_counts::TierCounts| t.iter().skip(2).map(|(_, n)| n).sum::<u64>();
    let racks = if s.tier_counts.iter().count() > 2 {
        format!("; {} against {} placements across racks", across(&s.tier_counts), across(&base.tier_counts))
    } else {
        String::new()
    };
    format!(
        "{name} {how}: {} against {} mean JCT; communication overhead {} against {}{racks}; {} preemption{}.",
        duration(mine),
        duration(theirs),
        overhead(s.comm_overhead_s),
        overhead(base.comm_overhead_s),
        s.preemptions,
        if s.preemptions == 1 { "" } else { "s" }
    )
}

/// "lowest mean JCT: tiresias" (several names when they are within [`SAME_WITHIN`]); `None`
/// when every policy is.
fn winner(runs: &[(&str, &Summary)], m: &Metric) -> Option<String> {
    let lower = m.better == Better::Lower;
    let best = runs.iter().map(|r| m.value(r.1)).reduce(|a, b| if (b < a) == lower { b } else { a })?;
    let top: Vec<&str> = runs.iter().filter(|r| within(m.value(r.1), best, SAME_WITHIN)).map(|r| r.0).collect();
    if top.len() == runs.len() {
        return None;
    }
    let what = if lower { "lowest" } else { "highest" };
    let label = match m.key {
        "avg_jct_s" => "mean JCT",
        "comm_overhead_s" => "communication overhead",
        other => metric_of(other).label,
    };
    Some(format!("{what} {label}: {}", list(&top)))
}

/// "a", "a and b", "a, b and c".
pub fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
pub(super) mod tests;
