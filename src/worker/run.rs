//! A run request: the scenario built through the core's one path from inputs to a
//! scenario (`proxima_core::inputs`, as the CLI builds it), each policy run, and each run
//! taken down as the core's record of it plus the numbers the page's charts show.

use crate::eventlog::{hash_hex, Recorder};
use crate::protocol::{
    FromWorker, JobRows, PolicyResult, Problem, RunRequest, TimelineBucket, TraceSource, CDF_POINTS, TIMELINE_BUCKETS,
};
use proxima_core::engine::Simulation;
use proxima_core::event::EventHasher;
use proxima_core::fairness::isolated::OneAfterAnother;
use proxima_core::inputs::{build_scenario, utf8_text, ScenarioInput, TraceInput};
use proxima_core::metrics::Summary;
use proxima_core::run::RunOptions;
use proxima_core::run_files::RunRecord;
use proxima_core::scenario::{JobStatus, Scenario};
use proxima_core::session::{self, parse_policies, PolicyNames, Session};
use proxima_core::time::SimTime;

/// Steps between looks at the clock: reading it every step would cost more than the step.
const STEPS_PER_CLOCK_CHECK: u64 = 1024;

/// Milliseconds between progress messages: often enough for a smooth bar, rarely enough
/// that the page is not flooded.
const PROGRESS_EVERY_MS: f64 = 50.0;

/// The core's trace input: a file read (only a worker reads a `Blob`) and checked to be
/// UTF-8, with the CLI's message when it is not.
pub fn read_trace_source(source: &TraceSource) -> Result<TraceInput, Problem> {
    match source {
        TraceSource::Synthetic(text) => Ok(TraceInput::Synthetic(text.clone())),
        TraceSource::File { name, data } => {
            let bytes = data.read().map_err(|e| Problem::Message(format!("{name}: {e}")))?;
            let text = utf8_text(name, &bytes)?;
            Ok(TraceInput::File { name: name.clone(), text: text.to_string() })
        }
    }
}

/// The scenario of a request, through the core's `build_scenario`.
pub fn build_request_scenario(request: &RunRequest) -> Result<Scenario, Problem> {
    let mut input = ScenarioInput::new(request.topology.clone(), read_trace_source(&request.trace)?, request.seed);
    input.mix = request.mix.clone();
    Ok(build_scenario(&input)?)
}

/// The session of a request (`proxima_core::session`): its policies parsed and built
/// first, as the CLI does, so that a typo fails at once; then its scenario; then every
/// policy checked against the cluster, so that a missing `kueue-tas` level is a message,
/// not a stop mid-run. Policies are named as typed, since a request holds several.
pub fn request_session(request: &RunRequest) -> Result<Session, Problem> {
    let named = |p: session::Problem| Problem::from(p.sourced(PolicyNames::AsTyped));
    let policies = parse_policies(&request.policies).map_err(named)?;
    Session::new(build_request_scenario(request)?, policies).map_err(named)
}

/// Runs a whole request, sending progress and results through `send`. `now_ms` is a clock
/// in milliseconds (only used to pace progress messages and to time runs).
pub fn run_request(request: &RunRequest, now_ms: &dyn Fn() -> f64, send: &mut dyn FnMut(FromWorker)) {
    let run_id = request.run_id;
    let session = match request_session(request) {
        Ok(session) => session,
        Err(problem) => {
            send(FromWorker::Failed { run_id, problem });
            return;
        }
    };
    send(FromWorker::RunNotes { run_id, notes: super::run_notes(session.scenario()) });
    // The mean JCTs of plain `dally` and `consolidate`, for the gain's source.
    let (mut dally_s, mut consolidate_s) = (None, None);
    for index in 0..session.policies().len() {
        let result = run_session_policy(&session, index, now_ms, &mut |done, total| {
            send(FromWorker::Progress { run_id, policy: index as u32, done, total })
        });
        match result.policy.as_str() {
            "dally" => dally_s = Some(result.summary.avg_jct_s),
            "consolidate" => consolidate_s = Some(result.summary.avg_jct_s),
            _ => {}
        }
        send(FromWorker::PolicyDone { run_id, policy: index as u32, result: Box::new(result) });
    }
    send(FromWorker::Finished { run_id });
    if let (Some(d), Some(c)) = (dally_s, consolidate_s) {
        let result = super::ablation::gain_source(session.scenario(), d, c, now_ms);
        send(FromWorker::GainSource { run_id, result });
    }
}

