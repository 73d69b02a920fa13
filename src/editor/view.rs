//! The topology editor's component: the cluster drawn in SVG from [`super::layout`], a
//! toolbar, the list of problems and a side panel with the selection's properties
//! ([`super::properties`]).
//!
//! The view is dumb: everything it shows comes from the [`Editor`] in the page's state,
//! and everything users do becomes an [`EditAction`]. Only two things live here, because
//! they are how the drawing is looked at rather than what it is: the pan and zoom, and a
//! drag in progress (it becomes one `Move` action when the pointer is released, so undo
//! takes back a whole drag).
//!
//! One pointer handler on the `<svg>` finds what was hit from the `data-node`,
//! `data-gpu` and `data-link` attributes, so a cluster with thousands of GPUs does not
//! need thousands of closures.

use super::import::TopologyImport;
use super::layout::{layout_with_drag, BoxKind, Drawing, GPU_SIZE, MARGIN};
use super::properties::{ProblemList, PropertiesPanel};
use super::{Direction, EditAction, Editor, Element};
use crate::Shared;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The drawing's height on the page before it is fitted, in CSS pixels.
const VIEW_H: f64 = 380.0;
/// Fit makes the drawing's height follow the cluster's shape, between these.
const MIN_VIEW_H: f64 = 180.0;
const MAX_VIEW_H: f64 = 560.0;
/// Room left around a fitted cluster, in CSS pixels.
const FIT_PAD: f64 = 10.0;
/// Fit does not enlarge a small cluster beyond this.
const MAX_FIT_ZOOM: f64 = 2.0;
const MIN_ZOOM: f64 = 0.02;
const MAX_ZOOM: f64 = 4.0;
/// Pointer travel, in pixels, below which a press is a click rather than a drag.
const CLICK_SLOP: f64 = 4.0;
/// How far Shift+arrow moves the selected node.
const NUDGE: f64 = 10.0;

/// Pan and zoom: drawing coordinates to screen pixels are `p * k + (tx, ty)`; `h` is the
/// drawing's height on the page.
#[derive(Clone, Copy, Debug, PartialEq)]
struct View {
    k: f64,
    tx: f64,
    ty: f64,
    h: f64,
}

impl Default for View {
    fn default() -> Self {
        View { k: 1.0, tx: 0.0, ty: 0.0, h: VIEW_H }
    }
}

impl View {
    /// The whole cluster in view with a small margin: as large as the width allows (up to
    /// [`MAX_FIT_ZOOM`]), and the drawing only as tall as the cluster then is, so that no
    /// server is cut off and no wide band stays empty.
    fn fit(d: &Drawing, width: f64) -> View {
        let x0 = d.nodes.iter().map(|b| b.x).fold(MARGIN, f64::min);
        let y0 = d.nodes.iter().map(|b| b.y).fold(MARGIN, f64::min);
        let (w, h) = ((d.width - MARGIN - x0).max(1.0), (d.height - MARGIN - y0).max(1.0));
        let k = ((width - 2.0 * FIT_PAD) / w).min((MAX_VIEW_H - 2.0 * FIT_PAD) / h).min(MAX_FIT_ZOOM);
        let k = k.max(MIN_ZOOM);
        let view_h = (h * k + 2.0 * FIT_PAD).clamp(MIN_VIEW_H, MAX_VIEW_H);
        View { k, tx: (width - w * k) / 2.0 - x0 * k, ty: (view_h - h * k) / 2.0 - y0 * k, h: view_h }
    }

    /// Zooms by `factor` keeping the point (x, y) of the screen where it is.
    fn zoom(self, factor: f64, x: f64, y: f64) -> View {
        let k = (self.k * factor).clamp(MIN_ZOOM, MAX_ZOOM);
        let f = k / self.k;
        View { k, tx: x - (x - self.tx) * f, ty: y - (y - self.ty) * f, h: self.h }
    }
}

