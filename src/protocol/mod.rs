//! What crosses between the page and its workers, typed.
//!
//! Both sides are this crate, so the messages are plain serde types. They cross as
//! JavaScript values (serde-wasm-bindgen), not text: numbers keep every bit (a `Summary`
//! read back is the `Summary` the worker computed, so `summary.json` written from it on
//! the page is the CLI's byte for byte), and nothing is parsed. Byte buffers ([`Bytes`]:
//! the playback log, the packed per-job rows, a trace's bytes) become `Uint8Array`s whose
//! memory is transferred with the message rather than copied ([`encode`]); a file the user
//! chose crosses as the browser's own `Blob` ([`FileData`]).

mod cluster;
mod job_rows;
mod wire;

pub use cluster::{ClusterReport, ClusterWhatIf, HistorySummary, LeftOut, ReportRow};
pub use job_rows::JobRows;
pub use wire::{decode, encode, Bytes, FileData};

use proxima_core::error::SourcedError;
use proxima_core::inputs::TopologyInput;
use proxima_core::metrics::{Bucket, Summary};
use proxima_core::run_files::{RunFiles, RunRecord};
use serde::{Deserialize, Serialize};

/// What the page asks a worker to do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// Build the scenario and run each policy on it, one after another.
    Run(RunRequest),
    /// Describe the trace the synthetic generator makes for a cluster of `gpus` GPUs.
    PreviewSynthetic { id: u32, spec: String, gpus: u32 },
    /// Check a trace file as a run would read it, against this cluster, and describe it.
    CheckTrace { id: u32, topology: TopologyInput, name: String, data: FileData },
    /// Re-run the request's one policy with one preemption forbidden: "had job `job` not
    /// been preempted at `at_us`" (`proxima_core::session::Session::without_preemption`).
    WithoutPreemption(WithoutPreemption),
    /// Run the what-if of "your cluster": the operator's scheduler, its variants and
    /// Proxima's policies on their cluster and history, over seeds.
    ClusterWhatIf(ClusterWhatIf),
    /// Read a job history (any trace format) and summarise it, for "your cluster".
    DescribeHistory { id: u32, name: String, data: FileData },
    /// Panic on purpose: lets the tests check that a crash in the worker reaches the page
    /// as a message and that the page recovers.
    Crash,
}

/// One run: everything `proxima compare` takes on its command line, with the trace file
/// itself instead of its path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    /// Answers carry it, so that the page can ignore anything from a run it gave up on.
    pub run_id: u32,
    pub topology: TopologyInput,
    pub trace: TraceSource,
    pub seed: u64,
    /// The model mix `name[:weight],...`; `None` for the default.
    pub mix: Option<String>,
    pub policies: Vec<String>,
}

/// A what-if on a preemption: the run it was in (its request, with that one policy) and
/// the preemption.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WithoutPreemption {
    /// Answers carry it, so that an answer to a what-if given up on is ignored.
    pub id: u32,
    pub request: RunRequest,
    pub job: u32,
    /// The preemption's instant, in microseconds (the core's `SimTime`).
    pub at_us: u64,
    /// The job the preemption made room for, when the policy said.
    pub for_job: Option<u32>,
    /// The preemption's rank among the policy's preemptions in the run (0 for the first):
    /// on the other seeds' traces the what-if forbids the preemption of that rank.
    pub rank: u32,
    /// Seeds to repeat the what-if over, the run's own first (1 for a trace file, whose
    /// jobs no seed changes).
    pub seeds: u32,
}

/// One job's own JCT with the preemption (the run as it was) and without it, in seconds;
/// `None` for a job that did not finish.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobJcts {
    pub job: u32,
    pub with_s: Option<f64>,
    pub without_s: Option<f64>,
}

/// The what-if on one seed: the policy's run on that seed's trace, and its re-run without
/// its preemption of the asked one's rank.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeedWhatIf {
    pub seed: u64,
    /// Mean JCT of the run as it was and of the re-run, in seconds.
    pub original_s: f64,
    pub rerun_s: f64,
}

