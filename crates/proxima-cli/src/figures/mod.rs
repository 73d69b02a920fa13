//! The experiment's figures, drawn as SVG with plotters from numbers the core computed
//! ([`proxima_lab::experiment::figures`]). Only drawing happens here: which figures exist,
//! and what they show, is the report's decision.
//!
//! The output is deterministic: plotters' SVG backend writes integer pixel coordinates, and
//! every colour and size below is fixed, so the same report gives the same bytes.

mod cdf;
pub mod heat_map;
mod ratios;
pub mod regret_map;
mod sweep;

use plotters::prelude::*;
use proxima_lab::experiment::figures::{Figure, FigureKind};
use proxima_lab::experiment::Report;

/// Draws one figure of the report as an SVG document.
pub fn draw(report: &Report, figure: &Figure) -> Result<String, String> {
    match &figure.kind {
        FigureKind::Cdf { index } => cdf::draw(report, &report.cdfs[*index], &figure.title),
        FigureKind::Ratios { set, network } => ratios::draw(report, *set, network, &figure.title),
        FigureKind::Sweep { index } => sweep::draw(report, &report.sweeps[*index], &figure.title),
    }
}

/// Plotters' errors as text (the caller adds the file name).
fn fail<E: std::fmt::Display>(e: E) -> String {
    format!("cannot draw: {e}")
}

pub(crate) const FONT: &str = "sans-serif";

/// A colour per policy, the same in every figure: the Okabe-Ito palette, which stays
/// distinguishable with the common kinds of colour blindness (Okabe and Ito, "Color
/// Universal Design", 2008). The subject is vermilion and drawn thicker.
pub(crate) fn policy_color(policy: &str) -> RGBColor {
    match policy {
        "dally" => RGBColor(0xD5, 0x5E, 0x00),
        "consolidate" => RGBColor(0x00, 0x00, 0x00),
        "consolidate:migrate=on" => RGBColor(0x00, 0x72, 0xB2),
        "tiresias" => RGBColor(0xE6, 0x9F, 0x00),
        "slurm" => RGBColor(0x00, 0x9E, 0x73),
        "strict" => RGBColor(0xCC, 0x79, 0xA7),
        "fifo" => RGBColor(0x99, 0x99, 0x99),
        "srtf" => RGBColor(0x56, 0xB4, 0xE9),
        _ => RGBColor(0x66, 0x66, 0x66),
    }
}

pub(crate) fn line_width(policy: &str, subject: &str) -> u32 {
    if policy == subject {
        3
    } else {
        2
    }
}

/// The legend's mark for a series: a short line in its colour.
pub(crate) fn legend_mark(color: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(3))
}

/// Draws a chart's legend the way every figure does: a light box at `position`.
pub(crate) fn draw_legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
    font_size: u32,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(0xAA, 0xAA, 0xAA))
        .label_font((FONT, font_size))
        .draw()
        .map_err(fail)
}

/// A log-scale axis range that covers `values` (positive and finite ones) with a margin,
/// clipped to `[floor, ceiling]`.
pub(crate) fn log_range(values: impl Iterator<Item = f64>, floor: f64, ceiling: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (floor.max(0.5), ceiling.min(2.0));
    }
    ((lo / 1.3).max(floor), (hi * 1.3).min(ceiling))
}

/// Tick labels of a log axis: plain numbers, short.
pub(crate) fn short_number(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 1.0 {
        let s = format!("{x:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    } else if x >= 0.01 {
        format!("{x:.2}")
    } else {
        format!("{x:.0e}")
    }
}

/// Tick values for a log axis over `[lo, hi]`: quarter steps around 1 on a narrow range
/// (plotters' own log ticks start at a power of ten, so a range of 0.4-2.6 would show
/// only 1 and 2), the 1-2-5 series on a wider one, powers of ten on a very wide one.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let within = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    if hi / lo <= 8.0 {
        let fine = [0.1, 0.2, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 10.0];
        let ticks: Vec<f64> = fine.iter().copied().filter(within).collect();
        if ticks.len() >= 3 {
            return ticks;
        }
    }
    let decades: Vec<f64> = (-4..=6).map(|e| 10f64.powi(e)).collect();
    let series: Vec<f64> = decades.iter().flat_map(|d| [*d, 2.0 * d, 5.0 * d]).filter(within).collect();
    if series.len() <= 7 {
        return series;
    }
    decades.into_iter().filter(within).collect()
}

/// Draws tick labels at absolute pixel positions: below the point for an x axis, to its
/// left for a y axis.
pub(crate) fn draw_tick_labels<DB: DrawingBackend>(
    canvas: &DrawingArea<DB, plotters::coord::Shift>,
    ticks: &[(f64, (i32, i32))],
    x_axis: bool,
) -> Result<(), String> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let pos = if x_axis { Pos::new(HPos::Center, VPos::Top) } else { Pos::new(HPos::Right, VPos::Center) };
    let style = TextStyle::from((FONT, 12).into_font()).pos(pos);
    for (value, (x, y)) in ticks {
        let at = if x_axis { (*x, *y + 6) } else { (*x - 6, *y) };
        canvas.draw_text(&short_number(*value), &style, at).map_err(fail)?;
    }
    Ok(())
}
