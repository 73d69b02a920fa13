//! Tenants, quotas and fairness on scenarios computed by hand, and on the Philly trace.
//!
//! Units as in `common::build`: the unit model computes 1 s per iteration and exchanges 1 GB
//! with no overlap; a 1-GPU job exchanges nothing, so it runs exactly one iteration per
//! second; a 4-GPU ring over four servers' 10 GB/s NICs takes 2·3/4 · 1 GB / 10 GB/s = 0.15 s
//! more per iteration. The property tests of the same module are in
//! `tests/integration/tenant_invariants.rs`.

use crate::common;

use common::build::{cluster, scenario, scenario_with, two_models};
use common::record::Log;
use proxima_core::cluster::JobId;
use proxima_core::engine::Simulation;
use proxima_core::event::{Reason, SimEvent};
use proxima_core::fairness::isolated::{finish_time_fairness, isolated_plans, OneAfterAnother};
use proxima_core::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
use proxima_core::policy::{resolve_policy, PolicySpec};
use proxima_core::run_files::RunRecord;
use proxima_core::scenario::Scenario;
use proxima_core::tenants::{TenantId, TenantSpec, Tenants};

/// Gives the jobs of a hand-built scenario their tenants and the tenants their quotas.
fn with_tenants(mut sc: Scenario, names: &[&str], of_job: &[u32], spec: &str) -> Scenario {
    for (job, &t) in sc.jobs.iter_mut().zip(of_job) {
        job.tenant = TenantId(t);
    }
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let n = names.len();
    sc.tenants =
        Tenants::build(names, &vec![0.0; n], sc.topology.gpu_count(), &TenantSpec::parse(spec).unwrap(), |_| true)
            .unwrap();
    sc
}

/// Four GPUs on one server; tenants A and B guaranteed two each. B submits four 100 s jobs
/// at 0 and borrows A's idle half; A submits 50 s jobs at 10 and 20 (within its quota: each
/// takes a GPU back from B, the most recently started of B's, which pays a 10 s restore) and a
/// 20 s job at 30 (beyond its quota: it waits, as borrowing needs idle GPUs).
fn borrow_and_reclaim() -> Scenario {
    let jobs = [
        (0.0, 1, 100.0), // 0 b0
        (0.0, 1, 100.0), // 1 b1
        (0.0, 1, 100.0), // 2 b2
        (0.0, 1, 100.0), // 3 b3
        (10.0, 1, 50.0), // 4 a0
        (20.0, 1, 50.0), // 5 a1
        (30.0, 1, 20.0), // 6 a2
    ];
    with_tenants(scenario(cluster(1, 1, 4, 1.0), &jobs), &["A", "B"], &[1, 1, 1, 1, 0, 0, 0], "A=2,B=2")
}

