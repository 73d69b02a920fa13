//! The result charts, in SVG, each with its numbers in a table behind a disclosure.
//!
//! No chart relies on colour alone: every policy has its own dash pattern and marker
//! shape, the legend shows both, and bars carry their value and policy as text.

use crate::protocol::{PolicyResult, TimelineBucket};
use crate::Shared;
use yew::prelude::*;

const W: f64 = 640.0;
const H: f64 = 260.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 44.0;

/// Dash patterns, one per policy in order.
const DASHES: &[&str] = &["", "8 4", "2 3", "10 3 2 3", "5 5", "1 6"];

pub fn dash(i: usize) -> &'static str {
    DASHES[i % DASHES.len()]
}

/// A marker of shape `i` centred on (x, y).
fn marker(i: usize, x: f64, y: f64) -> Html {
    let class = format!("marker s{}", i % 6);
    match i % 6 {
        0 => html! { <circle class={class} cx={f(x)} cy={f(y)} r="3.5" /> },
        1 => html! { <rect class={class} x={f(x - 3.5)} y={f(y - 3.5)} width="7" height="7" /> },
        2 => {
            html! { <polygon class={class} points={format!("{},{} {},{} {},{}", f(x), f(y - 4.5), f(x - 4.0), f(y + 3.0), f(x + 4.0), f(y + 3.0))} /> }
        }
        3 => {
            html! { <polygon class={class} points={format!("{},{} {},{} {},{} {},{}", f(x), f(y - 4.5), f(x + 4.5), f(y), f(x), f(y + 4.5), f(x - 4.5), f(y))} /> }
        }
        4 => {
            html! { <path class={class} d={format!("M{} {}L{} {}M{} {}L{} {}", f(x - 4.0), f(y - 4.0), f(x + 4.0), f(y + 4.0), f(x - 4.0), f(y + 4.0), f(x + 4.0), f(y - 4.0))} /> }
        }
        _ => html! { <rect class={class} x={f(x - 1.5)} y={f(y - 5.0)} width="3" height="10" /> },
    }
}

fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// A number for people: no more digits than it deserves.
pub fn human(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// Seconds for an axis: s, min, h or d.
pub fn duration(s: f64) -> String {
    if s < 120.0 {
        format!("{} s", human(s))
    } else if s < 7200.0 {
        format!("{} min", human(s / 60.0))
    } else if s < 172_800.0 {
        format!("{} h", human(s / 3600.0))
    } else {
        format!("{} d", human(s / 86_400.0))
    }
}

/// One line of a line chart.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

struct Axis {
    min: f64,
    max: f64,
    log: bool,
}

impl Axis {
    fn pos(&self, v: f64, lo: f64, hi: f64) -> f64 {
        let t = if self.log {
            let v = v.max(self.min);
            (v.log10() - self.min.log10()) / (self.max.log10() - self.min.log10()).max(1e-12)
        } else {
            (v - self.min) / (self.max - self.min).max(1e-12)
        };
        lo + t.clamp(0.0, 1.0) * (hi - lo)
    }

    fn ticks(&self) -> Vec<f64> {
        if self.log {
            let mut t = Vec::new();
            let mut p = 10f64.powf(self.min.log10().floor());
            while p <= self.max * 1.0001 {
                if p >= self.min * 0.9999 {
                    t.push(p);
                }
                p *= 10.0;
            }
            if t.len() < 2 {
                t = vec![self.min, self.max];
            }
            t
        } else {
            (0..=4).map(|i| self.min + (self.max - self.min) * i as f64 / 4.0).collect()
        }
    }
}

/// A line chart of several series, with a legend and axis labels.
fn line_chart(
    series: &[Series],
    x_log: bool,
    x_label: &str,
    y_label: &str,
    x_fmt: fn(f64) -> String,
    y_fmt: fn(f64) -> String,
    y_max: Option<f64>,
) -> Html {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (mut x_min, mut x_max) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    if !x_min.is_finite() {
        return html! { <p class="empty">{ "No data." }</p> };
    }
    if x_log {
        x_min = x_min.max(1.0);
        x_max = x_max.max(x_min * 10.0);
    } else if x_max <= x_min {
        x_max = x_min + 1.0;
    }
    let y_top =
        y_max.unwrap_or_else(|| series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0, f64::max).max(1.0));
    let xa = Axis { min: x_min, max: x_max, log: x_log };
    let ya = Axis { min: 0.0, max: y_top, log: false };
    let px = |x: f64| xa.pos(x, LEFT, W - RIGHT);
    let py = |y: f64| ya.pos(y, H - BOTTOM, TOP);
    html! {
        <svg class="chart" viewBox={format!("0 0 {W} {}", H + 22.0 * series.len().div_ceil(3) as f64)} role="img"
             aria-label={format!("{y_label} against {x_label}")}>
            <g class="axis">
                <line x1={f(LEFT)} y1={f(H - BOTTOM)} x2={f(W - RIGHT)} y2={f(H - BOTTOM)} />
                <line x1={f(LEFT)} y1={f(TOP)} x2={f(LEFT)} y2={f(H - BOTTOM)} />
                { for xa.ticks().into_iter().map(|t| html! {
                    <g>
                        <line class="grid" x1={f(px(t))} y1={f(TOP)} x2={f(px(t))} y2={f(H - BOTTOM)} />
                        <text x={f(px(t))} y={f(H - BOTTOM + 14.0)} text-anchor="middle">{ x_fmt(t) }</text>
                    </g>
                }) }
                { for ya.ticks().into_iter().map(|t| html! {
                    <g>
                        <line class="grid" x1={f(LEFT)} y1={f(py(t))} x2={f(W - RIGHT)} y2={f(py(t))} />
                        <text x={f(LEFT - 6.0)} y={f(py(t) + 4.0)} text-anchor="end">{ y_fmt(t) }</text>
                    </g>
                }) }
                <text x={f((LEFT + W - RIGHT) / 2.0)} y={f(H - 8.0)} text-anchor="middle" class="axis-label">{ x_label }</text>
                <text x="12" y={f((TOP + H - BOTTOM) / 2.0)} text-anchor="middle" class="axis-label"
                      transform={format!("rotate(-90 12 {})", f((TOP + H - BOTTOM) / 2.0))}>{ y_label }</text>
            </g>
            { for series.iter().enumerate().map(|(i, s)| {
                let path: String = s.points.iter().enumerate()
                    .map(|(k, &(x, y))| format!("{}{} {}", if k == 0 { "M" } else { "L" }, f(px(x)), f(py(y))))
                    .collect();
                // Markers at about a dozen evenly spaced points, offset per series so that
                // overlapping lines still show every marker.
                let step = (s.points.len() / 12).max(1);
                html! {
                    <g class={format!("series s{}", i % 6)} data-series={s.name.clone()}>
                        <path class="line" d={path} stroke-dasharray={dash(i)} />
                        { for s.points.iter().enumerate().filter(|(k, _)| (k + i * step / 3) % step == 0)
                            .map(|(_, &(x, y))| marker(i, px(x), py(y))) }
                    </g>
                }
            }) }
            { for series.iter().enumerate().map(|(i, s)| {
                let lx = LEFT + (i % 3) as f64 * 190.0;
                let ly = H + 4.0 + (i / 3) as f64 * 22.0;
                html! {
                    <g class={format!("legend s{}", i % 6)}>
                        <line class="line" x1={f(lx)} y1={f(ly)} x2={f(lx + 36.0)} y2={f(ly)} stroke-dasharray={dash(i)} />
                        { marker(i, lx + 18.0, ly) }
                        <text x={f(lx + 42.0)} y={f(ly + 4.0)}>{ clip(&s.name, 24) }</text>
                    </g>
                }
            }) }
        </svg>
    }
}

fn clip(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_string()
    } else {
        text.chars().take(n - 1).collect::<String>() + "…"
    }
}

#[derive(Properties, PartialEq)]
pub struct OutcomesProps {
    pub outcomes: Vec<Shared<PolicyResult>>,
}

/// The JCT at fraction `q` of completed jobs, from a CDF's points.
fn quantile(cdf: &[(f64, f64)], q: f64) -> Option<f64> {
    cdf.iter().find(|p| p.1 >= q - 1e-12).map(|p| p.0)
}

/// JCT CDFs of every policy, overlaid.
#[component]
pub fn JctCdf(props: &OutcomesProps) -> Html {
    let series: Vec<Series> =
        props.outcomes.iter().map(|o| Series { name: o.policy.clone(), points: o.jct_cdf.clone() }).collect();
    let qs = [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0];
    html! {
        <figure class="chart-figure" data-testid="jct-cdf">
            <figcaption>{ "Job completion time (JCT), cumulative: the higher and further left a line, the sooner jobs finish. Log scale." }</figcaption>
            { line_chart(&series, true, "job completion time", "fraction of jobs", duration, |y| format!("{:.0}%", y * 100.0), Some(1.0)) }
            <details>
                <summary>{ "Table: JCT percentiles (seconds)" }</summary>
                <table class="data">
                    <thead><tr><th scope="col">{ "policy" }</th>{ for qs.iter().map(|q| html! { <th scope="col">{ format!("p{}", (q * 100.0) as u32) }</th> }) }</tr></thead>
                    <tbody>{ for props.outcomes.iter().map(|o| html! {
                        <tr><th scope="row">{ o.policy.clone() }</th>
                        { for qs.iter().map(|&q| html! { <td>{ quantile(&o.jct_cdf, q).map(human).unwrap_or_default() }</td> }) }</tr>
                    }) }</tbody>
                </table>
            </details>
        </figure>
    }
}

