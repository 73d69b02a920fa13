//! The one path every front end takes from what a person asked for to its runs: the policy
//! specs parsed once, at the edge, into typed [`PolicySpec`]s ([`parse_policies`]), every
//! one built once to check its options before anything else is done; the scenario built
//! once; every policy checked against the scenario's cluster once ([`Session::new`]); then
//! each run ([`Session::run`]), one after another or, natively, on threads (a session is
//! `Sync`, and its runs are independent). Whatever stops it is one [`Problem`], rendered by
//! the front end ([`Problem::sourced`]).
//!
//! Every front end takes this path: the CLI (`run`, `compare`, `bench`, `what-if`), the
//! page's worker, the Python package, the host's sweeps and the lab's experiments and
//! operator what-if; finish-time fairness's isolated runs are made inside a session's run
//! from the policy as parsed, and the page's challenge replays through [`replay`]. So the
//! front ends refuse the same inputs in the same order and write the same bytes for the
//! same runs (`crates/proxima-cli/tests/integration/front_ends.rs`).

mod problem;
mod replay;

pub use problem::{PolicyNames, Problem};
pub use replay::{replay, slowdown_now, Replayed, Stop};

use crate::cluster::JobId;
use crate::engine::Simulation;
use crate::policy::replay::ForbidPreemption;
use crate::policy::{build_policy, Policy, PolicySpec};
use crate::run::{run_simulation, Finished, RhoFailed, RunOptions};
use crate::scenario::Scenario;
use crate::time::SimTime;

/// A policy as a person typed it and as parsed: the text names the run (its result folder,
/// its progress bar, its problems), the spec builds its policy.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyChoice {
    text: String,
    spec: PolicySpec,
}

impl PolicyChoice {
    /// Parses `text` and builds its policy once, so that an unknown name or option is a
    /// problem now, before any scenario is built.
    pub fn parse(text: &str) -> Result<PolicyChoice, Problem> {
        let problem = |error| Problem::Policy { text: text.to_string(), error };
        let spec = PolicySpec::parse(text).map_err(problem)?;
        build_policy(spec.clone()).map_err(problem)?;
        Ok(PolicyChoice { text: text.to_string(), spec })
    }

    /// The spec as typed.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    /// A fresh policy of this spec, for one run.
    pub fn build(&self) -> Box<dyn Policy> {
        build_policy(self.spec.clone()).expect("built once when parsed: the same spec builds again")
    }
}

/// Every spec parsed and built, in order; the first that fails is the problem.
pub fn parse_policies<S: AsRef<str>>(texts: &[S]) -> Result<Vec<PolicyChoice>, Problem> {
    texts.iter().map(|t| PolicyChoice::parse(t.as_ref())).collect()
}

/// A policy's run re-made with one preemption forbidden ([`Session::without_preemption`]).
pub struct WithoutPreemption {
    pub simulation: Simulation,
    /// Whether the policy did try to preempt the job at that instant (and was refused): if
    /// not, the run is the original one.
    pub refused: bool,
}

/// A scenario and the policies to run on it, every one checked against its cluster.
#[derive(Clone, Debug)]
pub struct Session {
    scenario: Scenario,
    policies: Vec<PolicyChoice>,
}

impl Session {
    /// Checks every policy against the scenario's cluster (an option naming a `kueue-tas`
    /// level or a `volcano` tier the cluster lacks), so that no run stops in the middle.
    pub fn new(scenario: Scenario, policies: Vec<PolicyChoice>) -> Result<Session, Problem> {
        for p in &policies {
            p.build()
                .check_cluster(&scenario.topology)
                .map_err(|error| Problem::Policy { text: p.text.clone(), error })?;
        }
        Ok(Session { scenario, policies })
    }

    /// A session of one policy, from its spec as typed.
    pub fn of_one(scenario: Scenario, policy: &str) -> Result<Session, Problem> {
        Session::new(scenario, vec![PolicyChoice::parse(policy)?])
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn policies(&self) -> &[PolicyChoice] {
        &self.policies
    }

    /// The simulation of policy `index` on a copy of the scenario, not yet started.
    pub fn simulation(&self, index: usize) -> Simulation {
        Simulation::new(self.scenario.clone(), self.policies[index].build())
    }

    /// Runs policy `index` to its end, with its record and ρ as `options` ask
    /// ([`run_simulation`]): nothing but ρ can fail, since the policy was checked. ρ's
    /// isolated runs take the policy's spec as parsed.
    pub fn run(&self, index: usize, options: RunOptions<'_>) -> Result<Finished, RhoFailed> {
        run_simulation(self.simulation(index), self.policies[index].spec(), options)
    }

    /// [`Session::run`] on the scenario itself, for the last run of a session (a
    /// million-job trace is not held twice).
    pub fn into_run(self, index: usize, options: RunOptions<'_>) -> Result<Finished, RhoFailed> {
        let Session { scenario, mut policies } = self;
        let choice = policies.swap_remove(index);
        run_simulation(Simulation::new(scenario, choice.build()), choice.spec(), options)
    }

    /// Policy `index` run as itself, except that at `at` it may not preempt `job`
    /// ([`ForbidPreemption`]): "had job 4 not been preempted". Its decisions before `at` are
    /// the original run's, since the policy is deterministic.
    pub fn without_preemption(&self, index: usize, job: JobId, at: SimTime) -> WithoutPreemption {
        let (policy, refused) = ForbidPreemption::new(self.policies[index].build(), job, at);
        let simulation = Simulation::new(self.scenario.clone(), Box::new(policy));
        let spec = self.policies[index].spec();
        let finished =
            run_simulation(simulation, spec, RunOptions::default()).expect("without ρ nothing fails once checked");
        let refused = *refused.borrow();
        WithoutPreemption { simulation: finished.simulation, refused }
    }
}

#[cfg(test)]
mod run_tests;
#[cfg(test)]
mod tests;
