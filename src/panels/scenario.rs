//! Panel 1: the cluster (presets, the parametric form, import and export, the editor) and
//! the trace (the generator, a trace file, the model mix), with the trace's preview.

use super::input_value;
use crate::editor::view::TopologyEditor;
use crate::editor::EditAction;
use crate::protocol::{Problem, TracePreview};
use crate::scenario::fields::{model_names, models_in_words, GenField, ParamField};
use crate::state::{Action, Cluster, Field, TraceForm, TraceMode, MAX_APP_JOBS, MAX_TRACE_BYTES};
use crate::Shared;
use proxima_core::model::Catalog;
use proxima_core::share::TopologyChoice;
use proxima_core::topology::{all_presets, Preset};
use proxima_core::trace::synthetic::MAX_LOAD;
use proxima_core::trace::tenant_mix::MAX_TENANTS;
use web_sys::{DragEvent, File, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ScenarioPanelProps {
    pub cluster: Shared<Cluster>,
    pub trace: TraceForm,
    pub mix: Field<String>,
    pub dispatch: Callback<Action>,
    pub on_edit: Callback<EditAction>,
    pub on_topology_file: Callback<File>,
    pub on_trace_file: Callback<File>,
    pub on_export_topology: Callback<()>,
}

/// The cluster and the trace.
#[component]
pub fn ScenarioPanel(props: &ScenarioPanelProps) -> Html {
    html! {
        <section id="scenario-panel" class="panel" tabindex="-1" aria-labelledby="scenario-title">
            <h2 id="scenario-title"><span class="step">{ "1" }</span>{ " Scenario" }</h2>
            <ClusterSection cluster={props.cluster.clone()} dispatch={props.dispatch.clone()} on_edit={props.on_edit.clone()}
                            on_topology_file={props.on_topology_file.clone()} on_export_topology={props.on_export_topology.clone()} />
            <TraceSection trace={props.trace.clone()} mix={props.mix.clone()} dispatch={props.dispatch.clone()}
                          on_trace_file={props.on_trace_file.clone()} gpus={props.cluster.gpu_count()}
                          gpu={props.cluster.topology.gpu().map(str::to_string)} />
        </section>
    }
}

/// The file an `<input type=file>` holds, which it then forgets, so that picking the same
/// file again (after fixing it) fires again.
pub(super) fn take_file(e: &Event) -> Option<File> {
    let input = e.target_unchecked_into::<HtmlInputElement>();
    let file = input.files().and_then(|f| f.get(0));
    input.set_value("");
    file
}

#[derive(Properties, PartialEq)]
struct ClusterProps {
    cluster: Shared<Cluster>,
    dispatch: Callback<Action>,
    on_edit: Callback<EditAction>,
    on_topology_file: Callback<File>,
    on_export_topology: Callback<()>,
}

#[component]
fn ClusterSection(props: &ClusterProps) -> Html {
    let c = &props.cluster;
    let d = &props.dispatch;
    let preset_value = match (&c.preset, &c.choice) {
        (Some(p), _) => p.clone(),
        (None, TopologyChoice::Custom(_)) => "imported".into(),
        _ => "parametric".into(),
    };
    let on_preset = d.reform(|e: Event| Action::SelectPreset(e.target_unchecked_into::<HtmlSelectElement>().value()));
    let on_file = {
        let cb = props.on_topology_file.clone();
        Callback::from(move |e: Event| {
            if let Some(f) = take_file(&e) {
                cb.emit(f)
            }
        })
    };
    html! {
        <div class="subpanel" id="topology">
            <h3>{ "Cluster" }</h3>
            <div class="form-row">
                <label>{ "Preset " }
                    <select onchange={on_preset} value={preset_value.clone()}>
                        { for runnable_presets().iter().map(|p| html! {
                            <option value={p.name} selected={preset_value == p.name} title={p.description}>{ p.name }</option>
                        }) }
                        <option value="parametric" disabled=true selected={preset_value == "parametric"}>{ "custom (form below)" }</option>
                        <option value="imported" disabled=true selected={preset_value == "imported"}>{ "edited or imported" }</option>
                    </select>
                </label>
                <label class="file-button">{ "Import JSON…" }
                    <input type="file" accept=".json,application/json" onchange={on_file} data-testid="topology-input" />
                </label>
                <button type="button" onclick={props.on_export_topology.reform(|_| ())}>{ "Export JSON" }</button>
            </div>
            if let Some(p) = c.preset.as_ref().and_then(|n| proxima_core::topology::preset(n)) {
                <p class="hint">{ p.description }</p>
            }
            { parametric_form(c, d) }
            <div class="topology" data-testid="topology-view" aria-label="Cluster topology">
                <TopologyEditor editor={c.editor.clone()} edit={props.on_edit.clone()} />
            </div>
        </div>
    }
}

/// The parametric form: racks, servers, GPUs, links, fabric and GPU kind, greyed when an
/// imported or edited cluster is the one in use.
fn parametric_form(c: &Cluster, d: &Callback<Action>) -> Html {
    // An imported or edited cluster is not what the parametric fields describe: they are
    // greyed and say so rather than show another cluster's GPU, fabric and size as if in use.
    let imported = matches!(c.choice, TopologyChoice::Custom(_));
    let param = |label: &'static str, field: ParamField, value: &str, step: &'static str, min: &'static str| {
        let on = d.reform(move |e: Event| Action::SetParam(field, input_value(&e)));
        html! {
            <label>{ label }<input type="number" min={min} step={step} value={value.to_string()} onchange={on} /></label>
        }
    };
    let p = &c.param.value;
    let gpu = |value: &'static str, label: &'static str| {
        let on = d.reform(move |_: Event| Action::SetParam(ParamField::Gpu, value.to_string()));
        html! {
            <label><input type="radio" name="gpu" value={value} checked={p.gpu == value} onchange={on}
                          data-testid={format!("gpu-{value}")} />{ label }</label>
        }
    };
    let on_rails = d.reform(|e: Event| {
        let on = e.target_unchecked_into::<web_sys::HtmlInputElement>().checked();
        Action::SetParam(ParamField::Rails, if on { "on" } else { "off" }.to_string())
    });
    // Radio buttons rather than a select: the form's one select is the preset's.
    let fabric = |value: &'static str, label: &'static str| {
        let on = d.reform(move |_: Event| Action::SetParam(ParamField::Fabric, value.to_string()));
        html! {
            <label><input type="radio" name="fabric" value={value} checked={p.fabric == value} onchange={on}
                          data-testid={format!("fabric-{value}")} />{ label }</label>
        }
    };
    html! {
        <fieldset class={classes!("parametric", imported.then_some("not-in-use"))}>
            <legend>{ "Parametric form" }</legend>
            if imported { { not_in_use_note(c) } }
            { param("racks", ParamField::Racks, &p.racks, "1", "1") }
            { param("servers per rack", ParamField::Servers, &p.servers, "1", "1") }
            { param("GPUs per server", ParamField::Gpus, &p.gpus, "1", "1") }
            { param("oversubscription", ParamField::Oversub, &p.oversub, "any", "1") }
            { param("NIC Gb/s", ParamField::NicGbps, &p.nic_gbps, "any", "0") }
            { param("NVLink Gb/s per GPU", ParamField::NvlinkGbps, &p.nvlink_gbps, "any", "0") }
            { param("NICs per server", ParamField::Nics, &p.nics, "1", "1") }
            <span role="radiogroup" aria-label="Fabric: sets the collective efficiencies, the GPU and the links' defaults">
                { "fabric " }
                { fabric("ib", " InfiniBand (A100, NVSwitch)") }
                { fabric("roce", " RoCE (A100, NVSwitch)") }
                { fabric("tcp", " TCP (T4, PCIe, Ethernet)") }
            </span>
            <span role="radiogroup" aria-label="GPU: its NVLink or PCIe and the models measured on it">
                { "GPU " }
                { gpu("t4", " T4") }
                { gpu("a100", " A100") }
                { gpu("h100", " H100") }
                { gpu("b200", " B200") }
                { gpu("gb200", " GB200") }
            </span>
            <label title="GPU i of every server on rail switch i; needs two NICs per server or more">
                <input type="checkbox" checked={p.rails == "on"} onchange={on_rails} data-testid="rails" />
                { " rail-optimised" }
            </label>
            if let Some(e) = &c.param.error {
                <p class="field-error" role="alert">{ e.clone() }</p>
            }
        </fieldset>
    }
}

