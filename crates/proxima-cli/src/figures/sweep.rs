//! A sweep: on the left the mean JCT of each policy at each point, on the right the
//! subject's mean JCT over each other policy's with its confidence interval, and a line
//! at 1. The points are equally spaced along x (the swept values are about geometric),
//! labelled with their values; the y axes are logarithmic.

use super::{
    draw_legend, draw_tick_labels, fail, legend_mark, line_width, log_range, log_ticks, policy_color, short_number,
    FONT,
};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use proxima_lab::experiment::aggregate::SweepReport;
use proxima_lab::experiment::Report;

/// The two panels' drawing area, and the chart each draws on.
type Area<'b> = DrawingArea<SVGBackend<'b>, Shift>;
type LogChart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, LogCoord<f64>>>;

/// The x axis both panels share: one place per swept point, labelled with its value.
struct PointAxis<'a> {
    desc: &'a str,
    count: usize,
    label: &'a dyn Fn(&f64) -> String,
}

impl PointAxis<'_> {
    /// Points sit at 0, 1, …, count − 1, with some room at either end.
    fn range(&self) -> std::ops::Range<f64> {
        -0.4..(self.count as f64 - 0.6)
    }
}

pub fn draw(report: &Report, sweep: &SweepReport, title: &str) -> Result<String, String> {
    let subject = report.plan.subject.as_str();
    let labels: Vec<String> = sweep.points.iter().map(|p| short_number(p.x)).collect();
    let count = labels.len();
    let x_label = |x: &f64| -> String {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < count {
            labels[i as usize].clone()
        } else {
            String::new()
        }
    };
    let x_axis = PointAxis { desc: sweep.sweep.label.as_str(), count, label: &x_label };
    let mut svg = String::new();
    {
        let canvas = SVGBackend::with_string(&mut svg, (1200, 520)).into_drawing_area();
        canvas.fill(&WHITE).map_err(fail)?;
        let root = canvas.titled(title, (FONT, 17)).map_err(fail)?;
        let (left, right) = root.split_horizontally(600);
        draw_mean_jct(&left, &canvas, sweep, subject, &x_axis)?;
        draw_ratios(&right, &canvas, sweep, subject, &x_axis)?;
        canvas.present().map_err(fail)?;
    }
    Ok(svg)
}

/// The left panel: each policy's mean JCT in hours at each point, a line with dots.
fn draw_mean_jct(
    area: &Area<'_>,
    canvas: &Area<'_>,
    sweep: &SweepReport,
    subject: &str,
    x_axis: &PointAxis,
) -> Result<(), String> {
    let hours = sweep
        .points
        .iter()
        .flat_map(|p| p.rows.iter().map(|r| r.values["avg_jct_s"].mean / 3600.0))
        .collect::<Vec<_>>();
    let (lo, hi) = log_range(hours.iter().copied(), 1e-3, 1e5);
    // Room above the lines for the legend.
    let hi = hi * (hi / lo).max(1.5);
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(x_axis.range(), (lo..hi).log_scale())
        .map_err(fail)?;
    log_y_axis(&mut chart, canvas, x_axis, "mean JCT (hours, mean over seeds)", (lo, hi))?;
    for (k, policy) in sweep.sweep.policies.iter().enumerate() {
        let color = policy_color(policy);
        let points: Vec<(f64, f64)> = sweep
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| (i as f64, p.rows[k].values["avg_jct_s"].mean / 3600.0))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(line_width(policy, subject))))
            .map_err(fail)?
            .label(policy.as_str())
            .legend(legend_mark(color));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(fail)?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 12)
}

