//! The topology editor: a reducer over the cluster description ([`TopologySpec`]) with
//! undo and redo, the problems that flag invalid elements, and the drawing as plain data.
//! No yew and no web API outside [`view`]: it renders [`layout::Drawing`]s and turns
//! clicks, drags and keys into [`EditAction`]s.
//!
//! The document is the description users write (switches, servers with their GPUs, links),
//! so whatever the editor makes is exactly what export writes and a run uses. Elements are
//! named the way the description names them: nodes by id, links by index, a GPU by its
//! server and position. Every edit keeps the previous document on the undo stack; view
//! state (the selection, collapsed groups) is not part of the history.
//!
//! - this file: the document, the actions and the reducer;
//! - [`edits`]: the edits that change the description (add, link, delete, set);
//! - [`navigate`]: selection by keyboard and what a collapsed group hides;
//! - [`check`]: every problem of a description, on its element (the core finds them);
//! - [`graph`]: the description as a tree, for drawing and navigation;
//! - [`names`]: ids for new racks, servers and switches;
//! - [`layout`]: the drawing; [`pointer`]: pan, zoom and gestures on it; [`keys`]: what
//!   each key does; [`view`]: the component.

mod check;
pub mod cluster_file;
mod drawing;
mod edits;
#[cfg(test)]
mod gesture_tests;
pub mod graph;
pub mod import;
mod keys;
pub mod layout;
mod multi;
mod names;
mod navigate;
mod pointer;
mod properties;
#[cfg(test)]
mod tests;
pub mod view;

pub use check::{check, link_label};
use graph::Graph;
pub use multi::ServerField;

use crate::Shared;
use proxima_core::share::TopologyChoice;
use proxima_core::topology::{Topology, TopologySpec};
use std::collections::{BTreeMap, BTreeSet};

/// Above this many GPUs, a freshly loaded cluster starts with its racks collapsed.
pub const COLLAPSE_ABOVE_GPUS: u32 = 256;
/// Undo keeps this many steps.
pub const MAX_UNDO: usize = 200;

/// One state of the description, as undo keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Doc {
    pub spec: TopologySpec,
    /// How the scenario names this cluster: a preset or parametric form until edited,
    /// then the description itself.
    pub choice: TopologyChoice,
    /// Where users dragged nodes, relative to the computed layout.
    pub offsets: BTreeMap<String, (f64, f64)>,
}

/// Something that can be selected.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Element {
    /// A switch or a server, by id.
    Node(String),
    /// A link, by its index in the description.
    Link(usize),
    /// A GPU: its server and its position in it.
    Gpu(String, u32),
}

/// A problem of the description, on the element it is about (`None`: the whole cluster).
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub element: Option<Element>,
    /// The problem in words, naming the element as people do: `link r0s1–tor0,
    /// bandwidth: must be a positive number of Gbit/s, got 0`.
    pub text: String,
    /// The core's problem, with the field path as the description numbers it.
    pub problem: proxima_core::topology::Problem,
}

