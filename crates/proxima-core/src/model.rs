//! The catalogue of deep-learning models a job can train.
//!
//! A model is described by what the communication model needs: the compute time of one
//! iteration on one GPU at a reference local batch size, the bytes of gradient exchanged per
//! iteration (its parameter count times four bytes: data-parallel training all-reduces fp32
//! gradients), and how much of that exchange the backward pass hides. Parameter counts are
//! sourced next to each entry.
//!
//! Six entries (BERT-base, ResNet-50, ResNet-18 on CIFAR-10, DeepSpeech2, NCF, YOLOv3: the
//! Pollux applications) were fitted to step times measured on NVIDIA T4 GPUs (the Pollux
//! testbed, `docs/CALIBRATION.md`): their compute curve `c(b) = c0 + c1·b` and their overlap
//! are those fits, and they know the largest per-GPU batch measured, beyond which a job
//! accumulates gradients over several micro-steps ([`ModelProfile::for_batch`]). The others are
//! estimates for a V100-class GPU from published single-GPU throughput, and say so in their
//! `source` and `gpu`. Mixing the two in one simulation means the fitted models run at T4
//! speed beside V100-speed ones: that is the built-in catalogue, for topologies that do not
//! say which GPU they have.
//!
//! A topology that names its GPU (`gpu` in its description; the parametric `fabric=rdma`
//! says A100, `fabric=tcp` T4) gets the catalogue of that GPU ([`Catalog::for_gpu`]): only
//! the models whose compute time was measured on it, each with that measurement. Adding a
//! GPU, or a model to one, is a row of [`MEASURED`] (or, for T4, a fitted entry).

use serde::Serialize;

/// Index of a model in a [`Catalog`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ModelId(pub u16);

/// A compute time that grows linearly with the local batch: `fixed_s + per_sample_s · b`.
/// Per-iteration overheads (optimizer step, kernel launches) make the fixed part.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ComputeCurve {
    pub fixed_s: f64,
    pub per_sample_s: f64,
}

impl ComputeCurve {
    /// Seconds of forward and backward pass on one GPU at local batch `b`.
    pub fn at(&self, b: f64) -> f64 {
        self.fixed_s + self.per_sample_s * b
    }
}

/// What the simulator knows about one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelProfile {
    /// Canonical lower-case key, e.g. `resnet50`.
    pub name: String,
    /// Other spellings traces use for it, e.g. `imagenet` for the Pollux ResNet-50 job.
    pub aliases: Vec<String>,
    /// Human-readable name, e.g. `ResNet-50`.
    pub display: String,
    /// Trainable parameters, in millions.
    pub params_millions: f64,
    /// Seconds of forward and backward pass per iteration on one GPU at `local_batch`.
    pub compute_s: f64,
    /// The per-GPU batch size `compute_s` refers to.
    pub local_batch: u32,
    /// The measured compute curve, for entries fitted to measurements; `compute_s` is this
    /// curve at `local_batch`.
    pub compute_curve: Option<ComputeCurve>,
    /// The GPU `compute_s` is for, e.g. `T4` (measured) or `V100` (estimated).
    pub gpu: String,
    /// `ov`: seconds of gradient exchange the backward pass hides per second of compute, in
    /// [0, 1] (see `comm`). 0 means the exchange starts after compute ends.
    pub overlap: f64,
    /// Where the numbers come from.
    pub source: String,
    /// The largest per-GPU batch one micro-step takes (GPU memory), for entries fitted to
    /// measurements: a job whose per-GPU share of its batch is larger accumulates gradients
    /// over several micro-steps per iteration.
    pub max_local_batch: Option<u32>,
    /// One GPU's measured compute time at several per-GPU batches, `(batch, seconds)` in
    /// increasing batch, for a measured model whose compute is not linear in the batch; it
    /// replaces the compute curve (see [`ModelProfile::compute_at`]). Empty otherwise.
    pub compute_points: Vec<(f64, f64)>,
}

impl ModelProfile {
    /// Bytes all-reduced per iteration: one fp32 value per parameter.
    pub fn grad_bytes(&self) -> f64 {
        self.params_millions * 1.0e6 * 4.0
    }

