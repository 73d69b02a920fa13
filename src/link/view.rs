//! The notice of a scenario a link opened, at the top of the page: where the scenario came
//! from and "Run it", so a shared link runs without scrolling to Run (far below the fold);
//! or, once the classic comparison or a lesson replaced it before it ran, what replaced it
//! and the way back. Also the box that asks for the trace file a link names. They send the
//! link's own [`LinkNoticeAction`] and the file chosen; the app acts on them.

use super::{FromLink, LinkNoticeAction, PendingTrace};
use proxima_core::share::{TopologyChoice, TraceChoice};
use web_sys::{File, HtmlInputElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LinkNoticeProps {
    pub linked: FromLink,
    /// The form's scenario is no longer the link's (edited since, or replaced).
    pub edited: bool,
    /// The link's trace file is still awaited (the page asks for it below).
    pub awaiting_trace: bool,
    pub on_action: Callback<LinkNoticeAction>,
}

#[component]
pub fn LinkNotice(props: &LinkNoticeProps) -> Html {
    let run = props.on_action.reform(|_: MouseEvent| LinkNoticeAction::Run);
    let dismiss = props.on_action.reform(|_: MouseEvent| LinkNoticeAction::Dismiss);
    let s = &props.linked.scenario;
    let what = format!(
        "{} on {}, {} polic{}",
        match &s.trace {
            TraceChoice::Synthetic { jobs, .. } => format!("{jobs} generated jobs"),
            TraceChoice::Uploaded { name } => format!("the jobs of {name}"),
        },
        match &s.topology {
            TopologyChoice::Preset(name) => format!("the {name} cluster"),
            TopologyChoice::Parametric(spec) => format!("the cluster {spec}"),
            TopologyChoice::Custom(spec) => format!("the cluster {}", spec.name),
        },
        s.policies.len(),
        if s.policies.len() == 1 { "y" } else { "ies" }
    );
    let (text, label) = match (&props.linked.replaced_by, props.edited) {
        (Some(by), _) => (
            format!("\u{201c}{by}\u{201d} replaced the scenario of the link you opened ({what}), before it ran."),
            "▶ Back to the link's scenario and run it",
        ),
        (None, true) => (
            format!("You opened a link to a scenario ({what}) and edited it since."),
            "▶ Run the link's scenario as it was",
        ),
        (None, false) => (format!("Restored the scenario from the link: {what}."), "▶ Run it"),
    };
    html! {
        <div class="banner notice link-notice" role="status" data-testid="link-notice"
             data-replaced={props.linked.replaced_by.is_some().to_string()}>
            <p>
                { text }{ " " }
                if props.awaiting_trace && props.linked.replaced_by.is_none() {
                    { "Open its trace file below to run it." }
                } else {
                    <button type="button" class="primary" data-testid="link-run" onclick={run}>{ label }</button>
                }
            </p>
            <button type="button" onclick={dismiss} aria-label="Dismiss the link's notice">{ "Dismiss" }</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct LinkTraceProps {
    pub pending: PendingTrace,
    pub on_trace_file: Callback<File>,
}

/// Asks for the trace file a link (or a saved scenario) names: the link cannot carry it.
#[component]
pub fn LinkTrace(props: &LinkTraceProps) -> Html {
    let p = &props.pending;
    let onchange = {
        let cb = props.on_trace_file.clone();
        Callback::from(move |e: Event| {
            // Emptied after reading, so that choosing the same file again is a change too.
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(f) = input.files().and_then(|f| f.get(0)) {
                cb.emit(f)
            }
            input.set_value("");
        })
    };
    let text = match &p.hash {
        Some(h) => format!("This link's trace is {} (hash {h}): open it to run.", p.name),
        None => format!("This scenario's trace is {}: open it to use it; the generator stands in until then.", p.name),
    };
    html! {
        <aside class="link-trace" data-testid="link-trace" data-name={p.name.clone()} data-hash={p.hash.clone()}>
            <p>{ text }</p>
            <label class="file-button">{ format!("Open {}…", p.name) }
                <input type="file" accept=".csv,.json,text/csv,application/json" data-testid="link-trace-file" {onchange} />
            </label>
        </aside>
    }
}
