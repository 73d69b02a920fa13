//! The messages between the page and the simulation worker.
//!
//! Both sides are this crate, so the messages are plain serde types sent as JSON text with
//! `postMessage`. JSON rather than a binary codec because serde_json is already in the
//! build (the core uses it), the messages are few (a request, a progress note every few
//! dozen milliseconds, one result per policy), and the big parts of a result are the CLI's
//! own files, which are text anyway.

use proxima_core::topology::TopologySpec;
use serde::{Deserialize, Serialize};

/// What the page asks the worker to do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// Build the scenario and run each policy on it, one after another.
    Run(RunRequest),
    /// Panic on purpose: lets the tests check that a crash in the worker reaches the page
    /// as a message and that the page recovers.
    Crash,
}

/// One run: everything `proxima compare` takes on its command line, with the trace's text
/// instead of its path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    /// Answers carry it, so that the page can ignore anything from a run it gave up on.
    pub run_id: u32,
    pub topology: TopologyInput,
    pub trace: TraceInput,
    pub seed: u64,
    /// The model mix `name[:weight],...`; `None` for the default.
    pub mix: Option<String>,
    pub policies: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TopologyInput {
    /// A preset name or a parametric spec, as `--topology` takes them.
    Arg(String),
    /// A full description (imported from a JSON file).
    Spec(TopologySpec),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TraceInput {
    /// `synthetic:jobs=N,load=L,seed=S`; the label in the results is exactly this text.
    Synthetic(String),
    /// The text of a trace file and its name (the label in the results, and the source
    /// named in errors).
    File { name: String, text: String },
}

/// What the worker tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker has loaded and listens.
    Ready,
    /// Policy `policy` (an index into the request's list) has finished `done` of `total`
    /// jobs.
    Progress { run_id: u32, policy: u32, done: u32, total: u32 },
    /// One policy's results.
    PolicyDone { run_id: u32, policy: u32, result: Box<PolicyResult> },
    /// Every policy ran. `compare_json` is the CLI's `compare.json` for them all.
    Finished { run_id: u32, compare_json: String },
    /// The inputs were refused (a trace row, the topology, a policy): the message names
    /// the source, line and field, as the CLI does.
    Failed { run_id: u32, message: String },
    /// The worker panicked; it is unusable now and the page replaces it.
    Panicked { message: String },
}

/// What the page shows and exports for one policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyResult {
    /// The spec as the user gave it, e.g. `dally:preempt=off`.
    pub policy: String,
    /// The CLI's files for this run, byte for byte.
    pub summary_json: String,
    pub jobs_csv: String,
    pub timeseries_csv: String,
    /// Points of the JCT distribution: (JCT in seconds, fraction of completed jobs at or
    /// below it), at most [`CDF_POINTS`] of them.
    pub jct_cdf: Vec<(f64, f64)>,
    /// The cluster over time: (bucket start s, bucket end s, GPU utilisation 0..1, mean
    /// queued jobs), [`TIMELINE_BUCKETS`] buckets over the makespan.
    pub timeline: Vec<(f64, f64, f64, f64)>,
    /// Completed jobs by the tier of their last placement, tightest first.
    pub jobs_per_tier: Vec<(String, u64)>,
    /// Wall-clock milliseconds the simulation took in the worker.
    pub elapsed_ms: f64,
    /// The core's `EventHasher` over every event of the run (16 hex digits), as
    /// `proxima run --events` prints it: equal hashes mean equal event streams.
    pub event_hash: String,
    /// Events in the run, all kinds.
    pub event_count: u64,
    /// The events playback needs, encoded by [`crate::eventlog`], as base64.
    pub playback: String,
}

/// The most points of a JCT CDF sent to the page: more than a chart can show apart.
pub const CDF_POINTS: usize = 200;

/// Buckets of the charts' time series; `timeseries.csv` keeps the CLI's 500.
pub const TIMELINE_BUCKETS: u32 = 200;
