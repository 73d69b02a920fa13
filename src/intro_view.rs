//! The guided introduction's view: the steps of [`crate::intro::steps`], each with the
//! playback of the run it talks about, starting where the story happens.

use crate::intro::{self, STEPS};
use crate::playback_view::{playback_of, PlayerView};
use crate::state::{Action, IntroState};
use proxima_core::topology::resolve_topology_arg;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct TourProps {
    pub intro: Rc<IntroState>,
    pub dispatch: Callback<Action>,
}

impl PartialEq for TourProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.intro, &other.intro)
    }
}

#[component]
pub fn Tour(props: &TourProps) -> Html {
    let intro = &props.intro;
    let d = &props.dispatch;
    let close = d.reform(|_: MouseEvent| Action::IntroClosed);
    let steps = use_memo(intro.facts.clone(), |facts| facts.as_ref().map(|f| intro::steps(f)));
    let step_index = intro.step;
    let step = steps.as_ref().as_ref().and_then(|s| s.get(step_index).cloned());
    let playback = use_memo((intro.run_id, step.as_ref().map(|s| s.policy), intro.is_ready()), {
        let outcome = step.as_ref().and_then(|s| intro.outcomes.get(s.policy).cloned());
        move |_| {
            let topology = resolve_topology_arg(intro::TOPOLOGY).ok()?;
            outcome.map(|o| playback_of(&o, Rc::new(topology)))
        }
    });
    let body = match (&intro.error, &step) {
        (Some(e), _) => html! { <p class="field-error" role="alert">{ e.clone() }</p> },
        (None, None) => html! {
            <p class="status" aria-live="polite">{ format!("Running the tour's scenario under {} policies in the simulation worker…", intro::POLICIES.len()) }</p>
        },
        (None, Some(s)) => {
            let go = |i: usize| d.reform(move |_: MouseEvent| Action::IntroStep(i));
            html! {
                <>
                    <h3 data-testid="tour-step" data-step={step_index.to_string()}>{ format!("{} of {STEPS}: {}", step_index + 1, s.title) }</h3>
                    { for s.paragraphs.iter().map(|p| html! { <p>{ p.clone() }</p> }) }
                    <p class="hint">{ format!("Below: the run under {}, from {} s, job {} selected. Press Play.",
                        intro::POLICIES[s.policy], s.start_s.round(), s.job.map(|j| j.to_string()).unwrap_or_else(|| "none".into())) }</p>
                    <div class="tour-nav">
                        <button type="button" disabled={step_index == 0} onclick={go(step_index.saturating_sub(1))}>{ "← Back" }</button>
                        if step_index + 1 < STEPS {
                            <button type="button" class="primary" data-testid="tour-next" onclick={go(step_index + 1)}>{ "Next →" }</button>
                        } else {
                            <button type="button" class="primary" onclick={close.clone()}>{ "Done" }</button>
                        }
                    </div>
                    { match &*playback {
                        Some(Ok(pb)) => html! {
                            <PlayerView key={format!("tour-{}-{step_index}", intro.run_id)} playback={pb.clone()} start_s={s.start_s} selected={s.job} speed={Some(s.speed)} />
                        },
                        Some(Err(e)) => html! { <p class="field-error">{ e.clone() }</p> },
                        None => html! {},
                    } }
                </>
            }
        }
    };
    html! {
        <section id="tour" class="panel tour" tabindex="-1" aria-labelledby="tour-title" data-testid="tour">
            <div class="tour-head">
                <h2 id="tour-title">{ "Guided introduction: waiting for a better placement" }</h2>
                <button type="button" onclick={close} aria-label="Close the introduction">{ "Close" }</button>
            </div>
            { body }
        </section>
    }
}
