//! Gestures and keys on the editor, without a browser: every press, drag, box and key
//! becomes the edit (or the view change) it should, and nothing else.

use super::keys::{command_for, key_belongs_to_control, KeyCommand};
use super::layout::{layout_with_drag, Drawing};
use super::pointer::{centre_of, Pointer, PointerInput, View};
use super::*;
use proxima_core::topology::resolve_topology_arg;

fn editor() -> Editor {
    let t = resolve_topology_arg("teaching").unwrap();
    Editor::new(TopologyChoice::Preset("teaching".into()), Shared::new(t))
}

fn drawing(ed: &Editor) -> Drawing {
    layout_with_drag(ed, None)
}

fn node(id: &str) -> Option<Element> {
    Some(Element::Node(id.into()))
}

/// Applies inputs in order and returns the edits they made.
fn gesture(p: &mut Pointer, ed: &Editor, inputs: Vec<PointerInput>) -> Vec<EditAction> {
    let d = drawing(ed);
    inputs.into_iter().filter_map(|i| p.apply(i, ed, &d)).collect()
}

#[test]
fn a_press_without_travel_is_a_click_and_a_drag_is_one_move() {
    let ed = editor();
    let mut p = Pointer::default();
    let click = vec![
        PointerInput::Down { x: 50.0, y: 50.0, target: node("tor0"), shift: false },
        PointerInput::Move { x: 52.0, y: 51.0 },
        PointerInput::Up,
    ];
    assert_eq!(gesture(&mut p, &ed, click), vec![EditAction::Select(node("tor0"))]);
    assert_eq!(p.drag, None);

    // At zoom 2 a 40-pixel drag moves the node 20 drawing units; the drawing follows the
    // drag live, and the release makes a single edit.
    p.view = View { k: 2.0, ..View::default() };
    let d = drawing(&ed);
    assert_eq!(p.apply(PointerInput::Down { x: 10.0, y: 10.0, target: node("tor0"), shift: false }, &ed, &d), None);
    assert_eq!(p.apply(PointerInput::Move { x: 50.0, y: 30.0 }, &ed, &d), None);
    assert_eq!(p.drag, Some(("tor0".into(), 20.0, 10.0)));
    let up = p.apply(PointerInput::Up, &ed, &d);
    assert_eq!(up, Some(EditAction::Move { node: "tor0".into(), dx: 20.0, dy: 10.0 }));
    assert_eq!(p.drag, None);
    // A release with no press in progress does nothing.
    assert_eq!(p.apply(PointerInput::Up, &ed, &d), None);
}

#[test]
fn the_background_pans_and_a_still_press_there_clears_the_selection() {
    let ed = editor().apply(EditAction::Select(node("tor0")));
    let mut p = Pointer::default();
    let pan = vec![
        PointerInput::Down { x: 100.0, y: 100.0, target: None, shift: false },
        PointerInput::Move { x: 130.0, y: 90.0 },
        PointerInput::Up,
    ];
    assert_eq!(gesture(&mut p, &ed, pan), vec![]);
    assert_eq!((p.view.tx, p.view.ty), (30.0, -10.0));
    let still = vec![PointerInput::Down { x: 5.0, y: 5.0, target: None, shift: false }, PointerInput::Up];
    assert_eq!(gesture(&mut p, &ed, still), vec![EditAction::Select(None)]);
}

#[test]
fn shift_selects_by_box_or_adds_one_node() {
    let ed = editor();
    let d = drawing(&ed);
    let mut p = Pointer::default();
    // A box around the whole drawing selects every node box.
    let everything = vec![
        PointerInput::Down { x: -10.0, y: -10.0, target: None, shift: true },
        PointerInput::Move { x: d.width + 10.0, y: d.height + 10.0 },
    ];
    assert_eq!(gesture(&mut p, &ed, everything), vec![]);
    assert!(p.rubber.is_some(), "the box is drawn while it is dragged");
    let Some(EditAction::SelectNodes(ids)) = p.apply(PointerInput::Up, &ed, &d) else { panic!("a box selects") };
    assert_eq!(ids.len(), d.nodes.len());
    assert_eq!(p.rubber, None);
    let toggle = vec![PointerInput::Down { x: 1.0, y: 1.0, target: node("r0s0"), shift: true }, PointerInput::Up];
    assert_eq!(gesture(&mut p, &ed, toggle), vec![EditAction::ToggleSelect("r0s0".into())]);
}

