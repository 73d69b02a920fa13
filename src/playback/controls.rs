//! The player's controls and clock: the row of buttons and fields above the cluster, what
//! each key does, and the loop that advances the player once per animation frame while it
//! plays (counting frames and their work for the end-to-end tests).

use super::colours::ColourBy;
use super::widgets::clock;
use super::{Frame, Player, PlayerAction, SPEEDS};
use crate::browser::{self, AnimationLoop};
use crate::Shared;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The action of a key pressed in the player, `None` for a key it leaves alone.
/// `target_tag` is the focused element's tag name ([`focus_kind`]: `RANGE` for the time
/// slider): in a field, only Escape is the player's; a focused button answers Space
/// itself; on the time slider, which has no use for Space, Space plays.
pub fn key_action(key: &str, target_tag: &str, end_s: f64) -> Option<PlayerAction> {
    let in_field = matches!(target_tag, "INPUT" | "SELECT" | "TEXTAREA" | "RANGE");
    if target_tag == "BUTTON" && key == " " {
        return None;
    }
    match key {
        " " if target_tag == "RANGE" => Some(PlayerAction::TogglePlay),
        " " | "k" if !in_field => Some(PlayerAction::TogglePlay),
        "." | "ArrowRight" if !in_field => Some(PlayerAction::StepNext),
        "," | "ArrowLeft" if !in_field => Some(PlayerAction::StepBack),
        "w" if !in_field => Some(PlayerAction::NextWait),
        "Home" if !in_field => Some(PlayerAction::Seek(0.0)),
        "End" if !in_field => Some(PlayerAction::Seek(end_s)),
        "Escape" => Some(PlayerAction::Select(None)),
        _ => None,
    }
}

/// What [`key_action`] is told of the focused element: its tag name, or `RANGE` for a
/// slider (an `<input type=range>`, not a text field).
pub fn focus_kind(el: &web_sys::Element) -> String {
    let tag = el.tag_name();
    if tag == "INPUT" && el.get_attribute("type").as_deref() == Some("range") {
        "RANGE".into()
    } else {
        tag
    }
}

/// Frame timing, kept outside the render so that measuring does not re-render.
#[derive(Default)]
struct FrameStats {
    frames: u64,
    /// When the current frame's work began (the animation frame's callback).
    started_ms: Option<f64>,
    /// Sum and count of frame work times over the current second.
    work_sum: f64,
    work_n: u32,
    window_start: f64,
}

/// While `playing`, a `Tick` per animation frame; after every render of a new frame, the
/// frame count (`data-frames`, on every frame so that a reader timing a few seconds of play
/// is not off by up to a second's frames) and the mean work per frame over a second
/// (`data-frame-ms`) on the element `root`. The canvases draw in their own effects, which
/// run before this one, so the work counted includes drawing.
#[hook]
pub fn use_play_loop(playing: bool, dispatch: UseReducerDispatcher<Player>, root: NodeRef, frame: Shared<Frame>) {
    let stats = use_mut_ref(FrameStats::default);
    {
        let stats = stats.clone();
        use_effect_with(playing, move |playing| {
            let mut last: Option<f64> = None;
            let looping = playing.then(|| {
                AnimationLoop::start(move |t| {
                    stats.borrow_mut().started_ms = Some(browser::now_ms());
                    let dt = last.map(|l| t - l).unwrap_or(0.0);
                    last = Some(t);
                    dispatch.dispatch(PlayerAction::Tick(dt));
                })
            });
            move || drop(looping)
        });
    }
    use_effect_with(frame, move |_| {
        let now = browser::now_ms();
        let mut s = stats.borrow_mut();
        s.frames += 1;
        if let Some(start) = s.started_ms.take() {
            s.work_sum += now - start;
            s.work_n += 1;
        }
        let Some(root) = root.cast::<web_sys::Element>() else { return };
        let _ = root.set_attribute("data-frames", &s.frames.to_string());
        if now - s.window_start > 1000.0 {
            if s.work_n > 0 {
                let _ = root.set_attribute("data-frame-ms", &format!("{:.2}", s.work_sum / s.work_n as f64));
            }
            (s.window_start, s.work_sum, s.work_n) = (now, 0.0, 0);
        }
    });
}

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub dispatch: UseReducerDispatcher<Player>,
    pub playing: bool,
    pub speed: f64,
    pub time_s: f64,
    pub end_s: f64,
    pub selected: Option<u32>,
    /// Jobs in the run, so that "Job #" selects only jobs that exist.
    pub jobs: u32,
    pub colour_by: ColourBy,
    pub on_colour_by: Callback<ColourBy>,
    /// Tenants the run shows; colouring by tenant needs two.
    pub tenants_shown: usize,
    /// Why colouring by tenant is off, when it is.
    pub one_tenant_why: Option<String>,
    pub on_fullscreen: Callback<MouseEvent>,
    /// Projector mode: on, and its toggle.
    #[prop_or_default]
    pub projector: bool,
    #[prop_or_default]
    pub on_projector: Callback<MouseEvent>,
    /// Why "Next wait" has nowhere to go from this time (`Playback::next_wait`), if so:
    /// the button is then disabled with the reason beside it, never silently idle.
    #[prop_or_default]
    pub next_wait_why: Option<&'static str>,
}

