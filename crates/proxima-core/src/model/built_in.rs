//! The built-in catalogue: every model Proxima knows by name, with its parameter count and
//! the compute time it has where no GPU is named.

use super::per_gpu;
use super::{ComputeCurve, ModelProfile, Parallelism, Precision};

/// How a built-in entry knows its compute time.
enum Compute {
    /// Fitted to measurements: `c0` seconds plus `c1` seconds per sample, on a T4.
    Fitted(f64, f64),
    /// Measured on one T4 at several per-GPU batches: `(batch, seconds)`.
    Measured(&'static [(f64, f64)]),
    /// Estimated for a V100-class GPU at the entry's local batch, seconds.
    Estimate(f64),
    /// As the entry's row on this GPU trains it ([`per_gpu::ROWS`]): compute time, local
    /// batch, precision and parallelism (the entry's own batch is unused). Models of today
    /// have no figure on the older GPUs, so outside a catalogue for one GPU they run as on
    /// this one, which their `gpu` says.
    OnGpu(&'static str),
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
/// The overlap of the transformers of today, data parallel: the CNN and transformer value.
/// Sharded ones start from it too ([`Parallelism::overlap_from`]).
const OV_TRANSFORMER: f64 = OV_FEEDFORWARD;
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
    // Models of today. Parameter counts are counted from the published architectures:
    // GPT-2 XL (Radford et al. 2019, Table 2: 1,542M; 48 layers, d 1,600, vocabulary 50,257,
    // context 1,024, tied embeddings, counted with biases and position embeddings:
    // 1,557,611,200, the count of the released checkpoint); LLaMA 7B and 13B (Touvron et al.
    // 2023, "LLaMA", Table 2: 6.7B and 13.0B; d 4,096 and 5,120, 32 and 40 layers, SwiGLU
    // widths 11,008 and 13,824, vocabulary 32,000, untied output: 6,738,415,616 and
    // 13,015,864,320).
    ("gpt2-xl", &["gpt2-1.5b", "gpt-2-xl"], "GPT-2 XL (1.5B)", 1557.6112, Compute::OnGpu("A100"), 0, OV_TRANSFORMER,
     "params: Radford et al. 2019, GPT-2 XL (1,557,611,200 counted from the released configuration; 1,542M in the paper's Table 2)"),
    ("llama-7b", &["llama7b"], "LLaMA 7B", 6738.415616, Compute::OnGpu("A100"), 0, OV_TRANSFORMER,
     "params: Touvron et al. 2023, LLaMA 7B (6,738,415,616 from Table 2's architecture)"),
    ("llama-13b", &["llama13b"], "LLaMA 13B", 13015.86432, Compute::OnGpu("A100"), 0, OV_TRANSFORMER,
     "params: Touvron et al. 2023, LLaMA 13B (13,015,864,320 from Table 2's architecture)"),
    // ResNet-50 with automatic mixed precision: the same network, compute from AMP
    // throughput; overlap as the fitted ResNet-50.
    ("resnet50-amp", &["resnet-50-amp"], "ResNet-50 (AMP)", 25.557032, Compute::OnGpu("A100"), 0, 0.653,
     "params: torchvision resnet50 (25,557,032)"),
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

/// The built-in models in catalogue order (`gpu` = `None`), or the catalogue of one GPU:
/// each model that has a row on it, as that row trains it, and the fitted entries measured
/// on it, in built-in order.
pub(super) fn built_in_models(gpu: Option<&str>) -> Vec<ModelProfile> {
    BUILT_IN
        .iter()
        .filter_map(|entry| {
            let (name, compute) = (entry.0, &entry.4);
            let model = base_model(entry);
            match (gpu, compute) {
                (None, Compute::OnGpu(own)) => Some(per_gpu::apply(model, per_gpu::row(name, own)?)),
                (None, _) => Some(model),
                (Some(g), _) => match per_gpu::row(name, g) {
                    Some(row) => Some(per_gpu::apply(model, row)),
                    None => {
                        (!matches!(compute, Compute::OnGpu(_)) && model.gpu.eq_ignore_ascii_case(g)).then_some(model)
                    }
                },
            }
        })
        .collect()
}

/// An entry's profile before any GPU's row is applied (an entry computing on a GPU has no
/// compute time yet).
fn base_model(entry: &Entry) -> ModelProfile {
    let (name, aliases, display, params, compute, batch, overlap, source) = entry;
    let (compute_curve, compute_points, gpu) = match *compute {
        Compute::Fitted(c0, c1) => (Some(ComputeCurve { fixed_s: c0, per_sample_s: c1 }), Vec::new(), "T4"),
        Compute::Measured(points) => (None, points.to_vec(), "T4"),
        Compute::Estimate(_) => (None, Vec::new(), "V100"),
        Compute::OnGpu(_) => (None, Vec::new(), ""),
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
        precision: Precision::Fp32,
        parallelism: Parallelism::DataParallel,
        estimate: None,
    };
    model.compute_s = match *compute {
        Compute::Estimate(s) => s,
        Compute::OnGpu(_) => 0.0,
        _ => model.compute_at(*batch as f64).expect("measured entries have a compute curve or points"),
    };
    model
}
