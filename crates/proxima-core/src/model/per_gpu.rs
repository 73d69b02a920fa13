//! Compute times on named GPUs: the rows that make the catalogue of a cluster of one GPU
//! type ([`super::Catalog::for_gpu`]).
//!
//! A row is one way of training a model on one GPU: how long an iteration computes there,
//! in which precision the job exchanges its gradients, and how it is parallelised. Two kinds
//! of compute figure are used:
//!
//! - **measured throughput** (samples per second at a local batch) for the convolutional
//!   networks and BERT-base, from published single-GPU benchmarks;
//! - **model FLOPs utilisation** for the transformers of today: an iteration over a local
//!   batch of `q` sequences of `L` tokens does about `6 · P · q · L` floating-point
//!   operations (forward 2, backward 4 per parameter and token; attention's extra FLOPs left
//!   out), and takes `6 · P · q · L / (MFU · peak)` on a GPU whose dense bf16 peak is
//!   `peak`. The MFUs are published measurements of comparable models on that GPU (MosaicML's
//!   llm-foundry benchmark tables); the compute time is an estimate built from them, not a
//!   measurement of the model itself.

use super::{ModelProfile, Parallelism, Precision};

/// Dense bf16 tensor-core peak of a GPU, FLOP/s: A100 SXM4 312 TFLOPS (NVIDIA A100 Tensor
/// Core GPU Architecture whitepaper, 2020: 312 TFLOPS bf16, 624 with sparsity);
/// H100 SXM5 989 TFLOPS (NVIDIA H100 datasheet, 2023: 1,979 TFLOPS bf16 with sparsity,
/// half of it dense); HGX B200 2,250 TFLOPS (NVIDIA HGX B200 datasheet: 36 PFLOPS FP16/BF16
/// with sparsity for eight GPUs, 2.25 dense each; `bf16_peak_tops: 2.25e15` for B200 in
/// pytorch/ao's `torchao/testing/training/roofline_utils.py`); GB200 2,500 TFLOPS (NVIDIA
/// GB200 NVL72 datasheet: 360 PFLOPS FP16/BF16 with sparsity for 72 GPUs, 180 dense, 2.5
/// each: the GB200's Blackwell runs at 1,200 W against the HGX B200's 1,000 W).
pub const PEAK_BF16_FLOPS: &[(&str, f64)] =
    &[("A100", 312.0e12), ("H100", 989.0e12), ("B200", 2250.0e12), ("GB200", 2500.0e12)];

/// Bytes of Adam training state per parameter in mixed precision: bf16/fp16 parameters and
/// gradients (2 + 2) and fp32 master parameters, momentum and variance (4 + 4 + 4):
/// Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
/// Models", §3.1 (`2Ψ + 2Ψ + 12Ψ = 16Ψ`). A model whose state exceeds one GPU's memory
/// cannot train data parallel (every GPU holds all of it) and is sharded instead.
pub const ADAM_MIXED_PRECISION_BYTES_PER_PARAM: f64 = 16.0;

/// How a row knows its compute time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowCompute {
    /// Measured: samples per second on one GPU at a local batch of `batch` samples.
    Throughput { samples_per_s: f64, batch: u32 },
    /// Estimated from a published MFU at a local batch of `sequences` of `seq_len` tokens.
    Mfu { mfu: f64, sequences: u32, seq_len: u32 },
}

/// One model trained on one GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuRow {
    pub model: &'static str,
    pub gpu: &'static str,
    pub compute: RowCompute,
    pub precision: Precision,
    pub parallelism: Parallelism,
    pub source: &'static str,
}

/// Where the A100 convolutional networks' throughputs come from: Lambda's TensorFlow
/// benchmark (tf_cnn_benchmarks, synthetic ImageNet data, fp32, TensorFlow 2.3) on one
/// A100-SXM4-40GB.
const LAMBDA_TF_A100: &str =
    "lambdal/lambda-tensorflow-benchmark, logs/7742-1xA100-SXM4-40GB_TF2_3.logs/syn-replicated-fp32-1gpus";

