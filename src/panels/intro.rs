//! The top of the page: why placement matters, the tour's button, the keys; and the
//! banners of errors and notices.

use crate::glossary::view::term;
use crate::protocol::Problem;
use crate::state::Action;
use proxima_core::error::SourcedError;
use yew::prelude::*;

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
            // The page's terms are defined where they first appear (`glossary::term`) and
            // listed in the glossary section at the end.
            <p>
                { "A data-parallel training job exchanges its gradients after every iteration. Inside one " }
                { term("rack", "server") }{ " the " }{ term("gpu", "GPUs") }{ " talk over " }{ term("nvlink", "NVLink") }
                { " (hundreds of GB/s); across servers, over the network (tens of GB/s), and across racks through " }
                { term("uplink", "uplinks") }{ " shared with every other job, often " }{ term("oversubscription", "oversubscribed") }
                { ". So the same job can run up to several times slower when its GPUs are scattered, \
                   and communication-heavy models (VGG, BERT, GPT-2) suffer most." }
            </p>
            <p>
                { term("consolidate", "Consolidating") }{ " schedulers take the tightest " }{ term("placement", "placement") }{ " free now. " }
                <strong>{ term("dally", "Dally") }</strong>
                { " (arXiv:2401.16492) also lets a sensitive job wait a bounded time for a tight placement, " }
                { term("preemption", "preempts") }{ " less sensitive jobs to make room, and tunes its " }{ term("delay-timer", "wait timers") }
                { " as it runs. Pick a cluster and a trace, run two policies, and compare " }
                { term("jct", "job completion times (JCT)") }{ "." }
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
                    <dt><kbd>{ "Tab" }</kbd></dt><dd>{ "move between controls; Enter or Space to press buttons. The first Tab stop, \u{201c}Skip to Run\u{201d}, takes the focus to Run" }</dd>
                    <dt>{ "In the cluster editor" }</dt><dd>{ "arrows select, Shift+arrows move; a add rack, s server, g GPU, w switch, l link; Delete; c fold; Ctrl+Z undo, Ctrl+Y redo; + − 0 zoom (the editor's own list has them all)" }</dd>
                    <dt>{ "In the playback" }</dt><dd>{ "Space play or pause (after a run the focus is on Play: Space plays at once); ← → previous or next event; Home, End; Esc clears the selected job" }</dd>
                </dl>
                <p>{ "Single-letter keys work when the focus is not in a text field." }</p>
            </details>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct BannersProps {
    pub errors: crate::state::problems::Problems,
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
                    <ul>{ for props.errors.iter().map(problem) }</ul>
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

/// One problem in the error banner. An input's problem shows where it is as Python's
/// `InputError` does: the file (or argument) and line, then the field, then what is wrong,
/// each its own element with the value in a data attribute, so that the page (and its
/// tests) can point at the input.
fn problem(p: &Problem) -> Html {
    match p {
        Problem::Input(e) => html! {
            <li class="input-problem" data-source={e.source.clone()} data-line={e.line.map(|l| l.to_string())} data-field={e.field.clone()}>
                { where_and_what(e) }
            </li>
        },
        Problem::Message(m) => html! { <li>{ m.clone() }</li> },
    }
}

/// An input's problem in words: the file (or argument) and line, the field, then what is
/// wrong, each its own element, as the banner and the trace's drop zone show it.
pub fn where_and_what(e: &SourcedError) -> Html {
    let place = match e.line {
        Some(line) => format!("{}:{line}", e.source),
        None => e.source.clone(),
    };
    html! {
        <>
            <span class="problem-place">{ place }</span>{ ": " }<code class="problem-field">{ e.field.clone() }</code>{ ": " }{ e.message.clone() }
        </>
    }
}
