//! Tests of turning a trace into the jobs a run simulates.

use super::*;
use crate::scenario::Scenario;
use crate::topology::resolve_topology_arg;
use crate::trace::{TraceFormat, TraceJob};

fn job(name: &str, submit: f64, gpus: u32, model: Option<&str>, work: TraceWork) -> TraceJob {
    TraceJob {
        name: name.into(),
        submit_s: submit,
        gpus,
        model: model.map(String::from),
        work,
        batch: None,
        tenant: None,
        line: 2,
    }
}

#[test]
fn sorts_shifts_limits_and_converts_duration() {
    let topo = resolve_topology_arg("teaching").unwrap();
    let mut catalog = Catalog::built_in();
    let trace = Trace {
        format: TraceFormat::ProximaCsv,
        skipped: Vec::new(),
        jobs: vec![
            job("late", 500.0, 1, Some("resnet50"), TraceWork::DurationS(100.0)),
            job("early", 100.0, 1, Some("resnet50"), TraceWork::Iterations(7.0)),
            job("huge", 300.0, 64, Some("vgg16"), TraceWork::DurationS(10.0)),
        ],
    };
    let opts = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let jobs = resolve(&trace, &topo, &mut catalog, &CommParams::default(), &opts).unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["early", "huge", "late"]);
    assert_eq!(jobs[0].submit, SimTime::ZERO);
    assert_eq!(jobs[2].submit, SimTime::from_secs_f64(400.0));
    assert_eq!(jobs[0].iterations, 7.0);
    // One GPU: no exchange, so the ideal iteration is the compute time.
    assert_eq!(jobs[2].ideal_iter_s, Some(catalog.get(jobs[2].model).compute_s));
    assert!((jobs[2].ideal_run_s().unwrap() - 100.0).abs() < 1e-9);
    assert_eq!(jobs[1].ideal_iter_s, None, "64 GPUs do not fit 16");
    let limited =
        resolve(&trace, &topo, &mut catalog, &CommParams::default(), &WorkloadOptions { limit: Some(1), ..opts })
            .unwrap();
    assert_eq!(limited.len(), 1);
}

#[test]
fn the_ideal_placement_splits_evenly_over_multi_nic_servers() {
    // rdma-2048: eight GPUs and eight NICs per server. Best fit puts 9 GPUs as 8 + 1, whose
    // ring drives one NIC of the second server (25 GB/s); the ideal is 5 + 4: four NICs,
    // 100 GB/s.
    let topo = resolve_topology_arg("rdma-2048").unwrap();
    let (tier, shape) = IdealPlacements::default().get(&topo, 9).unwrap();
    assert_eq!((tier, shape.servers, shape.max_per_server), (Tier(1), 2, 5));
    assert_eq!(shape.nic_bytes_per_s, 100e9);
    // With one NIC per server nothing changes: 8 + 1 on oversub-2048.
    let topo = resolve_topology_arg("oversub-2048").unwrap();
    let (_, shape) = IdealPlacements::default().get(&topo, 9).unwrap();
    assert_eq!((shape.max_per_server, shape.nic_bytes_per_s), (8, 25e9));
}

#[test]
fn a_cluster_of_one_gpu_type_uses_its_catalogue_and_mix() {
    // The rdma fabric's GPU is the A100: the default mix becomes the four of its eight
    // models measured on an A100; a mix naming a model without an A100 measurement runs it
    // estimated; one naming a model that cannot train on the GPU is an error saying why.
    let topo = resolve_topology_arg("teaching").unwrap();
    assert_eq!(topo.gpu(), Some("A100"));
    let trace = Trace {
        format: TraceFormat::Philly,
        skipped: Vec::new(),
        jobs: (0..40).map(|i| job("j", i as f64, 1, None, TraceWork::DurationS(10.0))).collect(),
    };
    let built_in = Catalog::built_in();
    let opts = WorkloadOptions { seed: 3, skip: 0, limit: None, mix: ModelMix::default_for(&built_in) };
    let sc = Scenario::from_trace(topo.clone(), &trace, &opts, "t").unwrap();
    assert_eq!(sc.catalog.gpu(), Some("A100"));
    let used: std::collections::BTreeSet<&str> =
        sc.jobs.iter().map(|j| sc.catalog.get(j.model).name.as_str()).collect();
    assert_eq!(used.into_iter().collect::<Vec<_>>(), ["bert", "inception3", "resnet50", "vgg16"]);
    let gpt2 = WorkloadOptions { mix: ModelMix::parse("gpt2", &built_in).unwrap(), ..opts.clone() };
    let sc = Scenario::from_trace(topo, &trace, &gpt2, "t").unwrap();
    assert!(sc.jobs.iter().all(|j| sc.catalog.get(j.model).estimate.as_ref().is_some_and(|e| e.from_gpu == "V100")));
    let gpt2_xl = WorkloadOptions { mix: ModelMix::parse("gpt2-xl", &built_in).unwrap(), ..opts.clone() };
    let e = Scenario::from_trace(resolve_topology_arg("pollux-testbed").unwrap(), &trace, &gpt2_xl, "t").unwrap_err();
    assert_eq!(e.field, "mix");
    assert!(e.message.starts_with("model 'gpt2-xl' does not run on a T4, this cluster's GPU: "), "{e}");
}

