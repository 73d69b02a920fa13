//! Compute times on GPUs a model was not measured on: scaled from a GPU it was measured on by
//! a published ratio of per-GPU training throughput, and marked as estimates.
//!
//! A catalogue for a GPU of [`GpuKind::ALL`] holds, after the models measured on it (in their
//! built-in order, so that their ids and every run that uses only them stay as they were),
//! every other built-in model that fits the GPU, scaled from the nearest GPU it was measured
//! on ([`LADDER`]):
//!
//! - a row measured as throughput (the convolutional networks, BERT-base, NCF and the other
//!   Pollux models) scales by the ratio of one benchmark's per-GPU throughput on the two GPUs
//!   ([`CNN_SPEED`] for convolutional, recurrent and recommendation models, [`TRANSFORMER_SPEED`]
//!   for transformers);
//! - a row estimated from a published MFU (the transformers of today) keeps that MFU and
//!   takes the target's dense bf16 peak: it scales by the ratio of the two peaks
//!   ([`per_gpu::PEAK_BF16_FLOPS`]). Such rows do not scale to a GPU without bf16 (the T4);
//! - a model measured on none of these GPUs scales from its built-in V100 estimate.
//!
//! A model is refused, with its reason, where it cannot train: data parallel with more Adam
//! state than the GPU's memory, or in bf16 on a GPU without it.

use serde::Serialize;

use super::{built_in, per_gpu, ComputeCurve, ModelProfile, Parallelism, Precision};
use crate::topology::GpuKind;

/// How an estimated compute time was derived: the GPU it was measured (or, for V100,
/// estimated) on, the target's throughput relative to that GPU's, and where the ratio comes
/// from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    pub from_gpu: String,
    pub ratio: f64,
    pub source: String,
}

impl Estimate {
    /// `estimated from A100 x 0.20 (source)`, for listings and notices.
    pub fn label(&self) -> String {
        format!("estimated from {} x {:.2} ({})", self.from_gpu, self.ratio, self.source)
    }
}

/// The GPUs in order of generation, with the V100 of the built-in estimates: a model is scaled
/// from the measured GPU nearest the target in this order.
pub const LADDER: [&str; 6] = ["T4", "V100", "A100", "H100", "B200", "GB200"];

/// Single-GPU fp32 training throughput of ResNet-50, images/s, which sets the ratios between
/// GPUs for convolutional networks (and, for want of their own, DeepSpeech2 and YOLOv3). V100,
/// A100 and H100: Lambda's PyTorch benchmark in fp32 (TF32 tensor cores on A100 and H100;
/// `pytorch/pytorch-train-throughput-fp32.csv` as of commit 0551cb70: "LambdaCloud V100 16GB"
/// 369, "A100 80GB SXM4" 1,066, "H100 80GB SXM5" 1,753). Its NCF column gives the same
/// A100/V100 ratio (28.65M / 9.93M samples/s = 2.885 against 2.889), so NCF uses it too. T4:
/// the catalogue's own ResNet-50 fit on the Pollux testbed's T4 at the largest batch measured
/// there (200 images in 0.07191 + 0.0043126 x 200 s: 214.0 images/s), as Lambda's benchmark
/// runs each GPU at the largest batch it holds; 0.58 of the V100, near the ratio of their fp32
/// peaks (8.1 and 14-15.7 TFLOPS, NVIDIA T4 and V100 datasheets).
pub const CNN_SPEED: &[(&str, f64)] = &[("T4", 214.0), ("V100", 369.0), ("A100", 1066.0), ("H100", 1753.0)];

/// The same for transformers, from BERT-base fine-tuned on SQuAD (samples/s): Lambda's
/// `bert_base_squad` column (V100 42, A100 239, H100 408; TF32 favours transformers over
/// CNNs) and the catalogue's T4 fit of the Pollux BERT job at its largest batch (12 samples
/// in 0.22328 + 0.058254 x 12 s: 13.01 samples/s).
pub const TRANSFORMER_SPEED: &[(&str, f64)] = &[("T4", 13.01), ("V100", 42.0), ("A100", 239.0), ("H100", 408.0)];

