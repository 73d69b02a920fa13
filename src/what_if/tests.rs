//! The what-if on a preemption, driven as the page drives it, with the worker's code run
//! natively: a run, a preemption from its playback, the prediction, the re-run, the verdict.

use super::*;
use crate::protocol::{FromWorker, ToWorker};
use crate::state::{Action, State};

/// The page's first scenario with `dally` alone, run through the worker's code.
fn run_dally() -> State {
    let mut s = State::default();
    s.policies.value = vec!["dally".into()];
    let (request, scenario) = s.run_request(s.next_id).expect("the default scenario runs");
    let run_id = request.run_id;
    let mut s = s.apply(Action::RunStarted { run_id, scenario });
    let mut answers = Vec::new();
    crate::worker::handle(ToWorker::Run(request), &|| 0.0, &mut |m| answers.push(m));
    for m in answers {
        s = s.apply(Action::Worker(m));
    }
    assert!(s.results.finished);
    s
}

/// The first preemption of the run's playback.
fn first_preemption(s: &State) -> Preemption {
    let outcome = &s.results.outcomes[0];
    let topology = s.results.topology.clone().unwrap();
    let pb = crate::playback::view::playback_of(outcome, topology).unwrap();
    pb.preemptions().first().copied().expect("dally preempts on the first run's cluster")
}

/// Runs the what-if asked in `s` through the worker's code, over `seeds` seeds, and hands
/// back the state with its first answer and the one with the seeds' too.
fn answer(s: State, seeds: u32) -> (State, State) {
    let mut request = (*s.what_if.as_ref().expect("a what-if asked").request).clone();
    request.seeds = seeds;
    let mut answers = Vec::new();
    crate::worker::handle(ToWorker::WithoutPreemption(request), &|| 0.0, &mut |m| answers.push(m));
    let [first @ FromWorker::WhatIf { .. }, seeds @ FromWorker::WhatIfSeeds { .. }] =
        <[FromWorker; 2]>::try_from(answers).unwrap()
    else {
        panic!()
    };
    let s = s.apply(Action::Worker(first));
    let both = s.clone().apply(Action::Worker(seeds));
    (s, both)
}

#[test]
fn a_preemption_forbidden_is_re_run_and_revealed_after_the_prediction() {
    let s = run_dally();
    let p = first_preemption(&s);
    let s = s.apply(Action::WhatIf(WhatIfAct::Ask { policy: 0, preemption: p, rank: 0 }));
    let w = s.what_if.clone().unwrap();
    assert_eq!(w.policy, "dally");
    assert_eq!(w.original_s, s.results.outcomes[0].summary.avg_jct_s);
    assert_eq!((w.request.job, w.request.at_us), (p.job, p.at_us));
    assert_eq!(w.request.request.policies, ["dally"]);
    assert_eq!((w.request.rank, w.request.for_job, w.request.seeds), (0, p.for_job, crate::worker::WHAT_IF_SEEDS));
    // Answered before the prediction: nothing revealed yet.
    let (s, with_seeds) = answer(s, 3);
    let outcome = s.what_if.as_ref().unwrap().answer.clone().unwrap().unwrap();
    assert!(outcome.refused, "dally did try to preempt the job then");
    assert_eq!(s.what_if.as_ref().unwrap().verdict(), None);
    // The two jobs' own JCTs: the preempted job finished in both runs.
    assert_eq!(outcome.jobs[0].job, p.job);
    assert_eq!(outcome.jobs.len(), 1 + usize::from(p.for_job.is_some()));
    assert!(outcome.jobs[0].with_s.is_some() && outcome.jobs[0].without_s.is_some());
    let s = s.apply(Action::WhatIf(WhatIfAct::Predict(Prediction::Higher)));
    let v = s.what_if.as_ref().unwrap().verdict().expect("revealed");
    assert_eq!(v.rerun_s, outcome.avg_jct_s);
    assert_ne!(v.rerun_s, w.original_s, "one preemption fewer changes the run");
    // Before the seeds, no conclusion and no judgement of the prediction.
    assert_eq!((v.seeds, v.right), (None, None));
    let both = with_seeds.apply(Action::WhatIf(WhatIfAct::Predict(Prediction::Higher)));
    let w2 = both.what_if.as_ref().unwrap();
    let Some(Ok(seeds)) = &w2.seeds else { panic!("the seeds answered") };
    // The run's own seed first, with the run's own mean JCT and the re-run's.
    assert_eq!((seeds.seeds[0].original_s, seeds.seeds[0].rerun_s), (w.original_s, outcome.avg_jct_s));
    assert_eq!(seeds.seeds.len() + seeds.without_one.len(), 3);
    let v = w2.verdict().unwrap();
    let summary = v.seeds.expect("summarised");
    assert_eq!(summary.n, seeds.seeds.len());
    let expected = match summary.conclusion() {
        seeds::Conclusion::CostMore => Some(false),
        seeds::Conclusion::PaidOff => Some(true),
        _ => None,
    };
    assert_eq!(v.right, expected);
    // The prediction made stays made.
    let again = s.clone().apply(Action::WhatIf(WhatIfAct::Predict(Prediction::Lower)));
    assert_eq!(again.what_if.as_ref().unwrap().prediction, Some(Prediction::Higher));
    // A new run forgets it.
    let closed = s.apply(Action::WhatIf(WhatIfAct::Close));
    assert!(closed.what_if.is_none());
}

#[test]
fn an_answer_to_another_what_if_or_a_lost_worker_is_handled() {
    let s = run_dally();
    let p = first_preemption(&s);
    let s = s.apply(Action::WhatIf(WhatIfAct::Ask { policy: 0, preemption: p, rank: 0 }));
    let id = s.what_if.as_ref().unwrap().request.id;
    let outcome = WhatIfOutcome {
        refused: true,
        avg_jct_s: 1.0,
        jobs_completed: 1,
        job_preemptions: 0,
        preemptions: 0,
        jobs: vec![],
    };
    let s = s.apply(Action::Worker(FromWorker::WhatIf { id: id + 1, result: Ok(outcome) }));
    assert_eq!(s.what_if.as_ref().unwrap().answer, None, "an older what-if's answer is ignored");
    let s = s.apply(Action::WorkerCrashed("out of memory".into()));
    assert!(matches!(&s.what_if.as_ref().unwrap().answer, Some(Err(e)) if e.contains("out of memory")));
    // Without that policy nothing is asked.
    let none = s.apply(Action::WhatIf(WhatIfAct::Ask { policy: 5, preemption: p, rank: 0 }));
    assert!(none.what_if.is_none());
}
