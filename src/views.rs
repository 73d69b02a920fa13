//! The page's panels. Each is a dumb view: it renders the [`State`] it is given and turns
//! user input into [`Action`]s or into the callbacks the app gave it (for effects such as
//! reading a file or starting a run). Text from users (file names, topology names, policy
//! specs) is only ever rendered as text nodes or attribute values, which yew escapes.

use crate::charts::{human, CommOverhead, JctCdf, JobsPerTier, OverTime};
use crate::state::{
    slug, Action, GenField, ParamField, RunState, State, TraceMode, MAX_APP_JOBS, MAX_TRACE_BYTES, STANDARD_POLICIES,
};
use crate::topology_view::TopologyEditor;
use proxima_core::model::Catalog;
use proxima_core::share::TopologyChoice;
use proxima_core::topology::PRESETS;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, File, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The columns of the summary table: `summary.json` keys with their headings.
pub const SUMMARY_COLUMNS: &[(&str, &str)] = &[
    ("avg_jct_s", "mean JCT (s)"),
    ("p50_jct_s", "p50 JCT (s)"),
    ("p95_jct_s", "p95 JCT (s)"),
    ("p99_jct_s", "p99 JCT (s)"),
    ("makespan_s", "makespan (s)"),
    ("avg_queue_s", "mean queueing (s)"),
    ("comm_overhead_s", "comm. overhead (s)"),
    ("avg_gpu_util", "GPU utilisation (0–1)"),
    ("preemptions", "preemptions"),
    ("jobs_completed", "completed"),
    ("jobs_rejected", "rejected"),
    ("jobs_unfinished", "unfinished"),
];

fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

#[derive(Properties, PartialEq)]
pub struct IntroProps {
    /// Starts the guided introduction.
    pub on_tour: Callback<()>,
    /// The tour is already open (or running).
    pub touring: bool,
}

