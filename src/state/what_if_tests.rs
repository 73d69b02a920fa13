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

/// Runs the what-if asked in `s` through the worker's code and hands the answer back.
fn answer(s: State) -> State {
    let request = s.what_if.as_ref().expect("a what-if asked").request.clone();
    let mut answers = Vec::new();
    crate::worker::handle(ToWorker::WithoutPreemption((*request).clone()), &|| 0.0, &mut |m| answers.push(m));
    let [m @ FromWorker::WhatIf { .. }] = <[FromWorker; 1]>::try_from(answers).unwrap() else { panic!() };
    s.apply(Action::Worker(m))
}

#[test]
fn a_preemption_forbidden_is_re_run_and_revealed_after_the_prediction() {
    let s = run_dally();
    let p = first_preemption(&s);
    let s = s.apply(Action::WhatIf(WhatIfAct::Ask { policy: 0, preemption: p }));
    let w = s.what_if.clone().unwrap();
    assert_eq!(w.policy, "dally");
    assert_eq!(w.original_s, s.results.outcomes[0].summary.avg_jct_s);
    assert_eq!((w.request.job, w.request.at_us), (p.job, p.at_us));
    assert_eq!(w.request.request.policies, ["dally"]);
    // Answered before the prediction: nothing revealed yet.
    let s = answer(s);
    let outcome = s.what_if.as_ref().unwrap().answer.clone().unwrap().unwrap();
    assert!(outcome.refused, "dally did try to preempt the job then");
    assert_eq!(s.what_if.as_ref().unwrap().verdict(), None);
    let s = s.apply(Action::WhatIf(WhatIfAct::Predict(Prediction::Higher)));
    let v = s.what_if.as_ref().unwrap().verdict().expect("revealed");
    assert_eq!(v.rerun_s, outcome.avg_jct_s);
    assert_ne!(v.rerun_s, w.original_s, "one preemption fewer changes the run");
    assert_eq!(v.right, v.went == Some(Prediction::Higher));
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
    let s = s.apply(Action::WhatIf(WhatIfAct::Ask { policy: 0, preemption: p }));
    let id = s.what_if.as_ref().unwrap().request.id;
    let outcome =
        WhatIfOutcome { refused: true, avg_jct_s: 1.0, jobs_completed: 1, job_preemptions: 0, preemptions: 0 };
    let s = s.apply(Action::Worker(FromWorker::WhatIf { id: id + 1, result: Ok(outcome) }));
    assert_eq!(s.what_if.as_ref().unwrap().answer, None, "an older what-if's answer is ignored");
    let s = s.apply(Action::WorkerCrashed("out of memory".into()));
    assert!(matches!(&s.what_if.as_ref().unwrap().answer, Some(Err(e)) if e.contains("out of memory")));
    // Without that policy nothing is asked.
    let none = s.apply(Action::WhatIf(WhatIfAct::Ask { policy: 5, preemption: p }));
    assert!(none.what_if.is_none());
}
