//! One cluster calibrated from several models' tables at once: the all-fit (shared tiers and
//! straggler, an overlap per model), the same with one shared overlap, and leave one model
//! out, summarised as the figures `docs/CALIBRATION.md` reports per cluster.
//!
//! The error a cluster is judged by is the median absolute percentage error of `step_time`.
//! Two medians are given because they answer different questions: the median of each model's
//! own rows (every model must be predicted well), and the median over all rows of all
//! models pooled (how wrong a typical measured configuration is). Pooling weighs models by
//! their row count, so a model with many rows (NCF) moves it most.

use super::*;

/// The figures of one cluster's calibration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterCalibration {
    /// The models in the order given.
    pub models: Vec<String>,
    /// Shared `B_intra`, `B_inter`, `σ`, `κ`, `λ`, an overlap per model, on all models.
    pub all: SharedFit,
    /// The same cluster fitted with one overlap for all models: the default for a model
    /// whose overlap was never measured.
    pub one_overlap: SharedFit,
    /// Per model, the median APE of `step_time` with the all-fit's parameters.
    pub in_sample_median_pct: Vec<f64>,
    /// Over all rows of all models pooled.
    pub in_sample_pooled_median_pct: f64,
    /// Per model, the median APE of `step_time` when the model is held out: the cluster and
    /// one shared overlap fitted on the others, the model predicted from its single-GPU rows
    /// and its gradient size only.
    pub loo_median_pct: Vec<f64>,
    /// Over all rows of all held-out predictions pooled.
    pub loo_pooled_median_pct: f64,
    /// Rows on more than one node, over all models. Without any, `B_inter` is not
    /// identified: the fit leaves it wherever its start put it.
    pub multi_node_rows: u32,
    /// Rows on one node with more than one GPU.
    pub single_node_rows: u32,
    /// The held-out fits themselves, in model order.
    pub held_out: Vec<HeldOut>,
}

impl ClusterCalibration {
    /// The worst per-model leave-one-out median: the figure a target "on every model" is
    /// about.
    pub fn worst_loo_median_pct(&self) -> f64 {
        self.loo_median_pct.iter().copied().fold(0.0, f64::max)
    }

    /// Whether the data expose the network at all.
    pub fn inter_identified(&self) -> bool {
        self.multi_node_rows > 0
    }
}

/// Calibrates one cluster from its models' tables, node terms `κ` and `λ` included:
/// [`fit_shared_with`] with an overlap per model and with one shared overlap, then
/// [`leave_one_out_with`]. Needs three or more models, so
/// every held-out fit still sees two.
pub fn calibrate_cluster(models: &[ModelData]) -> Result<ClusterCalibration, InputError> {
    if models.len() < 3 {
        return Err(InputError::new(
            "models",
            format!("a cluster needs three or more models' tables to leave one out, got {}", models.len()),
        ));
    }
    let terms = ServerTerms::Selected;
    let all = fit_shared_with(models, Overlap::PerModel, terms);
    let one_overlap = fit_shared_with(models, Overlap::Shared, terms);
    let held_out = leave_one_out_with(models, &[], terms);
    let mut pooled_in = Vec::new();
    let mut pooled_loo = Vec::new();
    let mut in_sample_median_pct = Vec::new();
    let mut loo_median_pct = Vec::new();
    for (i, (m, h)) in models.iter().zip(&held_out).enumerate() {
        let fitted = all.params_of(i, m.grad_bytes).predict_all(m.samples);
        let mut errors: Vec<f64> = m.samples.iter().zip(&fitted).map(|(s, p)| ape(p.step_s, s.step_s)).collect();
        pooled_in.extend_from_slice(&errors);
        in_sample_median_pct.push(interpolated_percentile(&mut errors, 50.0));
        let mut errors: Vec<f64> = m.samples.iter().zip(&h.predictions).map(|(s, p)| ape(p.step_s, s.step_s)).collect();
        pooled_loo.extend_from_slice(&errors);
        loo_median_pct.push(interpolated_percentile(&mut errors, 50.0));
    }
    let samples = models.iter().flat_map(|m| m.samples.iter());
    let multi_node_rows = samples.clone().filter(|s| s.nodes > 1).count() as u32;
    let single_node_rows = samples.filter(|s| s.nodes == 1 && s.gpus > 1).count() as u32;
    Ok(ClusterCalibration {
        models: models.iter().map(|m| m.name.to_string()).collect(),
        in_sample_pooled_median_pct: interpolated_percentile(&mut pooled_in, 50.0),
        loo_pooled_median_pct: interpolated_percentile(&mut pooled_loo, 50.0),
        all,
        one_overlap,
        in_sample_median_pct,
        loo_median_pct,
        multi_node_rows,
        single_node_rows,
        held_out,
    })
}

/// The six applications the Sia artifact measured on every cluster, each a folder of
/// `placements-<cluster>.csv` tables (siasosp23/artifacts, `adaptdl/sched/traces/<model>/`),
/// named as the model catalogue names them (`imagenet` is ResNet-50's alias).
pub const SIA_MODELS: &[&str] = &["bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"];