/// Says that the parametric fields, greyed, are not the cluster in use: an imported or
/// edited one is, whose size and GPU it names.
fn not_in_use_note(c: &Cluster) -> Html {
    let gpu = c.topology.gpu().map(|g| format!(" of {g}")).unwrap_or_default();
    html! {
        <p class="hint not-in-use-note" data-testid="parametric-not-in-use">
            { format!("Not in use: the cluster runs use is the imported or edited one ({} GPUs{gpu}), set by the imported file or the editor, \
                       not by these fields. Changing a field builds a cluster from the fields instead.", c.gpu_count()) }
        </p>
    }
}

#[derive(Properties, PartialEq)]
struct TraceProps {
    trace: TraceForm,
    mix: Field<String>,
    dispatch: Callback<Action>,
    on_trace_file: Callback<File>,
    /// The cluster's GPUs: the generator's warnings are about a trace on it.
    gpus: u32,
    /// The cluster's GPU, if it names one: the models listed are those measured on it.
    gpu: Option<String>,
}

#[component]
fn TraceSection(props: &TraceProps) -> Html {
    let t = &props.trace;
    let d = &props.dispatch;
    let mode = |m: TraceMode| d.reform(move |_| Action::SetTraceMode(m));
    let status = match (&t.checking, &t.synthetic_wanted, t.mode) {
        (Some(c), _, _) => Some(format!("Reading and checking {}…", c.name)),
        (None, Some(_), TraceMode::Synthetic) => Some("Describing the generator's trace…".to_string()),
        _ => None,
    };
    html! {
        <div class="subpanel" id="trace">
            <h3>{ "Trace" }</h3>
            <div class="form-row" role="radiogroup" aria-label="Where the jobs come from">
                <label><input type="radio" name="trace-mode" checked={t.mode == TraceMode::Synthetic} onchange={mode(TraceMode::Synthetic)}
                              data-testid="trace-mode-generator" />{ " synthetic (Philly-shaped)" }</label>
                <label><input type="radio" name="trace-mode" checked={t.mode == TraceMode::File} onchange={mode(TraceMode::File)}
                              disabled={t.uploaded.is_none() && t.file_problem.is_none()} data-testid="trace-mode-file" />
                    { file_label(t) }</label>
            </div>
            { generator_form(t, d, props.gpus) }
            { trace_file_drop(t, &props.on_trace_file) }
            { model_mix(&props.mix, props.gpu.as_deref(), d) }
            if let Some(s) = status {
                <p class="status" aria-live="polite" data-testid="trace-status">{ s }</p>
            }
            <TracePreviewView preview={t.preview().cloned()} />
        </div>
    }
}