/// Lambda's PyTorch benchmark with automatic mixed precision (NVIDIA DeepLearningExamples
/// recipes; throughput in `pytorch/pytorch-train-throughput-fp16.csv`, batch in
/// `pytorch/pytorch-train-bs-fp16.csv`). The batch file lists no H100 SXM5; its batches for
/// the 80 GB cards it lists (A100 80GB SXM4 and H100 80GB PCIe) are the same, and are taken.
/// Figures as of commits 0551cb70 (throughput) and 08d77c41 (batch).
const LAMBDA_PT_AMP: &str =
    "lambdal/deeplearning-benchmark, pytorch/pytorch-train-throughput-fp16.csv and pytorch-train-bs-fp16.csv";
/// The same benchmark in fp32 (TF32 tensor cores on A100 and H100).
const LAMBDA_PT_FP32: &str =
    "lambdal/deeplearning-benchmark, pytorch/pytorch-train-throughput-fp32.csv and pytorch-train-bs-fp32.csv";
/// MosaicML's llm-foundry benchmark tables (`scripts/train/benchmarking/README.md` as of
/// commit 061f2c7c, sections "A100 80GB with 1600 Gbps node-node interconnect (RoCE)" and
/// "H100 80GB BF16": MPT models on 8 GPUs, FSDP FULL_SHARD, amp_bf16).
const LLM_FOUNDRY: &str = "mosaicml/llm-foundry, scripts/train/benchmarking/README.md";

const fn measured(
    model: &'static str,
    gpu: &'static str,
    samples_per_s: f64,
    batch: u32,
    source: &'static str,
) -> GpuRow {
    GpuRow {
        model,
        gpu,
        compute: RowCompute::Throughput { samples_per_s, batch },
        precision: Precision::Fp32,
        parallelism: Parallelism::DataParallel,
        source,
    }
}

const fn mfu_row(
    model: &'static str,
    gpu: &'static str,
    mfu: f64,
    (sequences, seq_len): (u32, u32),
    parallelism: Parallelism,
    source: &'static str,
) -> GpuRow {
    GpuRow {
        model,
        gpu,
        compute: RowCompute::Mfu { mfu, sequences, seq_len },
        precision: Precision::Bf16,
        parallelism,
        source,
    }
}

