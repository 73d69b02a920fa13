//! What the player shows of each run at its instant: the drawn cluster with a line of
//! figures and the narrated subtitle (`Pane`), and beside it the run's queue, job details
//! and latest decisions (`PlayerBody`, one of each per run shown side by side), with the
//! story told about the run (the tour's text), if any, next to the canvas.

use super::cluster::ClusterCanvas;
use super::colours::ColourBy;
use super::controls::colour_key;
use super::widgets::{clock, JobDetails, Queue, RecentMarks, TenantLegend};
use super::{Frame, Playback, NO_JOB};
use crate::Shared;
use proxima_core::event::SimEvent;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PlayerBodyProps {
    pub playback: Shared<Playback>,
    pub frame: Shared<Frame>,
    pub other: Option<(Shared<Playback>, Shared<Frame>)>,
    pub title: Option<String>,
    pub other_title: Option<String>,
    pub selected: Option<u32>,
    pub colour_by: ColourBy,
    pub on_gpu: Callback<Option<u32>>,
    pub on_select: Callback<Option<u32>>,
    pub projector: bool,
    /// Text told about the run, kept next to the canvas (www/playback.css places it).
    pub story: Option<Html>,
}

/// The drawn cluster of each run shown, with the colour key, and beside them each run's
/// queue, job details and latest decisions. The story and everything beside the canvas
/// are in one aside: in the page its children flow as the body's own (`display:
/// contents`); in full screen it is one column beside the canvas, or under it on narrow
/// screens.
#[component]
pub fn PlayerBody(props: &PlayerBodyProps) -> Html {
    let (by, selected) = (props.colour_by, props.selected);
    let side = |pb: &Shared<Playback>, frame: &Shared<Frame>, title: Option<&String>| {
        html! {
            <div class="player-side" data-testid="player-side" data-policy={title.cloned().unwrap_or_default()}>
                if let Some(title) = title {
                    <h4 class="side-title">{ title.clone() }</h4>
                }
                <JobDetails playback={pb.clone()} frame={frame.clone()} {selected} colour_by={by} />
                <Queue playback={pb.clone()} frame={frame.clone()} {selected} colour_by={by} on_select={props.on_select.clone()} />
                <RecentMarks playback={pb.clone()} frame={frame.clone()} />
            </div>
        }
    };
    let pane = |pb: &Shared<Playback>, frame: &Shared<Frame>, title: &Option<String>| {
        html! { <Pane playback={pb.clone()} frame={frame.clone()} {selected} colour_by={by} on_gpu={props.on_gpu.clone()} title={title.clone()} projector={props.projector} /> }
    };
    let (pb, frame) = (&props.playback, &props.frame);
    html! {
        <div class={classes!("player-body", props.story.is_some().then_some("with-story"))}>
            <div class={classes!("panes", props.other.is_some().then_some("side-by-side"))}>
                { pane(pb, frame, &props.title) }
                if let Some((opb, oframe)) = &props.other {
                    { pane(opb, oframe, &props.other_title) }
                }
            </div>
            <div class="player-aside">
                if let Some(story) = &props.story {
                    <div class="player-story" data-testid="player-story">{ story.clone() }</div>
                }
                if by == ColourBy::Tenant {
                    <TenantLegend playback={pb.clone()} />
                }
                { colour_key(by) }
                // Side by side, each policy has its own queue, details and timers: the two
                // runs differ in exactly these.
                { side(pb, frame, props.other.as_ref().and(props.title.as_ref())) }
                if let Some((opb, oframe)) = &props.other {
                    { side(opb, oframe, props.other_title.as_ref()) }
                }
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct PaneProps {
    playback: Shared<Playback>,
    frame: Shared<Frame>,
    selected: Option<u32>,
    colour_by: ColourBy,
    on_gpu: Callback<Option<u32>>,
    title: Option<String>,
    projector: bool,
}

/// One run at the player's instant: what the cluster is doing, in a line and drawn.
#[component]
fn Pane(props: &PaneProps) -> Html {
    let (pb, frame) = (&props.playback, &props.frame);
    let topo = &pb.topo;
    let mut running_by_tier = vec![0usize; topo.tier_count() as usize];
    for r in frame.running.values() {
        if let SimEvent::Placed { tier, .. } = &pb.log.events[r.placed as usize] {
            running_by_tier[tier.0 as usize] += 1;
        }
    }
    let busy = frame.gpu_owner.iter().filter(|&&o| o != NO_JOB).count();
    let t = frame.time_us as f64 / 1e6;
    let said = pb.narration(frame);
    html! {
        <section class="pane" data-testid="playback-pane" data-policy={props.title.clone().unwrap_or_default()} data-time={format!("{t:.3}")}>
            if let Some(title) = &props.title {
                <h4 class="pane-title">{ format!("{title} at {}", clock(t)) }</h4>
            }
            <p class="player-stats">
                { format!("{busy} of {} GPUs busy; {} running ({}); {} waiting; {} completed; {} preemption{}, {} re-consolidation{}.",
                    frame.gpu_owner.len(), frame.running.len(),
                    topo.tier_names().iter().zip(&running_by_tier).map(|(n, c)| format!("{c} {n}")).collect::<Vec<_>>().join(", "),
                    frame.queue.len(), frame.completed,
                    frame.preemptions, if frame.preemptions == 1 { "" } else { "s" },
                    frame.reconsolidations, if frame.reconsolidations == 1 { "" } else { "s" }) }
            </p>
            <ClusterCanvas playback={pb.clone()} frame={frame.clone()} selected={props.selected} colour_by={props.colour_by} on_gpu={props.on_gpu.clone()}
                           label={format!("The cluster at t = {}: {busy} busy GPUs, coloured by {}. Select a job in the lists to read about it.", clock(t),
                                          if props.colour_by == ColourBy::Tenant { "tenant" } else { "job" })}
                           projector={props.projector} />
            // What a waiting job declines now and the latest decisions, in words, read out by
            // screen readers as they change.
            <div class="subtitle" data-testid="playback-subtitle" aria-live="polite"
                 data-ghosts={said.ghost_jobs.iter().map(u32::to_string).collect::<Vec<_>>().join(",")}
                 data-jobs={said.last.as_ref().map(|s| s.jobs.iter().map(u32::to_string).collect::<Vec<_>>().join(",")).unwrap_or_default()}
                 data-time={said.last.as_ref().map(|s| format!("{:.6}", s.time_us as f64 / 1e6)).unwrap_or_default()}>
                if let Some(now) = &said.now {
                    <p class="subtitle-now" data-testid="subtitle-now">{ format!("Now: {now}.") }</p>
                }
                <p class="subtitle-last">
                    { match &said.last {
                        Some(s) => format!("Last decision, at {}: {}.", clock(s.time_us as f64 / 1e6), s.text),
                        None => "No decision yet.".to_string(),
                    } }
                </p>
            </div>
        </section>
    }
}
