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
use super::keys::{command_for, KeyCommand, HELP};
use super::layout::{layout_with_drag, BoxKind, Drawing, GPU_SIZE};
use super::pointer::{centre_of, Pointer, PointerInput};
use super::properties::{ProblemList, PropertiesPanel};
use super::{EditAction, Editor, Element};
use crate::Shared;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

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

fn viewport_width(svg: &NodeRef) -> f64 {
    svg.cast::<web_sys::Element>().map(|e| e.client_width() as f64).unwrap_or(600.0)
}

/// Whether a key event belongs to a field or a button of the editor rather than to it.
fn key_is_for_a_control(e: &KeyboardEvent) -> bool {
    let tag = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|el| el.tag_name());
    let in_field = matches!(tag.as_deref(), Some("INPUT" | "TEXTAREA" | "SELECT"));
    // A focused button answers Enter and Space itself.
    let on_button = tag.as_deref() == Some("BUTTON") && matches!(e.key().as_str(), "Enter" | " ");
    in_field || on_button || e.alt_key()
}

/// The editor: toolbar, drawing, problems and properties. The pointer's state lives in one
/// [`Pointer`] changed only by its `apply`; the component turns browser events into
/// [`PointerInput`]s, redraws when the view or a gesture's drawing changed, and sends the
/// edits `apply` returns to the page.
#[component]
pub fn TopologyEditor(props: &TopologyEditorProps) -> Html {
    let ed = props.editor.clone();
    let edit = props.edit.clone();
    let pointer = use_mut_ref(Pointer::default);
    let redraw = use_force_update();
    let svg_ref = use_node_ref();

    let drag = pointer.borrow().drag.clone();
    let drawing: Shared<Drawing> = (*use_memo((ed.clone(), drag), |(ed, drag)| {
        Shared::new(layout_with_drag(ed, drag.as_ref().map(|(n, dx, dy)| (n.as_str(), *dx, *dy))))
    }))
    .clone();

    // One way in for every input: apply it, redraw if what is drawn changed, send its edit.
    let send: Rc<dyn Fn(PointerInput)> = {
        let (pointer, ed, edit, d) = (pointer.clone(), ed.clone(), edit.clone(), drawing.clone());
        Rc::new(move |input| {
            let (action, changed) = {
                let mut p = pointer.borrow_mut();
                let before = (p.view, p.drag.clone(), p.rubber);
                let action = p.apply(input, &ed, &d);
                (action, before != (p.view, p.drag.clone(), p.rubber))
            };
            if changed {
                redraw.force_update();
            }
            if let Some(a) = action {
                edit.emit(a);
            }
        })
    };

    // Fit the drawing to the viewport for a new cluster (and on the first render), not
    // when a rack unfolds: then the view stays where users were looking. A cluster is new
    // when its name or its number of switches or servers changes: an imported file is
    // named after the file, so it is fitted even when it has as many nodes as the last.
    {
        let (send, svg_ref) = (send.clone(), svg_ref.clone());
        let shape = (ed.doc.spec.name.clone(), ed.doc.spec.switches.len(), ed.doc.spec.servers.len());
        use_effect_with(shape, move |_| {
            let width = svg_ref.cast::<web_sys::Element>().map(|el| el.client_width() as f64).unwrap_or(0.0);
            if width > 0.0 {
                send(PointerInput::Fit { width });
            }
        });
    }
    // Keep the selection in view: keyboard users walk the tree with the arrows, and the
    // drawing pans to follow them (on big clusters the selection is often off screen).
    {
        let (send, svg_ref, d) = (send.clone(), svg_ref.clone(), drawing.clone());
        use_effect_with(ed.selection.clone(), move |selection| {
            if let Some((x, y)) = selection.as_ref().and_then(|sel| centre_of(&d, sel)) {
                send(PointerInput::Follow { x, y, width: viewport_width(&svg_ref) });
            }
        });
    }

    let on = SvgHandlers::new(&send, &svg_ref);
    // Zoom around the viewport's middle, or fit: the toolbar's buttons and keys.
    let on_zoom = {
        let (send, svg_ref, pointer) = (send.clone(), svg_ref.clone(), pointer.clone());
        Callback::from(move |factor: Option<f64>| {
            let width = viewport_width(&svg_ref);
            let h = pointer.borrow().view.h;
            send(match factor {
                Some(factor) => PointerInput::Zoom { factor, x: width / 2.0, y: h / 2.0 },
                None => PointerInput::Fit { width },
            });
        })
    };
    let on_key = {
        let (edit, ed, on_zoom) = (edit.clone(), ed.clone(), on_zoom.clone());
        Callback::from(move |e: KeyboardEvent| {
            if key_is_for_a_control(&e) {
                return;
            }
            let Some(command) = command_for(&e.key(), e.ctrl_key() || e.meta_key(), e.shift_key(), &ed) else { return };
            e.prevent_default();
            match command {
                KeyCommand::Edit(a) => {
                    e.stop_propagation();
                    edit.emit(a);
                }
                KeyCommand::Zoom(factor) => on_zoom.emit(Some(factor)),
                KeyCommand::Fit => on_zoom.emit(None),
            }
        })
    };

    let (v, rubber) = {
        let p = pointer.borrow();
        (p.view, p.rubber)
    };
    let linking = ed.linking_from.clone();
    html! {
        <div class="editor" id="topology-editor" tabindex="0" onkeydown={on_key}
             aria-label="Topology editor. Arrow keys move the selection; A add rack, S add server, G add GPU, W add switch, L link, Delete, Ctrl+Z undo, Ctrl+Y redo.">
            <EditorToolbar editor={ed.clone()} edit={edit.clone()} zoom={on_zoom} />
            <TopologyImport edit={edit.clone()} />
            { status(&ed) }
            <svg ref={svg_ref} class={classes!("editor-svg", linking.is_some().then_some("linking"))} width="100%" height={format!("{:.0}", v.h)}
                 data-testid="editor-svg"
                 role="img" aria-label={drawing.caption.clone()}
                 onpointerdown={on.down} onpointermove={on.moved} onpointerup={on.up}
                 ondblclick={on.double} onwheel={on.wheel}>
                <g transform={format!("translate({:.1} {:.1}) scale({:.4})", v.tx, v.ty, v.k)}>
                    <DrawingLayer drawing={drawing.clone()} />
                </g>
                if let Some((x, y, w, h)) = rubber {
                    <rect class="rubber" x={f(x)} y={f(y)} width={f(w)} height={f(h)} />
                }
            </svg>
            <p class="hint">{ drawing.caption.clone() }{ " " }{ HINT }</p>
            <ProblemList editor={ed.clone()} edit={edit.clone()} />
            <PropertiesPanel editor={ed.clone()} edit={edit} />
            { keys_help() }
        </div>
    }
}

