//! The tour's component: the steps of [`super::steps()`], each with the playback of the
//! run it talks about, starting where the story happens. The step's text is the player's
//! story: beside the canvas on wide screens, directly under it on narrow ones, so that
//! what is said and what is shown are on screen together.
//!
//! The tour names no player: it says what to play (a [`TourScene`]) and the app renders
//! it with the playback's player, whose views send the page's actions; the page's state
//! holds the tour, so a tour that named them would import itself in a circle.

use super::{Tour, TourAction, POLICIES, STEPS};
use crate::protocol::PolicyResult;
use crate::Shared;
use proxima_core::topology::Topology;
use yew::prelude::*;

/// What a step plays: its run (once the worker sent it) on the tour's cluster, from where
/// its story happens, with its job selected, and the story told beside it.
#[derive(Clone, PartialEq)]
pub struct TourScene {
    /// Names the player per run and step, so that each step opens afresh.
    pub key: String,
    pub run: Option<Shared<PolicyResult>>,
    pub topology: Shared<Topology>,
    pub start_s: f64,
    pub job: Option<u32>,
    /// Playback speed, simulated seconds per second.
    pub speed: f64,
    pub story: Html,
}

#[derive(Properties, PartialEq)]
pub struct TourProps {
    pub tour: Shared<Tour>,
    pub act: Callback<TourAction>,
    /// Renders a step's scene with the player.
    pub player: Callback<TourScene, Html>,
}

#[component]
pub fn TourView(props: &TourProps) -> Html {
    let tour = &props.tour;
    let close = props.act.reform(|_: MouseEvent| TourAction::Closed);
    let steps = use_memo(tour.facts.clone(), |facts| facts.as_ref().map(|f| super::steps(f)));
    let step_index = tour.step;
    let step = steps.as_ref().as_ref().and_then(|s| s.get(step_index).cloned());
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
                    { props.player.emit(TourScene {
                        key: format!("tour-{}-{step_index}", tour.run_id),
                        run: tour.outcomes.get(s.policy).cloned(),
                        topology: tour.topology.clone(),
                        start_s: s.start_s,
                        job: s.job,
                        speed: s.speed,
                        story,
                    }) }
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