/// A press on the drawing, until it is released.
#[derive(Clone, Debug, PartialEq)]
enum Press {
    Pan {
        x0: f64,
        y0: f64,
        view: View,
        moved: bool,
    },
    /// Shift and a press on the background: a box that selects what it touches.
    Box {
        x0: f64,
        y0: f64,
        x: f64,
        y: f64,
    },
    Node {
        target: Option<Element>,
        node: String,
        x0: f64,
        y0: f64,
        dx: f64,
        dy: f64,
        moved: bool,
        shift: bool,
    },
    Other {
        target: Option<Element>,
        x0: f64,
        y0: f64,
    },
}

#[derive(Properties, PartialEq)]
pub struct TopologyEditorProps {
    pub editor: Shared<Editor>,
    /// Where edits go (the page's reducer).
    pub edit: Callback<EditAction>,
}

/// What a DOM element of the drawing stands for.
fn element_of(target: Option<web_sys::EventTarget>) -> Option<Element> {
    let el: web_sys::Element = target?.dyn_into().ok()?;
    let hit = el.closest("[data-node],[data-gpu],[data-link]").ok()??;
    if let (Some(server), Some(index)) = (hit.get_attribute("data-server"), hit.get_attribute("data-index")) {
        return Some(Element::Gpu(server, index.parse().ok()?));
    }
    if let Some(node) = hit.get_attribute("data-node") {
        return Some(Element::Node(node));
    }
    hit.get_attribute("data-link")?.parse().ok().map(Element::Link)
}

/// The pointer's position in the `<svg>`, in screen pixels.
fn local(svg: &NodeRef, e: &MouseEvent) -> (f64, f64) {
    match svg.cast::<web_sys::Element>() {
        Some(el) => {
            let r = el.get_bounding_client_rect();
            (e.client_x() as f64 - r.left(), e.client_y() as f64 - r.top())
        }
        None => (e.offset_x() as f64, e.offset_y() as f64),
    }
}