/// The synthetic generator's fields, with its errors and its warnings about a trace on a
/// cluster of `gpus` GPUs.
fn generator_form(t: &TraceForm, d: &Callback<Action>, gpus: u32) -> Html {
    // Typing in the generator describes its trace as it goes (in the checks worker, a
    // moment after the last key), so `input` rather than `change`.
    let gen = |label: &'static str,
               field: GenField,
               value: &str,
               step: &'static str,
               min: &'static str,
               max: String| {
        let on = d.reform(move |e: InputEvent| {
            Action::SetGenerator(field, e.target_unchecked_into::<HtmlInputElement>().value())
        });
        let help = match field {
            GenField::Load => Some("load-help"),
            GenField::Tenants => Some("tenants-help"),
            _ => None,
        };
        let testid = (field == GenField::Tenants).then_some("generator-tenants");
        html! {
            <label>{ label }<input type="number" min={min} max={max} step={step} value={value.to_string()} oninput={on}
                                   aria-describedby={help} data-testid={testid} /></label>
        }
    };
    let g = &t.generator.value;
    let warnings = t.warnings(gpus);
    html! {
        <fieldset class="generator">
            <legend>{ "Synthetic generator" }</legend>
            { gen("jobs", GenField::Jobs, &g.jobs, "1", "1", MAX_APP_JOBS.to_string()) }
            { gen("offered load (1.0 = cluster full)", GenField::Load, &g.load, "any", "0", MAX_LOAD.to_string()) }
            { gen("trace seed", GenField::Seed, &g.seed, "1", "0", u64::MAX.to_string()) }
            { gen("tenants", GenField::Tenants, &g.tenants, "1", "1", MAX_TENANTS.to_string()) }
            <p class="hint" id="load-help">
                { "The GPU-time the jobs ask for while they arrive, as a share of what the cluster has:                        1.0 keeps the cluster full while the jobs arrive, above 1 a queue builds, 0.2 leaves it mostly idle." }
            </p>
            <p class="hint" id="tenants-help">
                { format!("Empty: every job belongs to the tenant `default`. 1 to {MAX_TENANTS}: jobs are spread over tenants t1, t2, … \
                   with the job shares of the Philly trace's largest virtual clusters (as `tenants=N` in `proxima --trace`).") }
            </p>
            if let Some(e) = &t.generator.error {
                <p class="field-error" role="alert">{ e.clone() }</p>
            }
            { for warnings.iter().map(|w| html! {
                <p class="field-warning" data-testid="generator-warning" data-warning={w.kind}>{ w.text.clone() }</p>
            }) }
        </fieldset>
    }
}

