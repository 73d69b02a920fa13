use super::isolated::{finish_time_fairness, IsolatedPlan, IsolatedRun, IsolatedRunner, OneAfterAnother};
use crate::engine::Simulation;
use crate::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
use crate::policy::{resolve_policy, PolicySpec, POLICIES, RECOMMENDED};
use crate::Scenario;
use std::cell::Cell;

fn scenario() -> Scenario {
    let mut input = ScenarioInput::new(
        TopologyInput::Argument("racks=2,servers=2,gpus=4".into()),
        TraceInput::Synthetic("synthetic:jobs=40,load=1.5,tenants=3".into()),
        5,
    );
    input.tenants = Some("demand".into());
    build_scenario(&input).unwrap()
}

/// ρ's isolated runs take the policy as parsed for the shared run; they used to parse the
/// text the policy gives of itself (`Policy::spec`, every option spelled out). Both give
/// the same ρ, bit for bit, for every policy and every recommended spec.
#[test]
fn the_spec_as_parsed_gives_the_rho_of_the_policys_own_text() {
    let texts = POLICIES.iter().map(|p| p.name).chain(RECOMMENDED.iter().map(|r| r.spec));
    let shared = scenario();
    let mut compared = 0;
    for text in texts {
        let policy = resolve_policy(text).unwrap();
        if policy.check_cluster(&shared.topology).is_err() {
            continue;
        }
        let canonical = PolicySpec::parse(&policy.spec()).unwrap();
        let mut sim = Simulation::new(shared.clone(), policy);
        sim.run();
        let typed = finish_time_fairness(&shared, &PolicySpec::parse(text).unwrap(), sim.runs(), &OneAfterAnother);
        let by_text = finish_time_fairness(&shared, &canonical, sim.runs(), &OneAfterAnother);
        let (typed, by_text) = (typed.unwrap(), by_text.unwrap());
        assert_eq!(typed, by_text, "{text}");
        assert!(typed.isolated_jct.iter().any(Option::is_some), "{text}");
        compared += 1;
    }
    assert!(compared >= POLICIES.len(), "{compared} compared");
}

/// A runner that runs the plans in reverse: the result does not depend on the order.
struct Reversed(Cell<usize>);

impl IsolatedRunner for Reversed {
    fn run_all(
        &self,
        plans: Vec<IsolatedPlan>,
        run: &(dyn Fn(IsolatedPlan) -> IsolatedRun + Sync),
    ) -> Vec<IsolatedRun> {
        self.0.set(self.0.get() + plans.len());
        plans.into_iter().rev().map(run).collect()
    }
}

#[test]
fn any_runner_gives_the_same_fairness() {
    let shared = scenario();
    let spec = PolicySpec::parse("dally").unwrap();
    let mut sim = Simulation::new(shared.clone(), resolve_policy("dally").unwrap());
    sim.run();
    let reversed = Reversed(Cell::new(0));
    let expected = finish_time_fairness(&shared, &spec, sim.runs(), &OneAfterAnother).unwrap();
    assert_eq!(finish_time_fairness(&shared, &spec, sim.runs(), &reversed).unwrap(), expected);
    assert_eq!(reversed.0.get(), 3, "one plan a tenant");
}

/// A share inside one rack has no `rack` level: a policy that requires a rack is refused
/// there with an error naming the tenant, not stopped in the middle of its run.
#[test]
fn a_policy_a_share_cannot_take_is_an_error_not_a_stop() {
    let shared = scenario();
    let spec = PolicySpec::parse("kueue-tas:required=rack").unwrap();
    let policy = resolve_policy("kueue-tas:required=rack").unwrap();
    policy.check_cluster(&shared.topology).expect("the whole cluster has racks");
    let mut sim = Simulation::new(shared.clone(), policy);
    sim.run();
    let error = finish_time_fairness(&shared, &spec, sim.runs(), &OneAfterAnother).unwrap_err();
    assert_eq!(error.field, "rho");
    assert!(error.message.starts_with("tenant t"), "{error}");
    assert!(error.message.contains("unknown topology level 'rack'"), "{error}");
}
