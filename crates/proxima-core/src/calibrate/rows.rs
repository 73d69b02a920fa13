//! The communication model on a table's rows: the parameters of one file and what they
//! predict for each row.

use super::*;

/// Everything needed to predict one model's rows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FileParams {
    pub compute: ComputeCurve,
    /// `τ_intra = S / B_intra`, seconds.
    pub tau_intra_s: f64,
    /// `τ_inter = S / B_inter`, seconds.
    pub tau_inter_s: f64,
    /// `ov`, in [0, 1].
    pub overlap: f64,
    /// `σ`.
    pub straggler: f64,
    pub alpha_intra_s: f64,
    pub alpha_inter_s: f64,
}

/// The model's step and sync times for one row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prediction {
    pub step_s: f64,
    /// `step − c(b)`: what the table's `sync_time` measures, exposed exchange plus straggler
    /// wait.
    pub sync_s: f64,
}

impl FileParams {
    pub fn predict(&self, s: &Sample) -> Prediction {
        let c = self.compute.at(s.local_bsz);
        let (tau, alpha) =
            if s.nodes > 1 { (self.tau_inter_s, self.alpha_inter_s) } else { (self.tau_intra_s, self.alpha_intra_s) };
        let step = step_time(c, straggler_growth(s.gpus), self.straggler, ring_time(s.gpus, tau, alpha), self.overlap);
        Prediction { step_s: step, sync_s: (step - c).max(0.0) }
    }

    pub fn predict_all(&self, samples: &[Sample]) -> Vec<Prediction> {
        samples.iter().map(|s| self.predict(s)).collect()
    }
}

/// A row with what the fits need precomputed.
pub(super) struct Row {
    pub(super) gpus: u32,
    pub(super) inter: bool,
    /// Compute at the row's batch.
    pub(super) c: f64,
    /// `N^¼ − 1`.
    pub(super) growth: f64,
    pub(super) step: f64,
}

impl Row {
    pub(super) fn of(samples: &[Sample], compute: &ComputeCurve) -> Vec<Row> {
        samples
            .iter()
            .map(|s| Row {
                gpus: s.gpus,
                inter: s.nodes > 1,
                c: compute.at(s.local_bsz),
                growth: straggler_growth(s.gpus),
                step: s.step_s,
            })
            .collect()
    }

    pub(super) fn alpha(&self) -> f64 {
        if self.inter {
            ALPHA_INTER_S
        } else {
            ALPHA_INTRA_S
        }
    }

    /// `ln²(pred / measured)` for this row.
    pub(super) fn sq_log_error(&self, tau: f64, overlap: f64, straggler: f64) -> f64 {
        let pred = step_time(self.c, self.growth, straggler, ring_time(self.gpus, tau, self.alpha()), overlap);
        let d = libm::log(pred / self.step);
        d * d
    }
}

pub(super) fn sum_sq(rows: &[&Row], tau: f64, overlap: f64, straggler: f64) -> f64 {
    let mut s = 0.0;
    for r in rows {
        s += r.sq_log_error(tau, overlap, straggler);
    }
    s
}
