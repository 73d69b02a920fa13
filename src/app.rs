//! The app component: owns the state (a reducer), the two workers (simulation runs, and
//! trace descriptions and checks) and the browser effects (saving the scenario, share
//! links, files, downloads, keys), and lays out the panels. The browser effects are in
//! [`effects`], the callbacks handed to the panels in [`handlers`].
//!
//! Callbacks handed to the panels are made once (they read the latest state through a
//! handle kept in a ref), so a panel re-renders only when what it shows changes.

mod effects;
mod handlers;

use crate::browser::worker::{use_sim_worker, SimWorker};
use crate::browser::{self};
use crate::challenge::view::ChallengeMode;
use crate::panels::{
    link_notice, Banners, ClassicRun, Intro, Lessons, LinkTrace, PlaybackSection, ResultsPanel, RunPanel,
    ScenarioPanel, TourView,
};
use crate::playback::moment_link::{MomentBase, MomentScope};
use crate::protocol::{FromWorker, ToWorker};
use crate::results::feedback::{use_run_feedback, PLAYBACK_TOP, RESULTS_TOP};
use crate::results::RunState;
use crate::state::link::Link;
use crate::state::{startup_from, too_large, Action, State, MAX_TRACE_BYTES};
use crate::your_cluster::view::YourClusterSection;
use effects::use_page_effects;
use handlers::use_page_handlers;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{File, HtmlElement, KeyboardEvent};
use yew::prelude::*;

/// How long after the last keystroke in the generator's fields its trace is described.
const PREVIEW_DEBOUNCE_MS: u32 = 150;

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(Rc::unwrap_or_clone(self).apply(action))
    }
}

/// The state as the last render saw it, for callbacks made once.
type Latest = Rc<RefCell<UseReducerHandle<State>>>;

/// The latest state, out of its cell: a dispatch may render (and so update the cell)
/// before the caller is done with it.
fn current(latest: &Latest) -> UseReducerHandle<State> {
    latest.borrow().clone()
}

/// Starts a run of the current scenario, or reports what must be fixed first.
fn start_run(state: &State, sim: &SimWorker, dispatch: &Callback<Action>) {
    if !state.is_running() {
        post_run(state, sim, dispatch);
    }
}

/// Posts a run of the current scenario whether or not one is going (the caller cancelled
/// it), or reports what must be fixed first.
fn post_run(state: &State, sim: &SimWorker, dispatch: &Callback<Action>) {
    match state.run_request(state.next_id) {
        Ok((request, scenario)) => {
            let run_id = request.run_id;
            sim.post(&ToWorker::Run(request));
            dispatch.emit(Action::RunStarted { run_id, scenario });
        }
        Err(problems) => {
            for p in problems {
                dispatch.emit(Action::Error(p));
            }
        }
    }
}

/// Cancels a run: the worker is terminated mid-run and a fresh one started.
fn cancel_run(state: &State, sim: &SimWorker, dispatch: &Callback<Action>) {
    if state.is_running() {
        sim.restart();
        dispatch.emit(Action::Cancelled);
    }
}

/// Reads a picked or dropped topology file (refusing big ones before reading) and hands
/// its bytes to `then`.
fn read_file_then(file: File, dispatch: Callback<Action>, then: impl FnOnce(String, Vec<u8>) -> Action + 'static) {
    let name = file.name();
    let size = file.size() as u64;
    if size > MAX_TRACE_BYTES {
        dispatch.emit(Action::Error(too_large(&name, size)));
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        match browser::read_file(file).await {
            Ok(bytes) => dispatch.emit(then(name, bytes)),
            Err(message) => dispatch.emit(Action::Error(message)),
        }
    });
}

/// Scrolls the element of this id to the top of the window, without moving the focus.
fn scroll_to(id: &str) {
    if let Some(el) = gloo::utils::document().get_element_by_id(id) {
        el.scroll_into_view();
    }
}

fn focus_panel(id: &str) {
    if let Some(el) = gloo::utils::document().get_element_by_id(id) {
        if let Ok(el) = el.dyn_into::<HtmlElement>() {
            let _ = el.focus();
            el.scroll_into_view();
        }
    }
}

/// The page's keys (see the keyboard list in the intro).
fn on_key(e: &KeyboardEvent, state: &State, sim: &SimWorker, dispatch: &Callback<Action>) {
    let in_field = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
    let plain = !e.ctrl_key() && !e.meta_key() && !e.alt_key();
    match e.key().as_str() {
        "Enter" if e.ctrl_key() || e.meta_key() => {
            e.prevent_default();
            start_run(state, sim, dispatch);
        }
        "Escape" if state.is_running() => {
            e.prevent_default();
            cancel_run(state, sim, dispatch);
        }
        "r" if plain && !in_field => start_run(state, sim, dispatch),
        "1" if plain && !in_field => focus_panel("scenario-panel"),
        "2" if plain && !in_field => focus_panel("run-panel"),
        "3" if plain && !in_field => focus_panel("results-panel"),
        _ => {}
    }
}