/// Utilisation and queue length over time, one chart each.
#[component]
pub fn OverTime(props: &OutcomesProps) -> Html {
    let util: Vec<Series> = props
        .outcomes
        .iter()
        .map(|o| Series {
            name: o.policy.clone(),
            points: o.timeline.iter().map(|b| ((b.start_s + b.end_s) / 2.0, b.gpu_util)).collect(),
        })
        .collect();
    let queue: Vec<Series> = props
        .outcomes
        .iter()
        .map(|o| Series {
            name: o.policy.clone(),
            points: o.timeline.iter().map(|b| ((b.start_s + b.end_s) / 2.0, b.queued)).collect(),
        })
        .collect();
    // The tables show a dozen moments rather than every bucket.
    let end = props.outcomes.iter().filter_map(|o| o.timeline.last().map(|b| b.end_s)).fold(0.0, f64::max);
    let moments: Vec<f64> = (0..12).map(|i| end * (i as f64 + 0.5) / 12.0).collect();
    let at = |o: &PolicyResult, t: f64, pick: fn(&TimelineBucket) -> f64| -> String {
        o.timeline.iter().find(|b| b.start_s <= t && t < b.end_s).map(|b| human(pick(b))).unwrap_or_else(|| "–".into())
    };
    let table = |title: &str, pick: fn(&TimelineBucket) -> f64| {
        html! {
            <details>
                <summary>{ format!("Table: {title}") }</summary>
                <table class="data">
                    <thead><tr><th scope="col">{ "time" }</th>{ for props.outcomes.iter().map(|o| html! { <th scope="col">{ o.policy.clone() }</th> }) }</tr></thead>
                    <tbody>{ for moments.iter().map(|&t| html! {
                        <tr><th scope="row">{ duration(t) }</th>{ for props.outcomes.iter().map(|o| html! { <td>{ at(o, t, pick) }</td> }) }</tr>
                    }) }</tbody>
                </table>
            </details>
        }
    };
    html! {
        <>
            <figure class="chart-figure" data-testid="utilisation-chart">
                <figcaption>{ "GPU utilisation over time (share of GPUs busy)." }</figcaption>
                { line_chart(&util, false, "time since the first submission", "GPUs busy", duration, |y| format!("{:.0}%", y * 100.0), Some(1.0)) }
                { table("GPU utilisation (0–1) over time", |b| b.gpu_util) }
            </figure>
            <figure class="chart-figure" data-testid="queue-chart">
                <figcaption>{ "Queue length over time (jobs waiting, time-averaged)." }</figcaption>
                { line_chart(&queue, false, "time since the first submission", "jobs waiting", duration, human, None) }
                { table("mean jobs waiting over time", |b| b.queued) }
            </figure>
        </>
    }
}

/// One bar: the policy it is for, its value, and the value as text.
#[derive(Clone)]
struct Bar {
    policy: String,
    value: f64,
    label: String,
}

/// Bars under a heading.
struct BarGroup {
    name: String,
    bars: Vec<Bar>,
}

