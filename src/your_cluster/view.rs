//! The "Your cluster" section: two drop zones (the nodes file, the job history), each
//! summarised as soon as it is read or refused with its file, line and field; the
//! scheduler and the seeds; the what-if, run in a worker of its own; its table; and the
//! report's export as self-contained HTML or Markdown.

use super::{Action, ClusterSummary, Described, HistoryFile, Scheduler, WhatIfState, YourCluster, MAX_SEEDS};
use crate::browser::worker::use_sim_worker;
use crate::protocol::{ClusterReport, FileData, FromWorker, HistorySummary, Problem, ToWorker};
use crate::scenario::MAX_TRACE_BYTES;
use proxima_core::error::SourcedError;
use proxima_core::topology::formats::DEFAULT_SLURM_GPUS;
use std::rc::Rc;
use web_sys::{File, HtmlInputElement};
use yew::prelude::*;

impl Reducible for YourCluster {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(Rc::unwrap_or_clone(self).apply(action))
    }
}

/// The answers of the section's worker that it acts on.
fn action_of(message: FromWorker) -> Option<Action> {
    match message {
        FromWorker::HistoryDescribed { id, result } => Some(Action::HistoryDescribed { id, result }),
        FromWorker::ClusterProgress { id, done, total } => Some(Action::Progress { id, done, total }),
        FromWorker::ClusterReport { id, result } => Some(Action::Finished { id, result: result.map(|r| *r) }),
        FromWorker::Panicked { message } => Some(Action::Crashed(message)),
        _ => None,
    }
}

/// Why a file is refused before anything reads it: it is larger than the page takes.
fn too_large(file: &File) -> Option<SourcedError> {
    let size = file.size() as u64;
    (size > MAX_TRACE_BYTES).then(|| SourcedError {
        source: file.name(),
        line: None,
        field: "size".into(),
        message: format!(
            "{:.1} MiB is more than the page reads (at most {} MiB)",
            size as f64 / 1048576.0,
            MAX_TRACE_BYTES >> 20
        ),
    })
}

/// Reads a chosen or dropped nodes file (refusing a large one before reading) and hands
/// its bytes to `read`, dispatching what it makes of them.
fn read_then(file: File, dispatch: Callback<Action>, read: impl FnOnce(&str, &[u8]) -> Action + 'static) {
    if let Some(error) = too_large(&file) {
        dispatch.emit(Action::FileRefused { history: false, error });
        return;
    }
    let name = file.name();
    wasm_bindgen_futures::spawn_local(async move {
        match crate::browser::read_file(file).await {
            Ok(bytes) => dispatch.emit(read(&name, &bytes)),
            Err(message) => {
                let error = SourcedError { source: name, line: None, field: "file".into(), message };
                dispatch.emit(Action::FileRefused { history: false, error });
            }
        }
    });
}