/// The whole page.
#[component]
pub fn App() -> Html {
    let state = use_reducer(|| startup_from(&browser::fragment(), browser::saved_scenario()));
    let latest: Latest = use_mut_ref(|| state.clone());
    *latest.borrow_mut() = state.clone();
    let dispatch: Callback<Action> = {
        let d = state.dispatcher();
        (*use_memo((), move |_| Callback::from(move |a| d.dispatch(a)))).clone()
    };
    let sim = use_sim_worker(dispatch.reform(Action::Worker), dispatch.reform(Action::WorkerCrashed));
    let checks = use_sim_worker(
        dispatch.reform(|m| match m {
            FromWorker::Panicked { message } => Action::CheckerCrashed(message),
            other => Action::Worker(other),
        }),
        dispatch.reform(Action::CheckerCrashed),
    );

    // What the scenario is made of: what is derived from it (the command, the saved
    // code) is remade only when one of these changes.
    let scenario_key = {
        let s = &*state;
        (
            s.cluster.clone(),
            (s.trace.mode, s.trace.generator.clone(), s.trace.uploaded.clone()),
            (s.mix.clone(), s.policies.clone(), s.seed.clone()),
        )
    };
    let cli_command = {
        let state = state.clone();
        use_memo(scenario_key.clone(), move |_| state.cli_command())
    };
    // What keeps Run disabled.
    let blocked = {
        let state = state.clone();
        // A trace file being read or refused blocks Run too, without changing the scenario.
        let file = (state.trace.checking.clone(), state.trace.file_problem.clone());
        use_memo((scenario_key.clone(), file), move |_| state.problems())
    };
    // Whether the results were run on the scenario in the form (remade when either changes).
    let stale = {
        let state = state.clone();
        *use_memo((scenario_key.clone(), state.results.run_id, state.results.outcomes.is_empty()), move |_| {
            state.results_stale()
        })
    };
    let lesson = state.results.lesson.and_then(crate::state::link::lesson);
    let focused = state.focus.as_ref().is_some_and(|f| f.scroll && f.run_id == Some(state.results.run_id));
    let done = use_run_feedback(&state.results, if focused { PLAYBACK_TOP } else { RESULTS_TOP });
    use_page_effects(&state, scenario_key, &latest, &sim, &checks, &dispatch);
    let h = use_page_handlers(&latest, &sim, &dispatch);

    let s = &*state;
    html! {
        <div class="proxima">
            // First in the page (yew replaces the body's static content): one Tab and Enter
            // reach Run (www/boot.js moves the focus to the button itself).
            <a class="skip-link" href="#run-panel" data-testid="skip-link">{ "Skip to Run" }</a>
            { page_header() }
            { link_notice(s, &dispatch) }
            <ClassicRun dispatch={dispatch.clone()} />
            <Intro on_tour={h.on_tour} touring={s.tour.as_ref().is_some_and(|t| t.error.is_none())} />
            <Lessons dispatch={dispatch.clone()} />
            <ChallengeMode />
            if let Some(tour) = &s.tour {
                <MomentScope context={Some(MomentBase(Link::Tour { step: tour.step }))}><TourView tour={tour.clone()} act={h.on_tour_action} /></MomentScope>
            }
            <Banners errors={s.errors.clone()} notices={s.notices.clone()} dispatch={dispatch.clone()} />
            if let Some(pending) = &s.pending_trace {
                <LinkTrace pending={pending.clone()} on_trace_file={h.on_trace_file.clone()} />
            }
            <main class="panels">
                <ScenarioPanel cluster={s.cluster.clone()} trace={s.trace.clone()} mix={s.mix.clone()}
                               dispatch={dispatch.clone()} on_edit={h.on_edit} on_topology_file={h.on_topology_file} on_trace_file={h.on_trace_file} on_export_topology={h.on_export_topology} />
                <RunPanel policies={s.policies.clone()} seed={s.seed.clone()} run={s.run.clone()} share_link={s.share_link.clone()}
                          cli_command={(*cli_command).clone()} blocked={(*blocked).clone()} {done} dispatch={dispatch.clone()} on_run={h.on_run} on_cancel={h.on_cancel} on_share={h.on_share} />
                <MomentScope context={s.results_link().map(MomentBase)}>
                    <PlaybackSection results={s.results.clone()} focus={s.focus.clone()} what_if={s.what_if.clone()} dispatch={dispatch.clone()} /></MomentScope>
                <ResultsPanel results={s.results.clone()} running={matches!(s.run, RunState::Running { .. })} {done} on_download={h.on_download}
                              on_export_scenario={h.on_export_scenario} scenario_json={h.scenario_json} on_error={h.on_error}
                              {lesson} {stale} />
            </main>
            <YourClusterSection />
            { crate::glossary::view::glossary() }
            <footer>
                <p>{ "Everything runs in this page: no data leaves your browser. Simulations run in a web worker, so the page stays responsive." }</p>
            </footer>
        </div>
    }
}

/// The page's title, what it is for, and the links to its panels.
fn page_header() -> Html {
    html! {
        <header>
            <h1>{ "Proxima" }</h1>
            <p class="tagline">
                { "Where a deep-learning job's GPUs sit in the cluster matters as much as when it runs. \
                   Proxima simulates GPU clusters and schedules jobs with the network in mind, all in your browser." }
            </p>
            <nav aria-label="Panels">
                <a href="#scenario-panel">{ "1 Scenario" }</a>
                <a href="#run-panel">{ "2 Run" }</a>
                <a href="#results-panel">{ "3 Results" }</a>
                <a href="#your-cluster">{ "Your cluster" }</a>
            </nav>
        </header>
    }
}