/// The trace file's choice and drop zone, with why the last file was refused.
fn trace_file_drop(t: &TraceForm, on_trace_file: &Callback<File>) -> Html {
    let on_file = {
        let cb = on_trace_file.clone();
        Callback::from(move |e: Event| {
            if let Some(f) = take_file(&e) {
                cb.emit(f)
            }
        })
    };
    let on_drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    let on_drop = {
        let cb = on_trace_file.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if let Some(f) = e.data_transfer().and_then(|t| t.files()).and_then(|f| f.get(0)) {
                cb.emit(f);
            }
        })
    };
    html! {
        <div class="dropzone" ondragover={on_drag_over} ondrop={on_drop}>
            <label>{ "Trace file (CSV or JSON: Philly, Tiresias, Pollux or Proxima format) " }
                <input type="file" accept=".csv,.json,text/csv,application/json" data-testid="trace-input" onchange={on_file} />
            </label>
            <p class="hint">{ format!("…or drop it here. Up to {} MiB; the format is detected from the header, as the CLI does.", MAX_TRACE_BYTES >> 20) }</p>
            if let Some(p) = &t.file_problem {
                { file_problem(p) }
            }
        </div>
    }
}

/// The model mix for jobs without a model, with the models measured on the cluster's GPU.
fn model_mix(mix: &Field<String>, gpu: Option<&str>, d: &Callback<Action>) -> Html {
    let on_mix = d.reform(|e: Event| Action::SetMix(input_value(&e)));
    let (models, default_mix) = model_names(gpu);
    let estimated: Vec<&str> = models.iter().filter(|m| m.estimated_from.is_some()).map(|m| m.name.as_str()).collect();
    let estimated = estimated.join(",");
    let models = models_in_words(&models, gpu);
    html! {
        <>
            <label class="mix">{ "Model mix for jobs without a model " }
                <input type="text" value={mix.value.clone()} placeholder={format!("default: {default_mix} models, equal shares")} onchange={on_mix} aria-describedby="mix-hint" />
            </label>
            <p class="hint" id="mix-hint" data-testid="mix-hint" data-estimated={estimated}>
                { format!("name[:weight],… e.g. resnet50:2,bert:1. {models}") }
            </p>
            if let Some(e) = &mix.error {
                <p class="field-error" role="alert">{ e.clone() }</p>
            }
        </>
    }
}

/// The file choice's label: the file loaded, or that the last one chosen was refused (an
/// earlier file's name would say it runs, and it does not: Run waits for a good file).
fn file_label(t: &TraceForm) -> String {
    match (&t.file_problem, &t.uploaded) {
        (Some(_), _) => " file (refused: the reason is beside the drop zone)".to_string(),
        (None, Some(u)) => format!(" file: {}", u.name),
        (None, None) => " file".to_string(),
    }
}

/// Why a trace file was refused, under the drop zone it went to: the file, line and field
/// as the core's `SourcedError` names them (each in a data attribute, for the tests), then
/// what is wrong. Announced at once, as the editor's refusals are.
fn file_problem(p: &Problem) -> Html {
    match p {
        Problem::Input(e) => html! {
            <p class="field-error" role="alert" data-testid="trace-file-problem" data-source={e.source.clone()}
               data-line={e.line.map(|l| l.to_string())} data-field={e.field.clone()}>
                { super::intro::where_and_what(e) }
            </p>
        },
        Problem::Message(m) => {
            html! { <p class="field-error" role="alert" data-testid="trace-file-problem">{ m.clone() }</p> }
        }
    }
}

#[derive(Properties, PartialEq)]
struct TracePreviewProps {
    preview: Option<TracePreview>,
}

#[component]
fn TracePreviewView(props: &TracePreviewProps) -> Html {
    let Some(p) = &props.preview else { return html! {} };
    let max = p.gpu_histogram.iter().map(|h| h.1).max().unwrap_or(1).max(1);
    html! {
        <div class="preview" data-testid="trace-preview">
            <p>
                <strong data-testid="trace-job-count">{ p.jobs.to_string() }</strong>{ format!(" jobs ({}), submitted over {}", p.format, crate::numbers::duration(p.span_s)) }
                if p.tenants > 1 {
                    { ", from " }<span data-testid="trace-tenant-count">{ p.tenants.to_string() }</span>{ " tenants" }
                }
                { "." }
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

/// The presets the form offers: those whose GPU has a model catalogue (two of the Sia
/// clusters have none, so they cannot run a scenario). Found once: building a preset's
/// description (thousands of GPUs for some) on every render of the form would be waste.
fn runnable_presets() -> &'static [&'static Preset] {
    static RUNNABLE: std::sync::OnceLock<Vec<&'static Preset>> = std::sync::OnceLock::new();
    RUNNABLE.get_or_init(|| {
        all_presets().filter(|p| Catalog::for_gpu_or_built_in(p.spec().gpu.as_deref()).is_ok()).collect()
    })
}