#[test]
fn borrowing_and_reclaiming_happen_at_the_hand_computed_times() {
    // The same times under every first-come-first-served policy: with 1-GPU jobs on one
    // server, first fit, best fit, random GPUs, the tightest tier and one leaf switch are all
    // "any free GPU".
    for policy in [
        "fifo:quota=on,restore_s=10",
        "consolidate:quota=on,restore_s=10",
        "random:quota=on,restore_s=10",
        "strict:quota=on,restore_s=10",
        "slurm:quota=on,restore_s=10",
        // 1-GPU jobs exchange nothing: dally finds them insensitive and places them at once.
        "dally:quota=on,restore_s=10",
    ] {
        let mut sim = Simulation::new(borrow_and_reclaim(), resolve_policy(policy).unwrap());
        let log = Log::default();
        sim.add_observer(Box::new(log.clone()));
        let summary = sim.run();
        let preempted: Vec<(f64, u32, Reason)> = log
            .0
            .borrow()
            .iter()
            .filter_map(|(t, e)| match e {
                SimEvent::Preempted { job, reason, .. } => Some((*t, job.0, reason.clone())),
                _ => None,
            })
            .collect();
        // At 10 s A's first job takes back b3 (B holds 4 > 2; among B's jobs, all started at
        // 0, the highest id is the most recent); at 20 s the second takes back b2. a2 at 30 s
        // would borrow: it waits for A's own GPUs (a0 ends at 60).
        assert_eq!(
            preempted,
            [
                (10.0, 3, Reason::Reclaimed { for_job: JobId(4), cost_s: 10.0 }),
                (20.0, 2, Reason::Reclaimed { for_job: JobId(5), cost_s: 10.0 }),
            ],
            "{policy}"
        );
        let starts: Vec<Vec<f64>> = (0..7)
            .map(|j| {
                log.0
                    .borrow()
                    .iter()
                    .filter_map(|(t, e)| matches!(e, SimEvent::Placed { job, .. } if job.0 == j).then_some(*t))
                    .collect()
            })
            .collect();
        // b2 (20 s done) borrows again when a1 ends at 70: restore to 80, 80 s left, ends at
        // 160. b3 (10 s done) borrows when a2 ends at 80: restore to 90, ends at 180. a2 is
        // within A's quota once a0 ends at 60 and goes before the borrowers b2, b3.
        assert_eq!(
            starts,
            [vec![0.0], vec![0.0], vec![0.0, 70.0], vec![0.0, 80.0], vec![10.0], vec![20.0], vec![60.0]],
            "{policy}"
        );
        let ends: Vec<f64> = sim.runs().iter().map(|r| r.end.unwrap().as_secs_f64()).collect();
        assert_eq!(ends, [100.0, 100.0, 160.0, 180.0, 60.0, 70.0, 80.0], "{policy}");
        let a = &summary.tenants[0];
        let b = &summary.tenants[1];
        assert_eq!((a.name.as_str(), a.quota_gpus, a.jobs, a.preemptions), ("A", 2, 3, 0));
        assert_eq!((a.avg_jct_s, a.p95_jct_s), (50.0, 50.0));
        assert_eq!((b.name.as_str(), b.preemptions, b.job_preemptions_max), ("B", 2, 1));
        assert_eq!((b.avg_jct_s, b.p95_jct_s), ((100.0 + 100.0 + 160.0 + 180.0) / 4.0, 180.0));
        // Queued: b2 from 20 to 70, b3 from 10 to 80, a2 from 30 to 60.
        assert_eq!((a.avg_queue_s, b.avg_queue_s), (10.0, 120.0 / 4.0));
        assert_eq!(summary.job_preemptions_max, 1);
    }
}

/// The preemption scenario of `tests/integration/dally.rs` with tenants: T (A's, tiny model, so
/// insensitive; 3 GPUs) and U (B's, unit model, 3 GPUs) fill most of two 4-GPU servers at
/// 0 s; S (B's, unit model, 2 GPUs, 1,000 iterations) arrives at 700 s, past T's minimum run
/// time. Without tenants, dally checkpoints T so that S gets a server: S's gain, 1,010 s ×
/// (1.0891 − 1) ≈ 90 s, beats the 30 s restore. The runs know S's remaining time
/// (`runtime=oracle`), as the hand-computed scenarios of `tests/dally.rs` do.
fn network_preemption(quotas: &str) -> Scenario {
    let jobs = [(0.0, 3, 100_000.0, 1), (0.0, 3, 100_000.0, 0), (700.0, 2, 1000.0, 0)];
    with_tenants(scenario_with(cluster(1, 2, 4, 1.0), two_models(), &jobs), &["A", "B"], &[0, 1, 1], quotas)
}

#[test]
fn dally_never_takes_a_tenant_below_its_quota_to_serve_a_borrower() {
    let run = |policy: &str, quotas: &str| {
        let mut sim = Simulation::new(network_preemption(quotas), resolve_policy(policy).unwrap());
        sim.run();
        let r = sim.runs();
        let start = |j: usize| r[j].first_start.unwrap().as_secs_f64();
        (r[0].preemptions, r[1].preemptions, start(2), r[2].end.unwrap().as_secs_f64())
    };
    // Without quotas: T is checkpointed at 700 s, S runs on server 0 from 700 s, 1,000
    // iterations of 1 s + 2·½ · 1 GB / 100 GB/s = 1.01 s, to 1,710 s.
    let (t, u, start, end) = run("dally:autotune=off,runtime=oracle", "A=4,B=4");
    assert_eq!((t, u, start), (1, 0, 700.0));
    assert!((end - 1710.0).abs() < 1e-6, "{end}");
    // Quotas of 4 each: A holds 3 of its 4 GPUs, B 3 of its 4, and S would take B to 5: S
    // borrows, so T, within A's guarantee, is no victim for it. S waits its 90 s budget for a
    // server and then runs spread over the two free GPUs, one on each server, from 790 s.
    let (t, u, start, _) = run("dally:autotune=off,quota=on,runtime=oracle", "A=4,B=4");
    assert_eq!((t, u, start), (0, 0, 790.0));
    // A guaranteed 2 (so it borrows one GPU) and B 6 (S is within quota): T is taken, as
    // without quotas.
    let (t, u, start, end) = run("dally:autotune=off,quota=on,runtime=oracle", "A=2,B=6");
    assert_eq!((t, u, start), (1, 0, 700.0));
    assert!((end - 1710.0).abs() < 1e-6, "{end}");
}

