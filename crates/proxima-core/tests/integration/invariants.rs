//! Invariants of every run, on random clusters, traces and policies (property-based).
//!
//! Cases include the edges: a one-GPU cluster, jobs as large as the cluster (and larger,
//! which must be rejected), bursts of submissions at one instant, zero gaps, very long jobs,
//! and every policy with random options. Each run is watched event by event:
//! - no GPU holds two jobs, and a job runs on exactly as many distinct GPUs as it asked for;
//! - no job starts before it is submitted; simulated time never goes back;
//! - a preempted job keeps its progress, and the progress it reports is what its rates add
//!   up to;
//!
//! and at the end:
//! - every admissible job completed, every other one was rejected, none is left over;
//! - the work each job did, summed from the rates the events announced over the time it
//!   held its GPUs (less its checkpoint restores), is the work it asked for; JCT is at
//!   least the job's ideal run time.
//!
//! `PROXIMA_PROPTEST_CASES` sets the number of cases (default 2,000).

use crate::common;

use common::sketch::{self, JobSketch};
use proptest::prelude::*;
use proxima_core::engine::Simulation;
use proxima_core::event::{Observer, SimEvent};
use proxima_core::policy::resolve_policy;
use proxima_core::scenario::JobStatus;
use proxima_core::time::SimTime;
use proxima_core::workload::Job;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

fn job_sketch() -> impl Strategy<Value = JobSketch> {
    let gap = prop_oneof![3 => Just(0.0), 4 => 0.0..300.0f64, 1 => 1000.0..100_000.0f64];
    let size = prop_oneof![6 => 0.0..0.5f64, 2 => 0.5..1.0f64, 1 => Just(1.0), 1 => Just(1.5)];
    let duration = prop_oneof![2 => 0.5..5.0f64, 6 => 10.0..5_000.0f64, 1 => 100_000.0..2_000_000.0f64];
    let model = prop_oneof![1 => Just(None), 3 => (0u8..19).prop_map(Some)];
    (gap, size, duration, model).prop_map(|(gap_s, size, duration_s, model)| JobSketch {
        gap_s,
        size,
        duration_s,
        model,
        tenant: None,
    })
}

fn topology() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => Just("racks=1,servers=1,gpus=1".to_string()),
        6 => (1u32..=3, 1u32..=4, 1u32..=8, 1u32..=4, 1u32..=2, prop_oneof![Just("rdma"), Just("tcp")])
            .prop_map(|(r, s, g, o, nics, fabric)| format!("racks={r},servers={s},gpus={g},oversub={o},nics={nics},fabric={fabric}")),
    ]
}

