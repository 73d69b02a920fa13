//! "Your cluster": an operator's own nodes file and job history, each summarised as soon
//! as it is read, and a what-if on them: the scheduler they run (Kueue's topology-aware
//! scheduling, Volcano's or Slurm's) against its variants and Dally, over a few seeds, run
//! in the worker and exported as a self-contained report.
//!
//! A feature of its own: the pure model here ([`YourCluster`], its [`Action`]s and the
//! summaries in [`summary`]) and the component in [`view`], which keeps its own state and
//! its own worker, so nothing of the scenario form's state changes.

pub mod summary;
#[cfg(test)]
mod tests;
pub mod view;

pub use summary::{read_cluster, ClusterFormat, ClusterSummary};

use crate::protocol::{ClusterReport, ClusterWhatIf, FileData, HistorySummary, Problem};
use crate::Shared;
use proxima_core::error::SourcedError;

/// The most seeds a what-if takes: each seed runs every policy once more.
pub const MAX_SEEDS: u32 = 10;

/// The scheduler an operator runs, whose configuration the what-if starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheduler {
    KueueTas,
    Volcano,
    Slurm,
}

impl Scheduler {
    pub const ALL: [Scheduler; 3] = [Scheduler::KueueTas, Scheduler::Volcano, Scheduler::Slurm];

    /// The policy's name in Proxima (`proxima policies`).
    pub fn spec(self) -> &'static str {
        match self {
            Scheduler::KueueTas => "kueue-tas",
            Scheduler::Volcano => "volcano",
            Scheduler::Slurm => "slurm",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Scheduler::KueueTas => "Kueue topology-aware scheduling",
            Scheduler::Volcano => "Volcano network-topology-aware scheduling",
            Scheduler::Slurm => "Slurm --switches",
        }
    }

    pub fn from_spec(spec: &str) -> Option<Scheduler> {
        Scheduler::ALL.into_iter().find(|s| s.spec() == spec)
    }

    /// The scheduler a cluster file's format suggests: a Kueue file's cluster runs Kueue,
    /// a HyperNode file's Volcano; Slurm otherwise (topology.conf, and the formats no
    /// scheduler writes).
    pub fn guess(format: ClusterFormat) -> Scheduler {
        match format {
            ClusterFormat::Kueue => Scheduler::KueueTas,
            ClusterFormat::Volcano => Scheduler::Volcano,
            _ => Scheduler::Slurm,
        }
    }
}

/// Where the what-if is.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum WhatIfState {
    #[default]
    NotRun,
    /// Posted to the worker as request `id`; `done` of `total` runs finished.
    Running {
        id: u32,
        done: u32,
        total: u32,
    },
    Done(Shared<ClusterReport>),
    Failed(Problem),
}

/// A job history: the file as chosen (only the worker reads it) and what the worker said.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryFile {
    pub name: String,
    /// `None` for a file refused before reading (too large).
    pub data: Option<FileData>,
    /// The id of the request describing it, which its answer carries.
    pub id: u32,
    pub described: Described,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Described {
    Reading,
    Read(HistorySummary),
    Refused(Problem),
}

/// The section's state: the two files as read (or why not), the scheduler and the seeds,
/// and the what-if.
#[derive(Clone, Debug, PartialEq)]
pub struct YourCluster {
    pub cluster: Option<Result<ClusterSummary, SourcedError>>,
    pub history: Option<HistoryFile>,
    /// The scheduler chosen; `None` until the user chooses, when the cluster file's
    /// format decides ([`YourCluster::scheduler`]).
    pub chosen: Option<Scheduler>,
    /// The scheduler's options as the operator configured it (`required=rack`), empty for
    /// its defaults.
    pub options: String,
    /// The seeds field as typed: how many seeds (1, 2, ... N) to run each policy with.
    pub seeds: String,
    pub what_if: WhatIfState,
    next_id: u32,
}

impl Default for YourCluster {
    fn default() -> Self {
        YourCluster {
            cluster: None,
            history: None,
            chosen: None,
            options: String::new(),
            seeds: "3".into(),
            what_if: WhatIfState::NotRun,
            next_id: 1,
        }
    }
}

/// What changes the section's state.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A nodes file read (boxed: a cluster's summary is much larger than the other actions).
    ClusterRead(Box<Result<ClusterSummary, SourcedError>>),
    /// A history was chosen and posted to the worker as request `id`.
    HistoryChosen {
        id: u32,
        name: String,
        data: FileData,
    },
    /// The worker's answer to request `id`.
    HistoryDescribed {
        id: u32,
        result: Result<HistorySummary, Problem>,
    },
    /// A file that could not be read at all (too large, unreadable): which drop zone.
    FileRefused {
        history: bool,
        error: SourcedError,
    },
    ChooseScheduler(Scheduler),
    SetOptions(String),
    SetSeeds(String),
    /// The request was posted.
    Started(u32),
    Progress {
        id: u32,
        done: u32,
        total: u32,
    },
    Finished {
        id: u32,
        result: Result<ClusterReport, Problem>,
    },
    /// The worker died mid-run (it is replaced).
    Crashed(String),
}

impl YourCluster {
    /// The scheduler the what-if starts from: the one chosen, else the cluster file's.
    pub fn scheduler(&self) -> Scheduler {
        let format = self.cluster.as_ref().and_then(|c| c.as_ref().ok()).map(|c| c.format);
        self.chosen.unwrap_or_else(|| Scheduler::guess(format.unwrap_or(ClusterFormat::Slurm)))
    }

