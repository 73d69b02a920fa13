//! The cluster drawn on a canvas for one frame, sharp at any size: the canvas's backing
//! store is its CSS size times the device's pixel ratio, and everything is drawn in the
//! scene's units through one transform, with line widths and fonts given in CSS pixels.
//!
//! GPUs are white when free and their job's (or its tenant's) dark colour, with its mark,
//! when busy; a
//! job's number is written at 14 CSS pixels on each server's share of it where it fits;
//! links are lines as wide and as warm as the rings crossing them, with the count; in
//! the racks layout, jobs spread over racks are one line per pair of racks.

use super::colours::{load_colour, load_width, ColourBy, FREE_GPU, GPU_OUTLINE};
use super::scene::{BoxRole, Scene, SceneKind};
use super::{Frame, Playback, NO_JOB};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The size of job numbers and link counts, in CSS pixels.
pub const NUMBER_PX: f64 = 14.0;

/// How the scene maps onto the canvas: scene units to CSS pixels, and CSS pixels to
/// device pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub scale: f64,
    pub dpr: f64,
}

impl Fit {
    /// The canvas's backing size in device pixels.
    pub fn backing(&self, scene: &Scene) -> (u32, u32) {
        let (w, h) = self.css(scene);
        ((w * self.dpr).round() as u32, (h * self.dpr).round() as u32)
    }

    /// The canvas's size in CSS pixels.
    pub fn css(&self, scene: &Scene) -> (f64, f64) {
        ((scene.width * self.scale).round(), (scene.height * self.scale).round())
    }
}

/// What a frame is drawn with besides the frame itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawOptions {
    pub fit: Fit,
    pub selected: Option<u32>,
    pub colour_by: ColourBy,
}

/// Draws one frame of the cluster; the canvas's backing size must be `fit.backing`. The
/// layers go from back to front: boxes, links, GPUs, job numbers, ring counts, the rack
/// pairs of the racks layout, the selection.
pub fn draw(canvas: &HtmlCanvasElement, scene: &Scene, pb: &Playback, frame: &Frame, options: DrawOptions) {
    let DrawOptions { fit, selected, colour_by } = options;
    let Some(ctx) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let k = fit.scale * fit.dpr;
    ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0).ok();
    ctx.clear_rect(0.0, 0.0, canvas.width() as f64, canvas.height() as f64);
    ctx.set_transform(k, 0.0, 0.0, k, 0.0, 0.0).ok();
    // One CSS pixel in scene units.
    let pen = Pen { ctx, px: 1.0 / fit.scale, scale: fit.scale };
    pen.boxes(scene);
    pen.links(scene, frame);
    pen.gpus(scene, pb, frame, colour_by);
    pen.job_numbers(scene, pb, frame);
    pen.ring_counts(scene, frame);
    if scene.kind == SceneKind::Racks {
        pen.rack_pairs(scene, pb, frame);
    }
    if let Some(run) = selected.and_then(|job| frame.running.get(&job)) {
        pen.selection(scene, pb, pb.placed_gpus(run.placed));
    }
    pen.ctx.set_text_align("start");
}

/// The context with the frame's transform set, and sizes in scene units: `px` is one CSS
/// pixel, `scale` CSS pixels per scene unit.
struct Pen {
    ctx: CanvasRenderingContext2d,
    px: f64,
    scale: f64,
}

impl Pen {
    /// Switches, servers or racks, with their names where they fit.
    fn boxes(&self, scene: &Scene) {
        let (ctx, px) = (&self.ctx, self.px);
        ctx.set_font(&format!("{:.2}px sans-serif", 13.0 * px));
        ctx.set_text_baseline("top");
        ctx.set_line_width(px);
        for b in &scene.boxes {
            let (fill, stroke) = match b.role {
                BoxRole::Switch => ("#e3e9f2", "#56657a"),
                BoxRole::Server => ("#f3f3f3", "#8a8a8a"),
                BoxRole::Rack => ("#f1f1f1", "#9a9a9a"),
            };
            ctx.set_fill_style_str(fill);
            ctx.fill_rect(b.rect.x, b.rect.y, b.rect.w, b.rect.h);
            ctx.set_stroke_style_str(stroke);
            ctx.stroke_rect(b.rect.x, b.rect.y, b.rect.w, b.rect.h);
            // About 7 CSS pixels per character at 13 px.
            if b.label.len() as f64 * 7.0 * px <= b.rect.w - 4.0 * px {
                ctx.set_fill_style_str("#222");
                ctx.fill_text(&b.label, b.rect.x + 3.0 * px, b.rect.y + 3.0 * px).ok();
            }
            // A rail group: its rails as bars in GPU order along the bottom of its box.
            if b.rails > 0 {
                let step = (b.rect.w - 8.0 * px) / b.rails as f64;
                let (top, h) = (b.rect.y + b.rect.h * 0.62, b.rect.h * 0.28);
                ctx.set_fill_style_str("#56657a");
                for i in 0..b.rails {
                    ctx.fill_rect(b.rect.x + 4.0 * px + i as f64 * step, top, (step - 1.5 * px).max(px / 2.0), h);
                }
            }
        }
    }