    /// Seconds of compute on one GPU at per-GPU batch `b`, for measured entries: linear
    /// between the measured points when the entry has them (below the smallest, the
    /// smallest's time: a step's fixed overheads do not shrink with fewer samples; above the
    /// largest, along the last segment, never falling), otherwise the compute curve.
    pub fn compute_at(&self, b: f64) -> Option<f64> {
        let points = &self.compute_points;
        if points.len() < 2 {
            return self.compute_curve.map(|c| c.at(b));
        }
        if b <= points[0].0 {
            return Some(points[0].1);
        }
        let pair = points.windows(2).find(|w| b <= w[1].0).unwrap_or(&points[points.len() - 2..]);
        let ((b0, t0), (b1, t1)) = (pair[0], pair[1]);
        let slope = (t1 - t0) / (b1 - b0);
        Some(if b > b1 { t1 + slope.max(0.0) * (b - b1) } else { t0 + slope * (b - b0) })
    }

    /// The same model at another local batch size, for measured entries.
    pub fn at_local_batch(&self, b: f64) -> Option<ModelProfile> {
        Some(ModelProfile { compute_s: self.compute_at(b)?, ..self.clone() })
    }

    /// The model as a job training at global batch `batch` on `gpus` GPUs runs it, for
    /// entries with a measured compute curve. Each GPU takes `b = batch / gpus` samples per
    /// iteration, in `k = ceil(b / max_local_batch)` micro-steps of `b / k` (gradient
    /// accumulation); only the last micro-step's backward pass overlaps the exchange. One
    /// iteration then computes for `k · c(b / k)`, and the exchange hides behind the last
    /// micro-step only, which the returned profile expresses with `compute_s = k · c(b / k)`
    /// and `overlap = ov / k` (the communication model's `ov · compute` stays `ov · c(b / k)`).
    pub fn for_batch(&self, batch: u32, gpus: u32) -> Option<ModelProfile> {
        if batch == 0 || gpus == 0 {
            return None;
        }
        let local = batch as f64 / gpus as f64;
        let micro_steps = match self.max_local_batch {
            Some(max) if max > 0 => libm::ceil(local / max as f64).max(1.0),
            _ => 1.0,
        };
        let per_step = local / micro_steps;
        let compute_s = micro_steps * self.compute_at(per_step)?;
        let accumulation =
            if micro_steps > 1.0 { format!(" in {micro_steps} micro-steps of {per_step}") } else { String::new() };
        Some(ModelProfile {
            display: format!("{} (batch {batch} on {gpus} GPUs)", self.display),
            compute_s,
            local_batch: libm::ceil(local) as u32,
            compute_curve: None,
            compute_points: Vec::new(),
            overlap: self.overlap / micro_steps,
            source: format!("{}; at global batch {batch} over {gpus} GPUs: {local} per GPU{accumulation}", self.source),
            ..self.clone()
        })
    }
}

/// The models a simulation knows, looked up by name or alias.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Catalog {
    models: Vec<ModelProfile>,
    /// The GPU every compute time is for, when the catalogue is for one.
    gpu: Option<String>,
}

/// The GPU the fitted entries were measured on.
pub const FITTED_GPU: &str = "T4";

/// Where the A100 convolutional networks' throughputs come from: Lambda's TensorFlow
/// benchmark (tf_cnn_benchmarks, synthetic ImageNet data, fp32, TensorFlow 2.3) on one
/// A100-SXM4-40GB.
const LAMBDA_TF_A100: &str =
    "lambdal/lambda-tensorflow-benchmark, logs/7742-1xA100-SXM4-40GB_TF2_3.logs/syn-replicated-fp32-1gpus";

