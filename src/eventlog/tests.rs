//! Logs of real runs round-trip; damaged logs are errors, not panics.

use super::*;
use proxima_core::event::Reason;
use proxima_core::policy::resolve_policy;
use proxima_core::scenario::Scenario;
use proxima_core::topology::resolve_topology_arg;
use proxima_core::topology::GpuId;
use proxima_core::trace::{synthetic, tenant_mix};
use proxima_core::workload::{ModelMix, WorkloadOptions};

/// Every event of a run, as the engine sent them.
#[derive(Default)]
struct Everything(Vec<(SimTime, SimEvent)>);

impl Observer for Everything {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.0.push((now, event.clone()));
    }
}

fn sim(topology: &str, jobs: u32, load: f64, policy: &str) -> Simulation {
    sim_with_tenants(topology, jobs, load, policy, None)
}

/// A run of a synthetic trace, its jobs spread over `tenants` tenants if given.
fn sim_with_tenants(topology: &str, jobs: u32, load: f64, policy: &str, tenants: Option<u32>) -> Simulation {
    let topo = resolve_topology_arg(topology).unwrap();
    let mut trace = synthetic::generate(
        &synthetic::parse(&format!("synthetic:jobs={jobs},load={load},seed=3")).unwrap(),
        topo.gpu_count(),
    );
    if let Some(n) = tenants {
        tenant_mix::assign(&mut trace, n, 3);
    }
    let catalog = proxima_core::model::Catalog::built_in();
    let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let scenario = Scenario::from_trace(topo, &trace, &options, "t").unwrap();
    Simulation::new(scenario, resolve_policy(policy).unwrap())
}

#[test]
fn a_run_round_trips_without_rate_changes() {
    let mut s = sim("teaching", 300, 1.2, "dally");
    let mut all = Everything::default();
    let mut rec = Recorder::default();
    let summary = s.run_observed(&mut [&mut all, &mut rec]);
    let bytes = rec.finish(&s, SimTime::from_secs_f64(summary.makespan_s));
    let log = PlaybackLog::decode(&bytes).unwrap();
    let expected: Vec<(SimTime, SimEvent)> =
        all.0.iter().filter(|(_, e)| !matches!(e, SimEvent::RateChanged { .. })).cloned().collect();
    assert_eq!(log.events.len(), expected.len());
    assert!(log.events.iter().any(|e| matches!(e, SimEvent::Waiting { .. })), "dally makes jobs wait here");
    for (i, ((t, e), got)) in expected.iter().zip(&log.events).enumerate() {
        assert_eq!(log.times[i], t.0, "time of event {i}");
        assert_eq!(std::mem::discriminant(e), std::mem::discriminant(got), "event {i}");
        assert!(same_at_f32(e, got), "event {i}: {e:?} vs {got:?}");
    }
    assert_eq!(log.jobs.len(), 300);
    assert_eq!(log.cut_at_us, None);
    assert_eq!(log.initial_timers, vec![300.0, 150.0]);
    assert_eq!(log.models[log.jobs[0].model as usize], s.scenario().catalog.get(s.scenario().jobs[0].model).name);
    assert_eq!(log.tenants, vec!["default"], "a trace without tenants has one");
    assert!(log.jobs.iter().all(|j| j.tenant == 0));
    assert_eq!(log.end_us, SimTime::from_secs_f64(summary.makespan_s).0);
    // Compact: well under the ~90 bytes of a JSON line per event.
    assert!(bytes.len() < 16 * log.events.len() + 8 * 300, "{} bytes for {} events", bytes.len(), log.events.len());
}

/// Two events equal up to the f32 rounding of their floats.
fn same_at_f32(a: &SimEvent, b: &SimEvent) -> bool {
    let ja = serde_json::to_value(a).unwrap();
    let jb = serde_json::to_value(b).unwrap();
    close(&ja, &jb)
}

fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || (x as f32) as f64 == y
        }
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q)),
        (Object(x), Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w))),
        _ => a == b,
    }
}

#[test]
fn each_job_keeps_its_tenant_in_the_summarys_order() {
    let mut s = sim_with_tenants("teaching", 200, 1.0, "fifo", Some(4));
    let mut rec = Recorder::default();
    let summary = s.run_observed(&mut [&mut rec]);
    let log = PlaybackLog::decode(&rec.finish(&s, SimTime::from_secs_f64(summary.makespan_s))).unwrap();
    let names: Vec<&str> = summary.tenants.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(log.tenants, names);
    assert_eq!(names, ["t1", "t2", "t3", "t4"]);
    for (facts, job) in log.jobs.iter().zip(&s.scenario().jobs) {
        assert_eq!(facts.tenant, job.tenant.0);
    }
    // Every tenant's job count, counted from the log, is the summary's.
    for (i, t) in summary.tenants.iter().enumerate() {
        assert_eq!(log.jobs.iter().filter(|j| j.tenant == i as u32).count() as u32, t.jobs, "{}", t.name);
    }
}

