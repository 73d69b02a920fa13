//! "Had it not been preempted": under the player, the watched run's preemptions to ask
//! about, the prediction, then the policy's re-run without that one preemption beside the
//! run as it was (`state::what_if`; the re-run is the worker's).

use super::widgets::clock;
use super::Playback;
use crate::charts::duration;
use crate::state::what_if::{Prediction, PreemptWhatIf, Preemption, Verdict, WhatIfAct};
use crate::state::{Action, Results};
use crate::Shared;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The most preemptions listed to choose from: the first ones, in time order (a busy run
/// has thousands, which a list cannot show usefully).
const MAX_LISTED: usize = 100;

#[derive(Properties, PartialEq)]
pub struct WhatIfProps {
    pub results: Shared<Results>,
    /// The watched policy's index among the run's.
    pub policy: usize,
    pub playback: Shared<Playback>,
    pub what_if: Option<Shared<PreemptWhatIf>>,
    pub dispatch: Callback<Action>,
}

/// A preemption in words.
fn describe(p: &Preemption) -> String {
    let t = clock(p.at_us as f64 / 1e6);
    match p.for_job {
        Some(f) => format!("t = {t}: job {} preempted for job {f}", p.job),
        None => format!("t = {t}: job {} preempted", p.job),
    }
}

#[component]
pub fn PreemptionWhatIf(props: &WhatIfProps) -> Html {
    let preemptions = use_memo(props.playback.clone(), |pb| pb.preemptions());
    let chosen = use_state(|| 0usize);
    let Some(outcome) = props.results.outcomes.get(props.policy) else { return html! {} };
    let policy = outcome.policy.clone();
    if preemptions.is_empty() {
        return html! {
            <p class="hint" data-testid="what-if-none">
                { format!("{policy} preempted no job in this run: there is no preemption to ask \u{201c}had it not been preempted\u{201d} of.") }
            </p>
        };
    }
    let index = (*chosen).min(preemptions.len() - 1);
    let on_pick = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| {
            chosen.set(e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(0));
        })
    };
    let ask = {
        let (d, p, i) = (props.dispatch.clone(), preemptions[index], props.policy);
        Callback::from(move |_: MouseEvent| d.emit(Action::WhatIf(WhatIfAct::Ask { policy: i, preemption: p })))
    };
    let shown = props.what_if.as_ref().filter(|w| w.run_id == props.results.run_id && w.policy == policy);
    html! {
        <div class="what-if" data-testid="preemption-what-if">
            <h3>{ "What if it had not been preempted?" }</h3>
            <p class="hint">
                { format!("{policy} preempted {} time{} in this run. Pick one: {policy} runs again, deciding exactly as before until that moment, \
                           then as it would without that preemption.", preemptions.len(), if preemptions.len() == 1 { "" } else { "s" }) }
            </p>
            <div class="form-row">
                <label>{ "Preemption " }
                    <select onchange={on_pick} data-testid="what-if-preemption">
                        { for preemptions.iter().take(MAX_LISTED).enumerate().map(|(i, p)| html! {
                            <option value={i.to_string()} selected={i == index}>{ describe(p) }</option>
                        }) }
                    </select>
                </label>
                <button type="button" data-testid="what-if-ask" onclick={ask}>{ "What if it had not been preempted?" }</button>
            </div>
            if let Some(w) = shown {
                { asked(w, &props.dispatch) }
            }
        </div>
    }
}

/// The what-if asked: the prediction, then the answer.
fn asked(w: &PreemptWhatIf, dispatch: &Callback<Action>) -> Html {
    let p = &w.preemption;
    let predict = |pr: Prediction| dispatch.reform(move |_: MouseEvent| Action::WhatIf(WhatIfAct::Predict(pr)));
    let close = dispatch.reform(|_: MouseEvent| Action::WhatIf(WhatIfAct::Close));
    let question = format!(
        "Had job {} not been preempted at t = {}, would {}'s mean JCT ({}) have been lower or higher?",
        p.job,
        clock(p.at_us as f64 / 1e6),
        w.policy,
        duration(w.original_s)
    );
    let body = match (w.prediction, &w.answer, w.verdict()) {
        (None, _, _) => html! {
            <div class="form-row" data-testid="what-if-predict">
                <button type="button" data-testid="what-if-lower" onclick={predict(Prediction::Lower)}>{ "Lower: the preemption cost more than it gained" }</button>
                <button type="button" data-testid="what-if-higher" onclick={predict(Prediction::Higher)}>{ "Higher: the preemption paid off" }</button>
            </div>
        },
        (Some(_), Some(Err(e)), _) => {
            html! { <p class="field-error" role="alert">{ format!("The re-run failed: {e}") }</p> }
        }
        (Some(_), Some(Ok(o)), Some(v)) => {
            let times = match o.job_preemptions {
                0 => None,
                1 => Some("once".to_string()),
                n => Some(format!("{n} times")),
            };
            let later = times.map(|t| {
                format!(" Without that one, {} preempted job {} {t} later, by decisions of its own.", w.policy, p.job)
            });
            html! {
                <p class="what-if-answer" role="status" data-testid="what-if-answer" data-original={w.original_s.to_string()}
                   data-rerun={o.avg_jct_s.to_string()} data-refused={o.refused.to_string()} data-right={v.right.to_string()}>
                    { verdict_text(w, o.refused, &v) }{ later.unwrap_or_default() }
                </p>
            }
        }
        (Some(_), _, _) => html! {
            <p class="status" role="status" data-testid="what-if-running">{ format!("Re-running {} without that preemption…", w.policy) }</p>
        },
    };
    html! {
        <div class="what-if-asked">
            <p>{ question }</p>
            { body }
            <button type="button" onclick={close}>{ "Close" }</button>
        </div>
    }
}

/// The answer in a sentence: both mean JCTs, which way it went, and the prediction's fate.
fn verdict_text(w: &PreemptWhatIf, refused: bool, v: &Verdict) -> String {
    if !refused {
        return format!(
            "In the re-run {} did not try to preempt job {} at that moment, so the run is the same: mean JCT {}.",
            w.policy,
            w.preemption.job,
            duration(v.rerun_s)
        );
    }
    let (orig, rerun) = (duration(w.original_s), duration(v.rerun_s));
    let pct = format!("{:+.1}%", v.change * 100.0);
    let (went, meaning) = match v.went {
        None => ("about the same", "the preemption made no difference to speak of"),
        Some(Prediction::Lower) => ("lower", "the preemption cost more than it gained"),
        Some(Prediction::Higher) => ("higher", "the preemption paid off"),
    };
    let fate = if v.right { "You predicted right." } else { "Not what you predicted." };
    format!("Without it the mean JCT is {rerun} against {orig} with it ({pct}, {went}): {meaning}. {fate}")
}
