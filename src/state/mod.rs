//! The page's state and the one reducer that changes it.
//!
//! Everything the page shows is derived from [`State`]; every change is an [`Action`]
//! applied by [`State::apply`], a pure function (no web API, no clock), so tests can drive
//! the page's logic action by action. Effects (the workers, local storage, the URL, files,
//! downloads) live at the edge, in `app.rs`, and report back with actions.
//!
//! The state holds the features' models: the scenario form ([`crate::scenario`]), the
//! results ([`crate::results`]), the what-if ([`crate::what_if`]), the tour
//! ([`crate::tour`]); the features know nothing of it. Here:
//!
//! - this file: the state, the actions, the reducer;
//! - [`scenario`]: the scenario as links, requests, commands and files describe it;
//! - [`link`]: the URL fragment's links (scenarios, lessons), a run asked for by one, and
//!   where its playback opens;
//! - [`what_if`]: a what-if asked, predicted and answered;
//! - [`problems`]: the problems the error banner lists.

pub mod link;
pub mod problems;
pub mod scenario;
mod what_if;

pub use crate::results::{Results, RunState};
pub use crate::scenario::defaults::default_scenario;
pub use crate::scenario::{
    too_large, Cluster, Field, GenField, GeneratorFields, LoadedTrace, ParamField, ParametricFields, TraceForm,
    TraceMode, MAX_APP_JOBS, MAX_TRACE_BYTES,
};
pub use scenario::{startup, startup_from};

use crate::editor::EditAction;
use crate::lessons;
use crate::protocol::{FileData, FromWorker, Problem};
use crate::scenario::fields::{check_mix, check_seed};
use crate::scenario::trace::FileCheck;
use crate::tour::{Tour, TourAction};
use crate::Shared;
use link::{Focus, FromLink, Link, LinkNoticeAction, PendingTrace};
use problems::Problems;
use proxima_core::policy::resolve_policy;
use proxima_core::share::SharedScenario;

/// Everything the page shows.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub cluster: Shared<Cluster>,
    pub trace: TraceForm,
    /// The model mix as typed; empty for the default.
    pub mix: Field<String>,
    pub policies: Field<Vec<String>>,
    pub seed: Field<String>,
    /// Problems to fix, shown in the error banner (file, line and field when they have
    /// them).
    pub errors: Problems,
    /// Things worth knowing that are not errors (a link restored, saved state unreadable).
    pub notices: Vec<String>,
    pub run: RunState,
    pub results: Shared<Results>,
    /// The id of the next request to a worker (runs, the tour's runs, trace checks):
    /// answers carry it, so answers to anything given up on are ignored.
    pub next_id: u32,
    /// The last share link made, shown for copying.
    pub share_link: Option<String>,
    /// The guided introduction, while it is open.
    pub tour: Option<Shared<Tour>>,
    /// A run is asked for (a lesson run, a link with `autoplay`, a link's trace file
    /// opened): the app starts it and says so with [`Action::AutorunTaken`].
    pub autorun: bool,
    /// Where the next run's playback opens (or this run's, once it started).
    pub focus: Option<Focus>,
    /// The trace file the scenario names and the page does not have.
    pub pending_trace: Option<PendingTrace>,
    /// The what-if asked on a preemption of the run played back.
    pub what_if: Option<Shared<crate::what_if::PreemptWhatIf>>,
    /// A scenario a link opened, not run yet: its notice offers to run it.
    pub from_link: Option<FromLink>,
    /// A step of the tour a link asked for: the app starts the tour's runs, which open it.
    pub tour_link: Option<usize>,
}