/// The whole section.
#[component]
pub fn YourClusterSection() -> Html {
    let state = use_reducer(YourCluster::default);
    let dispatch: Callback<Action> = {
        let d = state.dispatcher();
        (*use_memo((), move |_| Callback::from(move |a| d.dispatch(a)))).clone()
    };
    let worker = {
        let d = dispatch.clone();
        let on_message = Callback::from(move |m: FromWorker| {
            if let Some(a) = action_of(m) {
                d.emit(a);
            }
        });
        use_sim_worker(on_message, dispatch.reform(Action::Crashed))
    };
    let gpus = use_state(|| DEFAULT_SLURM_GPUS.to_string());
    let on_cluster = {
        let (dispatch, gpus) = (dispatch.clone(), gpus.clone());
        Callback::from(move |file: File| {
            let options = format!("gpus={}", gpus.trim());
            read_then(file, dispatch.clone(), move |name, bytes| {
                Action::ClusterRead(Box::new(super::read_cluster(name, bytes, &options)))
            });
        })
    };
    // The history goes to the worker as the browser's Blob: only the worker reads it.
    let on_history = {
        let (state, worker, dispatch) = (state.clone(), worker.clone(), dispatch.clone());
        Callback::from(move |file: File| {
            if let Some(error) = too_large(&file) {
                dispatch.emit(Action::FileRefused { history: true, error });
                return;
            }
            let (id, name, data) = (state.next_id(), file.name(), FileData::of_blob(file.into()));
            worker.post(&ToWorker::DescribeHistory { id, name: name.clone(), data: data.clone() });
            dispatch.emit(Action::HistoryChosen { id, name, data });
        })
    };
    let on_run = {
        let (state, worker, dispatch) = (state.clone(), worker.clone(), dispatch.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(request) = state.request() {
                let id = request.id;
                worker.post(&ToWorker::ClusterWhatIf(request));
                dispatch.emit(Action::Started(id));
            }
        })
    };
    let on_gpus = {
        let gpus = gpus.clone();
        Callback::from(move |e: Event| gpus.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let blocked = state.blocked();
    let s = &*state;
    html! {
        <section id="your-cluster" class="panel your-cluster" tabindex="-1" aria-labelledby="your-cluster-title" data-testid="your-cluster">
            <h2 id="your-cluster-title">{ "Your cluster" }</h2>
            <p class="hint">
                { "Your nodes and your job history, as your tools print them: see what Proxima reads of them, then run \
                   your scheduler as configured against its variants and Dally on them. Nothing leaves your browser." }
            </p>
            <div class="your-cluster-files">
                <DropZone testid="nodes" label="Nodes file (Slurm topology.conf or topology.yaml, Kueue Topology and Nodes, Volcano HyperNodes, Lingjun topo.csv, or JSON)"
                          accept=".conf,.txt,.csv,.json,.yaml,.yml,text/plain,application/json,application/yaml" on_file={on_cluster}>
                    <label class="hint">{ "GPUs per node where the file does not say (Slurm, Lingjun) " }
                        <input type="number" min="1" step="1" value={(*gpus).clone()} onchange={on_gpus} data-testid="nodes-gpus" /></label>
                    { match &s.cluster { Some(Ok(c)) => cluster_summary(c), Some(Err(e)) => file_problem("nodes", &Problem::Input(e.clone())), None => html! {} } }
                </DropZone>
                <DropZone testid="history" label="Job history (Slurm sacct --parsable2, Kueue Workloads or Volcano Jobs as kubectl -o json prints them, or any trace format Proxima reads)"
                          accept=".txt,.csv,.json,.yaml,.yml,.psv,text/plain,text/csv,application/json,application/yaml" on_file={on_history}>
                    { s.history.as_ref().map(history_view).unwrap_or_default() }
                </DropZone>
            </div>
            <SchedulerForm scheduler={s.scheduler()} guessed={s.chosen.is_none()} options={s.options.clone()} seeds={s.seeds.clone()} dispatch={dispatch.clone()} />
            <p class="your-cluster-run">
                <button class="primary" data-testid="what-if-run" disabled={!blocked.is_empty()} onclick={on_run}
                        aria-describedby="what-if-blocked">{ "Run the what-if" }</button>
                if !blocked.is_empty() {
                    <span class="hint" id="what-if-blocked" data-testid="what-if-blocked">{ format!("Run is disabled: {}.", blocked.join("; ")) }</span>
                }
            </p>
            { what_if(&s.what_if) }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct DropZoneProps {
    testid: AttrValue,
    label: AttrValue,
    accept: AttrValue,
    on_file: Callback<File>,
    #[prop_or_default]
    children: Html,
}

/// A file picker that is also a drop zone.
#[component]
fn DropZone(props: &DropZoneProps) -> Html {
    let over = use_state(|| false);
    let on_change = {
        let on_file = props.on_file.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(f) = input.files().and_then(|f| f.get(0)) {
                on_file.emit(f);
            }
            // Forget it, so that choosing the same file again (after fixing it) reads it again.
            input.set_value("");
        })
    };
    let on_drop = {
        let (on_file, over) = (props.on_file.clone(), over.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(false);
            if let Some(f) = e.data_transfer().and_then(|t| t.files()).and_then(|f| f.get(0)) {
                on_file.emit(f);
            }
        })
    };
    let on_drag_over = {
        let over = over.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(true);
        })
    };
    let on_drag_leave = {
        let over = over.clone();
        Callback::from(move |_: DragEvent| over.set(false))
    };
    html! {
        <div class={classes!("dropzone", over.then_some("over"))} data-testid={format!("{}-drop", props.testid)}
             ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
            <label>{ format!("{} ", props.label) }
                <input type="file" accept={props.accept.clone()} onchange={on_change} data-testid={format!("{}-input", props.testid)} />
            </label>
            <p class="hint">{ "…or drop it here." }</p>
            { props.children.clone() }
        </div>
    }
}

