//! The reducer's part for runs: a run started or cancelled, the workers' answers and
//! their crashes, and the tour's runs.

use super::link::Focus;
use super::{Results, RunState, State};
use crate::lessons;
use crate::protocol::{FromWorker, Problem};
use crate::tour::{Tour, TourAction};
use crate::Shared;
use proxima_core::share::SharedScenario;

impl State {
    /// The page posted run `run_id` of `scenario`: the results start afresh.
    pub(super) fn run_started(&mut self, run_id: u32, scenario: SharedScenario) {
        let policies = scenario.policies.clone();
        self.run = RunState::Running { run_id, policies: policies.clone(), current: 0, done: 0, total: 0 };
        self.next_id = self.next_id.max(run_id + 1);
        self.errors.clear();
        self.link_ran(&scenario);
        // A focus asked for before the run is this run's; an older run's is gone.
        self.focus = self.focus.take().filter(|f| f.run_id.is_none()).map(|f| Focus { run_id: Some(run_id), ..f });
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

    pub(super) fn cancel(&mut self) {
        if self.is_running() {
            self.tour_interrupted();
            self.run = RunState::Idle;
            self.results.make_mut().cancelled = true;
            self.notices.push("Run cancelled; results of the policies that finished are kept.".into());
        }
    }

    pub(super) fn tour_action(&mut self, action: TourAction) {
        match action {
            TourAction::Started { run_id } => {
                self.next_id = self.next_id.max(run_id + 1);
                let mut tour = Tour::new(run_id);
                // A link's step, if a link started it.
                tour.go_to(self.tour_link.take().unwrap_or(0));
                self.tour = Some(Shared::new(tour));
            }
            TourAction::Step(step) => {
                if let Some(tour) = &mut self.tour {
                    tour.make_mut().go_to(step);
                }
            }
            TourAction::Closed => self.tour = None,
        }
    }

    pub(super) fn worker_crashed(&mut self, message: &str) {
        self.tour_interrupted();
        if self.is_running() {
            self.run = RunState::Idle;
        }
        self.what_if_lost(message);
        self.errors.push(Problem::Message(format!(
            "The simulation worker stopped: {message}. A fresh worker was started; run again to retry."
        )));
    }

    pub(super) fn checker_crashed(&mut self, message: &str) {
        let what = match self.trace.checking.take() {
            Some(check) => format!("Checking {} stopped the worker", check.name),
            None => "Describing the trace stopped the worker".to_string(),
        };
        self.trace.synthetic_wanted = None;
        self.errors.push(Problem::Message(format!("{what}: {message}. A fresh worker was started.")));
    }

    pub(super) fn on_worker(&mut self, message: FromWorker) {
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
    pub(super) fn tour_interrupted(&mut self) {
        if let Some(tour) = &mut self.tour {
            if tour.is_running() {
                tour.make_mut().interrupted();
            }
        }
    }
}
