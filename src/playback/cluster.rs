//! The cluster canvas as a component: it fills its panel's width (in full screen, the box
//! the screen's layout gives it; in projector mode, no taller than the window leaves with
//! the subtitle under it), keeps its backing store at CSS size × devicePixelRatio, and
//! redraws on every new frame, selection, colouring, resize, zoom or change of screen.
//!
//! What it drew is on the element for tests to read: the GPU cell's side and the text size
//! in CSS pixels (`data-cell-px`, `data-text-px`), the drawing's size in CSS pixels
//! (`data-drawn-px`, `WxH`: in full screen the canvas is larger, the drawing centred), the waiting jobs' ghosts with their
//! countdowns (`data-ghosts`, [`super::narrate::ghosts_attr`]) at the frame's time
//! (`data-frame-time`, seconds) and, in projector mode, the queue's row (`data-queue`).

use super::canvas::{draw, fit, DrawOptions, Fit, Overlay, TextSizes, PROJECTOR_MAX_SCALE};
use super::colours::ColourBy;
use super::narrate::{ghosts_attr, queue_attr};
use super::scene::{Scene, MAX_SCALE, MIN_GRAPH_CELL_PX};
use super::{Frame, Playback};
use crate::browser;
use crate::editor::layout::GPU_SIZE;
use crate::Shared;
use std::collections::BTreeMap;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// The panel's size as last measured.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Room {
    /// Width available, in CSS pixels.
    width: f64,
    /// Height available in full screen and projector mode (None: as tall as the width
    /// makes it).
    height: Option<f64>,
    dpr: f64,
    /// In full screen: the player covers the screen, and the canvas may grow past the
    /// page's largest zoom.
    full: bool,
}

/// Both layouts of a cluster, made once per cluster: which one shows depends on the width.
#[derive(Debug, PartialEq)]
struct Scenes {
    graph: Option<Scene>,
    racks: Scene,
}