/// The what-if repeated over seeds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeedsOutcome {
    /// The seeds where the policy made a preemption of that rank, the run's own first.
    pub seeds: Vec<SeedWhatIf>,
    /// The seeds where it made fewer preemptions, so that there was none to forbid.
    pub without_one: Vec<u64>,
}

/// The re-run's outcome, beside which the page shows the original's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhatIfOutcome {
    /// Whether the policy did try to preempt the job then (and was refused): if not, the
    /// re-run is the original run.
    pub refused: bool,
    /// The re-run's mean JCT, as `summary.json`'s `avg_jct_s`.
    pub avg_jct_s: f64,
    pub jobs_completed: u32,
    /// How often the job was preempted in the re-run anyway (at a later decision of the
    /// policy's own), and the run's preemptions in all.
    pub job_preemptions: u32,
    pub preemptions: u64,
    /// The two jobs' own JCTs: the preempted job's, then (when the policy said) that of
    /// the job it made room for.
    pub jobs: Vec<JobJcts>,
}

/// Where a run's jobs come from: the core's `TraceInput`, with a file not read yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TraceSource {
    /// `synthetic:jobs=N,load=L,seed=S`; the label in the results is exactly this text.
    Synthetic(String),
    /// A trace file and its name (the label in the results, and the source named in
    /// errors).
    File { name: String, data: FileData },
}

/// A problem the page shows: an input's, with where it is as data (the file or argument,
/// the line and the field, which the CLI prints as `FILE:LINE: field: what` and Python's
/// `InputError` carries as attributes), or a message about something else.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Problem {
    Input(SourcedError),
    Message(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Input(e) => e.fmt(f),
            Problem::Message(m) => f.write_str(m),
        }
    }
}

impl From<SourcedError> for Problem {
    fn from(e: SourcedError) -> Problem {
        Problem::Input(e)
    }
}

impl From<String> for Problem {
    fn from(m: String) -> Problem {
        Problem::Message(m)
    }
}

impl From<&str> for Problem {
    fn from(m: &str) -> Problem {
        Problem::Message(m.to_string())
    }
}

/// Where `dally`'s gain over `consolidate` comes from: the mean JCTs (`avg_jct_s`) of
/// both, and of `dally` without waiting (`dally:delay=off`) and without network-sensitive
/// preemption (`dally:preempt=off`), run on the same scenario after the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GainSource {
    pub dally_s: f64,
    pub consolidate_s: f64,
    pub without_waiting_s: f64,
    pub without_preemption_s: f64,
    /// Milliseconds the two extra runs took in the worker.
    pub elapsed_ms: f64,
}

/// What a worker tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker has loaded and listens.
    Ready,
    /// Policy `policy` (an index into the request's list) has finished `done` of `total`
    /// jobs.
    Progress { run_id: u32, policy: u32, done: u32, total: u32 },
    /// The run's notes, before any policy's results: trace rows left out, models whose
    /// compute time is estimated, submit times far beyond the rest (`worker::run_notes`).
    RunNotes { run_id: u32, notes: Vec<String> },
    /// One policy's results.
    PolicyDone { run_id: u32, policy: u32, result: Box<PolicyResult> },
    /// Every policy ran.
    Finished { run_id: u32 },
    /// After [`FromWorker::Finished`], for a run of `dally` and `consolidate`: `dally`
    /// without each of its mechanisms, to say where its gain comes from.
    GainSource { run_id: u32, result: Result<GainSource, Problem> },
    /// The inputs were refused (a trace row, the topology, a policy): the problem names
    /// the source, line and field, as the CLI does.
    Failed { run_id: u32, problem: Problem },
    /// The answer to a [`ToWorker::PreviewSynthetic`] or [`ToWorker::CheckTrace`]: the
    /// trace described, or why it cannot run (the CLI's message).
    Checked { id: u32, result: Result<TracePreview, Problem> },
    /// The answer to a [`ToWorker::WithoutPreemption`].
    WhatIf { id: u32, result: Result<WhatIfOutcome, Problem> },
    /// The same what-if repeated over seeds, sent after [`FromWorker::WhatIf`].
    WhatIfSeeds { id: u32, result: Result<SeedsOutcome, Problem> },
    /// The answer to a [`ToWorker::DescribeHistory`].
    HistoryDescribed { id: u32, result: Result<HistorySummary, Problem> },
    /// A [`ToWorker::ClusterWhatIf`] has begun the runs of seed `done + 1` of `total`.
    ClusterProgress { id: u32, done: u32, total: u32 },
    /// The answer to a [`ToWorker::ClusterWhatIf`].
    ClusterReport { id: u32, result: Result<Box<ClusterReport>, Problem> },
    /// The worker panicked; it is unusable now and the page replaces it.
    Panicked { message: String },
}

