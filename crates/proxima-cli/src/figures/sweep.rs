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

pub fn draw(report: &Report, sweep: &SweepReport, title: &str) -> Result<String, String> {
    let subject = report.plan.subject.as_str();
    let policies = &sweep.sweep.policies;
    let labels: Vec<String> = sweep.points.iter().map(|p| short_number(p.x)).collect();
    let count = labels.len();
    let x_range = -0.4..(count as f64 - 0.6);
    let x_label = |x: &f64| -> String {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < count {
            labels[i as usize].clone()
        } else {
            String::new()
        }
    };
    let mut svg = String::new();
    {
        let canvas = SVGBackend::with_string(&mut svg, (1200, 520)).into_drawing_area();
        canvas.fill(&WHITE).map_err(fail)?;
        let root = canvas.titled(title, (FONT, 17)).map_err(fail)?;
        let (left, right) = root.split_horizontally(600);

        // Left: mean JCT in hours.
        let hours = sweep
            .points
            .iter()
            .flat_map(|p| p.rows.iter().map(|r| r.values["avg_jct_s"].mean / 3600.0))
            .collect::<Vec<_>>();
        let (lo, hi) = log_range(hours.iter().copied(), 1e-3, 1e5);
        // Room above the lines for the legend.
        let hi = hi * (hi / lo).max(1.5);
        let mut chart = ChartBuilder::on(&left)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(x_range.clone(), (lo..hi).log_scale())
            .map_err(fail)?;
        log_y_axis(
            &mut chart,
            &canvas,
            (sweep.sweep.label.as_str(), "mean JCT (hours, mean over seeds)"),
            count,
            &x_label,
            (lo, hi),
        )?;
        for (k, policy) in policies.iter().enumerate() {
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
        draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 12)?;

        // Right: the subject over each other policy, with intervals.
        let bounds = sweep.points.iter().flat_map(|p| {
            p.comparisons.iter().flat_map(|c| {
                let ci = c.ratios["avg_jct_s"];
                [ci.low, ci.high, 0.5, 2.0]
            })
        });
        let (lo, hi) = log_range(bounds, 1e-3, 1e3);
        let mut chart = ChartBuilder::on(&right)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(x_range.clone(), (lo..hi).log_scale())
            .map_err(fail)?;
        let y_desc = format!("{subject} mean JCT ÷ baseline's (95% CI)");
        log_y_axis(&mut chart, &canvas, (sweep.sweep.label.as_str(), &y_desc), count, &x_label, (lo, hi))?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x_range.start, 1.0), (x_range.end, 1.0)],
                BLACK.stroke_width(1),
            )))
            .map_err(fail)?;
        let others = sweep.points.first().map(|p| p.comparisons.len()).unwrap_or(0);
        for k in 0..others {
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
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 12)?;
        canvas.present().map_err(fail)?;
    }
    Ok(svg)
}

/// Both panels' axes: the x axis labelled with the swept values, a logarithmic y axis from
/// `lo` to `hi` with light lines and labels at round ticks (plotters' own log labels are
/// switched off for these).
fn log_y_axis(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, LogCoord<f64>>>,
    canvas: &DrawingArea<SVGBackend<'_>, Shift>,
    (x_desc, y_desc): (&str, &str),
    count: usize,
    x_label: &dyn Fn(&f64) -> String,
    (lo, hi): (f64, f64),
) -> Result<(), String> {
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels(count)
        .x_label_formatter(x_label)
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
