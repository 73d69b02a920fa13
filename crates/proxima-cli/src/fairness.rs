//! Finish-time fairness's isolated runs for the CLI: on every core
//! (`proxima_host::fairness::Threads`, the path the Python package takes too), with their
//! progress shown on a terminal. The core's one `finish_time_fairness` runs them through
//! [`Shown`].

use proxima_core::fairness::isolated::{IsolatedPlan, IsolatedRun, IsolatedRunner};
use proxima_host::fairness::{threads, Threads};
use std::io::{IsTerminal, Write};

/// The isolated runs on every core, `done/total` shown on a terminal while they run.
pub struct Shown;

impl IsolatedRunner for Shown {
    fn run_all(
        &self,
        plans: Vec<IsolatedPlan>,
        run: &(dyn Fn(IsolatedPlan) -> IsolatedRun + Sync),
    ) -> Vec<IsolatedRun> {
        let show = std::io::stderr().is_terminal();
        let progress = |done: usize, total: usize| {
            if show && total > 1 {
                eprint!("\risolated runs for finish-time fairness: {done}/{total} tenants");
                let _ = std::io::stderr().flush();
            }
        };
        let results = Threads { count: threads(), progress: &progress }.run_all(plans, run);
        if show {
            eprint!("\r{:width$}\r", "", width = 60);
        }
        results
    }
}