/// The rows, in no particular order; a catalogue keeps the built-in order of its models.
///
/// The convolutional networks in mixed precision (`resnet50-amp`) exchange fp32 gradients:
/// PyTorch's automatic mixed precision keeps fp32 parameters, so DDP all-reduces fp32. They
/// are separate names rather than replacements of the fp32 rows, because the A100 fp32 rows
/// are what every `fabric=rdma` scenario's default mix runs, and replacing them would change
/// those results.
///
/// The transformers use the MFU of the llm-foundry row nearest in size at the same sequence
/// length, measured on 8 GPUs: BERT-large (335M) the 350m row at sequence 512 on A100 and,
/// as the H100 table has no 350m row, the 760m row at 512 on H100; GPT-2 XL (1.56B) the 1b
/// rows at 2,048 (GPT-2's context is 1,024; the rows at 1,024 give 60.15% and 41.95%,
/// within 0.5 points); the 7B and 13B models the 7b and 13b rows at 2,048. The local batch
/// is the row's micro-batch. They exchange bf16 (gradients reduced in bf16: FSDP's
/// `MixedPrecision(reduce_dtype=bfloat16)`, or DDP's bf16 compression hook); a job that
/// reduces in fp32 sends twice the bytes.
pub const ROWS: &[GpuRow] = &[
    measured("resnet50", "A100", 571.84, 224, LAMBDA_TF_A100),
    measured("resnet152", "A100", 220.92, 112, LAMBDA_TF_A100),
    measured("inception3", "A100", 380.01, 224, LAMBDA_TF_A100),
    measured("inception4", "A100", 167.56, 56, LAMBDA_TF_A100),
    measured("vgg16", "A100", 364.23, 224, LAMBDA_TF_A100),
    measured("alexnet", "A100", 6578.68, 1792, LAMBDA_TF_A100),
    // BERT-base fine-tuned on SQuAD v1.1 at sequence 384 (NVIDIA's run_squad.py), fp32, on
    // one A100 80GB SXM4.
    measured("bert", "A100", 239.0, 172, "lambdal/deeplearning-benchmark, pytorch/pytorch-train-throughput-fp32.csv and pytorch-train-bs-fp32.csv (bert_base_squad, A100 80GB SXM4)"),
    // Mixed precision: 1,582 images/s at 1,280 on an A100 80GB SXM4, 2,616 on an H100 80GB
    // SXM5 (fp32 there: 1,753 at 640; BERT-base 408 at 172).
    measured("resnet50-amp", "A100", 1582.0, 1280, LAMBDA_PT_AMP),
    measured("resnet50-amp", "H100", 2616.0, 1280, LAMBDA_PT_AMP),
    measured("resnet50", "H100", 1753.0, 640, LAMBDA_PT_FP32),
    measured("bert", "H100", 408.0, 172, LAMBDA_PT_FP32),
    // A100: 350m at 512 tokens, MFU 50.61%, micro-batch 128; H100: 760m at 512, 40.42%, 96.
    mfu_row("bert-large", "A100", 0.5061, (128, 512), Parallelism::DataParallel, LLM_FOUNDRY),
    mfu_row("bert-large", "H100", 0.4042, (96, 512), Parallelism::DataParallel, LLM_FOUNDRY),
    // 1b at 2,048: A100 59.86%, H100 41.82%, micro-batch 14.
    mfu_row("gpt2-xl", "A100", 0.5986, (14, 2048), Parallelism::DataParallel, LLM_FOUNDRY),
    mfu_row("gpt2-xl", "H100", 0.4182, (14, 2048), Parallelism::DataParallel, LLM_FOUNDRY),
    // 7b at 2,048: A100 64.23%, H100 46.44%, micro-batch 6 (no activation checkpointing).
    mfu_row("llama-7b", "A100", 0.6423, (6, 2048), Parallelism::Fsdp, LLM_FOUNDRY),
    mfu_row("llama-7b", "H100", 0.4644, (6, 2048), Parallelism::Fsdp, LLM_FOUNDRY),
    // 13b at 2,048: A100 59.57%, H100 39.79%, micro-batch 2.
    mfu_row("llama-13b", "A100", 0.5957, (2, 2048), Parallelism::Fsdp, LLM_FOUNDRY),
    mfu_row("llama-13b", "H100", 0.3979, (2, 2048), Parallelism::Fsdp, LLM_FOUNDRY),
];

/// The dense bf16 peak of `gpu`, FLOP/s.
pub fn peak_bf16(gpu: &str) -> Option<f64> {
    PEAK_BF16_FLOPS.iter().find(|(g, _)| g.eq_ignore_ascii_case(gpu)).map(|&(_, p)| p)
}

/// The row of `model` on `gpu`, if there is one.
pub fn row(model: &str, gpu: &str) -> Option<&'static GpuRow> {
    ROWS.iter().find(|r| r.model == model && r.gpu.eq_ignore_ascii_case(gpu))
}

/// Seconds of one iteration's compute at the row's local batch, for a model of
/// `params_millions`, and that batch.
pub fn compute_of(row: &GpuRow, params_millions: f64) -> (f64, u32) {
    match row.compute {
        RowCompute::Throughput { samples_per_s, batch } => (batch as f64 / samples_per_s, batch),
        RowCompute::Mfu { mfu, sequences, seq_len } => {
            let flops = 6.0 * params_millions * 1.0e6 * sequences as f64 * seq_len as f64;
            let peak = peak_bf16(row.gpu).expect("every MFU row's GPU has a peak");
            (flops / (mfu * peak), sequences)
        }
    }
}