#[test]
fn the_llm_mix_draws_the_models_of_today() {
    let built_in = Catalog::built_in();
    let mix = ModelMix::parse(" LLM ", &built_in).unwrap();
    let names: Vec<(&str, f64)> = mix.entries.iter().map(|&(id, w)| (built_in.get(id).name.as_str(), w)).collect();
    assert_eq!(names, [("bert-large", 1.0), ("gpt2-xl", 1.0), ("llama-7b", 1.0), ("llama-13b", 1.0)]);
    // On an A100 cluster every job gets one of the four, in bf16, the 7B and 13B sharded.
    let topo = resolve_topology_arg("teaching").unwrap();
    let trace = Trace {
        format: TraceFormat::Philly,
        skipped: Vec::new(),
        jobs: (0..40).map(|i| job("j", i as f64, 4, None, TraceWork::DurationS(10.0))).collect(),
    };
    let opts = WorkloadOptions { seed: 3, skip: 0, limit: None, mix };
    let sc = Scenario::from_trace(topo, &trace, &opts, "t").unwrap();
    let used: std::collections::BTreeSet<&str> =
        sc.jobs.iter().map(|j| sc.catalog.get(j.model).name.as_str()).collect();
    assert_eq!(used.into_iter().collect::<Vec<_>>(), ["bert-large", "gpt2-xl", "llama-13b", "llama-7b"]);
    assert!(sc.jobs.iter().all(|j| sc.catalog.get(j.model).precision == crate::model::Precision::Bf16));
    // On the T4 cluster the models of today have no compute time: an error naming the mix.
    let tcp = resolve_topology_arg("pollux-testbed").unwrap();
    let e = Scenario::from_trace(tcp, &trace, &WorkloadOptions { seed: 3, ..opts }, "t").unwrap_err();
    assert_eq!(e.field, "mix");
}

#[test]
fn a_stated_batch_gives_the_job_its_own_profile_once() {
    let topo = resolve_topology_arg("pollux-testbed").unwrap();
    let mut catalog = Catalog::built_in();
    let base = catalog.len();
    let at = |name: &str, gpus: u32, batch: Option<u32>| TraceJob {
        batch,
        ..job(name, 0.0, gpus, Some("cifar10"), TraceWork::Iterations(10.0))
    };
    let trace = Trace {
        format: TraceFormat::Pollux,
        skipped: Vec::new(),
        jobs: vec![at("a", 6, Some(2052)), at("b", 6, Some(2052)), at("c", 4, Some(2052)), at("d", 4, None)],
    };
    let opts = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let jobs = resolve(&trace, &topo, &mut catalog, &CommParams::default(), &opts).unwrap();
    // Two new profiles: (2,052 on 6) shared by a and b, (2,052 on 4) for c; d keeps the
    // catalogue's entry.
    assert_eq!(catalog.len(), base + 2);
    assert_eq!(jobs[0].model, jobs[1].model);
    assert_ne!(jobs[0].model, jobs[2].model);
    assert_eq!(jobs[3].model, catalog.lookup("cifar10").unwrap());
    assert_eq!(catalog.get(jobs[0].model).compute_s, 0.020375 + 0.00064985 * 342.0);
    assert_eq!(catalog.get(jobs[2].model).compute_s, 0.020375 + 0.00064985 * 513.0);
    assert_eq!(catalog.get(jobs[0].model).name, "cifar10");
}

#[test]
fn unknown_model_names_the_line() {
    let topo = resolve_topology_arg("teaching").unwrap();
    let mut catalog = Catalog::built_in();
    let trace = Trace {
        format: TraceFormat::ProximaCsv,
        skipped: Vec::new(),
        jobs: vec![job("x", 0.0, 1, Some("lenet9"), TraceWork::Iterations(1.0))],
    };
    let opts = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let e = resolve(&trace, &topo, &mut catalog, &CommParams::default(), &opts).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(2), "model"));
    assert!(e.message.starts_with("unknown model 'lenet9' (known: "), "{e}");
}