/// Play, step, speed, colour, the clock, full screen, projector mode and "Job #".
#[component]
pub fn PlayerControls(props: &ControlsProps) -> Html {
    let act = |a: PlayerAction| {
        let d = props.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(a.clone()))
    };
    let on_speed = {
        let d = props.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Ok(s) = e.target_unchecked_into::<HtmlSelectElement>().value().parse::<f64>() {
                d.dispatch(PlayerAction::SetSpeed(s));
            }
        })
    };
    let on_colour_by = {
        let on = props.on_colour_by.clone();
        Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<HtmlSelectElement>().value();
            on.emit(if value == "tenant" { ColourBy::Tenant } else { ColourBy::Job });
        })
    };
    let on_find_job = {
        let (d, jobs) = (props.dispatch.clone(), props.jobs);
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            d.dispatch(PlayerAction::Select(v.trim().parse::<u32>().ok().filter(|&j| j < jobs)));
        })
    };
    let (by, why) = (props.colour_by, props.one_tenant_why.clone());
    let one_tenant = why.is_some();
    html! {
        <div class="player-controls">
            <button type="button" class="primary" data-testid="play-button" onclick={act(PlayerAction::TogglePlay)} aria-keyshortcuts="Space">
                { if props.playing { "Pause" } else { "Play" } }
            </button>
            <button type="button" onclick={act(PlayerAction::StepBack)} aria-keyshortcuts="ArrowLeft" title="Previous event (←)">{ "◀ Step" }</button>
            <button type="button" data-testid="step-button" onclick={act(PlayerAction::StepNext)} aria-keyshortcuts="ArrowRight" title="Next event (→)">{ "Step ▶" }</button>
            <button type="button" data-testid="next-wait-button" onclick={act(PlayerAction::NextWait)} aria-keyshortcuts="W"
                    disabled={props.next_wait_why.is_some()} aria-describedby="next-wait-why"
                    title={props.next_wait_why.unwrap_or("The next time a job declines the GPUs free and waits under a delay timer (W)")}>{ "Next wait ▶" }</button>
            if let Some(why) = props.next_wait_why {
                <span class="hint" id="next-wait-why" data-testid="next-wait-why">{ format!("({why})") }</span>
            }
            <label>{ "Speed " }
                <select onchange={on_speed} data-testid="speed-select">
                    { for SPEEDS.iter().map(|(s, label)| html! { <option value={s.to_string()} selected={*s == props.speed}>{ *label }</option> }) }
                </select>
            </label>
            // A disabled control shows no tooltip of its own in some browsers: the label
            // carries the reason too, and says it in a few words (a tooltip is found only
            // by hovering).
            <label title={why.clone()}>
                { "Colour by " }
                <select onchange={on_colour_by} data-testid="colour-by" disabled={one_tenant} title={why}
                        aria-describedby="playback-colour-key">
                    <option value="job" selected={by == ColourBy::Job}>{ "job" }</option>
                    <option value="tenant" selected={by == ColourBy::Tenant}>{ format!("tenant ({})", props.tenants_shown) }</option>
                </select>
                if one_tenant {
                    <span class="hint" data-testid="colour-by-why">{ " (one tenant: set tenants in the generator)" }</span>
                }
            </label>
            <span class="clock" aria-live="off">{ format!("t = {} of {}", clock(props.time_s), clock(props.end_s)) }</span>
            <button type="button" data-testid="fullscreen-button" onclick={props.on_fullscreen.clone()} title="Show the player on the whole screen (Esc leaves)">{ "Full screen" }</button>
            <button type="button" data-testid="projector-button" onclick={props.on_projector.clone()} aria-pressed={props.projector.to_string()}
                    aria-keyshortcuts="P" title="Large GPUs and text, and the queue drawn under the cluster, for a projector (P)">{ "Projector" }</button>
            <label class="find-job">{ "Job # " }
                <input type="number" min="0" step="1" data-testid="find-job" onchange={on_find_job}
                       value={props.selected.map(|j| j.to_string()).unwrap_or_default()} aria-label="Select a job by number" />
            </label>
        </div>
    }
}

/// The key under the cluster: what the colours, marks and link widths mean.
pub fn colour_key(by: ColourBy) -> Html {
    html! {
        <p class="hint cluster-key" id="playback-colour-key">
            { if by == ColourBy::Tenant {
                "White GPUs are free; busy ones have their tenant's colour and mark (the per-tenant table's colours, listed above), \
                 and the job's number where it fits. "
            } else {
                "White GPUs are free; each job has its own dark colour and mark, and its number where it fits. "
            } }
            { "Links grow wider and warmer with the jobs' rings crossing them (the number says how many); on large clusters, \
               jobs spread over racks are drawn as one line per pair of racks with their count. Click a GPU to select its job." }
        </p>
    }
}