/// A refused file: its file, line and field (each in a data attribute, for the tests),
/// then what is wrong.
fn file_problem(which: &str, problem: &Problem) -> Html {
    let testid = format!("{which}-problem");
    match problem {
        Problem::Input(e) => html! {
            <p class="field-error" role="alert" data-testid={testid} data-source={e.source.clone()}
               data-line={e.line.map(|l| l.to_string())} data-field={e.field.clone()}>
                { crate::panels::where_and_what(e) }
            </p>
        },
        Problem::Message(m) => html! { <p class="field-error" role="alert" data-testid={testid}>{ m.clone() }</p> },
    }
}

fn history_view(h: &HistoryFile) -> Html {
    match &h.described {
        Described::Reading => html! { <p class="status" aria-live="polite">{ format!("Reading {}…", h.name) }</p> },
        Described::Read(summary) => history_summary(&h.name, summary),
        Described::Refused(problem) => file_problem("history", problem),
    }
}

fn cluster_summary(c: &ClusterSummary) -> Html {
    let tiers = c.tiers.iter().map(|(name, n)| format!("{n} × {name}")).collect::<Vec<_>>().join(", ");
    html! {
        <div class="preview" data-testid="nodes-summary">
            <p>
                <strong data-testid="nodes-gpus-total">{ c.gpus.to_string() }</strong>{ " GPUs" }
                if let Some(kind) = &c.gpu_kind { { " (" }<span data-testid="nodes-gpu-kind">{ kind.clone() }</span>{ ")" } }
                { " on " }<strong data-testid="nodes-servers">{ c.servers.to_string() }</strong>{ " servers, read as " }{ c.format.label() }{ " from " }{ c.name.clone() }{ "." }
            </p>
            <p>{ "Tiers: " }<span data-testid="nodes-tiers" data-tiers={c.tiers.len().to_string()}>{ if tiers.is_empty() { "one server".to_string() } else { tiers } }</span>{ "." }</p>
            if let Some((domains, (fewest, most))) = c.nvlink_domains {
                <p>{ "NVLink domains: " }<strong data-testid="nodes-nvlink-domains">{ domains.to_string() }</strong>
                    { if fewest == most { format!(" of {most} GPUs each.") } else { format!(" of {fewest} to {most} GPUs.") } }</p>
            }
            <p class="hint" data-testid="nodes-network">{ c.network.clone() }</p>
            { for c.warnings.iter().map(|w| html! { <p class="field-warning">{ format!("Warning: {w}.") }</p> }) }
        </div>
    }
}