/// Where [`CNN_SPEED`] and [`TRANSFORMER_SPEED`] come from, in a row's source.
const SPEED_SOURCE: &str = "single-GPU fp32 training throughput, Lambda's PyTorch benchmark (lambdal/deeplearning-benchmark, pytorch-train-throughput-fp32.csv) and the Pollux T4 fits";
/// Where the Blackwell ratios come from.
const PEAK_SOURCE: &str =
    "dense bf16 peaks, NVIDIA datasheets, the same fraction of peak assumed as on the GPU measured";

/// The transformers, which scale by BERT-base's ratios; every other model by ResNet-50's.
const TRANSFORMERS: &[&str] = &["bert", "bert-large", "gpt2", "transformer", "gpt2-xl", "llama-7b", "llama-13b"];

/// Throughput of `gpu` relative to the others for models of `name`'s kind. The Blackwell GPUs
/// have no published fp32 benchmark of these models: they take the H100's figure times the
/// ratio of dense bf16 peaks (2.28 for B200, 2.53 for GB200); NVIDIA's MLPerf Training v4.1
/// results put B200 at 2.0-2.2 times H100 per GPU on GPT-3 175B and Llama 2 70B fine-tuning,
/// so the peak ratio is the upper end of what has been measured.
fn speed(name: &str, gpu: &str) -> Option<f64> {
    let table = if TRANSFORMERS.contains(&name) { TRANSFORMER_SPEED } else { CNN_SPEED };
    if let Some(&(_, s)) = table.iter().find(|(g, _)| *g == gpu) {
        return Some(s);
    }
    let h100 = table.iter().find(|(g, _)| *g == "H100")?.1;
    Some(h100 * per_gpu::peak_bf16(gpu)? / per_gpu::peak_bf16("H100")?)
}

fn rank(gpu: &str) -> usize {
    LADDER.iter().position(|g| g.eq_ignore_ascii_case(gpu)).unwrap_or(LADDER.len())
}

/// The ratio by which `measured` (a profile on its GPU) scales to `target`, and its source:
/// the peak ratio for bf16 rows (MFU estimates), the benchmark ratio for the others.
fn ratio(measured: &ModelProfile, target: &str) -> Option<(f64, &'static str)> {
    let from = measured.gpu.as_str();
    if measured.precision == Precision::Bf16 {
        return Some((per_gpu::peak_bf16(target)? / per_gpu::peak_bf16(from)?, PEAK_SOURCE));
    }
    let r = speed(&measured.name, target)? / speed(&measured.name, from)?;
    let blackwell = |g: &str| rank(g) >= rank("B200");
    let source = match (blackwell(from), blackwell(target)) {
        (false, false) => SPEED_SOURCE,
        (true, true) => PEAK_SOURCE,
        _ => SPEED_AND_PEAK_SOURCE,
    };
    Some((r, source))
}

/// The source of a ratio that crosses into Blackwell from a benchmarked GPU.
const SPEED_AND_PEAK_SOURCE: &str =
    "Lambda's PyTorch fp32 benchmark up to the H100, then the ratio of dense bf16 peaks (NVIDIA datasheets)";

/// `model` as measured on one GPU, scaled to `target` by `ratio` (the target's throughput
/// over the measured GPU's): every compute time divided by it. The batch a T4 holds stays the
/// largest per-GPU batch, which is conservative on GPUs with more memory.
fn scaled(model: &ModelProfile, target: &str, ratio: f64, why: &str) -> ModelProfile {
    let estimate = Estimate { from_gpu: model.gpu.clone(), ratio, source: why.to_string() };
    ModelProfile {
        compute_s: model.compute_s / ratio,
        compute_curve: model
            .compute_curve
            .map(|c| ComputeCurve { fixed_s: c.fixed_s / ratio, per_sample_s: c.per_sample_s / ratio }),
        compute_points: model.compute_points.iter().map(|&(b, t)| (b, t / ratio)).collect(),
        gpu: target.to_string(),
        source: format!("{}; compute time for the {target} {}", model.source, estimate.label()),
        estimate: Some(estimate),
        ..model.clone()
    }
}

