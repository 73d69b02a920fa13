//! The one path every front end takes from what a person asked for to its runs: the policy
//! specs parsed once, at the edge, into typed [`PolicySpec`]s ([`parse_policies`]), every
//! one built once to check its options before anything else is done; the scenario built
//! once; every policy checked against the scenario's cluster once ([`Session::new`]); then
//! each run ([`Session::run`]), one after another or, natively, on threads (a session is
//! `Sync`, and its runs are independent). Whatever stops it is one [`Problem`], rendered by
//! the front end ([`Problem::sourced`]).
//!
//! The CLI's `run` and `compare`, the page's worker and the Python package's `run` and
//! `compare` all take this path, so that they refuse the same inputs in the same order and
//! write the same bytes for the same runs (`crates/proxima-cli/tests/integration/front_ends.rs`).

mod problem;

pub use problem::{PolicyNames, Problem};

use crate::cluster::JobId;
use crate::engine::Simulation;
use crate::policy::replay::ForbidPreemption;
use crate::policy::{build_policy, Policy, PolicySpec};
use crate::run::{run_simulation, Finished, RhoFailed, RunOptions};
use crate::scenario::Scenario;
use crate::time::SimTime;
use std::convert::Infallible;

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
    /// ([`run_simulation`]): nothing but ρ can fail, since the policy was checked.
    pub fn run<E>(&self, index: usize, options: RunOptions<'_, E>) -> Result<Finished, RhoFailed<E>> {
        run_simulation(self.simulation(index), options)
    }

    /// Policy `index` run as itself, except that at `at` it may not preempt `job`
    /// ([`ForbidPreemption`]): "had job 4 not been preempted". Its decisions before `at` are
    /// the original run's, since the policy is deterministic.
    pub fn without_preemption(&self, index: usize, job: JobId, at: SimTime) -> WithoutPreemption {
        let (policy, refused) = ForbidPreemption::new(self.policies[index].build(), job, at);
        let simulation = Simulation::new(self.scenario.clone(), Box::new(policy));
        // Without ρ nothing can fail once the policy is checked.
        let finished = match run_simulation::<Infallible>(simulation, RunOptions::default()) {
            Ok(finished) => finished,
            Err(RhoFailed { problem, .. }) => match problem {},
        };
        let refused = *refused.borrow();
        WithoutPreemption { simulation: finished.simulation, refused }
    }

    /// The simulation of policy `index` on the scenario itself, for the last run of a
    /// session (a million-job trace is not held twice).
    pub fn into_simulation(self, index: usize) -> Simulation {
        let policy = self.policies[index].build();
        Simulation::new(self.scenario, policy)
    }
}

#[cfg(test)]
mod tests;
