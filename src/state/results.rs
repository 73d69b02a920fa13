//! A run in progress and the results of the last one.

use crate::protocol::PolicyResult;
use crate::Shared;
use proxima_core::metrics::Summary;
use proxima_core::run_files::compare_json;
use proxima_core::share::SharedScenario;
use proxima_core::topology::Topology;

/// Where a run is.
#[derive(Clone, Debug, PartialEq)]
pub enum RunState {
    Idle,
    Running { run_id: u32, policies: Vec<String>, current: u32, done: u32, total: u32 },
}

/// The results of the last run (complete or not).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub run_id: u32,
    /// The policies asked for, in order.
    pub policies: Vec<String>,
    pub outcomes: Vec<Shared<PolicyResult>>,
    /// Every policy ran.
    pub finished: bool,
    /// The scenario the run used, for exports.
    pub scenario: Option<SharedScenario>,
    /// The cluster the run used, for playback.
    pub topology: Option<Shared<Topology>>,
    pub cancelled: bool,
}

impl Results {
    /// `compare.json` as the CLI writes it (the core's function), once every policy ran.
    pub fn compare_json(&self) -> Option<String> {
        if !self.finished {
            return None;
        }
        let summaries: Vec<Summary> = self.outcomes.iter().map(|o| o.summary.clone()).collect();
        Some(compare_json(&summaries))
    }
}
