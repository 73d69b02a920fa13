//! Several models on one cluster: shared bandwidths and straggler, and leave-one-model-out
//! validation.

use super::*;

/// One model's measurements and gradient size, for the fits across models.
#[derive(Clone, Copy, Debug)]
pub struct ModelData<'a> {
    pub name: &'a str,
    pub samples: &'a [Sample],
    /// `S`: bytes all-reduced per step (4 × parameters for fp32 gradients).
    pub grad_bytes: f64,
}

/// Whether every model gets its own overlap or all share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlap {
    PerModel,
    Shared,
}

/// Whether a fit across models also fits the node terms `κ` and `λ`
/// ([`proxima_core::comm_params::CommParams::server_compute`], [`proxima_core::comm_params::CommParams::server_ring`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerTerms {
    /// E1 alone: both terms zero, the fit exactly as before they existed (the Pollux
    /// testbed's calibration).
    Zero,
    /// Both fitted, zero or more, starting from E1's fit as well as from the cold starts, so
    /// the loss is never above E1's.
    Both,
    /// [`ServerTerms::Both`] if it lowers E1's loss by at least [`SERVER_TERMS_MIN_GAIN`],
    /// else E1: the terms are kept only where the models fitted show them (the Sia
    /// clusters, `calibrate_cluster`).
    Selected,
}

/// The share of E1's loss the node terms must remove to be kept by
/// [`ServerTerms::Selected`]. On the Sia clusters they remove 0–3% where no model's steps
/// follow the GPUs per server (a few per cent is what two more free parameters buy on
/// thousands of noisy rows) and a third on `azure`, where they do; a tenth separates the two
/// with room on both sides (`docs/CALIBRATION.md`).
pub const SERVER_TERMS_MIN_GAIN: f64 = 0.10;

/// The result of [`fit_shared`]: one cluster's tiers and straggler coefficient.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SharedFit {
    /// `B_intra`, bytes/s.
    pub intra_bytes_per_s: f64,
    /// `B_inter`, bytes/s.
    pub inter_bytes_per_s: f64,
    pub straggler: f64,
    /// `κ`, zero unless fitted ([`ServerTerms`]).
    pub server_compute: f64,
    /// `λ`, zero unless fitted.
    pub server_ring: f64,
    /// Per model in the order given; with [`Overlap::Shared`] all equal.
    pub overlaps: Vec<f64>,
    /// Per model, from its single-GPU rows.
    pub compute: Vec<ComputeCurve>,
    /// Mean over models of each model's mean squared log error.
    pub loss: f64,
    pub evaluations: u32,
}

impl SharedFit {
    /// The parameters that predict a model of `grad_bytes` with this compute curve and
    /// overlap on the fitted cluster.
    pub fn params(&self, compute: ComputeCurve, grad_bytes: f64, overlap: f64) -> FileParams {
        FileParams {
            compute,
            tau_intra_s: grad_bytes / self.intra_bytes_per_s,
            tau_inter_s: grad_bytes / self.inter_bytes_per_s,
            overlap,
            straggler: self.straggler,
            server_compute: self.server_compute,
            server_ring: self.server_ring,
            alpha_intra_s: ALPHA_INTRA_S,
            alpha_inter_s: ALPHA_INTER_S,
        }
    }

    /// The parameters of model `i` of the fit.
    pub fn params_of(&self, i: usize, grad_bytes: f64) -> FileParams {
        self.params(self.compute[i], grad_bytes, self.overlaps[i])
    }
}

/// Fits `B_intra`, `B_inter` and `σ` shared by several models of one cluster, with an
/// overlap per model or one shared: [`fit_shared_with`] without the node terms.
pub fn fit_shared(models: &[ModelData], overlap: Overlap) -> SharedFit {
    fit_shared_with(models, overlap, ServerTerms::Zero)
}

/// Fits `B_intra`, `B_inter`, `σ` and, as `terms` says, `κ` and `λ` shared by several
/// models of one cluster, with an overlap per model or one shared. E1 is always fitted first;
/// the node terms start from its result (and from the cold starts of [`fit_form`]).
pub fn fit_shared_with(models: &[ModelData], overlap: Overlap, terms: ServerTerms) -> SharedFit {
    let e1 = fit_form(models, overlap, None);
    match terms {
        ServerTerms::Zero => e1,
        ServerTerms::Both => fit_form(models, overlap, Some(&e1)),
        ServerTerms::Selected => {
            let both = fit_form(models, overlap, Some(&e1));
            if both.loss < (1.0 - SERVER_TERMS_MIN_GAIN) * e1.loss {
                both
            } else {
                e1
            }
        }
    }
}