/// What the drawing's caption adds: how to work it.
const HINT: &str = "Drag nodes to move them, drag the background to pan, scroll to zoom, double-click a rack or server to fold it. Shift-click adds a node to the selection, Shift-drag selects with a box. Lines are thicker for faster links; an uplink narrower than the NICs below it is orange and shows its oversubscription.";

/// The pointer handlers of the `<svg>`: each turns its event into a [`PointerInput`].
struct SvgHandlers {
    down: Callback<PointerEvent>,
    moved: Callback<PointerEvent>,
    up: Callback<PointerEvent>,
    double: Callback<MouseEvent>,
    wheel: Callback<WheelEvent>,
}

impl SvgHandlers {
    fn new(send: &Rc<dyn Fn(PointerInput)>, svg_ref: &NodeRef) -> SvgHandlers {
        let down = {
            let (send, svg_ref) = (send.clone(), svg_ref.clone());
            Callback::from(move |e: PointerEvent| {
                if e.button() != 0 {
                    return;
                }
                let (x, y) = local(&svg_ref, &e);
                send(PointerInput::Down { x, y, target: element_of(e.target()), shift: e.shift_key() });
                if let Some(el) = svg_ref.cast::<web_sys::Element>() {
                    let _ = el.set_pointer_capture(e.pointer_id());
                }
            })
        };
        let moved = {
            let (send, svg_ref) = (send.clone(), svg_ref.clone());
            Callback::from(move |e: PointerEvent| {
                let (x, y) = local(&svg_ref, &e);
                send(PointerInput::Move { x, y });
            })
        };
        let up = {
            let send = send.clone();
            Callback::from(move |_: PointerEvent| send(PointerInput::Up))
        };
        let double = {
            let send = send.clone();
            Callback::from(move |_: MouseEvent| send(PointerInput::DoubleClick))
        };
        let wheel = {
            let (send, svg_ref) = (send.clone(), svg_ref.clone());
            Callback::from(move |e: WheelEvent| {
                e.prevent_default();
                let (x, y) = local(&svg_ref, &e);
                send(PointerInput::Zoom { factor: (-e.delta_y() * 0.0015).exp(), x, y });
            })
        };
        SvgHandlers { down, moved, up, double, wheel }
    }
}

/// The line above the drawing: the GPU count, a link being made, the last message.
fn status(ed: &Editor) -> Html {
    let linking = &ed.linking_from;
    html! {
    <p class="editor-status" aria-live="polite">
        <strong data-testid="gpu-count">{ ed.gpu_count().to_string() }</strong>{ " GPUs. " }
        if let Some(from) = &linking {
            <span class="linking">{ format!("Linking from {from}: click the other end, or select it and press Enter (Esc cancels). ") }</span>
        }
        if let Some(m) = &ed.message {
            <span class={classes!("editor-message", ed.message_is_error.then_some("error"))} data-testid="editor-message"
                  role={if ed.message_is_error { "alert" } else { "status" }}>{ m.clone() }</span>
        }
    </p>
    }
}

