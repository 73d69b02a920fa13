//! The trace readers on the real traces in `../shared/data` (skipped, with a message, when
//! the folder is absent). The expected numbers are facts about those files, counted
//! independently of Proxima (see `../shared/data/README.md`).

use crate::common;

use proxima_core::trace::{native, parse_trace, Trace, TraceFormat, TraceJob, TraceWork};
use std::collections::BTreeMap;

fn gpu_histogram(t: &Trace) -> BTreeMap<u32, u32> {
    let mut h = BTreeMap::new();
    for j in &t.jobs {
        *h.entry(j.gpus).or_insert(0) += 1;
    }
    h
}

fn duration(w: TraceWork) -> f64 {
    match w {
        TraceWork::DurationS(d) => d,
        TraceWork::Iterations(i) => panic!("expected a duration, got {i} iterations"),
    }
}

/// Jobs compared without their input lines, which depend on where a text put them.
fn unlined(t: &Trace) -> Vec<TraceJob> {
    t.jobs.iter().map(|j| TraceJob { line: 0, ..j.clone() }).collect()
}

#[test]
fn philly_loads_every_row() {
    let Some(text) = common::read_data("philly/philly.csv") else { return };
    let t = parse_trace(&text).unwrap_or_else(|e| panic!("philly.csv: {e}"));
    assert_eq!(t.format, TraceFormat::Philly);
    assert_eq!(t.jobs.len(), 82_247);
    // The README's counts, plus the 7 jobs of 12 GPUs and 7 of 24 it leaves out.
    let expected: BTreeMap<u32, u32> =
        [(1, 76_627), (2, 1_818), (4, 1_870), (8, 1_643), (12, 7), (16, 199), (24, 7), (32, 67), (64, 6), (128, 3)]
            .into_iter()
            .collect();
    assert_eq!(gpu_histogram(&t), expected);

    // First row: 2017-10-09 07:01:55,66.0,1,66.0,11cb48.
    let first = &t.jobs[0];
    assert_eq!((first.name.as_str(), first.line, first.gpus), ("philly-L2", 2, 1));
    assert_eq!(first.submit_s, 1_507_532_515.0);
    assert_eq!(first.work, TraceWork::DurationS(66.0));
    assert_eq!(first.model, None);

    // Unsorted, file order kept: the earliest submission is 2017-09-04 10:30:41 and the
    // latest 2017-12-22 08:02:11, neither of them first.
    let min = t.jobs.iter().map(|j| j.submit_s).fold(f64::INFINITY, f64::min);
    let max = t.jobs.iter().map(|j| j.submit_s).fold(0.0, f64::max);
    assert_eq!(min, 1_504_521_041.0);
    assert_eq!(max, 1_513_929_731.0);
    assert!(t.jobs.windows(2).any(|w| w[0].submit_s > w[1].submit_s));

    // Durations: the data has no zero or negative run times; the shortest is 1 s, the
    // longest 4,628,226 s (53.6 days).
    let shortest = t.jobs.iter().map(|j| duration(j.work)).fold(f64::INFINITY, f64::min);
    let longest = t.jobs.iter().map(|j| duration(j.work)).fold(0.0, f64::max);
    assert_eq!((shortest, longest), (1.0, 4_628_226.0));
    let gpu_seconds: f64 = t.jobs.iter().map(|j| duration(j.work) * j.gpus as f64).sum();
    assert!((gpu_seconds / t.jobs.len() as f64 - 42_811.08).abs() < 0.01, "{gpu_seconds}");
}

#[test]
fn tiresias_60_jobs() {
    let Some(text) = common::read_data("tiresias/60_job.csv") else { return };
    let t = parse_trace(&text).unwrap_or_else(|e| panic!("60_job.csv: {e}"));
    assert_eq!(t.format, TraceFormat::Tiresias);
    assert_eq!(t.jobs.len(), 60);
    // First row: 0,1,0,606,vgg19,164,30 (the file has CRLF line ends).
    let j = &t.jobs[0];
    assert_eq!((j.name.as_str(), j.gpus, j.submit_s, j.model.as_deref()), ("0", 1, 0.0, Some("vgg19")));
    assert_eq!(j.work, TraceWork::DurationS(164.0));
    // Last row: 59,1,1779,525,inception3,122,33.
    let last = &t.jobs[59];
    assert_eq!(
        (last.name.as_str(), last.submit_s, last.model.as_deref(), last.line),
        ("59", 1779.0, Some("inception3"), 61)
    );
    // Ten models, six jobs each.
    let mut models: BTreeMap<&str, u32> = BTreeMap::new();
    for j in &t.jobs {
        *models.entry(j.model.as_deref().unwrap()).or_insert(0) += 1;
    }
    assert_eq!(models.len(), 10);
    assert!(models.values().all(|&n| n == 6), "{models:?}");
    // The same file with LF line ends and a byte-order mark reads the same.
    let lf = format!("\u{feff}{}", text.replace("\r\n", "\n"));
    assert_eq!(parse_trace(&lf).unwrap(), t);
}

