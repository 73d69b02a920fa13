//! The report as one self-contained HTML file: the Markdown's sections with inline CSS and
//! hand-written inline SVG bar charts (intervals as whiskers), no script, no external
//! reference, no web font, so it opens offline, in a mail attachment or a ticket, as it is.
//! The web page renders the same function's output.

use super::render::{sections, title};
use super::report::WhatIfReport;
use crate::experiment::stats::RatioCi;
use std::fmt::Write;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.45}\
table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:.9rem}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}\
th{background:#f2f2f2}code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em}figure{margin:1rem 0}\
figcaption{font-size:.85rem;color:#555}svg text{font-family:system-ui,sans-serif;font-size:12px;fill:#1b1b1b}";

/// One bar: its label, value and interval.
struct Bar {
    label: String,
    value: f64,
    interval: Option<(f64, f64)>,
}

/// Text for HTML: `&`, `<`, `>` and `"` escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The Markdown of the sections' cells and prose, in HTML: `code` and *emphasis*.
fn inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in escape(text).split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{part}</code>");
            continue;
        }
        for (k, piece) in part.split('*').enumerate() {
            if k % 2 == 1 {
                let _ = write!(out, "<em>{piece}</em>");
            } else {
                out.push_str(piece);
            }
        }
    }
    out
}

/// A horizontal bar chart: one bar per item, its label above it, its value (and interval)
/// after it, an optional reference line (1 for ratios).
fn bar_chart(caption: &str, bars: &[Bar], reference: Option<f64>, value_text: &dyn Fn(&Bar) -> String) -> String {
    const WIDTH: f64 = 720.0;
    const LEFT: f64 = 8.0;
    const PLOT: f64 = 520.0;
    const ROW: f64 = 38.0;
    let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
    let top = bars
        .iter()
        .map(|b| finite(b.interval.map_or(b.value, |(_, hi)| hi.max(b.value))))
        .chain(reference)
        .fold(0.0_f64, f64::max);
    let scale = if top > 0.0 { PLOT / (top * 1.05) } else { 0.0 };
    let height = ROW * bars.len() as f64 + 10.0;
    let mut svg = format!(
        "<svg width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{}\">",
        escape(caption)
    );
    for (i, bar) in bars.iter().enumerate() {
        let y = ROW * i as f64;
        let w = finite(bar.value).max(0.0) * scale;
        let _ = write!(svg, "<text x=\"{LEFT}\" y=\"{:.1}\">{}</text>", y + 13.0, escape(&bar.label));
        let _ = write!(
            svg,
            "<rect x=\"{LEFT}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"14\" fill=\"#4a7ab5\"></rect>",
            y + 18.0
        );
        if let Some((lo, hi)) = bar.interval.filter(|(lo, hi)| lo.is_finite() && hi.is_finite()) {
            let (x0, x1, mid) = (LEFT + lo * scale, LEFT + hi * scale, y + 25.0);
            let _ = write!(
                svg,
                "<path d=\"M{x0:.1} {mid:.1}H{x1:.1}M{x0:.1} {:.1}V{:.1}M{x1:.1} {:.1}V{:.1}\" stroke=\"#1b1b1b\" stroke-width=\"1.5\" fill=\"none\"></path>",
                mid - 5.0,
                mid + 5.0,
                mid - 5.0,
                mid + 5.0
            );
        }
        let end = LEFT + finite(bar.interval.map_or(bar.value, |(_, hi)| hi.max(bar.value))).max(0.0) * scale;
        let _ = write!(svg, "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>", end + 6.0, y + 30.0, escape(&value_text(bar)));
    }
    if let Some(r) = reference {
        let x = LEFT + r * scale;
        let _ = write!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"0\" x2=\"{x:.1}\" y2=\"{height}\" stroke=\"#b54a4a\" stroke-dasharray=\"4 3\"></line>"
        );
    }
    svg.push_str("</svg>");
    format!("<figure><figcaption>{}</figcaption>{svg}</figure>\n", inline(caption))
}