#[test]
fn without_quotas_the_first_tenant_keeps_the_cluster() {
    let mut sim = Simulation::new(borrow_and_reclaim(), resolve_policy("fifo").unwrap());
    let summary = sim.run();
    // B's four jobs hold every GPU until 100 s; A's jobs start at 100, 100, 100.
    let ends: Vec<f64> = sim.runs().iter().map(|r| r.end.unwrap().as_secs_f64()).collect();
    assert_eq!(ends, [100.0, 100.0, 100.0, 100.0, 150.0, 150.0, 120.0]);
    assert_eq!(summary.preemptions, 0);
    // Slowdowns: A's JCTs 140 + 130 + 90 = 360 over 120 s of work = 3; B's 400 / 400 = 1.
    // Jain: (3 + 1)² / (2 · (9 + 1)) = 0.8.
    assert_eq!((summary.tenants[0].slowdown, summary.tenants[1].slowdown), (3.0, 1.0));
    assert_eq!(summary.jain_slowdown, 0.8);
}

/// Four 1-GPU servers, tenants A and B with two GPUs each. A runs a 1-GPU job of 100 s; B a
/// 4-GPU job of 100 iterations, submitted with it but after it in the queue.
fn two_jobs() -> Scenario {
    let jobs = [(0.0, 1, 100.0), (0.0, 4, 100.0)];
    with_tenants(scenario(cluster(1, 4, 1, 1.0), &jobs), &["A", "B"], &[0, 1], "equal")
}

#[test]
fn finish_time_fairness_of_two_jobs_by_hand() {
    let sc = two_jobs();
    // The 4-GPU ring over four servers: 1 s + 2·3/4 · 1 GB / 10 GB/s = 1.15 s an iteration.
    assert!((sc.jobs[1].ideal_iter_s.unwrap() - 1.15).abs() < 1e-12);
    let plans = isolated_plans(&sc).unwrap();
    // A's share: its quota, two of the 1-GPU servers. B's quota is two GPUs too, but its job
    // needs four: its share grows to the whole cluster.
    assert_eq!(plans.iter().map(|p| (p.tenant.0, p.share_gpus)).collect::<Vec<_>>(), [(0, 2), (1, 4)]);
    let mut sim = Simulation::new(sc.clone(), resolve_policy("fifo").unwrap());
    let summary = sim.run();
    // Shared: A's job takes a GPU at 0, so B's waits for it: 100 s, then 115 s of work.
    // Alone: A's job still takes 100 s, B's starts at once and takes 115 s.
    let ftf = finish_time_fairness(&sc, &PolicySpec::parse("fifo").unwrap(), sim.runs(), &OneAfterAnother).unwrap();
    let mut record = RunRecord::with_summary(&sim, summary);
    ftf.apply(&mut record);
    let rho: Vec<f64> = record.jobs.iter().map(|r| r.rho.unwrap()).collect();
    assert_eq!(rho[0], 1.0);
    assert!((rho[1] - 215.0 / 115.0).abs() < 1e-6, "{rho:?}");
    let s = &record.summary;
    assert_eq!((s.rho_max, s.rho_over_1), (Some(rho[1]), Some(0.5)));
    assert_eq!(s.rho_p50, Some(1.0));
    assert_eq!((s.tenants[0].rho, s.tenants[1].rho), (Some(1.0), Some(rho[1])));
    assert_eq!((s.tenants[0].share_gpus, s.tenants[1].share_gpus), (Some(2), Some(4)));
    // The jobs table carries both.
    let csv = record.files().jobs_csv;
    assert!(csv.lines().next().unwrap().ends_with(",tenant,rho"), "{csv}");
    assert!(csv.lines().nth(2).unwrap().ends_with(",B,1.869565"), "{csv}");
}

