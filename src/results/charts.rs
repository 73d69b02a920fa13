//! The result charts, in SVG, each with its numbers in a table behind a disclosure.
//!
//! No chart relies on colour alone: every policy has its own dash pattern and marker
//! shape, the legend shows both, and bars carry their value and policy as text.

use super::summary::Unit;
use crate::protocol::{PolicyResult, TimelineBucket};
use crate::Shared;
use proxima_core::metrics::Summary;
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

/// Seconds for people, three significant figures: s, min, h or d.
pub fn duration(s: f64) -> String {
    crate::numbers::duration(s)
}

/// Tick marks at round values: a step of 1, 2 or 5 times a power of ten, about `n` of
/// them over [`min`, `max`], from the last multiple of the step at or below `min` to the
/// first at or above `max`.
pub fn round_ticks(min: f64, max: f64, n: f64) -> Vec<f64> {
    let span = (max - min).max(1e-9);
    let raw = span / n;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = magnitude
        * match raw / magnitude {
            r if r < 1.5 => 1.0,
            r if r < 3.0 => 2.0,
            r if r < 7.0 => 5.0,
            _ => 10.0,
        };
    let (first, last) = ((min / step + 1e-9).floor() as i64, (max / step - 1e-9).ceil() as i64);
    (first..=last).map(|k| k as f64 * step).collect()
}

/// The unit of a time axis reaching `max` seconds, and its length in seconds.
fn time_unit(max: f64) -> (&'static str, f64) {
    if max < 120.0 {
        ("s", 1.0)
    } else if max < 7200.0 {
        ("min", 60.0)
    } else if max < 172_800.0 {
        ("h", 3600.0)
    } else {
        ("d", 86_400.0)
    }
}