#[test]
fn the_recorder_stops_at_its_cap_and_says_when() {
    let mut s = sim("teaching", 100, 0.8, "consolidate");
    let mut rec = Recorder::with_cap(50);
    let summary = s.run_observed(&mut [&mut rec]);
    let log = PlaybackLog::decode(&rec.finish(&s, SimTime::from_secs_f64(summary.makespan_s))).unwrap();
    assert_eq!(log.events.len(), 50);
    let cut = log.cut_at_us.expect("cut");
    assert!(cut >= *log.times.last().unwrap() && cut < log.end_us);
    assert!(log.jobs.len() < 100);
}

#[test]
fn gpus_and_reasons_round_trip() {
    let reasons = [
        Reason::FirstFit,
        Reason::WaitingForTier { wanted: Tier(0), left_s: 42.5, best_now: None, slowdown: 0.0 },
        Reason::WaitingForTier { wanted: Tier(1), left_s: 1.0, best_now: Some(Tier(2)), slowdown: 1.5 },
        Reason::PlacedByPreemption { tier: Tier(0), victims: vec![JobId(3), JobId(900_000)], gain_s: 12.0 },
        Reason::PreemptedFor { for_job: JobId(7), tier: Tier(0), gain_s: 90.0, cost_s: 30.0 },
        Reason::Reconsolidating { from: Tier(2), to: Tier(0), gain_s: 5.0, cost_s: 1.0 },
        Reason::Reconsolidated { from: Tier(2), to: Tier(0) },
        Reason::Reclaimed { for_job: JobId(11), cost_s: 30.0 },
        Reason::NoRoom { free: 12 },
        Reason::StarvationBound { tier: Tier(2), waited_s: 7200.0 },
        Reason::Insensitive { tier: Tier(1), slowdown: 1.25 },
        Reason::TimerExpired { tier: Tier(1), waited_s: 30.0, slowdown: 1.5 },
        Reason::GotWantedTier { tier: Tier(0), waited_s: 110.0 },
        Reason::TightestNow { tier: Tier(0) },
    ];
    for reason in reasons {
        let mut b = Vec::new();
        put_reason(&mut b, &reason);
        let mut r = Reader::new(&b);
        assert_eq!(r.reason().unwrap(), reason);
        assert_eq!(r.remaining(), 0);
    }
    for gpus in [vec![], vec![5], vec![0, 1, 2, 3, 8, 9, 2047], vec![9, 3, 4]] {
        let gpus: Vec<GpuId> = gpus.into_iter().map(GpuId).collect();
        let mut b = Vec::new();
        put_gpus(&mut b, &gpus);
        assert_eq!(Reader::new(&b).gpus().unwrap(), gpus);
    }
}

#[test]
fn damaged_logs_are_errors_not_panics() {
    let mut s = sim("teaching", 20, 0.8, "dally");
    let mut rec = Recorder::default();
    let summary = s.run_observed(&mut [&mut rec]);
    let bytes = rec.finish(&s, SimTime::from_secs_f64(summary.makespan_s));
    for cut in 0..bytes.len() {
        assert!(PlaybackLog::decode(&bytes[..cut]).is_err(), "a log cut at {cut} bytes");
    }
    let mut flipped = bytes.clone();
    for i in 0..flipped.len() {
        flipped[i] ^= 0xff;
        let _ = PlaybackLog::decode(&flipped);
        flipped[i] ^= 0xff;
    }
}

#[test]
fn the_log_starts_with_the_policys_own_timers() {
    for (policy, timers) in [("dally:timers=30/15", vec![30.0, 15.0]), ("consolidate", vec![])] {
        let mut s = sim("teaching", 20, 1.0, policy);
        let mut rec = Recorder::default();
        let summary = s.run_observed(&mut [&mut rec]);
        let bytes = rec.finish(&s, SimTime::from_secs_f64(summary.makespan_s));
        assert_eq!(PlaybackLog::decode(&bytes).unwrap().initial_timers, timers, "{policy}");
    }
}