#[test]
fn pollux_workloads_have_160_jobs() {
    let Some(dir) = common::data_dir() else { return };
    for w in 1..=8 {
        let path = dir.join(format!("pollux/workloads/workload-{w}.csv"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let t = parse_trace(&text).unwrap_or_else(|e| panic!("workload-{w}.csv: {e}"));
        assert_eq!(t.format, TraceFormat::Pollux, "workload-{w}");
        assert_eq!(t.jobs.len(), 160, "workload-{w}");
        for j in &t.jobs {
            let app = j.model.as_deref().unwrap();
            let profile = proxima_core::efficiency::training_profile(app).expect("a Pollux application");
            // Never fewer iterations than plain epochs at the job's batch: efficiency <= 1
            // at or above the reference batch.
            let batch = j.batch.expect("Pollux jobs state their batch") as f64;
            let plain = profile.progress * profile.reference_batch as f64 / batch;
            assert!(matches!(j.work, TraceWork::Iterations(i) if i >= plain * (1.0 - 1e-12)), "{j:?}");
        }
    }
    // workload-1 starts with `cifar10-0,107,cifar10,6,2048`: 100 epochs of statistical
    // progress at 2,052 per iteration (342 on each of 6 GPUs), 3,338.4 iterations in the
    // Pollux simulator.
    let t = parse_trace(&common::read_data("pollux/workloads/workload-1.csv").unwrap()).unwrap();
    let j = &t.jobs[0];
    assert_eq!((j.name.as_str(), j.submit_s, j.gpus, j.model.as_deref()), ("cifar10-0", 107.0, 6, Some("cifar10")));
    assert_eq!(j.batch, Some(2052));
    assert!(matches!(j.work, TraceWork::Iterations(i) if (i - 3338.4).abs() < 0.5), "{:?}", j.work);
    let mut apps: BTreeMap<&str, u32> = BTreeMap::new();
    for j in &t.jobs {
        *apps.entry(j.model.as_deref().unwrap()).or_insert(0) += 1;
    }
    let expected: BTreeMap<&str, u32> =
        [("bert", 7), ("cifar10", 66), ("deepspeech2", 12), ("imagenet", 4), ("ncf", 68), ("yolov3", 3)]
            .into_iter()
            .collect();
    assert_eq!(apps, expected);
    assert_eq!(t.jobs[159].name, "ncf-159");
    assert_eq!(t.jobs[159].submit_s, 27_695.0);
}

#[test]
fn files_that_are_not_traces_are_refused_at_the_header() {
    let Some(_) = common::data_dir() else { return };
    for file in [
        "pollux/placements/bert.csv",
        "pollux/placements/cifar10.csv",
        "pollux/placements/deepspeech2.csv",
        "pollux/placements/imagenet.csv",
        "tiresias/n32g4.csv",
        "tiresias/n160g8.csv",
        "tiresias/n256g8.csv",
    ] {
        let text = common::read_data(file).unwrap();
        let e = parse_trace(&text).expect_err(file);
        assert_eq!((e.line, e.field.as_str()), (Some(1), "header"), "{file}: {e}");
        assert!(e.message.contains("unrecognised trace format"), "{file}: {e}");
    }
}

#[test]
fn real_traces_survive_the_native_formats() {
    let Some(philly) = common::read_data("philly/philly.csv") else { return };
    let philly = parse_trace(&philly).unwrap();
    let csv = native::to_csv(&philly);
    let back = parse_trace(&csv).unwrap();
    assert_eq!(back.format, TraceFormat::ProximaCsv);
    // Each job sits on the same line in both files, so even the lines agree.
    assert_eq!(back.jobs, philly.jobs);
    let json = parse_trace(&native::to_json(&philly)).unwrap();
    assert_eq!(json.format, TraceFormat::ProximaJson);
    assert_eq!(unlined(&json), unlined(&philly));

    let pollux = parse_trace(&common::read_data("pollux/workloads/workload-3.csv").unwrap()).unwrap();
    for text in [native::to_csv(&pollux), native::to_json(&pollux)] {
        assert_eq!(unlined(&parse_trace(&text).unwrap()), unlined(&pollux));
    }
    let tiresias = parse_trace(&common::read_data("tiresias/60_job.csv").unwrap()).unwrap();
    assert_eq!(unlined(&native::parse_csv(&native::to_csv(&tiresias)).unwrap()), unlined(&tiresias));
}

#[test]
fn synthetic_traces_round_trip_too() {
    use proxima_core::trace::synthetic::{generate, SyntheticSpec};
    let t = generate(&SyntheticSpec::parse("synthetic:jobs=500,load=0.7,seed=11").unwrap(), 128);
    let csv = parse_trace(&native::to_csv(&t)).unwrap();
    assert_eq!(unlined(&csv), t.jobs);
    let json = parse_trace(&native::to_json(&t)).unwrap();
    assert_eq!(unlined(&json), t.jobs);
}

#[test]
fn detection_tolerates_what_editors_add() {
    // A header in quotes, leading blank lines and a byte-order mark, as spreadsheet exports
    // write them.
    let cases = [
        ("\"timestamp\",\"duration\",\"num_gpus\",\"gpu_time\",\"cluster\"\n2017-10-09 07:01:55,66,1,66,a\n", TraceFormat::Philly),
        ("\u{feff}\n\r\njob_id,num_gpu,submit_time,iterations,model_name,duration,interval\r\n0,1,0,606,vgg19,164,30\r\n", TraceFormat::Tiresias),
        ("\u{feff}\n\nname,time,application,num_replicas,batch_size\nx,0,ncf,1,32768\n", TraceFormat::Pollux),
        (" ID , Submit_S , GPUs , Model , Duration_S \na,0,1,,5\n", TraceFormat::ProximaCsv),
        ("\u{feff}\n  [{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"duration_s\": 5}]", TraceFormat::ProximaJson),
    ];
    for (text, format) in cases {
        let t = parse_trace(text).unwrap_or_else(|e| panic!("{format:?}: {e}"));
        assert_eq!(t.format, format);
        assert_eq!(t.jobs.len(), 1);
    }
    let e = parse_trace("a;b;c\n1;2;3\n").unwrap_err();
    assert!(e.message.contains("separator must be a comma"), "{e}");
    let e = parse_trace("\n\n").unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(1), "header"));
}

