//! What the workers do with each request: build the scenario exactly as the CLI does, run
//! each policy, and turn each run into the CLI's files plus the numbers the page shows
//! ([`run`]); answer the what-if on a preemption ([`what_if`]); describe and check traces
//! ([`check`]); describe a job history ([`history`]) and run the operator's what-if on it
//! ([`cluster`]).
//!
//! No web API here: the worker binary (`src/bin/worker.rs`) passes in a clock and a way to
//! send messages, so the same code runs in the browser tests (and natively) to check that
//! the page computes what the CLI computes.

mod ablation;
mod check;
mod cluster;
mod history;
mod notes;
mod run;
mod what_if;

pub use check::{check_trace, preview_of, preview_synthetic, trace_hash};
pub use cluster::cluster_what_if;
pub use history::{describe_history, history_text};
pub use notes::run_notes;
pub use run::{build_request_scenario, cdf_points, request_session, run_request};
pub use what_if::{answer_what_if, WHAT_IF_SEEDS};

use crate::protocol::{FromWorker, ToWorker};

/// Handles one request, sending its answers through `send`. `now_ms` is a clock in
/// milliseconds (only used to pace progress messages and to time runs).
pub fn handle(request: ToWorker, now_ms: &dyn Fn() -> f64, send: &mut dyn FnMut(FromWorker)) {
    match request {
        ToWorker::Run(request) => run_request(&request, now_ms, send),
        ToWorker::PreviewSynthetic { id, spec, gpus } => {
            send(FromWorker::Checked { id, result: preview_synthetic(&spec, gpus) });
        }
        ToWorker::CheckTrace { id, topology, name, data } => {
            send(FromWorker::Checked { id, result: check_trace(&topology, &name, &data) });
        }
        ToWorker::WithoutPreemption(w) => answer_what_if(&w, send),
        ToWorker::DescribeHistory { id, name, data } => {
            send(FromWorker::HistoryDescribed { id, result: describe_history(&name, &data) });
        }
        ToWorker::ClusterWhatIf(request) => {
            let result = cluster_what_if(&request, send).map(Box::new);
            send(FromWorker::ClusterReport { id: request.id, result });
        }
        ToWorker::Crash => panic!("crash requested by the page (a self-test)"),
    }
}