    /// Links, as wide and as warm as the rings crossing them.
    fn links(&self, scene: &Scene, frame: &Frame) {
        let ctx = &self.ctx;
        ctx.set_line_cap("round");
        for l in &scene.links {
            let rings = l.link.map(|id| frame.link_load[id.0 as usize]).unwrap_or(0);
            ctx.set_stroke_style_str(if l.link.is_some() { load_colour(rings) } else { "#9a9a9a" });
            ctx.set_line_width(load_width(rings) * self.px);
            ctx.begin_path();
            ctx.move_to(l.from.0, l.from.1);
            ctx.line_to(l.to.0, l.to.1);
            ctx.stroke();
        }
    }

    /// GPUs: free ones white, then each job's in its colour and mark, all outlined.
    fn gpus(&self, scene: &Scene, pb: &Playback, frame: &Frame, colour_by: ColourBy) {
        let (ctx, px) = (&self.ctx, self.px);
        ctx.set_fill_style_str(FREE_GPU);
        for (g, r) in scene.gpus.iter().enumerate() {
            if frame.gpu_owner[g] == NO_JOB {
                ctx.fill_rect(r.x, r.y, r.w, r.h);
            }
        }
        let cell_px = scene.cell * self.scale;
        for (&job, run) in &frame.running {
            let gpus = pb.placed_gpus(run.placed);
            let look = pb.look(job, colour_by);
            ctx.set_fill_style_str(&look.css());
            for g in gpus {
                let r = scene.gpus[g.0 as usize];
                ctx.fill_rect(r.x, r.y, r.w, r.h);
            }
            // The mark, so that colour is not the only cue (on cells big enough to see it).
            if look.pattern != 0 && cell_px >= 6.0 {
                self.marks(scene, gpus, look.pattern);
            }
        }
        if cell_px >= 4.0 {
            ctx.set_stroke_style_str(GPU_OUTLINE);
            ctx.set_line_width(px);
            ctx.begin_path();
            for r in &scene.gpus {
                ctx.rect(r.x, r.y, r.w, r.h);
            }
            ctx.stroke();
        }
    }

    /// A job's mark on each of its GPUs: a slash (1), a dot (2) or a bar (3).
    fn marks(&self, scene: &Scene, gpus: &[proxima_core::topology::GpuId], pattern: u8) {
        let ctx = &self.ctx;
        ctx.set_stroke_style_str("rgba(255,255,255,0.8)");
        ctx.set_fill_style_str("rgba(255,255,255,0.8)");
        ctx.set_line_width(1.5 * self.px);
        ctx.begin_path();
        for g in gpus {
            let r = scene.gpus[g.0 as usize];
            let (cx, cy) = r.centre();
            match pattern {
                1 => {
                    ctx.move_to(r.x + r.w * 0.15, r.y + r.h * 0.85);
                    ctx.line_to(r.x + r.w * 0.85, r.y + r.h * 0.15);
                }
                2 => {
                    ctx.move_to(cx + r.w / 6.0, cy);
                    ctx.arc(cx, cy, r.w / 6.0, 0.0, std::f64::consts::TAU).ok();
                }
                _ => {
                    ctx.move_to(r.x + r.w * 0.15, cy);
                    ctx.line_to(r.x + r.w * 0.85, cy);
                }
            }
        }
        if pattern == 2 {
            ctx.fill();
        } else {
            ctx.stroke();
        }
    }

    /// Job numbers, once per server's share of a job, where 14 CSS pixels fit.
    fn job_numbers(&self, scene: &Scene, pb: &Playback, frame: &Frame) {
        let (ctx, px) = (&self.ctx, self.px);
        ctx.set_font(&format!("bold {:.2}px sans-serif", NUMBER_PX * px));
        ctx.set_text_align("center");
        ctx.set_text_baseline("middle");
        ctx.set_fill_style_str("#fff");
        for (&job, run) in &frame.running {
            let text = job.to_string();
            let need_w = (text.len() as f64 * 8.5 + 2.0) * px;
            for b in scene.server_groups(pb.placed_gpus(run.placed)) {
                if b.w >= need_w && b.h >= (NUMBER_PX + 1.0) * px {
                    let (cx, cy) = b.centre();
                    ctx.fill_text(&text, cx, cy).ok();
                }
            }
        }
    }

