//! The time line under the slider: preemptions, re-consolidations and timer changes as
//! marks, and a time axis at round values. Both can be clicked: a click on the marks goes
//! to the nearest mark (a mark is one or two pixels wide, too thin to hit on its own), a
//! click on an axis label goes to that time. The arrow keys still step event by event.

use super::timer_chart::{time_label, time_ticks};
use super::widgets::clock;
use super::{Mark, MarkKind, Playback};
use crate::Shared;
use yew::prelude::*;

/// How far from a click, as a share of the time line's width, a mark may be and still be
/// the one meant: about a fingertip on a phone, a few pixels on a desktop.
pub const MARK_REACH: f64 = 0.02;

/// The time line's width in the marks' SVG units: one column of marks per unit.
const COLUMNS: f64 = 1000.0;

/// The mark nearest to `fraction` of the way through a run of `end_us`, if one lies within
/// [`MARK_REACH`] of it; ties go to the earlier mark.
pub fn nearest_mark(marks: &[Mark], end_us: u64, fraction: f64) -> Option<&Mark> {
    let end = end_us.max(1) as f64;
    marks
        .iter()
        .map(|m| (m, (m.time_us as f64 / end - fraction).abs()))
        .filter(|&(_, d)| d <= MARK_REACH)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(m, _)| m)
}

/// What a mark is, in words: "preemption", "re-consolidation", "timer change".
pub fn mark_name(kind: MarkKind) -> &'static str {
    match kind {
        MarkKind::Preempted => "preemption",
        MarkKind::Reconsolidated => "re-consolidation",
        MarkKind::TimerChanged => "timer change",
    }
}

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub playback: Shared<Playback>,
    /// Goes to a time, in seconds.
    pub on_seek: Callback<f64>,
}

/// The marks and the labelled time axis under the slider.
#[component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let pb = &props.playback;
    let end_s = pb.end_us() as f64 / 1e6;
    let ticks = time_ticks(end_s, 7);
    let step = ticks.get(1).copied().unwrap_or(end_s.max(1.0));
    let last = ticks.len().saturating_sub(1);
    // An SVG, not positioned HTML: the page's Content-Security-Policy forbids style
    // attributes, and SVG places each label with an attribute (`x` as a percentage).
    let axis = ticks.iter().enumerate().map(|(i, &t)| {
        let left = if end_s > 0.0 { t / end_s * 100.0 } else { 0.0 };
        // The first and last labels are anchored inward so that neither is cut off.
        let anchor = if i == 0 { "start" } else if i == last && left > 99.0 { "end" } else { "middle" };
        let seek = props.on_seek.reform(move |_: MouseEvent| t);
        let on_key = {
            let seek = props.on_seek.clone();
            Callback::from(move |e: KeyboardEvent| {
                if matches!(e.key().as_str(), "Enter" | " ") {
                    e.prevent_default();
                    e.stop_propagation();
                    seek.emit(t);
                }
            })
        };
        html! {
            <text class="time-tick" x={format!("{left:.3}%")} y="13" text-anchor={anchor} onclick={seek} onkeydown={on_key}
                  tabindex="0" role="button" data-testid="time-tick" data-t={format!("{t}")} aria-label={format!("Go to {}", clock(t))}>
                { time_label(t, step) }
            </text>
        }
    });
    html! {
        <>
            <Marks playback={pb.clone()} on_seek={props.on_seek.clone()} />
            <svg class="time-axis" data-testid="time-axis" role="group" aria-label="Times along the time line">{ for axis }</svg>
        </>
    }
}

#[derive(Properties, PartialEq)]
struct MarksProps {
    playback: Shared<Playback>,
    on_seek: Callback<f64>,
}

/// The marks, one per kind and column (a long run has thousands), each with a tooltip.
#[component]
fn Marks(props: &MarksProps) -> Html {
    let pb = &props.playback;
    let end_us = pb.end_us();
    let end = end_us.max(1) as f64;
    let mut columns: std::collections::BTreeMap<(u8, u32), &Mark> = std::collections::BTreeMap::new();
    for m in &pb.marks {
        let kind = match m.kind {
            MarkKind::Preempted => 0,
            MarkKind::Reconsolidated => 1,
            MarkKind::TimerChanged => 2,
        };
        columns.entry((kind, (m.time_us as f64 / end * COLUMNS) as u32)).or_insert(m);
    }
    if columns.is_empty() {
        return html! {};
    }
    let count = |k: MarkKind| pb.marks.iter().filter(|m| m.kind == k).count();
    let on_click = {
        let (pb, seek) = (pb.clone(), props.on_seek.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(svg) = e.current_target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            else {
                return;
            };
            let rect = svg.get_bounding_client_rect();
            if rect.width() <= 0.0 {
                return;
            }
            let fraction = ((e.client_x() as f64 - rect.left()) / rect.width()).clamp(0.0, 1.0);
            // Near a mark: that mark's instant; elsewhere, the time clicked, as on a ruler.
            let t_us = nearest_mark(&pb.marks, pb.end_us(), fraction)
                .map(|m| m.time_us as f64)
                .unwrap_or(fraction * pb.end_us() as f64);
            seek.emit(t_us / 1e6);
        })
    };
    html! {
        <svg class="marks" viewBox="0 0 1000 14" preserveAspectRatio="none" role="img" onclick={on_click} data-testid="timeline-marks"
             aria-label={format!("On the time line: {} preemptions, {} re-consolidations, {} timer changes; click one to go to it", count(MarkKind::Preempted), count(MarkKind::Reconsolidated), count(MarkKind::TimerChanged))}>
            { for columns.iter().map(|(&(k, x), m)| {
                let (class, y, h) = match k {
                    0 => ("mark-preempt", 0, 14),
                    1 => ("mark-recons", 4, 10),
                    _ => ("mark-timer", 9, 5),
                };
                let tip = format!("{} at {} (event {})", mark_name(m.kind), clock(m.time_us as f64 / 1e6), m.event);
                html! { <rect class={class} x={x.to_string()} y={y.to_string()} width="2" height={h.to_string()}><title>{ tip }</title></rect> }
            }) }
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(time_us: u64, event: u32) -> Mark {
        Mark { time_us, kind: MarkKind::Preempted, event }
    }

    #[test]
    fn a_click_goes_to_the_nearest_mark_within_reach_and_ties_to_the_earlier() {
        let marks = [mark(100, 1), mark(500, 2), mark(600, 3)];
        // A run of 1,000 µs: reach is 20 µs either side.
        assert_eq!(nearest_mark(&marks, 1000, 0.51).map(|m| m.event), Some(2));
        assert_eq!(nearest_mark(&marks, 1000, 0.55).map(|m| m.event), None, "50 µs from both: out of reach");
        assert_eq!(nearest_mark(&marks, 1000, 0.59).map(|m| m.event), Some(3));
        assert_eq!(nearest_mark(&marks, 1000, 0.12).map(|m| m.event), Some(1));
        let tied = [mark(490, 4), mark(510, 5)];
        assert_eq!(nearest_mark(&tied, 1000, 0.5).map(|m| m.event), Some(4));
        assert_eq!(nearest_mark(&[], 1000, 0.5), None);
        // A run of zero length: every mark is at 0, and a click at the start finds it.
        assert_eq!(nearest_mark(&[mark(0, 6)], 0, 0.0).map(|m| m.event), Some(6));
    }
}