/// Everything that can happen to the state.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    SelectPreset(String),
    /// An edit in the topology editor.
    Edit(EditAction),
    SetParam(ParamField, String),
    /// The text of a topology JSON file and its name.
    ImportTopology {
        name: String,
        text: String,
    },
    SetGenerator(GenField, String),
    SetTraceMode(TraceMode),
    /// A trace file chosen (picked or dropped) and its name: the checks worker reads and
    /// checks it; until it answers, and after any error, the previous trace stays.
    TraceFileChosen {
        name: String,
        data: FileData,
    },
    /// A trace file refused before reading (too large, unreadable).
    TraceFileRefused {
        message: String,
    },
    SetMix(String),
    TogglePolicy(String),
    AddPolicy(String),
    RemovePolicy(usize),
    SetSeed(String),
    /// The page posted a run request with this id.
    RunStarted {
        run_id: u32,
        scenario: SharedScenario,
    },
    /// A message of the simulation worker or of the checks worker.
    Worker(FromWorker),
    /// The simulation worker died without a message (it failed to load, or trapped).
    WorkerCrashed(String),
    /// The checks worker died while describing a trace (a panic, a failure to load).
    CheckerCrashed(String),
    Cancelled,
    /// Replace the scenario, e.g. from a share link or local storage, with a notice.
    Restore {
        scenario: SharedScenario,
        notice: Option<String>,
    },
    Tour(TourAction),
    /// The share button made this link.
    ShareLinkMade(String),
    /// Load the lesson of this id; run it at once if `run`, its playback opening at `focus`.
    Lesson {
        id: String,
        run: bool,
        focus: Option<Focus>,
    },
    /// A link followed in this tab.
    OpenLink(Link),
    /// The notice of a scenario from a link was used.
    LinkNotice(LinkNoticeAction),
    /// The app took the run asked for in [`State::autorun`].
    AutorunTaken,
    /// A what-if on a preemption of the run played back.
    WhatIf(crate::what_if::WhatIfAct),
    Error(String),
    DismissErrors,
    DismissNotices,
}

impl Default for State {
    fn default() -> Self {
        State::from_scenario(&default_scenario())
    }
}

impl State {
    /// The state for a scenario, with nothing run yet. The scenario must be one that
    /// [`proxima_core::share::decode`] accepts (a checked one); the defaults stand in
    /// for anything that does not build.
    pub fn from_scenario(scenario: &SharedScenario) -> State {
        let mut state = State {
            cluster: Shared::default(),
            trace: TraceForm::default(),
            mix: Field::default(),
            policies: Field::default(),
            seed: Field::new("1".into()),
            errors: Problems::default(),
            notices: Vec::new(),
            run: RunState::Idle,
            results: Shared::default(),
            next_id: 1,
            share_link: None,
            tour: None,
            autorun: false,
            focus: None,
            pending_trace: None,
            what_if: None,
            from_link: None,
            tour_link: None,
        };
        state.restore(scenario);
        // A fresh page has nothing to undo.
        state.cluster.make_mut().editor.make_mut().clear_history();
        state
    }