/// Compute times measured on a named GPU, for the catalogues of clusters of that GPU:
/// (model, GPU, samples per second on one GPU, at this local batch, source). The compute
/// time of an iteration is `batch / throughput` at that batch.
pub const MEASURED: &[(&str, &str, f64, u32, &str)] = &[
    ("resnet50", "A100", 571.84, 224, LAMBDA_TF_A100),
    ("resnet152", "A100", 220.92, 112, LAMBDA_TF_A100),
    ("inception3", "A100", 380.01, 224, LAMBDA_TF_A100),
    ("inception4", "A100", 167.56, 56, LAMBDA_TF_A100),
    ("vgg16", "A100", 364.23, 224, LAMBDA_TF_A100),
    ("alexnet", "A100", 6578.68, 1792, LAMBDA_TF_A100),
    // BERT-base fine-tuned on SQuAD v1.1 at sequence 384 (NVIDIA's run_squad.py), fp32, on
    // one A100 80GB SXM4.
    ("bert", "A100", 239.0, 172, "lambdal/deeplearning-benchmark, pytorch/pytorch-train-throughput-fp32.csv and pytorch-train-bs-fp32.csv (bert_base_squad, A100 80GB SXM4)"),
];

/// How a built-in entry knows its compute time.
enum Compute {
    /// Fitted to measurements: `c0` seconds plus `c1` seconds per sample, on a T4.
    Fitted(f64, f64),
    /// Measured on one T4 at several per-GPU batches: `(batch, seconds)`.
    Measured(&'static [(f64, f64)]),
    /// Estimated for a V100-class GPU at the entry's local batch, seconds.
    Estimate(f64),
}

/// Built-in entries: (name, aliases, display, params in millions, compute, local batch,
/// overlap `ov`, source).
type Entry = (&'static str, &'static [&'static str], &'static str, f64, Compute, u32, f64, &'static str);

/// The overlap of a CNN or transformer that has not been measured. The three such models the
/// calibration measured hide 0.59–0.67 s of exchange per second of compute (backward is
/// about two thirds of compute, and DDP all-reduces gradient buckets during it), and a
/// leave-one-model-out test predicts them better with 0.6 than with the all-model 0.35
/// (`docs/CALIBRATION.md`).
const OV_FEEDFORWARD: f64 = 0.6;
/// The overlap of a model of unknown kind: the single overlap that fits all four measured
/// models best, recurrent DeepSpeech2 (0.27) included.
pub const OV_UNKNOWN: f64 = 0.35;

/// Where the fitted entries come from, cited once for all six.
const POLLUX_FIT: &str = "fitted to step times on NVIDIA T4 (Pollux testbed: petuum/adaptdl osdi21-artifact, simulator/traces/*/placements.csv; docs/CALIBRATION.md)";

const BUILT_IN: &[Entry] = &[
    ("resnet18", &["resnet-18"], "ResNet-18", 11.69, Compute::Estimate(0.107), 128, OV_FEEDFORWARD,
     "params: He et al. 2016 / torchvision resnet18 (11.69M); compute: estimate from ~1,200 img/s fp32 on a V100; overlap: CNN default"),
    // ResNet-50 is the Pollux `imagenet` job: torchvision resnet50, 25,557,032 parameters.
    ("resnet50", &["resnet-50", "imagenet"], "ResNet-50", 25.557032, Compute::Fitted(0.07191, 0.0043126), 64, 0.653,
     "params: torchvision resnet50 (25,557,032); compute c(b) = 0.07191 + 0.0043126 b s and overlap 0.653 POLLUX"),
    ("resnet101", &["resnet-101"], "ResNet-101", 44.55, Compute::Estimate(0.29), 64, OV_FEEDFORWARD,
     "params: torchvision resnet101 (44.55M); compute: estimate from ~220 img/s fp32 on a V100; overlap: CNN default"),
    ("resnet152", &["resnet-152"], "ResNet-152", 60.19, Compute::Estimate(0.43), 64, OV_FEEDFORWARD,
     "params: torchvision resnet152 (60.19M); compute: estimate from ~150 img/s fp32 on a V100; overlap: CNN default"),
    ("vgg11", &["vgg-11"], "VGG-11", 132.86, Compute::Estimate(0.16), 64, OV_FEEDFORWARD,
     "params: Simonyan & Zisserman 2015 / torchvision vgg11 (132.86M); compute: estimate from ~400 img/s fp32 on a V100; overlap: CNN default"),
    ("vgg16", &["vgg-16"], "VGG-16", 138.36, Compute::Estimate(0.27), 64, OV_FEEDFORWARD,
     "params: torchvision vgg16 (138.36M); compute: estimate from ~240 img/s fp32 on a V100; overlap: CNN default"),
    ("vgg19", &["vgg-19"], "VGG-19", 143.67, Compute::Estimate(0.32), 64, OV_FEEDFORWARD,
     "params: torchvision vgg19 (143.67M); compute: estimate from ~200 img/s fp32 on a V100; overlap: CNN default"),
    ("alexnet", &[], "AlexNet", 61.10, Compute::Estimate(0.043), 128, OV_FEEDFORWARD,
     "params: torchvision alexnet (61.10M); compute: estimate from ~3,000 img/s fp32 on a V100; overlap: CNN default"),
    ("inception3", &["inception-v3", "inceptionv3", "inception_v3"], "Inception-v3", 27.16, Compute::Estimate(0.26), 64, OV_FEEDFORWARD,
     "params: Szegedy et al. 2016 / torchvision inception_v3 (27.16M); compute: estimate from ~250 img/s fp32 on a V100; overlap: CNN default"),
    ("inception4", &["inception-v4", "inceptionv4", "inception_v4"], "Inception-v4", 42.68, Compute::Estimate(0.40), 64, OV_FEEDFORWARD,
     "params: Szegedy et al. 2017 (42.68M); compute: estimate from ~160 img/s fp32 on a V100; overlap: CNN default"),
    ("googlenet", &[], "GoogLeNet", 6.62, Compute::Estimate(0.128), 128, OV_FEEDFORWARD,
     "params: torchvision googlenet (6.62M); compute: estimate from ~1,000 img/s fp32 on a V100; overlap: CNN default"),
    // BERT is the Pollux `bert` job: BertForQuestionAnswering from bert-base-uncased (SQuAD
    // v1.1, sequence 384), 109,483,778 parameters with the unused pooler.
    ("bert", &["bert-base", "bert_base"], "BERT-base", 109.483778, Compute::Fitted(0.22328, 0.058254), 12, 0.594,
     "params: BERT-base for SQuAD, bert-base-uncased + QA head (109,483,778); compute c(b) = 0.22328 + 0.058254 b s and overlap 0.594 POLLUX"),
    ("bert-large", &["bert_large"], "BERT-large", 340.0, Compute::Estimate(0.80), 8, OV_FEEDFORWARD,
     "params: Devlin et al. 2019, BERT-large (340M); compute: estimate for sequence 384 on a V100; overlap: transformer default"),
    ("gpt2", &["gpt-2"], "GPT-2 (124M)", 124.44, Compute::Estimate(0.60), 8, OV_FEEDFORWARD,
     "params: Radford et al. 2019, GPT-2 small (124M); compute: estimate for sequence 1024 on a V100; overlap: transformer default"),
    ("transformer", &[], "Transformer (base)", 65.0, Compute::Estimate(0.20), 64, OV_FEEDFORWARD,
     "params: Vaswani et al. 2017, base model (65M); compute: estimate for a V100; overlap: transformer default"),
    // DeepSpeech2 as the Pollux artifact trains it (deepspeech.pytorch): two conv layers,
    // five bidirectional GRU layers of 800, 29 labels: 41,187,968 parameters.
    ("deepspeech2", &["deepspeech"], "DeepSpeech2", 41.187968, Compute::Fitted(0.19079, 0.025488), 20, 0.266,
     "params: deepspeech.pytorch as in the Pollux artifact, 2 conv + 5 BiGRU(800) (41,187,968); compute c(b) = 0.19079 + 0.025488 b s and overlap 0.266 (recurrent: hides little) POLLUX"),
    // YOLOv3 as the Pollux artifact trains it (benchmark/models/yolov3: Darknet-53, the
    // YOLOv3 neck, 20 PASCAL VOC classes): the 80-class model's 61,949,149 parameters less
    // 180 output channels in each of the three 1x1 output convolutions (inputs 1,024, 512
    // and 256, with biases): 61,949,149 - 180 x (1,792 + 3) = 61,626,049.
    ("yolov3", &["yolo"], "YOLOv3", 61.626049, Compute::Measured(YOLOV3_COMPUTE), 8, 0.137,
     "params: YOLOv3 (Redmon & Farhadi 2018) with a 20-class VOC head as in the Pollux artifact (61,626,049); compute: the single-GPU step times of placements.csv, linear between them (not linear in the batch); overlap 0.137 (on the fitted cluster) POLLUX"),
    // NCF as the Pollux artifact trains it (benchmark/models/ncf: NeuMF-end, 32 factors,
    // three MLP layers, MovieLens-1M's 6,040 users and 3,706 items): embeddings
    // 9,746 x (32 + 128) = 1,559,360, MLP 256-128-64-32 = 43,232, output 65: 1,602,657.
    ("ncf", &["neumf"], "NCF (NeuMF)", 1.602657, Compute::Fitted(0.0075109, 4.5813e-7), 32768, 0.276,
     "params: NeuMF (He et al. 2017) on MovieLens-1M as in the Pollux artifact (1,602,657); compute c(b) = 0.0075109 + 4.5813e-7 b s and overlap 0.276 (on the fitted cluster) POLLUX"),
    // The Pollux `cifar10` job: ResNet-18 for 32x32 inputs (kuangliu/pytorch-cifar),
    // 11,173,962 parameters.
    ("cifar10", &["resnet18-cifar", "resnet18_cifar10"], "ResNet-18 (CIFAR-10)", 11.173962, Compute::Fitted(0.020375, 0.00064985), 257, 0.668,
     "params: ResNet-18 for 32x32 inputs, kuangliu/pytorch-cifar (11,173,962); compute c(b) = 0.020375 + 0.00064985 b s and overlap 0.668 POLLUX"),
];

/// YOLOv3's single-GPU step times on a T4 at per-GPU batches 4, 6, 8, 11 and 16 (petuum/adaptdl
/// `osdi21-artifact`, `simulator/traces/yolov3/placements.csv`, placement `1`). Its compute is
/// far from linear in the batch: 6 and 11 take 40-80% longer than a line through 4, 8 and 16,
/// on every one of the 108 measured placements (median step − sync 0.25, 0.42, 0.30, 0.54,
/// 0.53 s), so a line through all five puts the batch YOLOv3 trains at (8) 19% too slow.
const YOLOV3_COMPUTE: &[(f64, f64)] =
    &[(4.0, 0.26694), (6.0, 0.45066), (8.0, 0.32615), (11.0, 0.57168), (16.0, 0.57261)];

/// The largest per-GPU batch measured on a T4 for each fitted entry: the largest `local_bsz`
/// of its `placements.csv`, which the Pollux simulator takes as the memory limit
/// (`max_local_bsz` in `simulator/applications.py`), except YOLOv3, whose limit the artifact
/// sets to 8 although it measured up to 16.
const MAX_LOCAL_BATCH: &[(&str, u32)] =
    &[("bert", 12), ("resnet50", 200), ("cifar10", 1024), ("deepspeech2", 80), ("ncf", 32768), ("yolov3", 8)];

impl Catalog {
    /// The catalogue shipped with Proxima.
    pub fn built_in() -> Catalog {
        let models = BUILT_IN
            .iter()
            .map(|(name, aliases, display, params, compute, batch, overlap, source)| {
                let (compute_curve, compute_points, gpu) = match *compute {
                    Compute::Fitted(c0, c1) => (Some(ComputeCurve { fixed_s: c0, per_sample_s: c1 }), Vec::new(), "T4"),
                    Compute::Measured(points) => (None, points.to_vec(), "T4"),
                    Compute::Estimate(_) => (None, Vec::new(), "V100"),
                };
                let mut model = ModelProfile {
                    name: name.to_string(),
                    aliases: aliases.iter().map(|a| a.to_string()).collect(),
                    display: display.to_string(),
                    params_millions: *params,
                    compute_s: 0.0,
                    local_batch: *batch,
                    compute_curve,
                    compute_points,
                    gpu: gpu.to_string(),
                    overlap: *overlap,
                    source: source.replace("POLLUX", POLLUX_FIT),
                    max_local_batch: MAX_LOCAL_BATCH.iter().find(|(n, _)| n == name).map(|&(_, b)| b),
                };
                model.compute_s = match *compute {
                    Compute::Estimate(s) => s,
                    _ => model.compute_at(*batch as f64).expect("measured entries have a compute curve or points"),
                };
                model
            })
            .collect();
        Catalog { models, gpu: None }
    }

    /// The catalogue of a cluster of `gpu` GPUs: the built-in models whose compute time is
    /// for that GPU (the entries measured on T4 for T4, rows of [`MEASURED`] for others), in
    /// built-in order, each with that time; `None` if no model has one.
    pub fn for_gpu(gpu: &str) -> Option<Catalog> {
        let models: Vec<ModelProfile> = Catalog::built_in()
            .models
            .into_iter()
            .filter_map(|m| {
                if let Some(&(_, g, throughput, batch, source)) =
                    MEASURED.iter().find(|(name, g, ..)| *name == m.name && g.eq_ignore_ascii_case(gpu))
                {
                    let params = m.source.split("; compute").next().unwrap_or("").to_string();
                    return Some(ModelProfile {
                        compute_s: batch as f64 / throughput,
                        local_batch: batch,
                        compute_curve: None,
                        gpu: g.to_string(),
                        source: format!(
                            "{params}; compute: {batch} samples at {throughput} samples/s on one {g} ({source}); overlap: as the built-in entry"
                        ),
                        ..m
                    });
                }
                m.gpu.eq_ignore_ascii_case(gpu).then_some(m)
            })
            .collect();
        (!models.is_empty()).then(|| Catalog { models, gpu: Some(gpu.to_string()) })
    }

    /// The catalogue for a cluster: that of the GPU its description names, or the built-in
    /// one when it names none. An error names the GPU when nothing was measured on it.
    pub fn for_gpu_or_built_in(gpu: Option<&str>) -> Result<Catalog, crate::error::InputError> {
        match gpu {
            None => Ok(Catalog::built_in()),
            Some(g) => Catalog::for_gpu(g).ok_or_else(|| {
                crate::error::InputError::new("gpu", format!("no model's compute time was measured on a '{g}'"))
            }),
        }
    }

    pub fn from_models(models: Vec<ModelProfile>) -> Catalog {
        Catalog { models, gpu: None }
    }

    /// The GPU every compute time is for, if the catalogue is for one.
    pub fn gpu(&self) -> Option<&str> {
        self.gpu.as_deref()
    }

    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Adds a model (e.g. a job's [`ModelProfile::for_batch`]) and returns its id. Lookups
    /// by name still find the first entry of a name.
    pub fn add(&mut self, model: ModelProfile) -> ModelId {
        self.models.push(model);
        ModelId((self.models.len() - 1) as u16)
    }

    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    pub fn get(&self, id: ModelId) -> &ModelProfile {
        &self.models[id.0 as usize]
    }

    pub fn models(&self) -> impl Iterator<Item = (ModelId, &ModelProfile)> {
        self.models.iter().enumerate().map(|(i, m)| (ModelId(i as u16), m))
    }

    /// Finds a model by name or alias, ignoring case and surrounding spaces.
    pub fn lookup(&self, name: &str) -> Option<ModelId> {
        let wanted = name.trim().to_ascii_lowercase();
        self.models().find_map(|(id, m)| {
            let hit = m.name == wanted || m.aliases.contains(&wanted);
            hit.then_some(id)
        })
    }

    /// The canonical names, for error messages that list what is known.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_by_name_and_alias() {
        let c = Catalog::built_in();
        let r50 = c.lookup("ResNet50").unwrap();
        assert_eq!(c.lookup(" imagenet ").unwrap(), r50);
        assert_eq!(c.get(r50).display, "ResNet-50");
        assert!(c.lookup("no-such-model").is_none());
    }

    #[test]
    fn a_batch_sets_the_compute_time_with_accumulation_beyond_memory() {
        let c = Catalog::built_in();
        let bert = c.get(c.lookup("bert").unwrap());
        assert_eq!(bert.max_local_batch, Some(12));
        // 384 over 6 GPUs: 64 per GPU, more than the 12 a T4 holds, so 6 micro-steps of
        // 10.67; the exchange overlaps the last one only.
        let p = bert.for_batch(384, 6).unwrap();
        let per_step = 64.0 / 6.0;
        assert_eq!(p.compute_s, 6.0 * (0.22328 + 0.058254 * per_step));
        assert_eq!(p.overlap, 0.594 / 6.0);
        assert_eq!((p.name.as_str(), p.local_batch, p.compute_curve), ("bert", 64, None));
        // Within memory: one step at the per-GPU batch.
        let cifar = c.get(c.lookup("cifar10").unwrap());
        let p = cifar.for_batch(2052, 6).unwrap();
        assert_eq!((p.compute_s, p.overlap), (0.020375 + 0.00064985 * 342.0, 0.668));
        // Entries without a measured curve keep their fixed compute time.
        assert!(c.get(c.lookup("vgg16").unwrap()).for_batch(256, 4).is_none());
    }

    #[test]
    fn measured_points_are_interpolated_and_held_at_the_ends() {
        let c = Catalog::built_in();
        let yolo = c.get(c.lookup("yolov3").unwrap());
        // At a measured batch, the measurement; between two, linear; YOLOv3 trains at 8.
        assert_eq!(yolo.compute_at(8.0), Some(0.32615));
        assert_eq!(yolo.compute_s, 0.32615);
        assert!((yolo.compute_at(7.0).unwrap() - (0.45066 + 0.32615) / 2.0).abs() < 1e-12);
        // Below the smallest, the smallest's time; above the largest, the last segment's
        // slope, here almost flat (0.57168 at 11, 0.57261 at 16).
        assert_eq!(yolo.compute_at(1.0), Some(0.26694));
        assert!((yolo.compute_at(21.0).unwrap() - (0.57261 + (0.57261 - 0.57168) / 5.0 * 5.0)).abs() < 1e-12);
        // 64 over 4 GPUs: 16 each, two micro-steps of 8 (the artifact's memory limit).
        let p = yolo.for_batch(64, 4).unwrap();
        assert_eq!((p.compute_s, p.overlap), (2.0 * 0.32615, 0.137 / 2.0));
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let c = Catalog::built_in();
        let mut all: Vec<String> = Vec::new();
        for (_, m) in c.models() {
            all.push(m.name.clone());
            all.extend(m.aliases.iter().cloned());
        }
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n, "a name or alias appears twice");
        for (_, m) in c.models() {
            assert!(m.params_millions > 0.0 && m.compute_s > 0.0 && (0.0..=1.0).contains(&m.overlap), "{}", m.name);
            // The GPU a compute time is for is stated, and measured entries cite the
            // measurements.
            match m.compute_at(m.local_batch as f64) {
                Some(c) => {
                    assert_eq!(m.gpu, "T4", "{}", m.name);
                    assert_eq!(m.compute_s, c);
                    assert!(m.source.contains("placements.csv"), "{}", m.name);
                    assert!(m.max_local_batch.is_some(), "{}", m.name);
                }
                None => assert!(m.gpu == "V100" && m.source.contains("V100"), "{}", m.name),
            }
        }
    }

    #[test]
    fn a_gpu_catalogue_holds_only_models_measured_on_it() {
        let a100 = Catalog::for_gpu("A100").unwrap();
        assert_eq!(a100.gpu(), Some("A100"));
        assert_eq!(a100.names(), ["resnet50", "resnet152", "vgg16", "alexnet", "inception3", "inception4", "bert"]);
        let r50 = a100.get(a100.lookup("imagenet").unwrap());
        // 224 images at 571.84 images/s.
        assert_eq!((r50.compute_s, r50.local_batch, r50.gpu.as_str()), (224.0 / 571.84, 224, "A100"));
        assert_eq!(r50.overlap, 0.653, "the overlap stays the built-in one");
        assert!(
            r50.source.starts_with("params: torchvision resnet50") && r50.source.contains("lambda"),
            "{}",
            r50.source
        );
        let t4 = Catalog::for_gpu("t4").unwrap();
        assert_eq!(t4.names(), ["resnet50", "bert", "deepspeech2", "yolov3", "ncf", "cifar10"]);
        assert!(t4.models().all(|(_, m)| m.gpu == "T4"));
        assert!(Catalog::for_gpu("H100").is_none());
        assert_eq!(Catalog::for_gpu_or_built_in(Some("H100")).unwrap_err().field, "gpu");
        assert_eq!(Catalog::for_gpu_or_built_in(None).unwrap(), Catalog::built_in());
    }
}
