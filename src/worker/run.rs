//! A run request: the scenario built exactly as the CLI builds it, each policy run, and
//! each run turned into the CLI's files plus the numbers the page shows.

use crate::eventlog::{hash_hex, Recorder, SharedObserver};
use crate::protocol::{
    FromWorker, JobOutcomes, PolicyResult, RunFile, RunRequest, TimelineBucket, TopologyInput, TraceInput, CDF_POINTS,
    NO_TIER, TIMELINE_BUCKETS,
};
use proxima_core::engine::{JobStatus, Scenario, Simulation};
use proxima_core::event::EventHasher;
use proxima_core::metrics::{jobs_csv, timeseries_csv, Summary};
use proxima_core::model::Catalog;
use proxima_core::policy::resolve_policy;
use proxima_core::time::SimTime;
use proxima_core::topology::{resolve_topology_arg, Topology};
use proxima_core::trace::synthetic;
use proxima_core::trace::{parse_trace, Trace};
use proxima_core::workload::{build_scenario, ModelMix, WorkloadOptions};
use std::cell::RefCell;
use std::rc::Rc;

/// `timeseries.csv` has as many buckets as the CLI writes (its `TIMESERIES_BUCKETS`).
pub const TIMESERIES_CSV_BUCKETS: u32 = 500;

/// Steps between looks at the clock: reading it every step would cost more than the step.
const STEPS_PER_CLOCK_CHECK: u64 = 1024;

/// Milliseconds between progress messages: often enough for a smooth bar, rarely enough
/// that the page is not flooded.
const PROGRESS_EVERY_MS: f64 = 50.0;

/// The topology of a request, built as `proxima --topology` builds it.
pub fn build_topology(input: &TopologyInput) -> Result<Topology, String> {
    match input {
        TopologyInput::Arg(arg) => resolve_topology_arg(arg).map_err(|e| e.with_source("topology")),
        TopologyInput::Spec(spec) => Topology::from_spec(spec).map_err(|e| e.with_source("topology")),
    }
}

/// The trace of a request, read as `proxima --trace` reads it.
pub fn build_trace(input: &TraceInput, topology: &Topology) -> Result<Trace, String> {
    match input {
        TraceInput::Synthetic(text) => {
            let spec = synthetic::parse(text).map_err(|e| e.with_source("trace"))?;
            Ok(synthetic::generate(&spec, topology.gpu_count()))
        }
        TraceInput::File { name, data } => read_trace_file(name, &data.read().map_err(|e| format!("{name}: {e}"))?),
    }
}

/// A trace file's bytes read as the CLI reads a file: UTF-8, the format detected from the
/// header.
pub fn read_trace_file(name: &str, bytes: &[u8]) -> Result<Trace, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("{name}:{line}: encoding: not valid UTF-8 (byte {at}); save the file as UTF-8")
    })?;
    parse_trace(text).map_err(|e| e.with_source(name))
}

/// The scenario of a request: the same steps, in the same order, as the CLI's
/// `load_scenario`, so that the same inputs give the same jobs.
pub fn build_request_scenario(request: &RunRequest) -> Result<Scenario, String> {
    let topology = build_topology(&request.topology)?;
    let trace = build_trace(&request.trace, &topology)?;
    let catalog = Catalog::built_in();
    let mix = match &request.mix {
        Some(m) => ModelMix::parse(m, &catalog).map_err(|e| e.with_source("mix"))?,
        None => ModelMix::default_for(&catalog),
    };
    let options = WorkloadOptions { seed: request.seed, skip: 0, limit: None, mix };
    let label = match &request.trace {
        TraceInput::Synthetic(text) => text.as_str(),
        TraceInput::File { name, .. } => name.as_str(),
    };
    build_scenario(topology, &trace, &options, label).map_err(|e| e.with_source(label))
}

/// Runs a whole request, sending progress and results through `send`. `now_ms` is a clock
/// in milliseconds (only used to pace progress messages and to time runs).
pub fn run_request(request: &RunRequest, now_ms: &dyn Fn() -> f64, send: &mut dyn FnMut(FromWorker)) {
    let run_id = request.run_id;
    // Check every policy before running any, as the CLI does, so a typo fails at once.
    for p in &request.policies {
        if let Err(e) = resolve_policy(p) {
            send(FromWorker::Failed { run_id, message: format!("{p}: {e}") });
            return;
        }
    }
    let scenario = match build_request_scenario(request) {
        Ok(s) => s,
        Err(message) => {
            send(FromWorker::Failed { run_id, message });
            return;
        }
    };
    for (index, policy) in request.policies.iter().enumerate() {
        let index = index as u32;
        let mut sim = Simulation::new(scenario.clone(), resolve_policy(policy).expect("checked above"));
        let hasher = Rc::new(RefCell::new(EventHasher::default()));
        let recorder = Rc::new(RefCell::new(Recorder::default()));
        sim.add_observer(Box::new(SharedObserver(hasher.clone())));
        sim.add_observer(Box::new(SharedObserver(recorder.clone())));
        let started = now_ms();
        let mut last_sent = f64::NEG_INFINITY;
        let mut steps: u64 = 0;
        while sim.step().is_some() {
            steps += 1;
            if steps.is_multiple_of(STEPS_PER_CLOCK_CHECK) {
                let t = now_ms();
                if t - last_sent >= PROGRESS_EVERY_MS {
                    last_sent = t;
                    let (done, total) = sim.progress();
                    send(FromWorker::Progress { run_id, policy: index, done, total });
                }
            }
        }
        let summary = sim.summary();
        let elapsed_ms = now_ms() - started;
        let (done, total) = sim.progress();
        send(FromWorker::Progress { run_id, policy: index, done, total });
        let mut result = policy_result(policy, &sim, summary, elapsed_ms);
        result.event_hash = hash_hex(&hasher.borrow());
        result.event_count = hasher.borrow().count();
        result.playback = recorder.borrow().finish(&sim, sim.now()).into();
        send(FromWorker::PolicyDone { run_id, policy: index, result: Box::new(result) });
    }
    send(FromWorker::Finished { run_id });
}