/// One policy of a session run to its end, with ρ, its event hash and its playback log,
/// as the page gets it. `progress` is told `(done, total)` now and then, and at the end.
pub fn run_session_policy(
    session: &Session,
    index: usize,
    now_ms: &dyn Fn() -> f64,
    progress: &mut dyn FnMut(u32, u32),
) -> PolicyResult {
    let mut hasher = EventHasher::default();
    let mut recorder = Recorder::default();
    let mut last_sent = f64::NEG_INFINITY;
    let mut steps: u64 = 0;
    let mut on_step = |sim: &Simulation| {
        steps += 1;
        if steps.is_multiple_of(STEPS_PER_CLOCK_CHECK) {
            let t = now_ms();
            if t - last_sent >= PROGRESS_EVERY_MS {
                last_sent = t;
                let (done, total) = sim.progress();
                progress(done, total);
            }
        }
    };
    // ρ from the isolated runs one after another (the CLI runs them on threads; the
    // result is the same bit for bit), so that the page's `summary.json` and `jobs.csv`
    // equal the CLI's.
    let options = RunOptions {
        rho: Some(&OneAfterAnother),
        record: true,
        observers: vec![&mut hasher, &mut recorder],
        on_step: Some(&mut on_step),
        clock: Some(now_ms),
    };
    // An isolated scenario the core cannot build: the run stands without ρ, as the CLI's
    // `--no-rho` gives it, where the CLI fails.
    let finished = session.run(index, options).unwrap_or_else(|failed| *failed.without);
    let sim = &finished.simulation;
    let (done, total) = sim.progress();
    progress(done, total);
    let record = finished.record.expect("asked for");
    let policy = session.policies()[index].text();
    let mut result = policy_result(policy, sim, record, finished.simulation_ms.expect("timed"));
    result.fairness_ms = finished.fairness_ms;
    result.event_hash = hash_hex(&hasher);
    result.event_count = hasher.count();
    result.playback = recorder.finish(sim, sim.now()).into();
    result
}

/// What the page gets of one finished run: its record (summary, packed job rows, time
/// series) and the charts' data.
pub fn policy_result(policy: &str, sim: &Simulation, record: RunRecord, elapsed_ms: f64) -> PolicyResult {
    let RunRecord { summary, jobs, timeseries } = record;
    let mut jcts: Vec<f64> = jobs.iter().filter_map(|j| j.jct.map(|t| t.as_secs_f64())).collect();
    jcts.sort_by(f64::total_cmp);
    let tiers = sim.scenario().topology.tier_names();
    let jobs_per_tier = tiers
        .iter()
        .map(|tier| {
            let completed_there =
                jobs.iter().filter(|j| j.status == JobStatus::Completed && j.tier.as_ref() == Some(tier)).count();
            (tier.clone(), completed_there as u64)
        })
        .collect();
    PolicyResult {
        policy: policy.to_string(),
        jobs: JobRows::pack(&jobs),
        timeseries,
        jct_cdf: cdf_points(&jcts, CDF_POINTS),
        timeline: timeline(sim, &summary),
        jobs_per_tier,
        summary,
        elapsed_ms,
        fairness_ms: None,
        event_hash: String::new(),
        event_count: 0,
        playback: Default::default(),
    }
}

