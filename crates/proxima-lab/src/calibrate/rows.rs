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
    /// `κ`: compute slowed per extra GPU on the busiest node ([`proxima_core::comm::server_factor`]).
    pub server_compute: f64,
    /// `λ`: the ring inside a node slowed per extra GPU on the busiest node.
    pub server_ring: f64,
    pub alpha_intra_s: f64,
    pub alpha_inter_s: f64,
}

/// The model's step and sync times for one row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prediction {
    pub step_s: f64,
    /// `step − c(b)`, with `c(b)` slowed by the node's contention (`κ`): what the table's
    /// `sync_time` measures, exposed exchange plus straggler wait.
    pub sync_s: f64,
}

impl FileParams {
    pub fn predict(&self, s: &Sample) -> Prediction {
        let c = self.compute.at(s.local_bsz) * server_factor(s.max_per_node, self.server_compute);
        let inter = s.nodes > 1;
        let tau = ring_payload_s(inter, s.max_per_node, self.tau_intra_s, self.tau_inter_s, self.server_ring);
        let alpha = if inter { self.alpha_inter_s } else { self.alpha_intra_s };
        let step = step_time(c, straggler_growth(s.gpus), self.straggler, ring_time(s.gpus, tau, alpha), self.overlap);
        Prediction { step_s: step, sync_s: (step - c).max(0.0) }
    }

    pub fn predict_all(&self, samples: &[Sample]) -> Vec<Prediction> {
        samples.iter().map(|s| self.predict(s)).collect()
    }
}

/// `S / B` of a row's ring: the tier's `τ`, the node's tier slowed by `1 + λ(k − 1)` for `k`
/// GPUs on the busiest node. With `λ > 0` a ring across nodes runs at the slower of the
/// network and its slowed GPU links, as the simulator's ring does (`comm::ring_cap`); with
/// `λ = 0` a multi-node row sees the network's `τ` alone, E1's tier rule, so every fit
/// without the term gives the same bits as before it existed.
pub fn ring_payload_s(inter: bool, per_node: u32, tau_intra_s: f64, tau_inter_s: f64, server_ring: f64) -> f64 {
    let intra = tau_intra_s * server_factor(per_node, server_ring);
    if !inter {
        intra
    } else if server_ring > 0.0 {
        tau_inter_s.max(intra)
    } else {
        tau_inter_s
    }
}

/// A row with what the fits need precomputed.
pub(super) struct Row {
    pub(super) gpus: u32,
    /// The most GPUs on one node (`k`).
    pub(super) per_node: u32,
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
                per_node: s.max_per_node,
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

    /// `ln²(pred / measured)` with both tiers and the node terms `κ` and `λ`; with both zero
    /// the same bits as [`Row::sq_log_error`] with the row's tier.
    pub(super) fn sq_log_error_on_cluster(
        &self,
        tiers: (f64, f64),
        overlap: f64,
        straggler: f64,
        server: (f64, f64),
    ) -> f64 {
        let (tau_intra, tau_inter) = tiers;
        let (kappa, lambda) = server;
        let c = self.c * server_factor(self.per_node, kappa);
        let tau = ring_payload_s(self.inter, self.per_node, tau_intra, tau_inter, lambda);
        let pred = step_time(c, self.growth, straggler, ring_time(self.gpus, tau, self.alpha()), overlap);
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
