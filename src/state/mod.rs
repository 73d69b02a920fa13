//! The page's state and the one reducer that changes it.
//!
//! Everything the page shows is derived from [`State`]; every change is an [`Action`]
//! applied by [`State::apply`], a pure function (no web API, no clock), so tests can drive
//! the page's logic action by action. Effects (the workers, local storage, the URL, files,
//! downloads) live at the edge, in `app.rs`, and report back with actions.
//!
//! The state holds the features' models: the scenario form ([`crate::scenario`]), the
//! results ([`crate::results`]), the what-if ([`crate::what_if`]), the tour
//! ([`crate::tour`]); those models know nothing of it. Here:
//!
//! - this file: the state, the actions, the reducer;
//! - `form.rs`: the form's actions (cluster, trace, mix, policies);
//! - `run.rs`: a run started, cancelled or lost, the worker's answers, the tour's runs;
//! - [`scenario`]: the scenario as links, requests, commands and files describe it;
//! - [`link`]: the URL fragment's links (scenarios, lessons), a run asked for by one, and
//!   where its playback opens;
//! - `what_if.rs`: a what-if asked, predicted and answered;
//! - [`problems`]: the problems the error banner lists.

mod form;
pub mod link;
pub mod problems;
mod run;
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
use crate::protocol::{FileData, FromWorker, Problem};
use crate::scenario::fields::check_seed;
use crate::tour::{Tour, TourAction};
use crate::Shared;
use link::{Focus, FromLink, Link, LinkNoticeAction, PendingTrace};
use problems::Problems;
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

    /// Applies an action: the reducer. Each action's handling is named for what it does:
    /// the form's in `form.rs`, a run's and the worker's answers in `run.rs`, the links' in
    /// `link.rs`, the what-if's in `what_if.rs`.
    pub fn apply(mut self, action: Action) -> State {
        let gpus = self.cluster.gpu_count();
        let gpu_kind = self.cluster.topology.gpu().map(str::to_string);
        // The user changed the cluster (a link or saved scenario restored says its own jobs).
        let cluster_edit = matches!(
            action,
            Action::SelectPreset(_) | Action::Edit(_) | Action::SetParam(..) | Action::ImportTopology { .. }
        );
        match action {
            Action::SelectPreset(name) => self.select_preset(&name),
            Action::Edit(edit) => self.cluster.make_mut().edit(edit),
            Action::SetParam(field, value) => {
                let result = self.cluster.make_mut().set_param(field, value);
                self.errors.extend(result.err().map(Problem::from));
            }
            Action::ImportTopology { name, text } => self.import_topology(&name, &text),
            Action::SetGenerator(field, value) => {
                *self.trace.generator.value.slot(field) = value;
                self.refresh_synthetic();
            }
            Action::SetTraceMode(mode) => self.set_trace_mode(mode),
            Action::TraceFileChosen { name, data } => self.trace_file_chosen(name, data),
            Action::TraceFileRefused { message } => {
                self.trace.mode = TraceMode::File;
                self.trace.file_problem = Some(message.into());
            }
            Action::SetMix(text) => self.set_mix(text),
            Action::TogglePolicy(spec) => self.toggle_policy(spec),
            Action::AddPolicy(spec) => self.add_policy(spec.trim()),
            Action::RemovePolicy(i) => self.remove_policy(i),
            Action::SetSeed(text) => self.seed = Field::checked(text, |t| check_seed(t)),
            Action::RunStarted { run_id, scenario } => self.run_started(run_id, scenario),
            Action::Worker(message) => self.on_worker(message),
            Action::WorkerCrashed(message) => self.worker_crashed(&message),
            Action::CheckerCrashed(message) => self.checker_crashed(&message),
            Action::Cancelled => self.cancel(),
            Action::Restore { scenario, notice } => {
                self.restore(&scenario);
                self.notices.extend(notice);
            }
            Action::Tour(action) => self.tour_action(action),
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

    /// A fresh id for a request to a worker.
    pub fn take_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub fn is_running(&self) -> bool {
        matches!(self.run, RunState::Running { .. })
    }
}