/// A short explanation of why placement matters, the guided introduction, and the keys.
#[component]
pub fn Intro(props: &IntroProps) -> Html {
    html! {
        <section class="intro" aria-labelledby="intro-title">
            <h2 id="intro-title">{ "Why placement matters" }</h2>
            <p>
                { "A data-parallel training job exchanges its gradients after every iteration. \
                   Inside one server the GPUs talk over NVLink (hundreds of GB/s); across servers, over \
                   the network (tens of GB/s), and across racks through uplinks shared with every other \
                   job. So the same job can run up to several times slower when its GPUs are scattered, \
                   and communication-heavy models (VGG, BERT, GPT-2) suffer most." }
            </p>
            <p>
                { "Consolidating schedulers take the tightest placement free now. " }
                <strong>{ "Dally" }</strong>
                { " (arXiv:2401.16492) also lets a sensitive job wait a bounded time for a tight placement, \
                   preempts less sensitive jobs to make room, and tunes its wait timers as it runs. \
                   Pick a cluster and a trace, run two policies, and compare job completion times." }
            </p>
            <p>
                <button type="button" class="primary" data-testid="intro-button" disabled={props.touring}
                        onclick={props.on_tour.reform(|_| ())}>{ "Take the guided tour" }</button>
                { " Five short steps on a 16-GPU cluster: a job waits for a better placement and finishes sooner; a timer too short; the auto-tuner finding a good one." }
            </p>
            <details class="keys">
                <summary>{ "Keyboard" }</summary>
                <dl>
                    <dt><kbd>{ "Ctrl" }</kbd>{ " + " }<kbd>{ "Enter" }</kbd>{ " or " }<kbd>{ "r" }</kbd></dt><dd>{ "run the selected policies" }</dd>
                    <dt><kbd>{ "Esc" }</kbd></dt><dd>{ "cancel the run" }</dd>
                    <dt><kbd>{ "1" }</kbd>{ ", " }<kbd>{ "2" }</kbd>{ ", " }<kbd>{ "3" }</kbd></dt><dd>{ "go to the scenario, run or results panel" }</dd>
                    <dt><kbd>{ "Tab" }</kbd></dt><dd>{ "move between controls; Enter or Space to press buttons" }</dd>
                    <dt>{ "In the cluster editor" }</dt><dd>{ "arrows select, Shift+arrows move; a add rack, s server, g GPU, w switch, l link; Delete; c fold; Ctrl+Z undo, Ctrl+Y redo; + − 0 zoom (the editor's own list has them all)" }</dd>
                    <dt>{ "In the playback" }</dt><dd>{ "Space play or pause; ← → previous or next event; Home, End; Esc clears the selected job" }</dd>
                </dl>
                <p>{ "Single-letter keys work when the focus is not in a text field." }</p>
            </details>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct BannersProps {
    pub errors: Vec<String>,
    pub notices: Vec<String>,
    pub dispatch: Callback<Action>,
}

#[component]
pub fn Banners(props: &BannersProps) -> Html {
    let dismiss_errors = props.dispatch.reform(|_| Action::DismissErrors);
    let dismiss_notices = props.dispatch.reform(|_| Action::DismissNotices);
    html! {
        <>
            if !props.errors.is_empty() {
                <div class="banner error" role="alert" data-testid="error-banner">
                    <ul>{ for props.errors.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
                    <button type="button" onclick={dismiss_errors} aria-label="Dismiss the errors">{ "Dismiss" }</button>
                </div>
            }
            if !props.notices.is_empty() {
                <div class="banner notice" role="status" data-testid="notice-banner">
                    <ul>{ for props.notices.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
                    <button type="button" onclick={dismiss_notices} aria-label="Dismiss the notices">{ "Dismiss" }</button>
                </div>
            }
        </>
    }
}

#[derive(Properties, PartialEq)]
pub struct ScenarioPanelProps {
    pub state: Rc<State>,
    pub dispatch: Callback<Action>,
    pub on_topology_file: Callback<File>,
    pub on_trace_file: Callback<File>,
    pub on_export_topology: Callback<()>,
}

/// The cluster and the trace.
#[component]
pub fn ScenarioPanel(props: &ScenarioPanelProps) -> Html {
    let s = &props.state;
    let d = &props.dispatch;
    let preset_value = match (&s.preset, &s.topology_choice) {
        (Some(p), _) => p.clone(),
        (None, TopologyChoice::Custom(_)) => "imported".into(),
        _ => "parametric".into(),
    };
    let on_preset = d.reform(|e: Event| Action::SelectPreset(e.target_unchecked_into::<HtmlSelectElement>().value()));
    let param = |label: &'static str, field: ParamField, value: &str, step: &'static str, min: &'static str| {
        let on = d.reform(move |e: Event| Action::SetParam(field, input_value(&e)));
        html! {
            <label>{ label }<input type="number" min={min} step={step} value={value.to_string()} onchange={on} /></label>
        }
    };
    let gen = |label: &'static str,
               field: GenField,
               value: &str,
               step: &'static str,
               min: &'static str,
               max: String| {
        let on = d.reform(move |e: Event| Action::SetGenerator(field, input_value(&e)));
        html! {
            <label>{ label }<input type="number" min={min} max={max} step={step} value={value.to_string()} onchange={on} /></label>
        }
    };
    let file_of = |e: &Event| -> Option<File> {
        let input = e.target_unchecked_into::<HtmlInputElement>();
        let file = input.files().and_then(|f| f.get(0));
        // Clear, so that picking the same file again (after fixing it) fires again.
        input.set_value("");
        file
    };
    let on_topology_file = {
        let cb = props.on_topology_file.clone();
        Callback::from(move |e: Event| {
            if let Some(f) = file_of(&e) {
                cb.emit(f)
            }
        })
    };
    let on_trace_file = {
        let cb = props.on_trace_file.clone();
        Callback::from(move |e: Event| {
            if let Some(f) = file_of(&e) {
                cb.emit(f)
            }
        })
    };
    let on_drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    let on_drop = {
        let cb = props.on_trace_file.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if let Some(f) = e.data_transfer().and_then(|t| t.files()).and_then(|f| f.get(0)) {
                cb.emit(f);
            }
        })
    };
    let export_topology = props.on_export_topology.reform(|_| ());
    let mode = |m: TraceMode| d.reform(move |_| Action::SetTraceMode(m));
    let on_mix = d.reform(|e: Event| Action::SetMix(input_value(&e)));
    let preview = match s.trace_mode {
        TraceMode::Synthetic => s.synthetic_preview.as_deref().cloned(),
        TraceMode::File => s.uploaded.as_ref().map(|u| u.preview.clone()),
    };
    let models = Catalog::built_in().names().join(", ");
    html! {
        <section id="scenario-panel" class="panel" tabindex="-1" aria-labelledby="scenario-title">
            <h2 id="scenario-title"><span class="step">{ "1" }</span>{ " Scenario" }</h2>
            <div class="subpanel" id="topology">
                <h3>{ "Cluster" }</h3>
                <div class="form-row">
                    <label>{ "Preset " }
                        <select onchange={on_preset} value={preset_value.clone()}>
                            { for PRESETS.iter().map(|p| html! {
                                <option value={p.name} selected={preset_value == p.name} title={p.description}>{ p.name }</option>
                            }) }
                            <option value="parametric" disabled=true selected={preset_value == "parametric"}>{ "custom (form below)" }</option>
                            <option value="imported" disabled=true selected={preset_value == "imported"}>{ "edited or imported" }</option>
                        </select>
                    </label>
                    <label class="file-button">{ "Import JSON…" }
                        <input type="file" accept=".json,application/json" onchange={on_topology_file} data-testid="topology-input" />
                    </label>
                    <button type="button" onclick={export_topology}>{ "Export JSON" }</button>
                </div>
                if let Some(p) = s.preset.as_ref().and_then(|n| proxima_core::topology::preset(n)) {
                    <p class="hint">{ p.description }</p>
                }
                <fieldset class="parametric">
                    <legend>{ "Parametric form" }</legend>
                    { param("racks", ParamField::Racks, &s.param.racks, "1", "1") }
                    { param("servers per rack", ParamField::Servers, &s.param.servers, "1", "1") }
                    { param("GPUs per server", ParamField::Gpus, &s.param.gpus, "1", "1") }
                    { param("oversubscription", ParamField::Oversub, &s.param.oversub, "any", "1") }
                    { param("NIC Gb/s", ParamField::NicGbps, &s.param.nic_gbps, "any", "0") }
                    { param("NVLink Gb/s per GPU", ParamField::NvlinkGbps, &s.param.nvlink_gbps, "any", "0") }
                    if let Some(e) = &s.param_error {
                        <p class="field-error" role="alert">{ e.clone() }</p>
                    }
                </fieldset>
                <div class="topology" data-testid="topology-view" aria-label="Cluster topology">
                    <TopologyEditor editor={s.editor.clone()} dispatch={d.clone()} />
                </div>
            </div>
            <div class="subpanel" id="trace">
                <h3>{ "Trace" }</h3>
                <div class="form-row" role="radiogroup" aria-label="Where the jobs come from">
                    <label><input type="radio" name="trace-mode" checked={s.trace_mode == TraceMode::Synthetic} onchange={mode(TraceMode::Synthetic)} />{ " synthetic (Philly-shaped)" }</label>
                    <label><input type="radio" name="trace-mode" checked={s.trace_mode == TraceMode::File} onchange={mode(TraceMode::File)} disabled={s.uploaded.is_none()} />
                        { format!(" file{}", s.uploaded.as_ref().map(|u| format!(": {}", u.name)).unwrap_or_default()) }</label>
                </div>
                <fieldset class="generator">
                    <legend>{ "Synthetic generator" }</legend>
                    { gen("jobs", GenField::Jobs, &s.generator.jobs, "1", "1", MAX_APP_JOBS.to_string()) }
                    { gen("offered load", GenField::Load, &s.generator.load, "any", "0", crate::state::LOAD_MAX.to_string()) }
                    { gen("trace seed", GenField::Seed, &s.generator.seed, "1", "0", u64::MAX.to_string()) }
                    if let Some(e) = &s.generator_error {
                        <p class="field-error" role="alert">{ e.clone() }</p>
                    }
                </fieldset>
                <div class="dropzone" ondragover={on_drag_over} ondrop={on_drop}>
                    <label>{ "Trace file (CSV or JSON: Philly, Tiresias, Pollux or Proxima format) " }
                        <input type="file" accept=".csv,.json,text/csv,application/json" data-testid="trace-input" onchange={on_trace_file} />
                    </label>
                    <p class="hint">{ format!("…or drop it here. Up to {} MiB; the format is detected from the header, as the CLI does.", MAX_TRACE_BYTES >> 20) }</p>
                </div>
                <label class="mix">{ "Model mix for jobs without a model " }
                    <input type="text" value={s.mix.clone()} placeholder="default: 8 models, equal shares" onchange={on_mix} aria-describedby="mix-hint" />
                </label>
                <p class="hint" id="mix-hint">{ format!("name[:weight],… e.g. vgg16:2,resnet50:1. Models: {models}.") }</p>
                if let Some(e) = &s.mix_error {
                    <p class="field-error" role="alert">{ e.clone() }</p>
                }
                <TracePreviewView preview={preview} />
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct TracePreviewProps {
    pub preview: Option<crate::state::TracePreview>,
}

#[component]
pub fn TracePreviewView(props: &TracePreviewProps) -> Html {
    let Some(p) = &props.preview else { return html! {} };
    let max = p.gpu_histogram.iter().map(|h| h.1).max().unwrap_or(1).max(1);
    html! {
        <div class="preview" data-testid="trace-preview">
            <p>
                <strong data-testid="trace-job-count">{ p.jobs.to_string() }</strong>{ format!(" jobs ({}), submitted over {}.", p.format, crate::charts::duration(p.span_s)) }
            </p>
            <table class="histogram" aria-label="Jobs per GPU count">
                <thead><tr><th scope="col">{ "GPUs" }</th><th scope="col">{ "jobs" }</th><th scope="col"><span class="visually-hidden">{ "bar" }</span></th></tr></thead>
                <tbody>{ for p.gpu_histogram.iter().map(|(g, n)| html! {
                    <tr><td>{ g.to_string() }</td><td>{ n.to_string() }</td>
                        <td><svg class="hbar" width="120" height="10" aria-hidden="true"><rect height="10" width={format!("{:.1}", 120.0 * (*n as f64).ln_1p() / (max as f64).ln_1p())} /></svg></td></tr>
                }) }</tbody>
            </table>
            <p class="hint">{ "Bars on a log scale: most jobs ask for one GPU." }</p>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct RunPanelProps {
    pub state: Rc<State>,
    pub dispatch: Callback<Action>,
    pub on_run: Callback<()>,
    pub on_cancel: Callback<()>,
    pub on_share: Callback<()>,
}

/// Policies, seed, the run and cancel buttons and the progress bar.
#[component]
pub fn RunPanel(props: &RunPanelProps) -> Html {
    let s = &props.state;
    let d = &props.dispatch;
    let custom_ref = use_node_ref();
    let add_custom = {
        let d = d.clone();
        let r = custom_ref.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(input) = r.cast::<HtmlInputElement>() {
                d.emit(Action::AddPolicy(input.value()));
            }
        })
    };
    let on_seed = d.reform(|e: Event| Action::SetSeed(input_value(&e)));
    let running = s.is_running();
    let extra: Vec<(usize, &String)> =
        s.policies.iter().enumerate().filter(|(_, p)| !STANDARD_POLICIES.iter().any(|(sp, _)| sp == p)).collect();
    html! {
        <section id="run-panel" class="panel" tabindex="-1" aria-labelledby="run-title">
            <h2 id="run-title"><span class="step">{ "2" }</span>{ " Run" }</h2>
            <fieldset class="policies" data-testid="policy-select">
                <legend>{ "Policies (run one after another, in this order)" }</legend>
                { for STANDARD_POLICIES.iter().map(|(spec, what)| {
                    let on = d.reform(move |_| Action::TogglePolicy(spec.to_string()));
                    let position = s.policies.iter().position(|p| p == spec);
                    html! {
                        <label class="policy">
                            <input type="checkbox" value={*spec} checked={position.is_some()} onchange={on} />
                            <code>{ *spec }</code>{ format!(" — {what}") }
                            if let Some(i) = position { <span class="order">{ format!(" (#{})", i + 1) }</span> }
                        </label>
                    }
                }) }
                { for extra.into_iter().map(|(i, spec)| {
                    let remove = d.reform(move |_: Event| Action::RemovePolicy(i));
                    let remove_click = d.reform(move |_: MouseEvent| Action::RemovePolicy(i));
                    html! {
                        <div class="policy custom">
                            <input type="checkbox" value={spec.clone()} checked=true onchange={remove} aria-label={format!("run {spec}")} />
                            <code>{ spec.clone() }</code>{ format!(" (#{})", i + 1) }
                            <button type="button" class="small" onclick={remove_click}>{ "remove" }</button>
                        </div>
                    }
                }) }
                <form class="custom-policy" onsubmit={add_custom}>
                    <label>{ "Add a policy with options " }
                        <input ref={custom_ref} type="text" placeholder="dally:timers=120/60,restore_s=60" data-testid="custom-policy" />
                    </label>
                    <button type="submit">{ "Add" }</button>
                </form>
                <details class="hint">
                    <summary>{ "Policy options" }</summary>
                    <ul>{ for proxima_core::policy::POLICIES.iter().map(|p| html! {
                        <li><code>{ p.name }</code>{ format!(": {}. Options: {}.", p.summary, p.options) }</li>
                    }) }</ul>
                </details>
                if let Some(e) = &s.policy_error {
                    <p class="field-error" role="alert">{ e.clone() }</p>
                }
            </fieldset>
            <div class="form-row">
                <label>{ "Seed (model assignment) " }<input type="number" min="0" step="1" value={s.seed.clone()} onchange={on_seed} data-testid="seed-input" /></label>
                if let Some(e) = &s.seed_error {
                    <span class="field-error" role="alert">{ e.clone() }</span>
                }
            </div>
            <div class="run-controls">
                <button type="button" class="primary" data-testid="run-button" disabled={running} onclick={props.on_run.reform(|_| ())}
                        aria-keyshortcuts="Control+Enter r">{ "Run" }</button>
                <button type="button" data-testid="cancel-button" disabled={!running} onclick={props.on_cancel.reform(|_| ())}
                        aria-keyshortcuts="Escape">{ "Cancel" }</button>
                <button type="button" data-testid="share-button" onclick={props.on_share.reform(|_| ())}>{ "Share link" }</button>
            </div>
            <Progress run={s.run.clone()} />
            if let Some(url) = &s.share_link {
                <label class="share-link">{ "Link to this scenario (copied if the browser allowed it): " }
                    <input type="text" readonly=true value={url.clone()} data-testid="share-link" onfocus={Callback::from(|e: FocusEvent| {
                        if let Some(i) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) { i.select(); }
                    })} />
                </label>
            }
            if let Some(cmd) = s.cli_command() {
                <details class="cli">
                    <summary>{ "The same run on the command line" }</summary>
                    <pre><code>{ cmd }</code></pre>
                </details>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct ProgressProps {
    pub run: RunState,
}

#[component]
pub fn Progress(props: &ProgressProps) -> Html {
    match &props.run {
        RunState::Idle => html! {
            <div class="progress-row">
                <progress data-testid="progress" max="1" value="0" aria-label="run progress"></progress>
                <span class="progress-text">{ "idle" }</span>
            </div>
        },
        RunState::Running { policies, current, done, total, .. } => {
            let n = policies.len().max(1) as f64;
            let part = if *total > 0 { *done as f64 / *total as f64 } else { 0.0 };
            let overall = ((*current as f64 + part) / n).clamp(0.0, 1.0);
            let name = policies.get(*current as usize).cloned().unwrap_or_default();
            html! {
                <div class="progress-row" aria-live="polite">
                    <progress data-testid="progress" max="1" value={format!("{overall:.4}")} aria-label="run progress"></progress>
                    <span class="progress-text">{ format!("policy {} of {}: {name} — {done} of {total} jobs finished", current + 1, policies.len()) }</span>
                </div>
            }
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct ResultsPanelProps {
    pub state: Rc<State>,
    /// A file to download: (file name, MIME type, text).
    pub on_download: Callback<(String, String, String)>,
}

/// The summary table, the charts and the exports.
#[component]
pub fn ResultsPanel(props: &ResultsPanelProps) -> Html {
    let r = &props.state.results;
    let outcomes = r.outcomes.clone();
    let dl = |name: String, mime: &'static str, text: String| {
        let cb = props.on_download.clone();
        Callback::from(move |_| cb.emit((name.clone(), mime.to_string(), text.clone())))
    };
    let scenario_json = props.state.scenario_json();
    let status = if props.state.is_running() {
        format!("{} of {} policies finished…", r.outcomes.len(), r.policies.len())
    } else if r.cancelled {
        format!("Cancelled: {} of {} policies finished.", r.outcomes.len(), r.policies.len())
    } else if r.outcomes.is_empty() {
        "No results yet: choose policies and press Run.".to_string()
    } else {
        String::new()
    };
    let first = outcomes.first().cloned();
    html! {
        <section id="results-panel" class="panel" tabindex="-1" aria-labelledby="results-title">
            <h2 id="results-title"><span class="step">{ "3" }</span>{ " Results" }</h2>
            if !status.is_empty() { <p class="status">{ status }</p> }
            if !outcomes.is_empty() {
                <div class="table-scroll">
                <table class="summary" data-testid="summary-table">
                    <caption>{ format!("One row per policy. {}", first.as_ref().map(|o| format!(
                        "Cluster {} ({} GPUs), trace {}, seed {}, {} jobs.",
                        o.summary.get("topology").and_then(|v| v.as_str()).unwrap_or(""),
                        o.number("gpus").unwrap_or(0.0),
                        o.summary.get("trace").and_then(|v| v.as_str()).unwrap_or(""),
                        o.summary.get("seed").map(|v| v.to_string()).unwrap_or_default(),
                        o.number("jobs_total").unwrap_or(0.0))).unwrap_or_default()) }</caption>
                    <thead><tr>
                        <th scope="col">{ "policy" }</th>
                        { for SUMMARY_COLUMNS.iter().map(|(_, h)| html! { <th scope="col">{ *h }</th> }) }
                        <th scope="col">{ "mean JCT vs first" }</th>
                        <th scope="col">{ "run time in the worker (ms)" }</th>
                        <th scope="col"><abbr title="FNV-1a over every event of the run, as `proxima run --events FILE` prints it: equal hashes, equal runs">{ "event-log hash" }</abbr></th>
                    </tr></thead>
                    <tbody>{ for outcomes.iter().map(|o| {
                        let ratio = match (o.number("avg_jct_s"), first.as_ref().and_then(|f| f.number("avg_jct_s"))) {
                            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
                            _ => "–".into(),
                        };
                        html! {
                            <tr data-policy={o.result.policy.clone()}>
                                <th scope="row"><code>{ o.result.policy.clone() }</code></th>
                                { for SUMMARY_COLUMNS.iter().map(|(k, _)| html! {
                                    // The plain number, exactly as in summary.json.
                                    <td data-metric={*k}>{ o.raw.get(*k).cloned().unwrap_or_default() }</td>
                                }) }
                                <td>{ ratio }</td>
                                <td data-elapsed-ms={format!("{:.1}", o.result.elapsed_ms)}>{ human(o.result.elapsed_ms) }</td>
                                <td class="hash" data-event-hash={o.result.event_hash.clone()} title={format!("{} events", o.result.event_count)}><code>{ o.result.event_hash.clone() }</code></td>
                            </tr>
                        }
                    }) }</tbody>
                </table>
                </div>
                <JctCdf outcomes={outcomes.clone()} />
                <OverTime outcomes={outcomes.clone()} />
                <JobsPerTier outcomes={outcomes.clone()} />
                <CommOverhead outcomes={outcomes.clone()} />
            }
            <details class="export">
                <summary data-testid="export-button">{ "Export…" }</summary>
                <p class="hint">{ "The same files as `proxima compare --out DIR` writes, byte for byte, plus each run's event-log hash (which `proxima run --events FILE` prints); downloads are made in the browser." }</p>
                <ul>
                    if let Some(text) = &r.compare_json {
                        <li><button type="button" data-export="compare.json" onclick={dl("compare.json".into(), "application/json", text.clone())}>{ "compare.json" }</button>{ " all policies' summaries" }</li>
                    }
                    { for outcomes.iter().map(|o| {
                        let dir = slug(&o.result.policy);
                        html! {
                            <li>
                                <code>{ format!("{dir}/") }</code>
                                <button type="button" data-export={format!("{dir}/summary.json")} onclick={dl(format!("{dir}-summary.json"), "application/json", o.result.summary_json.clone())}>{ "summary.json" }</button>
                                <button type="button" data-export={format!("{dir}/jobs.csv")} onclick={dl(format!("{dir}-jobs.csv"), "text/csv", o.result.jobs_csv.clone())}>{ "jobs.csv" }</button>
                                <button type="button" data-export={format!("{dir}/timeseries.csv")} onclick={dl(format!("{dir}-timeseries.csv"), "text/csv", o.result.timeseries_csv.clone())}>{ "timeseries.csv" }</button>
                                <button type="button" data-export={format!("{dir}/event-hash.json")} onclick={dl(format!("{dir}-event-hash.json"), "application/json", event_hash_json(&o.result))}>{ "event-hash.json" }</button>
                            </li>
                        }
                    }) }
                    if let Some(text) = scenario_json {
                        <li><button type="button" data-export="scenario.json" onclick={dl("scenario.json".into(), "application/json", text)}>{ "scenario.json" }</button>{ " the scenario: topology, trace, policies, seed, share code and CLI command" }</li>
                    }
                </ul>
            </details>
        </section>
    }
}

#[derive(Properties)]
pub struct PlaybackSectionProps {
    pub results: Rc<crate::state::Results>,
}

impl PartialEq for PlaybackSectionProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.results, &other.results)
    }
}

/// The run played back: placements, delay timers and preemptions as they happened.
#[component]
pub fn PlaybackSection(props: &PlaybackSectionProps) -> Html {
    html! {
        <section id="playback" class="panel" tabindex="-1" aria-labelledby="playback-title">
            <h2 id="playback-title"><span class="step">{ "▶" }</span>{ " Watch the run" }</h2>
            <crate::playback_view::PlaybackPanel results={props.results.clone()} />
        </section>
    }
}

/// `event-hash.json`: a run's event count and event-log hash, to compare with
/// `proxima run --events FILE` (which prints them) or another machine's run.
pub fn event_hash_json(r: &crate::protocol::PolicyResult) -> String {
    let doc = serde_json::json!({
        "policy": r.policy,
        "events": r.event_count,
        "event_log_fnv1a64": r.event_hash,
        "definition": "FNV-1a (64 bits) over the lines \"TIME_US EVENT_JSON\\n\" of every event, in order",
    });
    serde_json::to_string_pretty(&doc).expect("serialises") + "\n"
}