#[test]
fn while_linking_a_click_on_a_node_or_its_gpu_links_to_it() {
    let ed = editor().apply(EditAction::Select(node("r0s0"))).apply(EditAction::StartLink);
    assert!(ed.linking_from.is_some());
    let mut p = Pointer::default();
    let on_gpu = Some(Element::Gpu("r1s0".into(), 1));
    let click = vec![PointerInput::Down { x: 1.0, y: 1.0, target: on_gpu, shift: false }, PointerInput::Up];
    assert_eq!(gesture(&mut p, &ed, click), vec![EditAction::LinkTo("r1s0".into())]);
    // A double click folds what the last press hit.
    let double = vec![
        PointerInput::Down { x: 1.0, y: 1.0, target: node("tor1"), shift: false },
        PointerInput::Up,
        PointerInput::DoubleClick,
    ];
    let edits = gesture(&mut Pointer::default(), &editor(), double);
    assert_eq!(edits.last(), Some(&EditAction::ToggleCollapse("tor1".into())));
}

#[test]
fn zoom_keeps_its_point_and_follow_pans_only_when_needed() {
    let v = View::default().zoom(2.0, 100.0, 50.0);
    assert_eq!((v.k, v.tx, v.ty), (2.0, -100.0, -50.0));
    // The point under the cursor stays where it was: drawing (100, 50) at screen (100, 50).
    assert_eq!((100.0 * v.k + v.tx, 50.0 * v.k + v.ty), (100.0, 50.0));
    assert_eq!(View::default().zoom(1e6, 0.0, 0.0).k, 4.0, "zoom is bounded");
    assert_eq!(View::default().follow(100.0, 100.0, 600.0), None);
    let moved = View::default().follow(2000.0, 100.0, 600.0).unwrap();
    assert_eq!(2000.0 * moved.k + moved.tx, 300.0, "the selection comes to the middle");
    let ed = editor();
    let d = drawing(&ed);
    let fitted = View::fit(&d, 800.0);
    let (x, y) = centre_of(&d, &Element::Node("tor0".into())).unwrap();
    let (sx, sy) = (x * fitted.k + fitted.tx, y * fitted.k + fitted.ty);
    assert!((0.0..=800.0).contains(&sx) && (0.0..=fitted.h).contains(&sy), "fit shows every node");
}

#[test]
fn keys_map_to_edits_and_view_commands() {
    let ed = editor();
    let edit = |a| Some(KeyCommand::Edit(a));
    assert_eq!(command_for("z", true, false, &ed), edit(EditAction::Undo));
    assert_eq!(command_for("Z", true, true, &ed), edit(EditAction::Redo));
    assert_eq!(command_for("y", true, false, &ed), edit(EditAction::Redo));
    assert_eq!(command_for("a", true, false, &ed), None, "Ctrl with another key is the browser's");
    assert_eq!(command_for("ArrowUp", false, false, &ed), edit(EditAction::SelectMove(Direction::Up)));
    assert_eq!(command_for("ArrowLeft", false, true, &ed), None, "nothing to nudge without a selected node");
    assert_eq!(command_for("+", false, false, &ed), Some(KeyCommand::Zoom(1.25)));
    assert_eq!(command_for("0", false, false, &ed), Some(KeyCommand::Fit));
    assert_eq!(command_for("q", false, false, &ed), None);
    let selected = ed.apply(EditAction::Select(node("tor0")));
    let nudge = EditAction::Move { node: "tor0".into(), dx: -10.0, dy: 0.0 };
    assert_eq!(command_for("ArrowLeft", false, true, &selected), edit(nudge));
    assert_eq!(command_for("Enter", false, false, &selected), edit(EditAction::ToggleCollapse("tor0".into())));
    assert_eq!(command_for("Escape", false, false, &selected), edit(EditAction::Select(None)));
    let linking = selected.apply(EditAction::StartLink);
    assert_eq!(command_for("Escape", false, false, &linking), edit(EditAction::CancelLink));
    assert_eq!(command_for("Enter", false, false, &linking), edit(EditAction::LinkTo("tor0".into())));
}

#[test]
fn keys_typed_into_fields_and_buttons_are_theirs() {
    assert!(key_belongs_to_control(Some("INPUT"), "a", false), "a letter typed into a field");
    assert!(key_belongs_to_control(Some("SELECT"), "ArrowDown", false));
    assert!(key_belongs_to_control(Some("BUTTON"), "Enter", false), "a focused button answers Enter");
    assert!(key_belongs_to_control(Some("BUTTON"), " ", false));
    assert!(!key_belongs_to_control(Some("BUTTON"), "Delete", false), "other keys on a button are the editor's");
    assert!(!key_belongs_to_control(Some("DIV"), "a", false));
    assert!(!key_belongs_to_control(None, "Enter", false));
    assert!(key_belongs_to_control(Some("DIV"), "a", true), "Alt is the browser's");
}
