//! The delay timers over time: one step line per tier, axes ticked at round values
//! (1, 2 or 5 times a power of ten seconds upwards; minutes, hours and days along time),
//! the tiers named at the right without overlapping, and a mark on the time axis and
//! the line wherever the auto-tuner moved a timer. The element carries `data-changes`,
//! the number of timer changes in the run.

use super::widgets::clock;
use super::{MarkKind, Playback};
use crate::Shared;
use yew::prelude::*;

/// Round steps along time, in seconds.
const TIME_STEPS: &[f64] = &[
    1.0,
    2.0,
    5.0,
    10.0,
    15.0,
    30.0,
    60.0,
    120.0,
    300.0,
    600.0,
    900.0,
    1800.0,
    3600.0,
    7200.0,
    10_800.0,
    21_600.0,
    43_200.0,
    86_400.0,
    172_800.0,
    432_000.0,
    864_000.0,
    1_728_000.0,
    4_320_000.0,
];

/// Ticks from 0 to `end` seconds, at most `max` of them (0 included), at a round step.
pub fn time_ticks(end: f64, max: usize) -> Vec<f64> {
    let step = TIME_STEPS
        .iter()
        .copied()
        .find(|s| end / s <= (max.max(2) - 1) as f64)
        .unwrap_or_else(|| (end / (max.max(2) - 1) as f64 / 86_400.0).ceil() * 86_400.0);
    (0..).map(|i| i as f64 * step).take_while(|&t| t <= end * (1.0 + 1e-9)).collect()
}

/// A tick's label in the unit its step suits: `45 s`, `30 min`, `6 h`, `2 d`.
pub fn time_label(t: f64, step: f64) -> String {
    let (unit, name) = if step >= 86_400.0 {
        (86_400.0, "d")
    } else if step >= 3600.0 {
        (3600.0, "h")
    } else if step >= 60.0 {
        (60.0, "min")
    } else {
        (1.0, "s")
    };
    let v = t / unit;
    if (v - v.round()).abs() < 1e-9 {
        format!("{} {name}", v.round())
    } else {
        format!("{v:.1} {name}")
    }
}

/// Round ticks from 0 to at least `max` (1, 2 or 5 times a power of ten), at most `n`.
pub fn value_ticks(max: f64, n: usize) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
    let raw = max / (n.max(2) - 1) as f64;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * p).find(|&s| s >= raw).unwrap_or(10.0 * p);
    let top = (max / step).ceil() as usize;
    (0..=top).map(|i| i as f64 * step).collect()
}

/// A round tick value as people write it: `500`, `2.5`, `0.2`.
fn round_label(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else {
        format!("{}", (v * 1000.0).round() / 1000.0)
    }
}

/// Labels' y positions (top to bottom wanted), moved apart to at least `gap` while
/// staying between `lo` and `hi`.
pub fn spread(wanted: &[f64], gap: f64, lo: f64, hi: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_by(|&a, &b| wanted[a].total_cmp(&wanted[b]));
    let mut placed = vec![0.0; wanted.len()];
    let mut last = f64::NEG_INFINITY;
    for &i in &order {
        let y = wanted[i].max(last + gap).max(lo);
        placed[i] = y;
        last = y;
    }
    // Pushed past the bottom: shift the run back up.
    let overflow = last - hi;
    if overflow > 0.0 {
        for y in &mut placed {
            *y -= overflow;
        }
    }
    placed
}

#[derive(Properties, PartialEq)]
pub struct TimerChartProps {
    pub playback: Shared<Playback>,
    pub time_s: f64,
    pub timers: Vec<f64>,
    /// The policy's name, when two runs are shown side by side (each has its chart).
    #[prop_or_default]
    pub title: Option<String>,
}