/// The right panel: the subject's mean JCT over each other policy's at each point, with
/// its confidence interval, and a line at 1.
fn draw_ratios(
    area: &Area<'_>,
    canvas: &Area<'_>,
    sweep: &SweepReport,
    subject: &str,
    x_axis: &PointAxis,
) -> Result<(), String> {
    let bounds = sweep.points.iter().flat_map(|p| {
        p.comparisons.iter().flat_map(|c| {
            let ci = c.ratios["avg_jct_s"];
            [ci.low, ci.high, 0.5, 2.0]
        })
    });
    let (lo, hi) = log_range(bounds, 1e-3, 1e3);
    let x_range = x_axis.range();
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(x_range.clone(), (lo..hi).log_scale())
        .map_err(fail)?;
    let y_desc = format!("{subject} mean JCT ÷ baseline's (95% CI)");
    log_y_axis(&mut chart, canvas, x_axis, &y_desc, (lo, hi))?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(x_range.start, 1.0), (x_range.end, 1.0)],
            BLACK.stroke_width(1),
        )))
        .map_err(fail)?;
    let others = sweep.points.first().map(|p| p.comparisons.len()).unwrap_or(0);
    for k in 0..others {
        draw_baseline_ratios(&mut chart, sweep, (k, others), (lo, hi))?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 12)
}

/// The subject over the `k`th of `others` baselines: at each point an interval and a dot
/// (hollow when the interval includes 1), joined by a faint line; values outside `lo..hi`
/// are drawn at the edge.
fn draw_baseline_ratios(
    chart: &mut LogChart<'_, '_>,
    sweep: &SweepReport,
    (k, others): (usize, usize),
    (lo, hi): (f64, f64),
) -> Result<(), String> {
    let baseline = sweep.points[0].comparisons[k].baseline.clone();
    let color = policy_color(&baseline);
    // Spread the baselines a little along x so their intervals do not overlap.
    let shift = 0.06 * (k as f64 - (others as f64 - 1.0) / 2.0);
    let clip = |y: f64| if y.is_finite() { y.clamp(lo, hi) } else { hi };
    let mut line = Vec::new();
    for (i, p) in sweep.points.iter().enumerate() {
        let ci = p.comparisons[k].ratios["avg_jct_s"];
        let Some(ratio) = ci.ratio else { continue };
        let x = i as f64 + shift;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, clip(ci.low)), (x, clip(ci.high))],
                color.stroke_width(2),
            )))
            .map_err(fail)?;
        let style = if ci.includes_one() { color.stroke_width(2) } else { color.filled() };
        chart.draw_series(std::iter::once(Circle::new((x, clip(ratio)), 4, style))).map_err(fail)?;
        line.push((x, clip(ratio)));
    }
    chart
        .draw_series(LineSeries::new(line, color.mix(0.6).stroke_width(1)))
        .map_err(fail)?
        .label(format!("÷ {baseline}"))
        .legend(legend_mark(color));
    Ok(())
}

/// Both panels' axes: the x axis labelled with the swept values, a logarithmic y axis from
/// `lo` to `hi` with light lines and labels at round ticks (plotters' own log labels are
/// switched off for these).
fn log_y_axis(
    chart: &mut LogChart<'_, '_>,
    canvas: &Area<'_>,
    x_axis: &PointAxis,
    y_desc: &str,
    (lo, hi): (f64, f64),
) -> Result<(), String> {
    chart
        .configure_mesh()
        .x_desc(x_axis.desc)
        .y_desc(y_desc)
        .x_labels(x_axis.count)
        .x_label_formatter(x_axis.label)
        .y_labels(0)
        .y_label_formatter(&|_| String::new())
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .x_max_light_lines(0)
        .draw()
        .map_err(fail)?;
    let x_range = chart.x_range();
    let ticks = log_ticks(lo, hi);
    chart
        .draw_series(ticks.iter().map(|&t| {
            PathElement::new(vec![(x_range.start, t), (x_range.end, t)], RGBColor(0xE4, 0xE4, 0xE4).stroke_width(1))
        }))
        .map_err(fail)?;
    let at: Vec<(f64, (i32, i32))> = ticks.iter().map(|&t| (t, chart.backend_coord(&(x_range.start, t)))).collect();
    draw_tick_labels(canvas, &at, false)
}