/// One fit by Nelder–Mead on `(ln B_intra, ln B_inter, σ, [κ, λ,] ov...)` (bandwidths in
/// GB/s): E1 alone without `e1`, with the node terms when given E1's fit to start from. Each
/// model's compute curve comes from its own single-GPU rows; each model weighs the same
/// whatever its row count. Runs from two starts, `B_intra` = 2 and 20 GB/s, because
/// intra-node exchange is mostly hidden and the loss has a plateau at high `B_intra`, plus
/// E1's optimum with zero node terms when given; the best result is kept.
fn fit_form(models: &[ModelData], overlap: Overlap, e1: Option<&SharedFit>) -> SharedFit {
    let compute: Vec<ComputeCurve> = models.iter().map(|m| fit_compute(m.samples).curve).collect();
    let rows: Vec<Vec<Row>> = models.iter().zip(&compute).map(|(m, c)| Row::of(m.samples, c)).collect();
    let n_ov = if overlap == Overlap::PerModel { models.len() } else { 1 };
    // The node terms sit between `σ` and the overlaps; without them the vector is E1's, so
    // that fit takes the same path as before the terms existed.
    let n_terms = if e1.is_some() { 2 } else { 0 };
    let unpack = |x: &[f64]| -> (f64, f64, f64) { (libm::exp(x[0]) * 1e9, libm::exp(x[1]) * 1e9, x[2].abs()) };
    let server_of = |x: &[f64]| -> (f64, f64) {
        if n_terms == 2 {
            (x[3].abs(), x[4].abs())
        } else {
            (0.0, 0.0)
        }
    };
    let ov_of = |x: &[f64], i: usize| -> f64 { x[3 + n_terms + if n_ov == 1 { 0 } else { i }].abs().min(1.0) };
    let loss = |x: &[f64]| -> f64 {
        let (bi, be, sg) = unpack(x);
        let server = server_of(x);
        let mut total = 0.0;
        for (i, m) in models.iter().enumerate() {
            let (tiers, ov) = ((m.grad_bytes / bi, m.grad_bytes / be), ov_of(x, i));
            let mut s = 0.0;
            for r in &rows[i] {
                s += r.sq_log_error_on_cluster(tiers, ov, sg, server);
            }
            total += s / rows[i].len() as f64;
        }
        total / models.len() as f64
    };
    let mut steps = vec![0.5, 0.5, 0.1];
    steps.extend(std::iter::repeat_n(0.1, n_terms));
    steps.extend(std::iter::repeat_n(0.2, n_ov));
    let mut starts = Vec::new();
    for b_intra_start in [2.0, 20.0] {
        let mut x0 = vec![libm::log(b_intra_start), libm::log(0.5), 0.1];
        x0.extend(std::iter::repeat_n(0.0, n_terms));
        x0.extend(std::iter::repeat_n(0.5, n_ov));
        starts.push(x0);
    }
    if let Some(e1) = e1 {
        let mut x0 = vec![libm::log(e1.intra_bytes_per_s / 1e9), libm::log(e1.inter_bytes_per_s / 1e9), e1.straggler];
        x0.extend([0.0, 0.0]);
        x0.extend(e1.overlaps.iter().take(n_ov));
        starts.push(x0);
    }
    let mut best: Option<(Vec<f64>, f64, u32)> = None;
    let mut evaluations = 0;
    for x0 in &starts {
        let (x, fx, e) = nelder_mead(&loss, x0, &steps, 6000, 3);
        evaluations += e;
        if best.as_ref().is_none_or(|b| fx < b.1) {
            best = Some((x, fx, e));
        }
    }
    let (x, fx, _) = best.expect("two starts ran");
    let (bi, be, sg) = unpack(&x);
    let (server_compute, server_ring) = server_of(&x);
    SharedFit {
        intra_bytes_per_s: bi,
        inter_bytes_per_s: be,
        straggler: sg,
        server_compute,
        server_ring,
        overlaps: (0..models.len()).map(|i| ov_of(&x, i)).collect(),
        compute,
        loss: fx,
        evaluations: evaluations + e1.map_or(0, |f| f.evaluations),
    }
}

/// One held-out model of [`leave_one_out`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeldOut {
    pub name: String,
    /// The cluster fitted on the other models, with one shared overlap.
    pub fit: SharedFit,
    /// The held-out model's parameters: its own compute curve and gradient size, the rest
    /// from `fit`.
    pub params: FileParams,
    pub predictions: Vec<Prediction>,
    /// The cluster fitted on the other models with an overlap per model, and the held-out
    /// model predicted with each of the `fixed_overlaps` asked for: how the catalogue treats
    /// a model it has not timed on several GPUs (a calibrated cluster, a default overlap).
    pub per_model_fit: SharedFit,
    pub with_overlap: Vec<(f64, Vec<Prediction>)>,
}

/// For each model: fit the cluster (shared tiers, `σ`, one shared overlap) on the others,
/// then predict it from only its single-GPU rows and its gradient size. This is how well
/// the simulator can predict a model it has only timed on one GPU. Each held-out model is
/// also predicted with every overlap of `fixed_overlaps` on the cluster fitted to the
/// others with an overlap per model.
pub fn leave_one_out(models: &[ModelData], fixed_overlaps: &[f64]) -> Vec<HeldOut> {
    leave_one_out_with(models, fixed_overlaps, ServerTerms::Zero)
}

/// [`leave_one_out`], fitting the node terms or not as `terms` says. The held-out model's
/// rows are in none of the fits, the node terms' included: it is predicted from its
/// single-GPU rows, its size and what the others gave.
pub fn leave_one_out_with(models: &[ModelData], fixed_overlaps: &[f64], terms: ServerTerms) -> Vec<HeldOut> {
    (0..models.len())
        .map(|held| {
            let others: Vec<ModelData> =
                models.iter().enumerate().filter(|&(i, _)| i != held).map(|(_, m)| *m).collect();
            let fit = fit_shared_with(&others, Overlap::Shared, terms);
            let m = &models[held];
            let compute = fit_compute(m.samples).curve;
            let params = fit.params(compute, m.grad_bytes, fit.overlaps[0]);
            let per_model_fit = fit_shared_with(&others, Overlap::PerModel, terms);
            let with_overlap = fixed_overlaps
                .iter()
                .map(|&ov| (ov, per_model_fit.params(compute, m.grad_bytes, ov).predict_all(m.samples)))
                .collect();
            HeldOut {
                name: m.name.to_string(),
                predictions: params.predict_all(m.samples),
                params,
                fit,
                per_model_fit,
                with_overlap,
            }
        })
        .collect()
}
