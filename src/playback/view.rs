//! The playback of a run: the cluster on a canvas (GPUs coloured and marked by job, or by
//! tenant with a legend, on the cluster's graph; links as wide and warm as the rings
//! crossing them), the controls (play, step, speed, colour by job or tenant, a time slider
//! with preemptions and timer changes marked), the
//! queue with each delay timer as a countdown ring, the timers over time, and the
//! selected job's details with the scheduler's reason. Another policy's run can be shown
//! beside the watched one at the same instant; switching either keeps the time. Under
//! each canvas a subtitle says what a waiting job declines and the latest decisions
//! ([`super::narrate`]); projector mode (the button, `P` or `?projector`, remembered)
//! draws large cells and text and the queue on the canvas; full screen
//! ([`super::full_screen`]) folds the controls into one bar and gives the canvas the screen.
//! A player can carry a story (the tour's text), kept beside the canvas on wide screens and
//! directly under it on narrow ones.
//!
//! What is shown at each instant comes from [`Playback::state_at`] (pure, tested
//! natively); the player's position is a reducer ([`Player`]) local to the component, so
//! a frame re-renders this panel only. The canvas is drawn after each render; the rest
//! is a few dozen DOM elements, so the 2,048-GPU presets keep up with the screen.

use super::colours::ColourBy;
use super::controls::{focus_kind, key_action, use_play_loop, PlayerControls};
use super::full_screen::{leaves_full_screen, use_full_screen};
use super::panes::PlayerBody;
use super::record::ExportAnimation;
use super::timeline::Timeline;
use super::timer_chart::TimerChart;
use super::watch::{beside_index, default_policy, watched_index, WatchChoice};
use super::what_if::PreemptionWhatIf;
use super::widgets::clock;
use super::{Moment, Playback, Player, PlayerAction};
use crate::eventlog::PlaybackLog;
use crate::numbers::duration;
use crate::protocol::PolicyResult;
use crate::results::summary::{default_baseline, headline};
use crate::results::Results;
use crate::state::link::{Focus, FocusAt};
use crate::state::Action;
use crate::what_if::PreemptWhatIf;
use crate::Shared;
use proxima_core::metrics::Summary;
use proxima_core::topology::Topology;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

impl Reducible for Player {
    type Action = PlayerAction;

    fn reduce(self: Rc<Self>, action: PlayerAction) -> Rc<Self> {
        Rc::new((*self).clone().apply(action))
    }
}

/// Decodes and indexes a policy's playback log.
pub fn playback_of(result: &PolicyResult, topology: Shared<Topology>) -> Result<Shared<Playback>, String> {
    let log = PlaybackLog::decode(&result.playback)?;
    Playback::new(log, topology).map(Shared::new)
}

#[derive(Properties, PartialEq)]
pub struct PlaybackPanelProps {
    pub results: Shared<Results>,
    /// Where the playback opens, if asked (it applies to its run only).
    #[prop_or_default]
    pub focus: Option<Focus>,
    /// The what-if asked on a preemption, and where the page's actions go.
    #[prop_or_default]
    pub what_if: Option<Shared<PreemptWhatIf>>,
    #[prop_or_default]
    pub dispatch: Callback<Action>,
}

/// Where a player opens: (seconds, job selected, the moment found, if any).
fn opening(focus: Option<&Focus>, pb: &Playback) -> (f64, Option<u32>, Option<Moment>) {
    match focus {
        Some(Focus { at: FocusAt::FirstMoment, job, .. }) => match pb.first_moment() {
            Some(m) => (m.time_us as f64 / 1e6, job.or(Some(m.job)), Some(m)),
            None => (0.0, *job, None),
        },
        Some(Focus { at: FocusAt::Seconds(s), job, .. }) => (*s, *job, None),
        None => (0.0, None, None),
    }
}

/// The playbacks of a run's policies as decoded, `None` until they may be decoded.
struct Decoded {
    /// The watched policy's, or why it cannot be played back.
    watched: Rc<Option<Result<Shared<Playback>, String>>>,
    /// The one shown beside it.
    beside: Rc<Option<Shared<Playback>>>,
}

