//! The cluster drawn on a canvas for one frame, sharp at any size: the canvas's backing
//! store is its CSS size times the device's pixel ratio, and everything is drawn in the
//! scene's units through one transform, with line widths and fonts given in CSS pixels.
//!
//! GPUs are white when free and their job's (or its tenant's) dark colour, with its mark,
//! when busy; a
//! job's number is written at 14 CSS pixels (24 in projector mode) on each server's share
//! of it where it fits, with a halo so that it stays legible over marks;
//! links are lines as wide and as warm as the rings crossing them, with the count; in
//! the racks layout, jobs spread over racks are one line per pair of racks. A job waiting
//! under a delay timer is a ghost (outlined, translucent) over the free GPUs it declines,
//! with its number and the seconds its timer has left ([`super::narrate`]); in projector
//! mode the queue is a row under the cluster, each job with its countdown.

use super::colours::{load_colour, load_width, ColourBy, FREE_GPU, GPU_OUTLINE};
use super::narrate::{seconds, Ghost, QueueEntry};
use super::scene::{BoxRole, Scene, SceneKind};
pub use super::sizing::{fit, Fit, PROJECTOR_MAX_SCALE, PROJECTOR_TEXT_PX, QUEUE_BAND_PX};
use super::{Frame, Playback, NO_JOB};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The size of job numbers and link counts, in CSS pixels.
pub const NUMBER_PX: f64 = 14.0;
/// The size of box labels, in CSS pixels.
pub const LABEL_PX: f64 = 13.0;

/// The sizes of the drawing's text, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextSizes {
    /// Job numbers, countdowns and ring counts.
    pub number: f64,
    /// Names of switches, servers and racks.
    pub label: f64,
}

impl TextSizes {
    pub fn new(projector: bool) -> TextSizes {
        if projector {
            TextSizes { number: PROJECTOR_TEXT_PX, label: PROJECTOR_TEXT_PX }
        } else {
            TextSizes { number: NUMBER_PX, label: LABEL_PX }
        }
    }

    /// The width of `chars` characters of bold digits at the number size, in CSS pixels
    /// (about 0.6 em each), with a pixel either side.
    pub fn number_width(&self, chars: usize) -> f64 {
        chars as f64 * 0.61 * self.number + 2.0
    }
}

/// What a frame is drawn with besides the frame itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawOptions {
    pub fit: Fit,
    pub selected: Option<u32>,
    pub colour_by: ColourBy,
    pub projector: bool,
}

/// What is drawn over the cluster: the waiting jobs' ghosts, and in projector mode the
/// queue's row ([`super::narrate`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overlay {
    pub ghosts: Vec<Ghost>,
    pub queue: Option<Vec<QueueEntry>>,
}

/// Draws one frame of the cluster; the canvas's backing size must be `fit.backing`. The
/// layers go from back to front: boxes, links, GPUs, job numbers, ring counts, the rack
/// pairs of the racks layout, the ghosts of waiting jobs, the selection, the queue's row.
pub fn draw(
    canvas: &HtmlCanvasElement,
    scene: &Scene,
    pb: &Playback,
    frame: &Frame,
    options: DrawOptions,
    overlay: &Overlay,
) {
    let DrawOptions { fit, selected, colour_by, projector } = options;
    let Some(ctx) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let k = fit.scale * fit.dpr;
    ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0).ok();
    // Painted white rather than cleared, as the page shows it (its style's background):
    // a recorded clip (`record`) has no transparency, and would show a cleared canvas black.
    ctx.set_fill_style_str("#fff");
    ctx.fill_rect(0.0, 0.0, canvas.width() as f64, canvas.height() as f64);
    let (ox, oy) = fit.offset(scene);
    ctx.set_transform(k, 0.0, 0.0, k, ox * fit.dpr, oy * fit.dpr).ok();
    // One CSS pixel in scene units.
    let pen = Pen { ctx, px: 1.0 / fit.scale, scale: fit.scale, text: TextSizes::new(projector), projector };
    pen.boxes(scene);
    pen.links(scene, frame);
    pen.gpus(scene, pb, frame, colour_by);
    pen.job_numbers(scene, pb, frame);
    pen.ring_counts(scene, frame);
    if scene.kind == SceneKind::Racks {
        pen.rack_pairs(scene, pb, frame);
    }
    for g in &overlay.ghosts {
        pen.ghost(scene, pb, g, colour_by);
    }
    if let Some(run) = selected.and_then(|job| frame.running.get(&job)) {
        pen.selection(scene, pb, pb.placed_gpus(run.placed));
    }
    if let Some(queue) = &overlay.queue {
        pen.queue_row(scene, pb, queue, colour_by, fit.band);
    }
    pen.ctx.set_text_align("start");
    pen.ctx.set_line_width(1.0);
}