/// Why `model` (a built-in entry, `parallelism` as its rows train it) cannot train on
/// `target`, if it cannot: data parallel, every GPU holds all of its Adam state in mixed
/// precision (16 bytes a parameter, ZeRO §3.1), which must fit the GPU's memory.
fn memory_refusal(model: &ModelProfile, parallelism: Parallelism, target: GpuKind) -> Option<String> {
    let state_gb = model.params_millions * 1.0e6 * per_gpu::ADAM_MIXED_PRECISION_BYTES_PER_PARAM / 1.0e9;
    (parallelism == Parallelism::DataParallel && state_gb > target.memory_gb()).then(|| {
        format!(
            "trained data parallel, every GPU holds its {state_gb:.1} GB of Adam state (16 bytes a parameter), more than a {}'s {:.0} GB",
            target.name(),
            target.memory_gb()
        )
    })
}

/// The built-in catalogue and the catalogues measured on each GPU of [`LADDER`] but V100
/// (whose entries are the built-in estimates), computed once for all of a GPU's estimates.
struct Measurements {
    built_in: Vec<ModelProfile>,
    by_gpu: Vec<Vec<ModelProfile>>,
}

impl Measurements {
    fn new() -> Measurements {
        Measurements {
            built_in: built_in::built_in_models(None),
            by_gpu: LADDER.iter().filter(|g| **g != "V100").map(|g| built_in::built_in_models(Some(g))).collect(),
        }
    }
}

/// `name` (a built-in model) on `target`, where it has no row: scaled from the nearest GPU
/// it was measured on, or from its V100 estimate, or the reason it cannot run.
pub fn estimate_on(name: &str, target: GpuKind) -> Result<ModelProfile, String> {
    estimate_with(&Measurements::new(), name, target)
}

fn estimate_with(known: &Measurements, name: &str, target: GpuKind) -> Result<ModelProfile, String> {
    let base = known.built_in.iter().find(|m| m.name == name).ok_or_else(|| format!("unknown model '{name}'"))?;
    let measured: Vec<&ModelProfile> = known
        .by_gpu
        .iter()
        .filter_map(|models| models.iter().find(|m| m.name == name))
        .filter(|m| !m.gpu.eq_ignore_ascii_case(target.name()))
        .collect();
    let parallelism = measured.first().map_or(base.parallelism, |m| m.parallelism);
    if let Some(why) = memory_refusal(base, parallelism, target) {
        return Err(why);
    }
    let wanted = rank(target.name());
    let nearest = measured
        .iter()
        .filter_map(|m| ratio(m, target.name()).map(|r| (*m, r)))
        .min_by_key(|(m, _)| rank(&m.gpu).abs_diff(wanted));
    if let Some((m, (r, why))) = nearest {
        return Ok(scaled(m, target.name(), r, why));
    }
    if base.gpu == "V100" {
        if let Some(r) = speed(name, target.name()).zip(speed(name, "V100")).map(|(t, v)| t / v) {
            return Ok(scaled(base, target.name(), r, SPEED_SOURCE));
        }
    }
    let on: Vec<&str> = measured.iter().map(|m| m.gpu.as_str()).collect();
    Err(format!("it trains in bf16 (measured on {}), which a {} has no tensor cores for", on.join(", "), target.name()))
}

/// The built-in models missing from `measured` (the catalogue measured on `target`) that run
/// on `target`, estimated, in built-in order.
pub(super) fn estimated_models(target: GpuKind, measured: &[ModelProfile]) -> Vec<ModelProfile> {
    let known = Measurements::new();
    known
        .built_in
        .iter()
        .filter(|m| measured.iter().all(|k| k.name != m.name))
        .filter_map(|m| estimate_with(&known, &m.name, target).ok())
        .collect()
}

#[cfg(test)]
#[path = "estimate_tests.rs"]
mod tests;
