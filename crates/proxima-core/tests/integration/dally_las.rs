//! `dally:order=las` on scenarios computed by hand: least attained service first, lower
//! queues checkpointed for higher ones where that gets a placement within the tier a job
//! accepts, and a demoted job's fresh wait. Units as in `dally.rs`; thresholds of 100
//! GPU-seconds (`queues=100`) so that demotions fall within seconds. The walk and the choice
//! of victims are the same under both service rules; these tests fix `service=priority`, so
//! that every demotion that can checkpoint does and the figures follow from the queues alone
//! (whether an exchange pays is tested in `dally_service.rs`).

use crate::common;
use crate::dally::{first_wait, secs};

use common::build::{cluster, scenario, scenario_with, two_models};
use common::record::{close, run_logged as run, Log};
use proxima_core::cluster::JobId;
use proxima_core::engine::Simulation;
use proxima_core::event::{EventHasher, Observer, Reason, SimEvent};
use proxima_core::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
use proxima_core::policy::resolve_policy;
use proxima_core::time::SimTime;
use std::cell::RefCell;
use std::rc::Rc;

const LAS: &str = "dally:order=las,queues=100,autotune=off,service=priority";

/// The preemptions of a run: (time, victim, for whom).
fn preemptions(log: &Log) -> Vec<(f64, u32, u32)> {
    log.0
        .borrow()
        .iter()
        .filter_map(|(t, e)| match e {
            SimEvent::Preempted { job, reason: Reason::PreemptedFor { for_job, .. }, .. } => {
                Some((*t, job.0, for_job.0))
            }
            _ => None,
        })
        .collect()
}

/// One 4-GPU server. O (4 GPUs, 1,000 iterations of 1.015 s) starts at 0 s; P (4 GPUs, 20
/// iterations) arrives at 10 s, Y (4 GPUs, 20 iterations) at 40 s.
fn one_server() -> proxima_core::scenario::Scenario {
    scenario(cluster(1, 1, 4, 1.0), &[(0.0, 4, 1000.0), (10.0, 4, 20.0), (40.0, 4, 20.0)])
}

#[test]
fn a_job_of_a_higher_queue_checkpoints_a_demoted_one_and_a_young_job_goes_before_an_older_one() {
    // O attains 100 GPU-s (4 GPUs × 25 s) at 25 s and drops to queue 1; P, in queue 0 and
    // waiting since 10 s, checkpoints it at once and runs 20 × 1.015 = 20.3 s, to 45.3 s
    // (81.2 GPU-s: still queue 0). Y arrived at 40 s in queue 0: when P ends it goes before
    // O, which arrived first but has attained more, and runs to 65.6 s. O restarts then,
    // restores for 30 s and runs its last 1,015 − 25 = 990 s: done at 1,085.6 s.
    let (las, log) = run(LAS, one_server());
    let runs = las.runs();
    assert_eq!(preemptions(&log), vec![(25.0, 0, 1)]);
    assert!(log.0.borrow().iter().any(|(t, e)| *t == 25.0
        && matches!(e, SimEvent::Placed { job, reason: Reason::PlacedByPreemption { victims, gain_s, .. }, .. }
            if job.0 == 1 && victims == &[JobId(0)] && *gain_s == 0.0)));
    assert!(close(secs(runs[1].end), 45.3), "{}", secs(runs[1].end));
    assert!(close(secs(runs[2].first_start), 45.3), "{}", secs(runs[2].first_start));
    assert!(close(secs(runs[2].end), 65.6), "{}", secs(runs[2].end));
    assert!(close(runs[0].last_start.as_secs_f64(), 65.6), "{}", runs[0].last_start.as_secs_f64());
    assert!(close(secs(runs[0].end), 1085.6), "{}", secs(runs[0].end));
    // First come, first served: O runs to 1,015 s unpreempted, then P, then Y.
    let (fifo, log) = run("dally:autotune=off", one_server());
    assert!(preemptions(&log).is_empty());
    assert!(close(secs(fifo.runs()[0].end), 1015.0));
    assert!(close(secs(fifo.runs()[1].first_start), 1015.0));
    assert!(close(secs(fifo.runs()[2].first_start), 1035.3));
}

