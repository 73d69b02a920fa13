//! The tour's component: the steps of [`crate::tour::steps()`], each with the playback of
//! the run it talks about, starting where the story happens. The step's text is the
//! player's story ([`PlayerView`]'s `story`): beside the canvas on wide screens, directly
//! under it on narrow ones, so that what is said and what is shown are on screen together.

use crate::playback::view::{playback_of, PlayerView};
use crate::tour::{Tour, TourAction, POLICIES, STEPS};
use crate::Shared;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TourProps {
    pub tour: Shared<Tour>,
    pub act: Callback<TourAction>,
}

#[component]
pub fn TourView(props: &TourProps) -> Html {
    let tour = &props.tour;
    let close = props.act.reform(|_: MouseEvent| TourAction::Closed);
    let steps = use_memo(tour.facts.clone(), |facts| facts.as_ref().map(|f| crate::tour::steps(f)));
    let step_index = tour.step;
    let step = steps.as_ref().as_ref().and_then(|s| s.get(step_index).cloned());
    let policy = step.as_ref().map(|s| s.policy);
    let playback = use_memo((tour.run_id, policy, tour.is_ready()), {
        let outcome = policy.and_then(|p| tour.outcomes.get(p).cloned());
        let topology = tour.topology.clone();
        move |_| outcome.map(|o| playback_of(&o, topology))
    });
    let body = match (&tour.error, &step) {
        (Some(e), _) => html! { <p class="field-error" role="alert">{ e.clone() }</p> },
        (None, None) => html! {
            <p class="status" aria-live="polite">{ format!("Running the tour's scenario under {} policies in the simulation worker…", POLICIES.len()) }</p>
        },
        (None, Some(s)) => {
            let go = |i: usize| props.act.reform(move |_: MouseEvent| TourAction::Step(i));
            let story = html! {
                <div class="tour-text" data-testid="tour-text">
                    { for s.paragraphs.iter().map(|p| html! { <p>{ p.clone() }</p> }) }
                    <p class="hint">{ format!("The run under {}, from {} s, job {} selected. Press Play.",
                        POLICIES[s.policy], s.start_s.round(), s.job.map(|j| j.to_string()).unwrap_or_else(|| "none".into())) }</p>
                </div>
            };
            html! {
                <>
                    <h3 data-testid="tour-step" data-step={step_index.to_string()}>{ format!("{} of {STEPS}: {}", step_index + 1, s.title) }</h3>
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
                            <PlayerView key={format!("tour-{}-{step_index}", tour.run_id)} playback={pb.clone()} start_s={s.start_s} selected={s.job}
                                        speed={Some(s.speed)} {story} />
                        },
                        Some(Err(e)) => html! { <>{ story }<p class="field-error">{ e.clone() }</p></> },
                        None => story,
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