/// The watched policy's playback and the one beside it.
/// Decoded once per run and policy (the policy's result arrives once), and only once
/// every policy has run (`ready`): decoding and indexing a log of up to 250,000 events is
/// the page's heaviest work on a result, and done while the worker still runs the next
/// policy it competed with that run for the CPU (on two cores, half again as long for
/// `dally` on the full Philly trace, docs/PERFORMANCE.md). The default choice also
/// changes when `dally`'s result arrives, so an early decode was often thrown away.
#[hook]
fn use_decoded(r: &Results, index: usize, other_index: Option<usize>, ready: bool) -> Decoded {
    let decode = |i: Option<usize>| (i.and_then(|i| r.outcomes.get(i).cloned()).filter(|_| ready), r.topology.clone());
    let watched = use_memo(decode(Some(index)), |(o, t)| match (o, t) {
        (Some(o), Some(t)) => Some(playback_of(o, t.clone())),
        _ => None,
    });
    let beside = use_memo(decode(other_index), |(o, t)| match (o, t) {
        (Some(o), Some(t)) => playback_of(o, t.clone()).ok(),
        _ => None,
    });
    Decoded { watched, beside }
}

/// The playback section: a policy to watch, one to show beside it, and the player.
#[component]
pub fn PlaybackPanel(props: &PlaybackPanelProps) -> Html {
    let r = &props.results;
    let outcomes = &r.outcomes;
    let focus = props.focus.as_ref().filter(|f| f.run_id == Some(r.run_id));
    let policies: Vec<&str> = outcomes.iter().map(|o| o.policy.as_str()).collect();
    let default = default_policy(&policies, focus.and_then(|f| f.policy.as_deref()));
    let chosen = use_state(|| None::<(u32, usize)>);
    let beside = use_state(|| None::<(u32, usize)>);
    let index = watched_index(*chosen, r.run_id, default, outcomes.len());
    let other_index = beside_index(*beside, r.run_id, outcomes.len());
    let ready = r.finished || r.cancelled;
    let decoded = use_decoded(r, index, other_index, ready);
    if outcomes.is_empty() {
        return html! {
            <p class="status">{ "After a run, watch it here: placements, delay timers and preemptions as they happen." }</p>
        };
    }
    let pick = |state: &UseStateHandle<Option<(u32, usize)>>| {
        let (state, run) = (state.clone(), r.run_id);
        Callback::from(move |i: Option<usize>| state.set(i.map(|i| (run, i))))
    };
    let player = match &*decoded.watched {
        Some(Ok(pb)) => {
            let (start_s, selected, moment) = opening(focus, pb);
            let other_title = other_index.map(|i| outcomes[i].policy.clone());
            html! {
                <div class="focused" data-testid="playback-focus" data-moment={moment.map(|m| m.kind)}
                     data-moment-job={moment.map(|m| m.job.to_string())}>
                    <PlayerView key={r.run_id.to_string()} playback={pb.clone()} {start_s} {selected}
                                title={Some(outcomes[index].policy.clone())} other={(*decoded.beside).clone()} {other_title} />
                    <PreemptionWhatIf results={r.clone()} policy={index} playback={pb.clone()}
                                      what_if={props.what_if.clone()} dispatch={props.dispatch.clone()} />
                </div>
            }
        }
        Some(Err(e)) => {
            html! { <p class="field-error" role="alert">{ format!("This run cannot be played back: {e}") }</p> }
        }
        None if !ready => html! {
            <p class="status" data-testid="playback-pending">{ "Playback opens when every policy has run." }</p>
        },
        None => html! {},
    };
    html! {
        <>
            <WatchChoice outcomes={outcomes.clone()} {index} {other_index} on_watch={pick(&chosen)} on_beside={pick(&beside)} />
            if focus.is_some() && ready {
                <FocusHeadline results={r.clone()} />
            }
            { player }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct FocusHeadlineProps {
    results: Shared<Results>,
}

/// The results' headline, over a playback opened for the reader (the summary table's own
/// is below the playback, out of view).
#[component]
fn FocusHeadline(props: &FocusHeadlineProps) -> Html {
    let outcomes = &props.results.outcomes;
    let runs: Vec<(&str, &Summary)> = outcomes.iter().map(|o| (o.policy.as_str(), &o.summary)).collect();
    let baseline = default_baseline(outcomes.iter().map(|o| o.policy.as_str())).unwrap_or_default().to_string();
    let oversub = props.results.topology.as_deref().and_then(crate::scenario::cluster::max_oversubscription);
    match headline(&runs, &baseline, oversub) {
        Some(h) => html! {
            <div class="headline" data-testid="playback-headline">
                <p class="sentence">{ h.text }</p>
            </div>
        },
        None => html! {},
    }
}

#[derive(Properties, PartialEq)]
pub struct PlayerProps {
    pub playback: Shared<Playback>,
    /// Where to start, in simulated seconds.
    pub start_s: f64,
    /// A job to select from the start.
    pub selected: Option<u32>,
    /// Playback speed to start with (simulated seconds per second), if not the default.
    #[prop_or_default]
    pub speed: Option<f64>,
    /// The watched run's name (its policy), shown over its pane.
    #[prop_or_default]
    pub title: Option<String>,
    /// A run to show beside the watched one, at the same instant, and its name.
    #[prop_or_default]
    pub other: Option<Shared<Playback>>,
    #[prop_or_default]
    pub other_title: Option<String>,
    /// Text told about this run (the tour's step), shown beside the canvas on wide screens
    /// and directly under it on narrow ones, so that the two are on screen together.
    #[prop_or_default]
    pub story: Option<Html>,
}

/// The player's state, opened where `props` say.
#[hook]
fn use_player(props: &PlayerProps) -> UseReducerHandle<Player> {
    let (pb, start, sel, speed) = (props.playback.clone(), props.start_s, props.selected, props.speed);
    use_reducer(move || {
        let p = Player::new(pb, start, sel);
        match speed {
            Some(s) => p.apply(PlayerAction::SetSpeed(s)),
            None => p,
        }
    })
}

/// Another policy chosen to watch or to show beside: the player moves to the same
/// instant in it.
#[hook]
fn use_same_instant(player: &UseReducerHandle<Player>, props: &PlayerProps) {
    let d = player.dispatcher();
    use_effect_with(props.playback.clone(), move |pb| d.dispatch(PlayerAction::Watch(pb.clone())));
    let d = player.dispatcher();
    use_effect_with(props.other.clone(), move |other| d.dispatch(PlayerAction::Compare(other.clone())));
}

/// How jobs are coloured with `chosen` asked for and `tenants` tenants shown, and why
/// colouring by tenant is not offered when it is not: it needs two tenants to tell apart
/// (a run shown beside this one has the same jobs, so the same tenants). `first_tenant`
/// names the one tenant.
pub fn colouring(chosen: ColourBy, tenants: usize, first_tenant: Option<&str>) -> (ColourBy, Option<String>) {
    if tenants > 1 {
        return (chosen, None);
    }
    let name = first_tenant.unwrap_or("default");
    let why = format!(
        "Every job of this run belongs to one tenant ({name}), so colouring by tenant would paint them all alike. \
         Give the generator 2 tenants or more (or load a trace that names them) to colour by tenant."
    );
    (ColourBy::Job, Some(why))
}

/// One run's player.
#[component]
pub fn PlayerView(props: &PlayerProps) -> Html {
    let player = use_player(props);
    let pb = player.playback.clone();
    let frame = player.frame.clone();
    let root_ref = use_node_ref();
    let colour_by = use_state(ColourBy::default);
    let (projector, toggle_projector) = use_projector();
    use_play_loop(player.playing, player.dispatcher(), root_ref.clone(), frame.clone());
    use_same_instant(&player, props);

    let on_seek = {
        let d = player.dispatcher();
        Callback::from(move |t: f64| d.dispatch(PlayerAction::Seek(t)))
    };
    let on_slider = on_seek.reform(|e: InputEvent| e.target_unchecked_into::<HtmlInputElement>().value_as_number());
    let tenants_shown = pb.tenants_shown().len();
    let (by, one_tenant_why) = colouring(*colour_by, tenants_shown, pb.log.tenants.first().map(String::as_str));
    let on_gpu = {
        let d = player.dispatcher();
        Callback::from(move |g: Option<u32>| match g {
            Some(g) => d.dispatch(PlayerAction::SelectGpu(g)),
            None => d.dispatch(PlayerAction::Select(None)),
        })
    };
    let full = use_full_screen(root_ref.clone());
    let on_fullscreen = full.toggle.reform(|_: MouseEvent| ());
    let on_key =
        key_handler(player.dispatcher(), player.end_s(), toggle_projector.clone(), (full.on, full.leave.clone()));
    let on_select = {
        let d = player.dispatcher();
        Callback::from(move |job: Option<u32>| d.dispatch(PlayerAction::Select(job)))
    };

    let (t, end) = (player.time_s(), player.end_s());
    let on = projector;
    html! {
        <div class={classes!("player", on.then_some("projector"), full.on.then_some("full-screen"))} ref={root_ref.clone()} tabindex="0"
             onkeydown={on_key} data-testid="player" data-time={format!("{t:.3}")} data-full-screen={full.on.to_string()}
             aria-label="Playback. Space plays or pauses, the arrow keys step between events, Home and End jump.">
            if let Some(n) = cut_notice(&pb) {
                <p class="notice-inline" role="status">{ n }</p>
            }
            // In full screen the controls, the export and the time line fold into this one bar.
            <div class="player-bar">
                <PlayerControls dispatch={player.dispatcher()} playing={player.playing} speed={player.speed} time_s={t} end_s={end}
                                selected={player.selected} jobs={pb.log.jobs.len() as u32} colour_by={by}
                                on_colour_by={Callback::from(move |b| colour_by.set(b))} {tenants_shown} {one_tenant_why} {on_fullscreen}
                                projector={on} on_projector={toggle_projector.reform(|_: MouseEvent| ())}
                                next_wait_why={pb.next_wait(frame.time_us).err()} />
                <super::moment_link::MomentLink policy={props.title.clone()} time_s={t} job={player.selected} />
                <ExportAnimation dispatch={player.dispatcher()} playing={player.playing} speed={player.speed} end_s={end}
                                 root={root_ref.clone()} title={props.title.clone()} />
                <div class="timeline">
                    <input type="range" class="time-slider" data-testid="time-slider" min="0" max={format!("{end}")} step="any"
                           value={format!("{t}")} oninput={on_slider} aria-label="Simulated time, seconds"
                           aria-valuetext={format!("{} of {}", clock(t), clock(end))} />
                    <Timeline playback={pb.clone()} on_seek={on_seek} />
                </div>
                if full.on {
                    <button type="button" class="leave-full-screen" data-testid="leave-full-screen" onclick={full.leave.reform(|_: MouseEvent| ())}
                            aria-keyshortcuts="Escape">{ "✕ Leave full screen (Esc)" }</button>
                }
            </div>
            <PlayerBody playback={pb.clone()} frame={frame.clone()} other={player.other.clone()} title={props.title.clone()}
                        other_title={props.other_title.clone()} selected={player.selected} colour_by={by} {on_gpu} {on_select}
                        projector={on} story={props.story.clone()} />
            <TimerChart playback={pb.clone()} time_s={t} timers={frame.timers.clone()} title={player.other.as_ref().and(props.title.clone())} />
            if let Some((opb, oframe)) = &player.other {
                <TimerChart playback={opb.clone()} time_s={t} timers={oframe.timers.clone()} title={props.other_title.clone()} />
            }
        </div>
    }
}

/// Projector mode, on or off, and its toggle: from `?projector`, else the last choice
/// (remembered in local storage), toggled by the button or P.
#[hook]
fn use_projector() -> (bool, Callback<()>) {
    let projector = use_state(crate::browser::projector_setting);
    let toggle = {
        let projector = projector.clone();
        Callback::from(move |_: ()| {
            let on = !*projector;
            crate::browser::save_projector(on);
            projector.set(on);
        })
    };
    (*projector, toggle)
}

/// The player's keys: Escape leaves full screen when it is on (`full`: on, and how to
/// leave); P toggles projector mode (`toggle`); the others play, step and jump
/// ([`key_action`]). Keys typed into a field are the field's, but for Escape.
fn key_handler(
    d: UseReducerDispatcher<Player>,
    end: f64,
    toggle: Callback<()>,
    full: (bool, Callback<()>),
) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        let tag = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|el| focus_kind(&el));
        if leaves_full_screen(&e.key(), full.0) {
            e.prevent_default();
            e.stop_propagation();
            full.1.emit(());
        } else if projector_key(&e.key(), tag.as_deref().unwrap_or(""))
            && !e.ctrl_key()
            && !e.meta_key()
            && !e.alt_key()
        {
            e.prevent_default();
            e.stop_propagation();
            toggle.emit(());
        } else if let Some(a) = key_action(&e.key(), tag.as_deref().unwrap_or(""), end) {
            e.prevent_default();
            e.stop_propagation();
            d.dispatch(a);
        }
    })
}

/// Whether a key toggles projector mode: P, outside fields.
pub fn projector_key(key: &str, target_tag: &str) -> bool {
    matches!(key, "p" | "P") && !matches!(target_tag, "INPUT" | "SELECT" | "TEXTAREA")
}

/// What a cut log's playback leaves out, when it is cut.
fn cut_notice(pb: &Playback) -> Option<String> {
    pb.log.cut_at_us.map(|cut| {
        format!(
            "Playback covers the first {} of this run's {} ({} events): longer logs are cut so that the page stays responsive. The summary and the hash cover the whole run.",
            duration(cut as f64 / 1e6),
            duration(pb.log.end_us as f64 / 1e6),
            pb.log.events.len()
        )
    })
}
