//! The playback of a run: the cluster on a canvas (GPUs coloured and marked by job, a
//! scattered job's servers linked, links tinted by the rings crossing them), the controls
//! (play, step, speed, a time slider with preemptions and timer changes marked), the
//! queue with each delay timer as a countdown ring, the timers over time, and the
//! selected job's details with the scheduler's reason.
//!
//! What is shown at each instant comes from [`Playback::state_at`] (pure, tested
//! natively); the player's position is a reducer ([`Player`]) local to the component, so
//! a frame re-renders this panel only. The canvas is drawn after each render; the rest
//! is a few dozen DOM elements, so the 2,048-GPU presets keep up with the screen.

use crate::browser::{self, AnimationLoop};
use crate::charts::duration;
use crate::eventlog::PlaybackLog;
use crate::playback::{job_hsl, job_pattern, Grid, JobNow, MarkKind, Playback, Player, PlayerAction, NO_JOB, SPEEDS};
use crate::state::{PolicyOutcome, Results};
use proxima_core::event::SimEvent;
use proxima_core::share::TopologyChoice;
use proxima_core::topology::{resolve_topology_arg, Topology};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Waiting jobs listed under the cluster; the rest are counted.
const QUEUE_SHOWN: usize = 24;
/// The widest the cluster drawing gets, in CSS pixels.
const GRID_WIDTH: f64 = 920.0;

impl Reducible for Player {
    type Action = PlayerAction;

    fn reduce(self: Rc<Self>, action: PlayerAction) -> Rc<Self> {
        Rc::new((*self).clone().apply(action))
    }
}

/// The cluster a run used, from the scenario it recorded.
pub fn topology_of(choice: &TopologyChoice) -> Result<Topology, String> {
    match choice {
        TopologyChoice::Preset(a) | TopologyChoice::Parametric(a) => resolve_topology_arg(a).map_err(|e| e.to_string()),
        TopologyChoice::Custom(spec) => Topology::from_spec(spec).map_err(|e| e.to_string()),
    }
}

/// Decodes and indexes a policy's playback log.
pub fn playback_of(outcome: &PolicyOutcome, topology: Rc<Topology>) -> Result<Rc<Playback>, String> {
    let log = PlaybackLog::from_base64(&outcome.result.playback)?;
    Playback::new(log, topology).map(Rc::new)
}

#[derive(Properties)]
pub struct PlaybackPanelProps {
    pub results: Rc<Results>,
}

impl PartialEq for PlaybackPanelProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.results, &other.results)
    }
}

/// The playback section: a policy to watch and its player.
#[component]
pub fn PlaybackPanel(props: &PlaybackPanelProps) -> Html {
    let r = &props.results;
    let outcomes = &r.outcomes;
    // Dally's runs are the interesting ones to watch: start with the first.
    let default = outcomes.iter().position(|o| o.result.policy.starts_with("dally")).unwrap_or(0);
    let chosen = use_state(|| None::<(u32, usize)>);
    let index = match *chosen {
        Some((run, i)) if run == r.run_id => i,
        _ => default,
    }
    .min(outcomes.len().saturating_sub(1));
    let choice = r.scenario.as_ref().map(|s| s.topology.clone());
    let topology = use_memo((r.run_id, choice), |(_, choice)| choice.as_ref().map(|c| topology_of(c).map(Rc::new)));
    // Decoded once per run and policy (the policy's result arrives once).
    let ready = outcomes.len() > index;
    let playback = use_memo((r.run_id, index, ready), {
        let outcome = outcomes.get(index).cloned();
        let topology = (*topology).clone();
        move |_| match (outcome, topology) {
            (Some(o), Some(Ok(t))) => Some(playback_of(&o, t)),
            (Some(_), Some(Err(e))) => Some(Err(e)),
            _ => None,
        }
    });
    if outcomes.is_empty() {
        return html! {
            <p class="status">{ "After a run, watch it here: placements, delay timers and preemptions as they happen." }</p>
        };
    }
    let on_policy = {
        let chosen = chosen.clone();
        let run = r.run_id;
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            chosen.set(v.parse().ok().map(|i| (run, i)));
        })
    };
    let outcome = &outcomes[index];
    html! {
        <>
            <div class="form-row">
                <label>{ "Watch " }
                    <select onchange={on_policy} data-testid="playback-policy">
                        { for outcomes.iter().enumerate().map(|(i, o)| html! {
                            <option value={i.to_string()} selected={i == index}>{ o.result.policy.clone() }</option>
                        }) }
                    </select>
                </label>
                <span class="hint" data-testid="event-hash" data-event-hash={outcome.result.event_hash.clone()}
                      data-playback-chars={outcome.result.playback.len().to_string()}>
                    { format!("{} events; event-log hash {} (FNV-1a, as `proxima run --events FILE` prints it)", outcome.result.event_count, outcome.result.event_hash) }
                </span>
            </div>
            { match &*playback {
                Some(Ok(pb)) => html! { <PlayerView key={format!("{}-{index}", r.run_id)} playback={pb.clone()} start_s={0.0} selected={None::<u32>} /> },
                Some(Err(e)) => html! { <p class="field-error" role="alert">{ format!("This run cannot be played back: {e}") }</p> },
                None => html! {},
            } }
        </>
    }
}