#[test]
fn a_trace_naming_a_listed_model_runs_everywhere_or_says_why_not() {
    // vgg16 and inception3 (names a Tiresias trace uses) are in the built-in catalogue
    // and measured on A100, not on T4: a T4 cluster runs them estimated. LLaMA 7B cannot
    // train on a T4 (bf16): refused with that reason, not as unknown.
    let trace = Trace {
        format: TraceFormat::ProximaCsv,
        skipped: Vec::new(),
        jobs: vec![
            job("a", 0.0, 1, Some("vgg16"), TraceWork::Iterations(1.0)),
            job("b", 1.0, 1, Some("inception3"), TraceWork::Iterations(1.0)),
        ],
    };
    for (gpu, topology) in [(None, "teaching"), (Some("A100"), "teaching")] {
        let mut catalog = Catalog::for_gpu_or_built_in(gpu).unwrap();
        let topo = resolve_topology_arg(topology).unwrap();
        let opts = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
        let jobs = resolve(&trace, &topo, &mut catalog, &CommParams::default(), &opts).unwrap();
        let names: Vec<&str> = jobs.iter().map(|j| catalog.get(j.model).name.as_str()).collect();
        assert_eq!(names, ["vgg16", "inception3"], "{gpu:?}");
    }
    let mut t4 = Catalog::for_gpu("T4").unwrap();
    let topo = resolve_topology_arg("pollux-testbed").unwrap();
    let opts = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&t4) };
    let jobs = resolve(&trace, &topo, &mut t4, &CommParams::default(), &opts).unwrap();
    let estimated: Vec<bool> = jobs.iter().map(|j| t4.get(j.model).estimate.is_some()).collect();
    assert_eq!(estimated, [true, true], "vgg16 and inception3 run on T4, estimated");
    let llama = Trace { jobs: vec![job("c", 0.0, 8, Some("llama-7b"), TraceWork::Iterations(1.0))], ..trace };
    let e = resolve(&llama, &topo, &mut t4, &CommParams::default(), &opts).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(2), "model"));
    assert!(
        e.message.starts_with("model 'llama-7b' does not run on a T4, this cluster's GPU: it trains in bf16"),
        "{e}"
    );
}

#[test]
fn model_assignment_is_seeded_and_independent_of_limit() {
    let topo = resolve_topology_arg("teaching").unwrap();
    let mut catalog = Catalog::built_in();
    let trace = Trace {
        format: TraceFormat::Philly,
        skipped: Vec::new(),
        jobs: (0..50).map(|i| job("j", i as f64, 1, None, TraceWork::DurationS(10.0))).collect(),
    };
    let opts = WorkloadOptions { seed: 3, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let all = resolve(&trace, &topo, &mut catalog, &CommParams::default(), &opts).unwrap();
    let few = resolve(
        &trace,
        &topo,
        &mut catalog,
        &CommParams::default(),
        &WorkloadOptions { limit: Some(10), ..opts.clone() },
    )
    .unwrap();
    assert!(all.iter().zip(&few).all(|(a, b)| a.model == b.model));
    let window = resolve(
        &trace,
        &topo,
        &mut catalog,
        &CommParams::default(),
        &WorkloadOptions { skip: 20, limit: Some(10), ..opts.clone() },
    )
    .unwrap();
    assert_eq!(window.len(), 10);
    assert_eq!(window[0].submit, SimTime::ZERO, "a window starts at time 0");
    assert!(all[20..30].iter().zip(&window).all(|(a, b)| a.model == b.model && a.name == b.name));
    let distinct: std::collections::BTreeSet<_> = all.iter().map(|j| j.model).collect();
    assert!(distinct.len() >= 5, "the mix is used: {distinct:?}");
    let other =
        resolve(&trace, &topo, &mut catalog, &CommParams::default(), &WorkloadOptions { seed: 4, ..opts }).unwrap();
    assert!(all.iter().zip(&other).any(|(a, b)| a.model != b.model));
}

#[test]
fn a_submit_time_far_beyond_the_rest_is_warned_of_with_its_line() {
    let topo = resolve_topology_arg("teaching").unwrap();
    let mut catalog = Catalog::built_in();
    let mut jobs: Vec<TraceJob> = (0..20)
        .map(|i| job(&format!("j{i}"), 600.0 * f64::from(i), 1, Some("resnet50"), TraceWork::DurationS(100.0)))
        .collect();
    let trace = |jobs: Vec<TraceJob>| Trace { format: TraceFormat::ProximaCsv, skipped: Vec::new(), jobs };
    let opts = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let resolved = resolve(&trace(jobs.clone()), &topo, &mut catalog, &CommParams::default(), &opts).unwrap();
    assert!(submit_outliers(&resolved).is_empty(), "a trace of 3 h 10 min has no outlier");
    jobs.push(TraceJob { line: 23, ..job("typo", 1e9, 1, Some("resnet50"), TraceWork::DurationS(100.0)) });
    let resolved = resolve(&trace(jobs), &topo, &mut catalog, &CommParams::default(), &opts).unwrap();
    let warnings = submit_outliers(&resolved);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!((warnings[0].line, warnings[0].field.as_str()), (Some(23), "submit"));
    // The gap in years, as a person reads it: 1e9 s less the 99th percentile, 11,400 s.
    assert!(
        warnings[0].message.starts_with(
            "job typo is submitted at 1000000000 s, 31.7 years after 99% of the trace's jobs (all in by 11400 s; over 10x that)"
        ),
        "{}",
        warnings[0].message
    );
    assert_eq!([gap_in_words(86_399.0), gap_in_words(3.0 * 86_400.0)], ["24.0 h", "3.0 days"]);
}
