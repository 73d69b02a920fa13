//! What the page does in the browser besides rendering: it saves the scenario, has the
//! checks worker describe and check traces, and listens to keys and share links.

use super::{cancel_run, current, on_key, post_run, scroll_to, Latest, PREVIEW_DEBOUNCE_MS};
use crate::browser::{self, worker::SimWorker};
use crate::panels::{PLAYBACK_TOP, RESULTS_TOP};
use crate::protocol::ToWorker;
use crate::state::link::parse_fragment;
use crate::state::{Action, State};
use gloo::events::{EventListener, EventListenerOptions};
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;
use yew::prelude::*;

/// The page's effects; `scenario_key` changes whenever the scenario does.
#[hook]
pub fn use_page_effects<K: PartialEq + 'static>(
    state: &UseReducerHandle<State>,
    scenario_key: K,
    latest: &Latest,
    sim: &SimWorker,
    checks: &SimWorker,
    dispatch: &Callback<Action>,
) {
    // Remember the scenario on every change; a scenario with an invalid field keeps the
    // last valid one.
    {
        let (state, dispatch) = (state.clone(), dispatch.clone());
        use_effect_with(scenario_key, move |_| {
            if let Some(scenario) = state.shared_scenario() {
                browser::save_scenario(&proxima_core::share::encode(&scenario));
            }
            // The address bar follows edits, so a link copied from it is never of an
            // older scenario; so does the link shown under Share (when there is one).
            if let Some(fragment) = state.fragment_after_edit(&browser::fragment()) {
                let url = browser::set_fragment(&fragment);
                if state.share_link.is_some() && !fragment.is_empty() {
                    dispatch.emit(Action::ShareLinkMade(url));
                }
            }
        });
    }

    // A run asked for by a lesson, a link or a link's trace file: started here, where the
    // worker is (a run already going is cancelled first: the user asked for this one).
    {
        let (latest, sim, dispatch) = (latest.clone(), sim.clone(), dispatch.clone());
        use_effect_with(state.autorun, move |&wanted| {
            if wanted {
                dispatch.emit(Action::AutorunTaken);
                let state = current(&latest);
                cancel_run(&state, &sim, &dispatch);
                post_run(&state, &sim, &dispatch);
                // The run's progress shows at the top of the results (or of the playback,
                // for a run whose playback opens at a moment): in view from the start, and
                // where the page brings the finished run (`use_run_feedback`).
                let focused = state.focus.as_ref().is_some_and(|f| f.scroll);
                scroll_to(if focused { PLAYBACK_TOP } else { RESULTS_TOP });
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
            let hash = EventListener::new(&window, "hashchange", move |_| match parse_fragment(&browser::fragment()) {
                Ok(Some(link)) => dispatch.emit(Action::OpenLink(link)),
                Ok(None) => {}
                Err(e) => dispatch.emit(Action::Error(format!("This link could not be read: {e}."))),
            });
            move || drop((keys, hash))
        });
    }
}
