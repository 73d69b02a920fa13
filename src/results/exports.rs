//! The results' downloads: "Download all" (one zip of every file) beside the single files
//! `proxima compare --out DIR` writes, and `scenario.json`. Their text is made only when a
//! file is asked for, by the core's functions, from the results' data.

use super::{event_hash_json, Results, ARCHIVE_FILE};
use crate::protocol::Bytes;
use crate::Shared;
use proxima_core::metrics::result_dir_name;
use proxima_core::run_files::{COMPARE_FILE, JOBS_FILE, SUMMARY_FILE, TIMESERIES_FILE};
use std::rc::Rc;
use yew::prelude::*;

/// A file to download: its name, MIME type and bytes.
pub type Download = (String, String, Bytes);

const JSON: &str = "application/json";
const CSV: &str = "text/csv";
const ZIP: &str = "application/zip";

#[derive(Properties, PartialEq)]
pub struct ExportsProps {
    pub results: Shared<Results>,
    pub on_download: Callback<Download>,
    pub on_export_scenario: Callback<()>,
    /// `scenario.json` of the current scenario, for the zip (`None` while a field is invalid).
    pub scenario_json: Callback<(), Option<String>>,
    pub on_error: Callback<String>,
}

/// "Download all" and the single files behind a disclosure.
#[component]
pub fn Exports(props: &ExportsProps) -> Html {
    let r = &props.results;
    // A download whose bytes `make` writes when the button is pressed.
    let offer = |name: String, mime: &'static str, make: Rc<dyn Fn() -> Result<Vec<u8>, String>>| {
        let (download, error) = (props.on_download.clone(), props.on_error.clone());
        Callback::from(move |_: MouseEvent| match make() {
            Ok(bytes) => download.emit((name.clone(), mime.to_string(), bytes.into())),
            Err(e) => error.emit(format!("{name} could not be written: {e}")),
        })
    };
    let text = |f: Result<String, String>| f.map(String::into_bytes);
    let all = {
        let (results, scenario) = (r.clone(), props.scenario_json.clone());
        offer(ARCHIVE_FILE.into(), ZIP, Rc::new(move || results.archive(scenario.emit(()))))
    };
    let compare = {
        let results = r.clone();
        offer(
            COMPARE_FILE.into(),
            JSON,
            Rc::new(move || text(results.compare_json().ok_or("not every policy ran".into()))),
        )
    };
    let count = r.outcomes.len();
    html! {
        <div class="exports">
            if count > 0 {
                <button type="button" class="primary" data-testid="download-all" data-export={ARCHIVE_FILE} onclick={all}
                        title="A zip of every file below: the folder `proxima compare --out results` writes, with each run's event-log hash and scenario.json">
                    { format!("Download all ({count} run{}, zip)", if count == 1 { "" } else { "s" }) }
                </button>
            }
            <details class="export">
                <summary data-testid="export-button">{ "Single files…" }</summary>
                <p class="hint">{ "The same files as `proxima compare --out DIR` writes, byte for byte, plus each run's event-log hash (which `proxima run --events FILE` prints); downloads are made in the browser." }</p>
                <ul>
                    if r.finished {
                        <li><button type="button" data-export={COMPARE_FILE} onclick={compare}>{ COMPARE_FILE }</button>{ " all policies' summaries" }</li>
                    }
                    { for r.outcomes.iter().map(|o| {
                        let dir = result_dir_name(&o.policy);
                        let file = |name: &'static str, mime: &'static str| {
                            let o = o.clone();
                            let make: Rc<dyn Fn() -> Result<Vec<u8>, String>> = Rc::new(move || {
                                let files = o.files()?;
                                Ok(files.named().iter().find(|f| f.0 == name).map(|f| f.1.as_bytes().to_vec()).unwrap_or_default())
                            });
                            html! {
                                <button type="button" data-export={format!("{dir}/{name}")} onclick={offer(format!("{dir}-{name}"), mime, make)}>{ name }</button>
                            }
                        };
                        let hash = {
                            let o = o.clone();
                            offer(format!("{dir}-event-hash.json"), JSON, Rc::new(move || Ok(event_hash_json(&o).into_bytes())))
                        };
                        html! {
                            <li>
                                <code>{ format!("{dir}/") }</code>
                                { file(SUMMARY_FILE, JSON) }
                                { file(JOBS_FILE, CSV) }
                                { file(TIMESERIES_FILE, CSV) }
                                <button type="button" data-export={format!("{dir}/event-hash.json")} onclick={hash}>{ "event-hash.json" }</button>
                            </li>
                        }
                    }) }
                    <li><button type="button" data-export="scenario.json" onclick={props.on_export_scenario.reform(|_| ())}>{ "scenario.json" }</button>{ " the scenario: topology, trace, policies, seed, share code and CLI command" }</li>
                </ul>
            </details>
        </div>
    }
}