/// The delay timers over time, one step line per tier, with the current time marked.
#[component]
pub fn TimerChart(props: &TimerChartProps) -> Html {
    let pb = &props.playback;
    let series = use_memo(pb.clone(), |pb| pb.timer_steps());
    let changes: Vec<(f64, u32)> = pb
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::TimerChanged)
        .map(|m| (m.time_us as f64 / 1e6, m.event))
        .collect();
    let count = changes.len().to_string();
    if series.is_empty() {
        return html! {
            <p class="hint" data-testid="timer-chart" data-changes={count} data-policy={props.title.clone().unwrap_or_default()}>
                { format!("{} no delay timers.", props.title.as_ref().map_or("This policy has".to_string(), |t| format!("{t} has"))) }
            </p>
        };
    }
    let (w, h, left, right, bottom, top) = (720.0, 204.0, 60.0, 96.0, 34.0, 14.0);
    let plot_w = w - left - right;
    let end = pb.end_us().max(1) as f64 / 1e6;
    let highest = series.iter().flat_map(|s| s.iter().map(|p| p.1)).fold(0.0f64, f64::max);
    let yt = value_ticks(highest, 5);
    let max = yt.last().copied().unwrap_or(1.0).max(1e-9);
    let x = |t: f64| left + (t / end).clamp(0.0, 1.0) * plot_w;
    let y = |v: f64| top + (1.0 - v / max) * (h - top - bottom);
    // About one label per 90 units keeps `12 h`-sized labels apart.
    let xt = time_ticks(end, (plot_w / 90.0) as usize + 1);
    let step = if xt.len() > 1 { xt[1] - xt[0] } else { end };
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
    let label_y = spread(
        &series.iter().map(|s| y(s.last().map(|p| p.1).unwrap_or(0.0)) + 4.0).collect::<Vec<_>>(),
        13.0,
        top + 4.0,
        h - bottom,
    );
    let now = props
        .timers
        .iter()
        .enumerate()
        .map(|(t, v)| format!("{} {:.0} s", names.get(t).cloned().unwrap_or_default(), v))
        .collect::<Vec<_>>()
        .join(", ");
    let listed: Vec<String> = changes.iter().map(|&(t, e)| format!("{}: {}", clock(t), pb.describe_event(e))).collect();
    html! {
        <figure class="chart-figure timer-figure" data-testid="timer-chart" data-changes={count} data-policy={props.title.clone().unwrap_or_default()}>
            <svg class="chart timer-chart" viewBox={format!("0 0 {w} {h}")} role="img"
                 aria-label={format!("Delay timers over time; {} change{}; now {now}", changes.len(), if changes.len() == 1 { "" } else { "s" })}>
                { for yt.iter().map(|&v| html! {
                    <g class="tick">
                        <line class="grid" x1={left.to_string()} x2={(left + plot_w).to_string()} y1={format!("{:.1}", y(v))} y2={format!("{:.1}", y(v))} />
                        <text x={(left - 5.0).to_string()} y={format!("{:.1}", y(v) + 4.0)} text-anchor="end">{ format!("{} s", round_label(v)) }</text>
                    </g>
                }) }
                { for xt.iter().map(|&t| html! {
                    <g class="tick">
                        <line class="axis-tick" x1={format!("{:.1}", x(t))} x2={format!("{:.1}", x(t))} y1={(h - bottom).to_string()} y2={(h - bottom + 4.0).to_string()} />
                        <text x={format!("{:.1}", x(t))} y={(h - bottom + 20.0).to_string()} text-anchor="middle">{ time_label(t, step) }</text>
                    </g>
                }) }
                <line class="axis-line" x1={left.to_string()} x2={(left + plot_w).to_string()} y1={(h - bottom).to_string()} y2={(h - bottom).to_string()} />
                { for changes.iter().map(|&(t, _)| html! {
                    <path class="change-mark" d={format!("M{:.1} {:.1}l-4 -7h8z", x(t), h - bottom)} />
                }) }
                { for series.iter().enumerate().map(|(i, s)| html! {
                    <g class={format!("s{}", i % 6)}>
                        <path class="line" d={path(s)} stroke-dasharray={crate::results::charts::dash(i)} />
                        { for s.iter().skip(1).take(s.len().saturating_sub(2)).map(|&(t, v)| html! {
                            <circle class="change-dot" cx={format!("{:.1}", x(t))} cy={format!("{:.1}", y(v))} r="3" />
                        }) }
                        <text class="series-label" x={format!("{:.1}", left + plot_w + 6.0)} y={format!("{:.1}", label_y[i])}>{ names[i].clone() }</text>
                    </g>
                }) }
                <line class="cursor" x1={format!("{:.1}", x(props.time_s))} x2={format!("{:.1}", x(props.time_s))} y1={top.to_string()} y2={format!("{:.1}", h - bottom)} />
            </svg>
            <figcaption>
                { format!("{}Delay timers per tier as the auto-tuner moves them (now: {now}); ▼ marks a change. ", props.title.as_ref().map_or(String::new(), |t| format!("{t}: "))) }
                if !listed.is_empty() {
                    <details>
                        <summary>{ format!("{} change{}", listed.len(), if listed.len() == 1 { "" } else { "s" }) }</summary>
                        <ul>{ for listed.iter().map(|c| html! { <li>{ c.clone() }</li> }) }</ul>
                    </details>
                } else {
                    { "They did not change in this run." }
                }
            </figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_ticks_are_round_and_few() {
        assert_eq!(time_ticks(3600.0, 5), vec![0.0, 900.0, 1800.0, 2700.0, 3600.0]);
        assert_eq!(time_ticks(3600.0, 7).len(), 7);
        let t = time_ticks(100_000.0, 7);
        assert!(t.len() <= 7 && t[1] == 21_600.0, "{t:?}");
        assert_eq!(time_label(21_600.0, 21_600.0), "6 h");
        assert_eq!(time_label(900.0, 900.0), "15 min");
        assert_eq!(time_label(5400.0, 1800.0), "90 min");
        let long = time_ticks(4.0e7, 7);
        assert!(long.len() <= 7 && long.len() >= 2, "{long:?}");
    }

    #[test]
    fn value_ticks_cover_the_top_at_round_steps() {
        assert_eq!(value_ticks(960.0, 5), vec![0.0, 500.0, 1000.0]);
        assert_eq!(value_ticks(120.0, 5), vec![0.0, 50.0, 100.0, 150.0]);
        assert_eq!(value_ticks(0.0, 5), vec![0.0, 0.5, 1.0]);
    }

    #[test]
    fn labels_spread_apart_inside_the_plot() {
        let y = spread(&[50.0, 52.0, 51.0], 13.0, 10.0, 200.0);
        let mut sorted = y.clone();
        sorted.sort_by(f64::total_cmp);
        assert!(sorted.windows(2).all(|w| w[1] - w[0] >= 13.0 - 1e-9), "{y:?}");
        let bottom = spread(&[199.0, 199.0], 13.0, 10.0, 200.0);
        assert!(bottom.iter().all(|&v| v <= 200.0), "{bottom:?}");
    }
}