/// The context with the frame's transform set, and sizes in scene units: `px` is one CSS
/// pixel, `scale` CSS pixels per scene unit.
struct Pen {
    ctx: CanvasRenderingContext2d,
    px: f64,
    scale: f64,
    text: TextSizes,
    projector: bool,
}

impl Pen {
    /// Text with a halo: a stroke in `halo` behind the fill, so that it stays legible over
    /// marks, links and cells of any colour.
    fn halo_text(&self, text: &str, x: f64, y: f64, fill: &str, halo: &str) {
        let ctx = &self.ctx;
        ctx.set_stroke_style_str(halo);
        ctx.set_line_width((if self.projector { 5.0 } else { 3.0 }) * self.px);
        ctx.set_line_join("round");
        ctx.stroke_text(text, x, y).ok();
        ctx.set_fill_style_str(fill);
        ctx.fill_text(text, x, y).ok();
    }

    /// Switches, servers or racks, with their names where they fit (in projector mode a
    /// rack's name stands above its block, where the larger text has room).
    fn boxes(&self, scene: &Scene) {
        let (ctx, px) = (&self.ctx, self.px);
        let label_px = self.text.label;
        ctx.set_font(&format!("{:.2}px sans-serif", label_px * px));
        ctx.set_text_baseline("top");
        for b in &scene.boxes {
            // Each time: a label's halo widens the line.
            ctx.set_line_width(px);
            let (fill, stroke) = match b.role {
                BoxRole::Switch => ("#e3e9f2", "#56657a"),
                BoxRole::Server => ("#f3f3f3", "#8a8a8a"),
                BoxRole::Rack => ("#f1f1f1", "#9a9a9a"),
            };
            ctx.set_fill_style_str(fill);
            ctx.fill_rect(b.rect.x, b.rect.y, b.rect.w, b.rect.h);
            ctx.set_stroke_style_str(stroke);
            ctx.stroke_rect(b.rect.x, b.rect.y, b.rect.w, b.rect.h);
            // About 0.55 em per character.
            let fits = b.label.len() as f64 * 0.55 * label_px * px <= b.rect.w - 4.0 * px;
            if self.projector && b.role == BoxRole::Rack {
                if fits {
                    ctx.set_text_baseline("bottom");
                    self.halo_text(&b.label, b.rect.x + 3.0 * px, b.rect.y - 2.0 * px, "#222", "#fff");
                    ctx.set_text_baseline("top");
                }
            } else if fits && (!self.projector || b.rect.h >= label_px * 1.2 * px) {
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

    /// Job numbers, once per server's share of a job, where the number fits (never
    /// overprinting the next server's cells), white on a dark halo over the job's marks.
    fn job_numbers(&self, scene: &Scene, pb: &Playback, frame: &Frame) {
        let (ctx, px, size) = (&self.ctx, self.px, self.text.number);
        ctx.set_font(&format!("bold {:.2}px sans-serif", size * px));
        ctx.set_text_align("center");
        ctx.set_text_baseline("middle");
        for (&job, run) in &frame.running {
            let text = job.to_string();
            let need_w = self.text.number_width(text.len()) * px;
            for b in scene.label_spots(pb.placed_gpus(run.placed)) {
                if b.w >= need_w && b.h >= (size + 1.0) * px {
                    let (cx, cy) = b.centre();
                    self.halo_text(&text, cx, cy, "#fff", "rgba(0,0,0,0.75)");
                }
            }
        }
    }

    /// A waiting job's ghost: the free GPUs it declines, tinted in its colour and
    /// outlined dashed, with its number and its timer's seconds left over the largest
    /// server's share of them (dark on a white halo).
    fn ghost(&self, scene: &Scene, pb: &Playback, g: &Ghost, colour_by: ColourBy) {
        let (ctx, px, size) = (&self.ctx, self.px, self.text.number);
        let colour = pb.look(g.job, colour_by).css();
        ctx.set_global_alpha(0.3);
        ctx.set_fill_style_str(&colour);
        for x in &g.gpus {
            let r = scene.gpus[x.0 as usize];
            ctx.fill_rect(r.x, r.y, r.w, r.h);
        }
        ctx.set_global_alpha(1.0);
        ctx.set_stroke_style_str(&colour);
        ctx.set_line_width((if self.projector { 3.0 } else { 2.0 }) * px);
        ctx.set_line_dash(&js_dash(&[4.0 * px, 3.0 * px])).ok();
        for x in &g.gpus {
            let r = scene.gpus[x.0 as usize];
            ctx.stroke_rect(r.x + px, r.y + px, r.w - 2.0 * px, r.h - 2.0 * px);
        }
        ctx.set_line_dash(&js_dash(&[])).ok();
        let spots = scene.label_spots(&g.gpus);
        // The widest row of its cells (the first of equals).
        let Some(b) = spots.iter().copied().reduce(|a, b| if b.w > a.w { b } else { a }) else { return };
        let (cx, cy) = b.centre();
        ctx.set_font(&format!("bold {:.2}px sans-serif", size * px));
        ctx.set_text_align("center");
        ctx.set_text_baseline("middle");
        let text = format!("{} · {}", g.job, seconds(g.left_s));
        let halo = "rgba(255,255,255,0.95)";
        if self.text.number_width(text.chars().count()) * px <= b.w {
            self.halo_text(&text, cx, cy, "#111", halo);
        } else if b.w >= self.text.number_width(g.job.to_string().len()) * px && b.h >= (size + 1.0) * px {
            // The number on the cells, the countdown just under them.
            self.halo_text(&g.job.to_string(), cx, cy, "#111", halo);
            self.halo_text(&seconds(g.left_s), cx, b.y + b.h + 0.65 * size * px, "#111", halo);
        } else {
            // Cells too small for text: both under them.
            self.halo_text(&text, cx, b.y + b.h + 0.65 * size * px, "#111", halo);
        }
    }

    /// The queue as a row under the cluster (projector mode): each waiting job in its
    /// colour, with its countdown when it runs a timer, as many as fit.
    fn queue_row(&self, scene: &Scene, pb: &Playback, queue: &[QueueEntry], colour_by: ColourBy, band: f64) {
        let (ctx, px, size) = (&self.ctx, self.px, self.text.number);
        let top = scene.height + 0.2 * size * px;
        let h = band * px - 0.4 * size * px;
        let cy = top + h / 2.0;
        ctx.set_font(&format!("bold {:.2}px sans-serif", size * px));
        ctx.set_text_baseline("middle");
        ctx.set_text_align("start");
        let mut x = 6.0 * px;
        let title = if queue.is_empty() { "Queue: empty".to_string() } else { format!("Queue ({}):", queue.len()) };
        self.halo_text(&title, x, cy, "#222", "#fff");
        x += self.text.number_width(title.chars().count()) * px + 0.5 * size * px;
        let right = scene.width - 6.0 * px;
        for (i, q) in queue.iter().enumerate() {
            let text = match q.left_s {
                Some(l) => format!("{} · {}", q.job, seconds(l)),
                None => q.job.to_string(),
            };
            let w = self.text.number_width(text.chars().count()) * px + 0.6 * size * px;
            let more = format!("+{}", queue.len() - i);
            if x + w > right - self.text.number_width(more.len()) * px {
                self.halo_text(&more, x, cy, "#222", "#fff");
                break;
            }
            let look = pb.look(q.job, colour_by);
            ctx.set_fill_style_str(if q.left_s.is_some() { "#fff" } else { "#f1f1f1" });
            ctx.fill_rect(x, top, w, h);
            ctx.set_stroke_style_str(&look.css());
            ctx.set_line_width(3.0 * px);
            if q.left_s.is_some() {
                ctx.set_line_dash(&js_dash(&[4.0 * px, 3.0 * px])).ok();
            }
            ctx.stroke_rect(x, top, w, h);
            ctx.set_line_dash(&js_dash(&[])).ok();
            ctx.set_fill_style_str("#111");
            ctx.fill_text(&text, x + 0.3 * size * px, cy).ok();
            x += w + 0.3 * size * px;
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
            if rings > 0 && length >= 2.0 * self.text.number {
                let (mx, my) = ((l.from.0 + l.to.0) / 2.0, (l.from.1 + l.to.1) / 2.0);
                let (w, h) =
                    ((self.text.number_width((rings.ilog10() + 1) as usize) + 4.0) * px, (self.text.number + 3.0) * px);
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
