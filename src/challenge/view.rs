//! "Be the scheduler": the student places the challenge's queued jobs on GPUs against the
//! clock (the model is `crate::challenge`). A job is dragged from the queue onto a GPU
//! (it takes the free GPUs nearest to it), or chosen with a click or Enter and its GPUs
//! picked one by one; either way the slowdown is shown before Place commits it. The GPUs
//! are buttons, not a canvas, so that the keyboard and screen readers reach each one.
//! Its parts are plain functions, not components: each component costs the page's module
//! yew's machinery for it, and the page must stay under the first visit's 1 MB
//! (`tests/e2e/weight.test.mjs`); the whole challenge re-renders in well under a frame.

use super::end_view::{challenge_end, EndProps};
use super::{Act, Challenge, Screen, Snapshot, DECISION_SECONDS, JOBS, TOPOLOGY};
use crate::browser;
use crate::numbers::duration;
use crate::playback::colours::job_rgb;
use std::rc::Rc;
use yew::prelude::*;

/// The game's state behind yew's reducer: an act that changes nothing keeps the same
/// `Rc`, so moving the pointer over the GPUs does not re-render the page.
#[derive(PartialEq)]
pub struct Game(pub Challenge);

impl Reducible for Game {
    type Action = Act;

    fn reduce(self: Rc<Self>, act: Act) -> Rc<Self> {
        let mut next = self.0.clone();
        next.apply(act);
        if next == self.0 {
            self
        } else {
            Rc::new(Game(next))
        }
    }
}

/// The way in, under the lessons: a button that opens the challenge.
#[component]
pub fn ChallengeMode() -> Html {
    let open = use_state(|| false);
    if !*open {
        let onclick = {
            let open = open.clone();
            Callback::from(move |_| open.set(true))
        };
        return html! {
            <p class="challenge-entry">
                <button type="button" class="primary" {onclick} data-testid="challenge-open">{ "Be the scheduler" }</button>
                <span class="hint">{ format!(" Place {JOBS} jobs on 16 GPUs yourself, against the clock, then see how your mean JCT compares with fifo, consolidate and dally.") }</span>
            </p>
        };
    }
    let onclose = Callback::from(move |_| open.set(false));
    html! { <ChallengeGame {onclose} /> }
}

#[derive(Properties, PartialEq)]
struct GameProps {
    onclose: Callback<MouseEvent>,
}

/// The screen the challenge is played on: projector mode, a touch screen (its primary
/// pointer coarse and unable to hover, as on phones and tablets), or a desktop.
fn screen() -> Screen {
    if browser::projector_setting() {
        Screen::Projector
    } else if media_matches("(hover: none) and (pointer: coarse)") {
        Screen::Touch
    } else {
        Screen::Desktop
    }
}

