//! Panel 3: the summary table, the charts and the exports; and the playback section.

use crate::charts::{human, CommOverhead, JctCdf, JobsPerTier, OverTime};
use crate::protocol::{Bytes, PolicyResult};
use crate::state::Results;
use crate::Shared;
use proxima_core::metrics::{result_dir_name, Summary};
use proxima_core::run_files::{COMPARE_FILE, JOBS_FILE, SUMMARY_FILE, TIMESERIES_FILE};
use std::rc::Rc;
use yew::prelude::*;

/// A number of `summary.json`, read from the typed summary.
enum Metric {
    Real(fn(&Summary) -> f64),
    Count(fn(&Summary) -> u64),
}

/// The columns of the summary table: `summary.json` keys, headings, values.
const SUMMARY_COLUMNS: &[(&str, &str, Metric)] = &[
    ("avg_jct_s", "mean JCT (s)", Metric::Real(|s| s.avg_jct_s)),
    ("p50_jct_s", "p50 JCT (s)", Metric::Real(|s| s.p50_jct_s)),
    ("p95_jct_s", "p95 JCT (s)", Metric::Real(|s| s.p95_jct_s)),
    ("p99_jct_s", "p99 JCT (s)", Metric::Real(|s| s.p99_jct_s)),
    ("makespan_s", "makespan (s)", Metric::Real(|s| s.makespan_s)),
    ("avg_queue_s", "mean queueing (s)", Metric::Real(|s| s.avg_queue_s)),
    ("comm_overhead_s", "comm. overhead (s)", Metric::Real(|s| s.comm_overhead_s)),
    ("avg_gpu_util", "GPU utilisation (0–1)", Metric::Real(|s| s.avg_gpu_util)),
    ("preemptions", "preemptions", Metric::Count(|s| s.preemptions)),
    ("jobs_completed", "completed", Metric::Count(|s| s.jobs_completed as u64)),
    ("jobs_rejected", "rejected", Metric::Count(|s| s.jobs_rejected as u64)),
    ("jobs_unfinished", "unfinished", Metric::Count(|s| s.jobs_unfinished as u64)),
];

impl Metric {
    /// The number exactly as `summary.json` writes it (serde_json's shortest form that
    /// reads back to the same bits).
    fn text(&self, s: &Summary) -> String {
        match self {
            Metric::Real(f) => serde_json::to_string(&f(s)).unwrap_or_default(),
            Metric::Count(f) => f(s).to_string(),
        }
    }
}

/// A file to download: its name, MIME type and bytes.
pub type Download = (String, String, Bytes);

#[derive(Properties, PartialEq)]
pub struct ResultsPanelProps {
    pub results: Shared<Results>,
    pub running: bool,
    pub on_download: Callback<Download>,
    /// Download `scenario.json` (the app writes it from the scenario).
    pub on_export_scenario: Callback<()>,
    /// A file that could not be written.
    pub on_error: Callback<String>,
}