#[derive(Properties, PartialEq)]
pub struct PlayerProps {
    pub playback: Rc<Playback>,
    /// Where to start, in simulated seconds.
    pub start_s: f64,
    /// A job to select from the start.
    pub selected: Option<u32>,
    /// Playback speed to start with (simulated seconds per second), if not the default.
    #[prop_or_default]
    pub speed: Option<f64>,
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

/// One run's player.
#[component]
pub fn PlayerView(props: &PlayerProps) -> Html {
    let player = {
        let (pb, start, sel, speed) = (props.playback.clone(), props.start_s, props.selected, props.speed);
        use_reducer(move || {
            let p = Player::new(pb, start, sel);
            match speed {
                Some(s) => p.apply(PlayerAction::SetSpeed(s)),
                None => p,
            }
        })
    };
    let pb = player.playback.clone();
    let frame = player.frame.clone();
    let grid = use_memo(crate::Same(pb.topo.clone()), |t| Grid::new(&t.0, GRID_WIDTH));
    let canvas_ref = use_node_ref();
    let root_ref = use_node_ref();
    let stats = use_mut_ref(FrameStats::default);

    // While playing, a tick per animation frame.
    {
        let dispatch = player.dispatcher();
        let stats = stats.clone();
        use_effect_with(player.playing, move |playing| {
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

    // Draw the cluster after every render of a new frame or selection.
    {
        let canvas_ref = canvas_ref.clone();
        let root_ref = root_ref.clone();
        let grid = grid.clone();
        let pb = pb.clone();
        let stats = stats.clone();
        let selected = player.selected;
        use_effect_with((crate::Same(frame.clone()), selected), move |(frame, selected)| {
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                draw(&canvas, &grid, &pb, &frame.0, *selected);
            }
            let now = browser::now_ms();
            let mut s = stats.borrow_mut();
            s.frames += 1;
            if let Some(start) = s.started_ms.take() {
                s.work_sum += now - start;
                s.work_n += 1;
            }
            if now - s.window_start > 1000.0 {
                if let Some(root) = root_ref.cast::<web_sys::Element>() {
                    let _ = root.set_attribute("data-frames", &s.frames.to_string());
                    if s.work_n > 0 {
                        let _ = root.set_attribute("data-frame-ms", &format!("{:.2}", s.work_sum / s.work_n as f64));
                    }
                }
                s.window_start = now;
                s.work_sum = 0.0;
                s.work_n = 0;
            }
        });
    }

    let act = |a: PlayerAction| {
        let d = player.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(a.clone()))
    };
    let on_slider = {
        let d = player.dispatcher();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value_as_number();
            d.dispatch(PlayerAction::Seek(v));
        })
    };
    let on_speed = {
        let d = player.dispatcher();
        Callback::from(move |e: Event| {
            if let Ok(s) = e.target_unchecked_into::<HtmlSelectElement>().value().parse::<f64>() {
                d.dispatch(PlayerAction::SetSpeed(s));
            }
        })
    };
    let on_find_job = {
        let d = player.dispatcher();
        let jobs = pb.log.jobs.len() as u32;
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            d.dispatch(PlayerAction::Select(v.trim().parse::<u32>().ok().filter(|&j| j < jobs)));
        })
    };
    let on_canvas_click = {
        let d = player.dispatcher();
        let grid = grid.clone();
        let canvas_ref = canvas_ref.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(canvas) = canvas_ref.cast::<web_sys::Element>() else { return };
            let r = canvas.get_bounding_client_rect();
            // The canvas may be scaled down by CSS to fit: map back to its own pixels.
            let scale = if r.width() > 0.0 { grid.width / r.width() } else { 1.0 };
            let (x, y) = ((e.client_x() as f64 - r.left()) * scale, (e.client_y() as f64 - r.top()) * scale);
            match grid.gpu_at(x, y) {
                Some(g) => d.dispatch(PlayerAction::SelectGpu(g)),
                None => d.dispatch(PlayerAction::Select(None)),
            }
        })
    };
    let on_key = {
        let d = player.dispatcher();
        let end = player.end_s();
        Callback::from(move |e: KeyboardEvent| {
            let tag = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .map(|el| el.tag_name())
                .unwrap_or_default();
            let in_field = matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA");
            // A focused button answers Space itself.
            if tag == "BUTTON" && e.key() == " " {
                return;
            }
            let action = match e.key().as_str() {
                " " | "k" if !in_field => Some(PlayerAction::TogglePlay),
                "." | "ArrowRight" if !in_field => Some(PlayerAction::StepNext),
                "," | "ArrowLeft" if !in_field => Some(PlayerAction::StepBack),
                "Home" if !in_field => Some(PlayerAction::Seek(0.0)),
                "End" if !in_field => Some(PlayerAction::Seek(end)),
                "Escape" => Some(PlayerAction::Select(None)),
                _ => None,
            };
            if let Some(a) = action {
                e.prevent_default();
                e.stop_propagation();
                d.dispatch(a);
            }
        })
    };

    let t = player.time_s();
    let end = player.end_s();
    let countdowns = pb.countdowns(&frame);
    let topo = &pb.topo;
    let running_by_tier: Vec<usize> = {
        let mut v = vec![0; topo.tier_count() as usize];
        for r in frame.running.values() {
            if let SimEvent::Placed { tier, .. } = &pb.log.events[r.placed as usize] {
                v[tier.0 as usize] += 1;
            }
        }
        v
    };
    let busy = frame.gpu_owner.iter().filter(|&&o| o != NO_JOB).count();
    let select_job = |job: u32| {
        let d = player.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(PlayerAction::Select(Some(job))))
    };
    let cut_notice = pb.log.cut_at_us.map(|cut| {
        format!(
            "Playback covers the first {} of this run's {} ({} events): longer logs are cut so that the page stays responsive. The summary and the hash cover the whole run.",
            duration(cut as f64 / 1e6),
            duration(pb.log.end_us as f64 / 1e6),
            pb.log.events.len()
        )
    });
    html! {
        <div class="player" ref={root_ref} tabindex="0" onkeydown={on_key} data-testid="player" data-time={format!("{t:.3}")}
             aria-label="Playback. Space plays or pauses, the arrow keys step between events, Home and End jump.">
            if let Some(n) = cut_notice {
                <p class="notice-inline" role="status">{ n }</p>
            }
            <div class="player-controls">
                <button type="button" class="primary" data-testid="play-button" onclick={act(PlayerAction::TogglePlay)} aria-keyshortcuts="Space">
                    { if player.playing { "Pause" } else { "Play" } }
                </button>
                <button type="button" onclick={act(PlayerAction::StepBack)} aria-keyshortcuts="ArrowLeft" title="Previous event (←)">{ "◀ Step" }</button>
                <button type="button" data-testid="step-button" onclick={act(PlayerAction::StepNext)} aria-keyshortcuts="ArrowRight" title="Next event (→)">{ "Step ▶" }</button>
                <label>{ "Speed " }
                    <select onchange={on_speed} data-testid="speed-select">
                        { for SPEEDS.iter().map(|(s, label)| html! { <option value={s.to_string()} selected={*s == player.speed}>{ *label }</option> }) }
                    </select>
                </label>
                <span class="clock" aria-live="off">{ format!("t = {} of {}", clock(t), clock(end)) }</span>
                <label class="find-job">{ "Job # " }
                    <input type="number" min="0" step="1" data-testid="find-job" onchange={on_find_job}
                           value={player.selected.map(|j| j.to_string()).unwrap_or_default()} aria-label="Select a job by number" />
                </label>
            </div>
            <div class="timeline">
                <input type="range" class="time-slider" data-testid="time-slider" min="0" max={format!("{end}")} step="any"
                       value={format!("{t}")} oninput={on_slider} aria-label="Simulated time, seconds"
                       aria-valuetext={format!("{} of {}", clock(t), clock(end))} />
                <Marks playback={pb.clone()} />
            </div>
            <p class="player-stats">
                { format!("{busy} of {} GPUs busy; {} running ({}); {} waiting; {} completed; {} preemption{}, {} re-consolidation{}.",
                    frame.gpu_owner.len(), frame.running.len(),
                    topo.tier_names().iter().zip(&running_by_tier).map(|(n, c)| format!("{c} {n}")).collect::<Vec<_>>().join(", "),
                    frame.queue.len(), frame.completed,
                    frame.preemptions, if frame.preemptions == 1 { "" } else { "s" },
                    frame.reconsolidations, if frame.reconsolidations == 1 { "" } else { "s" }) }
            </p>
            <div class="player-body">
                <figure class="cluster-figure">
                    <canvas ref={canvas_ref} class="cluster-canvas" data-testid="cluster-canvas" width={format!("{}", grid.width.ceil())} height={format!("{}", grid.height.ceil())}
                            onclick={on_canvas_click} role="img"
                            aria-label={format!("The cluster at t = {}: {busy} busy GPUs, coloured by job. Select a job in the lists to read about it.", clock(t))}></canvas>
                    <figcaption>
                        { "Each colour (and mark) is a job; its number is written on large cells. Lines join the servers of a job spread over several. \
                           Bars left of each server and above each rack are links, darker with more jobs' rings crossing them (the number says how many). Click a GPU to select its job." }
                    </figcaption>
                </figure>
                <div class="player-side">
                    <JobDetails playback={pb.clone()} frame={frame.clone()} selected={player.selected} />
                    <section class="queue" aria-label="Waiting jobs">
                        <h4>{ format!("Queue ({})", frame.queue.len()) }</h4>
                        if !frame.timers.is_empty() {
                            <p class="hint" data-testid="timers-now">{ format!("Delay timers now: {}.", frame.timers.iter().enumerate()
                                .map(|(t, v)| format!("{} {:.0} s", topo.tier_name(proxima_core::topology::Tier(t as u8)), v)).collect::<Vec<_>>().join(", ")) }</p>
                        }
                        if frame.queue.is_empty() {
                            <p class="hint">{ "Nobody waits." }</p>
                        }
                        <ul>
                            { for frame.queue.iter().take(QUEUE_SHOWN).map(|(&job, q)| {
                                let countdown = countdowns.iter().find(|c| c.job == job);
                                let facts = pb.log.jobs.get(job as usize);
                                let gpus = facts.map(|f| f.gpus).unwrap_or(0);
                                let waited = frame.time_us.saturating_sub(q.since_us) as f64 / 1e6;
                                let selected = player.selected == Some(job);
                                html! {
                                    <li class={classes!("queued", selected.then_some("selected"))}>
                                        <button type="button" class="job-chip" onclick={select_job(job)} aria-pressed={selected.to_string()}>
                                            <JobSwatch job={job} />
                                            { format!("job {job} · {gpus} GPU{} · {} · waited {}", if gpus == 1 { "" } else { "s" }, pb.model_of(job), duration(waited)) }
                                        </button>
                                        if let Some(c) = countdown {
                                            <span class="delay-timer" data-testid="delay-timer" data-job={job.to_string()} data-left-s={format!("{:.1}", c.left_s)}
                                                  title={format!("waiting for a {}-local placement: {:.0} s of {:.0} s left", topo.tier_name(c.wanted), c.left_s, c.total_s)}>
                                                <Ring fraction={c.left_s / c.total_s.max(1e-9)} />
                                                { format!("{} in {:.0} s", topo.tier_name(c.wanted), c.left_s) }
                                            </span>
                                        }
                                    </li>
                                }
                            }) }
                        </ul>
                        if frame.queue.len() > QUEUE_SHOWN {
                            <p class="hint">{ format!("…and {} more.", frame.queue.len() - QUEUE_SHOWN) }</p>
                        }
                    </section>
                    <RecentMarks playback={pb.clone()} frame={frame.clone()} />
                </div>
            </div>
            <TimerChart playback={pb.clone()} time_s={t} timers={frame.timers.clone()} />
        </div>
    }
}

