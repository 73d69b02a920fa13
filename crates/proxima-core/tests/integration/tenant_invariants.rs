//! Properties of tenants and quotas on random clusters, traces, tenant mixes and policies:
//!
//! - **per-tenant sums equal cluster totals**: jobs, completions, rejections, preemptions,
//!   JCT and queueing (as counts × means), communication overhead (in job- and
//!   GPU-seconds) and GPU-time held; the
//!   worst-hit job's preemptions is the worst tenant's;
//! - **quotas hold** under `quota=on` (every policy but `tiresias` with rounds, which
//!   decides only at them): at the end of every
//!   instant, for every queued job of `g` GPUs whose tenant uses `u` of its quota `q` with
//!   `u + g ≤ q`, either `g` GPUs are free or no tenant uses more than its quota. That is: no
//!   job within its tenant's guarantee waits for GPUs while another tenant holds borrowed
//!   ones (`policy::mechanisms::quota`);
//! - finish-time fairness is defined for every job completed in both runs, and positive.
//!
//! `PROXIMA_PROPTEST_CASES` sets the number of cases (default 300).

use crate::common;

use common::sketch::{self, JobSketch};
use proptest::prelude::*;
use proxima_core::engine::Simulation;
use proxima_core::fairness::isolated::{finish_time_fairness, OneAfterAnother};
use proxima_core::policy::{resolve_policy, PolicySpec};
use proxima_core::run_files::RunRecord;
use proxima_core::scenario::{apply_tenant_spec, JobStatus, Scenario};
use proxima_core::tenants::TenantSpec;
use proxima_core::time::SimTime;

fn job_sketch() -> impl Strategy<Value = JobSketch> {
    let gap = prop_oneof![3 => Just(0.0), 4 => 0.0..300.0f64, 1 => 1000.0..50_000.0f64];
    let size = prop_oneof![6 => 0.0..0.4f64, 2 => 0.4..1.0f64, 1 => Just(1.0), 1 => Just(1.5)];
    let duration = prop_oneof![2 => 0.5..5.0f64, 6 => 10.0..5_000.0f64, 1 => 50_000.0..500_000.0f64];
    (gap, size, duration, 0u8..4).prop_map(|(gap_s, size, duration_s, tenant)| JobSketch {
        gap_s,
        size,
        duration_s,
        model: None,
        tenant: Some(tenant),
    })
}

fn topology() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => Just("racks=1,servers=1,gpus=1".to_string()),
        6 => (1u32..=3, 1u32..=4, 1u32..=8, 1u32..=4)
            .prop_map(|(r, s, g, o)| format!("racks={r},servers={s},gpus={g},oversub={o}")),
    ]
}

/// Quota specs, the explicit ones as shares of the cluster that add up to at most 1.
fn tenants() -> impl Strategy<Value = (u8, [f64; 4])> {
    let shares = prop::array::uniform4(0.0..1.0f64).prop_map(|a| {
        let sum: f64 = a.iter().sum::<f64>().max(1.0);
        [a[0] / sum, a[1] / sum, a[2] / sum, a[3] / sum]
    });
    (0u8..3, shares)
}

fn policy() -> impl Strategy<Value = String> {
    let fcfs =
        (prop_oneof![Just("fifo"), Just("consolidate"), Just("random"), Just("strict")], any::<bool>(), 0u32..60)
            .prop_map(|(name, backfill, restore)| {
                format!("{name}:backfill={},quota=on,restore_s={restore}", if backfill { "on" } else { "off" })
            });
    let others = prop_oneof![
        (0u32..600, 0u32..60).prop_map(|(w, r)| format!("slurm:wait_s={w},quota=on,restore_s={r}")),
        (0u32..600).prop_map(|m| format!("consolidate:migrate=on,min_run_s={m},quota=on")),
        prop_oneof![Just("3250/7200"), Just("100"), Just("none")].prop_map(|q| format!("tiresias:queues={q},quota=on")),
        Just("tiresias:running_first=off,place=most_free,quota=on".to_string()),
        any::<bool>().prop_map(|p| format!("srtf:preempt={},quota=on", if p { "on" } else { "off" })),
        (prop_oneof![Just("on"), Just("off"), Just("all")], 0u32..60, prop_oneof![Just("off"), Just("900")]).prop_map(
            |(delay, restore, starve)| format!(
                "dally:delay={delay},restore_s={restore},starve_s={starve},min_run_s=0,quota=on"
            )
        ),
    ];
    prop_oneof![
        4 => fcfs,
        4 => others,
        1 => Just("fifo".to_string()),
        1 => Just("dally".to_string()),
        1 => Just("tiresias:round_s=60,quota=on".to_string()),
    ]
}