fn policy() -> impl Strategy<Value = String> {
    let dally = (
        any::<bool>(),
        any::<bool>(),
        0u32..600,
        0u32..600,
        0u32..120,
        0u32..900,
        0u32..4,
        prop_oneof![Just("off".to_string()), (0u32..2000).prop_map(|s| s.to_string())],
        10u32..1000,
        prop_oneof![Just("on"), Just("off"), Just("all")],
    )
        .prop_map(|(preempt, autotune, t0, t1, restore, min_run, max_preempt, starve, tune, delay)| {
            let on = |b: bool| if b { "on" } else { "off" };
            format!(
                "dally:delay={delay},preempt={},autotune={},timers={t0}/{t1},restore_s={restore},min_run_s={min_run},max_preempt={max_preempt},starve_s={starve},tune_every_s={tune}",
                on(preempt),
                on(autotune)
            )
        });
    // Least attained service first: thresholds from a few GPU-seconds (a demotion every few
    // seconds) to the default, each of dally's parts on or off.
    let dally_las = (
        prop_oneof![
            Just("none".to_string()),
            Just("3250/7200".to_string()),
            (1u32..50, 50u32..5000).prop_map(|(a, b)| format!("{a}/{b}"))
        ],
        any::<bool>(),
        prop_oneof![Just("on"), Just("off"), Just("all")],
        0u32..900,
    )
        .prop_map(|(queues, preempt, delay, min_run)| {
            let preempt = if preempt { "on" } else { "off" };
            format!("dally:order=las,queues={queues},preempt={preempt},delay={delay},min_run_s={min_run}")
        });
    let on = |b: bool| if b { "on" } else { "off" };
    // Queues and starvation knob: tiny thresholds only without the knob. With both, long
    // jobs take turns every few seconds for their whole length (millions of preemptions for
    // the 2,000,000 s jobs here): correct, and a waste of test time.
    let queues_and_starve = prop_oneof![
        (
            prop_oneof![
                Just("none".to_string()),
                (1u32..500).prop_map(|t| t.to_string()),
                (1u32..50, 1u32..50).prop_map(|(a, b)| format!("{a}/{}", a + b)),
            ],
            Just("off".to_string()),
        ),
        (
            prop_oneof![
                Just("3250/7200".to_string()),
                Just("57600".to_string()),
                (3000u32..20_000).prop_map(|t| t.to_string()),
                (3000u32..6000, 1u32..5000).prop_map(|(a, b)| format!("{a}/{}", a + b)),
            ],
            prop_oneof![Just("off".to_string()), (50u32..800).prop_map(|s| format!("{}", s as f64 / 100.0))],
        ),
    ];
    let tiresias = (
        queues_and_starve,
        prop_oneof![Just("skew"), Just("tightest"), Just("most_free"), Just("first_fit")],
        any::<bool>(),
        0u32..120,
        prop_oneof![Just("off".to_string()), (1u32..120).prop_map(|r| r.to_string())],
    )
        .prop_map(move |((queues, starve), place, running_first, restore, round)| {
            format!(
                "tiresias:queues={queues},starve={starve},place={place},running_first={},restore_s={restore},round_s={round}",
                on(running_first)
            )
        });
    let migrate = (any::<bool>(), 0u32..120, 0u32..900, 0u32..4).prop_map(move |(backfill, restore, min_run, max)| {
        format!(
            "consolidate:migrate=on,backfill={},restore_s={restore},min_run_s={min_run},max_preempt={max}",
            on(backfill)
        )
    });
    let others = prop_oneof![
        any::<bool>().prop_map(move |b| format!("strict:backfill={}", on(b))),
        (1u32..4, 0u32..600).prop_map(|(n, w)| format!("slurm:switches={n},wait_s={w}")),
        (0usize..3, prop_oneof![Just("off".to_string()), (0u32..600).prop_map(|w| w.to_string())]).prop_map(
            |(sizes, wait)| format!("slurm:block=on,block_sizes={},wait_s={wait}", ["1/2/4/8/16", "1/4", "1"][sizes])
        ),
        (any::<bool>(), 0u32..120, 0u32..900, 0u32..4).prop_map(|(block, restore, min_run, max)| {
            let rule = if block { "block=on,wait_s=60" } else { "switches=1,wait_s=60" };
            format!("slurm:{rule},evict=on,restore_s={restore},min_run_s={min_run},max_preempt={max}")
        }),
        (any::<bool>(), 0u32..120).prop_map(move |(p, r)| format!("srtf:preempt={},restore_s={r}", on(p))),
        (any::<bool>(), prop_oneof![Just("run".to_string()), (0u64..100).prop_map(|s| s.to_string())])
            .prop_map(move |(b, seed)| format!("random:backfill={},seed={seed}", on(b))),
        (0usize..6, any::<bool>(), 1u32..600, any::<bool>()).prop_map(move |(request, strict, wait, evict)| {
            // A required level waits for ever for a job larger than its domains: only with a
            // timer here, so that every run ends.
            let request = ["preferred=server", "preferred=tightest", "preferred=cluster", "unconstrained=on"]
                .get(request)
                .map_or(format!("required=server,required_for_s={wait}"), |r| r.to_string());
            let request = if request.starts_with("required") && wait % 2 == 0 {
                "required=tightest,required_for_s=auto".to_string()
            } else {
                request
            };
            let queue = if strict { "strict" } else { "besteffort" };
            format!("kueue-tas:{request},queue={queue},evict={},min_run_s=0", on(evict))
        }),
        // Every cluster here has a tier 1 (its racks). A hard tier waits for ever for a job
        // larger than its HyperNodes: only with a timer, so that every run ends.
        (0usize..3, 1u32..600, any::<bool>(), 0u32..120, 0u32..900).prop_map(
            move |(mode, wait, evict, restore, min_run)| {
                let mode = ["soft=on", "hard=1", "hard=rack"][mode];
                let timer = if mode == "soft=on" { String::new() } else { format!(",hard_for_s={wait}") };
                let evict =
                    if evict { format!(",evict=on,restore_s={restore},min_run_s={min_run}") } else { String::new() };
                format!("volcano:{mode}{timer}{evict}")
            }
        ),
    ];
    prop_oneof![
        1 => Just("fifo".to_string()),
        1 => Just("fifo:backfill=off".to_string()),
        1 => Just("consolidate".to_string()),
        1 => Just("consolidate:backfill=off".to_string()),
        2 => Just("dally".to_string()),
        4 => dally,
        3 => dally_las,
        1 => Just("tiresias".to_string()),
        1 => Just(proxima_core::policy::tiresias::POLLUX_SPEC.to_string()),
        4 => tiresias,
        3 => migrate,
        4 => others,
    ]
}

