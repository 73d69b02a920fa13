//! The cluster drawn on a canvas for one frame: GPUs coloured and marked by job, a
//! scattered job's servers joined, links tinted by the rings crossing them.

use super::colours::{job_css, job_pattern, load_colour};
use super::{Frame, Grid, Playback, NO_JOB};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// Draws one frame of the cluster.
pub fn draw(canvas: &HtmlCanvasElement, grid: &Grid, pb: &Playback, frame: &Frame, selected: Option<u32>) {
    let Some(ctx) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let (w, h) = (grid.width.ceil(), grid.height.ceil());
    ctx.clear_rect(0.0, 0.0, w, h);
    let cell = grid.cell;
    let small = cell < 10.0;
    ctx.set_font(if small { "9px sans-serif" } else { "11px sans-serif" });
    ctx.set_text_baseline("top");

    // Racks: a block each, with its name and the uplink rising to the line of the
    // switches above.
    if grid.groups.len() > 1 {
        ctx.set_stroke_style_str("#9a9a9a");
        ctx.set_line_width(1.0);
        for row in grid.groups.chunk_by(|a, b| a.rect.y == b.rect.y) {
            let first = row[0].link_bar;
            let last = row[row.len() - 1].link_bar;
            ctx.begin_path();
            ctx.move_to(first.x, first.y);
            ctx.line_to(last.x + last.w, last.y);
            ctx.stroke();
        }
    }
    for g in &grid.groups {
        ctx.set_fill_style_str("rgba(120,120,120,0.08)");
        ctx.fill_rect(g.rect.x, g.rect.y, g.rect.w, g.rect.h);
        ctx.set_fill_style_str("#555");
        ctx.fill_text(&g.label, g.rect.x + 2.0, g.rect.y + 2.0).ok();
        if let Some(l) = g.uplink {
            let rings = frame.link_load[l.0 as usize];
            ctx.set_fill_style_str(load_colour(rings));
            ctx.fill_rect(g.link_bar.x, g.link_bar.y, g.link_bar.w, g.link_bar.h);
            if rings > 0 {
                ctx.set_fill_style_str("#222");
                ctx.fill_text(&rings.to_string(), g.link_bar.x + g.link_bar.w + 2.0, g.link_bar.y).ok();
            }
        }
    }
    for s in &grid.servers {
        if let Some(l) = s.uplink {
            let rings = frame.link_load[l.0 as usize];
            ctx.set_fill_style_str(load_colour(rings));
            ctx.fill_rect(s.link_bar.x, s.link_bar.y, s.link_bar.w, s.link_bar.h);
        }
    }

    // GPUs: idle ones first in one colour, then each job's in its colour and mark.
    ctx.set_fill_style_str("#e4e4e4");
    for (g, r) in grid.gpus.iter().enumerate() {
        if frame.gpu_owner[g] == NO_JOB {
            ctx.fill_rect(r.x, r.y, r.w, r.h);
        }
    }
    for (&job, run) in &frame.running {
        let gpus = pb.placed_gpus(run.placed);
        ctx.set_fill_style_str(&job_css(job));
        for g in gpus {
            let r = grid.gpus[g.0 as usize];
            ctx.fill_rect(r.x, r.y, r.w, r.h);
        }
        // The mark, so that colour is not the only cue.
        let pattern = job_pattern(job);
        if pattern != 0 {
            ctx.set_stroke_style_str("rgba(255,255,255,0.85)");
            ctx.set_fill_style_str("rgba(255,255,255,0.85)");
            ctx.set_line_width(if small { 1.0 } else { 2.0 });
            ctx.begin_path();
            for g in gpus {
                let r = grid.gpus[g.0 as usize];
                match pattern {
                    1 => {
                        ctx.move_to(r.x + 1.0, r.y + r.h - 1.0);
                        ctx.line_to(r.x + r.w - 1.0, r.y + 1.0);
                    }
                    2 => {
                        ctx.move_to(r.x + r.w / 2.0 + r.w / 5.0, r.y + r.h / 2.0);
                        ctx.arc(r.x + r.w / 2.0, r.y + r.h / 2.0, r.w / 5.0, 0.0, std::f64::consts::TAU).ok();
                    }
                    _ => {
                        ctx.move_to(r.x + 1.0, r.y + r.h / 2.0);
                        ctx.line_to(r.x + r.w - 1.0, r.y + r.h / 2.0);
                    }
                }
            }
            if pattern == 2 {
                ctx.fill();
            } else {
                ctx.stroke();
            }
        }
        if cell >= 20.0 {
            ctx.set_fill_style_str("#000");
            ctx.set_text_baseline("bottom");
            for g in gpus {
                let r = grid.gpus[g.0 as usize];
                ctx.fill_text(&job.to_string(), r.x + 2.0, r.y + r.h - 1.0).ok();
            }
            ctx.set_text_baseline("top");
        }
    }
    // Jobs spread over several servers: their servers joined, so scattering shows.
    ctx.set_line_width(if small { 1.5 } else { 2.5 });
    for (&job, run) in &frame.running {
        let gpus = pb.placed_gpus(run.placed);
        if gpus.len() < 2 {
            continue;
        }
        let centres = grid.server_centres(gpus);
        if centres.len() < 2 {
            continue;
        }
        ctx.set_stroke_style_str(&job_css(job));
        ctx.begin_path();
        for c in &centres[1..] {
            ctx.move_to(centres[0].0, centres[0].1);
            ctx.line_to(c.0, c.1);
        }
        ctx.stroke();
    }
    // The selected job: outlined, its links in black.
    if let Some(job) = selected {
        if let Some(run) = frame.running.get(&job) {
            let gpus = pb.placed_gpus(run.placed);
            ctx.set_stroke_style_str("#000");
            ctx.set_line_width(2.0);
            for g in gpus {
                let r = grid.gpus[g.0 as usize];
                ctx.stroke_rect(r.x - 1.5, r.y - 1.5, r.w + 3.0, r.h + 3.0);
            }
            let centres = grid.server_centres(gpus);
            ctx.set_line_width(3.0);
            ctx.begin_path();
            for c in centres.iter().skip(1) {
                ctx.move_to(centres[0].0, centres[0].1);
                ctx.line_to(c.0, c.1);
            }
            ctx.stroke();
        }
    }
}
