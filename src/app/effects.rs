//! What the page does in the browser besides rendering: it saves the scenario, has the
//! checks worker describe and check traces, and listens to keys and share links.

use super::{cancel_run, current, on_key, post_run, scroll_to, Latest, PREVIEW_DEBOUNCE_MS};
use crate::browser::{self, worker::SimWorker};
use crate::protocol::{FromWorker, ToWorker};
use crate::results::feedback::{PLAYBACK_TOP, RESULTS_TOP};
use crate::state::link::parse_fragment;
use crate::state::{Action, State};
use gloo::events::{EventListener, EventListenerOptions};
use gloo::timers::callback::Timeout;
use proxima_core::trace::synthetic;
use proxima_core::trace::tenant_mix;
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
    use_remembered_scenario(state, scenario_key, dispatch);
    use_asked_runs(state, latest, sim, dispatch);
    use_trace_checks(state, latest, checks, dispatch);
    use_what_if_rerun(state, sim);
    use_keys_and_links(latest, sim, dispatch);
}

/// Remember the scenario on every change; a scenario with an invalid field keeps the
/// last valid one.
#[hook]
fn use_remembered_scenario<K: PartialEq + 'static>(
    state: &UseReducerHandle<State>,
    scenario_key: K,
    dispatch: &Callback<Action>,
) {
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

/// Runs asked for rather than started with Run: by a lesson, a link or a link's trace
/// file, and a tour step a link asked for.
#[hook]
fn use_asked_runs(state: &UseReducerHandle<State>, latest: &Latest, sim: &SimWorker, dispatch: &Callback<Action>) {
    // Started here, where the worker is (a run already going is cancelled first: the user
    // asked for this one).
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
    // A tour step a link asked for: the tour's runs, which open at that step.
    {
        let (latest, sim, dispatch) = (latest.clone(), sim.clone(), dispatch.clone());
        use_effect_with(state.tour_link.is_some(), move |&wanted| {
            if wanted {
                super::handlers::start_tour(&current(&latest), &sim, &dispatch);
            }
        });
    }
}

/// The trace's descriptions and checks, by the page or the checks worker.
#[hook]
fn use_trace_checks(state: &UseReducerHandle<State>, latest: &Latest, checks: &SimWorker, dispatch: &Callback<Action>) {
    // Describe the generator's trace, a moment after the last key: a small one here, in
    // the page (so that the first visit, whose default trace is small, does not download
    // the worker's module before anything is run: docs/PERFORMANCE.md, page weight), a
    // larger one in the checks worker, off the page's thread.
    {
        let (checks, dispatch) = (checks.clone(), dispatch.clone());
        use_effect_with(state.trace.synthetic_wanted.clone(), move |wanted| {
            let timeout = wanted.clone().map(|w| {
                Timeout::new(PREVIEW_DEBOUNCE_MS, move || {
                    if described_in_page(&w.spec) {
                        let result = crate::worker::preview_synthetic(&w.spec, w.gpus);
                        dispatch.emit(Action::Worker(FromWorker::Checked { id: w.id, result }));
                    } else {
                        checks.post(&ToWorker::PreviewSynthetic { id: w.id, spec: w.spec, gpus: w.gpus })
                    }
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
}

/// A what-if on a preemption: its re-run, in the simulation worker (after the run, if one
/// is still going: the worker takes requests in turn).
#[hook]
fn use_what_if_rerun(state: &UseReducerHandle<State>, sim: &SimWorker) {
    let sim = sim.clone();
    use_effect_with(state.what_if.as_ref().map(|w| w.request.clone()), move |request| {
        if let Some(r) = request {
            sim.post(&ToWorker::WithoutPreemption((**r).clone()));
        }
    });
}

/// Keys, and share links opened in this tab (only the fragment changes).
#[hook]
fn use_keys_and_links(latest: &Latest, sim: &SimWorker, dispatch: &Callback<Action>) {
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

/// The most jobs of a generator's trace the page describes itself; a larger one goes to the
/// checks worker. The default scenario's 1,000 jobs (10,000 on the largest preset) take a
/// few milliseconds to generate and describe.
const IN_PAGE_PREVIEW_MAX_JOBS: u32 = 10_000;

/// Whether the page describes the generator's trace `spec` itself (see
/// [`IN_PAGE_PREVIEW_MAX_JOBS`]); a spec it cannot read goes to the worker, which says why.
fn described_in_page(spec: &str) -> bool {
    tenant_mix::split_spec(spec)
        .ok()
        .and_then(|(s, _)| synthetic::parse(&s).ok())
        .is_some_and(|s| s.jobs <= IN_PAGE_PREVIEW_MAX_JOBS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_generated_traces_are_described_in_the_page_larger_or_unreadable_ones_in_the_worker() {
        assert!(described_in_page("synthetic:jobs=1000,load=0.9,seed=1"));
        assert!(described_in_page("synthetic:jobs=10000,load=0.9,seed=1,tenants=3"));
        assert!(!described_in_page("synthetic:jobs=10001,load=0.9,seed=1"));
        assert!(!described_in_page("synthetic:jobs=200000"));
        assert!(!described_in_page("synthetic:jobs=lots"));
    }
}