/// Whether the page matches a CSS media query (`window.matchMedia`), read through
/// reflection so that the page's module needs no more of web-sys for one call.
fn media_matches(query: &str) -> bool {
    use wasm_bindgen::{JsCast, JsValue};
    let window: JsValue = gloo::utils::window().into();
    let Some(match_media) =
        js_sys::Reflect::get(&window, &"matchMedia".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    else {
        return false;
    };
    match_media
        .call1(&window, &query.into())
        .and_then(|list| js_sys::Reflect::get(&list, &"matches".into()))
        .is_ok_and(|m| m.as_bool() == Some(true))
}

#[component]
fn ChallengeGame(props: &GameProps) -> Html {
    let game = use_reducer(|| Game(Challenge::new(screen())));
    let section = use_node_ref();
    {
        // Opening the challenge takes the focus into it (its section, labelled by its
        // title), so that the keyboard and screen readers start where the game is.
        let section = section.clone();
        use_effect_with((), move |_| {
            if let Some(el) = section.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    {
        // The clock: one tick a second while the challenge is open (the model ignores
        // ticks while the clock is off, paused or the game over).
        let dispatch = game.dispatcher();
        use_effect_with((), move |_| {
            let interval = gloo::timers::callback::Interval::new(1000, move || dispatch.dispatch(Act::Tick));
            move || drop(interval)
        });
    }
    let c = &game.0;
    let act = |a: Act| {
        let d = game.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(a.clone()))
    };
    let onpointerup = {
        let d = game.dispatcher();
        Callback::from(move |_: PointerEvent| d.dispatch(Act::EndDrag))
    };
    let play = match &c.end {
        None => html! {
            <>
                { status(&StatusProps { clock: c.clock, screen: c.screen, now_s: c.snap.now_s, decision: c.made.len() + 1, act: game.dispatcher() }) }
                // The queue first: on a phone the board is one column, and the jobs to
                // place come just before the GPUs to place them on (and so in Tab order
                // too), the jobs still to come after them; on wider screens the queue and
                // the jobs to come are on the right.
                <div class="challenge-board">
                    { queue(&QueueProps { snap: c.snap.clone(), job: c.job, act: game.dispatcher() }) }
                    { cluster(&ClusterProps { snap: c.snap.clone(), picked: c.picked.clone(), dragging: c.dragging, act: game.dispatcher() }) }
                    { coming(&c.snap) }
                </div>
                <p class="challenge-preview" data-testid="challenge-preview" aria-live="polite">{ preview_text(c) }</p>
                <div class="form-row">
                    <button type="button" class="primary" data-testid="challenge-place" disabled={!matches!(c.preview, Some(Ok(_)))}
                            onclick={act(Act::Place)}>{ "Place" }</button>
                    <button type="button" data-testid="challenge-clear" disabled={c.picked.is_empty()} onclick={act(Act::Clear)}>{ "Clear GPUs" }</button>
                    <button type="button" data-testid="challenge-wait" disabled={!c.snap.can_wait} onclick={act(Act::Wait)}
                            title="Place nothing now: go on to the next arrival or completion">{ "Wait for the next event" }</button>
                </div>
            </>
        },
        Some(end) => {
            let d = game.dispatcher();
            challenge_end(&EndProps { end: end.clone(), act: Callback::from(move |a| d.dispatch(a)) })
        }
    };
    html! {
        <section class="challenge" id="challenge" data-testid="challenge" aria-labelledby="challenge-title" tabindex="-1"
                 ref={section} {onpointerup}>
            <h2 id="challenge-title">{ "Be the scheduler" }</h2>
            <p class="hint">
                { format!("{JOBS} jobs arrive on {TOPOLOGY}: two racks of two 4-GPU servers whose rack uplinks are 32 times thinner than their NICs. \
                   Drag a queued job onto a GPU (it takes the free GPUs nearest to it), or choose it and its GPUs with a click or Enter; \
                   see how much slower than ideal it would run, then Place it, or Wait for the next arrival or completion. Your goal: the lowest mean job completion time.") }
            </p>
            if let Some(e) = &c.error {
                <p class="error" role="alert" data-testid="challenge-error">{ e.clone() }</p>
            }
            { play }
            { log(&LogProps { made: c.made.clone(), revealed: c.end.as_ref().is_some_and(|e| e.revealed), act: game.dispatcher() }) }
            <div class="form-row">
                <button type="button" data-testid="challenge-restart" onclick={act(Act::Restart)}>{ "Start again" }</button>
                <button type="button" data-testid="challenge-close" onclick={props.onclose.clone()}>{ "Close" }</button>
            </div>
        </section>
    }
}

/// A job's colour, the playback's, as CSS.
fn rgb(job: u32) -> String {
    let [r, g, b] = job_rgb(job);
    format!("rgb({r},{g},{b})")
}

fn preview_text(c: &Challenge) -> String {
    let Some(job) = c.job else {
        return if c.snap.queue.is_empty() {
            "Nothing is queued.".into()
        } else {
            "Choose a queued job: drag it onto a GPU, or click it (or Enter) and then its GPUs.".into()
        };
    };
    let name = c.snap.names.get(job as usize).cloned().unwrap_or_default();
    match &c.preview {
        None => format!("Job {name}: now choose its GPUs."),
        Some(Err(e)) => format!("Job {name}: {e}."),
        Some(Ok(p)) => format!(
            "Job {name} on GPUs {}: {}, {:.2}× slower than ideal. Place it?",
            c.picked.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
            p.spans,
            p.slowdown
        ),
    }
}

struct StatusProps {
    clock: super::Clock,
    screen: Screen,
    now_s: f64,
    decision: usize,
    act: UseReducerDispatcher<Game>,
}

/// The simulated time, the decision's number and the clock with its switches.
fn status(p: &StatusProps) -> Html {
    let (on, paused) = (p.clock.on, p.clock.paused);
    let d = p.act.clone();
    let toggle_on = Callback::from(move |_| d.dispatch(Act::ClockOn(!on)));
    let d = p.act.clone();
    let toggle_pause = Callback::from(move |_| d.dispatch(Act::ClockPaused(!paused)));
    html! {
        <p class="challenge-status">
            <span data-testid="challenge-now" data-value={p.now_s.to_string()}>{ format!("Simulated time {} · decision {}", duration(p.now_s), p.decision) }</span>
            if on {
                <span class="challenge-clock" data-testid="challenge-clock" role="timer" aria-live="off">
                    { format!(" · {} s left to decide", p.clock.left) }
                </span>
                <button type="button" onclick={toggle_pause} data-testid="challenge-pause">{ if paused { "Resume the clock" } else { "Pause the clock" } }</button>
            }
            <button type="button" onclick={toggle_on} data-testid="challenge-clock-toggle">
                { if on { "Clock off".to_string() } else { format!("Clock on ({DECISION_SECONDS} s a decision)") } }
            </button>
            if let Some(why) = p.screen.clock_off_why().filter(|_| !on) {
                <span class="hint" data-testid="challenge-clock-why">{ format!(" {why}") }</span>
            }
        </p>
    }
}

struct ClusterProps {
    snap: Snapshot,
    picked: Vec<u32>,
    dragging: bool,
    act: UseReducerDispatcher<Game>,
}

/// The GPUs by rack and server; each is a button with its job's colour and number.
fn cluster(p: &ClusterProps) -> Html {
    let s = &p.snap;
    let racks = s.rack.iter().copied().max().map_or(0, |r| r + 1);
    let gpu = |g: u32| {
        let owner = s.owner[g as usize];
        let picked = p.picked.contains(&g);
        let (d1, d2, d3) = (p.act.clone(), p.act.clone(), p.act.clone());
        let onpointerover = Callback::from(move |_: PointerEvent| d1.dispatch(Act::Hover(g)));
        let onpointerup = Callback::from(move |_: PointerEvent| d2.dispatch(Act::Drop(g)));
        let onclick = Callback::from(move |_: MouseEvent| d3.dispatch(Act::Toggle(g)));
        // Colours go in SVG fills: the page's Content-Security-Policy refuses inline styles.
        let swatch = owner.map(|j| {
            html! {
                <svg class="swatch" aria-hidden="true" viewBox="0 0 1 1" preserveAspectRatio="none">
                    <rect width="1" height="1" fill={rgb(j)} />
                </svg>
            }
        });
        let label = match owner {
            Some(j) => format!("GPU {g}: job {}", s.names.get(j as usize).cloned().unwrap_or_default()),
            None if picked => format!("GPU {g}: free, chosen"),
            None => format!("GPU {g}: free"),
        };
        html! {
            <button type="button" class={classes!("gpu", owner.is_some().then_some("busy"), picked.then_some("picked"))}
                    data-testid={format!("gpu-{g}")} data-job={owner.map(|j| s.names[j as usize].clone())}
                    aria-pressed={picked.to_string()} aria-disabled={owner.is_some().to_string()} aria-label={label}
                    {onpointerover} {onpointerup} {onclick}>
                { swatch }
                // A busy GPU shows its job's number; a free one its own, small, so that the
                // preview's "GPUs 4, 5, 6" can be found.
                <span class={classes!(owner.is_none().then_some("gpu-index"))}>
                    { owner.map_or_else(|| g.to_string(), |j| s.names[j as usize].clone()) }
                </span>
            </button>
        }
    };
    html! {
        <div class={classes!("challenge-cluster", p.dragging.then_some("dragging"))} role="group" aria-label="The cluster's GPUs">
            { for (0..racks).map(|r| {
                let gpus: Vec<u32> = (0..s.rack.len() as u32).filter(|&g| s.rack[g as usize] == r).collect();
                let mut servers: Vec<u32> = gpus.iter().map(|&g| s.server[g as usize]).collect();
                servers.dedup();
                html! {
                    <div class="rack" data-testid={format!("rack-{r}")}>
                        <span class="rack-name">{ format!("Rack {}", r + 1) }</span>
                        { for servers.into_iter().map(|sv| html! {
                            <div class="server" aria-label={format!("Server {}", sv + 1)}>
                                { for gpus.iter().copied().filter(|&g| s.server[g as usize] == sv).map(&gpu) }
                            </div>
                        }) }
                    </div>
                }
            }) }
        </div>
    }
}

struct QueueProps {
    snap: Snapshot,
    job: Option<u32>,
    act: UseReducerDispatcher<Game>,
}

/// The queue: the jobs to place, draggable.
fn queue(p: &QueueProps) -> Html {
    let s = &p.snap;
    let chip = |j: &super::JobCard| {
        let id = j.id;
        let (d1, d2) = (p.act.clone(), p.act.clone());
        // A mouse press starts a drag (and chooses the job); a click from the keyboard
        // (Enter or Space: `detail` 0) chooses or lets go.
        let onpointerdown = Callback::from(move |e: PointerEvent| {
            if e.button() == 0 {
                e.prevent_default();
                d1.dispatch(Act::Grab(id));
            }
        });
        let onclick = Callback::from(move |e: MouseEvent| {
            if e.detail() == 0 {
                d2.dispatch(Act::Select(id));
            }
        });
        let fits = j.gpus <= s.free();
        html! {
            <li>
                <button type="button" class={classes!("job-chip", (!fits).then_some("too-big"))} data-testid={format!("queue-job-{}", j.name)}
                        aria-pressed={(p.job == Some(id)).to_string()} {onpointerdown} {onclick}>
                    <svg class="swatch" aria-hidden="true" viewBox="0 0 1 1"><rect width="1" height="1" fill={rgb(id)} /></svg>
                    <strong>{ format!("Job {}", j.name) }</strong>
                    { format!(" · {} GPU{} · {} · waiting since {}", j.gpus, if j.gpus == 1 { "" } else { "s" }, j.model, duration(j.since_s)) }
                </button>
            </li>
        }
    };
    html! {
        <div class="challenge-queue">
            <h3>{ format!("Queue ({})", s.queue.len()) }</h3>
            <ul data-testid="challenge-queue">{ for s.queue.iter().map(chip) }</ul>
            <p class="hint">{ format!("{} of {JOBS} jobs done.", s.completed) }</p>
        </div>
    }
}

/// The jobs still to come: after the GPUs in the page (below them on a phone, so that the
/// queue and the GPUs are in view together), under the queue on wider screens.
fn coming(s: &Snapshot) -> Html {
    html! {
        <div class="challenge-coming">
            <h3>{ format!("Still to come ({})", s.coming.len()) }</h3>
            <ul class="coming">
                { for s.coming.iter().map(|j| html! {
                    <li>{ format!("Job {} · {} GPU{} · {} · arrives at {}", j.name, j.gpus, if j.gpus == 1 { "" } else { "s" }, j.model, duration(j.since_s)) }</li>
                }) }
            </ul>
        </div>
    }
}

struct LogProps {
    made: Vec<super::Made>,
    revealed: bool,
    act: UseReducerDispatcher<Game>,
}

/// The decisions made, each with its what-ifs once the comparison is revealed.
fn log(p: &LogProps) -> Html {
    use super::end::WhatIfKind;
    use proxima_core::policy::replay::Choice;
    if p.made.is_empty() {
        return html! {};
    }
    html! {
        <details class="challenge-log" open={p.revealed}>
            <summary>{ format!("Your decisions ({})", p.made.len()) }</summary>
            <ol data-testid="challenge-log">
                { for p.made.iter().enumerate().map(|(i, m)| {
                    let (d1, d2) = (p.act.clone(), p.act.clone());
                    let wait = Callback::from(move |_| d1.dispatch(Act::WhatIf(i, WhatIfKind::Wait90)));
                    let skip = Callback::from(move |_| d2.dispatch(Act::WhatIf(i, WhatIfKind::Skip)));
                    html! {
                        <li>
                            { format!("At {}: {}", duration(m.at_s), m.text) }
                            if p.revealed {
                                { " " }
                                <button type="button" class="small" data-testid={format!("whatif-wait-{}", i + 1)} onclick={wait}>{ "What if it had waited 90 s?" }</button>
                                if matches!(m.choice, Choice::Place { .. }) {
                                    <button type="button" class="small" data-testid={format!("whatif-skip-{}", i + 1)} onclick={skip}>{ "What if it had not been made?" }</button>
                                }
                            }
                        </li>
                    }
                }) }
            </ol>
        </details>
    }
}