/// Watches a run and panics at the first broken invariant.
struct Checker {
    jobs: Vec<Job>,
    last_time: SimTime,
    gpu_owner: BTreeMap<u32, u32>,
    held: BTreeMap<u32, Vec<u32>>,
    progress: BTreeMap<u32, f64>,
    /// What a preempted job pays before it progresses again (the policy's `restore_s`).
    restore: SimTime,
    /// Per running job: seconds per iteration as last announced, since when it was credited,
    /// and when it resumes after a restore.
    rate: BTreeMap<u32, (f64, SimTime, SimTime)>,
    /// Per job, iterations summed from the announced rates.
    summed: BTreeMap<u32, f64>,
    /// Jobs that were preempted and will pay a restore when they start again.
    restoring: BTreeMap<u32, bool>,
}

impl Observer for Checker {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        assert!(now >= self.last_time, "time went back from {} to {}", self.last_time, now);
        self.last_time = now;
        match event {
            SimEvent::Placed { job, gpus, iter_s, .. } => {
                let j = &self.jobs[job.0 as usize];
                assert!(now >= j.submit, "job {} started at {now} before its submission at {}", job.0, j.submit);
                assert_eq!(gpus.len() as u32, j.gpus, "job {} got the wrong number of GPUs", job.0);
                for g in gpus {
                    if let Some(other) = self.gpu_owner.insert(g.0, job.0) {
                        panic!("GPU {} held by jobs {other} and {} at {now}", g.0, job.0);
                    }
                }
                assert!(
                    self.held.insert(job.0, gpus.iter().map(|g| g.0).collect()).is_none(),
                    "job {} placed twice",
                    job.0
                );
                let restore = if self.restoring.remove(&job.0).unwrap_or(false) { self.restore } else { SimTime::ZERO };
                self.rate.insert(job.0, (*iter_s, now, now + restore));
            }
            SimEvent::RateChanged { job, iter_s } => {
                self.credit(job.0, now);
                self.rate.get_mut(&job.0).expect("a job changes rate only while it runs").0 = *iter_s;
            }
            SimEvent::Preempted { job, done_iterations, .. } => {
                let before = self.progress.insert(job.0, *done_iterations).unwrap_or(0.0);
                assert!(*done_iterations >= before, "job {} lost progress: {before} then {done_iterations}", job.0);
                self.credit(job.0, now);
                let summed = self.summed.get(&job.0).copied().unwrap_or(0.0);
                assert!(
                    (summed - done_iterations).abs() <= 1e-6 * done_iterations.max(1.0),
                    "job {} reports {done_iterations} iterations done, its rates add up to {summed}",
                    job.0
                );
                self.rate.remove(&job.0);
                self.restoring.insert(job.0, true);
                self.release(job.0);
            }
            SimEvent::Completed { job } => {
                self.credit(job.0, now);
                self.rate.remove(&job.0);
                let j = &self.jobs[job.0 as usize];
                let summed = self.summed.get(&job.0).copied().unwrap_or(0.0);
                // The completion is scheduled on the next whole microsecond, so the rates
                // may add up to a hair more than the work.
                let slack = 1e-9 * j.iterations + 2e-6 / j.ideal_iter_s.unwrap_or(1.0);
                assert!(
                    summed >= j.iterations * (1.0 - 1e-9) && summed <= j.iterations + slack,
                    "job {} asked for {} iterations; its rates over time add up to {summed}",
                    job.0,
                    j.iterations
                );
                self.release(job.0)
            }
            _ => {}
        }
    }
}

impl Checker {
    /// Adds the iterations done since the job was last credited, at its announced rate,
    /// counting no progress while it restores a checkpoint.
    fn credit(&mut self, job: u32, now: SimTime) {
        let (iter_s, since, resume) = self.rate.get_mut(&job).map(|r| *r).expect("credited while running");
        let from = since.max(resume);
        if now > from {
            *self.summed.entry(job).or_default() += (now - from).as_secs_f64() / iter_s;
        }
        self.rate.get_mut(&job).expect("running").1 = now;
    }

    fn release(&mut self, job: u32) {
        let gpus = self.held.remove(&job).unwrap_or_else(|| panic!("job {job} released GPUs it did not hold"));
        for g in gpus {
            assert_eq!(self.gpu_owner.remove(&g), Some(job));
        }
    }
}

struct Shared(Rc<RefCell<Checker>>);

impl Observer for Shared {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.0.borrow_mut().observe(now, event);
    }
}

