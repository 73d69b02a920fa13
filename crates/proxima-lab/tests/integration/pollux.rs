//! Agreement with the simulator the Pollux workloads come from: the Pollux OSDI'21
//! artifact (petuum/adaptdl, branch `osdi21-artifact`, `simulator/`), run as published.
//!
//! The artifact's figures below were measured by running its own code
//! (`docs/CALIBRATION.md`, "Agreement with the Pollux simulator", says how); they are the
//! reference, not fitted to. The real traces are read from `$PROXIMA_DATA` or
//! `../shared/data`; without them the tests say so and pass, unless `PROXIMA_REQUIRE_DATA=1`.

use crate::common;

use proxima_core::efficiency::{fit_training, parse_progress_trace, EpochRow, POLLUX_APPLICATIONS};
use proxima_core::policy::{resolve_policy, tiresias::POLLUX_SPEC};
use proxima_core::scenario::Scenario;
use proxima_core::topology::resolve_topology_arg;
use proxima_core::trace::parse_trace;
use proxima_core::workload::{ModelMix, WorkloadOptions};
use proxima_core::Simulation;
use std::collections::BTreeMap;

/// Every kind of job in the eight workloads, as the artifact's `tiresias` runs it:
/// (application, GPUs, batch asked for, batch run, iterations to finish, seconds per iteration
/// on the placement `tiresias.py` gives it on an empty cluster, four GPUs per node).
/// Iterations are the artifact's sum over epochs of progress ÷ gain
/// (`simulator.py` `Job.step`); step times its interpolation of the measurements
/// (`applications.py` `get_throughput`) with gradient accumulation.
const ARTIFACT_JOBS: &[(&str, u32, u32, u32, f64, f64)] = &[
    ("bert", 6, 384, 360, 507.0, 6.0999),
    ("bert", 8, 384, 384, 476.0, 5.1673),
    ("bert", 12, 384, 360, 507.0, 3.1438),
    ("bert", 16, 384, 384, 476.0, 2.7810),
    ("cifar10", 6, 2048, 2052, 3338.4, 0.2688),
    ("cifar10", 8, 2048, 2048, 3343.1, 0.2599),
    ("cifar10", 12, 4096, 4092, 2144.0, 0.2844),
    ("cifar10", 16, 4096, 4096, 2142.8, 0.2235),
    ("deepspeech2", 6, 320, 324, 2254.5, 1.8345),
    ("deepspeech2", 8, 320, 320, 2274.9, 1.5463),
    ("deepspeech2", 12, 640, 636, 1396.8, 1.7757),
    ("imagenet", 24, 3200, 3216, 42672.7, 0.7453),
    ("imagenet", 32, 6400, 6400, 25094.3, 1.0933),
    ("imagenet", 48, 6400, 6432, 24998.2, 0.7876),
    ("ncf", 1, 32768, 32768, 1552.0, 0.0296),
    ("yolov3", 4, 64, 64, 15970.3, 0.8829),
];