/// A round number as text, without the float's noise (0.30000000000000004 is 0.3).
fn round_text(x: f64) -> String {
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

/// Round durations for a log axis: 1 s, 10 s, 1 min, 10 min, 1 h, 1 d, 10 d, 100 d (no
/// 10 h: its label would crowd 1 d's).
const LOG_TIME_TICKS: &[(f64, &str)] = &[
    (1.0, "1 s"),
    (10.0, "10 s"),
    (60.0, "1 min"),
    (600.0, "10 min"),
    (3600.0, "1 h"),
    (86_400.0, "1 d"),
    (864_000.0, "10 d"),
    (8_640_000.0, "100 d"),
];

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

/// A tick mark: where, and its label.
struct Tick {
    at: f64,
    label: String,
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

    /// A time axis over these seconds, widened to round ticks, and its ticks.
    fn time(min: f64, max: f64, log: bool) -> (Axis, Vec<Tick>) {
        if log {
            // From the last round duration at or below the data to the first at or above.
            let lo = LOG_TIME_TICKS.iter().rev().find(|t| t.0 <= min).unwrap_or(&LOG_TIME_TICKS[0]).0;
            let hi = LOG_TIME_TICKS.iter().find(|t| t.0 >= max).unwrap_or(&LOG_TIME_TICKS[LOG_TIME_TICKS.len() - 1]).0;
            let ticks = LOG_TIME_TICKS
                .iter()
                .filter(|t| t.0 >= lo && t.0 <= hi)
                .map(|t| Tick { at: t.0, label: t.1.to_string() })
                .collect();
            return (Axis { min: lo, max: hi.max(lo * 10.0), log }, ticks);
        }
        let (unit, secs) = time_unit(max);
        let at = round_ticks(min / secs, max / secs, 5.0);
        let axis = Axis { min: at[0] * secs, max: at[at.len() - 1] * secs, log };
        let label = |v: f64| if v == 0.0 { "0".to_string() } else { format!("{} {unit}", round_text(v)) };
        (axis, at.iter().map(|&v| Tick { at: v * secs, label: label(v) }).collect())
    }

    /// A value axis from 0 to `max`, widened to round ticks unless `max` is fixed.
    fn values(max: f64, fixed: bool, fmt: fn(f64) -> String) -> (Axis, Vec<Tick>) {
        let at = round_ticks(0.0, max, if fixed { 4.0 } else { 5.0 });
        let top = if fixed { max } else { at[at.len() - 1] };
        let ticks =
            at.into_iter().filter(|&v| v <= top * (1.0 + 1e-9)).map(|v| Tick { at: v, label: fmt(v) }).collect();
        (Axis { min: 0.0, max: top, log: false }, ticks)
    }
}

/// A line chart of several series, with a legend and axis labels.
fn line_chart(
    series: &[Series],
    x_log: bool,
    x_label: &str,
    y_label: &str,
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
    let (xa, x_ticks) = Axis::time(x_min, x_max, x_log);
    let (ya, y_ticks) = Axis::values(y_top, y_max.is_some(), y_fmt);
    let px = |x: f64| xa.pos(x, LEFT, W - RIGHT);
    let py = |y: f64| ya.pos(y, H - BOTTOM, TOP);
    html! {
        <svg class="chart" viewBox={format!("0 0 {W} {}", H + 22.0 * series.len().div_ceil(3) as f64)} role="img"
             aria-label={format!("{y_label} against {x_label}")}>
            <g class="axis">
                <line x1={f(LEFT)} y1={f(H - BOTTOM)} x2={f(W - RIGHT)} y2={f(H - BOTTOM)} />
                <line x1={f(LEFT)} y1={f(TOP)} x2={f(LEFT)} y2={f(H - BOTTOM)} />
                { for x_ticks.into_iter().map(|t| html! {
                    <g class="tick" data-tick={t.label.clone()}>
                        <line class="grid" x1={f(px(t.at))} y1={f(TOP)} x2={f(px(t.at))} y2={f(H - BOTTOM)} />
                        <text x={f(px(t.at))} y={f(H - BOTTOM + 14.0)} text-anchor="middle">{ t.label }</text>
                    </g>
                }) }
                { for y_ticks.into_iter().map(|t| html! {
                    <g class="tick" data-tick={t.label.clone()}>
                        <line class="grid" x1={f(LEFT)} y1={f(py(t.at))} x2={f(W - RIGHT)} y2={f(py(t.at))} />
                        <text x={f(LEFT - 6.0)} y={f(py(t.at) + 4.0)} text-anchor="end">{ t.label }</text>
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
            { line_chart(&series, true, "job completion time", "fraction of jobs", |y| format!("{:.0}%", y * 100.0), Some(1.0)) }
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
                { line_chart(&util, false, "time since the first submission", "GPUs busy", |y| format!("{:.0}%", y * 100.0), Some(1.0)) }
                { table("GPU utilisation (0–1) over time", |b| b.gpu_util) }
            </figure>
            <figure class="chart-figure" data-testid="queue-chart">
                <figcaption>{ "Queue length over time (jobs waiting, time-averaged)." }</figcaption>
                { line_chart(&queue, false, "time since the first submission", "jobs waiting", round_text, None) }
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

/// Horizontal bars, grouped: each group is a category, each bar a policy. With
/// `shared_scale` every bar is drawn to one scale; without, each group's longest bar
/// spans the width (for groups of different quantities, like a total and a mean).
fn bars(groups: &[BarGroup], shared_scale: bool) -> Html {
    let largest = |bars: &mut dyn Iterator<Item = f64>| bars.fold(0.0, f64::max).max(1e-12);
    let overall = largest(&mut groups.iter().flat_map(|g| g.bars.iter().map(|b| b.value)));
    let bar_h = 16.0;
    let mut y = 8.0;
    let mut rows = Vec::new();
    for group in groups {
        let max = if shared_scale { overall } else { largest(&mut group.bars.iter().map(|b| b.value)) };
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
            { bars(&groups, true) }
            <details>
                <summary>{ "Table: jobs per tier, and placements per tier (restarts included, as in summary.json)" }</summary>
                <table class="data">
                    <thead><tr><th scope="col">{ "policy" }</th>{ for tiers.iter().map(|t| html! { <th scope="col">{ format!("{t}: jobs / placements") }</th> }) }</tr></thead>
                    <tbody>{ for props.outcomes.iter().map(|o| html! {
                        <tr><th scope="row">{ o.policy.clone() }</th>
                        { for o.jobs_per_tier.iter().map(|(tier, n)| {
                            let placements = o.summary.tier_counts.get(tier).unwrap_or(0);
                            html! { <td>{ format!("{n} / {placements}") }</td> }
                        }) }</tr>
                    }) }</tbody>
                </table>
            </details>
        </figure>
    }
}

/// Communication overhead: in all, in job-seconds and in GPU-seconds (each job's times its
/// GPUs), and per completed job.
#[component]
pub fn CommOverhead(props: &OutcomesProps) -> Html {
    let group = |name: &str, value: fn(&Summary) -> f64, text: fn(f64) -> String| BarGroup {
        name: name.into(),
        bars: props
            .outcomes
            .iter()
            .map(|o| Bar { policy: o.policy.clone(), value: value(&o.summary), label: text(value(&o.summary)) })
            .collect(),
    };
    let groups = [
        group("in all (job-s)", |s| s.comm_overhead_s, duration),
        group("in all (GPU-s)", |s| s.comm_overhead_gpu_s, |v| Unit::GpuTime.format(v)),
        group("per completed job (s)", |s| s.comm_overhead_s / (s.jobs_completed as f64).max(1.0), duration),
    ];
    html! {
        <figure class="chart-figure" data-testid="overhead-chart">
            <figcaption>{ "Communication overhead: time in gradient exchange beyond each job's tightest placement without contention, summed over jobs (job-s) and weighted by each job's GPUs (GPU-s). Each group has its own scale." }</figcaption>
            { bars(&groups, false) }
            <details>
                <summary>{ "Table: communication overhead" }</summary>
                <table class="data">
                    <thead><tr><th scope="col">{ "policy" }</th>{ for groups.iter().map(|g| html! { <th scope="col">{ g.name.clone() }</th> }) }</tr></thead>
                    <tbody>{ for props.outcomes.iter().enumerate().map(|(i, o)| html! {
                        <tr><th scope="row">{ o.policy.clone() }</th>
                        { for groups.iter().map(|g| html! { <td data-value={g.bars[i].value.to_string()}>{ g.bars[i].label.clone() }</td> }) }</tr>
                    }) }</tbody>
                </table>
            </details>
        </figure>
    }
}

#[cfg(test)]
#[path = "charts_tests.rs"]
mod tests;