    /// The scheduler's policy spec: its name, with the options given.
    pub fn scheduler_spec(&self) -> String {
        let name = self.scheduler().spec();
        match self.options.trim() {
            "" => name.to_string(),
            options => format!("{name}:{options}"),
        }
    }

    /// How many seeds the field asks for, or why it cannot be used.
    pub fn seed_count(&self) -> Result<u64, String> {
        match self.seeds.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_SEEDS).contains(&n) => Ok(u64::from(n)),
            _ => Err(format!("seeds: expected a whole number from 1 to {MAX_SEEDS}, got '{}'", self.seeds.trim())),
        }
    }

    /// Why the what-if cannot run now, in the order a user fixes things; empty when it can.
    pub fn blocked(&self) -> Vec<String> {
        let mut reasons = Vec::new();
        match &self.cluster {
            None => reasons.push("choose a nodes file".to_string()),
            Some(Err(e)) => reasons.push(format!("the nodes file {} could not be read", e.source)),
            Some(Ok(_)) => {}
        }
        match self.history.as_ref().map(|h| (&h.name, &h.described)) {
            None => reasons.push("choose a job history".to_string()),
            Some((name, Described::Reading)) => reasons.push(format!("the job history {name} is being read")),
            Some((name, Described::Refused(_))) => reasons.push(format!("the job history {name} could not be read")),
            Some((_, Described::Read(_))) => {}
        }
        if let (Some(Ok(c)), Some(h)) = (&self.cluster, self.history_summary()) {
            if h.gpus_per_job.1 > c.gpus {
                reasons.push(format!(
                    "the history has a job of {} GPUs, more than the cluster's {}",
                    h.gpus_per_job.1, c.gpus
                ));
            }
        }
        if let Err(e) = self.seed_count() {
            reasons.push(e);
        }
        if matches!(self.what_if, WhatIfState::Running { .. }) {
            reasons.push("the what-if is running".to_string());
        }
        reasons
    }

    /// The history's summary, once the worker has read it.
    pub fn history_summary(&self) -> Option<&HistorySummary> {
        match &self.history.as_ref()?.described {
            Described::Read(summary) => Some(summary),
            _ => None,
        }
    }

    /// The id the next request to the worker carries.
    pub fn next_id(&self) -> u32 {
        self.next_id
    }

    /// The request to post, with the id the answers will carry; `None` when blocked.
    pub fn request(&self) -> Option<ClusterWhatIf> {
        if !self.blocked().is_empty() {
            return None;
        }
        let (Some(Ok(cluster)), Some(history)) = (&self.cluster, &self.history) else { return None };
        Some(ClusterWhatIf {
            id: self.next_id,
            topology: cluster.input.clone(),
            history_name: history.name.clone(),
            history: history.data.clone()?,
            scheduler: self.scheduler_spec(),
            seeds: self.seed_count().ok()?,
        })
    }

    pub fn apply(mut self, action: Action) -> YourCluster {
        // Any change of input makes a report on the old inputs misleading.
        let stale = matches!(
            action,
            Action::ClusterRead(_)
                | Action::HistoryChosen { .. }
                | Action::FileRefused { .. }
                | Action::ChooseScheduler(_)
                | Action::SetOptions(_)
                | Action::SetSeeds(_)
        );
        if stale && !matches!(self.what_if, WhatIfState::Running { .. }) {
            self.what_if = WhatIfState::NotRun;
        }
        match action {
            Action::ClusterRead(result) => self.cluster = Some(*result),
            Action::HistoryChosen { id, name, data } => {
                self.history = Some(HistoryFile { name, data: Some(data), id, described: Described::Reading });
                self.next_id = id + 1;
            }
            Action::HistoryDescribed { id, result } => {
                if let Some(h) = self.history.as_mut().filter(|h| h.id == id) {
                    h.described = match result {
                        Ok(summary) => Described::Read(summary),
                        Err(problem) => Described::Refused(problem),
                    };
                }
            }
            Action::FileRefused { history: true, error } => {
                let (name, described) = (error.source.clone(), Described::Refused(error.into()));
                self.history = Some(HistoryFile { name, data: None, id: 0, described });
            }
            Action::FileRefused { history: false, error } => self.cluster = Some(Err(error)),
            Action::ChooseScheduler(s) => self.chosen = Some(s),
            Action::SetOptions(text) => self.options = text,
            Action::SetSeeds(text) => self.seeds = text,
            Action::Started(id) => {
                self.what_if = WhatIfState::Running { id, done: 0, total: 0 };
                self.next_id = id + 1;
            }
            Action::Progress { id, done, total } => {
                if matches!(self.what_if, WhatIfState::Running { id: running, .. } if running == id) {
                    self.what_if = WhatIfState::Running { id, done, total };
                }
            }
            Action::Finished { id, result } => {
                if matches!(self.what_if, WhatIfState::Running { id: running, .. } if running == id) {
                    self.what_if = match result {
                        Ok(report) => WhatIfState::Done(Shared::new(report)),
                        Err(problem) => WhatIfState::Failed(problem),
                    };
                }
            }
            Action::Crashed(message) => {
                if matches!(self.what_if, WhatIfState::Running { .. }) {
                    self.what_if = WhatIfState::Failed(Problem::Message(format!("the worker stopped: {message}")));
                }
            }
        }
        self
    }
}
