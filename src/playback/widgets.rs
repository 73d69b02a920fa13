//! The player's smaller parts: the queue with its countdown rings, the selected job's
//! story and the recent marks.

use super::colours::{tenant_look, ColourBy, Look};
use super::{Frame, JobNow, MarkKind, Playback};
use crate::numbers::duration;
use crate::Shared;
use yew::prelude::*;

/// Waiting jobs listed under the cluster; the rest are counted.
const QUEUE_SHOWN: usize = 24;

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
pub struct QueueProps {
    pub playback: Shared<Playback>,
    pub frame: Shared<Frame>,
    pub selected: Option<u32>,
    pub colour_by: ColourBy,
    pub on_select: Callback<Option<u32>>,
}

/// The waiting jobs, each with its delay timer as a countdown ring.
#[component]
pub fn Queue(props: &QueueProps) -> Html {
    let (pb, frame) = (&props.playback, &props.frame);
    let topo = &pb.topo;
    let countdowns = pb.countdowns(frame);
    let select_job = |job: u32| props.on_select.reform(move |_: MouseEvent| Some(job));
    html! {
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
                    let selected = props.selected == Some(job);
                    html! {
                        <li class={classes!("queued", selected.then_some("selected"))}>
                            <button type="button" class="job-chip" onclick={select_job(job)} aria-pressed={selected.to_string()}>
                                <Swatch look={pb.look(job, props.colour_by)} />
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
    look: Look,
}

/// A job's (or tenant's) colour and mark, as on the canvas.
#[component]
fn Swatch(props: &SwatchProps) -> Html {
    let mark = match props.look.pattern {
        1 => html! { <line x1="1" y1="11" x2="11" y2="1" class="mark" /> },
        2 => html! { <circle cx="6" cy="6" r="2" class="mark-dot" /> },
        3 => html! { <line x1="1" y1="6" x2="11" y2="6" class="mark" /> },
        _ => html! {},
    };
    html! {
        <svg class="swatch" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">
            <rect width="12" height="12" fill={props.look.css()} />
            { mark }
        </svg>
    }
}

#[derive(Properties, PartialEq)]
pub struct DetailsProps {
    pub playback: Shared<Playback>,
    pub frame: Shared<Frame>,
    pub selected: Option<u32>,
    pub colour_by: ColourBy,
}

/// The selected job: what it is, what it is doing, and why.
#[component]
pub fn JobDetails(props: &DetailsProps) -> Html {
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
            reason.as_ref().map(|r| super::queries::reason_text(r, topo)),
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
                Some(super::queries::reason_text(reason, topo)),
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
            <h4><Swatch look={pb.look(job, props.colour_by)} />{ format!(" Job {job}") }</h4>
            if let Some(f) = facts {
                <p>{ format!("{}{} · {} GPU{} · ideal run time {}",
                     if pb.log.tenants.len() > 1 { format!("tenant {} · ", pb.tenant_name(job)) } else { String::new() },
                     pb.model_of(job), f.gpus, if f.gpus == 1 { "" } else { "s" },
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
pub struct TenantLegendProps {
    pub playback: Shared<Playback>,
}

/// The tenants of the run's jobs with their colour and mark, when jobs are coloured by
/// tenant; the colours are the per-tenant table's.
#[component]
pub fn TenantLegend(props: &TenantLegendProps) -> Html {
    let pb = &props.playback;
    html! {
        <ul class="tenant-legend" data-testid="playback-tenant-legend" aria-label="Tenant colours and marks">
            { for pb.tenants_shown().into_iter().map(|t| {
                let look = tenant_look(t);
                let [r, g, b] = look.rgb;
                let name = pb.log.tenants[t as usize].clone();
                let jobs = pb.tenant_jobs[t as usize];
                html! {
                    <li data-tenant={name.clone()} data-colour={format!("#{r:02x}{g:02x}{b:02x}")}>
                        <Swatch look={look} />{ format!(" {name} ({jobs} job{})", if jobs == 1 { "" } else { "s" }) }
                    </li>
                }
            }) }
        </ul>
    }
}

#[derive(Properties, PartialEq)]
pub struct RecentProps {
    pub playback: Shared<Playback>,
    pub frame: Shared<Frame>,
}

/// The last preemptions, re-consolidations and timer changes, as they happen.
#[component]
pub fn RecentMarks(props: &RecentProps) -> Html {
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
