//! The JCT distribution of each policy on one scenario (all seeds pooled), on a log time
//! axis: JCTs run from minutes to weeks.

use super::{draw_legend, fail, legend_mark, line_width, log_range, policy_color, short_number, FONT};
use plotters::prelude::*;
use proxima_lab::experiment::aggregate::CdfReport;
use proxima_lab::experiment::Report;

pub fn draw(report: &Report, cdf: &CdfReport, title: &str) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let hours = cdf.series.iter().flat_map(|(_, points)| points.iter().map(|(jct, _)| jct / 3600.0));
        let (lo, hi) = log_range(hours, 1e-3, 1e5);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 17))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d((lo..hi).log_scale(), 0.0..1.0)
            .map_err(fail)?;
        chart
            .configure_mesh()
            .x_desc("job completion time (hours, log scale)")
            .y_desc("fraction of jobs")
            .x_label_formatter(&|x| short_number(*x))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .x_max_light_lines(0)
            .y_max_light_lines(1)
            .draw()
            .map_err(fail)?;
        for (policy, points) in &cdf.series {
            let color = policy_color(policy);
            let style = color.stroke_width(line_width(policy, &report.plan.subject));
            let line: Vec<(f64, f64)> =
                points.iter().filter(|(jct, _)| *jct > 0.0).map(|(jct, p)| ((jct / 3600.0).max(lo), *p)).collect();
            chart
                .draw_series(LineSeries::new(line, style))
                .map_err(fail)?
                .label(policy.as_str())
                .legend(legend_mark(color));
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerRight, 13)?;
        root.present().map_err(fail)?;
    }
    Ok(svg)
}
