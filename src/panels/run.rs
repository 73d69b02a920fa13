//! Panel 2: the policies, the seed, run and cancel, the progress bar, the share link and
//! the equivalent command.

use super::input_value;
use crate::results::feedback::RunDone;
use crate::state::{Action, Field, RunState};
use proxima_core::policy::RECOMMENDED;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RunPanelProps {
    pub policies: Field<Vec<String>>,
    pub seed: Field<String>,
    pub run: RunState,
    pub share_link: Option<String>,
    /// The equivalent `proxima compare` command, while the scenario can run.
    pub cli_command: Option<String>,
    /// What must be fixed before the scenario can run; Run is disabled while there is any.
    pub blocked: Vec<String>,
    /// The last run that finished, timed.
    pub done: Option<RunDone>,
    pub dispatch: Callback<Action>,
    pub on_run: Callback<()>,
    pub on_cancel: Callback<()>,
    pub on_share: Callback<()>,
}

/// Policies, seed, the run and cancel buttons and the progress bar.
#[component]
pub fn RunPanel(props: &RunPanelProps) -> Html {
    let d = &props.dispatch;
    let policies = &props.policies.value;
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
    let running = matches!(props.run, RunState::Running { .. });
    let extra: Vec<(usize, &String)> =
        policies.iter().enumerate().filter(|(_, p)| !RECOMMENDED.iter().any(|r| r.spec == p.as_str())).collect();
    html! {
        <section id="run-panel" class="panel" tabindex="-1" aria-labelledby="run-title">
            <h2 id="run-title"><span class="step">{ "2" }</span>{ " Run" }</h2>
            <fieldset class="policies" data-testid="policy-select">
                <legend>{ "Policies (run one after another, in this order)" }</legend>
                { for RECOMMENDED.iter().map(|&proxima_core::policy::Recommended { spec, what }| {
                    let on = d.reform(move |_| Action::TogglePolicy(spec.to_string()));
                    let position = policies.iter().position(|p| p == spec);
                    html! {
                        <label class="policy">
                            <input type="checkbox" value={spec} checked={position.is_some()} onchange={on} />
                            <code>{ spec }</code>{ format!(" — {what}") }
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
                        <li><code>{ p.name }</code>{ format!(": {} Options: {}.", p.summary, p.options_line()) }</li>
                    }) }</ul>
                </details>
                if let Some(e) = &props.policies.error {
                    <p class="field-error" role="alert">{ e.clone() }</p>
                }
            </fieldset>
            <div class="form-row">
                <label>{ "Seed (model assignment) " }<input type="number" min="0" step="1" value={props.seed.value.clone()} onchange={on_seed} data-testid="seed-input" /></label>
                if let Some(e) = &props.seed.error {
                    <span class="field-error" role="alert">{ e.clone() }</span>
                }
            </div>
            <div class="run-controls">
                <button type="button" class="primary" data-testid="run-button" disabled={running || !props.blocked.is_empty()}
                        onclick={props.on_run.reform(|_| ())} aria-keyshortcuts="Control+Enter r"
                        aria-describedby={(!props.blocked.is_empty()).then_some("run-blocked")}>{ "Run" }</button>
                <button type="button" data-testid="cancel-button" disabled={!running} onclick={props.on_cancel.reform(|_| ())}
                        aria-keyshortcuts="Escape">{ "Cancel" }</button>
                <button type="button" data-testid="share-button" onclick={props.on_share.reform(|_| ())}>{ "Share link" }</button>
            </div>
            if !props.blocked.is_empty() {
                <div class="run-blocked" id="run-blocked" data-testid="run-blocked">
                    <p>{ "Run is unavailable until this is fixed:" }</p>
                    <ul>{ for props.blocked.iter().map(|b| html! { <li>{ b.clone() }</li> }) }</ul>
                </div>
            }
            <Progress run={props.run.clone()} done={props.done} />
            if let Some(url) = &props.share_link {
                <label class="share-link">{ "Link to this scenario (copied if the browser allowed it): " }
                    <input type="text" readonly=true value={url.clone()} data-testid="share-link" onfocus={Callback::from(|e: FocusEvent| {
                        if let Some(i) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) { i.select(); }
                    })} />
                </label>
            }
            if let Some(cmd) = &props.cli_command {
                <details class="cli">
                    <summary>{ "The same run on the command line" }</summary>
                    <pre><code>{ cmd.clone() }</code></pre>
                </details>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct ProgressProps {
    pub run: RunState,
    /// The last run that finished, timed: shown while idle.
    pub done: Option<RunDone>,
}

#[component]
pub fn Progress(props: &ProgressProps) -> Html {
    match &props.run {
        RunState::Idle => html! {
            <div class="progress-row" aria-live="polite">
                <progress data-testid="progress" max="1" value={if props.done.is_some() { "1" } else { "0" }} aria-label="run progress"></progress>
                <span class="progress-text" data-testid="run-status">{ props.done.map(|d| d.text()).unwrap_or_else(|| "idle".into()) }</span>
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
                    <span class="progress-text" data-testid="run-status">{ format!("policy {} of {}: {name} — {done} of {total} jobs finished", current + 1, policies.len()) }</span>
                </div>
            }
        }
    }
}