impl Scenes {
    /// The graph where its GPUs are legible at this width, else the racks; in projector
    /// mode always the racks, whose blocks wrap and so grow with the panel. In full screen
    /// (`full_height`: the box's height) the one drawn larger in the box, so that a wide
    /// graph on a 4:3 screen gives way to the racks' blocks.
    fn pick(&self, width: f64, full_height: Option<f64>, projector: bool) -> &Scene {
        match (&self.graph, full_height) {
            _ if projector => &self.racks,
            (Some(g), Some(h)) if drawn_area(g, width, h) >= drawn_area(&self.racks, width, h) => g,
            (Some(_), Some(_)) => &self.racks,
            (Some(g), None) if GPU_SIZE * (width / g.width).min(MAX_SCALE) >= MIN_GRAPH_CELL_PX => g,
            _ => &self.racks,
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct ClusterCanvasProps {
    pub playback: Shared<Playback>,
    pub frame: Shared<Frame>,
    pub selected: Option<u32>,
    pub colour_by: ColourBy,
    /// A click: the GPU under it, if any.
    pub on_gpu: Callback<Option<u32>>,
    pub label: String,
    /// Projector mode: large cells and text, the queue drawn under the cluster.
    #[prop_or_default]
    pub projector: bool,
}

/// The area `scene` covers drawn as large as it fits in `width` × `height` CSS pixels.
fn drawn_area(scene: &Scene, width: f64, height: f64) -> f64 {
    let scale = (width / scene.width).min(height / scene.height).min(PROJECTOR_MAX_SCALE);
    scene.width * scene.height * scale * scale
}

/// The cluster at one frame, drawn to fit its panel.
#[component]
pub fn ClusterCanvas(props: &ClusterCanvasProps) -> Html {
    let pb = &props.playback;
    let box_ref = use_node_ref();
    let canvas_ref = use_node_ref();
    // Compared with the value held, not a render's copy: the listeners outlive renders.
    let room = use_state_eq(|| None::<Room>);
    let scenes = use_memo(pb.topo.clone(), |topo| Scenes {
        graph: if topo.gpu_count() <= 1024 { Scene::graph(topo, &BTreeMap::new()) } else { None },
        racks: Scene::racks(topo),
    });

    // Measure on mount and whenever the box changes size in device pixels: one observer
    // sees the window or a pane resized, full screen, zoom and a change of screen
    // ([`browser::ResizeWatch`]).
    {
        let (box_ref, room) = (box_ref.clone(), room.clone());
        use_effect_with((), move |_| {
            let measure = {
                let box_ref = box_ref.clone();
                move || {
                    if let Some(m) = measure(&box_ref) {
                        room.set(Some(m));
                    }
                }
            };
            measure();
            let watch = box_ref.cast::<web_sys::Element>().and_then(|el| browser::ResizeWatch::start(&el, measure));
            move || drop(watch)
        });
    }

    let width = room.map(|r| r.width).unwrap_or(640.0);
    let projector = props.projector;
    let room_height = room.and_then(|r| r.height);
    let full = room.is_some_and(|r| r.full);
    let full_height = room_height.filter(|_| full);
    let scene = scenes.pick(width, full_height, projector);
    let fit = Fit {
        frame: full_height.map(|h| (width, h)),
        ..fit(scene, width, room_height, room.map(|r| r.dpr).unwrap_or(1.0), projector || full, projector)
    };
    let (backing_w, backing_h) = fit.backing(scene);

    // Draw after every render of a new frame, selection or size; a changed pixel ratio
    // (a window moved to another screen) is noticed here too.
    {
        let (canvas_ref, box_ref, room, scenes) = (canvas_ref.clone(), box_ref.clone(), room.clone(), scenes.clone());
        let pb = pb.clone();
        let deps = (props.frame.clone(), props.selected, props.colour_by, fit, (width, full_height), projector);
        use_effect_with(deps, move |(frame, selected, colour_by, fit, (width, full_height), projector)| {
            let scene = scenes.pick(*width, *full_height, *projector);
            let (css_w, css_h) = fit.css(scene);
            if room.is_some_and(|r| r.dpr != browser::device_pixel_ratio()) {
                if let Some(m) = measure(&box_ref) {
                    room.set(Some(m));
                }
            }
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                // Through the CSS object model: the page's policy refuses style attributes.
                let style = canvas.style();
                let _ = style.set_property("width", &format!("{css_w}px"));
                let _ = style.set_property("height", &format!("{css_h}px"));
                let started = browser::now_ms();
                let options =
                    DrawOptions { fit: *fit, selected: *selected, colour_by: *colour_by, projector: *projector };
                let overlay = Overlay { ghosts: pb.ghosts(frame), queue: projector.then(|| pb.queue_row(frame)) };
                draw(&canvas, scene, &pb, frame, options, &overlay);
                let _ = canvas.set_attribute("data-draw-ms", &format!("{:.3}", browser::now_ms() - started));
                let _ = canvas.set_attribute("data-ghosts", &ghosts_attr(&overlay.ghosts));
                let _ = canvas.set_attribute("data-frame-time", &format!("{:.6}", frame.time_us as f64 / 1e6));
                match &overlay.queue {
                    Some(q) => canvas.set_attribute("data-queue", &queue_attr(q)),
                    None => canvas.remove_attribute("data-queue"),
                }
                .ok();
            }
        });
    }

    let on_click =
        click_handler(props.on_gpu.clone(), canvas_ref.clone(), scenes.clone(), (width, full_height, projector), fit);
    let kind = match scene.kind {
        super::scene::SceneKind::Graph => "graph",
        super::scene::SceneKind::Racks => "racks",
    };
    html! {
        <div class="canvas-box" ref={box_ref}>
            <canvas ref={canvas_ref} class="cluster-canvas" data-testid="cluster-canvas"
                    width={backing_w.to_string()} height={backing_h.to_string()}
                    data-layout={kind} data-dpr={fit.dpr.to_string()} data-scale={format!("{:.3}", fit.scale)}
                    data-cell-px={format!("{:.2}", fit.cell_px(scene))} data-drawn-px={format!("{:.0}x{:.0}", fit.drawn(scene).0, fit.drawn(scene).1)} data-text-px={TextSizes::new(projector).number.to_string()}
                    data-projector={projector.to_string()}
                    onclick={on_click} role="img" aria-label={props.label.clone()}></canvas>
        </div>
    }
}

/// A click on the canvas: the GPU under it, if any, to `on_gpu`. `how` is how the scene was
/// picked (width, full-screen height, projector mode) and `fit` how it was drawn.
fn click_handler(
    on_gpu: Callback<Option<u32>>,
    canvas_ref: NodeRef,
    scenes: Rc<Scenes>,
    how: (f64, Option<f64>, bool),
    fit: Fit,
) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        let Some(canvas) = canvas_ref.cast::<web_sys::Element>() else { return };
        let r = canvas.get_bounding_client_rect();
        let scene = scenes.pick(how.0, how.1, how.2);
        if r.width() <= 0.0 {
            return;
        }
        // CSS pixels to scene units, from where the drawing starts on the canvas.
        let ((ox, oy), shown) = (fit.offset(scene), fit.css(scene).0 / r.width());
        let at = |client: f64, start: f64, offset: f64| ((client - start) * shown - offset) / fit.scale;
        on_gpu.emit(scene.gpu_at(at(e.client_x() as f64, r.left(), ox), at(e.client_y() as f64, r.top(), oy)));
    })
}

/// The room the canvas has: its box's width; in full screen its box's height (the screen's
/// layout sizes the box, www/playback.css); in projector mode the window's height less the
/// pane's line of figures and its subtitle, so that the canvas and the subtitle under it
/// are on screen together; and the device's pixel ratio.
fn measure(box_ref: &NodeRef) -> Option<Room> {
    let el = box_ref.cast::<web_sys::Element>()?;
    let width = el.client_width() as f64;
    if width <= 0.0 {
        return None;
    }
    let in_player = |class: &str| el.closest(&format!(".player.{class}")).ok().flatten().is_some();
    let full = in_player("full-screen");
    let height = if full {
        Some((el.client_height() as f64).max(MIN_ROOM_PX))
    } else if in_player("projector") {
        let inner = gloo::utils::window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(800.0);
        let pane = el.parent_element();
        let height_of = |selector: &str| {
            let found = pane.as_ref().and_then(|p| p.query_selector(selector).ok().flatten());
            found.map_or(0.0, |e| e.get_bounding_client_rect().height())
        };
        Some(projector_room(inner, height_of(".player-stats") + height_of(".subtitle")))
    } else {
        None
    };
    Some(Room { width, height, dpr: browser::device_pixel_ratio(), full })
}

/// The least height a canvas is given, in CSS pixels, however small the window.
const MIN_ROOM_PX: f64 = 160.0;

/// The height left for the canvas in projector mode: the window's (`inner`, CSS pixels)
/// less what the pane shows with it (`beside`: its line of figures and its subtitle) and a
/// margin, and never under [`MIN_ROOM_PX`].
pub fn projector_room(inner: f64, beside: f64) -> f64 {
    (inner - beside - 24.0).max(MIN_ROOM_PX)
}