/// The editor: toolbar, drawing, problems and properties.
#[component]
pub fn TopologyEditor(props: &TopologyEditorProps) -> Html {
    let ed = props.editor.clone();
    let edit = props.edit.clone();
    let view = use_state(View::default);
    let press = use_mut_ref(|| None::<Press>);
    // The node being dragged and by how much (drawing units), for the live drawing.
    let drag = use_state(|| None::<(String, f64, f64)>);
    let svg_ref = use_node_ref();
    // The selection box being drawn, in screen pixels: x, y, width, height.
    let rubber = use_state(|| None::<(f64, f64, f64, f64)>);
    let last_hit = use_mut_ref(|| None::<Element>);

    let drawing: Shared<Drawing> = {
        let drag = (*drag).clone();
        let memo = use_memo((ed.clone(), drag), |(ed, drag)| {
            Shared::new(layout_with_drag(ed, drag.as_ref().map(|(n, dx, dy)| (n.as_str(), *dx, *dy))))
        });
        (*memo).clone()
    };

    // Fit the drawing to the viewport for a new cluster (and on the first render), not
    // when a rack unfolds: then the view stays where users were looking.
    {
        let view = view.clone();
        let svg_ref = svg_ref.clone();
        let spec = &ed.doc.spec;
        let shape = spec.switches.len() + spec.servers.len();
        let d = drawing.clone();
        use_effect_with(shape, move |_| {
            if let Some(el) = svg_ref.cast::<web_sys::Element>() {
                let width = el.client_width() as f64;
                if width > 0.0 {
                    let fitted = View::fit(&d, width);
                    if fitted != *view {
                        view.set(fitted);
                    }
                }
            }
        });
    }

    let viewport_width =
        move |svg: &NodeRef| svg.cast::<web_sys::Element>().map(|e| e.client_width() as f64).unwrap_or(600.0);

    // Keep the selection in view: keyboard users walk the tree with the arrows, and the
    // drawing pans to follow them (on big clusters the selection is often off screen).
    {
        let (view, svg_ref, d) = (view.clone(), svg_ref.clone(), drawing.clone());
        use_effect_with(ed.selection.clone(), move |selection| {
            let Some(sel) = selection else { return };
            let point = match sel {
                Element::Node(id) => d.nodes.iter().find(|b| b.id == *id).map(|b| (b.x + b.w / 2.0, b.y + b.h / 2.0)),
                Element::Gpu(server, k) => {
                    d.gpus.iter().find(|g| g.server == *server && g.index == *k).map(|g| (g.x, g.y))
                }
                Element::Link(i) => {
                    d.links.iter().find(|l| l.index == *i).map(|l| ((l.x1 + l.x2) / 2.0, (l.y1 + l.y2) / 2.0))
                }
            };
            let Some((x, y)) = point else { return };
            let width = viewport_width(&svg_ref);
            let v = *view;
            let (sx, sy) = (x * v.k + v.tx, y * v.k + v.ty);
            let margin = 24.0;
            if sx < margin || sx > width - margin || sy < margin || sy > v.h - margin {
                view.set(View { tx: width / 2.0 - x * v.k, ty: v.h / 2.0 - y * v.k, ..v });
            }
        });
    }

    let on_pointer_down = {
        let (press, view, svg_ref, last_hit) = (press.clone(), view.clone(), svg_ref.clone(), last_hit.clone());
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            let (x, y) = local(&svg_ref, &e);
            let target = element_of(e.target());
            *last_hit.borrow_mut() = target.clone();
            let node = match &target {
                Some(Element::Node(id)) | Some(Element::Gpu(id, _)) => Some(id.clone()),
                _ => None,
            };
            let shift = e.shift_key();
            *press.borrow_mut() = Some(match (node, &target) {
                (Some(node), _) => Press::Node { target, node, x0: x, y0: y, dx: 0.0, dy: 0.0, moved: false, shift },
                (None, None) if shift => Press::Box { x0: x, y0: y, x, y },
                (None, None) => Press::Pan { x0: x, y0: y, view: *view, moved: false },
                (None, Some(_)) => Press::Other { target, x0: x, y0: y },
            });
            if let Some(el) = svg_ref.cast::<web_sys::Element>() {
                let _ = el.set_pointer_capture(e.pointer_id());
            }
        })
    };
    let on_pointer_move = {
        let (press, view, svg_ref, drag, rubber) =
            (press.clone(), view.clone(), svg_ref.clone(), drag.clone(), rubber.clone());
        Callback::from(move |e: PointerEvent| {
            let mut p = press.borrow_mut();
            let Some(state) = p.as_mut() else { return };
            let (x, y) = local(&svg_ref, &e);
            match state {
                Press::Box { x0, y0, x: bx, y: by } => {
                    (*bx, *by) = (x, y);
                    rubber.set(Some((x0.min(x), y0.min(y), (x - *x0).abs(), (y - *y0).abs())));
                }
                Press::Pan { x0, y0, view: v0, moved } => {
                    if *moved || (x - *x0).abs() > CLICK_SLOP || (y - *y0).abs() > CLICK_SLOP {
                        *moved = true;
                        view.set(View { tx: v0.tx + x - *x0, ty: v0.ty + y - *y0, ..*v0 });
                    }
                }
                Press::Node { node, x0, y0, dx, dy, moved, .. } => {
                    if !*moved && ((x - *x0).abs() > CLICK_SLOP || (y - *y0).abs() > CLICK_SLOP) {
                        *moved = true;
                    }
                    if *moved {
                        *dx = (x - *x0) / view.k;
                        *dy = (y - *y0) / view.k;
                        drag.set(Some((node.clone(), *dx, *dy)));
                    }
                }
                Press::Other { .. } => {}
            }
        })
    };
    let on_pointer_up = {
        let (press, drag, edit, ed, view, rubber, d) =
            (press.clone(), drag.clone(), edit.clone(), ed.clone(), view.clone(), rubber.clone(), drawing.clone());
        Callback::from(move |_e: PointerEvent| {
            let Some(state) = press.borrow_mut().take() else { return };
            let click = |target: Option<Element>| match (&ed.linking_from, &target) {
                (Some(_), Some(Element::Node(id))) | (Some(_), Some(Element::Gpu(id, _))) => {
                    edit.emit(EditAction::LinkTo(id.clone()))
                }
                _ => edit.emit(EditAction::Select(target)),
            };
            match state {
                Press::Node { node, dx, dy, moved: true, .. } => {
                    drag.set(None);
                    edit.emit(EditAction::Move { node, dx, dy });
                }
                Press::Node { node, shift: true, .. } => edit.emit(EditAction::ToggleSelect(node)),
                Press::Node { target, .. } | Press::Other { target, .. } => click(target),
                Press::Box { x0, y0, x, y } => {
                    rubber.set(None);
                    // The box in drawing units; every node box it touches is selected.
                    let v = *view;
                    let (ax, bx) = ((x0.min(x) - v.tx) / v.k, (x0.max(x) - v.tx) / v.k);
                    let (ay, by) = ((y0.min(y) - v.ty) / v.k, (y0.max(y) - v.ty) / v.k);
                    let hit: Vec<String> = d
                        .nodes
                        .iter()
                        .filter(|b| b.x <= bx && b.x + b.w >= ax && b.y <= by && b.y + b.h >= ay)
                        .map(|b| b.id.clone())
                        .collect();
                    edit.emit(EditAction::SelectNodes(hit));
                }
                // A press on the background that did not pan clears the selection.
                Press::Pan { moved: false, .. } if ed.selection.is_some() => edit.emit(EditAction::Select(None)),
                Press::Pan { .. } => {}
            }
        })
    };
    // The pointer is captured by the <svg> during a press, so a double click's own target
    // is the <svg>: use what the last press hit.
    let on_dblclick = {
        let (edit, last_hit) = (edit.clone(), last_hit.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(Element::Node(id)) = last_hit.borrow().clone() {
                edit.emit(EditAction::ToggleCollapse(id));
            }
        })
    };
    let on_wheel = {
        let (view, svg_ref) = (view.clone(), svg_ref.clone());
        Callback::from(move |e: WheelEvent| {
            e.prevent_default();
            let (x, y) = local(&svg_ref, &e);
            let factor = (-e.delta_y() * 0.0015).exp();
            view.set(view.zoom(factor, x, y));
        })
    };
    let zoom_by = |factor: f64| {
        let (view, svg_ref) = (view.clone(), svg_ref.clone());
        Callback::from(move |_: MouseEvent| {
            let w = viewport_width(&svg_ref);
            view.set(view.zoom(factor, w / 2.0, view.h / 2.0));
        })
    };
    let fit = {
        let (view, svg_ref, d) = (view.clone(), svg_ref.clone(), drawing.clone());
        Callback::from(move |_: MouseEvent| view.set(View::fit(&d, viewport_width(&svg_ref))))
    };

    // Keys, while the focus is in the editor but not in one of its fields.
    let on_key = {
        let (edit, ed, view, svg_ref, d) = (edit.clone(), ed.clone(), view.clone(), svg_ref.clone(), drawing.clone());
        Callback::from(move |e: KeyboardEvent| {
            let in_field = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
            // A focused button answers Enter and Space itself.
            let on_button = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| el.tag_name() == "BUTTON");
            if in_field || e.alt_key() || (on_button && matches!(e.key().as_str(), "Enter" | " ")) {
                return;
            }
            let ctrl = e.ctrl_key() || e.meta_key();
            let selected_node = match &ed.selection {
                Some(Element::Node(id)) => Some(id.clone()),
                _ => None,
            };
            let action = match (e.key().as_str(), ctrl, e.shift_key()) {
                ("z", true, false) | ("Z", true, false) => Some(EditAction::Undo),
                ("z", true, true) | ("Z", true, true) | ("y", true, _) | ("Y", true, _) => Some(EditAction::Redo),
                (_, true, _) => None,
                ("ArrowUp", _, false) => Some(EditAction::SelectMove(Direction::Up)),
                ("ArrowDown", _, false) => Some(EditAction::SelectMove(Direction::Down)),
                ("ArrowLeft", _, false) => Some(EditAction::SelectMove(Direction::Left)),
                ("ArrowRight", _, false) => Some(EditAction::SelectMove(Direction::Right)),
                (arrow @ ("ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight"), _, true) => {
                    selected_node.clone().map(|node| {
                        let (dx, dy) = match arrow {
                            "ArrowUp" => (0.0, -NUDGE),
                            "ArrowDown" => (0.0, NUDGE),
                            "ArrowLeft" => (-NUDGE, 0.0),
                            _ => (NUDGE, 0.0),
                        };
                        EditAction::Move { node, dx, dy }
                    })
                }
                ("a", _, _) => Some(EditAction::AddRack),
                ("s", _, _) => Some(EditAction::AddServer),
                ("g", _, _) => Some(EditAction::AddGpu),
                ("w", _, _) => Some(EditAction::AddSwitch),
                ("l", _, _) | ("Enter", _, _) if ed.linking_from.is_some() => {
                    selected_node.clone().map(EditAction::LinkTo)
                }
                ("l", _, _) => Some(EditAction::StartLink),
                ("Delete" | "Backspace", _, _) => Some(EditAction::Delete),
                ("Escape", _, _) if ed.linking_from.is_some() => Some(EditAction::CancelLink),
                ("Escape", _, _) => Some(EditAction::Select(None)),
                ("c" | "Enter", _, false) => selected_node.clone().map(EditAction::ToggleCollapse),
                ("C", _, true) => Some(EditAction::CollapseAll(true)),
                ("E", _, true) => Some(EditAction::CollapseAll(false)),
                ("+" | "=", _, _) => {
                    let w = viewport_width(&svg_ref);
                    view.set(view.zoom(1.25, w / 2.0, view.h / 2.0));
                    e.prevent_default();
                    None
                }
                ("-" | "_", _, _) => {
                    let w = viewport_width(&svg_ref);
                    view.set(view.zoom(0.8, w / 2.0, view.h / 2.0));
                    e.prevent_default();
                    None
                }
                ("0", _, _) => {
                    view.set(View::fit(&d, viewport_width(&svg_ref)));
                    e.prevent_default();
                    // The page's own "0" does nothing, so there is nothing to stop.
                    None
                }
                _ => None,
            };
            if let Some(a) = action {
                e.prevent_default();
                e.stop_propagation();
                edit.emit(a);
            }
        })
    };

    let button =
        |label: &'static str, key: &'static str, testid: Option<&'static str>, action: EditAction, enabled: bool| {
            let edit = edit.clone();
            html! {
                <button type="button" data-testid={testid} disabled={!enabled} aria-keyshortcuts={key}
                        title={format!("{label} ({key})")}
                        onclick={Callback::from(move |_| edit.emit(action.clone()))}>{ label }</button>
            }
        };
    let has_selection = ed.selection.is_some();
    let v = *view;
    let gpu_total = ed.gpu_count();
    let linking = ed.linking_from.clone();
    html! {
        <div class="editor" id="topology-editor" tabindex="0" onkeydown={on_key}
             aria-label="Topology editor. Arrow keys move the selection; A add rack, S add server, G add GPU, W add switch, L link, Delete, Ctrl+Z undo, Ctrl+Y redo.">
            <div class="editor-toolbar" role="toolbar" aria-label="Edit the cluster">
                { button("Add rack", "a", Some("add-rack-button"), EditAction::AddRack, true) }
                { button("Add server", "s", Some("add-server-button"), EditAction::AddServer, true) }
                { button("Add GPU", "g", Some("add-gpu-button"), EditAction::AddGpu, has_selection) }
                { button("Add switch", "w", Some("add-switch-button"), EditAction::AddSwitch, true) }
                if linking.is_some() {
                    { button("Cancel link", "Escape", Some("link-button"), EditAction::CancelLink, true) }
                } else {
                    { button("Link…", "l", Some("link-button"), EditAction::StartLink, matches!(ed.selection, Some(Element::Node(_)))) }
                }
                { button("Delete", "Delete", Some("delete-button"), EditAction::Delete, has_selection) }
                { button("Undo", "Control+Z", Some("undo-button"), EditAction::Undo, ed.can_undo()) }
                { button("Redo", "Control+Y", Some("redo-button"), EditAction::Redo, ed.can_redo()) }
                <span class="toolbar-gap"></span>
                { button("Collapse racks", "Shift+C", None, EditAction::CollapseAll(true), true) }
                { button("Expand all", "Shift+E", None, EditAction::CollapseAll(false), !ed.collapsed.is_empty()) }
                <button type="button" onclick={zoom_by(1.25)} aria-keyshortcuts="+" title="Zoom in (+)">{ "+" }</button>
                <button type="button" onclick={zoom_by(0.8)} aria-keyshortcuts="-" title="Zoom out (-)">{ "−" }</button>
                <button type="button" onclick={fit} aria-keyshortcuts="0" title="Fit the cluster in view (0)" data-testid="fit-button">{ "Fit" }</button>
            </div>
            <TopologyImport edit={edit.clone()} />
            <p class="editor-status" aria-live="polite">
                <strong data-testid="gpu-count">{ gpu_total.to_string() }</strong>{ " GPUs. " }
                if let Some(from) = &linking {
                    <span class="linking">{ format!("Linking from {from}: click the other end, or select it and press Enter (Esc cancels). ") }</span>
                }
                if let Some(m) = &ed.message {
                    <span class="editor-message" data-testid="editor-message">{ m.clone() }</span>
                }
            </p>
            <svg ref={svg_ref} class={classes!("editor-svg", linking.is_some().then_some("linking"))} width="100%" height={format!("{:.0}", v.h)}
                 data-testid="editor-svg"
                 role="img" aria-label={drawing.caption.clone()}
                 onpointerdown={on_pointer_down} onpointermove={on_pointer_move} onpointerup={on_pointer_up}
                 ondblclick={on_dblclick} onwheel={on_wheel}>
                <g transform={format!("translate({:.1} {:.1}) scale({:.4})", v.tx, v.ty, v.k)}>
                    <DrawingLayer drawing={drawing.clone()} />
                </g>
                if let Some((x, y, w, h)) = *rubber {
                    <rect class="rubber" x={f(x)} y={f(y)} width={f(w)} height={f(h)} />
                }
            </svg>
            <p class="hint">{ drawing.caption.clone() }{ " Drag nodes to move them, drag the background to pan, scroll to zoom, double-click a rack or server to fold it. Shift-click adds a node to the selection, Shift-drag selects with a box. Lines are thicker for faster links; an uplink narrower than the NICs below it is orange and shows its oversubscription." }</p>
            <ProblemList editor={ed.clone()} edit={edit.clone()} />
            <PropertiesPanel editor={ed.clone()} edit={edit.clone()} />
            <details class="keys">
                <summary>{ "Editor keys" }</summary>
                <dl>
                    <dt><kbd>{ "←" }</kbd><kbd>{ "↑" }</kbd><kbd>{ "→" }</kbd><kbd>{ "↓" }</kbd></dt><dd>{ "select: parent, first child, previous, next" }</dd>
                    <dt><kbd>{ "Shift" }</kbd>{ " + arrows" }</dt><dd>{ "move the selected node" }</dd>
                    <dt><kbd>{ "a" }</kbd>{ " / " }<kbd>{ "s" }</kbd>{ " / " }<kbd>{ "g" }</kbd>{ " / " }<kbd>{ "w" }</kbd></dt><dd>{ "add a rack / a server / a GPU / a switch" }</dd>
                    <dt><kbd>{ "l" }</kbd></dt><dd>{ "link the selected node to another: select it and press Enter" }</dd>
                    <dt><kbd>{ "Delete" }</kbd></dt><dd>{ "delete the selection (a rack goes with its servers)" }</dd>
                    <dt><kbd>{ "c" }</kbd>{ ", " }<kbd>{ "Enter" }</kbd>{ " / " }<kbd>{ "Shift+C" }</kbd>{ ", " }<kbd>{ "Shift+E" }</kbd></dt><dd>{ "fold or unfold the selection / collapse all racks, expand all" }</dd>
                    <dt><kbd>{ "Ctrl+Z" }</kbd>{ " / " }<kbd>{ "Ctrl+Y" }</kbd></dt><dd>{ "undo / redo" }</dd>
                    <dt><kbd>{ "+" }</kbd>{ " / " }<kbd>{ "-" }</kbd>{ " / " }<kbd>{ "0" }</kbd></dt><dd>{ "zoom in / out / fit" }</dd>
                    <dt><kbd>{ "Esc" }</kbd></dt><dd>{ "cancel a link, or clear the selection" }</dd>
                </dl>
            </details>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct DrawingProps {
    drawing: Shared<Drawing>,
}

/// The drawing itself, a component of its own so that panning (a new transform on the
/// group around it) does not re-render thousands of elements.
#[component]
fn DrawingLayer(props: &DrawingProps) -> Html {
    let d = &props.drawing;
    html! {
        <>
            { for d.links.iter().map(|l| {
                let class = classes!("link", format!("bw-{}", l.width_step), l.problem.is_some().then_some("invalid"), l.selected.then_some("selected"), l.off_tree.then_some("off-tree"), l.oversub.is_some().then_some("thin"));
                // Labels sit near the lower end, where neighbouring links are furthest apart.
                let (mx, my) = (l.x2 + (l.x1 - l.x2) * 0.7, l.y2 + (l.y1 - l.y2) * 0.7);
                html! {
                    <g class={class} data-link={l.index.to_string()} aria-invalid={l.problem.is_some().then_some("true")}
                       data-oversub={l.oversub.map(|r| format!("{r}"))}>
                        <title>{ match &l.problem { Some(p) => format!("{} — {p}", l.title), None => l.title.clone() } }</title>
                        <line class="hit" x1={f(l.x1)} y1={f(l.y1)} x2={f(l.x2)} y2={f(l.y2)} />
                        <line class="wire" x1={f(l.x1)} y1={f(l.y1)} x2={f(l.x2)} y2={f(l.y2)} />
                        <text class="link-label" x={f(mx + 3.0)} y={f(my)}>{ l.label.clone() }</text>
                    </g>
                }
            }) }
            { for d.nodes.iter().map(|b| {
                let kind = match b.kind {
                    BoxKind::Switch => "switch",
                    BoxKind::Server => "server",
                    BoxKind::CollapsedSwitch => "collapsed",
                    BoxKind::CollapsedServer => "server collapsed-server",
                };
                let class = classes!(kind, b.problem.is_some().then_some("invalid"), b.selected.then_some("selected"));
                html! {
                    <g class={class} data-node={b.id.clone()} aria-invalid={b.problem.is_some().then_some("true")}>
                        <title>{ match &b.problem { Some(p) => format!("{} — {p}", b.title), None => b.title.clone() } }</title>
                        <rect x={f(b.x)} y={f(b.y)} width={f(b.w)} height={f(b.h)} rx="4" />
                        <text x={f(b.x + b.w / 2.0)} y={f(b.y + 14.0)} text-anchor="middle">{ clip(&b.label, 16) }</text>
                        if b.problem.is_some() {
                            <text class="flag" x={f(b.x + b.w - 2.0)} y={f(b.y + 2.0)} text-anchor="middle">{ "!" }</text>
                        }
                        if matches!(b.kind, BoxKind::CollapsedSwitch | BoxKind::CollapsedServer) {
                            <text class="fold" x={f(b.x + b.w / 2.0)} y={f(b.y + b.h - 5.0)} text-anchor="middle">{ "▸ folded" }</text>
                        }
                    </g>
                }
            }) }
            { for d.gpus.iter().map(|g| html! {
                <rect class={classes!("gpu", g.selected.then_some("selected"))} data-gpu={g.id.to_string()} data-server={g.server.clone()} data-index={g.index.to_string()}
                      x={f(g.x)} y={f(g.y)} width={f(GPU_SIZE)} height={f(GPU_SIZE)}>
                    <title>{ format!("GPU {} (server {}, GPU {})", g.id, g.server, g.index) }</title>
                </rect>
            }) }
        </>
    }
}

fn f(x: f64) -> String {
    format!("{x:.1}")
}

fn clip(text: &str, n: usize) -> String {
    let mut out: String = text.chars().take(n).collect();
    if out.chars().count() < text.chars().count() {
        out.pop();
        out.push('…');
    }
    out
}