/// What a trace looks like before it runs: the preview under the trace controls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TracePreview {
    /// The format detected, e.g. `Proxima CSV`.
    pub format: String,
    pub jobs: u32,
    /// Jobs per GPU count, smallest first.
    pub gpu_histogram: Vec<(u32, u32)>,
    /// Seconds from the first submission to the last.
    pub span_s: f64,
    /// Tenants the jobs belong to (1 when the trace names none).
    #[serde(default)]
    pub tenants: u32,
    /// A trace file's short hash ([`crate::worker::trace_hash`]), which share links
    /// carry; `None` for the generator's trace.
    #[serde(default)]
    pub hash: Option<String>,
}

/// What the page shows and exports for one policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyResult {
    /// The spec as the user gave it, e.g. `dally:preempt=off`.
    pub policy: String,
    /// `summary.json`, as data.
    pub summary: Summary,
    /// The rows of `jobs.csv`, packed.
    pub jobs: JobRows,
    /// The buckets of `timeseries.csv`.
    pub timeseries: Vec<Bucket>,
    /// Points of the JCT distribution: (JCT in seconds, fraction of completed jobs at or
    /// below it), at most [`CDF_POINTS`] of them.
    pub jct_cdf: Vec<(f64, f64)>,
    /// The cluster over time for the charts: [`TIMELINE_BUCKETS`] buckets over the makespan.
    pub timeline: Vec<TimelineBucket>,
    /// Completed jobs by the tier of their last placement, tightest first.
    pub jobs_per_tier: Vec<(String, u64)>,
    /// Wall-clock milliseconds the simulation took in the worker.
    pub elapsed_ms: f64,
    /// Wall-clock milliseconds the isolated runs of finish-time fairness took in the worker,
    /// after the simulation; `None` when they were not made (fewer than two tenants).
    #[serde(default)]
    pub fairness_ms: Option<f64>,
    /// The core's `EventHasher` over every event of the run (16 hex digits), as
    /// `proxima run --events` prints it: equal hashes mean equal event streams.
    pub event_hash: String,
    /// Events in the run, all kinds.
    pub event_count: u64,
    /// The events playback needs, encoded by [`crate::eventlog`].
    pub playback: Bytes,
}

impl PolicyResult {
    /// The run as the core takes its files from (unpacking the job rows).
    pub fn record(&self) -> Result<RunRecord, String> {
        Ok(RunRecord { summary: self.summary.clone(), jobs: self.jobs.unpack()?, timeseries: self.timeseries.clone() })
    }

    /// The run's files, made by the core from the record: the CLI's bytes by construction.
    pub fn files(&self) -> Result<RunFiles, String> {
        Ok(self.record()?.files())
    }
}

/// One bucket of the cluster over time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineBucket {
    pub start_s: f64,
    pub end_s: f64,
    /// Share of GPUs busy, 0..1.
    pub gpu_util: f64,
    /// Jobs waiting, time-averaged.
    pub queued: f64,
}

/// The most points of a JCT CDF sent to the page: more than a chart can show apart.
pub const CDF_POINTS: usize = 200;

/// Buckets of the charts' time series; `timeseries.csv` keeps the CLI's 500.
pub const TIMELINE_BUCKETS: u32 = 200;