/// Horizontal bars, grouped: each group is a category, each bar a policy.
fn bars(groups: &[BarGroup]) -> Html {
    let max = groups.iter().flat_map(|g| g.bars.iter().map(|b| b.value)).fold(0.0, f64::max).max(1e-12);
    let bar_h = 16.0;
    let mut y = 8.0;
    let mut rows = Vec::new();
    for group in groups {
        rows.push(html! { <text class="group" x="4" y={f(y + 10.0)}>{ group.name.clone() }</text> });
        y += 16.0;
        for (i, Bar { policy, value, label }) in group.bars.iter().enumerate() {
            let w = (value / max) * (W - 260.0);
            rows.push(html! {
                <g class={format!("bar s{}", i % 6)}>
                    <text x="150" y={f(y + 12.0)} text-anchor="end">{ clip(policy, 22) }</text>
                    <rect class={format!("fill p{}", i % 6)} x="156" y={f(y)} width={f(w.max(1.0))} height={f(bar_h)} />
                    <text x={f(160.0 + w)} y={f(y + 12.0)}>{ label.clone() }</text>
                </g>
            });
            y += bar_h + 4.0;
        }
        y += 6.0;
    }
    html! {
        <svg class="chart" viewBox={format!("0 0 {W} {}", f(y))} role="img" aria-label="bar chart">
            <defs>
                // Fill patterns so bars differ by more than colour.
                <pattern id="p-stripes" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" class="pat-bg" /><line x1="0" y1="0" x2="0" y2="6" class="pat-fg" /></pattern>
                <pattern id="p-dots" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" class="pat-bg" /><circle cx="3" cy="3" r="1.4" class="pat-dot" /></pattern>
                <pattern id="p-cross" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" class="pat-bg" /><path d="M0 3H6M3 0V6" class="pat-fg" /></pattern>
            </defs>
            { for rows }
        </svg>
    }
}

/// Completed jobs by the tier of their last placement.
#[component]
pub fn JobsPerTier(props: &OutcomesProps) -> Html {
    let tiers: Vec<String> =
        props.outcomes.first().map(|o| o.jobs_per_tier.iter().map(|t| t.0.clone()).collect()).unwrap_or_default();
    let groups: Vec<BarGroup> = tiers
        .iter()
        .enumerate()
        .map(|(k, tier)| {
            let bars = props
                .outcomes
                .iter()
                .map(|o| {
                    let n = o.jobs_per_tier.get(k).map(|t| t.1).unwrap_or(0);
                    Bar { policy: o.policy.clone(), value: n as f64, label: format!("{n} jobs") }
                })
                .collect();
            BarGroup { name: format!("{tier}-local"), bars }
        })
        .collect();
    html! {
        <figure class="chart-figure" data-testid="tier-chart">
            <figcaption>{ "Where jobs ran: completed jobs by the tightest group holding all their GPUs (last placement). Tighter is faster for communication-heavy models." }</figcaption>
            { bars(&groups) }
            <details>
                <summary>{ "Table: jobs per tier, and placements per tier (restarts included, as in summary.json)" }</summary>
                <table class="data">
                    <thead><tr><th scope="col">{ "policy" }</th>{ for tiers.iter().map(|t| html! { <th scope="col">{ format!("{t}: jobs / placements") }</th> }) }</tr></thead>
                    <tbody>{ for props.outcomes.iter().map(|o| html! {
                        <tr><th scope="row">{ o.policy.clone() }</th>
                        { for o.jobs_per_tier.iter().map(|(tier, n)| {
                            let placements = o.summary.tier_counts.get(tier).copied().unwrap_or(0);
                            html! { <td>{ format!("{n} / {placements}") }</td> }
                        }) }</tr>
                    }) }</tbody>
                </table>
            </details>
        </figure>
    }
}

/// Communication overhead: in all, and per completed job.
#[component]
pub fn CommOverhead(props: &OutcomesProps) -> Html {
    let bar = |policy: &str, value: f64| Bar { policy: policy.to_string(), value, label: duration(value) };
    let total: Vec<Bar> = props.outcomes.iter().map(|o| bar(&o.policy, o.summary.comm_overhead_s)).collect();
    let per_job: Vec<Bar> = props
        .outcomes
        .iter()
        .map(|o| bar(&o.policy, o.summary.comm_overhead_s / (o.summary.jobs_completed as f64).max(1.0)))
        .collect();
    html! {
        <figure class="chart-figure" data-testid="overhead-chart">
            <figcaption>{ "Communication overhead: time in gradient exchange beyond each job's tightest placement without contention." }</figcaption>
            { bars(&[
                BarGroup { name: "in all".into(), bars: total.clone() },
                BarGroup { name: "per completed job".into(), bars: per_job.clone() },
            ]) }
            <details>
                <summary>{ "Table: communication overhead (seconds)" }</summary>
                <table class="data">
                    <thead><tr><th scope="col">{ "policy" }</th><th scope="col">{ "in all" }</th><th scope="col">{ "per completed job" }</th></tr></thead>
                    <tbody>{ for total.iter().zip(&per_job).map(|(t, p)| html! {
                        <tr><th scope="row">{ t.policy.clone() }</th><td>{ human(t.value) }</td><td>{ human(p.value) }</td></tr>
                    }) }</tbody>
                </table>
            </details>
        </figure>
    }
}