/// Simulated time as `1 h 23 min 4 s`, `12 min 5 s`, `42.0 s`.
pub fn clock(s: f64) -> String {
    let whole = s.max(0.0).floor() as u64;
    let (h, m, sec) = (whole / 3600, whole / 60 % 60, whole % 60);
    if h > 0 {
        format!("{h} h {m:02} min {sec:02} s")
    } else if m > 0 {
        format!("{m} min {sec:02} s")
    } else {
        format!("{s:.1} s")
    }
}

#[derive(Properties, PartialEq)]
struct RingProps {
    /// The part of the timer left, 0..1.
    fraction: f64,
}

/// A countdown ring: the arc left of the timer.
#[component]
fn Ring(props: &RingProps) -> Html {
    let r = 8.0;
    let c = 2.0 * std::f64::consts::PI * r;
    let left = props.fraction.clamp(0.0, 1.0) * c;
    html! {
        <svg class="ring" width="20" height="20" viewBox="0 0 20 20" aria-hidden="true">
            <circle class="ring-bg" cx="10" cy="10" r={r.to_string()} />
            <circle class="ring-left" cx="10" cy="10" r={r.to_string()} stroke-dasharray={format!("{left:.2} {c:.2}")} transform="rotate(-90 10 10)" />
        </svg>
    }
}