/// The keys, listed from [`HELP`].
fn keys_help() -> Html {
    html! {
    <details class="keys">
        <summary>{ "Editor keys" }</summary>
        <dl>
            { for HELP.iter().map(|(keys, what)| html! {
                <>
                    <dt>{ for keys.iter().enumerate().map(|(i, k)| html! {
                        <>{ if i > 0 { " / " } else { "" } }<kbd>{ *k }</kbd></>
                    }) }</dt>
                    <dd>{ *what }</dd>
                </>
            }) }
        </dl>
    </details>
    }
}

#[derive(Properties, PartialEq)]
struct ToolbarProps {
    editor: Shared<Editor>,
    edit: Callback<EditAction>,
    /// Zoom by a factor around the viewport's middle, or fit (`None`).
    zoom: Callback<Option<f64>>,
}

/// The editor's buttons: each sends an edit, or zooms.
#[component]
fn EditorToolbar(props: &ToolbarProps) -> Html {
    let ed = &props.editor;
    let button = |label: &'static str, key: &'static str, testid: &'static str, action: EditAction, enabled: bool| {
        let edit = props.edit.clone();
        let testid = (!testid.is_empty()).then_some(testid);
        html! {
            <button type="button" data-testid={testid} disabled={!enabled} aria-keyshortcuts={key}
                    title={format!("{label} ({key})")}
                    onclick={Callback::from(move |_| edit.emit(action.clone()))}>{ label }</button>
        }
    };
    let zoom = |factor: Option<f64>| {
        let zoom = props.zoom.clone();
        Callback::from(move |_: MouseEvent| zoom.emit(factor))
    };
    let has_selection = ed.selection.is_some();
    let node_selected = matches!(ed.selection, Some(Element::Node(_)));
    html! {
        <div class="editor-toolbar" role="toolbar" aria-label="Edit the cluster">
            { button("Add rack", "a", "add-rack-button", EditAction::AddRack, true) }
            { button("Add server", "s", "add-server-button", EditAction::AddServer, true) }
            { button("Add GPU", "g", "add-gpu-button", EditAction::AddGpu, has_selection) }
            { button("Add switch", "w", "add-switch-button", EditAction::AddSwitch, true) }
            if ed.linking_from.is_some() {
                { button("Cancel link", "Escape", "link-button", EditAction::CancelLink, true) }
            } else {
                { button("Link…", "l", "link-button", EditAction::StartLink, node_selected) }
            }
            { button("Delete", "Delete", "delete-button", EditAction::Delete, has_selection) }
            { button("Undo", "Control+Z", "undo-button", EditAction::Undo, ed.can_undo()) }
            { button("Redo", "Control+Y", "redo-button", EditAction::Redo, ed.can_redo()) }
            <span class="toolbar-gap"></span>
            { button("Collapse racks", "Shift+C", "", EditAction::CollapseAll(true), true) }
            { button("Expand all", "Shift+E", "", EditAction::CollapseAll(false), !ed.collapsed.is_empty()) }
            <button type="button" onclick={zoom(Some(1.25))} aria-keyshortcuts="+" title="Zoom in (+)">{ "+" }</button>
            <button type="button" onclick={zoom(Some(0.8))} aria-keyshortcuts="-" title="Zoom out (-)">{ "−" }</button>
            <button type="button" onclick={zoom(None)} aria-keyshortcuts="0" title="Fit the cluster in view (0)" data-testid="fit-button">{ "Fit" }</button>
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
                        { rail_bars(b) }
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

/// A rail group's rails: one small bar each, side by side along the bottom of its box and
/// in GPU order (GPU i of every server below is on rail i), so that the group reads as
/// rails rather than one leaf switch.
fn rail_bars(b: &super::layout::NodeBox) -> Html {
    if b.rails == 0 {
        return html! {};
    }
    let (left, top) = (b.x + 4.0, b.y + 18.0);
    let step = (b.w - 8.0) / b.rails as f64;
    html! {
        <g class="rails" data-rails={b.rails.to_string()}>
            <title>{ format!("{} rails: GPU i of every server below is on rail i", b.rails) }</title>
            { for (0..b.rails).map(|i| html! {
                <rect class="rail" x={f(left + i as f64 * step)} y={f(top)} width={f((step - 1.5).max(0.5))} height={f((b.h - 21.0).max(2.0))} />
            }) }
        </g>
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