/// The progress traces of one application, `(batch size, epochs)`, from
/// `pollux/validation/<app>/validation-<batch>.csv`.
fn progress_traces(app: &str) -> Option<Vec<(u32, Vec<EpochRow>)>> {
    let dir = common::data_dir()?.join("pollux/validation").join(app);
    let mut traces = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(batch) = name.strip_prefix("validation-").and_then(|n| n.strip_suffix(".csv")) else { continue };
        let text = std::fs::read_to_string(&path).unwrap();
        let rows = parse_progress_trace(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        traces.push((batch.parse().unwrap(), rows));
    }
    Some(traces)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn training_profiles_are_what_the_progress_traces_give() {
    // The numbers in efficiency.rs are this fit's output, rounded to five digits: if the fit
    // or the data change, this says which to update.
    for profile in POLLUX_APPLICATIONS {
        let Some(traces) = progress_traces(profile.name) else { return };
        let fit = fit_training(&traces, profile.epochs).unwrap();
        assert_eq!(
            (fit.reference_batch, fit.max_batch),
            (profile.reference_batch, profile.max_batch),
            "{}",
            profile.name
        );
        assert!(rel(fit.progress, profile.progress) < 1e-7, "{}: progress {}", profile.name, fit.progress);
        assert_eq!(fit.noise_scale.len(), profile.noise_scale.len(), "{}", profile.name);
        for (&(b, phi), &(pb, pphi)) in fit.noise_scale.iter().zip(profile.noise_scale) {
            assert_eq!(b, pb, "{}", profile.name);
            assert!(rel(phi, pphi) < 6e-5, "{} at {b}: fitted {phi}, table {pphi}", profile.name);
        }
    }
}

/// A kind of job: (application, GPUs, batch asked for).
type Kind = (String, u32, u32);
/// What Proxima makes of it: (iterations, batch run, seconds per iteration).
type Work = (f64, u32, f64);

/// Our jobs of each kind in the eight workloads on `pollux-testbed`, with the seconds per
/// iteration at the tightest placement, which for these sizes takes whole servers as
/// `tiresias.py` does.
fn our_jobs() -> Option<BTreeMap<Kind, Work>> {
    let dir = common::data_dir()?;
    let mut out = BTreeMap::new();
    for w in 1..=8 {
        let text = std::fs::read_to_string(dir.join(format!("pollux/workloads/workload-{w}.csv"))).unwrap();
        // name -> (application, batch asked for), from the file's plain rows.
        let asked: BTreeMap<&str, (&str, u32)> = text
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let f: Vec<&str> = l.trim().split(',').collect();
                (f[0], (f[2], f[4].parse().unwrap()))
            })
            .collect();
        let trace = parse_trace(&text).unwrap();
        let batch: BTreeMap<&str, u32> = trace.jobs.iter().map(|j| (j.name.as_str(), j.batch.unwrap())).collect();
        let catalog = proxima_core::model::Catalog::built_in();
        let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
        let scenario =
            Scenario::from_trace(resolve_topology_arg("pollux-testbed").unwrap(), &trace, &options, "w").unwrap();
        for job in &scenario.jobs {
            let (app, requested) = asked[job.name.as_str()];
            let ours = (job.iterations, batch[job.name.as_str()], job.ideal_iter_s.unwrap());
            if let Some(seen) = out.insert((app.to_string(), job.gpus, requested), ours) {
                assert_eq!(seen, ours, "one kind of job, one amount of work");
            }
        }
    }
    Some(out)
}

#[test]
fn every_kind_of_job_does_the_artifacts_work_at_about_its_speed() {
    let Some(ours) = our_jobs() else { return };
    assert_eq!(ours.len(), ARTIFACT_JOBS.len(), "the workloads have these {} kinds of job", ARTIFACT_JOBS.len());
    println!(
        "job                     batch ours/artifact  iterations ours/artifact  s/iteration ours/artifact  run time"
    );
    for &(app, gpus, asked, batch, iterations, step) in ARTIFACT_JOBS {
        let &(our_iterations, our_batch, our_step) =
            ours.get(&(app.to_string(), gpus, asked)).unwrap_or_else(|| panic!("{app} on {gpus} at {asked}"));
        let run_error = our_iterations * our_step / (iterations * step) - 1.0;
        println!(
            "{app:12} {gpus:2} x {asked:5}  {our_batch:5} / {batch:5}  {our_iterations:9.1} / {iterations:9.1}  {our_step:7.4} / {step:7.4}  {:+6.1}%",
            100.0 * run_error
        );
        if our_batch == batch {
            // The same batch: the same statistical efficiency, hence the same iterations.
            assert!(rel(our_iterations, iterations) < 2e-3, "{app} {gpus}: {our_iterations} iterations");
        } else {
            // BERT on 6 and 12 GPUs: the artifact cuts 384 to 360 to fit its accumulation
            // steps; the samples processed differ by under 2%.
            assert!(rel(our_iterations * our_batch as f64, iterations * batch as f64) < 0.02, "{app} {gpus}");
        }
        // The step-time model's error at the configurations the workloads run, as
        // docs/CALIBRATION.md states it: within 18%; CIFAR-10 on two whole servers −17%
        // (two-node placements are slow in the measurements), BERT on 12 +13%, ResNet-50
        // at 24-48 GPUs +11 to +13% (the cluster's straggler term); YOLOv3 within 1% (it
        // sits 2% under tiresias's 16 GPU-hour demotion threshold in the artifact); NCF's
        // one-GPU job −24% (the artifact gives a one-GPU job above its reference batch a
        // second micro-step).
        let bound = match app {
            "yolov3" => 0.01,
            "ncf" => 0.25,
            _ => 0.18,
        };
        assert!(run_error.abs() < bound, "{app} on {gpus}: run time {:+.1}%", 100.0 * run_error);
    }
}

