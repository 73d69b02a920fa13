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

/// Where the chart's plot sits in its box and how times and values map onto it: time
/// from 0 to `end` seconds across, timers from 0 to `max` seconds up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimerPlot {
    pub end: f64,
    pub max: f64,
}

impl TimerPlot {
    /// The box, in SVG units, and the margins around the plot (the tiers' names at the right).
    pub const W: f64 = 720.0;
    pub const H: f64 = 204.0;
    const LEFT: f64 = 60.0;
    const RIGHT: f64 = 96.0;
    const BOTTOM: f64 = 34.0;
    const TOP: f64 = 14.0;

    pub fn plot_w(&self) -> f64 {
        Self::W - Self::LEFT - Self::RIGHT
    }

    /// The time axis's height.
    pub fn base(&self) -> f64 {
        Self::H - Self::BOTTOM
    }

    /// A time's x, clamped to the plot.
    pub fn x(&self, t: f64) -> f64 {
        Self::LEFT + (t / self.end).clamp(0.0, 1.0) * self.plot_w()
    }

    /// A timer's y.
    pub fn y(&self, v: f64) -> f64 {
        Self::TOP + (1.0 - v / self.max) * (Self::H - Self::TOP - Self::BOTTOM)
    }

    /// A tier's timers as an SVG path of steps: each value held until the next change.
    pub fn step_path(&self, series: &[(f64, f64)]) -> String {
        let mut d = String::new();
        for (i, &(t, v)) in series.iter().enumerate() {
            if i == 0 {
                d += &format!("M{:.1} {:.1}", self.x(t), self.y(v));
            } else {
                d += &format!("H{:.1}V{:.1}", self.x(t), self.y(v));
            }
        }
        d
    }

    /// The tiers' names' y positions at the right, each by its line's last value and
    /// moved apart so that they do not overlap.
    pub fn label_ys(&self, series: &[Vec<(f64, f64)>]) -> Vec<f64> {
        let wanted: Vec<f64> = series.iter().map(|s| self.y(s.last().map(|p| p.1).unwrap_or(0.0)) + 4.0).collect();
        spread(&wanted, 13.0, Self::TOP + 4.0, self.base())
    }
}