fn ratio_bar(label: &str, ratio: Option<&RatioCi>) -> Bar {
    match ratio {
        None => Bar { label: label.to_string(), value: 1.0, interval: None },
        Some(ci) => {
            Bar { label: label.to_string(), value: ci.ratio.unwrap_or(f64::NAN), interval: Some((ci.low, ci.high)) }
        }
    }
}

fn ratio_text(seeds: u64) -> impl Fn(&Bar) -> String {
    move |b: &Bar| match b.interval {
        Some((lo, hi)) if seeds > 1 => format!("{:.2} [{:.2}–{:.2}]", b.value, lo, hi),
        _ => format!("{:.2}", b.value),
    }
}

/// The figures: mean JCT ratios, per tenant, preemptions, held time.
fn figures(r: &WhatIfReport) -> String {
    let mut out = String::new();
    let bars: Vec<Bar> = r.policies.iter().map(|p| ratio_bar(&p.spec, p.jct_ratio.as_ref())).collect();
    let caption = format!(
        "Mean JCT ÷ the configured scheduler's (`{}`), with {:.0}% intervals over seeds; the dashed line is 1, below it is faster.",
        r.scheduler,
        100.0 * r.confidence
    );
    out.push_str(&bar_chart(&caption, &bars, Some(1.0), &ratio_text(r.seeds)));
    for (t, name) in r.tenants.iter().enumerate() {
        let bars: Vec<Bar> = r
            .policies
            .iter()
            .map(|p| ratio_bar(&p.spec, p.tenants.get(t).and_then(|x| x.jct_ratio.as_ref())))
            .collect();
        let caption = format!("Tenant {name}: its mean JCT ÷ its own under the configured scheduler.");
        out.push_str(&bar_chart(&caption, &bars, Some(1.0), &ratio_text(r.seeds)));
    }
    let count = |f: &dyn Fn(&super::PolicyRow) -> f64| -> Vec<Bar> {
        r.policies.iter().map(|p| Bar { label: p.spec.clone(), value: f(p), interval: None }).collect()
    };
    let preempt = count(&|p| p.fragmentation.freed_unused.mean);
    out.push_str(&bar_chart(
        "Preemptions per run that freed GPUs nobody used within the window (mean over seeds).",
        &preempt,
        None,
        &|b| format!("{:.1}", b.value),
    ));
    let held = count(&|p| (p.holding.held_s.mean + p.holding.held_at_end_s.mean) / 3600.0);
    out.push_str(&bar_chart(
        "Hours per run jobs were held with their GPUs free, placed in the end or not (mean over seeds).",
        &held,
        None,
        &|b| format!("{:.1} h", b.value),
    ));
    out
}

/// The HTML report.
pub fn html(r: &WhatIfReport) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&format!("What if: {}", r.scheduler))
    );
    let _ = writeln!(out, "<h1>{}</h1>", inline(&format!("What if: `{}`", r.scheduler)));
    let _ = writeln!(out, "<p>{}.</p>", escape(&title(r)));
    let _ = writeln!(out, "<h2>Figures</h2>\n{}", figures(r));
    for (heading, section) in sections(r) {
        let _ = writeln!(out, "<h2>{}</h2>", escape(&heading));
        for paragraph in &section.prose {
            let _ = writeln!(out, "<p>{}</p>", inline(paragraph));
        }
        out.push_str("<table>\n<thead><tr>");
        for h in &section.header {
            let _ = write!(out, "<th>{}</th>", inline(h));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &section.rows {
            out.push_str("<tr>");
            for cell in row {
                let _ = write!(out, "<td>{}</td>", inline(cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
    }
    out.push_str("<p>Written by <code>proxima what-if</code>; definitions in Proxima's docs/OPERATORS.md.</p>\n</body>\n</html>\n");
    out
}