/// The `(gpus, nodes, local batch, step time)` rows of a placements table, or `None` when
/// the shared data lacks it: the NCF and YOLOv3 tables (`simulator/traces/{ncf,yolov3}/`
/// of the artifact) are not part of `../shared/data`, so this check runs only where someone
/// put them there.
fn extra_placements(model: &str) -> Option<Vec<proxima_lab::calibrate::Sample>> {
    let path = common::data_dir()?.join(format!("pollux/placements/{model}.csv"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipping {model}: {} is not in the shared data", path.display());
        return None;
    };
    Some(proxima_lab::calibrate::parse_placements(&text).unwrap())
}

#[test]
fn ncf_and_yolov3_entries_are_what_their_measurements_give() {
    use proxima_core::comm::{ring_time, step_time, straggler_growth};
    use proxima_core::comm_params::{POLLUX_INTER_BYTES_PER_S, POLLUX_INTRA_BYTES_PER_S, POLLUX_STRAGGLER};
    use proxima_lab::calibrate::{fit_compute, ALPHA_INTER_S, ALPHA_INTRA_S};
    let catalog = proxima_core::model::Catalog::built_in();
    for model in ["ncf", "yolov3"] {
        let Some(samples) = extra_placements(model) else { continue };
        let entry = catalog.get(catalog.lookup(model).unwrap());
        // The compute: NCF's line through its single-GPU rows; YOLOv3's single-GPU rows.
        let single: Vec<(f64, f64)> = samples.iter().filter(|s| s.gpus == 1).map(|s| (s.local_bsz, s.step_s)).collect();
        if entry.compute_points.is_empty() {
            let curve = fit_compute(&samples).curve;
            let entry_curve = entry.compute_curve.unwrap();
            assert!(rel(entry_curve.fixed_s, curve.fixed_s) < 1e-4, "{model}: c0 {curve:?}");
            assert!(rel(entry_curve.per_sample_s, curve.per_sample_s) < 1e-4, "{model}: c1 {curve:?}");
        } else {
            assert_eq!(entry.compute_points.len(), single.len(), "{model}");
            for (&(b, t), &(eb, et)) in single.iter().zip(&entry.compute_points) {
                assert!(b == eb && rel(et, t) < 2e-5, "{model} at {b}: {t} measured, {et} in the catalogue");
            }
        }
        assert_eq!(entry.max_local_batch.unwrap() as f64 >= single.last().unwrap().0, model == "ncf", "{model}");
        // The overlap: the best of 0, 0.001, ..., 1 with the cluster's bandwidths and σ fixed.
        let s = entry.grad_bytes();
        let predict = |r: &proxima_lab::calibrate::Sample, ov: f64| -> f64 {
            let c = entry.compute_at(r.local_bsz).unwrap();
            let (tau, alpha) = if r.nodes > 1 {
                (s / POLLUX_INTER_BYTES_PER_S, ALPHA_INTER_S)
            } else {
                (s / POLLUX_INTRA_BYTES_PER_S, ALPHA_INTRA_S)
            };
            step_time(c, straggler_growth(r.gpus), POLLUX_STRAGGLER, ring_time(r.gpus, tau, alpha), ov)
        };
        let loss = |ov: f64| samples.iter().map(|r| (predict(r, ov) / r.step_s).ln().powi(2)).sum::<f64>();
        let best = (0..=1000).map(|i| i as f64 / 1000.0).min_by(|a, b| loss(*a).total_cmp(&loss(*b))).unwrap();
        assert!(
            (best - entry.overlap).abs() < 1.5e-3,
            "{model}: overlap {best} fitted, {} in the catalogue",
            entry.overlap
        );
        let mut errors: Vec<f64> =
            samples.iter().map(|r| 100.0 * (predict(r, entry.overlap) / r.step_s - 1.0).abs()).collect();
        let median = proxima_lab::calibrate::interpolated_percentile(&mut errors, 50.0);
        let p90 = proxima_lab::calibrate::interpolated_percentile(&mut errors, 90.0);
        println!("{model}: {} rows, step_time median / p90 APE {median:.1} / {p90:.1}%", samples.len());
    }
}

#[test]
fn the_catalogue_at_scale_against_the_scalability_measurements() {
    // `pollux/scalability/<model>.csv`: step times on 6 to 16 nodes and up to 64 GPUs, beyond
    // the placements the cluster was fitted on. The flat ring's time depends only on the GPU
    // count and on whether the ring leaves a server, so (nodes, replicas) is enough.
    use proxima_core::comm::{ring_time, step_time, straggler_growth};
    use proxima_core::comm_params::{POLLUX_INTER_BYTES_PER_S, POLLUX_STRAGGLER};
    use proxima_lab::calibrate::{interpolated_percentile, ALPHA_INTER_S};
    let catalog = proxima_core::model::Catalog::built_in();
    // Median APE of step_time as docs/CALIBRATION.md states it, with a little room.
    for (model, bound) in [("bert", 4.0), ("imagenet", 13.0), ("cifar10", 8.5), ("deepspeech2", 8.5)] {
        let Some(text) = common::read_data(&format!("pollux/scalability/{model}.csv")) else { return };
        let entry = catalog.get(catalog.lookup(model).unwrap());
        let tau = entry.grad_bytes() / POLLUX_INTER_BYTES_PER_S;
        let mut errors = Vec::new();
        let mut largest = 0;
        for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let f: Vec<f64> = line.split(',').map(|v| v.trim().parse().unwrap()).collect();
            let (nodes, gpus, local, measured) = (f[0] as u32, f[1] as u32, f[2], f[3]);
            assert!(nodes > 1, "{model}: the scalability runs all span servers");
            largest = largest.max(gpus);
            let c = entry.compute_at(local).unwrap();
            let pred = step_time(
                c,
                straggler_growth(gpus),
                POLLUX_STRAGGLER,
                ring_time(gpus, tau, ALPHA_INTER_S),
                entry.overlap,
            );
            errors.push(100.0 * (pred / measured - 1.0).abs());
        }
        let median = interpolated_percentile(&mut errors, 50.0);
        let p90 = interpolated_percentile(&mut errors, 90.0);
        println!("{model:12} {} rows up to {largest} GPUs: median / p90 APE {median:.1} / {p90:.1}%", errors.len());
        assert!(median < bound, "{model}: median APE {median:.1}% at scale");
    }
}

