//! The replay policy: choices in, the same run out every time; a bad choice refused as data.

use super::*;
use crate::event::{Observer, SimEvent};
use crate::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
use crate::session::{replay, slowdown_now, Stop};
use crate::{Scenario, Simulation};

/// Two racks of two 4-GPU servers, thin uplinks; three jobs of 4, 4 and 8 GPUs.
fn scenario() -> Scenario {
    let trace = "id,submit_s,gpus,model,duration_s\na,0,4,bert,600\nb,0,4,bert,600\nc,100,8,resnet50,600\n";
    let input = ScenarioInput::new(
        TopologyInput::Argument("racks=2,servers=2,gpus=4,oversub=8,fabric=tcp".into()),
        TraceInput::File { name: "challenge.csv".into(), text: trace.into() },
        1,
    );
    build_scenario(&input).expect("the test scenario builds")
}

fn gpus(ids: std::ops::Range<u32>) -> Vec<GpuId> {
    ids.map(GpuId).collect()
}

fn place(job: u32, ids: std::ops::Range<u32>) -> Choice {
    Choice::Place { job: JobId(job), gpus: gpus(ids) }
}

#[test]
fn no_choices_pauses_at_the_first_decision_point() {
    let r = replay(scenario(), &[], AfterChoices::Pause).unwrap();
    assert_eq!(r.stop, Stop::Decision);
    assert_eq!(r.sim.now(), SimTime::ZERO);
    assert_eq!(r.sim.cluster().free_count(), 16);
}

#[test]
fn each_choice_moves_to_the_next_decision_point_and_the_end() {
    let choices = vec![place(0, 0..4), place(1, 4..8)];
    let r = replay(scenario(), &choices, AfterChoices::Pause).unwrap();
    // Job c (8 GPUs) arrives at 100 s and fits the 8 free GPUs of the second rack.
    assert_eq!(r.stop, Stop::Decision);
    assert_eq!(r.sim.now(), SimTime::from_secs_f64(100.0));
    let mut all = choices.clone();
    all.push(place(2, 8..16));
    let r = replay(scenario(), &all, AfterChoices::Pause).unwrap();
    assert_eq!(r.stop, Stop::Finished);
    let s = r.sim.summary();
    assert_eq!((s.jobs_completed, s.jobs_unfinished), (3, 0));
}

/// Records every event as text, to compare two runs event by event.
struct Record(Rc<RefCell<Vec<String>>>);

impl Observer for Record {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.0.borrow_mut().push(format!("{now:?} {event:?}"));
    }
}

#[test]
fn a_replay_is_deterministic() {
    let choices = vec![place(0, 0..4), Choice::Wait { for_s: None }, place(1, 4..8), place(2, 8..16)];
    let events = || {
        let (policy, _log) = Replay::new(choices.clone(), AfterChoices::Pause);
        let mut sim = Simulation::new(scenario(), Box::new(policy));
        let seen = Rc::new(RefCell::new(Vec::new()));
        sim.add_observer(Box::new(Record(Rc::clone(&seen))));
        let summary = sim.run();
        let events = seen.borrow().clone();
        (events, summary)
    };
    let (first, second) = (events(), events());
    assert!(first.0.len() > 6, "arrivals, placements and completions: {:?}", first.0);
    assert_eq!(first, second);
    let a = replay(scenario(), &choices, AfterChoices::Pause).unwrap().sim.summary();
    assert_eq!(a, first.1);
}

#[test]
fn a_choice_on_busy_gpus_is_refused_with_a_clear_error() {
    let choices = vec![place(0, 0..4), place(1, 2..6)];
    let e = replay(scenario(), &choices, AfterChoices::Pause).err().expect("GPUs 2 and 3 are job a's");
    assert_eq!(e.index, 1);
    assert_eq!(e.to_string(), "decision 2: GPU 2 is busy: job a runs there");
}

#[test]
fn other_bad_choices_are_refused_too() {
    let wrong_size = vec![place(0, 0..2)];
    let e = replay(scenario(), &wrong_size, AfterChoices::Pause).err().unwrap();
    assert_eq!(e.to_string(), "decision 1: job a needs 4 GPUs, 2 were chosen");
    let not_queued = vec![place(2, 0..8)];
    let e = replay(scenario(), &not_queued, AfterChoices::Pause).err().unwrap();
    assert_eq!(e.to_string(), "decision 1: job c is not waiting in the queue");
    // Jobs a and b end together at 600 s; c (8 GPUs) has waited since 100 s. Waiting
    // then would leave c queued forever: nothing runs and nothing is to arrive.
    let stall = vec![place(0, 0..4), place(1, 4..8), Choice::Wait { for_s: None }, Choice::Wait { for_s: None }];
    let e = replay(scenario(), &stall, AfterChoices::Pause).err().expect("the second wait stalls");
    assert_eq!(e.index, 3);
    assert!(e.message.contains("waiting forever"), "{e}");
}

#[test]
fn a_what_if_hands_over_to_first_fit_where_a_choice_no_longer_applies() {
    // Had the first decision waited 90 s: a and b start at 90 s as chosen, then c's
    // choice of the second rack applies as before.
    let original = vec![place(0, 0..4), place(1, 4..8), place(2, 8..16)];
    let base = replay(scenario(), &original, AfterChoices::FirstFit).unwrap();
    assert_eq!(base.diverged_at, None);
    let mut what_if = original.clone();
    what_if.insert(0, Choice::Wait { for_s: Some(90.0) });
    let r = replay(scenario(), &what_if, AfterChoices::FirstFit).unwrap();
    assert_eq!(r.stop, Stop::Finished);
    let (a, b) = (base.sim.summary(), r.sim.summary());
    assert_eq!(b.jobs_completed, 3);
    // a and b start 90 s late; c at 100 s as before.
    assert_eq!(r.sim.runs()[0].first_start, Some(SimTime::from_secs_f64(90.0)));
    assert!((b.avg_jct_s - a.avg_jct_s - 60.0).abs() < 1e-3, "{} vs {}", b.avg_jct_s, a.avg_jct_s);
    // A choice that stops applying hands the rest to first fit, which finishes the run.
    let clash = vec![place(0, 0..4), place(1, 0..4)];
    let r = replay(scenario(), &clash, AfterChoices::FirstFit).unwrap();
    assert_eq!((r.stop, r.diverged_at), (Stop::Finished, Some(1)));
    assert_eq!(r.sim.summary().jobs_completed, 3);
}

#[test]
fn the_slowdown_of_a_placement_is_shown_before_it_is_chosen() {
    let r = replay(scenario(), &[], AfterChoices::Pause).unwrap();
    let tight = slowdown_now(&r.sim, JobId(0), &gpus(0..4));
    let spread = slowdown_now(&r.sim, JobId(0), &[GpuId(0), GpuId(4), GpuId(8), GpuId(12)]);
    assert!((tight - 1.0).abs() < 1e-9, "one server is ideal: {tight}");
    assert!(spread > 1.2, "four servers over two racks are slower: {spread}");
}
