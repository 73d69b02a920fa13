//! The app component: owns the state (a reducer), the simulation worker and the browser
//! effects (saving the scenario, share links, files, downloads, keys), and lays out the
//! panels.

use crate::browser::{self, Listener, WorkerClient};
use crate::protocol::{FromWorker, ToWorker};
use crate::state::{startup, too_large, Action, State, MAX_TRACE_BYTES};
use crate::views::{Banners, Intro, PlaybackSection, ResultsPanel, RunPanel, ScenarioPanel};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{File, HtmlElement, KeyboardEvent};
use yew::prelude::*;

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new((*self).clone().apply(action))
    }
}

/// Where the worker lives between renders: replaced when it crashes or a run is cancelled.
type WorkerSlot = Rc<RefCell<Option<WorkerClient>>>;

/// Starts a worker whose messages become actions. A crash (a `Panicked` message or an
/// error event) replaces the worker with a fresh one, after the current event handler has
/// returned (the handler belongs to the worker being replaced).
fn spawn_worker(slot: &WorkerSlot, dispatch: Callback<Action>) {
    let respawn = {
        let slot = slot.clone();
        let dispatch = dispatch.clone();
        Rc::new(move || {
            let slot = slot.clone();
            let dispatch = dispatch.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if let Some(old) = slot.borrow_mut().take() {
                    old.terminate();
                }
                spawn_worker(&slot, dispatch);
            });
        })
    };
    let on_message: Rc<dyn Fn(FromWorker)> = {
        let dispatch = dispatch.clone();
        let respawn = respawn.clone();
        Rc::new(move |message: FromWorker| {
            let crashed = matches!(message, FromWorker::Panicked { .. });
            dispatch.emit(Action::Worker(message));
            if crashed {
                respawn();
            }
        })
    };
    let on_error: Rc<dyn Fn(String)> = {
        let dispatch = dispatch.clone();
        Rc::new(move |message: String| {
            dispatch.emit(Action::WorkerCrashed(message));
            respawn();
        })
    };
    match WorkerClient::spawn(on_message, on_error) {
        Ok(client) => *slot.borrow_mut() = Some(client),
        Err(e) => dispatch.emit(Action::Error(e)),
    }
}

/// Starts a run of the current scenario, or reports what must be fixed first.
fn start_run(state: &State, slot: &WorkerSlot, dispatch: &Callback<Action>) {
    if state.is_running() {
        return;
    }
    match state.run_request(state.next_run_id) {
        Ok((request, scenario)) => {
            if slot.borrow().is_none() {
                spawn_worker(slot, dispatch.clone());
            }
            if let Some(worker) = slot.borrow().as_ref() {
                worker.post(&ToWorker::Run(request.clone()));
                dispatch.emit(Action::RunStarted { run_id: request.run_id, scenario });
            }
        }
        Err(problems) => {
            for p in problems {
                dispatch.emit(Action::Error(p));
            }
        }
    }
}

/// Starts the guided introduction: its runs go to the worker like any run, under an id of
/// their own, so they never mix with the user's results.
fn start_tour(state: &State, slot: &WorkerSlot, dispatch: &Callback<Action>) {
    if slot.borrow().is_none() {
        spawn_worker(slot, dispatch.clone());
    }
    if let Some(worker) = slot.borrow().as_ref() {
        let run_id = state.next_run_id;
        worker.post(&ToWorker::Run(crate::intro::request(run_id)));
        dispatch.emit(Action::IntroStarted { run_id });
    }
}

/// Cancels a run: the worker is terminated mid-run and a fresh one started.
fn cancel_run(state: &State, slot: &WorkerSlot, dispatch: &Callback<Action>) {
    if !state.is_running() {
        return;
    }
    if let Some(old) = slot.borrow_mut().take() {
        old.terminate();
    }
    spawn_worker(slot, dispatch.clone());
    dispatch.emit(Action::Cancelled);
}

/// Reads a picked or dropped file (refusing big ones before reading) and hands its bytes
/// to `then`.
fn read_file_then(file: File, dispatch: Callback<Action>, then: impl FnOnce(String, Vec<u8>) -> Action + 'static) {
    let name = file.name();
    let size = file.size() as u64;
    if size > MAX_TRACE_BYTES {
        dispatch.emit(Action::TraceFileRefused { message: too_large(&name, size) });
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        match browser::read_file(&file).await {
            Ok(bytes) => dispatch.emit(then(name, bytes)),
            Err(message) => dispatch.emit(Action::Error(message)),
        }
    });
}

fn focus_panel(id: &str) {
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        if let Ok(el) = el.dyn_into::<HtmlElement>() {
            let _ = el.focus();
            el.scroll_into_view();
        }
    }
}

