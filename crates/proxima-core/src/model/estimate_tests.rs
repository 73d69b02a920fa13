//! Tests of the estimated compute times.

use super::*;
use crate::model::Catalog;
use crate::workload::ModelMix;

#[test]
fn every_catalogue_model_resolves_on_every_gpu() {
    // On every GPU each built-in model either runs (measured or estimated) or is refused
    // with its reason; only what cannot train there is refused.
    let mut refused = Vec::new();
    for gpu in GpuKind::ALL {
        let catalog = Catalog::for_gpu(gpu.name()).unwrap();
        for (_, m) in Catalog::built_in().models() {
            match catalog.lookup(&m.name) {
                Some(id) => assert!(catalog.get(id).compute_s > 0.0, "{} on {}", m.name, gpu.name()),
                None => {
                    let why = catalog.why_missing(&m.name);
                    assert!(why.starts_with(&format!("model '{}' does not run on a {}", m.name, gpu.name())), "{why}");
                    refused.push((gpu.name(), m.name.clone()));
                }
            }
        }
    }
    assert_eq!(
        refused,
        [("T4", "gpt2-xl".to_string()), ("T4", "llama-7b".to_string()), ("T4", "llama-13b".to_string())]
    );
    let t4 = Catalog::for_gpu("T4").unwrap();
    assert!(t4.why_missing("gpt2-xl").contains("24.9 GB of Adam state"), "{}", t4.why_missing("gpt2-xl"));
    assert!(t4.why_missing("llama-7b").contains("bf16 (measured on A100, H100)"), "{}", t4.why_missing("llama-7b"));
}

#[test]
fn the_models_refused_before_now_run_and_say_they_are_estimates() {
    // vgg16 on the T4 of the page's first cluster; the Tiresias traces' vgg19, vgg11 and
    // resnet101 on the A100 of n32g4; ncf on A100.
    for (gpu, name) in [("T4", "vgg16"), ("A100", "vgg19"), ("A100", "vgg11"), ("A100", "resnet101"), ("A100", "ncf")] {
        let catalog = Catalog::for_gpu(gpu).unwrap();
        let m = catalog.get(catalog.lookup(name).unwrap_or_else(|| panic!("{name} on {gpu}")));
        let e = m.estimate.as_ref().unwrap_or_else(|| panic!("{name} on {gpu} is not marked"));
        assert_eq!(m.gpu, gpu);
        assert!(m.source.contains(&e.label()), "{}", m.source);
        let notes = catalog.estimate_notes([name]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with(&format!("{name} on {gpu}: compute time estimated from ")), "{notes:?}");
    }
    // VGG-16 on T4 from its A100 measurement (224 images at 364.23 images/s) by ResNet-50's
    // T4/A100 ratio, 214.0 / 1,066.
    let t4 = Catalog::for_gpu("T4").unwrap();
    let vgg = t4.get(t4.lookup("vgg16").unwrap());
    let ratio = 214.0 / 1066.0;
    assert_eq!(vgg.estimate.as_ref().unwrap().from_gpu, "A100");
    assert!((vgg.compute_s - 224.0 / 364.23 / ratio).abs() < 1e-12, "{}", vgg.compute_s);
    // NCF on A100 from its T4 fit: the whole curve divided by 1,066 / 214.0.
    let a100 = Catalog::for_gpu("A100").unwrap();
    let ncf = a100.get(a100.lookup("ncf").unwrap());
    let curve = ncf.compute_curve.unwrap();
    assert!((curve.per_sample_s - 4.5813e-7 * ratio).abs() < 1e-18);
    assert_eq!(ncf.estimate.as_ref().unwrap().from_gpu, "T4");
    // ResNet-101 is measured nowhere: from its V100 estimate by 1,066 / 369.
    let r101 = a100.get(a100.lookup("resnet101").unwrap());
    assert_eq!(r101.estimate.as_ref().unwrap().from_gpu, "V100");
    assert!((r101.compute_s - 0.29 * 369.0 / 1066.0).abs() < 1e-12);
}

#[test]
fn a_measured_row_is_never_replaced_and_keeps_its_id() {
    for gpu in GpuKind::ALL {
        let measured = super::built_in::built_in_models(Some(gpu.name()));
        let catalog = Catalog::for_gpu(gpu.name()).unwrap();
        for (i, m) in measured.iter().enumerate() {
            assert_eq!(catalog.get(crate::model::ModelId(i as u16)), m, "{} on {}", m.name, gpu.name());
            assert!(m.estimate.is_none());
        }
        assert!(catalog.models().skip(measured.len()).all(|(_, m)| m.estimate.is_some()));
        // The default mix draws from measured models only where there are some.
        let mix = ModelMix::default_for(&catalog);
        let estimated = mix.entries.iter().filter(|(id, _)| catalog.get(*id).estimate.is_some()).count();
        assert_eq!(estimated == mix.entries.len(), measured.is_empty(), "{}", gpu.name());
    }
}

#[test]
fn the_t4_anchors_are_the_catalogues_own_fits() {
    let t4 = Catalog::for_gpu("T4").unwrap();
    let at_largest = |name: &str| {
        let m = t4.get(t4.lookup(name).unwrap());
        let b = m.max_local_batch.unwrap() as f64;
        b / m.compute_at(b).unwrap()
    };
    assert!((at_largest("resnet50") - CNN_SPEED[0].1).abs() < 0.05, "{}", at_largest("resnet50"));
    assert!((at_largest("bert") - TRANSFORMER_SPEED[0].1).abs() < 0.005, "{}", at_largest("bert"));
}

#[test]
fn blackwell_rows_keep_the_h100_mfu_at_their_own_peak() {
    // LLaMA-7B on B200: the H100 row's MFU (46.44%) at 2,250 instead of 989 TFLOPS.
    let h100 = Catalog::for_gpu("H100").unwrap();
    let on_h100 = h100.get(h100.lookup("llama-7b").unwrap()).compute_s;
    for (gpu, peak) in [("B200", 2250.0), ("GB200", 2500.0)] {
        let c = Catalog::for_gpu(gpu).unwrap();
        let m = c.get(c.lookup("llama-7b").unwrap());
        assert!((m.compute_s - on_h100 * 989.0 / peak).abs() < 1e-12, "{gpu}: {}", m.compute_s);
        assert_eq!((m.precision, m.parallelism), (Precision::Bf16, Parallelism::Fsdp));
        // ResNet-50 from its H100 measurement by the same ratio.
        let r50 = c.get(c.lookup("resnet50").unwrap());
        assert!((r50.compute_s - 640.0 / 1753.0 * 989.0 / peak).abs() < 1e-12, "{gpu}");
        assert_eq!(r50.estimate.as_ref().unwrap().from_gpu, "H100");
    }
    // GB200 scales from nothing measured on B200: both come from H100.
    let gb = Catalog::for_gpu("GB200").unwrap();
    assert!(gb.models().all(|(_, m)| m.estimate.as_ref().is_some_and(|e| e.from_gpu != "B200")));
}