/// The summary table, the charts and the exports.
#[component]
pub fn ResultsPanel(props: &ResultsPanelProps) -> Html {
    let r = &props.results;
    let outcomes = &r.outcomes;
    let status = if props.running {
        format!("{} of {} policies finished…", outcomes.len(), r.policies.len())
    } else if r.cancelled {
        format!("Cancelled: {} of {} policies finished.", outcomes.len(), r.policies.len())
    } else if outcomes.is_empty() {
        "No results yet: choose policies and press Run.".to_string()
    } else {
        String::new()
    };
    html! {
        <section id="results-panel" class="panel" tabindex="-1" aria-labelledby="results-title">
            <h2 id="results-title"><span class="step">{ "3" }</span>{ " Results" }</h2>
            if !status.is_empty() { <p class="status">{ status }</p> }
            if !outcomes.is_empty() {
                <SummaryTable outcomes={outcomes.clone()} />
                <JctCdf outcomes={outcomes.clone()} />
                <OverTime outcomes={outcomes.clone()} />
                <JobsPerTier outcomes={outcomes.clone()} />
                <CommOverhead outcomes={outcomes.clone()} />
            }
            <Exports results={r.clone()} on_download={props.on_download.clone()}
                     on_export_scenario={props.on_export_scenario.clone()} on_error={props.on_error.clone()} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct OutcomesProps {
    outcomes: Vec<Shared<PolicyResult>>,
}

#[component]
fn SummaryTable(props: &OutcomesProps) -> Html {
    let outcomes = &props.outcomes;
    let first = outcomes.first();
    let caption = first.map(|o| {
        let s = &o.summary;
        format!("Cluster {} ({} GPUs), trace {}, seed {}, {} jobs.", s.topology, s.gpus, s.trace, s.seed, s.jobs_total)
    });
    html! {
        <div class="table-scroll">
        <table class="summary" data-testid="summary-table">
            <caption>{ format!("One row per policy. {}", caption.unwrap_or_default()) }</caption>
            <thead><tr>
                <th scope="col">{ "policy" }</th>
                { for SUMMARY_COLUMNS.iter().map(|(_, h, _)| html! { <th scope="col">{ *h }</th> }) }
                <th scope="col">{ "mean JCT vs first" }</th>
                <th scope="col">{ "run time in the worker (ms)" }</th>
                <th scope="col"><abbr title="FNV-1a over every event of the run, as `proxima run --events FILE` prints it: equal hashes, equal runs">{ "event-log hash" }</abbr></th>
            </tr></thead>
            <tbody>{ for outcomes.iter().map(|o| {
                let ratio = match first.map(|f| f.summary.avg_jct_s) {
                    Some(b) if b > 0.0 => format!("{:.2}×", o.summary.avg_jct_s / b),
                    _ => "–".into(),
                };
                html! {
                    <tr data-policy={o.policy.clone()}>
                        <th scope="row"><code>{ o.policy.clone() }</code></th>
                        { for SUMMARY_COLUMNS.iter().map(|(k, _, m)| html! {
                            <td data-metric={*k}>{ m.text(&o.summary) }</td>
                        }) }
                        <td>{ ratio }</td>
                        <td data-elapsed-ms={format!("{:.1}", o.elapsed_ms)}>{ human(o.elapsed_ms) }</td>
                        <td class="hash" data-event-hash={o.event_hash.clone()} title={format!("{} events", o.event_count)}><code>{ o.event_hash.clone() }</code></td>
                    </tr>
                }
            }) }</tbody>
        </table>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ExportsProps {
    results: Shared<Results>,
    on_download: Callback<Download>,
    on_export_scenario: Callback<()>,
    on_error: Callback<String>,
}

/// The files `proxima compare --out DIR` writes, and `scenario.json`. Their text is made
/// only when a file is asked for, by the core's functions, from the results' data.
#[component]
fn Exports(props: &ExportsProps) -> Html {
    let r = &props.results;
    // A download whose text `make` writes when the button is pressed.
    let offer = |name: String, mime: &'static str, make: Rc<dyn Fn() -> Result<String, String>>| {
        let (download, error) = (props.on_download.clone(), props.on_error.clone());
        Callback::from(move |_: MouseEvent| match make() {
            Ok(text) => download.emit((name.clone(), mime.to_string(), text.into_bytes().into())),
            Err(e) => error.emit(format!("{name} could not be written: {e}")),
        })
    };
    let compare = {
        let results = r.clone();
        offer(COMPARE_FILE.into(), JSON, Rc::new(move || results.compare_json().ok_or("not every policy ran".into())))
    };
    html! {
        <details class="export">
            <summary data-testid="export-button">{ "Export…" }</summary>
            <p class="hint">{ "The same files as `proxima compare --out DIR` writes, byte for byte, plus each run's event-log hash (which `proxima run --events FILE` prints); downloads are made in the browser." }</p>
            <ul>
                if r.finished {
                    <li><button type="button" data-export={COMPARE_FILE} onclick={compare}>{ COMPARE_FILE }</button>{ " all policies' summaries" }</li>
                }
                { for r.outcomes.iter().map(|o| {
                    let dir = result_dir_name(&o.policy);
                    let file = |name: &'static str, mime: &'static str| {
                        let o = o.clone();
                        let make: Rc<dyn Fn() -> Result<String, String>> = Rc::new(move || {
                            let files = o.files()?;
                            Ok(files.named().iter().find(|f| f.0 == name).map(|f| f.1.to_string()).unwrap_or_default())
                        });
                        html! {
                            <button type="button" data-export={format!("{dir}/{name}")} onclick={offer(format!("{dir}-{name}"), mime, make)}>{ name }</button>
                        }
                    };
                    let hash = {
                        let o = o.clone();
                        offer(format!("{dir}-event-hash.json"), JSON, Rc::new(move || Ok(event_hash_json(&o))))
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
    }
}

const JSON: &str = "application/json";
const CSV: &str = "text/csv";

#[derive(Properties, PartialEq)]
pub struct PlaybackSectionProps {
    pub results: Shared<Results>,
}

/// The run played back: placements, delay timers and preemptions as they happened.
#[component]
pub fn PlaybackSection(props: &PlaybackSectionProps) -> Html {
    html! {
        <section id="playback" class="panel" tabindex="-1" aria-labelledby="playback-title">
            <h2 id="playback-title"><span class="step">{ "▶" }</span>{ " Watch the run" }</h2>
            <crate::playback::view::PlaybackPanel results={props.results.clone()} />
        </section>
    }
}

/// `event-hash.json`: a run's event count and event-log hash, to compare with
/// `proxima run --events FILE` (which prints them) or another machine's run.
pub fn event_hash_json(r: &PolicyResult) -> String {
    let doc = serde_json::json!({
        "policy": r.policy,
        "events": r.event_count,
        "event_log_fnv1a64": r.event_hash,
        "definition": "FNV-1a (64 bits) over the lines \"TIME_US EVENT_JSON\\n\" of every event, in order",
    });
    serde_json::to_string_pretty(&doc).expect("serialises") + "\n"
}
