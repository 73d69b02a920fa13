//! The subject over each fair baseline, one row per scenario and baseline, one panel per
//! metric: the ratio of means as a dot, its confidence interval as a bar, and a line at 1.
//! A log axis, so that halving and doubling look alike.

use super::{draw_tick_labels, fail, log_range, log_ticks, policy_color, FONT};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use proxima_lab::experiment::figures::{RatioRow, RATIO_FIGURE_METRICS};
use proxima_lab::experiment::{Report, ScenarioSet, METRICS};

const ROW_PX: u32 = 17;
const LABELS_PX: u32 = 520;
const PANEL_PX: u32 = 300;
const TOP_PX: u32 = 70;
const BOTTOM_PX: u32 = 55;

pub fn draw(report: &Report, set: ScenarioSet, network: &str, title: &str) -> Result<String, String> {
    let rows = report.ratio_rows(set, network, RATIO_FIGURE_METRICS);
    let n = rows.len().max(1);
    let width = LABELS_PX + PANEL_PX * RATIO_FIGURE_METRICS.len() as u32;
    let height = TOP_PX + BOTTOM_PX + ROW_PX * n as u32;
    let mut svg = String::new();
    {
        let canvas = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        canvas.fill(&WHITE).map_err(fail)?;
        let root = canvas.titled(title, (FONT, 17)).map_err(fail)?;
        let (labels, panels) = root.split_horizontally(LABELS_PX);
        let panels = panels.split_evenly((1, RATIO_FIGURE_METRICS.len()));
        // Row i is drawn at y = n - 1 - i, so the first row is on top.
        let y_of = |i: usize| (n - 1 - i) as f64;
        let mut row_pixels: Vec<i32> = Vec::new();
        for (m, (panel, key)) in panels.iter().zip(RATIO_FIGURE_METRICS).enumerate() {
            // A report written before a metric existed has no ratios of it: an empty panel.
            let bounds = rows
                .iter()
                .filter_map(|r| r.ratios[m])
                .flat_map(|ci| [ci.low, ci.high, ci.ratio.unwrap_or(f64::NAN), 0.5, 2.0]);
            let (lo, hi) = log_range(bounds, 1e-3, 1e3);
            let label = METRICS.iter().find(|x| x.key == *key).map(|x| x.label).unwrap_or(key);
            let mut chart = ChartBuilder::on(panel)
                .caption(label, (FONT, 15))
                .margin_left(8)
                .margin_right(14)
                .x_label_area_size(40)
                .build_cartesian_2d((lo..hi).log_scale(), -0.7..(n as f64 - 0.3))
                .map_err(fail)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(0)
                .x_labels(0)
                .x_label_formatter(&|_| String::new())
                .x_desc(format!("{} ÷ baseline", report.plan.subject))
                .label_style((FONT, 12))
                .axis_desc_style((FONT, 13))
                .max_light_lines(0)
                .draw()
                .map_err(fail)?;
            // Light bands mark the scenarios, one baseline group each.
            let mut start = 0;
            for (group, chunk) in group_sizes(&rows).into_iter().enumerate() {
                if group % 2 == 1 {
                    let top = y_of(start) + 0.5;
                    let bottom = y_of(start + chunk - 1) - 0.5;
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            [(lo, bottom), (hi, top)],
                            BLACK.mix(0.05).filled(),
                        )))
                        .map_err(fail)?;
                }
                start += chunk;
            }
            let ticks = log_ticks(lo, hi);
            chart
                .draw_series(ticks.iter().map(|&t| {
                    PathElement::new(vec![(t, -0.7), (t, n as f64 - 0.3)], RGBColor(0xDD, 0xDD, 0xDD).stroke_width(1))
                }))
                .map_err(fail)?;
            let at: Vec<(f64, (i32, i32))> = ticks.iter().map(|&t| (t, chart.backend_coord(&(t, -0.7)))).collect();
            draw_tick_labels(&canvas, &at, true)?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(1.0, -0.7), (1.0, n as f64 - 0.3)],
                    BLACK.stroke_width(1),
                )))
                .map_err(fail)?;
            for (i, row) in rows.iter().enumerate() {
                let y = y_of(i);
                let color = policy_color(&row.baseline);
                let Some((ci, ratio)) = row.ratios[m].and_then(|ci| Some((ci, ci.ratio?))) else { continue };
                let clip = |x: f64| if x.is_finite() { x.clamp(lo, hi) } else { hi };
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(clip(ci.low), y), (clip(ci.high), y)],
                        color.stroke_width(2),
                    )))
                    .map_err(fail)?;
                let style = if ci.includes_one() { color.stroke_width(2) } else { color.filled() };
                chart.draw_series(std::iter::once(Circle::new((clip(ratio), y), 4, style))).map_err(fail)?;
            }
            if m == 0 {
                row_pixels = (0..rows.len()).map(|i| chart.backend_coord(&(1.0, y_of(i))).1).collect();
            }
        }
        draw_labels(&labels, &rows, &row_pixels)?;
        canvas.present().map_err(fail)?;
    }
    Ok(svg)
}

/// Rows per scenario, in order.
fn group_sizes(rows: &[RatioRow]) -> Vec<usize> {
    let mut sizes: Vec<usize> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 && rows[i - 1].scenario == row.scenario {
            *sizes.last_mut().expect("a group is open") += 1;
        } else {
            sizes.push(1);
        }
    }
    sizes
}

/// The scenario (on its group's first row) and the baseline of each row, at the rows'
/// pixel heights; a filled dot means the interval excludes 1, an open one that it does not.
fn draw_labels<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    rows: &[RatioRow],
    row_pixels: &[i32],
) -> Result<(), String> {
    let (x_range, _) = area.get_pixel_range();
    let top = area.get_pixel_range().1.start;
    let scenario_style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (row, &y)) in rows.iter().zip(row_pixels).enumerate() {
        let y = y - top;
        if i == 0 || rows[i - 1].scenario != row.scenario {
            area.draw_text(&row.scenario, &scenario_style, (8, y)).map_err(fail)?;
        }
        let x = (x_range.end - x_range.start) - 165;
        let color = policy_color(&row.baseline);
        let style = scenario_style.color(&color);
        area.draw_text(&row.baseline, &style, (x, y)).map_err(fail)?;
    }
    let note = TextStyle::from((FONT, 12).into_font()).color(&RGBColor(0x55, 0x55, 0x55));
    let bottom = area.get_pixel_range().1.end - area.get_pixel_range().1.start;
    area.draw_text("filled dot: 95% interval excludes 1; open: includes 1", &note, (8, bottom - 30)).map_err(fail)?;
    Ok(())
}
