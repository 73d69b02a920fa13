use super::*;
use crate::error::InputError;
use crate::event::{EventHasher, Observer};
use crate::fairness::isolated::OneAfterAnother;
use crate::inputs::{build_scenario, ArgumentNames, ScenarioInput, TopologyInput, TraceInput};
use crate::policy::resolve_policy;
use crate::run_files::RunRecord;

fn scenario() -> Scenario {
    let mut input = ScenarioInput::new(
        TopologyInput::Argument("racks=2,servers=2,gpus=4".into()),
        TraceInput::Synthetic("synthetic:jobs=30,load=1.5,tenants=2".into()),
        3,
    );
    input.tenants = Some("demand".into());
    build_scenario(&input).unwrap()
}

/// A spec's run built by hand, below the session: its policy resolved from the text, its
/// ρ from the isolated runs of the spec parsed again.
fn by_hand(spec: &str, hasher: &mut EventHasher) -> RunRecord {
    let mut sim = Simulation::new(scenario(), resolve_policy(spec).unwrap());
    while sim.step_observed(&mut [hasher as &mut dyn Observer]).is_some() {}
    let summary = sim.summary();
    let mut record = RunRecord::with_summary(&sim, summary);
    let parsed = PolicySpec::parse(spec).unwrap();
    let rho = crate::fairness::isolated::finish_time_fairness(sim.scenario(), &parsed, sim.runs(), &OneAfterAnother);
    rho.unwrap().apply(&mut record);
    record
}

#[test]
fn a_sessions_runs_are_the_runs_of_their_specs() {
    let specs = ["fifo", "dally:order=las", "consolidate:migrate=on"];
    let session = Session::new(scenario(), parse_policies(&specs).unwrap()).unwrap();
    assert_eq!(session.policies().iter().map(PolicyChoice::text).collect::<Vec<_>>(), specs);
    for (index, spec) in specs.iter().enumerate() {
        let mut through_session = EventHasher::default();
        let options = RunOptions {
            rho: Some(&OneAfterAnother),
            record: true,
            observers: vec![&mut through_session],
            ..RunOptions::default()
        };
        let finished = session.run(index, options).unwrap();
        let mut by_text = EventHasher::default();
        let expected = by_hand(spec, &mut by_text);
        assert_eq!(finished.into_record(), expected, "{spec}");
        assert_eq!((through_session.hash(), through_session.count()), (by_text.hash(), by_text.count()), "{spec}");
    }
    let only = Session::of_one(scenario(), "dally:order=las").unwrap();
    let alone = only.into_run(0, RunOptions { record: true, ..RunOptions::default() }).unwrap();
    let indexed = session.run(1, RunOptions { record: true, ..RunOptions::default() }).unwrap();
    assert_eq!(alone.into_record(), indexed.into_record());
}

#[test]
fn the_first_bad_policy_is_the_problem_named_as_each_front_end_names_it() {
    let problem = parse_policies(&["fifo", "lottery", "dally:speed=9"]).unwrap_err();
    let Problem::Policy { text, error } = &problem else { panic!("{problem:?}") };
    assert_eq!((text.as_str(), error.field.as_str()), ("lottery", "policy"));
    assert!(error.message.starts_with("unknown policy 'lottery'"), "{error}");
    let flags = problem.clone().sourced(PolicyNames::Argument(ArgumentNames::Flags));
    assert!(flags.to_string().starts_with("--policy: policy: unknown policy 'lottery'"), "{flags}");
    let words = problem.clone().sourced(PolicyNames::Argument(ArgumentNames::Words));
    assert_eq!(words.source, "policy");
    assert_eq!(problem.sourced(PolicyNames::AsTyped).source, "lottery");
    // An unknown option is found when the spec is parsed, before any scenario exists.
    let Err(Problem::Policy { text, error }) = PolicyChoice::parse("dally:speed=9") else { panic!() };
    assert_eq!((text.as_str(), error.field.as_str()), ("dally:speed=9", "speed"));
}

#[test]
fn a_policy_the_cluster_cannot_take_is_refused_before_any_run() {
    let policies = parse_policies(&["fifo", "kueue-tas:required=nowhere"]).unwrap();
    let problem = Session::new(scenario(), policies).unwrap_err();
    let Problem::Policy { text, error } = &problem else { panic!("{problem:?}") };
    assert_eq!(text, "kueue-tas:required=nowhere");
    assert_eq!(error, &resolve_policy(text).unwrap().check_cluster(&scenario().topology).unwrap_err());
    // A scenario's problems pass through as they were named.
    let input = crate::error::SourcedError::new("jobs.csv", InputError::at_line(2, "model", "unknown model"));
    assert_eq!(Problem::from(input.clone()).sourced(PolicyNames::AsTyped), input);
}

/// Hosts run a session's policies on threads (the core starts none): a session must be
/// shared between them, which the compiler checks here.
#[test]
fn a_session_can_be_shared_between_threads() {
    fn shared<T: Sync + Send>(_: &T) {}
    let session = Session::new(scenario(), parse_policies(&["fifo", "dally"]).unwrap()).unwrap();
    shared(&session);
    assert_eq!(session.policies().len(), 2);
}