#[test]
fn one_tenant_alone_has_rho_one_without_another_run() {
    let sc = scenario(cluster(1, 2, 2, 1.0), &[(0.0, 2, 10.0), (0.0, 4, 10.0), (5.0, 1, 10.0)]);
    let mut sim = Simulation::new(sc.clone(), resolve_policy("consolidate").unwrap());
    let summary = sim.run();
    let plans = isolated_plans(&sc).unwrap();
    assert_eq!(plans.len(), 1);
    assert!(plans[0].is_whole(&sc));
    // Running it anyway gives the shared run's JCTs, so the shortcut changes nothing.
    let alone = plans.into_iter().next().unwrap().run(resolve_policy("consolidate").unwrap());
    for (id, jct) in alone.jcts {
        assert_eq!(Some(jct.unwrap()), sim.runs()[id.0 as usize].end.map(|e| e - sc.jobs[id.0 as usize].submit));
    }
    let mut record = RunRecord::with_summary(&sim, summary);
    let consolidate = PolicySpec::parse("consolidate").unwrap();
    finish_time_fairness(&sc, &consolidate, sim.runs(), &OneAfterAnother).unwrap().apply(&mut record);
    assert_eq!((record.summary.rho_max, record.summary.rho_over_1), (Some(1.0), Some(0.0)));
}

#[test]
fn tenant_specs_reach_the_scenario_through_the_inputs() {
    let trace =
        "id,submit_s,gpus,model,duration_s,tenant\na,0,2,resnet50,60,vision\nb,5,4,bert,30,nlp\nc,6,1,bert,30,\n";
    let input = |tenants: Option<&str>| {
        let mut i = ScenarioInput::new(
            TopologyInput::Argument("teaching".into()),
            TraceInput::File { name: "t.csv".into(), text: trace.into() },
            1,
        );
        i.tenants = tenants.map(str::to_string);
        i
    };
    let sc = build_scenario(&input(None)).unwrap();
    // Sorted names; the job without a tenant is the default tenant's.
    let names: Vec<&str> = sc.tenants.iter().map(|(_, t)| t.name.as_str()).collect();
    assert_eq!(names, ["default", "nlp", "vision"]);
    assert_eq!(sc.jobs.iter().map(|j| j.tenant.0).collect::<Vec<_>>(), [2, 1, 0]);
    assert_eq!(sc.tenants.iter().map(|(_, t)| t.quota_gpus).collect::<Vec<_>>(), [6, 5, 5]);
    let sc = build_scenario(&input(Some("vision=10,nlp=6"))).unwrap();
    assert_eq!(sc.tenants.iter().map(|(_, t)| t.quota_gpus).collect::<Vec<_>>(), [0, 6, 10]);
    let e = build_scenario(&input(Some("vision=10,audio=6"))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "tenants: audio: no job of the trace belongs to this tenant (tenants: default, nlp, vision)"
    );
    let e = build_scenario(&input(Some("vision=10,nlp=7"))).unwrap_err();
    assert!(e.to_string().contains("add up to 17 GPUs, more than the cluster's 16"), "{e}");
    // Synthetic traces: tenants=N.
    let synthetic = ScenarioInput::new(
        TopologyInput::Argument("teaching".into()),
        TraceInput::Synthetic("synthetic:jobs=200,tenants=3".into()),
        1,
    );
    let sc = build_scenario(&synthetic).unwrap();
    assert_eq!(sc.tenants.iter().map(|(_, t)| t.name.as_str()).collect::<Vec<_>>(), ["t1", "t2", "t3"]);
    assert_eq!(sc.trace_label, "synthetic:jobs=200,tenants=3");
}

#[test]
fn philly_virtual_clusters_are_fifteen_tenants() {
    let Some(text) = common::read_data("philly/philly.csv") else { return };
    let input = ScenarioInput::new(
        TopologyInput::Argument("oversub-2048".into()),
        TraceInput::File { name: "philly.csv".into(), text },
        1,
    );
    let sc = build_scenario(&input).unwrap();
    assert_eq!(sc.tenants.len(), 15);
    let jobs_of = |name: &str| {
        let id = sc.tenants.lookup(name).unwrap();
        sc.jobs.iter().filter(|j| j.tenant == id).count()
    };
    // The largest and the smallest virtual clusters of the log.
    assert_eq!((jobs_of("6214e9"), jobs_of("ee9e8c"), jobs_of("925e2b")), (41_226, 1_511, 3));
    // Equal quotas of 2,048 GPUs: 136 or 137 each; shares of 17 whole servers.
    assert!(sc.tenants.iter().all(|(_, t)| t.quota_gpus == 136 || t.quota_gpus == 137));
    let plans = isolated_plans(&sc).unwrap();
    assert_eq!(plans.len(), 15);
    assert!(plans.iter().all(|p| p.share_gpus == 136), "the largest job (128 GPUs) fits a 136-GPU share");
}