/// Two 4-GPU servers in one rack. X (1 GPU) and O (2 GPUs) share server 0, B (3 GPUs) takes
/// server 1: one GPU is free on each. N (2 GPUs) arrives at 60 s, when only a spread
/// placement is free. All run long.
fn demoted_scenario() -> proxima_core::scenario::Scenario {
    scenario(cluster(1, 2, 4, 1.0), &[(0.0, 1, 10_000.0), (0.0, 2, 10_000.0), (0.0, 3, 10_000.0), (60.0, 2, 100.0)])
}

#[test]
fn a_demoted_job_checkpointed_for_a_higher_queue_waits_afresh_for_a_server() {
    // By 60 s B (3 GPUs, at 33.3 s) and O (2 GPUs, at 50 s) have attained 100 GPU-s and sit
    // in queue 1; X (1 GPU) would need 100 s. N, in queue 0 and sensitive, wants a server:
    // on server 0 checkpointing O (2 GPUs) makes room, on server 1 checkpointing B (3 GPUs);
    // the fewer GPUs win, so O is checkpointed and N takes server 0 at once.
    let (las, log) = run(LAS, demoted_scenario());
    assert_eq!(preemptions(&log), vec![(60.0, 1, 3)]);
    assert_eq!(las.runs()[3].first_start, Some(SimTime::from_secs_f64(60.0)));
    assert_eq!(las.runs()[3].tier.map(|t| t.0), Some(0));
    // O, demoted while it ran, waits in queue 1 and starts a fresh wait for a server. Nothing
    // has completed, so its remaining run time is the prior: as long again as it has run,
    // 60 ideal seconds; its budget is 60 × (1.1/1.01 − 1) = 5.35 s. Nobody ranks below it to
    // checkpoint, and B is as sensitive as it is: when the budget runs out it takes the
    // spread placement.
    let budget = 60.0 * (1.1 / 1.01 - 1.0);
    let wait = log.0.borrow().iter().find_map(|(t, e)| match e {
        SimEvent::Waiting { job, reason: r @ Reason::WaitingForTier { .. } } if job.0 == 1 => Some((*t, r.clone())),
        _ => None,
    });
    match wait {
        Some((60.0, Reason::WaitingForTier { wanted, left_s, .. })) => {
            assert_eq!(wanted.0, 0);
            assert!(close(left_s, budget), "{left_s}");
        }
        other => panic!("O should wait afresh for a server: {other:?}"),
    }
    let placed = log.0.borrow().iter().find_map(|(t, e)| match e {
        SimEvent::Placed { job, tier, reason: Reason::TimerExpired { .. }, .. } if job.0 == 1 => Some((*t, tier.0)),
        _ => None,
    });
    let (at, tier) = placed.expect("O takes the spread placement when its budget runs out");
    assert!(close(at, 60.0 + budget), "{at}");
    assert_eq!(tier, 1);
    // N itself never waited: its first wait reason, if any, is not a wait for a tier.
    assert!(first_wait(&log, 3).is_none());
}

/// Two 4-GPU servers in one rack. S and F (unit, 2 GPUs each, long) fill server 0, B (unit,
/// 2 GPUs, long) half of server 1; T (tiny, insensitive, 2 GPUs, long) arrives at `t_at` and
/// takes the other half. W (unit, 4 GPUs, 100 iterations) arrives at 600 s.
fn displace_scenario(t_at: f64) -> proxima_core::scenario::Scenario {
    let jobs = [
        (0.0, 2, 100_000.0, 0),
        (0.0, 2, 100_000.0, 0),
        (0.0, 2, 100_000.0, 0),
        (t_at, 2, 100_000.0, 1),
        (600.0, 4, 100.0, 0),
    ];
    scenario_with(cluster(1, 2, 4, 1.0), two_models(), &jobs)
}

