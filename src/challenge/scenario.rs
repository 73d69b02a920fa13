//! The challenge's fixed scenario (its cluster, its ten jobs, the rivals' mean JCTs there)
//! and how a run on it is scored, apart from the play; the `tests` named below are
//! `challenge`'s (`challenge_tests.rs`).

use proxima_core::inputs::{build_topology, ArgumentNames, TopologyInput};
use proxima_core::model::Catalog;
use proxima_core::scenario::JobStatus;
use proxima_core::trace::{Trace, TraceFormat, TraceJob, TraceWork};
use proxima_core::workload::{ModelMix, WorkloadOptions};
use proxima_core::{Scenario, Simulation};

/// Two racks of two 4-GPU servers, 50 Gbit/s TCP NICs and 32:1 uplinks (the first run's
/// cluster, smaller): a job split across racks pays dearly, one split across servers of a
/// rack less. On its jobs `random` placement takes 1.8 times `fifo`'s mean JCT.
pub const TOPOLOGY: &str = "racks=2,servers=2,gpus=4,oversub=32,fabric=tcp";
pub const TRACE_NAME: &str = "challenge.csv";
/// The trace as a file in Proxima's CSV format: what `proxima run --trace` reads, in the
/// docs and tests. The page builds the same jobs from [`ROWS`] (`tests` checks they agree).
pub const TRACE: &str = "id,submit_s,gpus,model,duration_s
1,0,3,bert,1200
2,0,2,resnet50,900
3,0,6,yolov3,1500
4,60,4,bert,1200
5,120,1,ncf,600
6,180,3,deepspeech2,900
7,240,4,bert,1200
8,300,8,yolov3,1500
9,360,2,bert,900
10,420,4,cifar10,1200
";
/// [`TRACE`]'s rows: name, submission (s), GPUs, model, run time at the ideal placement (s).
/// Ten jobs of 1 to 8 GPUs, odd sizes among them so that GPUs fragment, arriving over seven
/// minutes, with models from the light to exchange (NCF, ResNet-18 on CIFAR-10) to the heavy
/// (BERT, YOLOv3), so that where they go matters. The cluster's GPUs are T4s (the TCP
/// fabric's), so the models are those measured on a T4.
const ROWS: [(&str, f64, u32, &str, f64); 10] = [
    ("1", 0.0, 3, "bert", 1200.0),
    ("2", 0.0, 2, "resnet50", 900.0),
    ("3", 0.0, 6, "yolov3", 1500.0),
    ("4", 60.0, 4, "bert", 1200.0),
    ("5", 120.0, 1, "ncf", 600.0),
    ("6", 180.0, 3, "deepspeech2", 900.0),
    ("7", 240.0, 4, "bert", 1200.0),
    ("8", 300.0, 8, "yolov3", 1500.0),
    ("9", 360.0, 2, "bert", 900.0),
    ("10", 420.0, 4, "cifar10", 1200.0),
];
pub const JOBS: u32 = ROWS.len() as u32;
pub const SEED: u64 = 1;
/// The policies the student is compared with, on the same scenario, and their mean JCT
/// there, in seconds. Written down rather than run on the page, whose module must stay
/// small (the first visit's 1 MB, `tests/e2e/weight.test.mjs`); the figures are a pure
/// function of the fixed scenario. `tests::the_rivals_figures_are_the_cores` runs them
/// natively and checks these to the bit, and `tests/e2e/challenge.test.mjs` checks the page
/// shows what `proxima run` gives.
pub const RIVALS: [(&str, f64); 3] =
    [("fifo", 2979.2753257000004), ("consolidate", 2691.2621311000003), ("dally", 2016.0183488000002)];

/// The challenge's scenario: what `inputs::build_scenario` makes of [`TRACE`] (the test
/// `the_scenario_is_the_clis` checks), by the steps it takes after reading the file. The
/// page reads no trace file (the workers do), and the readers would weigh on the first
/// visit's 1 MB (`tests/e2e/weight.test.mjs`), so the rows are given as data.
pub fn scenario() -> Result<Scenario, String> {
    let topology =
        build_topology(&TopologyInput::Argument(TOPOLOGY.into()), ArgumentNames::Words).map_err(|e| e.to_string())?;
    let jobs = (ROWS.iter().enumerate())
        .map(|(i, &(name, submit_s, gpus, model, run_s))| TraceJob {
            name: name.into(),
            submit_s,
            gpus,
            model: Some(model.into()),
            work: TraceWork::DurationS(run_s),
            batch: None,
            tenant: None,
            line: i as u32 + 2,
        })
        .collect();
    let trace = Trace::new(TraceFormat::ProximaCsv, jobs);
    let options =
        WorkloadOptions { seed: SEED, skip: 0, limit: None, mix: ModelMix::default_for(&Catalog::built_in()) };
    proxima_core::scenario::Scenario::from_trace(topology, &trace, &options, TRACE_NAME)
        .map_err(|e| format!("{TRACE_NAME}: {e}"))
}

/// The completed jobs and their mean JCT, as `Summary::avg_jct_s` has it (sorted, then
/// summed, so to the bit; `tests` checks): the page leaves the summary's other figures,
/// and their code, to the worker.
pub fn mean_jct(sim: &Simulation) -> (u32, f64) {
    let jobs = &sim.scenario().jobs;
    let mut jcts: Vec<f64> = (sim.runs().iter().zip(jobs))
        .filter(|(r, _)| r.status == JobStatus::Completed)
        .filter_map(|(r, j)| r.end.map(|end| (end - j.submit).as_secs_f64()))
        .collect();
    jcts.sort_by(f64::total_cmp);
    let n = jcts.len() as u32;
    (n, if n > 0 { jcts.iter().sum::<f64>() / n as f64 } else { 0.0 })
}
