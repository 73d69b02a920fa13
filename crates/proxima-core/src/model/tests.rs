//! Tests of the model catalogue and its measured compute times.

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
        // measurements; the models of today compute as on an A100 and cite their row.
        match m.compute_at(m.local_batch as f64) {
            Some(c) => {
                assert_eq!(m.gpu, "T4", "{}", m.name);
                assert_eq!(m.compute_s, c);
                assert!(m.source.contains("placements.csv"), "{}", m.name);
                assert!(m.max_local_batch.is_some(), "{}", m.name);
            }
            None if m.gpu == "A100" => {
                assert!(m.source.contains("lambdal") || m.source.contains("llm-foundry"), "{}", m.name)
            }
            None => assert!(m.gpu == "V100" && m.source.contains("V100"), "{}", m.name),
        }
        // Only the models of today are trained other than data parallel in fp32.
        let today = ["gpt2-xl", "llama-7b", "llama-13b"].contains(&m.name.as_str());
        assert_eq!(m.precision == Precision::Bf16, today, "{}", m.name);
    }
}

#[test]
fn a_model_missing_from_a_gpus_catalogue_is_known_and_says_where_it_runs() {
    // A trace naming resnet50 (listed by the built-in catalogue) on a cluster of a GPU
    // outside `GpuKind::ALL`, which gets no estimates: not "unknown", but not measured on
    // it. (On the GPUs of `GpuKind::ALL` every model runs or says why not: estimate.rs.)
    let v100 = Catalog::for_gpu("V100").unwrap();
    for name in ["resnet50", "ImageNet"] {
        assert_eq!(v100.lookup(name), None);
        let why = v100.why_missing(name);
        assert!(why.starts_with(&format!("model '{name}' has no compute time measured on a V100")), "{why}");
        assert!(why.contains("(models on V100: resnet18, resnet101, "), "{why}");
        assert!(
            why.ends_with("it runs on T4 or A100 or H100 or B200 or GB200 clusters, or clusters that name no GPU (the built-in catalogue)"),
            "{why}"
        );
    }
    let t4 = Catalog::for_gpu("T4").unwrap();
    // On the built-in catalogue an unknown name is unknown.
    let built_in = Catalog::built_in();
    assert!(built_in.why_missing("vgg99").starts_with("unknown model 'vgg99' (known: resnet18, "));
    assert!(t4.why_missing("vgg99").starts_with("unknown model 'vgg99' (known: resnet50, bert, "));
    // Every name and alias the built-in catalogue lists is found there.
    for (_, m) in built_in.models() {
        for name in std::iter::once(&m.name).chain(&m.aliases) {
            assert!(built_in.lookup(name).is_some() && built_in.lookup(&name.to_uppercase()).is_some(), "{name}");
        }
    }
}

#[test]
fn a_gpu_catalogue_lists_the_models_measured_on_it_first() {
    let a100 = Catalog::for_gpu("A100").unwrap();
    assert_eq!(a100.gpu(), Some("A100"));
    // The fp32 rows first, in built-in order, then the models of today: the ids of the
    // fp32 rows are those they had before there were others.
    let measured = |c: &Catalog| -> Vec<String> {
        c.models().filter(|(_, m)| m.estimate.is_none()).map(|(_, m)| m.name.clone()).collect()
    };
    assert_eq!(
        measured(&a100),
        [
            "resnet50",
            "resnet152",
            "vgg16",
            "alexnet",
            "inception3",
            "inception4",
            "bert",
            "bert-large",
            "gpt2-xl",
            "llama-7b",
            "llama-13b",
            "resnet50-amp"
        ]
    );
    let r50 = a100.get(a100.lookup("imagenet").unwrap());
    // 224 images at 571.84 images/s.
    assert_eq!((r50.compute_s, r50.local_batch, r50.gpu.as_str()), (224.0 / 571.84, 224, "A100"));
    assert_eq!(r50.overlap, 0.653, "the overlap stays the built-in one");
    assert!(r50.source.starts_with("params: torchvision resnet50") && r50.source.contains("lambda"), "{}", r50.source);
    let t4 = Catalog::for_gpu("t4").unwrap();
    assert_eq!(measured(&t4), ["resnet50", "bert", "deepspeech2", "yolov3", "ncf", "cifar10"]);
    assert!(t4.models().all(|(_, m)| m.gpu == "T4"));
    let h100 = Catalog::for_gpu("H100").unwrap();
    assert_eq!(measured(&h100), ["resnet50", "bert", "bert-large", "gpt2-xl", "llama-7b", "llama-13b", "resnet50-amp"]);
    assert!(h100.models().all(|(_, m)| m.gpu == "H100"));
    // Mixed precision: 1,280 images at 2,616 images/s, against 640 at 1,753 in fp32; the
    // gradients stay fp32.
    let amp = h100.get(h100.lookup("resnet50-amp").unwrap());
    assert_eq!((amp.compute_s, amp.precision), (1280.0 / 2616.0, Precision::Fp32));
    assert_eq!(h100.get(h100.lookup("resnet50").unwrap()).compute_s, 640.0 / 1753.0);
    assert!(Catalog::for_gpu("V200").is_none());
    assert_eq!(Catalog::for_gpu_or_built_in(Some("V200")).unwrap_err().field, "gpu");
    assert_eq!(Catalog::for_gpu_or_built_in(None).unwrap(), Catalog::built_in());
}

#[test]
fn the_data_parallel_overlap_is_recovered_from_either_parallelism() {
    for p in [Parallelism::DataParallel, Parallelism::Fsdp] {
        assert_eq!(p.data_parallel_overlap(p.overlap_from(0.6)), 0.6, "{p:?}");
    }
    assert_eq!(Parallelism::Fsdp.overlap_from(0.6), 0.6 * 1.5);
}

#[test]
fn precision_and_parallelism_set_the_exchange() {
    use crate::comm::PlacementShape;
    use crate::comm_params::CommParams;
    // Two GPUs on two servers at 10 GB/s, no latency: a ring all-reduce sends
    // 2 x 1/2 x S, so S / 10 GB/s seconds.
    let shape = PlacementShape {
        gpus: 2,
        servers: 2,
        max_per_server: 1,
        gpu_link_bytes_per_s: 100e9,
        nic_bytes_per_s: 10e9,
        switch_link_bytes_per_s: f64::INFINITY,
        net_share_bytes_per_s: f64::INFINITY,
        step_latency_s: 0.0,
    };
    let p = CommParams::ideal();
    let c = Catalog::for_gpu("A100").unwrap();
    let time = |name: &str| p.sync_time(c.get(c.lookup(name).unwrap()), &shape);
    // fp32 ResNet-50: 25,557,032 x 4 bytes.
    assert!((time("resnet50") - 25.557032e6 * 4.0 / 10e9).abs() < 1e-15);
    // bf16 data-parallel GPT-2 XL: 2 bytes a parameter.
    assert!((time("gpt2-xl") - 1557.6112e6 * 2.0 / 10e9).abs() < 1e-12);
    // bf16 FSDP LLaMA 7B: 2 bytes a parameter, three collectives instead of two phases.
    assert!((time("llama-7b") - 1.5 * 6738.415616e6 * 2.0 / 10e9).abs() < 1e-12);
    let llama = c.get(c.lookup("llama-7b").unwrap());
    assert_eq!((llama.grad_bytes(), llama.overlap), (6738.415616e6 * 2.0, 0.6 * 1.5));
}