/// `model` (a built-in entry) as `row` trains it: the row's compute time, batch, GPU,
/// precision and parallelism; the entry's overlap, raised for sharded training
/// ([`Parallelism::overlap_from`]). The entry's source keeps its parameter count's
/// citation and gains the row's.
pub fn apply(model: ModelProfile, row: &GpuRow) -> ModelProfile {
    let params = model.source.split("; compute").next().unwrap_or("").to_string();
    let (compute_s, local_batch) = compute_of(row, model.params_millions);
    let g = row.gpu;
    let source = match row.compute {
        RowCompute::Throughput { samples_per_s, batch } => format!(
            "{params}; compute: {batch} samples at {samples_per_s} samples/s on one {g} ({}); overlap: as the built-in entry",
            row.source
        ),
        RowCompute::Mfu { mfu, sequences, seq_len } => format!(
            "{params}; compute: 6 x params x {sequences} x {seq_len} tokens at MFU {mfu} of the {g}'s {} TFLOPS bf16 peak ({}); {} exchange, {}; overlap: {}",
            peak_bf16(g).unwrap_or(0.0) / 1.0e12,
            row.source,
            row.precision.label(),
            row.parallelism.label(),
            row.parallelism.overlap_note()
        ),
    };
    ModelProfile {
        compute_s,
        local_batch,
        compute_curve: None,
        compute_points: Vec::new(),
        gpu: g.to_string(),
        overlap: row.parallelism.overlap_from(model.overlap),
        precision: row.precision,
        parallelism: row.parallelism,
        source,
        ..model
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Catalog;

    #[test]
    fn mfu_rows_give_six_p_t_over_mfu_peak() {
        // LLaMA-7B on an A100: 6 x 6,738.415616M x 6 x 2,048 / (0.6423 x 312 TFLOPS) = 2.48 s.
        let a100 = Catalog::for_gpu("A100").unwrap();
        let llama = a100.get(a100.lookup("llama-7b").unwrap());
        let expected = 6.0 * 6738.415616e6 * 6.0 * 2048.0 / (0.6423 * 312.0e12);
        assert!((llama.compute_s - expected).abs() < 1e-12, "{}", llama.compute_s);
        assert!((llama.compute_s - 2.48).abs() < 0.005);
        assert_eq!((llama.local_batch, llama.precision, llama.parallelism), (6, Precision::Bf16, Parallelism::Fsdp));
        // The H100 is faster by its peak, less its lower MFU: 989 x 0.4644 / (312 x 0.6423).
        let h100 = Catalog::for_gpu("H100").unwrap();
        let fast = h100.get(h100.lookup("llama-7b").unwrap());
        let speedup = llama.compute_s / fast.compute_s;
        assert!((speedup - 989.0 * 0.4644 / (312.0 * 0.6423)).abs() < 1e-9, "{speedup}");
    }

    #[test]
    fn the_sharded_models_do_not_fit_data_parallel_in_80_gb() {
        // ZeRO §3.1: 16 bytes of Adam state per parameter in mixed precision. 7B needs 108 GB
        // and 13B 208 GB on every GPU under data parallelism; GPT-2 XL needs 25 GB.
        let c = Catalog::for_gpu("A100").unwrap();
        let state_gb = |name: &str| {
            c.get(c.lookup(name).unwrap()).params_millions * 1.0e6 * ADAM_MIXED_PRECISION_BYTES_PER_PARAM / 1.0e9
        };
        for name in ["llama-7b", "llama-13b"] {
            assert!(state_gb(name) > 80.0, "{name}: {}", state_gb(name));
            assert_eq!(c.get(c.lookup(name).unwrap()).parallelism, Parallelism::Fsdp);
        }
        for name in ["gpt2-xl", "bert-large"] {
            assert!(state_gb(name) < 80.0, "{name}: {}", state_gb(name));
            assert_eq!(c.get(c.lookup(name).unwrap()).parallelism, Parallelism::DataParallel);
        }
    }

    #[test]
    fn every_row_names_a_built_in_model_and_a_known_gpu() {
        let built_in = Catalog::built_in();
        for r in ROWS {
            assert!(built_in.lookup(r.model).is_some(), "{}", r.model);
            if let RowCompute::Mfu { mfu, .. } = r.compute {
                assert!(peak_bf16(r.gpu).is_some() && (0.1..0.8).contains(&mfu), "{} on {}", r.model, r.gpu);
            }
            let twins = ROWS.iter().filter(|o| o.model == r.model && o.gpu == r.gpu).count();
            assert_eq!(twins, 1, "{} on {} twice", r.model, r.gpu);
        }
    }
}
