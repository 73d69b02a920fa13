//! The end of the challenge: first a prediction (who had the lowest mean JCT?), then the
//! numbers, the figure to download, and the what-if chosen in the decisions' list, also
//! predicted (sooner, the same or later?) before it is shown.

use super::end::{figure_svg, End, Guess, WhatIf, RIVALS_AND_YOU, YOU};
use super::Act;
use crate::browser;
use crate::numbers::{duration, ratio};
use yew::prelude::*;

pub struct EndProps {
    pub end: End,
    /// The game's acts (the game's reducer, which this view need not know).
    pub act: Callback<Act>,
}

pub fn challenge_end(p: &EndProps) -> Html {
    let e = &p.end;
    let act = |a: Act| {
        let d = p.act.clone();
        Callback::from(move |_| d.emit(a.clone()))
    };
    if !e.revealed {
        return html! {
            <div class="challenge-end" data-testid="challenge-predict">
                <h3>{ "Every job is placed. Before the numbers: who had the lowest mean JCT?" }</h3>
                <p class="hint">{ "fifo takes the first free GPUs wherever they are; consolidate the tightest placement free now; dally also lets a sensitive job wait a while for a tight one, and preempts." }</p>
                <div class="form-row" role="radiogroup" aria-label="Your prediction">
                    { for RIVALS_AND_YOU.iter().map(|&who| html! {
                        <button type="button" role="radio" aria-checked={(e.prediction.as_deref() == Some(who)).to_string()}
                                data-testid={format!("predict-{who}")} onclick={act(Act::Predict(who.to_string()))}>
                            { if who == YOU { "You".to_string() } else { who.to_string() } }
                        </button>
                    }) }
                </div>
                <button type="button" class="primary" data-testid="challenge-reveal" disabled={e.prediction.is_none()} onclick={act(Act::Reveal)}>
                    { "Reveal" }
                </button>
            </div>
        };
    }
    let ranking = e.ranking();
    let max = ranking.iter().map(|r| r.1).fold(1.0, f64::max);
    let verdict = match (e.prediction.as_deref(), e.prediction_right()) {
        (Some(p), Some(true)) => format!("You predicted {p}: right."),
        (Some(p), Some(false)) => format!("You predicted {p}: not this time; {} did best.", ranking[0].0),
        _ => String::new(),
    };
    let svg = figure_svg(e);
    let export = Callback::from(move |_| browser::download("proxima-challenge.svg", "image/svg+xml", svg.as_bytes()));
    html! {
        <div class="challenge-end" data-testid="challenge-compare">
            <h3>{ "Mean job completion time on the same jobs, lower is better" }</h3>
            <p data-testid="challenge-verdict">{ verdict }</p>
            <table class="challenge-bars">
                <tbody>
                    { for ranking.iter().map(|(who, v)| html! {
                        <tr data-testid={format!("compare-{who}")} data-value={v.to_string()} class={classes!((who == YOU).then_some("you"))}>
                            <th scope="row">{ who.clone() }</th>
                            <td class="bar-cell">
                                // An SVG bar: the Content-Security-Policy refuses inline styles.
                                <svg class="bar" aria-hidden="true" viewBox="0 0 100 10" preserveAspectRatio="none">
                                    <rect width={format!("{:.2}", v / max * 100.0)} height="10" />
                                </svg>
                            </td>
                            <td>{ duration(*v) }</td>
                            <td class="hint">{ if who == YOU { String::new() } else { format!("{} yours", ratio(v / e.you_s)) } }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            <p class="form-row">
                <button type="button" data-testid="challenge-export" onclick={export}>{ "Download the figure (SVG)" }</button>
                <span class="hint">{ " For slides: the bars above (with the what-if, once shown)." }</span>
            </p>
            <p class="hint">{ "What if? Open your decisions below and change one: the run is replayed from the start with it changed; your later decisions are kept while they still apply, and fifo's rule places whatever is left." }</p>
            if let Some(w) = &e.what_if {
                { what_if_view(&WhatIfProps { what_if: w.clone(), you_s: e.you_s, act: p.act.clone() }) }
            }
        </div>
    }
}

struct WhatIfProps {
    what_if: WhatIf,
    you_s: f64,
    act: Callback<Act>,
}

/// A what-if: its guess first, then its mean JCT against the student's.
fn what_if_view(p: &WhatIfProps) -> Html {
    let w = &p.what_if;
    let body = match (&w.run, w.guess) {
        (Err(e), _) => html! { <p class="error">{ format!("The what-if could not run: {e}") }</p> },
        (Ok(_), None) => html! {
            <div class="form-row" role="group" aria-label="Your guess">
                <span>{ "Your guess first: would the mean JCT be " }</span>
                { for Guess::ALL.iter().map(|&g| {
                    let d = p.act.clone();
                    html! {
                        <button type="button" data-testid={format!("guess-{}", g.label().replace(' ', "-"))}
                                onclick={Callback::from(move |_| d.emit(Act::Guess(g)))}>{ g.label() }</button>
                    }
                }) }
            </div>
        },
        (Ok(r), Some(g)) => {
            let delta = r.avg_jct_s - p.you_s;
            let truth = Guess::of(delta);
            let diverged = r.diverged_at.map(|k| {
                format!(" From decision {} on, your decisions no longer applied; fifo's rule placed the rest.", k + 1)
            });
            html! {
                <p data-testid="whatif-result" data-value={r.avg_jct_s.to_string()} data-delta={delta.to_string()}>
                    { format!(
                        "Mean JCT {} against your {}: {}{} ({}). You guessed {}: {}.{}",
                        duration(r.avg_jct_s),
                        duration(p.you_s),
                        if delta >= 0.0 { "+" } else { "−" },
                        duration(delta.abs()),
                        truth.label(),
                        g.label(),
                        if g == truth { "right" } else { "wrong" },
                        diverged.unwrap_or_default(),
                    ) }
                </p>
            }
        }
    };
    html! {
        <section class="challenge-whatif" data-testid="whatif" aria-live="polite">
            <h4>{ format!("{}?", w.label) }</h4>
            { body }
        </section>
    }
}