/// The files and the page's data of one finished run.
pub fn policy_result(policy: &str, sim: &Simulation, summary: Summary, elapsed_ms: f64) -> PolicyResult {
    let scenario = sim.scenario();
    let end = SimTime::from_secs_f64(summary.makespan_s);
    let jobs = job_outcomes(scenario, sim);
    let mut jcts: Vec<f64> = jobs.jct_s.0.iter().copied().filter(|j| !j.is_nan()).collect();
    jcts.sort_by(f64::total_cmp);
    let topo = &scenario.topology;
    let mut per_tier = vec![0u64; topo.tier_names().len()];
    for run in sim.runs() {
        if run.status == JobStatus::Completed {
            if let Some(t) = run.tier {
                per_tier[t.0 as usize] += 1;
            }
        }
    }
    let gpus = summary.gpus.max(1) as f64;
    let timeline = sim
        .timeline()
        .bucketed(end, TIMELINE_BUCKETS)
        .iter()
        .map(|b| TimelineBucket {
            start_s: b.start.as_secs_f64(),
            end_s: b.end.as_secs_f64(),
            gpu_util: b.busy_gpus / gpus,
            queued: b.queued,
        })
        .collect();
    let file = |name: &str, mime: &str, text: String| RunFile {
        name: name.to_string(),
        mime: mime.to_string(),
        bytes: text.into_bytes().into(),
    };
    let files = vec![
        file("summary.json", "application/json", summary.to_json() + "\n"),
        file("jobs.csv", "text/csv", jobs_csv(scenario, sim.runs())),
        file("timeseries.csv", "text/csv", timeseries_csv(sim.timeline(), end, summary.gpus, TIMESERIES_CSV_BUCKETS)),
    ];
    PolicyResult {
        policy: policy.to_string(),
        summary,
        jobs,
        jct_cdf: cdf_points(&jcts, CDF_POINTS),
        timeline,
        jobs_per_tier: topo.tier_names().iter().cloned().zip(per_tier).collect(),
        elapsed_ms,
        event_hash: String::new(),
        event_count: 0,
        playback: Default::default(),
        files,
    }
}

/// What happened to each job, as `jobs.csv` has it: time queued, completion time,
/// slowdown at its placement, tier of its last placement.
fn job_outcomes(scenario: &Scenario, sim: &Simulation) -> JobOutcomes {
    let mut out = JobOutcomes::default();
    for (job, run) in scenario.jobs.iter().zip(sim.runs()) {
        let completed = run.status == JobStatus::Completed;
        out.queue_s.0.push(run.queued_total.as_secs_f64());
        out.jct_s.0.push(match (completed, run.end) {
            (true, Some(end)) => (end - job.submit).as_secs_f64(),
            _ => f64::NAN,
        });
        out.slowdown.0.push(match job.ideal_run_s() {
            Some(ideal) if ideal > 0.0 && completed => run.run_total.as_secs_f64() / ideal,
            _ => f64::NAN,
        });
        out.tier.0.push(run.tier.map(|t| t.0).unwrap_or(NO_TIER));
    }
    out
}