#[test]
fn dallys_own_preemption_never_takes_a_job_of_a_higher_queue() {
    // With `queues=1000` S, F and B reach 1,000 GPU-s at 500 s: queue 1. At 600 s W (queue 0)
    // checkpoints F and S, lowest ranked first (server 0; server 1 would need T too). S and F wait for a server
    // with nothing free. S may checkpoint T, which is insensitive, to get server 1: its gain,
    // 600 ideal seconds attained (so 600 s expected, nothing having completed) × (1.1/1.01 −
    // 1) = 53.5 s, exceeds the 30 s restore. It does when T arrived with S (queue 1 by then,
    // like S) and not when T arrived at 400 s (400 GPU-s by 600 s: queue 0, above S).
    let spec = "dally:order=las,queues=1000,autotune=off,min_run_s=0,service=priority";
    let (_, log) = run(spec, displace_scenario(0.0));
    assert_eq!(preemptions(&log), vec![(600.0, 1, 4), (600.0, 0, 4), (600.0, 3, 0)]);
    let (las, log) = run(spec, displace_scenario(400.0));
    assert_eq!(preemptions(&log), vec![(600.0, 1, 4), (600.0, 0, 4)]);
    assert_eq!(las.runs()[3].preemptions, 0);
}

struct Shared(Rc<RefCell<EventHasher>>);

impl Observer for Shared {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.0.borrow_mut().observe(now, event);
    }
}

/// The event-log hash of the golden scenario (`golden.rs`) under `policy`.
fn hash_of(policy: &str) -> (u64, u64) {
    let input = ScenarioInput::new(
        TopologyInput::Argument("racks=2,servers=2,gpus=4,oversub=64,fabric=tcp".into()),
        TraceInput::Synthetic("synthetic:jobs=600,load=2".into()),
        1,
    );
    let mut sim = Simulation::new(build_scenario(&input).unwrap(), resolve_policy(policy).unwrap());
    let hasher = Rc::new(RefCell::new(EventHasher::default()));
    sim.add_observer(Box::new(Shared(hasher.clone())));
    sim.run();
    let h = hasher.borrow();
    (h.count(), h.hash())
}

#[test]
fn order_las_is_deterministic_and_differs_from_first_come_first_served() {
    let once = hash_of("dally:order=las");
    assert_eq!(once, hash_of("dally:order=las"));
    assert_ne!(once, hash_of("dally"));
}

#[test]
fn with_a_single_queue_order_las_is_first_come_first_served_event_for_event() {
    // One queue: every job ranks by arrival, nobody ranks below anybody, so there is no
    // service-order preemption and dally's own preemption may take anyone, as under fifo.
    // Patience (`patient_above`) belongs to the order alone; without it the runs agree.
    assert_eq!(hash_of("dally:order=las,queues=none,patient_above=off"), hash_of("dally:max_preempt=48"));
}

/// Two 4-GPU servers in one rack, thresholds 100 and 1,000 GPU-seconds. L (3 GPUs) starts
/// at 0 s on server 0; M (2 GPUs) at 300 s on server 1; N (3 GPUs, short) arrives at 400 s.
fn chain_scenario() -> proxima_core::scenario::Scenario {
    scenario(cluster(1, 2, 4, 1.0), &[(0.0, 3, 100_000.0), (300.0, 2, 100_000.0), (400.0, 3, 100.0)])
}

#[test]
fn service_order_checkpoints_the_lowest_queue_rather_than_start_a_chain() {
    // At 400 s L has attained 1,200 GPU-s (queue 2) and M 200 (queue 1). N, in queue 0 and
    // sensitive, finds no server with three GPUs free (one on server 0, two on server 1).
    // Checkpointing M frees fewer GPUs (2 against L's 3), but M, in queue 1 and as sensitive,
    // would at once checkpoint L for a server of its own: two checkpoints where one serves.
    // So N takes server 0 from L, the job of the lowest queue, and M runs on.
    let spec = "dally:order=las,queues=100/1000,autotune=off,service=priority";
    let (las, log) = run(spec, chain_scenario());
    assert_eq!(preemptions(&log), vec![(400.0, 0, 2)]);
    let runs = las.runs();
    assert_eq!(runs[2].first_start, Some(SimTime::from_secs_f64(400.0)));
    assert_eq!(runs[2].tier.map(|t| t.0), Some(0));
    assert_eq!(runs[1].preemptions, 0);
}
