//! What the summary table and headline add so that their numbers can be trusted: which way
//! a value moved, the span a utilisation covers, which figures leave unfinished jobs out,
//! what the runs compared actually differ in, and the kind of each of the run's notes.
//!
//! Pure, like `summary`: the panels render what these functions return.

use super::{count, duration, list, SAME_WITHIN};
use proxima_core::metrics::Summary;

/// Durations below this are floating-point noise, not time: a run's communication overhead
/// of `0.00000000000000711 s` is a sum of differences that should be zero. The table writes
/// them `≈0`, as the headline calls anything under a second "none".
pub const FLOAT_NOISE_S: f64 = 1e-6;

/// The arrow that shows which way `v` moved from the baseline's `base`: up when it rose,
/// down when it fell, none within [`SAME_WITHIN`]. It says nothing of better or worse: the
/// cell's colour does (a falling Jain's index is `▼` in red).
pub fn moved(v: f64, base: f64) -> &'static str {
    if (v - base).abs() <= SAME_WITHIN * v.abs().max(base.abs()) {
        ""
    } else if v > base {
        "▲ "
    } else {
        "▼ "
    }
}

/// The time a metric's value covers, when the number means little without it: utilisation
/// is busy GPU-time over GPUs × makespan, so 2.63% over 11,600 days says something else than
/// 2.63% over a day.
pub fn span_of(key: &str, s: &Summary) -> Option<String> {
    (key == "avg_gpu_util").then(|| format!("over a makespan of {}", duration(s.makespan_s)))
}

/// The metrics averaged or summed over completed jobs only (docs/METRICS.md): a policy that
/// leaves jobs unfinished drops its slowest jobs from them, so they flatter it.
pub fn completed_only(key: &str) -> bool {
    matches!(
        key,
        "avg_jct_s"
            | "p50_jct_s"
            | "p95_jct_s"
            | "p99_jct_s"
            | "avg_queue_s"
            | "comm_overhead_s"
            | "comm_overhead_gpu_s"
    )
}

/// Whether a comparison of `s` with `base` on this metric is between unlike sets of jobs:
/// either left jobs unfinished that the figure leaves out.
pub fn partial(key: &str, s: &Summary, base: &Summary) -> bool {
    completed_only(key) && (s.jobs_unfinished > 0 || base.jobs_unfinished > 0)
}

/// The warning under the headline when some policy left jobs unfinished: its JCT figures
/// cover only the jobs it completed, so comparing means as if it had completed them all
/// would reward leaving the hard ones queued.
pub fn unfinished_caveat(runs: &[(&str, &Summary)]) -> Option<String> {
    let left: Vec<String> = runs
        .iter()
        .filter(|r| r.1.jobs_unfinished > 0)
        .map(|r| {
            format!(
                "{} left {} of {} jobs unfinished",
                r.0,
                count(r.1.jobs_unfinished as f64),
                count(r.1.jobs_total as f64)
            )
        })
        .collect();
    if left.is_empty() {
        return None;
    }
    let names: Vec<&str> = left.iter().map(String::as_str).collect();
    Some(format!(
        "{}: JCT, queueing and overhead cover completed jobs only, so those comparisons (marked *) are between \
         different sets of jobs. Compare jobs completed first.",
        list(&names)
    ))
}

/// The one policy every run is a variant of (`dally` for `dally:timers=5/5` and
/// `dally:timers=5/5,autotune=off`), when they share one: then the runs differ in options,
/// not necessarily in placement, and an equal mean JCT says nothing about placement.
pub fn common_policy<'a>(names: &[&'a str]) -> Option<&'a str> {
    let base = |n: &'a str| n.split(':').next().unwrap_or(n);
    let first = base(names.first()?);
    names.iter().all(|n| base(n) == first).then_some(first)
}

/// Whether the trace the summary names came from the generator (`synthetic:...`), so that
/// advice to give it more jobs or load fits; an uploaded file is named by its file name.
pub fn generated(s: &Summary) -> bool {
    s.trace.starts_with("synthetic")
}

/// A run's note (`worker::run_notes`, written as the CLI prints it) split into its kind,
/// `warning` or `note`, and the text the page shows after the kind's word.
pub fn run_note_parts(note: &str) -> (&'static str, &str) {
    if let Some(text) = note.strip_prefix("warning: ") {
        ("warning", text)
    } else {
        ("note", note.strip_prefix("note: ").unwrap_or(note))
    }
}