/// At most `max` points of the empirical CDF of sorted values, always including the last.
pub fn cdf_points(sorted: &[f64], max: usize) -> Vec<(f64, f64)> {
    let n = sorted.len();
    if n == 0 || max == 0 {
        return Vec::new();
    }
    let take = n.min(max);
    (1..=take)
        .map(|k| {
            // The k-th of `take` evenly spaced ranks, 1-based, ending at n.
            let rank = (k * n).div_ceil(take);
            (sorted[rank - 1], rank as f64 / n as f64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FileData;

    fn request(policies: &[&str]) -> RunRequest {
        RunRequest {
            run_id: 3,
            topology: TopologyInput::Arg("teaching".into()),
            trace: TraceInput::Synthetic("synthetic:jobs=40,load=0.8,seed=1".into()),
            seed: 1,
            mix: None,
            policies: policies.iter().map(|p| p.to_string()).collect(),
        }
    }

    fn run(req: &RunRequest) -> Vec<FromWorker> {
        let mut out = Vec::new();
        run_request(req, &|| 0.0, &mut |m| out.push(m));
        out
    }

    fn file(result: &PolicyResult, name: &str) -> String {
        let file = result.files.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no {name}"));
        String::from_utf8(file.bytes.to_vec()).unwrap()
    }

    #[test]
    fn runs_each_policy_and_ends_with_compare_json() {
        let out = run(&request(&["fifo", "dally"]));
        let done: Vec<&PolicyResult> = out
            .iter()
            .filter_map(|m| match m {
                FromWorker::PolicyDone { run_id: 3, result, .. } => Some(&**result),
                _ => None,
            })
            .collect();
        assert_eq!(done.len(), 2);
        assert_eq!(done[0].policy, "fifo");
        assert!(done[1].summary.policy.starts_with("dally:preempt=on"), "{}", done[1].summary.policy);
        assert_eq!(file(done[1], "summary.json"), done[1].summary.to_json() + "\n");
        assert!(file(done[0], "jobs.csv").starts_with("id,name,status,"));
        assert_eq!(file(done[0], "timeseries.csv").lines().count(), 501);
        assert_eq!(done[0].jct_cdf.last().unwrap().1, 1.0);
        assert_eq!(done[0].jobs_per_tier.iter().map(|t| t.1).sum::<u64>(), 40);
        // Per job, what jobs.csv says.
        let jobs = &done[0].jobs;
        assert_eq!((jobs.queue_s.0.len(), jobs.jct_s.0.len(), jobs.tier.0.len()), (40, 40, 40));
        let csv = file(done[0], "jobs.csv");
        let first: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
        assert_eq!(jobs.jct_s.0[0], first[6].parse::<f64>().unwrap());
        assert_eq!(jobs.queue_s.0[0], first[7].parse::<f64>().unwrap());
        assert_eq!(format!("{:.6}", jobs.slowdown.0[0]), first[15]);
        assert_eq!(out.last(), Some(&FromWorker::Finished { run_id: 3 }));
        // compare.json, made on the page from the summaries, is the CLI's.
        let results = crate::state::Results {
            outcomes: done.iter().map(|r| crate::Shared::new((*r).clone())).collect(),
            finished: true,
            ..Default::default()
        };
        let compare_json = results.compare_json().unwrap();
        assert!(compare_json.starts_with("[\n  {\n    \"policy\": \"fifo:backfill=on\""), "{compare_json}");
    }

    #[test]
    fn results_carry_the_event_hash_and_a_playback_log() {
        let req = request(&["dally"]);
        let out = run(&req);
        let result = out
            .iter()
            .find_map(|m| match m {
                FromWorker::PolicyDone { result, .. } => Some(result.clone()),
                _ => None,
            })
            .unwrap();
        // The hash of the core's own hasher over the same run, as the CLI computes it.
        let mut sim = Simulation::new(build_request_scenario(&req).unwrap(), resolve_policy("dally").unwrap());
        let hasher = Rc::new(RefCell::new(EventHasher::default()));
        sim.add_observer(Box::new(SharedObserver(hasher.clone())));
        sim.run();
        assert_eq!(result.event_hash, format!("{:016x}", hasher.borrow().hash()));
        assert_eq!(result.event_count, hasher.borrow().count());
        let log = crate::eventlog::PlaybackLog::decode(&result.playback).unwrap();
        assert_eq!(log.jobs.len(), 40);
        assert!(log.events.len() as u64 <= result.event_count);
        assert_eq!(log.end_us, sim.now().0);
    }

    #[test]
    fn bad_inputs_fail_with_the_clis_message() {
        let out = run(&request(&["fifo", "lottery"]));
        assert_eq!(out.len(), 1);
        assert!(
            matches!(&out[0], FromWorker::Failed { message, .. } if message.starts_with("lottery: policy: unknown policy 'lottery'")),
            "{out:?}"
        );
        let mut bad = request(&["fifo"]);
        bad.trace = TraceInput::File {
            name: "jobs.csv".into(),
            data: FileData::Bytes(b"id,submit_s,gpus,model,duration_s\n1,0,2,lenet9,10\n".to_vec().into()),
        };
        let out = run(&bad);
        assert!(
            matches!(&out[0], FromWorker::Failed { message, .. } if message.starts_with("jobs.csv:2: model: unknown model 'lenet9'")),
            "{out:?}"
        );
    }

    #[test]
    fn cdf_points_are_thinned_evenly() {
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        let p = cdf_points(&v, 200);
        assert_eq!(p.len(), 200);
        assert_eq!(p[0], (5.0, 0.005));
        assert_eq!(p[199], (1000.0, 1.0));
        assert_eq!(cdf_points(&[3.0], 200), vec![(3.0, 1.0)]);
        assert!(cdf_points(&[], 200).is_empty());
    }
}
