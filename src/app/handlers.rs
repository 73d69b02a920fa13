//! The callbacks the page hands to its panels, made once: they read the latest state
//! through [`Latest`], so a panel re-renders only when what it shows changes.

use super::{cancel_run, current, focus_panel, read_file_then, start_run, Latest};
use crate::browser::{self, worker::SimWorker};
use crate::editor::EditAction;
use crate::protocol::{FileData, ToWorker};
use crate::results::exports::Download;
use crate::state::{too_large, Action, MAX_TRACE_BYTES};
use crate::tour::{self, TourAction};
use proxima_core::metrics::result_dir_name;
use web_sys::File;
use yew::prelude::*;

/// Every callback of the page's panels.
pub struct PageHandlers {
    pub on_run: Callback<()>,
    pub on_cancel: Callback<()>,
    pub on_share: Callback<()>,
    pub on_trace_file: Callback<File>,
    pub on_topology_file: Callback<File>,
    pub on_export_topology: Callback<()>,
    pub on_export_scenario: Callback<()>,
    pub scenario_json: Callback<(), Option<String>>,
    pub on_tour: Callback<()>,
    pub on_edit: Callback<EditAction>,
    pub on_tour_action: Callback<TourAction>,
    pub on_error: Callback<String>,
    pub on_download: Callback<Download>,
}

/// Starts the tour's runs in the simulation worker and brings the tour into view (at the
/// step a link asked for, if one did: [`crate::state::State::tour_link`]).
pub(super) fn start_tour(state: &crate::state::State, sim: &SimWorker, dispatch: &Callback<Action>) {
    let run_id = state.next_id;
    sim.post(&ToWorker::Run(tour::request(run_id)));
    dispatch.emit(Action::Tour(TourAction::Started { run_id }));
    // Bring the tour into view once it has rendered.
    wasm_bindgen_futures::spawn_local(async { focus_panel("tour") });
}

#[hook]
pub fn use_page_handlers(latest: &Latest, sim: &SimWorker, dispatch: &Callback<Action>) -> PageHandlers {
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
        // During the tour its step is what is on screen, and what is shared.
        use_callback((), move |_: (), _| match current(&latest).page_fragment() {
            Some(fragment) => {
                let url = browser::set_fragment(&fragment);
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
        use_callback((), move |_: (), _| start_tour(&current(&latest), &sim, &dispatch))
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
    let on_download = use_callback((), |(name, mime, bytes): Download, _| browser::download(&name, &mime, &bytes));

    PageHandlers {
        on_run,
        on_cancel,
        on_share,
        on_trace_file,
        on_topology_file,
        on_export_topology,
        on_export_scenario,
        scenario_json,
        on_tour,
        on_edit,
        on_tour_action,
        on_error,
        on_download,
    }
}
