//! Error tables: absolute percentage errors by class of rows, and their percentiles.

use super::*;

/// Absolute percentage errors of one class of rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorStats {
    /// `all`, `1 node`, `2 nodes`, `3+ nodes`, `kmax=K` (most GPUs on one node),
    /// `multi-node`.
    pub class: String,
    pub rows: u32,
    pub step_median_pct: f64,
    pub step_p90_pct: f64,
    /// Rows with a positive measured `sync_time` (the others have no percentage error).
    pub sync_rows: u32,
    pub sync_median_pct: f64,
    pub sync_p90_pct: f64,
}

/// The classes of rows errors are reported for, in report order.
fn classes_of(s: &Sample) -> [String; 4] {
    [
        "all".to_string(),
        match s.nodes {
            1 => "1 node".to_string(),
            2 => "2 nodes".to_string(),
            _ => "3+ nodes".to_string(),
        },
        format!("kmax={}", s.max_per_node),
        if s.nodes > 1 { "multi-node".to_string() } else { String::new() },
    ]
}

/// Median and 90th percentile of the absolute percentage errors of `step_time` and
/// `sync_time`, over all rows and per class of placement.
pub fn error_table(samples: &[Sample], predictions: &[Prediction]) -> Vec<ErrorStats> {
    let mut names: Vec<String> = vec!["all".into(), "1 node".into(), "2 nodes".into(), "3+ nodes".into()];
    let mut kmax: Vec<u32> = samples.iter().map(|s| s.max_per_node).collect();
    kmax.sort_unstable();
    kmax.dedup();
    names.extend(kmax.iter().map(|k| format!("kmax={k}")));
    names.push("multi-node".into());
    names
        .into_iter()
        .filter_map(|class| {
            let mut step = Vec::new();
            let mut sync = Vec::new();
            for (s, p) in samples.iter().zip(predictions) {
                if classes_of(s).contains(&class) {
                    step.push(ape(p.step_s, s.step_s));
                    if s.sync_s > 0.0 {
                        sync.push(ape(p.sync_s, s.sync_s));
                    }
                }
            }
            (!step.is_empty()).then(|| ErrorStats {
                class,
                rows: step.len() as u32,
                step_median_pct: interpolated_percentile(&mut step, 50.0),
                step_p90_pct: interpolated_percentile(&mut step, 90.0),
                sync_rows: sync.len() as u32,
                sync_median_pct: interpolated_percentile(&mut sync, 50.0),
                sync_p90_pct: interpolated_percentile(&mut sync, 90.0),
            })
        })
        .collect()
}

/// `|pred − obs| / obs` in percent.
pub fn ape(pred: f64, obs: f64) -> f64 {
    (pred - obs).abs() / obs * 100.0
}

/// The `p`-th percentile with linear interpolation between order statistics (numpy's
/// default, so error figures compare with published ones), NaN for no values. Sorts
/// `values`. (Run metrics use `metrics::nearest_rank_percentile`.)
pub fn interpolated_percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let pos = p / 100.0 * (values.len() - 1) as f64;
    let lo = libm::floor(pos) as usize;
    let hi = (lo + 1).min(values.len() - 1);
    values[lo] + (pos - lo as f64) * (values[hi] - values[lo])
}
