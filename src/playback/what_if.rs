//! "Had it not been preempted": under the player, the watched run's preemptions to ask
//! about, the prediction, then the policy's re-run without that one preemption beside the
//! run as it was with the two jobs' own JCTs, then the what-if repeated on several seeds
//! and concluded from their interval (`crate::what_if`; the re-runs are the worker's).

use super::widgets::clock;
use super::Playback;
use crate::numbers::duration;
use crate::protocol::{JobJcts, WhatIfOutcome};
use crate::results::Results;
use crate::state::Action;
use crate::what_if::seeds::{conclusion_text, SeedsSummary};
use crate::what_if::{Prediction, PreemptWhatIf, Preemption, Verdict, WhatIfAct};
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
        let (d, p, i, rank) = (props.dispatch.clone(), preemptions[index], props.policy, index as u32);
        Callback::from(move |_: MouseEvent| d.emit(Action::WhatIf(WhatIfAct::Ask { policy: i, preemption: p, rank })))
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
        "Had job {} not been preempted at t = {}, would {}'s mean JCT ({}) have been lower or higher? \
         The answer comes for this run, then for the same what-if on {} seeds.",
        p.job,
        clock(p.at_us as f64 / 1e6),
        w.policy,
        duration(w.original_s),
        crate::worker::WHAT_IF_SEEDS
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
        (Some(_), Some(Ok(o)), Some(v)) => answered(w, o, &v),
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

/// The answer: this run's change as a whole-run effect, the two jobs' own JCTs, then the
/// seeds' conclusion (or the wait for it).
fn answered(w: &PreemptWhatIf, o: &WhatIfOutcome, v: &Verdict) -> Html {
    let p = &w.preemption;
    let later = match o.job_preemptions {
        0 => String::new(),
        n => format!(
            " Without that one, {} preempted job {} {} later, by decisions of its own.",
            w.policy,
            p.job,
            if n == 1 { "once".to_string() } else { format!("{n} times") }
        ),
    };
    let seeds = match (&w.seeds, v.seeds) {
        (None, _) => html! {
            <p class="status" role="status" data-testid="what-if-over-seeds-running">
                { format!("Repeating the what-if on {} seeds before concluding\u{2026}", crate::worker::WHAT_IF_SEEDS) }
            </p>
        },
        (Some(Err(e)), _) => {
            html! { <p class="field-error" role="alert">{ format!("The seeds' re-runs failed: {e}") }</p> }
        }
        (Some(Ok(outcome)), summary) => seeds_conclusion(w, outcome.without_one.len(), summary, v.right),
    };
    html! {
        <>
            <p class="what-if-answer" role="status" data-testid="what-if-answer" data-original={w.original_s.to_string()}
               data-rerun={o.avg_jct_s.to_string()} data-refused={o.refused.to_string()}>
                { this_run_text(w, o.refused, v) }{ later }
            </p>
            { job_table(p, &o.jobs) }
            { seeds }
        </>
    }
}

/// This run's change, said to be a whole-run effect that concludes nothing alone.
fn this_run_text(w: &PreemptWhatIf, refused: bool, v: &Verdict) -> String {
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
    let went = match v.went {
        None => "about the same",
        Some(Prediction::Lower) => "lower",
        Some(Prediction::Higher) => "higher",
    };
    format!(
        "In this run, without it the mean JCT of all the jobs is {rerun} against {orig} with it ({pct}, {went}). \
         That is a whole-run effect: one preemption fewer changes every later decision, so the mean moves with \
         how the rest of the run unfolds, not only with the two jobs below."
    )
}

/// The preempted job's and the preempting job's own JCTs with and without the preemption.
fn job_table(p: &Preemption, jobs: &[JobJcts]) -> Html {
    let role = |j: &JobJcts| if j.job == p.job { "preempted" } else { "it was preempted for" };
    let jct = |s: Option<f64>| s.map(duration).unwrap_or_else(|| "unfinished".to_string());
    html! {
        <table class="what-if-jobs" data-testid="what-if-jobs">
            <thead><tr><th>{ "Job" }</th><th>{ "JCT with the preemption" }</th><th>{ "JCT without it" }</th></tr></thead>
            <tbody>
                { for jobs.iter().map(|j| html! {
                    <tr data-job={j.job.to_string()} data-with={j.with_s.map(|s| s.to_string()).unwrap_or_default()}
                        data-without={j.without_s.map(|s| s.to_string()).unwrap_or_default()}>
                        <td>{ format!("job {} ({})", j.job, role(j)) }</td>
                        <td>{ jct(j.with_s) }</td>
                        <td>{ jct(j.without_s) }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

/// The seeds' conclusion and the prediction's fate.
fn seeds_conclusion(w: &PreemptWhatIf, without_one: usize, summary: Option<SeedsSummary>, right: Option<bool>) -> Html {
    let Some(s) = summary else {
        return html! { <p class="hint" data-testid="what-if-over-seeds">{ "No seed had a preemption to forbid: no conclusion." }</p> };
    };
    let fate = match right {
        Some(true) => " You predicted right.",
        Some(false) => " Not what you predicted.",
        None => " Your prediction is neither confirmed nor refuted.",
    };
    let (low, high) = s.interval.unwrap_or((s.mean, s.mean));
    html! {
        <p class="what-if-seeds" role="status" data-testid="what-if-over-seeds" data-conclusion={s.conclusion().name()}
           data-seeds={s.n.to_string()} data-mean={s.mean.to_string()} data-low={low.to_string()} data-high={high.to_string()}
           data-right={right.map(|r| r.to_string()).unwrap_or_default()}>
            { conclusion_text(&s, w.request.rank, without_one) }{ fate }
        </p>
    }
}