/// `n` and a word, plural unless `n` is one: `1 change`, `3 changes`.
fn count_of(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The timers at the current time, by tier: `ToR 120 s, spine 600 s`.
pub fn timers_now(names: &[String], timers: &[f64]) -> String {
    let name = |t: usize| names.get(t).cloned().unwrap_or_default();
    timers.iter().enumerate().map(|(t, v)| format!("{} {:.0} s", name(t), v)).collect::<Vec<_>>().join(", ")
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
    let (count, policy) = (changes.len().to_string(), props.title.clone().unwrap_or_default());
    if series.is_empty() {
        let who = props.title.as_ref().map_or("This policy has".to_string(), |t| format!("{t} has"));
        return html! {
            <p class="hint" data-testid="timer-chart" data-changes={count} data-policy={policy}>{ format!("{who} no delay timers.") }</p>
        };
    }
    let highest = series.iter().flat_map(|s| s.iter().map(|p| p.1)).fold(0.0f64, f64::max);
    let yt = value_ticks(highest, 5);
    let plot = TimerPlot { end: pb.end_us().max(1) as f64 / 1e6, max: yt.last().copied().unwrap_or(1.0).max(1e-9) };
    let names: Vec<String> =
        (0..series.len()).map(|t| pb.topo.tier_name(proxima_core::topology::Tier(t as u8)).to_string()).collect();
    let now = timers_now(&names, &props.timers);
    let listed: Vec<String> = changes.iter().map(|&(t, e)| format!("{}: {}", clock(t), pb.describe_event(e))).collect();
    let (base, cursor) = (plot.base(), plot.x(props.time_s));
    html! {
        <figure class="chart-figure timer-figure" data-testid="timer-chart" data-changes={count} data-policy={policy}>
            <svg class="chart timer-chart" viewBox={format!("0 0 {} {}", TimerPlot::W, TimerPlot::H)} role="img"
                 aria-label={format!("Delay timers over time; {}; now {now}", count_of(changes.len(), "change"))}>
                { value_axis(&plot, &yt) }
                { time_axis(&plot) }
                { for changes.iter().map(|&(t, _)| html! {
                    <path class="change-mark" d={format!("M{:.1} {:.1}l-4 -7h8z", plot.x(t), base)} />
                }) }
                { tier_lines(&plot, &series, &names) }
                <line class="cursor" x1={format!("{cursor:.1}")} x2={format!("{cursor:.1}")} y1={TimerPlot::TOP.to_string()} y2={format!("{base:.1}")} />
            </svg>
            { timer_caption(props.title.as_deref(), &now, &listed) }
        </figure>
    }
}

/// The timer axis: a grid line and a label at each round value.
fn value_axis(plot: &TimerPlot, ticks: &[f64]) -> Html {
    let (left, right) = (TimerPlot::LEFT, TimerPlot::LEFT + plot.plot_w());
    html! {
        { for ticks.iter().map(|&v| html! {
            <g class="tick">
                <line class="grid" x1={left.to_string()} x2={right.to_string()} y1={format!("{:.1}", plot.y(v))} y2={format!("{:.1}", plot.y(v))} />
                <text x={(left - 5.0).to_string()} y={format!("{:.1}", plot.y(v) + 4.0)} text-anchor="end">{ format!("{} s", round_label(v)) }</text>
            </g>
        }) }
    }
}

/// The time axis: its line, and a tick and a label at each round time.
fn time_axis(plot: &TimerPlot) -> Html {
    // About one label per 90 units keeps `12 h`-sized labels apart.
    let ticks = time_ticks(plot.end, (plot.plot_w() / 90.0) as usize + 1);
    let step = if ticks.len() > 1 { ticks[1] - ticks[0] } else { plot.end };
    let base = plot.base();
    html! {
        <>
            { for ticks.iter().map(|&t| html! {
                <g class="tick">
                    <line class="axis-tick" x1={format!("{:.1}", plot.x(t))} x2={format!("{:.1}", plot.x(t))} y1={base.to_string()} y2={(base + 4.0).to_string()} />
                    <text x={format!("{:.1}", plot.x(t))} y={(base + 20.0).to_string()} text-anchor="middle">{ time_label(t, step) }</text>
                </g>
            }) }
            <line class="axis-line" x1={TimerPlot::LEFT.to_string()} x2={(TimerPlot::LEFT + plot.plot_w()).to_string()} y1={base.to_string()} y2={base.to_string()} />
        </>
    }
}

/// One step line per tier, a dot where the auto-tuner moved it, and its name at the right.
fn tier_lines(plot: &TimerPlot, series: &[Vec<(f64, f64)>], names: &[String]) -> Html {
    let label_y = plot.label_ys(series);
    let label_x = format!("{:.1}", TimerPlot::LEFT + plot.plot_w() + 6.0);
    html! {
        { for series.iter().enumerate().map(|(i, s)| html! {
            <g class={format!("s{}", i % 6)}>
                <path class="line" d={plot.step_path(s)} stroke-dasharray={crate::results::charts::dash(i)} />
                { for s.iter().skip(1).take(s.len().saturating_sub(2)).map(|&(t, v)| html! {
                    <circle class="change-dot" cx={format!("{:.1}", plot.x(t))} cy={format!("{:.1}", plot.y(v))} r="3" />
                }) }
                <text class="series-label" x={label_x.clone()} y={format!("{:.1}", label_y[i])}>{ names[i].clone() }</text>
            </g>
        }) }
    }
}

/// The chart's caption: what it shows, the timers now, and every change listed.
fn timer_caption(title: Option<&str>, now: &str, listed: &[String]) -> Html {
    let policy = title.map_or(String::new(), |t| format!("{t}: "));
    html! {
        <figcaption>
            { format!("{policy}Delay timers per tier as the auto-tuner moves them (now: {now}); ▼ marks a change. ") }
            if !listed.is_empty() {
                <details>
                    <summary>{ count_of(listed.len(), "change") }</summary>
                    <ul>{ for listed.iter().map(|c| html! { <li>{ c.clone() }</li> }) }</ul>
                </details>
            } else {
                { "They did not change in this run." }
            }
        </figcaption>
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
    fn timers_are_drawn_as_steps_inside_the_plot() {
        let plot = TimerPlot { end: 100.0, max: 1000.0 };
        assert_eq!((plot.x(0.0), plot.x(100.0), plot.x(250.0)), (60.0, 624.0, 624.0), "time is clamped to the plot");
        assert_eq!((plot.y(1000.0), plot.y(0.0)), (14.0, plot.base()));
        assert_eq!(plot.step_path(&[(0.0, 500.0), (50.0, 1000.0)]), "M60.0 92.0H342.0V14.0");
        assert_eq!(plot.step_path(&[]), "");
        let labels = plot.label_ys(&[vec![(0.0, 500.0)], vec![(0.0, 500.0)]]);
        assert!((labels[1] - labels[0]).abs() >= 13.0 - 1e-9, "{labels:?}");
    }

    #[test]
    fn the_timers_now_are_named_by_tier() {
        let names = ["ToR".to_string(), "spine".to_string()];
        assert_eq!(timers_now(&names, &[120.0, 599.6]), "ToR 120 s, spine 600 s");
        assert_eq!(timers_now(&names[..1], &[1.0, 2.0]), "ToR 1 s,  2 s", "a tier with no name keeps its place");
        assert_eq!((count_of(1, "change"), count_of(0, "change")), ("1 change".to_string(), "0 changes".to_string()));
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
