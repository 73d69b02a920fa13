//! The compute curve `c = c0 + c1 · b`, fitted to the rows that show compute alone.

use super::*;

/// Which rows a compute curve was fitted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ComputeRows {
    /// The single-GPU rows' step times (the normal case).
    SingleGpu,
    /// Fewer than two batch sizes on one GPU: every row's `step_time − sync_time`, the
    /// time outside the exchange.
    StepMinusSync,
}

/// The compute curve of a file and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ComputeFit {
    pub curve: ComputeCurve,
    pub from: ComputeRows,
    pub rows: u32,
}

/// `c(b) = c0 + c1·b` by least squares on relative errors (weights `1/t²`), in closed form.
/// A negative intercept is forced to zero and a negative slope to a flat curve, so the
/// curve never predicts negative or shrinking compute.
pub fn fit_compute(samples: &[Sample]) -> ComputeFit {
    let single: Vec<(f64, f64)> = samples.iter().filter(|s| s.gpus == 1).map(|s| (s.local_bsz, s.step_s)).collect();
    let distinct = |pts: &[(f64, f64)]| pts.iter().any(|p| p.0 != pts[0].0);
    let (points, from) = if !single.is_empty() && distinct(&single) {
        (single, ComputeRows::SingleGpu)
    } else {
        let all: Vec<(f64, f64)> =
            samples.iter().map(|s| (s.local_bsz, s.step_s - s.sync_s)).filter(|p| p.1 > 0.0).collect();
        (all, ComputeRows::StepMinusSync)
    };
    let (mut sw, mut sb, mut sbb, mut st, mut sbt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(b, t) in &points {
        let w = 1.0 / (t * t);
        sw += w;
        sb += w * b;
        sbb += w * b * b;
        st += w * t;
        sbt += w * b * t;
    }
    let det = sw * sbb - sb * sb;
    let (mut c0, mut c1) = if det > 0.0 && det.is_finite() {
        let c1 = (sw * sbt - sb * st) / det;
        ((st - c1 * sb) / sw, c1)
    } else {
        // One batch size only: the best flat curve.
        (if sw > 0.0 { st / sw } else { 0.0 }, 0.0)
    };
    if c0 < 0.0 {
        c0 = 0.0;
        c1 = sbt / sbb;
    }
    if c1 < 0.0 {
        c1 = 0.0;
        c0 = st / sw;
    }
    ComputeFit { curve: ComputeCurve { fixed_s: c0, per_sample_s: c1 }, from, rows: points.len() as u32 }
}
