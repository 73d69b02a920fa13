//! The tour's part of the page's state: its runs (in the simulation worker, under an id of
//! their own so they never mix with the user's results), the facts read from them, and
//! the step shown.

use super::{facts, topology_spec, PolicyFacts, STEPS};
use crate::protocol::{FromWorker, PolicyResult};
use crate::Shared;
use proxima_core::topology::Topology;

#[derive(Clone, Debug, PartialEq)]
pub struct Tour {
    pub run_id: u32,
    pub step: usize,
    pub outcomes: Vec<Shared<PolicyResult>>,
    /// What the runs did, once they all finished.
    pub facts: Option<Shared<Vec<PolicyFacts>>>,
    pub error: Option<String>,
    /// The tour's cluster, for playing its runs back.
    pub topology: Shared<Topology>,
}

/// What happens to the tour.
#[derive(Clone, Debug, PartialEq)]
pub enum TourAction {
    /// The page asked the worker for the tour's runs under this id.
    Started {
        run_id: u32,
    },
    Step(usize),
    Closed,
}

impl Tour {
    pub fn new(run_id: u32) -> Tour {
        let topology = Topology::from_spec(&topology_spec()).expect("the tour's cluster builds");
        Tour { run_id, step: 0, outcomes: Vec::new(), facts: None, error: None, topology: Shared::new(topology) }
    }

    pub fn is_ready(&self) -> bool {
        self.facts.is_some()
    }

    /// Still waiting for its runs.
    pub fn is_running(&self) -> bool {
        self.facts.is_none() && self.error.is_none()
    }

    /// Goes to a step (the last one at most).
    pub fn go_to(&mut self, step: usize) {
        self.step = step.min(STEPS - 1);
    }

    /// Whether a message of the simulation worker is about the tour's runs.
    pub fn concerns(&self, message: &FromWorker) -> bool {
        match message {
            FromWorker::Progress { run_id, .. }
            | FromWorker::RunNotes { run_id, .. }
            | FromWorker::PolicyDone { run_id, .. }
            | FromWorker::Finished { run_id }
            | FromWorker::GainSource { run_id, .. }
            | FromWorker::Failed { run_id, .. } => *run_id == self.run_id,
            FromWorker::Ready
            | FromWorker::Checked { .. }
            | FromWorker::WhatIf { .. }
            | FromWorker::WhatIfSeeds { .. }
            | FromWorker::HistoryDescribed { .. }
            | FromWorker::ClusterProgress { .. }
            | FromWorker::ClusterReport { .. }
            | FromWorker::Panicked { .. } => false,
        }
    }

    /// A message about the tour's runs (see [`Tour::concerns`]).
    pub fn on_message(&mut self, message: FromWorker) {
        match message {
            FromWorker::PolicyDone { result, .. } => self.outcomes.push(Shared::new(*result)),
            FromWorker::Finished { .. } => {
                let results: Vec<&PolicyResult> = self.outcomes.iter().map(|o| &**o).collect();
                match facts(&results) {
                    Ok(f) => self.facts = Some(Shared::new(f)),
                    Err(e) => self.error = Some(format!("The introduction's runs did not come out as expected: {e}")),
                }
            }
            FromWorker::Failed { problem, .. } => {
                self.error = Some(format!("The introduction could not run: {problem}"));
            }
            _ => {}
        }
    }

    /// The worker was stopped or crashed: runs still going are lost.
    pub fn interrupted(&mut self) {
        if self.is_running() {
            self.error =
                Some("The introduction was interrupted (the simulation worker was stopped); start it again.".into());
        }
    }
}
