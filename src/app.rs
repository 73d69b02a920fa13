//! The app component: owns the state (a reducer), the two workers (simulation runs, and
//! trace descriptions and checks) and the browser effects (saving the scenario, share
//! links, files, downloads, keys), and lays out the panels.
//!
//! Callbacks handed to the panels are made once (they read the latest state through a
//! handle kept in a ref), so a panel re-renders only when what it shows changes.

use crate::browser::worker::{use_sim_worker, SimWorker};
use crate::browser::{self};
use crate::editor::EditAction;
use crate::panels::{
    use_run_feedback, Banners, Intro, Lessons, PlaybackSection, ResultsPanel, RunPanel, ScenarioPanel,
};
use crate::protocol::{FileData, FromWorker, ToWorker};
use crate::state::results::RunState;
use crate::state::{startup, too_large, Action, State, MAX_TRACE_BYTES};
use crate::tour::view::TourView;
use crate::tour::{self, TourAction};
use gloo::events::{EventListener, EventListenerOptions};
use gloo::timers::callback::Timeout;
use proxima_core::metrics::result_dir_name;
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
    if state.is_running() {
        return;
    }
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
        dispatch.emit(Action::TraceFileRefused { message: too_large(&name, size) });
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        match browser::read_file(file).await {
            Ok(bytes) => dispatch.emit(then(name, bytes)),
            Err(message) => dispatch.emit(Action::Error(message)),
        }
    });
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
    let state = use_reducer(|| startup(browser::share_code_in_url().as_deref(), browser::saved_scenario()));
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
        use_memo(scenario_key.clone(), move |_| state.problems())
    };
    let done = use_run_feedback(&state.results);
    // Remember the scenario on every change; a scenario with an invalid field keeps the
    // last valid one.
    {
        let state = state.clone();
        use_effect_with(scenario_key, move |_| {
            if let Some(scenario) = state.shared_scenario() {
                browser::save_scenario(&proxima_core::share::encode(&scenario));
            }
        });
    }

    // Describe the generator's trace in the checks worker, a moment after the last key.
    {
        let checks = checks.clone();
        use_effect_with(state.trace.synthetic_wanted.clone(), move |wanted| {
            let timeout = wanted.clone().map(|w| {
                Timeout::new(PREVIEW_DEBOUNCE_MS, move || {
                    checks.post(&ToWorker::PreviewSynthetic { id: w.id, spec: w.spec, gpus: w.gpus })
                })
            });
            move || drop(timeout)
        });
    }

    // Check a trace file that was read, against the cluster.
    {
        let (checks, latest) = (checks.clone(), latest.clone());
        use_effect_with(state.trace.checking.clone(), move |checking| {
            if let Some(c) = checking {
                let topology = current(&latest).cluster.input();
                checks.post(&ToWorker::CheckTrace { id: c.id, topology, name: c.name.clone(), data: c.data.clone() });
            }
        });
    }

    // Keys, and share links opened in this tab (only the fragment changes).
    {
        let (latest, sim, dispatch) = (latest.clone(), sim.clone(), dispatch.clone());
        use_effect_with((), move |_| {
            let window = gloo::utils::window();
            let keys = {
                let dispatch = dispatch.clone();
                // Not passive: some keys stop the browser's own action.
                EventListener::new_with_options(
                    &window,
                    "keydown",
                    EventListenerOptions::enable_prevent_default(),
                    move |e| {
                        if let Some(e) = e.dyn_ref::<KeyboardEvent>() {
                            on_key(e, &current(&latest), &sim, &dispatch);
                        }
                    },
                )
            };
            let hash = EventListener::new(&window, "hashchange", move |_| {
                if let Some(code) = browser::share_code_in_url() {
                    match proxima_core::share::decode(&code) {
                        Ok(scenario) => dispatch.emit(Action::Restore {
                            scenario,
                            notice: Some("Restored the scenario from the link.".into()),
                        }),
                        Err(e) => dispatch.emit(Action::Error(format!("This share link could not be read: {e}."))),
                    }
                }
            });
            move || drop((keys, hash))
        });
    }

    let on_run = {
        let (latest, sim, dispatch) = (latest.clone(), sim.clone(), dispatch.clone());
        use_callback((), move |_: (), _| start_run(&current(&latest), &sim, &dispatch))
    };
    let on_cancel = {
        let (latest, sim, dispatch) = (latest.clone(), sim.clone(), dispatch.clone());
        use_callback((), move |_: (), _| cancel_run(&current(&latest), &sim, &dispatch))
    };
    let on_share = {
        let (latest, dispatch) = (latest.clone(), dispatch.clone());
        use_callback((), move |_: (), _| match current(&latest).shared_scenario() {
            Some(s) => {
                let url = browser::set_share_code_in_url(&proxima_core::share::encode(&s));
                // The clipboard may be refused (permissions, no focus); the link is shown
                // for copying anyway.
                let _ = gloo::utils::window().navigator().clipboard().write_text(&url);
                dispatch.emit(Action::ShareLinkMade(url));
            }
            None => dispatch.emit(Action::Error("Fix the fields marked in the scenario before sharing it.".into())),
        })
    };
    // A trace file is not read here: the checks worker reads it (and a run's worker reads
    // it again), so its megabytes never pass through the page's thread.
    let on_trace_file = {
        let dispatch = dispatch.clone();
        use_callback((), move |file: File, _| {
            let (name, size) = (file.name(), file.size() as u64);
            if size > MAX_TRACE_BYTES {
                dispatch.emit(Action::TraceFileRefused { message: too_large(&name, size) });
            } else {
                dispatch.emit(Action::TraceFileChosen { name, data: FileData::of_blob(file.into()) });
            }
        })
    };
    let on_topology_file = {
        let dispatch = dispatch.clone();
        use_callback((), move |file: File, _| {
            read_file_then(file, dispatch.clone(), |name, bytes| match String::from_utf8(bytes) {
                Ok(text) => Action::ImportTopology { name, text },
                Err(_) => Action::Error(format!("{name}: encoding: not valid UTF-8; save the file as UTF-8")),
            })
        })
    };
    let on_export_topology = {
        let latest = latest.clone();
        use_callback((), move |_: (), _| {
            // The editor's description, so that work in progress with problems can be saved too.
            let state = current(&latest);
            let spec = &state.cluster.editor.doc.spec;
            let name = if spec.name.is_empty() { "topology".to_string() } else { result_dir_name(&spec.name) };
            browser::download(&format!("{name}.json"), "application/json", (spec.to_json() + "\n").as_bytes());
        })
    };
    let on_export_scenario = {
        let (latest, dispatch) = (latest.clone(), dispatch.clone());
        use_callback((), move |_: (), _| match current(&latest).scenario_json() {
            Some(text) => browser::download("scenario.json", "application/json", text.as_bytes()),
            None => dispatch.emit(Action::Error("Fix the fields marked in the scenario before exporting it.".into())),
        })
    };
    let scenario_json = {
        let latest = latest.clone();
        use_callback((), move |_: (), _| current(&latest).scenario_json())
    };
    let on_tour = {
        let (latest, sim, dispatch) = (latest.clone(), sim.clone(), dispatch.clone());
        use_callback((), move |_: (), _| {
            let run_id = current(&latest).next_id;
            sim.post(&ToWorker::Run(tour::request(run_id)));
            dispatch.emit(Action::Tour(TourAction::Started { run_id }));
            // Bring the tour into view once it has rendered.
            wasm_bindgen_futures::spawn_local(async { focus_panel("tour") });
        })
    };
    let on_edit = {
        let dispatch = dispatch.clone();
        use_callback((), move |edit: EditAction, _| dispatch.emit(Action::Edit(edit)))
    };
    let on_tour_action = {
        let dispatch = dispatch.clone();
        use_callback((), move |a: TourAction, _| dispatch.emit(Action::Tour(a)))
    };
    let on_error = {
        let dispatch = dispatch.clone();
        use_callback((), move |message: String, _| dispatch.emit(Action::Error(message)))
    };
    let on_download =
        use_callback((), |(name, mime, bytes): crate::panels::Download, _| browser::download(&name, &mime, &bytes));

    let s = &*state;
    html! {
        <div class="proxima">
            // First in the page (yew replaces the body's static content): one Tab and Enter
            // reach Run (www/boot.js moves the focus to the button itself).
            <a class="skip-link" href="#run-panel" data-testid="skip-link">{ "Skip to Run" }</a>
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
                </nav>
            </header>
            <Intro {on_tour} touring={s.tour.as_ref().is_some_and(|t| t.error.is_none())} />
            <Lessons dispatch={dispatch.clone()} />
            if let Some(tour) = &s.tour {
                <TourView tour={tour.clone()} act={on_tour_action} />
            }
            <Banners errors={s.errors.clone()} notices={s.notices.clone()} dispatch={dispatch.clone()} />
            <main class="panels">
                <ScenarioPanel cluster={s.cluster.clone()} trace={s.trace.clone()} mix={s.mix.clone()}
                               dispatch={dispatch.clone()} {on_edit} {on_topology_file} {on_trace_file} {on_export_topology} />
                <RunPanel policies={s.policies.clone()} seed={s.seed.clone()} run={s.run.clone()} share_link={s.share_link.clone()}
                          cli_command={(*cli_command).clone()} blocked={(*blocked).clone()} {done} dispatch={dispatch.clone()} {on_run} {on_cancel} {on_share} />
                <PlaybackSection results={s.results.clone()} />
                <ResultsPanel results={s.results.clone()} running={matches!(s.run, RunState::Running { .. })} {done} {on_download}
                              {on_export_scenario} {scenario_json} {on_error} />
            </main>
            <footer>
                <p>{ "Everything runs in this page: no data leaves your browser. Simulations run in a web worker, so the page stays responsive." }</p>
            </footer>
        </div>
    }
}