/// The artifact's mean JCT (s) of its `tiresias` policy on workload-1 ... workload-8, measured
/// by running it as published (docs/CALIBRATION.md, "Agreement with the Pollux simulator");
/// workload-6's is the figure of the artifact's README.
const ARTIFACT_TIRESIAS_MEAN_JCT_S: [f64; 8] =
    [2473.65, 5144.9625, 3876.25625, 3280.2625, 3501.0125, 3469.69375, 5479.9125, 5079.70625];

/// `tiresias` in the artifact's setting ([`POLLUX_SPEC`]) on `pollux-testbed`: every
/// workload's mean JCT within 10% of the artifact's (measured: −2.9% to +4.8%).
#[test]
fn tiresias_on_the_pollux_testbed_matches_the_artifacts_mean_jct() {
    let Some(dir) = common::data_dir() else { return };
    for (i, artifact) in ARTIFACT_TIRESIAS_MEAN_JCT_S.iter().enumerate() {
        let text = std::fs::read_to_string(dir.join(format!("pollux/workloads/workload-{}.csv", i + 1))).unwrap();
        let trace = parse_trace(&text).unwrap();
        let catalog = proxima_core::model::Catalog::built_in();
        let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
        let scenario =
            Scenario::from_trace(resolve_topology_arg("pollux-testbed").unwrap(), &trace, &options, "w").unwrap();
        let summary = Simulation::new(scenario, resolve_policy(POLLUX_SPEC).unwrap()).run();
        let ours = summary.avg_jct_s;
        println!(
            "workload-{}: artifact {artifact:.1} s, Proxima {ours:.1} s ({:+.1}%)",
            i + 1,
            100.0 * (ours / artifact - 1.0)
        );
        assert_eq!(summary.jobs_completed, 160);
        assert!(rel(ours, *artifact) < 0.10, "workload-{}: {ours:.1} s against {artifact:.1} s", i + 1);
    }
}