/// The charts' time series: fewer buckets than `timeseries.csv`, as shares of the cluster.
fn timeline(sim: &Simulation, summary: &Summary) -> Vec<TimelineBucket> {
    let gpus = summary.gpus.max(1) as f64;
    sim.timeline()
        .bucketed(SimTime::from_secs_f64(summary.makespan_s), TIMELINE_BUCKETS)
        .iter()
        .map(|b| TimelineBucket {
            start_s: b.start.as_secs_f64(),
            end_s: b.end.as_secs_f64(),
            gpu_util: b.busy_gpus / gpus,
            queued: b.queued,
        })
        .collect()
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
    use proxima_core::inputs::TopologyInput;
    use proxima_core::policy::resolve_policy;

    fn request(policies: &[&str]) -> RunRequest {
        RunRequest {
            run_id: 3,
            topology: TopologyInput::Argument("teaching".into()),
            trace: TraceSource::Synthetic("synthetic:jobs=40,load=0.8,seed=1".into()),
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
        let files = result.files().unwrap();
        files.named().iter().find(|f| f.0 == name).unwrap_or_else(|| panic!("no {name}")).1.to_string()
    }

    #[test]
    fn a_run_of_dally_and_consolidate_ends_with_where_the_gain_comes_from() {
        let mean = |spec: &str| {
            let mut sim =
                Simulation::new(build_request_scenario(&request(&[spec])).unwrap(), resolve_policy(spec).unwrap());
            sim.run();
            sim.summary().avg_jct_s
        };
        let out = run(&request(&["consolidate", "dally"]));
        let [.., FromWorker::Finished { run_id: 3 }, FromWorker::GainSource { run_id: 3, result: Ok(g) }] = &out[..]
        else {
            panic!("no gain source after the results: {:?}", out.last())
        };
        // The ablations are `dally`'s own options, run on the same scenario.
        assert_eq!((g.dally_s, g.consolidate_s), (mean("dally"), mean("consolidate")));
        assert_eq!(g.without_waiting_s, mean("dally:delay=off"));
        assert_eq!(g.without_preemption_s, mean("dally:preempt=off"));
        // Without both policies, no extra runs.
        assert!(!run(&request(&["fifo", "dally"])).iter().any(|m| matches!(m, FromWorker::GainSource { .. })));
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
        assert!(done[1].summary.policy.starts_with("dally:delay=on,preempt=on"), "{}", done[1].summary.policy);
        assert_eq!(file(done[1], "summary.json"), done[1].summary.to_json() + "\n");
        assert!(file(done[0], "jobs.csv").starts_with("id,name,status,"));
        assert_eq!(file(done[0], "timeseries.csv").lines().count(), 501);
        assert_eq!(done[0].jct_cdf.last().unwrap().1, 1.0);
        assert_eq!(done[0].jobs_per_tier.iter().map(|t| t.1).sum::<u64>(), 40);
        // Per job, what jobs.csv says, as data: the files are the core's of the same run.
        let jobs = done[0].jobs.unpack().unwrap();
        assert_eq!(jobs.len(), 40);
        let mut sim =
            Simulation::new(build_request_scenario(&request(&["fifo"])).unwrap(), resolve_policy("fifo").unwrap());
        sim.run();
        // With ρ added as the CLI adds it (one tenant: the shared run is its isolated run).
        let mut record = RunRecord::with_summary(&sim, sim.summary());
        let fifo = proxima_core::policy::PolicySpec::parse("fifo").unwrap();
        proxima_core::fairness::isolated::finish_time_fairness(sim.scenario(), &fifo, sim.runs(), &OneAfterAnother)
            .unwrap()
            .apply(&mut record);
        assert_eq!(done[0].files().unwrap(), record.files());
        assert_eq!(jobs, record.jobs);
        assert!(done[0].fairness_ms.is_some());
        assert_eq!(out.last(), Some(&FromWorker::Finished { run_id: 3 }));
        // compare.json, made on the page from the summaries, is the CLI's.
        let results = crate::results::Results {
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
        let mut hasher = EventHasher::default();
        sim.run_observed(&mut [&mut hasher]);
        assert_eq!(result.event_hash, format!("{:016x}", hasher.hash()));
        assert_eq!(result.event_count, hasher.count());
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
            matches!(&out[0], FromWorker::Failed { problem: Problem::Input(e), .. } if e.to_string().starts_with("lottery: policy: unknown policy 'lottery'")),
            "{out:?}"
        );
        let mut bad = request(&["fifo"]);
        bad.trace = TraceSource::File {
            name: "jobs.csv".into(),
            data: FileData::Bytes(b"id,submit_s,gpus,model,duration_s\n1,0,2,lenet9,10\n".to_vec().into()),
        };
        let out = run(&bad);
        assert!(
            matches!(&out[0], FromWorker::Failed { problem: Problem::Input(e), .. } if (e.source.as_str(), e.line, e.field.as_str()) == ("jobs.csv", Some(2), "model") && e.message.starts_with("unknown model 'lenet9'")),
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
