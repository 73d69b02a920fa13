//! Finish-time fairness for the CLI: `proxima_host::fairness` (the path the Python
//! package takes too), with its progress shown on a terminal.

use crate::inputs::UsageError;
use proxima_core::engine::Simulation;
use proxima_core::fairness::isolated::FinishTimeFairness;
use std::io::{IsTerminal, Write};

/// The isolated runs of a finished simulation, on every core.
pub fn finish_time_fairness(sim: &Simulation) -> Result<FinishTimeFairness, UsageError> {
    let show = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if show && total > 1 {
            eprint!("\risolated runs for finish-time fairness: {done}/{total} tenants");
            let _ = std::io::stderr().flush();
        }
    };
    let result = proxima_host::fairness::finish_time_fairness(sim, proxima_host::fairness::threads(), &progress);
    if show {
        eprint!("\r{:width$}\r", "", width = 60);
    }
    Ok(result?)
}