fn check_run(topology: &str, sketches: &[JobSketch], policy: &str, seed: u64) {
    let (scenario, _) = sketch::scenario(topology, sketches, seed);
    let total = scenario.topology.gpu_count();
    let jobs = scenario.jobs.clone();
    let policy_box = resolve_policy(policy).unwrap();
    // The restore cost a preempted job pays, from the policy's canonical spec (policies that
    // never preempt have none).
    let restore_s: f64 = policy_box
        .spec()
        .split([':', ','])
        .find_map(|kv| kv.strip_prefix("restore_s="))
        .map(|v| v.parse().expect("restore_s is a number"))
        .unwrap_or(0.0);
    let checker = Rc::new(RefCell::new(Checker {
        jobs: jobs.clone(),
        last_time: SimTime::ZERO,
        gpu_owner: BTreeMap::new(),
        held: BTreeMap::new(),
        progress: BTreeMap::new(),
        restore: SimTime::from_secs_f64(restore_s),
        rate: BTreeMap::new(),
        summed: BTreeMap::new(),
        restoring: BTreeMap::new(),
    }));
    let mut sim = Simulation::new(scenario, policy_box);
    sim.add_observer(Box::new(Shared(checker.clone())));
    let summary = sim.run();
    assert!(checker.borrow().held.is_empty(), "GPUs still held at the end");
    let mut rejected = 0;
    for (job, run) in jobs.iter().zip(sim.runs()) {
        if job.gpus > total {
            assert_eq!(run.status, JobStatus::Rejected, "job {} is larger than the cluster", job.id.0);
            rejected += 1;
            continue;
        }
        assert_eq!(run.status, JobStatus::Completed, "admissible job {} did not complete under {policy}", job.id.0);
        assert!(checker.borrow().summed.contains_key(&job.id.0), "job {} completed without progress", job.id.0);
        let jct = (run.end.unwrap() - job.submit).as_secs_f64();
        let ideal = job.ideal_run_s().unwrap();
        assert!(jct >= ideal - 1e-6, "job {} finished in {jct} s, faster than its ideal {ideal} s", job.id.0);
    }
    assert_eq!(summary.jobs_rejected, rejected);
    assert_eq!(summary.jobs_completed + summary.jobs_rejected, summary.jobs_total);
    assert_eq!(summary.jobs_unfinished, 0);
    assert!(!sim.stalled());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: sketch::cases(2000), ..ProptestConfig::default() })]

    #[test]
    fn every_run_keeps_the_invariants(
        topology in topology(),
        jobs in prop::collection::vec(job_sketch(), 1..40),
        policy in policy(),
        seed in 0u64..1000,
    ) {
        check_run(&topology, &jobs, &policy, seed);
    }
}

#[test]
fn edge_cases_by_hand() {
    let burst: Vec<JobSketch> = (0..30)
        .map(|i| JobSketch {
            gap_s: 0.0,
            size: (i % 5) as f64 / 4.0,
            duration_s: 100.0,
            model: Some(i as u8),
            tenant: None,
        })
        .collect();
    for policy in [
        "fifo",
        "consolidate",
        "dally",
        "dally:preempt=off,autotune=off",
        "dally:min_run_s=0,restore_s=0",
        "dally:delay=off,min_run_s=0",
        "dally:delay=all,min_run_s=0",
        "dally:order=las,queues=1/2/3,min_run_s=0,restore_s=0",
        "consolidate:migrate=on,min_run_s=0,restore_s=0",
        "strict",
        "slurm",
        "slurm:block=on",
        "slurm:block=on,block_sizes=1/4,wait_s=1,evict=on,min_run_s=0,restore_s=0",
        "slurm:evict=on,min_run_s=0,restore_s=0",
        "tiresias",
        "tiresias:queues=1/2/3,starve=0.01,restore_s=120",
        proxima_core::policy::tiresias::POLLUX_SPEC,
        "srtf",
        "random",
        "kueue-tas",
        "kueue-tas:unconstrained=on,queue=strict",
        "kueue-tas:required=server,required_for_s=1",
        "kueue-tas:required=server,required_for_s=auto,evict=on,min_run_s=0,restore_s=0",
        "volcano",
        "volcano:hard=1,hard_for_s=1",
        "volcano:hard=1,hard_for_s=1,evict=on,min_run_s=0,restore_s=0",
        "volcano:evict=on,min_run_s=0",
        "slurm:wait_s=auto",
        "slurm:block=on,wait_s=auto,evict=on,min_run_s=0",
    ] {
        // One GPU, a burst at one instant, jobs as large as the cluster and larger.
        check_run("racks=1,servers=1,gpus=1", &burst, policy, 1);
        check_run("racks=2,servers=2,gpus=4,oversub=4", &burst, policy, 2);
    }
}
