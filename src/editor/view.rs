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
//! The drawing itself is [`super::drawing`]. One pointer handler on the `<svg>` finds what was hit from the `data-node`,
//! `data-gpu` and `data-link` attributes, so a cluster with thousands of GPUs does not
//! need thousands of closures.

use super::drawing::{f, DrawingLayer};
use super::import::TopologyImport;
use super::keys::{command_for, key_belongs_to_control, KeyCommand, HELP};
use super::layout::{layout_with_drag, Drawing};
use super::pointer::{centre_of, Pointer, PointerInput};
use super::properties::{ProblemList, PropertiesPanel};
use super::{EditAction, Editor, Element};
use crate::Shared;
use std::cell::RefCell;
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
    key_belongs_to_control(tag.as_deref(), &e.key(), e.alt_key())
}

/// The pointer's state, the drawing as the pointer sees it (a node being dragged drawn
/// where it is dragged), and the one way in for every input.
struct PointerSession {
    pointer: Rc<RefCell<Pointer>>,
    drawing: Shared<Drawing>,
    send: Rc<dyn Fn(PointerInput)>,
}

/// The editor's pointer: every input is applied to one [`Pointer`], the drawing is redrawn
/// when what is drawn changed, and the edit the input makes is sent to the page.
#[hook]
fn use_pointer(ed: &Shared<Editor>, edit: &Callback<EditAction>) -> PointerSession {
    let pointer = use_mut_ref(Pointer::default);
    let redraw = use_force_update();
    let drag = pointer.borrow().drag.clone();
    let drawing: Shared<Drawing> = (*use_memo((ed.clone(), drag), |(ed, drag)| {
        Shared::new(layout_with_drag(ed, drag.as_ref().map(|(n, dx, dy)| (n.as_str(), *dx, *dy))))
    }))
    .clone();
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
    PointerSession { pointer, drawing, send }
}

/// Fits the drawing to the viewport for a new cluster (and on the first render), not
/// when a rack unfolds: then the view stays where users were looking. A cluster is new
/// when its name or its number of switches or servers changes: an imported file is
/// named after the file, so it is fitted even when it has as many nodes as the last.
/// And keeps the selection in view: keyboard users walk the tree with the arrows, and the
/// drawing pans to follow them (on big clusters the selection is often off screen).
#[hook]
fn use_keep_in_view(ed: &Editor, session: &PointerSession, svg_ref: &NodeRef) {
    {
        let (send, svg_ref) = (session.send.clone(), svg_ref.clone());
        let shape = (ed.doc.spec.name.clone(), ed.doc.spec.switches.len(), ed.doc.spec.servers.len());
        use_effect_with(shape, move |_| {
            let width = svg_ref.cast::<web_sys::Element>().map(|el| el.client_width() as f64).unwrap_or(0.0);
            if width > 0.0 {
                send(PointerInput::Fit { width });
            }
        });
    }
    let (send, svg_ref, d) = (session.send.clone(), svg_ref.clone(), session.drawing.clone());
    use_effect_with(ed.selection.clone(), move |selection| {
        if let Some((x, y)) = selection.as_ref().and_then(|sel| centre_of(&d, sel)) {
            send(PointerInput::Follow { x, y, width: viewport_width(&svg_ref) });
        }
    });
}

/// Zoom around the viewport's middle by a factor, or fit (`None`): the toolbar's buttons
/// and keys.
fn zoom_handler(session: &PointerSession, svg_ref: &NodeRef) -> Callback<Option<f64>> {
    let (send, svg_ref, pointer) = (session.send.clone(), svg_ref.clone(), session.pointer.clone());
    Callback::from(move |factor: Option<f64>| {
        let width = viewport_width(&svg_ref);
        let h = pointer.borrow().view.h;
        send(match factor {
            Some(factor) => PointerInput::Zoom { factor, x: width / 2.0, y: h / 2.0 },
            None => PointerInput::Fit { width },
        });
    })
}

/// The editor's keys ([`command_for`]): an edit goes to the page, a zoom to `zoom`. Keys
/// typed into a field, or that a focused button answers, are left to them.
fn key_handler(
    ed: &Shared<Editor>,
    edit: &Callback<EditAction>,
    zoom: &Callback<Option<f64>>,
) -> Callback<KeyboardEvent> {
    let (edit, ed, zoom) = (edit.clone(), ed.clone(), zoom.clone());
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
            KeyCommand::Zoom(factor) => zoom.emit(Some(factor)),
            KeyCommand::Fit => zoom.emit(None),
        }
    })
}

/// The editor: toolbar, drawing, problems and properties. The pointer's state lives in one
/// [`Pointer`] changed only by its `apply`; the component turns browser events into
/// [`PointerInput`]s, redraws when the view or a gesture's drawing changed, and sends the
/// edits `apply` returns to the page.
#[component]
pub fn TopologyEditor(props: &TopologyEditorProps) -> Html {
    let (ed, edit) = (&props.editor, &props.edit);
    let svg_ref = use_node_ref();
    let session = use_pointer(ed, edit);
    use_keep_in_view(ed, &session, &svg_ref);
    let on = SvgHandlers::new(&session.send, &svg_ref);
    let on_zoom = zoom_handler(&session, &svg_ref);
    let on_key = key_handler(ed, edit, &on_zoom);
    let (v, rubber) = {
        let p = session.pointer.borrow();
        (p.view, p.rubber)
    };
    let drawing = &session.drawing;
    html! {
        <div class="editor" id="topology-editor" tabindex="0" onkeydown={on_key}
             aria-label="Topology editor. Arrow keys move the selection; A add rack, S add server, G add GPU, W add switch, L link, Delete, Ctrl+Z undo, Ctrl+Y redo.">
            <EditorToolbar editor={ed.clone()} edit={edit.clone()} zoom={on_zoom} />
            <TopologyImport edit={edit.clone()} />
            { status(ed) }
            <svg ref={svg_ref} class={classes!("editor-svg", ed.linking_from.is_some().then_some("linking"))} width="100%" height={format!("{:.0}", v.h)}
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
            <PropertiesPanel editor={ed.clone()} edit={edit.clone()} />
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