    /// Applies an action: the reducer.
    pub fn apply(mut self, action: Action) -> State {
        let gpus = self.cluster.gpu_count();
        let gpu_kind = self.cluster.topology.gpu().map(str::to_string);
        // The user changed the cluster (a link or saved scenario restored says its own jobs).
        let cluster_edit = matches!(
            action,
            Action::SelectPreset(_) | Action::Edit(_) | Action::SetParam(..) | Action::ImportTopology { .. }
        );
        match action {
            Action::SelectPreset(name) => {
                let result = self.cluster.make_mut().select_preset(&name);
                if result.is_ok() {
                    self.take_preset_workload(&name);
                }
                self.errors.extend(result.err().map(Problem::from));
            }
            Action::Edit(edit) => self.cluster.make_mut().edit(edit),
            Action::SetParam(field, value) => {
                let result = self.cluster.make_mut().set_param(field, value);
                self.errors.extend(result.err().map(Problem::from));
            }
            Action::ImportTopology { name, text } => match self.cluster.make_mut().import(&name, &text) {
                Ok(()) => self.notices.push(format!("Imported the topology in {name}.")),
                Err(e) => self.errors.push(e.into()),
            },
            Action::SetGenerator(field, value) => {
                *self.trace.generator.value.slot(field) = value;
                self.refresh_synthetic();
            }
            Action::SetTraceMode(mode) => {
                if mode == TraceMode::File && self.trace.uploaded.is_none() && self.trace.file_problem.is_none() {
                    self.errors.push("No trace file loaded yet: choose or drop a CSV or JSON file first.".into());
                } else {
                    self.trace.mode = mode;
                }
            }
            Action::TraceFileChosen { name, data } => {
                // A file chosen is the trace the user means to run: Run waits for it (and
                // stays blocked if it is refused) rather than running another trace.
                self.trace.mode = TraceMode::File;
                if data.size() > MAX_TRACE_BYTES {
                    self.trace.file_problem = Some(too_large(&name, data.size()).into());
                } else {
                    let id = self.take_id();
                    // The new file is checked now: an older file's refusal no longer applies.
                    self.trace.file_problem = None;
                    self.trace.checking = Some(Shared::new(FileCheck { id, name, data }));
                }
            }
            Action::TraceFileRefused { message } => {
                self.trace.mode = TraceMode::File;
                self.trace.file_problem = Some(message.into());
            }
            Action::SetMix(text) => self.set_mix(text),
            Action::TogglePolicy(spec) => {
                let list = &mut self.policies.value;
                match list.iter().position(|p| *p == spec) {
                    Some(i) => drop(list.remove(i)),
                    None => list.push(spec),
                }
                self.policies.error = None;
            }
            Action::AddPolicy(spec) => self.add_policy(spec.trim()),
            Action::RemovePolicy(i) => {
                if i < self.policies.value.len() {
                    self.policies.value.remove(i);
                }
            }
            Action::SetSeed(text) => self.seed = Field::checked(text, |t| check_seed(t)),
            Action::RunStarted { run_id, scenario } => {
                let policies = scenario.policies.clone();
                self.run = RunState::Running { run_id, policies: policies.clone(), current: 0, done: 0, total: 0 };
                self.next_id = self.next_id.max(run_id + 1);
                self.errors.clear();
                self.link_ran(&scenario);
                // A focus asked for before the run is this run's; an older run's is gone.
                self.focus =
                    self.focus.take().filter(|f| f.run_id.is_none()).map(|f| Focus { run_id: Some(run_id), ..f });
                // What-ifs re-run this run's request (as built now, for the run just posted).
                let request = self.run_request(run_id).ok().map(|(r, _)| r);
                self.what_if = None;
                self.results = Shared::new(Results {
                    run_id,
                    request,
                    policies,
                    lesson: lessons::lesson_of(&scenario),
                    scenario: Some(scenario),
                    topology: Some(self.cluster.topology.clone()),
                    ..Results::default()
                });
            }
            Action::Worker(message) => self.on_worker(message),
            Action::WorkerCrashed(message) => self.worker_crashed(&message),
            Action::CheckerCrashed(message) => self.checker_crashed(&message),
            Action::Cancelled => {
                if self.is_running() {
                    self.tour_interrupted();
                    self.run = RunState::Idle;
                    self.results.make_mut().cancelled = true;
                    self.notices.push("Run cancelled; results of the policies that finished are kept.".into());
                }
            }
            Action::Restore { scenario, notice } => {
                self.restore(&scenario);
                self.notices.extend(notice);
            }
            Action::Tour(TourAction::Started { run_id }) => {
                self.next_id = self.next_id.max(run_id + 1);
                let mut tour = Tour::new(run_id);
                // A link's step, if a link started it.
                tour.go_to(self.tour_link.take().unwrap_or(0));
                self.tour = Some(Shared::new(tour));
            }
            Action::Tour(TourAction::Step(step)) => {
                if let Some(tour) = &mut self.tour {
                    tour.make_mut().go_to(step);
                }
            }
            Action::Tour(TourAction::Closed) => self.tour = None,
            Action::ShareLinkMade(url) => self.share_link = Some(url),
            Action::Lesson { id, run, focus } => self.open_lesson(&id, run, focus),
            Action::OpenLink(link) => self.open_link(link),
            Action::LinkNotice(action) => self.link_notice(action),
            Action::AutorunTaken => self.autorun = false,
            Action::WhatIf(act) => self.what_if(act),
            Action::Error(text) => self.errors.push(text.into()),
            Action::DismissErrors => self.errors.clear(),
            Action::DismissNotices => self.notices.clear(),
        }
        self.follow_cluster(gpus, gpu_kind.as_deref(), cluster_edit);
        self
    }

    /// After an action, what follows from a cluster changed from `gpus` GPUs of kind
    /// `gpu_kind`: a cluster of another size makes another synthetic trace (jobs are sized
    /// to it), and one the user chose (`cluster_edit`) takes as many jobs as suits it unless
    /// some were typed; another GPU has other models measured on it.
    fn follow_cluster(&mut self, gpus: u32, gpu_kind: Option<&str>, cluster_edit: bool) {
        if self.cluster.gpu_count() != gpus {
            if cluster_edit {
                self.trace.follow_cluster(gpus, self.cluster.gpu_count());
            }
            self.refresh_synthetic();
        }
        if self.cluster.topology.gpu() != gpu_kind {
            self.set_mix(self.mix.value.clone());
        }
    }

    fn worker_crashed(&mut self, message: &str) {
        self.tour_interrupted();
        if self.is_running() {
            self.run = RunState::Idle;
        }
        self.what_if_lost(message);
        self.errors.push(Problem::Message(format!(
            "The simulation worker stopped: {message}. A fresh worker was started; run again to retry."
        )));
    }

    fn checker_crashed(&mut self, message: &str) {
        let what = match self.trace.checking.take() {
            Some(check) => format!("Checking {} stopped the worker", check.name),
            None => "Describing the trace stopped the worker".to_string(),
        };
        self.trace.synthetic_wanted = None;
        self.errors.push(Problem::Message(format!("{what}: {message}. A fresh worker was started.")));
    }