    /// Rings crossing each link, counted on loaded links long enough to hold the count.
    fn ring_counts(&self, scene: &Scene, frame: &Frame) {
        let (ctx, px) = (&self.ctx, self.px);
        ctx.set_fill_style_str("#111");
        for l in &scene.links {
            let Some(id) = l.link else { continue };
            let rings = frame.link_load[id.0 as usize];
            let length = (l.to.0 - l.from.0).hypot(l.to.1 - l.from.1) * self.scale;
            if rings > 0 && length >= 2.0 * NUMBER_PX {
                let (mx, my) = ((l.from.0 + l.to.0) / 2.0, (l.from.1 + l.to.1) / 2.0);
                let (w, h) = (((rings.ilog10() + 1) as f64 * 8.5 + 6.0) * px, (NUMBER_PX + 3.0) * px);
                ctx.set_fill_style_str("rgba(255,255,255,0.9)");
                ctx.fill_rect(mx - w / 2.0, my - h / 2.0, w, h);
                ctx.set_fill_style_str("#111");
                ctx.fill_text(&rings.to_string(), mx, my).ok();
            }
        }
    }

    /// The racks layout: jobs spread over racks, one curve per pair of racks with the count.
    fn rack_pairs(&self, scene: &Scene, pb: &Playback, frame: &Frame) {
        let ctx = &self.ctx;
        let pairs = scene.rack_pairs(frame.running.values().map(|r| pb.placed_gpus(r.placed)));
        // A curve above the straight line, so that pairs in one row do not overlap.
        let bend = |p: (f64, f64), q: (f64, f64)| ((q.0 - p.0).abs() + (q.1 - p.1).abs()) * 0.15;
        ctx.set_stroke_style_str("rgba(20,40,120,0.55)");
        for (&(a, b), &jobs) in &pairs {
            let (p, q) = (scene.rack_anchor[a as usize], scene.rack_anchor[b as usize]);
            let (cx, cy) = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0 - bend(p, q));
            ctx.set_line_width((1.5 + 1.5 * (jobs as f64).sqrt()) * self.px);
            ctx.begin_path();
            ctx.move_to(p.0, p.1);
            ctx.quadratic_curve_to(cx, cy, q.0, q.1);
            ctx.stroke();
        }
        ctx.set_fill_style_str("rgb(20,40,120)");
        for (&(a, b), &jobs) in &pairs {
            let (p, q) = (scene.rack_anchor[a as usize], scene.rack_anchor[b as usize]);
            ctx.fill_text(&jobs.to_string(), (p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0 - bend(p, q) / 2.0).ok();
        }
    }

    /// The selected job: its GPUs outlined, its ring's links dashed in black.
    fn selection(&self, scene: &Scene, pb: &Playback, gpus: &[proxima_core::topology::GpuId]) {
        let (ctx, px) = (&self.ctx, self.px);
        ctx.set_stroke_style_str("#000");
        ctx.set_line_width(3.0 * px);
        for g in gpus {
            let r = scene.gpus[g.0 as usize];
            ctx.stroke_rect(r.x - 1.5 * px, r.y - 1.5 * px, r.w + 3.0 * px, r.h + 3.0 * px);
        }
        let topo = &pb.topo;
        let mut servers: Vec<_> = gpus.iter().map(|&g| topo.server_of(g)).collect();
        servers.sort_unstable();
        servers.dedup();
        let mut links = Vec::new();
        topo.inter_server_links(&servers, &mut links);
        ctx.set_line_dash(&js_dash(&[6.0 * px, 4.0 * px])).ok();
        ctx.begin_path();
        for l in &scene.links {
            if l.link.is_some_and(|id| links.contains(&id)) {
                ctx.move_to(l.from.0, l.from.1);
                ctx.line_to(l.to.0, l.to.1);
            }
        }
        ctx.stroke();
        ctx.set_line_dash(&js_dash(&[])).ok();
    }
}

fn js_dash(d: &[f64]) -> wasm_bindgen::JsValue {
    let a = js_sys::Array::new();
    for v in d {
        a.push(&(*v).into());
    }
    a.into()
}