/// A property in the side panel.
#[derive(Clone, Debug, PartialEq)]
pub enum Property {
    LinkBandwidth(usize),
    LinkLatency(usize),
    ServerGpus(String),
    ServerNvlink(String),
    ServerNvlinkLatency(String),
    /// A rack's oversubscription: its servers' link bandwidth over its uplink's.
    Oversub(String),
    SwitchRole(String),
    Name,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

/// Everything the editor does.
#[derive(Clone, Debug, PartialEq)]
pub enum EditAction {
    /// A rack like the selected one (or the last), with its servers, under the same switch.
    AddRack,
    /// A server like its siblings, in the selected rack.
    AddServer,
    /// One more GPU in the selected server.
    AddGpu,
    /// A switch without links (link it with [`EditAction::StartLink`]).
    AddSwitch,
    /// Start a link at the selected node; the next [`EditAction::LinkTo`] ends it.
    StartLink,
    LinkTo(String),
    CancelLink,
    /// Delete the selection: a link; a switch with its links (a rack also with its
    /// servers); a server; one GPU of a server.
    Delete,
    Select(Option<Element>),
    /// Shift-click: add a node to the selection, or take it out.
    ToggleSelect(String),
    /// A box drawn over the drawing: these nodes become the selection.
    SelectNodes(Vec<String>),
    /// A field typed once for several servers (the selected ones), one undo step.
    SetServers {
        servers: Vec<String>,
        field: ServerField,
        value: String,
    },
    /// Every server of this server's rack gets its GPU count, NIC link and GPU link.
    ApplyToRack(String),
    /// A file's text to import: a JSON description, or a Slurm `topology.conf` read with
    /// these options (`gpus=8,nic_gbps=200,...`).
    Import {
        name: String,
        text: String,
        options: String,
    },
    /// A file that could not be read (too large, not UTF-8): the message.
    ImportFailed(String),
    /// Move the selection through the tree (keyboard).
    SelectMove(Direction),
    /// A node dragged by this much.
    Move {
        node: String,
        dx: f64,
        dy: f64,
    },
    /// A property typed in the side panel.
    Set {
        property: Property,
        value: String,
    },
    ToggleCollapse(String),
    /// Collapse (true) or expand (false) every rack.
    CollapseAll(bool),
    Undo,
    Redo,
}

/// The editor: the document, its history, the selection and what the checks found.
#[derive(Clone, Debug, PartialEq)]
pub struct Editor {
    pub doc: Shared<Doc>,
    undo: Vec<Shared<Doc>>,
    redo: Vec<Shared<Doc>>,
    pub selection: Option<Element>,
    /// Further selected nodes (shift-click, a box), beside `selection`.
    pub also: BTreeSet<String>,
    /// A link being drawn from this node.
    pub linking_from: Option<String>,
    /// Collapsed switches and servers, by id.
    pub collapsed: BTreeSet<String>,
    pub problems: Vec<Problem>,
    /// The checked cluster, when the document has no problem.
    pub topology: Option<Shared<Topology>>,
    /// A word about the last action that did nothing (an unreadable number, nothing
    /// selected).
    pub message: Option<String>,
    /// Whether `message` says something was refused (a file that could not be imported, a
    /// value that is not a number), drawn as an error beside the import box, not as a note.
    pub message_is_error: bool,
}

impl Editor {
    /// An editor on a cluster already checked.
    pub fn new(choice: TopologyChoice, topology: Shared<Topology>) -> Editor {
        let spec = topology.spec().clone();
        let collapsed = default_collapsed(&spec);
        Editor {
            doc: Shared::new(Doc { spec, choice, offsets: BTreeMap::new() }),
            undo: Vec::new(),
            redo: Vec::new(),
            selection: None,
            also: BTreeSet::new(),
            linking_from: None,
            collapsed,
            problems: Vec::new(),
            topology: Some(topology),
            message: None,
            message_is_error: false,
        }
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Forgets the history (a fresh start).
    pub fn clear_history(&mut self) {
        self.undo.clear();
        self.redo.clear();
    }

    /// Replaces the document with a cluster already checked (chosen in the form: a
    /// preset, the parametric form, an import, a link), undoably unless it is the same
    /// cluster.
    pub fn load_checked(&mut self, choice: TopologyChoice, topology: Shared<Topology>) {
        if self.doc.choice == choice && self.doc.spec == *topology.spec() {
            return;
        }
        let spec = topology.spec().clone();
        self.collapsed = default_collapsed(&spec);
        self.commit(Doc { spec, choice, offsets: BTreeMap::new() });
        self.selection = None;
        self.also.clear();
        self.linking_from = None;
    }

    /// Says why something was refused, as an error.
    pub(crate) fn refuse(&mut self, why: String) {
        self.message = Some(why);
        self.message_is_error = true;
    }

    pub fn apply(mut self, action: EditAction) -> Editor {
        self.message = None;
        self.message_is_error = false;
        match action {
            EditAction::AddRack => self.add_rack(),
            EditAction::AddServer => self.add_server(),
            EditAction::AddGpu => self.add_gpu(),
            EditAction::AddSwitch => self.add_switch(),
            EditAction::StartLink => match &self.selection {
                Some(Element::Node(id)) => self.linking_from = Some(id.clone()),
                _ => self.message = Some("Select a switch or a server to start a link from it.".into()),
            },
            EditAction::LinkTo(target) => self.link_to(target),
            EditAction::CancelLink => self.linking_from = None,
            EditAction::Delete => self.delete(),
            EditAction::Select(element) => {
                if let Some(e) = &element {
                    self.reveal(e);
                }
                self.selection = element;
                self.also.clear();
            }
            EditAction::ToggleSelect(_) | EditAction::SelectNodes(_) => self.select_action(&action),
            EditAction::SetServers { servers, field, value } => self.set_servers(&servers, field, &value),
            EditAction::ApplyToRack(server) => self.apply_to_rack(&server),
            EditAction::Import { name, text, options } => self.import(&name, &text, &options),
            EditAction::ImportFailed(message) => self.refuse(message),
            EditAction::SelectMove(dir) => self.select_move(dir),
            EditAction::Move { node, dx, dy } => self.move_node(node, dx, dy),
            EditAction::Set { property, value } => self.set(property, &value),
            EditAction::ToggleCollapse(id) => self.toggle_collapse(id),
            EditAction::CollapseAll(collapse) => self.collapse_all(collapse),
            EditAction::Undo => {
                if let Some(prev) = self.undo.pop() {
                    let current = std::mem::replace(&mut self.doc, prev);
                    self.redo.push(current);
                    self.after_change();
                }
            }
            EditAction::Redo => {
                if let Some(next) = self.redo.pop() {
                    let current = std::mem::replace(&mut self.doc, next);
                    self.undo.push(current);
                    self.after_change();
                }
            }
        }
        self
    }

    /// Makes `doc` current, keeping the old one for undo.
    fn commit(&mut self, doc: Doc) {
        let old = std::mem::replace(&mut self.doc, Shared::new(doc));
        self.undo.push(old);
        if self.undo.len() > MAX_UNDO {
            self.undo.remove(0);
        }
        self.redo.clear();
        self.after_change();
    }

    /// A change of the description (not just of positions): the scenario now names the
    /// description itself, and a preset's name says it was edited.
    fn edit(&mut self, mut spec: TopologySpec) {
        if !matches!(self.doc.choice, TopologyChoice::Custom(_)) {
            spec.name = if spec.name.is_empty() || spec.name.contains('=') {
                "edited".into()
            } else {
                format!("{}-edited", spec.name)
            };
        }
        let doc = Doc { choice: TopologyChoice::Custom(spec.clone()), spec, offsets: self.doc.offsets.clone() };
        self.commit(doc);
    }

    /// Re-checks the document and drops a selection that no longer exists.
    fn after_change(&mut self) {
        let same = self.topology.as_ref().is_some_and(|t| *t.spec() == self.doc.spec);
        if !same {
            let (topology, problems) = check(&self.doc.spec);
            self.topology = topology.map(Shared::new);
            self.problems = problems;
        }
        if let Some(sel) = &self.selection {
            if !self.exists(sel) {
                self.selection = None;
            }
        }
        let gone: Vec<String> =
            self.also.iter().filter(|id| !self.exists(&Element::Node((*id).clone()))).cloned().collect();
        for id in gone {
            self.also.remove(&id);
        }
        if let Some(from) = &self.linking_from {
            if !self.exists(&Element::Node(from.clone())) {
                self.linking_from = None;
            }
        }
    }

    fn exists(&self, e: &Element) -> bool {
        let spec = &self.doc.spec;
        match e {
            Element::Node(id) => spec.switches.iter().any(|s| s.id == *id) || spec.servers.iter().any(|s| s.id == *id),
            Element::Link(i) => *i < spec.links.len(),
            Element::Gpu(id, k) => spec.servers.iter().any(|s| s.id == *id && *k < s.gpus),
        }
    }

    /// The root of the drawing: the checked tree's root, or, for a cluster with problems,
    /// the previous root if it still exists.
    fn root_hint(&self) -> Option<String> {
        self.topology.as_ref().map(|t| t.node(t.root()).name.clone())
    }

    fn graph(&self) -> Graph<'_> {
        Graph::of(&self.doc.spec, self.root_hint())
    }

