//! The editor's keyboard: which key does what, as data the component acts on and the
//! help lists. Keys reach the editor only while the focus is in it but not in one of its
//! fields, and a focused button keeps Enter and Space for itself (the component checks
//! both before asking [`command_for`]).

use super::{Direction, EditAction, Editor, Element};

/// How far Shift+arrow moves the selected node, in drawing units.
const NUDGE: f64 = 10.0;

/// What a key asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyCommand {
    Edit(EditAction),
    /// Zoom around the middle of the viewport by this factor.
    Zoom(f64),
    Fit,
}

/// Whether a key belongs to a control of the editor rather than to the editor: typed
/// into a field (`tag` is the focused element's tag name), Enter or Space on a focused
/// button (which answers them itself), or with Alt (the browser's and the system's).
pub fn key_belongs_to_control(tag: Option<&str>, key: &str, alt: bool) -> bool {
    let in_field = matches!(tag, Some("INPUT" | "TEXTAREA" | "SELECT"));
    let on_button = tag == Some("BUTTON") && matches!(key, "Enter" | " ");
    in_field || on_button || alt
}

/// The command of `key` (the DOM's `KeyboardEvent.key`) with Ctrl (or Cmd) and Shift as
/// given, on the editor's current selection; `None` for a key the editor leaves alone.
pub fn command_for(key: &str, ctrl: bool, shift: bool, ed: &Editor) -> Option<KeyCommand> {
    let selected_node = match &ed.selection {
        Some(Element::Node(id)) => Some(id.clone()),
        _ => None,
    };
    let edit = |a: EditAction| Some(KeyCommand::Edit(a));
    match (key, ctrl, shift) {
        ("z" | "Z", true, false) => edit(EditAction::Undo),
        ("z" | "Z", true, true) | ("y" | "Y", true, _) => edit(EditAction::Redo),
        (_, true, _) => None,
        ("ArrowUp", _, false) => edit(EditAction::SelectMove(Direction::Up)),
        ("ArrowDown", _, false) => edit(EditAction::SelectMove(Direction::Down)),
        ("ArrowLeft", _, false) => edit(EditAction::SelectMove(Direction::Left)),
        ("ArrowRight", _, false) => edit(EditAction::SelectMove(Direction::Right)),
        ("ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight", _, true) => {
            let (dx, dy) = match key {
                "ArrowUp" => (0.0, -NUDGE),
                "ArrowDown" => (0.0, NUDGE),
                "ArrowLeft" => (-NUDGE, 0.0),
                _ => (NUDGE, 0.0),
            };
            selected_node.map(|node| KeyCommand::Edit(EditAction::Move { node, dx, dy }))
        }
        ("a", _, _) => edit(EditAction::AddRack),
        ("s", _, _) => edit(EditAction::AddServer),
        ("g", _, _) => edit(EditAction::AddGpu),
        ("w", _, _) => edit(EditAction::AddSwitch),
        ("l" | "Enter", _, _) if ed.linking_from.is_some() => {
            selected_node.map(|n| KeyCommand::Edit(EditAction::LinkTo(n)))
        }
        ("l", _, _) => edit(EditAction::StartLink),
        ("Delete" | "Backspace", _, _) => edit(EditAction::Delete),
        ("Escape", _, _) if ed.linking_from.is_some() => edit(EditAction::CancelLink),
        ("Escape", _, _) => edit(EditAction::Select(None)),
        ("c" | "Enter", _, false) => selected_node.map(|n| KeyCommand::Edit(EditAction::ToggleCollapse(n))),
        ("C", _, true) => edit(EditAction::CollapseAll(true)),
        ("E", _, true) => edit(EditAction::CollapseAll(false)),
        ("+" | "=", _, _) => Some(KeyCommand::Zoom(1.25)),
        ("-" | "_", _, _) => Some(KeyCommand::Zoom(0.8)),
        ("0", _, _) => Some(KeyCommand::Fit),
        _ => None,
    }
}

/// The keys as the help lists them: (keys, what they do).
pub const HELP: &[(&[&str], &str)] = &[
    (&["←", "↑", "→", "↓"], "select: parent, first child, previous, next"),
    (&["Shift + arrows"], "move the selected node"),
    (&["a", "s", "g", "w"], "add a rack / a server / a GPU / a switch"),
    (&["l"], "link the selected node to another: select it and press Enter"),
    (&["Delete"], "delete the selection (a rack goes with its servers)"),
    (&["c", "Enter", "Shift+C", "Shift+E"], "fold or unfold the selection / collapse all racks, expand all"),
    (&["Ctrl+Z", "Ctrl+Y"], "undo / redo"),
    (&["+", "-", "0"], "zoom in / out / fit"),
    (&["Esc"], "cancel a link, or clear the selection"),
];
