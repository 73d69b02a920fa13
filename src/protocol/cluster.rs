//! The "your cluster" what-if's messages: the operator's cluster and history, the
//! scheduler they run and the seeds, and the report the worker made of them (its table
//! for the page, and its Markdown and self-contained HTML for the export, rendered in the
//! worker by the lab, as `proxima what-if` writes them).

use super::FileData;
use proxima_core::inputs::TopologyInput;
use serde::{Deserialize, Serialize};

/// A what-if on the operator's own cluster and history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterWhatIf {
    /// Answers carry it, so that the page can ignore a what-if it gave up on.
    pub id: u32,
    pub topology: TopologyInput,
    pub history_name: String,
    /// The history as chosen: only the worker reads it.
    pub history: FileData,
    /// The scheduler's policy spec as the operator runs it, e.g. `kueue-tas`.
    pub scheduler: String,
    /// Each policy runs with seeds 1 to this.
    pub seeds: u64,
}

impl ClusterWhatIf {
    /// How the report names the cluster: its file's name.
    pub fn topology_label(&self) -> String {
        self.topology.label()
    }
}

/// What the page shows and exports of a what-if.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterReport {
    /// The nodes file's and the history's names, as the report's title gives them.
    pub topology: String,
    pub history: String,
    pub scheduler: String,
    pub seeds: u32,
    /// One row per policy, the configured scheduler first.
    pub rows: Vec<ReportRow>,
    /// Why the ratios are not like for like, when some policy never placed some jobs.
    pub caution: Option<String>,
    pub markdown: String,
    /// Self-contained: its figures and styles inline, no reference to the network.
    pub html: String,
}

/// One policy's line of the report's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportRow {
    pub policy: String,
    /// Mean JCT over the seeds, in seconds.
    pub mean_jct_s: f64,
    /// Its mean JCT over the configured scheduler's, with the interval over seeds; `None`
    /// for the configured scheduler itself (the baseline), and when the baseline's is too
    /// small to divide by (the bounds are then NaN).
    pub ratio: Option<f64>,
    pub ratio_low: f64,
    pub ratio_high: f64,
    /// Mean queueing delay over the seeds, in seconds.
    pub mean_queue_s: f64,
    pub preemptions: f64,
    /// Jobs never placed by the end, mean over the seeds: its mean JCT leaves them out.
    pub unplaced: f64,
}

/// A job history as the worker read it: what the section shows of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistorySummary {
    /// The format detected, e.g. `Slurm sacct history`.
    pub format: String,
    pub jobs: u32,
    pub tenants: u32,
    /// Seconds from the first submission to the last.
    pub span_s: f64,
    /// The fewest and the most GPUs a job asked for.
    pub gpus_per_job: (u32, u32),
    pub left_out: Vec<LeftOut>,
}

/// Rows a history's reader left out, for one reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// E.g. `pending jobs (never started)`.
    pub reason: String,
    pub rows: u32,
    pub first_line: u32,
}