#[derive(Properties, PartialEq)]
struct SwatchProps {
    job: u32,
}

/// A job's colour and mark, as on the canvas.
#[component]
fn JobSwatch(props: &SwatchProps) -> Html {
    let (h, s, l) = job_hsl(props.job);
    let mark = match job_pattern(props.job) {
        1 => html! { <line x1="1" y1="11" x2="11" y2="1" class="mark" /> },
        2 => html! { <circle cx="6" cy="6" r="2" class="mark-dot" /> },
        3 => html! { <line x1="1" y1="6" x2="11" y2="6" class="mark" /> },
        _ => html! {},
    };
    html! {
        <svg class="swatch" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">
            <rect width="12" height="12" fill={format!("hsl({h:.0} {s:.0}% {l:.0}%)")} />
            { mark }
        </svg>
    }
}

#[derive(Properties, PartialEq)]
struct DetailsProps {
    playback: Rc<Playback>,
    frame: Rc<crate::playback::Frame>,
    selected: Option<u32>,
}

/// The selected job: what it is, what it is doing, and why.
#[component]
fn JobDetails(props: &DetailsProps) -> Html {
    let pb = &props.playback;
    let topo = &pb.topo;
    let Some(job) = props.selected else {
        return html! {
            <section class="job-details" data-testid="job-details" aria-live="polite">
                <p class="hint">{ "Select a job (click its GPUs, or a job in the queue) to see what it does and why." }</p>
            </section>
        };
    };
    let facts = pb.log.jobs.get(job as usize);
    let now = pb.job_now(&props.frame, job);
    let t_now = props.frame.time_us;
    let (status, reason) = match &now {
        JobNow::NotSubmitted => ("not submitted yet".to_string(), None),
        JobNow::Rejected => ("rejected: larger than the cluster".to_string(), None),
        JobNow::Completed { at_us } => (format!("completed at {}", clock(*at_us as f64 / 1e6)), None),
        JobNow::Queued { since_us, reason } => (
            format!("waiting for {}", duration(t_now.saturating_sub(*since_us) as f64 / 1e6)),
            reason.as_ref().map(|r| r.describe(topo)),
        ),
        JobNow::Running { since_us, tier, gpus, reason } => {
            let mut servers: Vec<(String, u32)> = Vec::new();
            for g in gpus {
                let name = topo.node(topo.server_of(*g)).name.clone();
                match servers.last_mut() {
                    Some((n, c)) if *n == name => *c += 1,
                    _ => servers.push((name, 1)),
                }
            }
            let list = servers.iter().map(|(n, c)| format!("{n} ({c})")).collect::<Vec<_>>().join(", ");
            (
                format!(
                    "running for {} at {} tier on {} server{}: {list}",
                    duration(t_now.saturating_sub(*since_us) as f64 / 1e6),
                    topo.tier_name(*tier),
                    servers.len(),
                    if servers.len() == 1 { "" } else { "s" }
                ),
                Some(reason.describe(topo)),
            )
        }
    };
    let history: Vec<String> = pb
        .job_history(job)
        .iter()
        .filter(|&&i| pb.log.times[i as usize] <= t_now)
        .map(|&i| format!("{}: {}", clock(pb.log.times[i as usize] as f64 / 1e6), pb.describe_event(i)))
        .collect();
    let shown = history.len().saturating_sub(6);
    html! {
        <section class="job-details" data-testid="job-details" data-job={job.to_string()} aria-live="polite">
            <h4><JobSwatch job={job} />{ format!(" Job {job}") }</h4>
            if let Some(f) = facts {
                <p>{ format!("{} · {} GPU{} · ideal run time {}", pb.model_of(job), f.gpus, if f.gpus == 1 { "" } else { "s" },
                     if f.ideal_s.is_finite() { duration(f.ideal_s) } else { "–".into() }) }</p>
            }
            <p><strong>{ "Now: " }</strong>{ status }</p>
            if let Some(r) = reason {
                <p class="reason"><strong>{ "Scheduler: " }</strong><span data-testid="job-reason">{ r }</span></p>
            }
            if !history.is_empty() {
                <details>
                    <summary>{ format!("History ({} events so far)", history.len()) }</summary>
                    <ol start={(shown + 1).to_string()}>{ for history[shown..].iter().map(|h| html! { <li>{ h.clone() }</li> }) }</ol>
                </details>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct MarksProps {
    playback: Rc<Playback>,
}

/// Preemptions, re-consolidations and timer changes along the time line, under the slider.
#[component]
fn Marks(props: &MarksProps) -> Html {
    let pb = &props.playback;
    let end = pb.end_us().max(1) as f64;
    // One tick per kind and pixel column is enough (a long run has thousands).
    let mut columns: std::collections::BTreeSet<(u8, u32)> = std::collections::BTreeSet::new();
    for m in &pb.marks {
        let kind = match m.kind {
            MarkKind::Preempted => 0,
            MarkKind::Reconsolidated => 1,
            MarkKind::TimerChanged => 2,
        };
        columns.insert((kind, (m.time_us as f64 / end * 1000.0) as u32));
    }
    if columns.is_empty() {
        return html! {};
    }
    let count = |k: MarkKind| pb.marks.iter().filter(|m| m.kind == k).count();
    html! {
        <svg class="marks" viewBox="0 0 1000 14" preserveAspectRatio="none" role="img"
             aria-label={format!("On the time line: {} preemptions, {} re-consolidations, {} timer changes", count(MarkKind::Preempted), count(MarkKind::Reconsolidated), count(MarkKind::TimerChanged))}>
            { for columns.iter().map(|(k, x)| match k {
                0 => html! { <rect class="mark-preempt" x={x.to_string()} y="0" width="2" height="14" /> },
                1 => html! { <rect class="mark-recons" x={x.to_string()} y="4" width="2" height="10" /> },
                _ => html! { <rect class="mark-timer" x={x.to_string()} y="9" width="2" height="5" /> },
            }) }
        </svg>
    }
}

#[derive(Properties, PartialEq)]
struct RecentProps {
    playback: Rc<Playback>,
    frame: Rc<crate::playback::Frame>,
}

/// The last preemptions, re-consolidations and timer changes, as they happen.
#[component]
fn RecentMarks(props: &RecentProps) -> Html {
    let pb = &props.playback;
    let recent = pb.recent_marks(&props.frame, 5);
    if pb.marks.is_empty() {
        return html! {};
    }
    html! {
        <section class="recent" aria-label="Recent preemptions and timer changes">
            <h4>{ "Recent" }</h4>
            if recent.is_empty() {
                <p class="hint">{ "No preemption or timer change yet." }</p>
            }
            <ul>{ for recent.iter().map(|m| {
                let class = match m.kind {
                    MarkKind::Preempted => "preempted",
                    MarkKind::Reconsolidated => "reconsolidated",
                    MarkKind::TimerChanged => "timer-changed",
                };
                html! { <li class={class}><span class="when">{ clock(m.time_us as f64 / 1e6) }</span>{ " " }{ pb.describe_event(m.event) }</li> }
            }) }</ul>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct TimerChartProps {
    playback: Rc<Playback>,
    time_s: f64,
    timers: Vec<f64>,
}

/// The delay timers over time, one step line per tier, with the current time marked.
#[component]
fn TimerChart(props: &TimerChartProps) -> Html {
    let pb = &props.playback;
    let series = use_memo(pb.clone(), |pb| pb.timer_steps());
    if series.is_empty() {
        return html! {
            <p class="hint" data-testid="timer-chart">{ "This policy has no delay timers." }</p>
        };
    }
    let (w, h, left, bottom, top) = (640.0, 150.0, 56.0, 26.0, 10.0);
    let end = pb.end_us().max(1) as f64 / 1e6;
    let max = series.iter().flat_map(|s| s.iter().map(|p| p.1)).fold(1.0f64, f64::max) * 1.1;
    let x = |t: f64| left + (t / end).clamp(0.0, 1.0) * (w - left - 10.0);
    let y = |v: f64| top + (1.0 - v / max) * (h - top - bottom);
    let path = |s: &[(f64, f64)]| {
        let mut d = String::new();
        for (i, &(t, v)) in s.iter().enumerate() {
            if i == 0 {
                d += &format!("M{:.1} {:.1}", x(t), y(v));
            } else {
                // A step: hold the previous value until the change.
                d += &format!("H{:.1}V{:.1}", x(t), y(v));
            }
        }
        d
    };
    let names: Vec<String> =
        (0..series.len()).map(|t| pb.topo.tier_name(proxima_core::topology::Tier(t as u8)).to_string()).collect();
    let changes: Vec<String> = pb
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::TimerChanged)
        .map(|m| format!("{}: {}", clock(m.time_us as f64 / 1e6), pb.describe_event(m.event)))
        .collect();
    let now = props
        .timers
        .iter()
        .enumerate()
        .map(|(t, v)| format!("{} {:.0} s", names.get(t).cloned().unwrap_or_default(), v))
        .collect::<Vec<_>>()
        .join(", ");
    html! {
        <figure class="chart-figure timer-figure" data-testid="timer-chart">
            <svg class="chart" viewBox={format!("0 0 {w} {h}")} role="img" aria-label={format!("Delay timers over time; now {now}")}>
                <line class="grid" x1={left.to_string()} x2={(w - 10.0).to_string()} y1={format!("{:.1}", y(0.0))} y2={format!("{:.1}", y(0.0))} />
                <text x={(left - 4.0).to_string()} y={format!("{:.1}", y(0.0))} text-anchor="end">{ "0 s" }</text>
                <text x={(left - 4.0).to_string()} y={format!("{:.1}", y(max / 1.1) + 4.0)} text-anchor="end">{ format!("{:.0} s", max / 1.1) }</text>
                <text x={left.to_string()} y={(h - 6.0).to_string()}>{ "0" }</text>
                <text x={(w - 10.0).to_string()} y={(h - 6.0).to_string()} text-anchor="end">{ clock(end) }</text>
                { for series.iter().enumerate().map(|(i, s)| html! {
                    <g class={format!("s{}", i % 6)}>
                        <path class="line" d={path(s)} stroke-dasharray={crate::charts::dash(i)} />
                        <text class="series-label" x={format!("{:.1}", x(s[0].0) + 4.0)} y={format!("{:.1}", y(s[0].1) - 3.0)}>{ names[i].clone() }</text>
                    </g>
                }) }
                <line class="cursor" x1={format!("{:.1}", x(props.time_s))} x2={format!("{:.1}", x(props.time_s))} y1={top.to_string()} y2={format!("{:.1}", h - bottom)} />
            </svg>
            <figcaption>
                { format!("Delay timers per tier as the auto-tuner moves them (now: {now}). ") }
                if !changes.is_empty() {
                    <details>
                        <summary>{ format!("{} change{}", changes.len(), if changes.len() == 1 { "" } else { "s" }) }</summary>
                        <ul>{ for changes.iter().map(|c| html! { <li>{ c.clone() }</li> }) }</ul>
                    </details>
                } else {
                    { "They did not change in this run." }
                }
            </figcaption>
        </figure>
    }
}

// -- the canvas ---------------------------------------------------------------------------

fn hsl((h, s, l): (f64, f64, f64)) -> String {
    format!("hsl({h:.0} {s:.0}% {l:.0}%)")
}

/// A link's tint by the rings crossing it: grey when idle, then warmer and darker.
fn load_colour(rings: u32) -> &'static str {
    match rings {
        0 => "#c8c8c8",
        1 => "#f2b64c",
        2 => "#e8772e",
        3 => "#d2452b",
        _ => "#9e1b1b",
    }
}

/// Draws one frame of the cluster.
fn draw(canvas: &HtmlCanvasElement, grid: &Grid, pb: &Playback, frame: &crate::playback::Frame, selected: Option<u32>) {
    let Some(ctx) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let (w, h) = (grid.width.ceil(), grid.height.ceil());
    ctx.clear_rect(0.0, 0.0, w, h);
    let cell = grid.cell;
    let small = cell < 10.0;
    ctx.set_font(if small { "9px sans-serif" } else { "11px sans-serif" });
    ctx.set_text_baseline("top");

    // Racks: a block each, with its name and the uplink rising to the line of the
    // switches above.
    if grid.groups.len() > 1 {
        ctx.set_stroke_style_str("#9a9a9a");
        ctx.set_line_width(1.0);
        for row in grid.groups.chunk_by(|a, b| a.rect.y == b.rect.y) {
            let first = row[0].link_bar;
            let last = row[row.len() - 1].link_bar;
            ctx.begin_path();
            ctx.move_to(first.x, first.y);
            ctx.line_to(last.x + last.w, last.y);
            ctx.stroke();
        }
    }
    for g in &grid.groups {
        ctx.set_fill_style_str("rgba(120,120,120,0.08)");
        ctx.fill_rect(g.rect.x, g.rect.y, g.rect.w, g.rect.h);
        ctx.set_fill_style_str("#555");
        ctx.fill_text(&g.label, g.rect.x + 2.0, g.rect.y + 2.0).ok();
        if let Some(l) = g.uplink {
            let rings = frame.link_load[l.0 as usize];
            ctx.set_fill_style_str(load_colour(rings));
            ctx.fill_rect(g.link_bar.x, g.link_bar.y, g.link_bar.w, g.link_bar.h);
            if rings > 0 {
                ctx.set_fill_style_str("#222");
                ctx.fill_text(&rings.to_string(), g.link_bar.x + g.link_bar.w + 2.0, g.link_bar.y).ok();
            }
        }
    }
    for s in &grid.servers {
        if let Some(l) = s.uplink {
            let rings = frame.link_load[l.0 as usize];
            ctx.set_fill_style_str(load_colour(rings));
            ctx.fill_rect(s.link_bar.x, s.link_bar.y, s.link_bar.w, s.link_bar.h);
        }
    }

    // GPUs: idle ones first in one colour, then each job's in its colour and mark.
    ctx.set_fill_style_str("#e4e4e4");
    for (g, r) in grid.gpus.iter().enumerate() {
        if frame.gpu_owner[g] == NO_JOB {
            ctx.fill_rect(r.x, r.y, r.w, r.h);
        }
    }
    for (&job, run) in &frame.running {
        let gpus = pb.placed_gpus(run.placed);
        ctx.set_fill_style_str(&hsl(job_hsl(job)));
        for g in gpus {
            let r = grid.gpus[g.0 as usize];
            ctx.fill_rect(r.x, r.y, r.w, r.h);
        }
        // The mark, so that colour is not the only cue.
        let pattern = job_pattern(job);
        if pattern != 0 {
            ctx.set_stroke_style_str("rgba(255,255,255,0.85)");
            ctx.set_fill_style_str("rgba(255,255,255,0.85)");
            ctx.set_line_width(if small { 1.0 } else { 2.0 });
            ctx.begin_path();
            for g in gpus {
                let r = grid.gpus[g.0 as usize];
                match pattern {
                    1 => {
                        ctx.move_to(r.x + 1.0, r.y + r.h - 1.0);
                        ctx.line_to(r.x + r.w - 1.0, r.y + 1.0);
                    }
                    2 => {
                        ctx.move_to(r.x + r.w / 2.0 + r.w / 5.0, r.y + r.h / 2.0);
                        ctx.arc(r.x + r.w / 2.0, r.y + r.h / 2.0, r.w / 5.0, 0.0, std::f64::consts::TAU).ok();
                    }
                    _ => {
                        ctx.move_to(r.x + 1.0, r.y + r.h / 2.0);
                        ctx.line_to(r.x + r.w - 1.0, r.y + r.h / 2.0);
                    }
                }
            }
            if pattern == 2 {
                ctx.fill();
            } else {
                ctx.stroke();
            }
        }
        if cell >= 20.0 {
            ctx.set_fill_style_str("#000");
            ctx.set_text_baseline("bottom");
            for g in gpus {
                let r = grid.gpus[g.0 as usize];
                ctx.fill_text(&job.to_string(), r.x + 2.0, r.y + r.h - 1.0).ok();
            }
            ctx.set_text_baseline("top");
        }
    }
    // Jobs spread over several servers: their servers joined, so scattering shows.
    ctx.set_line_width(if small { 1.5 } else { 2.5 });
    for (&job, run) in &frame.running {
        let gpus = pb.placed_gpus(run.placed);
        if gpus.len() < 2 {
            continue;
        }
        let centres = grid.server_centres(gpus);
        if centres.len() < 2 {
            continue;
        }
        ctx.set_stroke_style_str(&hsl(job_hsl(job)));
        ctx.begin_path();
        for c in &centres[1..] {
            ctx.move_to(centres[0].0, centres[0].1);
            ctx.line_to(c.0, c.1);
        }
        ctx.stroke();
    }
    // The selected job: outlined, its links in black.
    if let Some(job) = selected {
        if let Some(run) = frame.running.get(&job) {
            let gpus = pb.placed_gpus(run.placed);
            ctx.set_stroke_style_str("#000");
            ctx.set_line_width(2.0);
            for g in gpus {
                let r = grid.gpus[g.0 as usize];
                ctx.stroke_rect(r.x - 1.5, r.y - 1.5, r.w + 3.0, r.h + 3.0);
            }
            let centres = grid.server_centres(gpus);
            ctx.set_line_width(3.0);
            ctx.begin_path();
            for c in centres.iter().skip(1) {
                ctx.move_to(centres[0].0, centres[0].1);
                ctx.line_to(c.0, c.1);
            }
            ctx.stroke();
        }
    }
}