#[test]
fn errors_render_as_file_line_field() {
    let e = parse_trace("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66,abc,66,x\n").unwrap_err();
    assert_eq!(e.with_source("philly.csv"), "philly.csv:2: num_gpus: expected a positive whole number, got 'abc'");
}

/// The fenced blocks of `docs/FORMATS.md` whose info string is `lang`.
fn doc_examples(lang: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/FORMATS.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start().strip_prefix("```")) {
            (None, Some(info)) if info.trim() == lang => current = Some(String::new()),
            (Some(block), Some(_)) => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), None) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

#[test]
fn the_examples_in_formats_md_are_valid() {
    use proxima_core::topology::{preset, Topology, TopologySpec};
    let json = doc_examples("json");
    let topology = json.iter().find(|b| b.contains("\"servers\"")).expect("a topology example");
    let spec = TopologySpec::from_json(topology).unwrap_or_else(|e| panic!("topology example: {e}"));
    // The example is the teaching preset, written with some defaults left out.
    let mut teaching = preset("teaching").unwrap().spec();
    teaching.name = "two-racks".into();
    assert_eq!(spec, teaching);
    let topo = Topology::from_spec(&spec).unwrap();
    assert_eq!((topo.gpu_count(), topo.tier_names().len()), (16, 3));

    let trace = json.iter().find(|b| b.contains("\"jobs\"")).expect("a trace example");
    let t = parse_trace(trace).unwrap_or_else(|e| panic!("JSON trace example: {e}"));
    assert_eq!((t.format, t.jobs.len()), (TraceFormat::ProximaJson, 2));
    assert_eq!(t.jobs[1].work, TraceWork::Iterations(20_000.0));

    let csv = doc_examples("csv");
    assert_eq!(csv.len(), 1);
    let t = parse_trace(&csv[0]).unwrap_or_else(|e| panic!("CSV trace example: {e}"));
    assert_eq!((t.format, t.jobs.len()), (TraceFormat::ProximaCsv, 3));
    assert_eq!(t.jobs[2].name, "tune, small");
    assert_eq!(t.jobs[1].model, None);
}

#[test]
fn tiresias_60_jobs_run_on_n32g4_with_the_models_not_measured_there_estimated() {
    // The preset named after the Tiresias simulator's cluster (A100) runs the simulator's own
    // trace: GoogLeNet, VGG-11, VGG-19 and ResNet-101 have no A100 measurement and run
    // estimated (from their V100 estimates); the other six models run measured.
    use proxima_core::engine::Simulation;
    use proxima_core::model::{Catalog, ModelId};
    use proxima_core::policy::resolve_policy;
    use proxima_core::scenario::Scenario;
    use proxima_core::topology::resolve_topology_arg;
    use proxima_core::workload::{ModelMix, WorkloadOptions};
    let Some(text) = common::read_data("tiresias/60_job.csv") else { return };
    let trace = parse_trace(&text).unwrap();
    let topology = resolve_topology_arg("n32g4").unwrap();
    assert_eq!(topology.gpu(), Some("A100"));
    let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&Catalog::built_in()) };
    let scenario = Scenario::from_trace(topology, &trace, &options, "60_job.csv").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scenario.jobs.len(), 60);
    let estimated: std::collections::BTreeSet<&str> = scenario
        .jobs
        .iter()
        .map(|j| scenario.catalog.get(j.model))
        .filter(|m| m.estimate.is_some())
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(estimated.into_iter().collect::<Vec<_>>(), ["googlenet", "resnet101", "vgg11", "vgg19"]);
    assert!(scenario.catalog.get(ModelId(0)).estimate.is_none());
    let mut sim = Simulation::new(scenario, resolve_policy("fifo").unwrap());
    let summary = sim.run();
    assert_eq!((summary.jobs_completed, summary.jobs_unfinished), (60, 0), "every job finishes");
}
