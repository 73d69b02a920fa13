//! What the worker does with a request: build the scenario exactly as the CLI does, run
//! each policy, and turn each run into the CLI's files plus the numbers the charts need.
//!
//! No web API here: the worker binary passes in a clock and a way to send messages, so the
//! same code runs in the browser tests (and natively) to check that the page computes what
//! the CLI computes.

use crate::eventlog::{base64_encode, hash_hex, Recorder, Shared};
use crate::protocol::{FromWorker, PolicyResult, RunRequest, TopologyInput, TraceInput, CDF_POINTS, TIMELINE_BUCKETS};
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
        TraceInput::File { name, text } => parse_trace(text).map_err(|e| e.with_source(name)),
    }
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
    let mut summaries: Vec<Summary> = Vec::new();
    for (index, policy) in request.policies.iter().enumerate() {
        let index = index as u32;
        let mut sim = Simulation::new(scenario.clone(), resolve_policy(policy).expect("checked above"));
        let hasher = Rc::new(RefCell::new(EventHasher::default()));
        let recorder = Rc::new(RefCell::new(Recorder::default()));
        sim.add_observer(Box::new(Shared(hasher.clone())));
        sim.add_observer(Box::new(Shared(recorder.clone())));
        let started = now_ms();
        let mut last_sent = f64::NEG_INFINITY;
        let mut steps: u64 = 0;
        while sim.step().is_some() {
            steps += 1;
            if steps % STEPS_PER_CLOCK_CHECK == 0 {
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
        let mut result = policy_result(policy, &sim, &summary, elapsed_ms);
        result.event_hash = hash_hex(&hasher.borrow());
        result.event_count = hasher.borrow().count();
        result.playback = base64_encode(&recorder.borrow().finish(&sim, sim.now()));
        send(FromWorker::PolicyDone { run_id, policy: index, result: Box::new(result) });
        summaries.push(summary);
    }
    send(FromWorker::Finished { run_id, compare_json: compare_json(&summaries) });
}

/// `compare.json` as the CLI writes it.
pub fn compare_json(summaries: &[Summary]) -> String {
    serde_json::to_string_pretty(summaries).expect("summaries serialise") + "\n"
}

/// The files and chart data of one finished run.
pub fn policy_result(policy: &str, sim: &Simulation, summary: &Summary, elapsed_ms: f64) -> PolicyResult {
    let scenario = sim.scenario();
    let end = SimTime::from_secs_f64(summary.makespan_s);
    let mut jcts: Vec<f64> = scenario
        .jobs
        .iter()
        .zip(sim.runs())
        .filter(|(_, r)| r.status == JobStatus::Completed)
        .filter_map(|(j, r)| r.end.map(|e| (e - j.submit).as_secs_f64()))
        .collect();
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
        .map(|b| (b.start.as_secs_f64(), b.end.as_secs_f64(), b.busy_gpus / gpus, b.queued))
        .collect();
    PolicyResult {
        policy: policy.to_string(),
        summary_json: summary.to_json() + "\n",
        jobs_csv: jobs_csv(scenario, sim.runs()),
        timeseries_csv: timeseries_csv(sim.timeline(), end, summary.gpus, TIMESERIES_CSV_BUCKETS),
        jct_cdf: cdf_points(&jcts, CDF_POINTS),
        timeline,
        jobs_per_tier: topo.tier_names().iter().cloned().zip(per_tier).collect(),
        elapsed_ms,
        event_hash: String::new(),
        event_count: 0,
        playback: String::new(),
    }
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
        assert!(done[1].summary_json.contains("\"policy\": \"dally:delay=on,preempt=on"), "{}", done[1].summary_json);
        assert!(done[0].jobs_csv.starts_with("id,name,status,"));
        assert_eq!(done[0].timeseries_csv.lines().count(), 501);
        assert_eq!(done[0].jct_cdf.last().unwrap().1, 1.0);
        assert_eq!(done[0].jobs_per_tier.iter().map(|t| t.1).sum::<u64>(), 40);
        match out.last().unwrap() {
            FromWorker::Finished { run_id: 3, compare_json } => {
                assert!(compare_json.starts_with("[\n  {\n    \"policy\": \"fifo:backfill=on\""), "{compare_json}");
            }
            other => panic!("{other:?}"),
        }
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
        sim.add_observer(Box::new(Shared(hasher.clone())));
        sim.run();
        assert_eq!(result.event_hash, format!("{:016x}", hasher.borrow().hash()));
        assert_eq!(result.event_count, hasher.borrow().count());
        let log = crate::eventlog::PlaybackLog::from_base64(&result.playback).unwrap();
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
            text: "id,submit_s,gpus,model,duration_s\n1,0,2,lenet9,10\n".into(),
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