    /// A rack's oversubscription (its servers' link bandwidth over its uplink's), if it
    /// has both.
    pub fn oversub(&self, switch: &str) -> Option<f64> {
        let g = self.graph();
        let v = *g.index.get(switch)?;
        let (_, up) = g.parent[v]?;
        let down = g.downlink_gbps(&self.doc.spec, v);
        let up = self.doc.spec.links[up].bandwidth_gbps;
        (down > 0.0 && up > 0.0).then(|| down / up)
    }

    /// The problems about an element.
    pub fn problems_of(&self, e: &Element) -> Vec<&Problem> {
        self.problems.iter().filter(|p| p.element.as_ref() == Some(e)).collect()
    }

    /// The GPU count of the description (including servers with problems).
    pub fn gpu_count(&self) -> u64 {
        self.doc.spec.servers.iter().map(|s| s.gpus as u64).sum()
    }

    /// What a run is refused with: how many problems, and the first, naming the element as
    /// the drawing labels it (`uplink tor1 → spine: bandwidth must be ...`).
    pub fn refusal(&self) -> Option<String> {
        let first = self.problems.first()?;
        let n = self.problems.len();
        Some(format!(
            "topology: the edited cluster has {n} problem{} (marked in red in the editor); first: {}",
            if n == 1 { "" } else { "s" },
            first.text
        ))
    }
}

/// What starts collapsed: on big clusters the racks (or, with one rack, the servers).
fn default_collapsed(spec: &TopologySpec) -> BTreeSet<String> {
    let gpus: u64 = spec.servers.iter().map(|s| s.gpus as u64).sum();
    if gpus <= COLLAPSE_ABOVE_GPUS as u64 {
        return BTreeSet::new();
    }
    let g = Graph::of(spec, None);
    let racks: BTreeSet<String> = g.racks().map(|v| g.names[v].to_string()).collect();
    if racks.len() >= 2 {
        racks
    } else {
        spec.servers.iter().map(|s| s.id.clone()).collect()
    }
}