fn build(topology: &str, sketches: &[JobSketch], spec: (u8, [f64; 4]), seed: u64) -> Scenario {
    let (mut sc, trace) = sketch::scenario(topology, sketches, seed);
    let total = sc.topology.gpu_count();
    let (kind, shares) = spec;
    let spec = match kind {
        0 => TenantSpec::Equal,
        1 => TenantSpec::Demand,
        _ => {
            // Explicit quotas for the tenants the trace has, rounded down: they never add up
            // to more than the cluster.
            let named = sc
                .tenants
                .iter()
                .map(|(_, x)| {
                    let k = x.name[1..].parse::<usize>().unwrap();
                    (x.name.clone(), (shares[k] * total as f64) as u32)
                })
                .collect();
            TenantSpec::Quotas(named)
        }
    };
    apply_tenant_spec(&mut sc, &spec, &trace).unwrap();
    sc
}

/// Checks the quota invariant on the state after an instant (`policy/mechanisms/quota.rs`): no job
/// within its tenant's quota waits for free GPUs while another tenant borrows. Without
/// backfill only the first such job in submission order is guaranteed: the others queue
/// behind it, and it may wait, with its GPUs free, for a tighter placement.
fn check_quotas(sim: &Simulation, policy: &str) {
    let sc = sim.scenario();
    let n = sc.tenants.len();
    let mut usage = vec![0u64; n];
    for (job, run) in sc.jobs.iter().zip(sim.runs()) {
        if run.status == JobStatus::Running {
            usage[job.tenant.0 as usize] += job.gpus as u64;
        }
    }
    let quota = |t: usize| sc.tenants.quota(proxima_core::tenants::TenantId(t as u32)) as u64;
    let borrowing: Vec<usize> = (0..n).filter(|&t| usage[t] > quota(t)).collect();
    if borrowing.is_empty() {
        return;
    }
    let free = sim.cluster().free_count() as u64;
    let first_only = policy.contains("backfill=off");
    for (job, run) in sc.jobs.iter().zip(sim.runs()) {
        let t = job.tenant.0 as usize;
        if run.status == JobStatus::Queued && usage[t] + job.gpus as u64 <= quota(t) {
            assert!(
                free >= job.gpus as u64,
                "{policy} at {}: job {} of tenant {t} ({} GPUs, tenant uses {} of {}) waits with {free} free while tenants {borrowing:?} borrow",
                sim.now(),
                job.id.0,
                job.gpus,
                usage[t],
                quota(t)
            );
            if first_only {
                return;
            }
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

fn check_run(topology: &str, sketches: &[JobSketch], spec: (u8, [f64; 4]), policy: &str, seed: u64) {
    let sc = build(topology, sketches, spec, seed);
    let checks_quotas = policy.contains("quota=on") && !policy.contains("round_s=60");
    let mut sim = Simulation::new(sc.clone(), resolve_policy(policy).unwrap());
    while sim.step().is_some() {
        if checks_quotas {
            check_quotas(&sim, policy);
        }
    }
    assert!(!sim.stalled(), "{policy} stalled");
    let s = sim.summary();
    assert_eq!(s.jobs_unfinished, 0, "{policy}");
    let t = &s.tenants;
    assert_eq!(t.iter().map(|x| x.jobs).sum::<u32>(), s.jobs_total);
    assert_eq!(t.iter().map(|x| x.completed).sum::<u32>(), s.jobs_completed);
    assert_eq!(t.iter().map(|x| x.rejected).sum::<u32>(), s.jobs_rejected);
    assert_eq!(t.iter().map(|x| x.preemptions).sum::<u64>(), s.preemptions);
    assert_eq!(t.iter().map(|x| x.job_preemptions_max).max().unwrap_or(0), s.job_preemptions_max);
    let sum = |f: &dyn Fn(&proxima_core::metrics::per_tenant::TenantSummary) -> f64| t.iter().map(f).sum::<f64>();
    let completed = s.jobs_completed as f64;
    assert!(close(sum(&|x| x.avg_jct_s * x.completed as f64), s.avg_jct_s * completed), "{policy}: JCT");
    assert!(close(sum(&|x| x.avg_queue_s * x.completed as f64), s.avg_queue_s * completed), "{policy}: queue");
    assert!(close(sum(&|x| x.comm_overhead_s), s.comm_overhead_s), "{policy}: overhead");
    assert!(close(sum(&|x| x.comm_overhead_gpu_s), s.comm_overhead_gpu_s), "{policy}: overhead in GPU-seconds");
    let busy = sim.timeline().busy_gpu_seconds(SimTime::from_secs_f64(s.makespan_s));
    assert!(close(sum(&|x| x.used_gpu_s), busy), "{policy}: GPU-time {} against {busy}", sum(&|x| x.used_gpu_s));
    assert!(s.jain_slowdown > 0.0 && s.jain_slowdown <= 1.0 + 1e-12);
    // Finish-time fairness: defined for every job completed in both runs.
    let ftf = finish_time_fairness(&sc, &PolicySpec::parse(policy).unwrap(), sim.runs(), &OneAfterAnother).unwrap();
    let mut record = RunRecord::with_summary(&sim, s);
    ftf.apply(&mut record);
    for (row, iso) in record.jobs.iter().zip(&ftf.isolated_jct) {
        assert_eq!(row.rho.is_some(), row.jct.is_some() && iso.is_some(), "{policy}: job {}", row.id);
        assert!(row.rho.is_none_or(|r| r > 0.0));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: sketch::cases(300), ..ProptestConfig::default() })]

    #[test]
    fn tenant_sums_and_quotas_hold(
        topology in topology(),
        jobs in prop::collection::vec(job_sketch(), 1..40),
        spec in tenants(),
        policy in policy(),
        seed in 0u64..1000,
    ) {
        check_run(&topology, &jobs, spec, &policy, seed);
    }
}

#[test]
fn one_tenant_with_quotas_runs_as_without() {
    // With one tenant guaranteed the whole cluster every job is within quota, so quotas change
    // nothing (with backfill; without it, quotas let a job within quota pass one that is not).
    let sketches: Vec<JobSketch> = (0..40)
        .map(|i| JobSketch {
            gap_s: (i % 3) as f64 * 40.0,
            size: (i % 5) as f64 / 5.0,
            duration_s: 100.0 + (i * 37 % 11) as f64 * 60.0,
            model: None,
            tenant: Some(0),
        })
        .collect();
    for policy in
        ["fifo", "consolidate", "random", "strict", "slurm", "consolidate:migrate=on", "tiresias", "srtf", "dally"]
    {
        let events = |spec: &str| {
            let sc = build("racks=2,servers=2,gpus=4,oversub=2", &sketches, (0, [0.0; 4]), 1);
            let mut sim = Simulation::new(sc, resolve_policy(spec).unwrap());
            let hasher = std::rc::Rc::new(std::cell::RefCell::new(proxima_core::event::EventHasher::default()));
            struct Share(std::rc::Rc<std::cell::RefCell<proxima_core::event::EventHasher>>);
            impl proxima_core::event::Observer for Share {
                fn observe(&mut self, now: SimTime, e: &proxima_core::event::SimEvent) {
                    self.0.borrow_mut().observe(now, e);
                }
            }
            sim.add_observer(Box::new(Share(hasher.clone())));
            sim.run();
            let h = hasher.borrow();
            (h.count(), h.hash())
        };
        let with = if policy.contains(':') { format!("{policy},quota=on") } else { format!("{policy}:quota=on") };
        assert_eq!(events(policy), events(&with), "{policy}");
    }
}