    /// Sets the model mix as typed, checked against the cluster's GPU.
    fn set_mix(&mut self, text: String) {
        let gpu = self.cluster.topology.gpu().map(str::to_string);
        self.mix = Field::checked(text, |t| check_mix(t, gpu.as_deref()));
    }

    /// A fresh id for a request to a worker.
    pub fn take_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Checks the generator's fields and asks for their trace to be described.
    fn refresh_synthetic(&mut self) {
        let id = self.take_id();
        self.trace.refresh_synthetic(id, self.cluster.gpu_count());
    }

    fn add_policy(&mut self, spec: &str) {
        let error = match resolve_policy(spec) {
            Ok(_) if self.policies.value.iter().any(|p| p == spec) => Some(format!("{spec} is already in the list")),
            Ok(_) => {
                self.policies.value.push(spec.to_string());
                None
            }
            Err(e) => Some(format!("{spec}: {e}")),
        };
        self.policies.error = error;
    }

    fn on_worker(&mut self, message: FromWorker) {
        if let Some(tour) = &mut self.tour {
            if tour.concerns(&message) {
                // Progress of the tour's runs is not shown: no need for a new tour.
                if !matches!(message, FromWorker::Progress { .. }) {
                    tour.make_mut().on_message(message);
                }
                return;
            }
        }
        if matches!(message, FromWorker::Panicked { .. }) {
            self.tour_interrupted();
        }
        let current = match &self.run {
            RunState::Running { run_id, .. } => Some(*run_id),
            RunState::Idle => None,
        };
        match message {
            FromWorker::Ready => {}
            FromWorker::Progress { run_id, policy, done, total } => {
                if let RunState::Running { run_id: id, current, done: d, total: t, .. } = &mut self.run {
                    if *id == run_id {
                        (*current, *d, *t) = (policy, done, total);
                    }
                }
            }
            FromWorker::RunNotes { run_id, notes } if Some(run_id) == current => self.results.make_mut().notes = notes,
            FromWorker::PolicyDone { run_id, result, .. } if Some(run_id) == current => {
                self.results.make_mut().outcomes.push(Shared::new(*result));
            }
            FromWorker::Finished { run_id } if Some(run_id) == current => {
                self.results.make_mut().finished = true;
                self.run = RunState::Idle;
            }
            FromWorker::Failed { run_id, problem } if Some(run_id) == current => {
                self.run = RunState::Idle;
                self.errors.push(problem);
            }
            FromWorker::Checked { id, result } => {
                // A refused file's problem stays beside the drop zone (`TraceForm::file_problem`).
                if self.trace.on_checked(id, &result) {
                    if let Some(u) = &self.trace.uploaded {
                        let (name, hash) = (u.name.clone(), u.preview.hash.clone());
                        self.pending_trace_loaded(&name, hash.as_deref());
                    }
                }
            }
            FromWorker::GainSource { run_id, result } if run_id == self.results.run_id && !self.results.cancelled => {
                self.results.make_mut().gain_source = Some(result.map_err(|p| p.to_string()));
            }
            FromWorker::WhatIf { id, result } => self.what_if_answered(id, result.map_err(|p| p.to_string())),
            FromWorker::WhatIfSeeds { id, result } => {
                self.what_if_seeds_answered(id, result.map_err(|p| p.to_string()))
            }
            FromWorker::Panicked { message } => {
                self.what_if_lost(&message);
                if current.is_some() {
                    self.run = RunState::Idle;
                }
                self.errors.push(Problem::Message(format!(
                    "The simulation crashed: {message}. Your scenario is intact and a fresh worker was started; please report this with the share link."
                )));
            }
            // Answers to a run the page gave up on; the "your cluster" section's worker
            // answers its own what-ifs.
            FromWorker::RunNotes { .. }
            | FromWorker::PolicyDone { .. }
            | FromWorker::Finished { .. }
            | FromWorker::GainSource { .. }
            | FromWorker::Failed { .. }
            | FromWorker::HistoryDescribed { .. }
            | FromWorker::ClusterProgress { .. }
            | FromWorker::ClusterReport { .. } => {}
        }
    }

    /// The worker was stopped or crashed: the tour's runs still going are lost.
    fn tour_interrupted(&mut self) {
        if let Some(tour) = &mut self.tour {
            if tour.is_running() {
                tour.make_mut().interrupted();
            }
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self.run, RunState::Running { .. })
    }
}
