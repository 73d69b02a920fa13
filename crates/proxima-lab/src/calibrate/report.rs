//! The fit of one placements table as one JSON document: what `proxima calibrate FILE
//! --json` prints and `proxima.calibrate` returns, written once so the two cannot drift.

use super::{error_table, ErrorStats, FileFit, Sample};
use serde_json::{json, Value};

/// The fit of `samples` (read from `file`) and its error table. With the model's gradient
/// size in bytes, the bandwidths follow from the identified ring times; without it they
/// are `null`.
pub fn file_report(file: &str, samples: &[Sample], fit: &FileFit, grad_bytes: Option<f64>) -> Value {
    let errors: Vec<ErrorStats> = error_table(samples, &fit.params.predict_all(samples));
    json!({
        "file": file,
        "rows": samples.len(),
        "fit": fit,
        "grad_bytes": grad_bytes,
        "intra_bytes_per_s": grad_bytes.filter(|_| fit.intra.identified).map(|s| s / fit.params.tau_intra_s),
        "inter_bytes_per_s": grad_bytes.filter(|_| fit.inter.identified).map(|s| s / fit.params.tau_inter_s),
        "median_ape_step_time": errors[0].step_median_pct,
        "errors": errors,
    })
}