/// The whole page.
#[component]
pub fn App() -> Html {
    let state = use_reducer(|| {
        startup(browser::share_code_in_url().as_deref(), browser::storage_get(browser::STORAGE_KEY).as_deref())
    });
    let dispatch: Callback<Action> = {
        let state = state.clone();
        Callback::from(move |a| state.dispatch(a))
    };
    let worker: WorkerSlot = use_mut_ref(|| None);
    // The latest state, for listeners registered once (the keyboard).
    let latest = use_mut_ref(|| Rc::new(State::default()));
    *latest.borrow_mut() = Rc::new((*state).clone());

    // Start the worker as the page loads, so that the first run does not wait for it.
    {
        let worker = worker.clone();
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            spawn_worker(&worker, dispatch);
            move || {
                if let Some(w) = worker.borrow_mut().take() {
                    w.terminate();
                }
            }
        });
    }

    // Remember the scenario on every change; a scenario with an invalid field keeps the
    // last valid one.
    let code = state.shared_scenario().map(|s| proxima_core::share::encode(&s));
    use_effect_with(code, |code| {
        if let Some(code) = code {
            browser::storage_set(browser::STORAGE_KEY, code);
        }
    });

    // Keys, and share links opened in this tab (only the fragment changes).
    {
        let latest = latest.clone();
        let worker = worker.clone();
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let window = web_sys::window().expect("a window");
            let keys = {
                let dispatch = dispatch.clone();
                Listener::new(&window, "keydown", move |e| {
                    let Some(e) = e.dyn_ref::<KeyboardEvent>() else { return };
                    let in_field = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
                    let plain = !e.ctrl_key() && !e.meta_key() && !e.alt_key();
                    let state = latest.borrow().clone();
                    match e.key().as_str() {
                        "Enter" if e.ctrl_key() || e.meta_key() => {
                            e.prevent_default();
                            start_run(&state, &worker, &dispatch);
                        }
                        "Escape" if state.is_running() => {
                            e.prevent_default();
                            cancel_run(&state, &worker, &dispatch);
                        }
                        "r" if plain && !in_field => start_run(&state, &worker, &dispatch),
                        "1" if plain && !in_field => focus_panel("scenario-panel"),
                        "2" if plain && !in_field => focus_panel("run-panel"),
                        "3" if plain && !in_field => focus_panel("results-panel"),
                        _ => {}
                    }
                })
            };
            let hash = Listener::new(&window, "hashchange", move |_| {
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
        let (state, worker, dispatch) = (state.clone(), worker.clone(), dispatch.clone());
        Callback::from(move |_| start_run(&state, &worker, &dispatch))
    };
    let on_cancel = {
        let (state, worker, dispatch) = (state.clone(), worker.clone(), dispatch.clone());
        Callback::from(move |_| cancel_run(&state, &worker, &dispatch))
    };
    let on_share = {
        let (state, dispatch) = (state.clone(), dispatch.clone());
        Callback::from(move |_| match state.shared_scenario() {
            Some(s) => {
                let url = browser::set_share_code_in_url(&proxima_core::share::encode(&s));
                if let Some(w) = web_sys::window() {
                    // The clipboard may be refused (permissions, no focus); the link is
                    // shown for copying anyway.
                    let _ = w.navigator().clipboard().write_text(&url);
                }
                dispatch.emit(Action::ShareLinkMade(url));
            }
            None => dispatch.emit(Action::Error("Fix the fields marked in the scenario before sharing it.".into())),
        })
    };
    let on_trace_file = {
        let dispatch = dispatch.clone();
        Callback::from(move |file: File| {
            read_file_then(file, dispatch.clone(), |name, bytes| Action::TraceFileRead { name, bytes: Rc::new(bytes) })
        })
    };
    let on_topology_file = {
        let dispatch = dispatch.clone();
        Callback::from(move |file: File| {
            read_file_then(file, dispatch.clone(), |name, bytes| match String::from_utf8(bytes) {
                Ok(text) => Action::ImportTopology { name, text },
                Err(_) => Action::Error(format!("{name}: encoding: not valid UTF-8; save the file as UTF-8")),
            })
        })
    };
    let on_export_topology = {
        let state = state.clone();
        Callback::from(move |_| {
            // The editor's description, so that work in progress with problems can be saved too.
            let spec = &state.editor.doc.spec;
            let file = format!(
                "{}.json",
                if spec.name.is_empty() { "topology".to_string() } else { crate::state::slug(&spec.name) }
            );
            browser::download(&file, "application/json", &(spec.to_json() + "\n"));
        })
    };
    let on_tour = {
        let (state, worker, dispatch) = (state.clone(), worker.clone(), dispatch.clone());
        Callback::from(move |_| {
            start_tour(&state, &worker, &dispatch);
            // Bring the tour into view once it has rendered.
            wasm_bindgen_futures::spawn_local(async { focus_panel("tour") });
        })
    };
    let on_download =
        Callback::from(|(name, mime, text): (String, String, String)| browser::download(&name, &mime, &text));

    let s: Rc<State> = Rc::new((*state).clone());
    html! {
        <div class="proxima">
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
            <Intro {on_tour} touring={s.intro.as_ref().is_some_and(|i| i.error.is_none())} />
            if let Some(intro) = &s.intro {
                <crate::intro_view::Tour intro={intro.clone()} dispatch={dispatch.clone()} />
            }
            <Banners errors={s.errors.clone()} notices={s.notices.clone()} dispatch={dispatch.clone()} />
            <main class="panels">
                <ScenarioPanel state={s.clone()} dispatch={dispatch.clone()} {on_topology_file} {on_trace_file} {on_export_topology} />
                <RunPanel state={s.clone()} dispatch={dispatch.clone()} {on_run} {on_cancel} {on_share} />
                <PlaybackSection results={s.results.clone()} />
                <ResultsPanel state={s} {on_download} />
            </main>
            <footer>
                <p>{ "Everything runs in this page: no data leaves your browser. Simulations run in a web worker, so the page stays responsive." }</p>
            </footer>
        </div>
    }
}