fn history_summary(name: &str, h: &HistorySummary) -> Html {
    let (fewest, most) = h.gpus_per_job;
    html! {
        <div class="preview" data-testid="history-summary">
            <p>
                <strong data-testid="history-jobs">{ h.jobs.to_string() }</strong>{ format!(" jobs ({}, {name}) from ", h.format) }
                <strong data-testid="history-tenants">{ h.tenants.to_string() }</strong>{ " tenants, submitted over " }
                <span data-testid="history-span" data-seconds={h.span_s.to_string()}>{ crate::numbers::duration(h.span_s) }</span>
                { ", " }<span data-testid="history-gpus" data-min={fewest.to_string()} data-max={most.to_string()}>
                    { if fewest == most { format!("{most} GPUs each") } else { format!("{fewest} to {most} GPUs per job") } }</span>{ "." }
            </p>
            if !h.left_out.is_empty() {
                <ul class="hint" data-testid="history-left-out">
                    { for h.left_out.iter().map(|l| html! {
                        <li data-rows={l.rows.to_string()}>{ format!("{} {} left out (the first on line {}).", l.rows, l.reason, l.first_line) }</li>
                    }) }
                </ul>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct SchedulerProps {
    scheduler: Scheduler,
    guessed: bool,
    options: String,
    seeds: String,
    dispatch: Callback<Action>,
}

/// The scheduler the operator runs (guessed from the nodes file until chosen) and the seeds.
#[component]
fn SchedulerForm(props: &SchedulerProps) -> Html {
    let on_scheduler = props.dispatch.reform(|e: Event| {
        let spec = e.target_unchecked_into::<HtmlInputElement>().value();
        Action::ChooseScheduler(Scheduler::from_spec(&spec).unwrap_or(Scheduler::Slurm))
    });
    let on_options =
        props.dispatch.reform(|e: Event| Action::SetOptions(e.target_unchecked_into::<HtmlInputElement>().value()));
    let on_seeds =
        props.dispatch.reform(|e: Event| Action::SetSeeds(e.target_unchecked_into::<HtmlInputElement>().value()));
    html! {
        <fieldset class="your-cluster-scheduler">
            <legend>{ "Your scheduler" }</legend>
            <span role="radiogroup" aria-label="Scheduler" data-testid="scheduler">
                { for Scheduler::ALL.iter().map(|s| html! {
                    <label><input type="radio" name="your-cluster-scheduler" value={s.spec()} checked={*s == props.scheduler}
                                  onchange={on_scheduler.clone()} data-testid={format!("scheduler-{}", s.spec())} />{ format!(" {} ", s.label()) }</label>
                }) }
            </span>
            if props.guessed {
                <span class="hint">{ "(guessed from the nodes file)" }</span>
            }
            <label>{ "Configured with " }
                <input type="text" value={props.options.clone()} placeholder="its defaults, or e.g. required=rack" onchange={on_options}
                       data-testid="scheduler-options" /></label>
            <label>{ "Seeds " }
                <input type="number" min="1" max={MAX_SEEDS.to_string()} step="1" value={props.seeds.clone()} onchange={on_seeds} data-testid="what-if-seeds" /></label>
        </fieldset>
    }
}

/// The what-if's progress, its failure, or its table and exports.
fn what_if(state: &WhatIfState) -> Html {
    match state {
        WhatIfState::NotRun => html! {},
        WhatIfState::Running { done, total, .. } => html! {
            <p class="status" aria-live="polite" data-testid="what-if-status">
                { if *total == 0 { "Starting the what-if…".to_string() } else { format!("Running seed {} of {total}…", done + 1) } }
            </p>
        },
        WhatIfState::Failed(problem) => file_problem("what-if", problem),
        WhatIfState::Done(report) => report_view(report),
    }
}

fn report_view(report: &ClusterReport) -> Html {
    let export = |name: &'static str, mime: &'static str, text: String| {
        Callback::from(move |_: MouseEvent| crate::browser::download(name, mime, text.as_bytes()))
    };
    html! {
        <div class="what-if-report" data-testid="what-if-report">
            <table class="what-if-table" data-testid="what-if-table">
                <caption>{ format!("{} on {}: mean job completion time over {} seed{}, against {} as configured",
                                    report.history, report.topology, report.seeds, if report.seeds == 1 { "" } else { "s" }, report.scheduler) }</caption>
                <thead><tr>
                    <th scope="col">{ "Policy" }</th><th scope="col">{ "Mean JCT" }</th><th scope="col">{ "vs configured (95% interval)" }</th>
                    <th scope="col">{ "Mean queueing" }</th><th scope="col">{ "Preemptions" }</th><th scope="col">{ "Never placed" }</th>
                </tr></thead>
                <tbody>{ for report.rows.iter().enumerate().map(|(i, r)| html! {
                    <tr data-policy={r.policy.clone()} data-role={if i == 0 { "configured" } else { "alternative" }}>
                        <th scope="row"><code>{ r.policy.clone() }</code></th>
                        <td data-value={r.mean_jct_s.to_string()}>{ crate::numbers::duration(r.mean_jct_s) }</td>
                        <td data-value={r.ratio.map(|x| x.to_string())}>{ match r.ratio {
                            // † as in the report: a side left jobs never placed, so the means are over different jobs.
                            Some(x) if r.unplaced > 0.0 || report.rows[0].unplaced > 0.0 => format!("{x:.3} ({:.3} – {:.3}) †", r.ratio_low, r.ratio_high),
                            Some(x) => format!("{x:.3} ({:.3} – {:.3})", r.ratio_low, r.ratio_high),
                            None if i == 0 => "baseline".to_string(),
                            None => "–".to_string(),
                        } }</td>
                        <td>{ crate::numbers::duration(r.mean_queue_s) }</td>
                        <td>{ format!("{:.1}", r.preemptions) }</td>
                        <td data-value={r.unplaced.to_string()}>{ format!("{:.1}", r.unplaced) }</td>
                    </tr>
                }) }</tbody>
            </table>
            { for report.caution.iter().map(|c| html! { <p class="caution" data-testid="what-if-caution">{ c.clone() }</p> }) }
            <p>
                <button data-testid="export-what-if-html" onclick={export("what-if.html", "text/html", report.html.clone())}>{ "Export report (HTML)" }</button>
                { " " }
                <button data-testid="export-what-if-markdown" onclick={export("what-if.md", "text/markdown", report.markdown.clone())}>{ "Markdown" }</button>
            </p>
        </div>
    }
}
