//! The topology editor's model: a reducer over the cluster description
//! ([`TopologySpec`]) with undo and redo, the checks that flag invalid elements, and the
//! drawing as plain data. No yew and no web API here: `topology_view.rs` renders
//! [`Drawing`]s and turns clicks, drags and keys into [`EditAction`]s.
//!
//! The document is the description users write (switches, servers with their GPUs, links),
//! so whatever the editor makes is exactly what export writes and a run uses. Elements are
//! named the way the description names them: nodes by id, links by index, a GPU by its
//! server and position. Every edit keeps the previous document on the undo stack; view
//! state (the selection, collapsed groups) is not part of the history.
//!
//! Checks reuse the core's: [`Topology::from_spec`] stops at the first problem, so
//! [`check`] repairs that problem in a scratch copy (drops the bad link, gives the server a
//! GPU, ...) and asks again, collecting every problem with the core's own message and the
//! element it belongs to.

use proxima_core::share::TopologyChoice;
use proxima_core::topology::{LinkSpec, ServerSpec, SwitchSpec, Topology, TopologySpec};
use proxima_core::InputError;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Above this many GPUs, a freshly loaded cluster starts with its racks collapsed.
pub const COLLAPSE_ABOVE_GPUS: u32 = 256;
/// Undo keeps this many steps.
pub const MAX_UNDO: usize = 200;
/// At most this many problems are listed (the core is asked once per problem).
pub const MAX_PROBLEMS: usize = 50;

/// Link speeds for new links when there is nothing to copy: a 200 Gbit/s NIC, and twice
/// that between switches.
const DEFAULT_NIC_GBPS: f64 = proxima_core::topology::DEFAULT_NIC_GBPS;
const DEFAULT_LATENCY_US: f64 = 2.0;

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

/// A problem the core found, on the element it is about (`None`: the whole cluster).
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub element: Option<Element>,
    /// The core's message, `field: what is wrong`, with the field as the description
    /// numbers it.
    pub text: String,
}

/// A property in the side panel.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
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
    /// A cluster chosen in the form (preset, parametric, import, a link): replaces the
    /// document, undoably.
    Load {
        choice: TopologyChoice,
        spec: TopologySpec,
    },
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
        field: Field,
        value: String,
    },
    ToggleCollapse(String),
    /// Collapse (true) or expand (false) every rack.
    CollapseAll(bool),
    Undo,
    Redo,
    DismissMessage,
}

/// The editor: the document, its history, the selection and what the checks found.
#[derive(Clone, Debug, PartialEq)]
pub struct Editor {
    pub doc: Rc<Doc>,
    undo: Vec<Rc<Doc>>,
    redo: Vec<Rc<Doc>>,
    pub selection: Option<Element>,
    /// A link being drawn from this node.
    pub linking_from: Option<String>,
    /// Collapsed switches and servers, by id.
    pub collapsed: BTreeSet<String>,
    pub problems: Vec<Problem>,
    /// The checked cluster, when the document has no problem.
    pub topology: Option<Rc<Topology>>,
    /// A word about the last action that did nothing (an unreadable number, nothing
    /// selected).
    pub message: Option<String>,
}

impl Editor {
    /// An editor on a cluster already checked.
    pub fn new(choice: TopologyChoice, topology: Rc<Topology>) -> Editor {
        let spec = topology.spec().clone();
        let collapsed = default_collapsed(&spec);
        Editor {
            doc: Rc::new(Doc { spec, choice, offsets: BTreeMap::new() }),
            undo: Vec::new(),
            redo: Vec::new(),
            selection: None,
            linking_from: None,
            collapsed,
            problems: Vec::new(),
            topology: Some(topology),
            message: None,
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

    /// Replaces the document with a cluster already checked, undoably (unless it is the
    /// same cluster).
    pub fn load_checked(&mut self, choice: TopologyChoice, topology: Rc<Topology>) {
        if self.doc.choice == choice && self.doc.spec == *topology.spec() {
            return;
        }
        let spec = topology.spec().clone();
        self.collapsed = default_collapsed(&spec);
        self.commit(Doc { spec, choice, offsets: BTreeMap::new() });
        self.selection = None;
        self.linking_from = None;
    }

    pub fn apply(mut self, action: EditAction) -> Editor {
        self.message = None;
        match action {
            EditAction::Load { choice, spec } => {
                if self.doc.choice != choice || self.doc.spec != spec {
                    self.collapsed = default_collapsed(&spec);
                    self.commit(Doc { spec, choice, offsets: BTreeMap::new() });
                    self.selection = None;
                }
            }
            EditAction::AddRack => self.add_rack(),
            EditAction::AddServer => self.add_server(),
            EditAction::AddGpu => match self.selected_server() {
                Some(id) => {
                    let mut spec = self.doc.spec.clone();
                    let s = spec.servers.iter_mut().find(|s| s.id == id).expect("selected servers exist");
                    s.gpus = s.gpus.saturating_add(1);
                    let new = s.gpus - 1;
                    self.edit(spec);
                    self.collapsed.remove(&id);
                    self.selection = Some(Element::Gpu(id, new));
                }
                None => self.message = Some("Select a server (or one of its GPUs) to add a GPU to it.".into()),
            },
            EditAction::AddSwitch => {
                let mut spec = self.doc.spec.clone();
                let id = unique_id(&spec, "switch1");
                spec.switches.push(SwitchSpec { id: id.clone(), role: None });
                self.edit(spec);
                self.message = Some(format!("Added switch {id}; link it to the cluster (L, then pick the other end)."));
                self.selection = Some(Element::Node(id));
            }
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
            }
            EditAction::SelectMove(dir) => self.select_move(dir),
            EditAction::Move { node, dx, dy } => {
                if (dx != 0.0 || dy != 0.0) && dx.is_finite() && dy.is_finite() {
                    let mut doc = (*self.doc).clone();
                    let o = doc.offsets.entry(node).or_insert((0.0, 0.0));
                    o.0 += dx;
                    o.1 += dy;
                    self.commit(doc);
                }
            }
            EditAction::Set { field, value } => self.set(field, &value),
            EditAction::ToggleCollapse(id) => {
                if !self.collapsed.remove(&id) {
                    self.collapsed.insert(id.clone());
                    // A selection hidden inside moves up to the collapsed box.
                    if let Some(sel) = &self.selection {
                        if self.inside(sel, &id) {
                            self.selection = Some(Element::Node(id));
                        }
                    }
                }
            }
            EditAction::CollapseAll(collapse) => {
                if collapse {
                    let g = Graph::of(&self.doc.spec, self.root_hint());
                    self.collapsed = g.racks().map(|v| g.names[v].to_string()).collect();
                    if let Some(sel) = self.selection.clone() {
                        if let Some(rack) = self.collapsed.iter().find(|r| self.inside(&sel, r)).cloned() {
                            self.selection = Some(Element::Node(rack));
                        }
                    }
                } else {
                    self.collapsed.clear();
                }
            }
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
            EditAction::DismissMessage => {}
        }
        self
    }

    /// Makes `doc` current, keeping the old one for undo.
    fn commit(&mut self, doc: Doc) {
        let old = std::mem::replace(&mut self.doc, Rc::new(doc));
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
            self.topology = topology.map(Rc::new);
            self.problems = problems;
        }
        if let Some(sel) = &self.selection {
            if !self.exists(sel) {
                self.selection = None;
            }
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

    fn selected_server(&self) -> Option<String> {
        let spec = &self.doc.spec;
        match &self.selection {
            Some(Element::Node(id)) if spec.servers.iter().any(|s| s.id == *id) => Some(id.clone()),
            Some(Element::Gpu(id, _)) => Some(id.clone()),
            _ => None,
        }
    }

    /// The rack of the selection: the selected switch if it has servers, or the switch
    /// above the selected server, link or GPU.
    fn selected_rack(&self, g: &Graph) -> Option<usize> {
        let v = match &self.selection {
            Some(Element::Node(id)) | Some(Element::Gpu(id, _)) => g.index.get(id.as_str()).copied()?,
            Some(Element::Link(i)) => {
                let l = self.doc.spec.links.get(*i)?;
                let (a, b) = (g.index.get(l.a.as_str()).copied()?, g.index.get(l.b.as_str()).copied()?);
                if g.is_server[a] {
                    b
                } else {
                    a
                }
            }
            None => return None,
        };
        if g.is_server[v] {
            g.parent[v].map(|(p, _)| p)
        } else if g.is_rack(v) {
            Some(v)
        } else {
            None
        }
    }

    fn add_rack(&mut self) {
        let g = self.graph();
        let template = self.selected_rack(&g).or_else(|| g.racks().last());
        let mut spec = self.doc.spec.clone();
        let Some(t) = template else {
            // No rack to copy: a default one, linked under the top switch if there is one.
            let tor = unique_id(&spec, "tor0");
            spec.switches.push(SwitchSpec { id: tor.clone(), role: Some("tor".into()) });
            for s in 0..2 {
                let id = unique_id(&spec, &format!("{tor}s{s}"));
                spec.servers.push(ServerSpec {
                    id: id.clone(),
                    gpus: 4,
                    nvlink_gbps: proxima_core::topology::DEFAULT_NVLINK_GBPS,
                    nvlink_latency_us: 1.0,
                    nics: 1,
                });
                spec.links.push(LinkSpec {
                    a: id,
                    b: tor.clone(),
                    bandwidth_gbps: DEFAULT_NIC_GBPS,
                    latency_us: DEFAULT_LATENCY_US,
                });
            }
            if let Some(&root) = g.roots.first().filter(|&&r| !g.is_server[r]) {
                spec.links.push(LinkSpec {
                    a: tor.clone(),
                    b: g.names[root].to_string(),
                    bandwidth_gbps: 2.0 * DEFAULT_NIC_GBPS,
                    latency_us: DEFAULT_LATENCY_US,
                });
            }
            drop(g);
            self.edit(spec);
            self.selection = Some(Element::Node(tor));
            return;
        };
        let tor_id = g.names[t].to_string();
        let role = spec.switches.iter().find(|s| s.id == tor_id).and_then(|s| s.role.clone());
        let new_tor = unique_id(&spec, &next_name(&tor_id));
        let rack_number = trailing_number(&new_tor);
        spec.switches.push(SwitchSpec { id: new_tor.clone(), role });
        let mut down_gbps = 0.0;
        for &(v, li) in &g.adj[t] {
            if !g.is_server[v] || g.parent[v].map(|p| p.0) != Some(t) {
                continue;
            }
            let server = spec.servers.iter().find(|s| s.id == g.names[v]).expect("servers exist").clone();
            let link = spec.links[li].clone();
            let id = unique_id(&spec, &renumber(&server.id, rack_number, &new_tor));
            spec.servers.push(ServerSpec { id: id.clone(), ..server });
            spec.links.push(LinkSpec { a: id, b: new_tor.clone(), ..link.clone() });
            down_gbps += link.bandwidth_gbps;
        }
        match g.parent[t] {
            Some((p, li)) => {
                let up = spec.links[li].clone();
                spec.links.push(LinkSpec { a: new_tor.clone(), b: g.names[p].to_string(), ..up });
            }
            None => {
                // One rack until now: a spine above both, without oversubscription.
                let spine = unique_id(&spec, "spine");
                spec.switches.insert(0, SwitchSpec { id: spine.clone(), role: Some("spine".into()) });
                let bw = if down_gbps > 0.0 { down_gbps } else { 2.0 * DEFAULT_NIC_GBPS };
                for tor in [&tor_id, &new_tor] {
                    spec.links.push(LinkSpec {
                        a: tor.clone(),
                        b: spine.clone(),
                        bandwidth_gbps: bw,
                        latency_us: DEFAULT_LATENCY_US,
                    });
                }
            }
        }
        let collapse_like_template = self.collapsed.contains(&tor_id);
        self.edit(spec);
        if collapse_like_template {
            self.collapsed.insert(new_tor.clone());
        }
        self.selection = Some(Element::Node(new_tor));
    }

    fn add_server(&mut self) {
        let g = self.graph();
        let Some(rack) = self.selected_rack(&g).or_else(|| g.racks().next()) else {
            self.message = Some("Select a rack (a switch with servers) to add a server to it.".into());
            return;
        };
        let rack_id = g.names[rack].to_string();
        let mut spec = self.doc.spec.clone();
        let sibling =
            g.adj[rack].iter().rev().find(|&&(v, _)| g.is_server[v]).map(|&(v, li)| (g.names[v].to_string(), li));
        let (server, link) = match &sibling {
            Some((id, li)) => {
                (spec.servers.iter().find(|s| s.id == *id).expect("exists").clone(), spec.links[*li].clone())
            }
            None => (
                ServerSpec {
                    id: format!("{rack_id}s0"),
                    gpus: 4,
                    nvlink_gbps: proxima_core::topology::DEFAULT_NVLINK_GBPS,
                    nvlink_latency_us: 1.0,
                    nics: 1,
                },
                LinkSpec {
                    a: String::new(),
                    b: String::new(),
                    bandwidth_gbps: DEFAULT_NIC_GBPS,
                    latency_us: DEFAULT_LATENCY_US,
                },
            ),
        };
        let id = unique_id(&spec, &next_name(&server.id));
        spec.servers.push(ServerSpec { id: id.clone(), ..server });
        spec.links.push(LinkSpec { a: id.clone(), b: rack_id.clone(), ..link });
        drop(g);
        self.edit(spec);
        self.collapsed.remove(&rack_id);
        self.selection = Some(Element::Node(id));
    }

    fn link_to(&mut self, target: String) {
        let Some(from) = self.linking_from.take() else { return };
        if from == target {
            self.message = Some("A link needs two different ends.".into());
            return;
        }
        if !self.exists(&Element::Node(target.clone())) {
            return;
        }
        let mut spec = self.doc.spec.clone();
        let server_end = spec.servers.iter().any(|s| s.id == from || s.id == target);
        let bandwidth_gbps = if server_end { DEFAULT_NIC_GBPS } else { 2.0 * DEFAULT_NIC_GBPS };
        spec.links.push(LinkSpec { a: from, b: target, bandwidth_gbps, latency_us: DEFAULT_LATENCY_US });
        let index = spec.links.len() - 1;
        self.edit(spec);
        self.selection = Some(Element::Link(index));
    }

    fn delete(&mut self) {
        let Some(sel) = self.selection.clone() else {
            self.message = Some("Select something to delete.".into());
            return;
        };
        let g = self.graph();
        let parent_of = |id: &str| g.index.get(id).and_then(|&v| g.parent[v]).map(|(p, _)| g.names[p].to_string());
        let mut spec = self.doc.spec.clone();
        let next_selection;
        match &sel {
            Element::Link(i) => {
                if *i >= spec.links.len() {
                    return;
                }
                spec.links.remove(*i);
                next_selection = None;
            }
            Element::Gpu(id, _) => {
                let s = spec.servers.iter_mut().find(|s| s.id == *id).expect("exists");
                s.gpus = s.gpus.saturating_sub(1);
                next_selection = Some(Element::Node(id.clone()));
            }
            Element::Node(id) => {
                let mut gone: BTreeSet<String> = BTreeSet::from([id.clone()]);
                if spec.switches.iter().any(|s| s.id == *id) {
                    // A rack goes with its servers: those whose only link is to it.
                    for s in &spec.servers {
                        let ends: Vec<&LinkSpec> = spec.links.iter().filter(|l| l.a == s.id || l.b == s.id).collect();
                        if !ends.is_empty() && ends.iter().all(|l| l.a == *id || l.b == *id) {
                            gone.insert(s.id.clone());
                        }
                    }
                }
                spec.switches.retain(|s| !gone.contains(&s.id));
                spec.servers.retain(|s| !gone.contains(&s.id));
                spec.links.retain(|l| !gone.contains(&l.a) && !gone.contains(&l.b));
                next_selection = parent_of(id).map(Element::Node);
            }
        }
        drop(g);
        self.edit(spec);
        let doc = Rc::make_mut(&mut self.doc);
        let ids: BTreeSet<String> = doc
            .spec
            .switches
            .iter()
            .map(|s| s.id.clone())
            .chain(doc.spec.servers.iter().map(|s| s.id.clone()))
            .collect();
        doc.offsets.retain(|k, _| ids.contains(k));
        self.collapsed.retain(|k| ids.contains(k));
        self.selection = next_selection.filter(|e| self.exists(e));
    }

    fn set(&mut self, field: Field, value: &str) {
        let text = value.trim();
        let number = || -> Result<f64, String> {
            text.parse::<f64>().ok().filter(|x| !x.is_nan()).ok_or_else(|| format!("'{text}' is not a number"))
        };
        let mut spec = self.doc.spec.clone();
        let result: Result<(), String> = (|| {
            match &field {
                Field::LinkBandwidth(i) => spec.links.get_mut(*i).ok_or("no such link")?.bandwidth_gbps = number()?,
                Field::LinkLatency(i) => spec.links.get_mut(*i).ok_or("no such link")?.latency_us = number()?,
                Field::ServerGpus(id) => {
                    let n = text.parse::<u32>().map_err(|_| format!("GPUs: '{text}' is not a whole number of GPUs"))?;
                    if n > proxima_core::topology::MAX_GPUS {
                        return Err(format!("GPUs: at most {} in a cluster", proxima_core::topology::MAX_GPUS));
                    }
                    spec.servers.iter_mut().find(|s| s.id == *id).ok_or("no such server")?.gpus = n;
                }
                Field::ServerNvlink(id) => {
                    spec.servers.iter_mut().find(|s| s.id == *id).ok_or("no such server")?.nvlink_gbps = number()?
                }
                Field::ServerNvlinkLatency(id) => {
                    spec.servers.iter_mut().find(|s| s.id == *id).ok_or("no such server")?.nvlink_latency_us = number()?
                }
                Field::Oversub(id) => {
                    let ratio = number()?;
                    let g = Graph::of(&self.doc.spec, self.root_hint());
                    let v = *g.index.get(id.as_str()).ok_or("no such switch")?;
                    let (_, up) = g.parent[v].ok_or("this switch has no uplink to oversubscribe")?;
                    let down = g.downlink_gbps(&self.doc.spec, v);
                    if down <= 0.0 {
                        return Err("this switch has no servers below it".into());
                    }
                    spec.links[up].bandwidth_gbps = down / ratio;
                }
                Field::SwitchRole(id) => {
                    let role = (!text.is_empty()).then(|| text.to_string());
                    spec.switches.iter_mut().find(|s| s.id == *id).ok_or("no such switch")?.role = role;
                }
                Field::Name => spec.name = text.to_string(),
            }
            Ok(())
        })();
        match result {
            Ok(()) if spec != self.doc.spec => {
                // Renaming is not an edit of the cluster's shape; keep the name typed.
                let renamed = field == Field::Name;
                let name = spec.name.clone();
                self.edit(spec);
                if renamed {
                    let doc = Rc::make_mut(&mut self.doc);
                    doc.spec.name = name.clone();
                    doc.choice = TopologyChoice::Custom(doc.spec.clone());
                    self.after_change();
                }
            }
            Ok(()) => {}
            Err(e) => self.message = Some(e),
        }
    }

    /// Whether `e` lies inside the collapsed node `group`.
    fn inside(&self, e: &Element, group: &str) -> bool {
        let g = self.graph();
        let Some(&target) = g.index.get(group) else { return false };
        let start = match e {
            Element::Node(id) | Element::Gpu(id, _) => g.index.get(id.as_str()).copied(),
            Element::Link(i) => self.doc.spec.links.get(*i).and_then(|l| {
                let (a, b) = (g.index.get(l.a.as_str())?, g.index.get(l.b.as_str())?);
                // A link is inside when its lower end is.
                Some(if g.depth[*a] > g.depth[*b] { *a } else { *b })
            }),
        };
        let Some(mut v) = start else { return false };
        if matches!(e, Element::Node(_)) {
            match g.parent[v] {
                Some((p, _)) => v = p,
                None => return false,
            }
        }
        loop {
            if v == target {
                return true;
            }
            match g.parent[v] {
                Some((p, _)) => v = p,
                None => return false,
            }
        }
    }

    /// Expands every collapsed node hiding `e`.
    fn reveal(&mut self, e: &Element) {
        let hidden: Vec<String> = self.collapsed.iter().filter(|c| self.inside(e, c)).cloned().collect();
        for h in hidden {
            self.collapsed.remove(&h);
        }
        if let Element::Gpu(id, _) = e {
            self.collapsed.remove(id);
        }
    }

    fn select_move(&mut self, dir: Direction) {
        let g = self.graph();
        let visible_children = |v: usize| -> Vec<usize> {
            if self.collapsed.contains(g.names[v]) {
                Vec::new()
            } else {
                g.children[v].clone()
            }
        };
        let next = match (&self.selection, dir) {
            (None, _) => g.roots.first().map(|&r| Element::Node(g.names[r].to_string())),
            (Some(Element::Node(id)), _) => {
                let Some(&v) = g.index.get(id.as_str()) else { return };
                match dir {
                    Direction::Up => g.parent[v].map(|(p, _)| Element::Node(g.names[p].to_string())),
                    Direction::Down => {
                        let kids = visible_children(v);
                        if let Some(&c) = kids.first() {
                            Some(Element::Node(g.names[c].to_string()))
                        } else if g.is_server[v] && !self.collapsed.contains(id) && g.gpus[v] > 0 {
                            Some(Element::Gpu(id.clone(), 0))
                        } else {
                            None
                        }
                    }
                    Direction::Left | Direction::Right => {
                        let siblings: Vec<usize> = match g.parent[v] {
                            Some((p, _)) => g.children[p].clone(),
                            None => g.roots.clone(),
                        };
                        let i = siblings.iter().position(|&s| s == v).unwrap_or(0);
                        let j = if dir == Direction::Left { i.checked_sub(1) } else { Some(i + 1) };
                        j.and_then(|j| siblings.get(j)).map(|&s| Element::Node(g.names[s].to_string()))
                    }
                }
            }
            (Some(Element::Gpu(id, k)), _) => {
                let count = g.index.get(id.as_str()).map(|&v| g.gpus[v]).unwrap_or(0);
                match dir {
                    Direction::Up => Some(Element::Node(id.clone())),
                    Direction::Down => None,
                    Direction::Left => k.checked_sub(1).map(|k| Element::Gpu(id.clone(), k)),
                    Direction::Right => (k + 1 < count).then(|| Element::Gpu(id.clone(), k + 1)),
                }
            }
            (Some(Element::Link(i)), _) => {
                let n = self.doc.spec.links.len();
                match dir {
                    Direction::Left => i.checked_sub(1).map(Element::Link),
                    Direction::Right => (i + 1 < n).then(|| Element::Link(i + 1)),
                    Direction::Up | Direction::Down => self.doc.spec.links.get(*i).map(|l| {
                        let upper = match (g.index.get(l.a.as_str()), g.index.get(l.b.as_str())) {
                            (Some(&a), Some(&b)) if g.depth[a] > g.depth[b] => {
                                if dir == Direction::Up {
                                    b
                                } else {
                                    a
                                }
                            }
                            (Some(&a), Some(&b)) => {
                                if dir == Direction::Up {
                                    a
                                } else {
                                    b
                                }
                            }
                            _ => return Element::Link(*i),
                        };
                        Element::Node(g.names[upper].to_string())
                    }),
                }
            }
        };
        drop(g);
        if let Some(e) = next {
            self.reveal(&e);
            self.selection = Some(e);
        }
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

    /// The first problem, as the run refuses with it.
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

// -- names ------------------------------------------------------------------------------

fn used(spec: &TopologySpec, id: &str) -> bool {
    spec.switches.iter().any(|s| s.id == id) || spec.servers.iter().any(|s| s.id == id)
}

/// `base` if no node has it, else `base-2`, `base-3`, ...
fn unique_id(spec: &TopologySpec, base: &str) -> String {
    if !used(spec, base) {
        return base.to_string();
    }
    let (stem, n) = split_number(base);
    if let Some(n) = n {
        (n + 1..).map(|k| format!("{stem}{k}")).find(|c| !used(spec, c)).expect("an unused name")
    } else {
        (2..).map(|k| format!("{base}-{k}")).find(|c| !used(spec, c)).expect("an unused name")
    }
}

/// `tor1` → `tor2`, `r0s3` → `r0s4`, `spine` → `spine2`.
fn next_name(id: &str) -> String {
    match split_number(id) {
        (stem, Some(n)) => format!("{stem}{}", n + 1),
        (stem, None) => format!("{stem}2"),
    }
}

fn split_number(id: &str) -> (&str, Option<u64>) {
    let digits = id.len() - id.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 18 {
        return (id, None);
    }
    let (stem, num) = id.split_at(id.len() - digits);
    (stem, num.parse().ok())
}

fn trailing_number(id: &str) -> Option<u64> {
    split_number(id).1
}

/// A server id for a new rack, from a template server's: `r1s0` in the rack numbered 2
/// becomes `r2s0`; ids without a rack number get the rack's id as a prefix.
fn renumber(server: &str, rack: Option<u64>, rack_id: &str) -> String {
    let numbers: Vec<(usize, usize)> = {
        let mut out = Vec::new();
        let b = server.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                out.push((start, i));
            } else {
                i += 1;
            }
        }
        out
    };
    match (rack, numbers.as_slice()) {
        (Some(r), [(s, e), _, ..]) => format!("{}{r}{}", &server[..*s], &server[*e..]),
        _ => format!("{rack_id}-{server}"),
    }
}

// -- the graph of a description -----------------------------------------------------------

/// The description as a graph with a spanning forest: for drawing, navigation and the
/// edits that need to know what is above what. It tolerates every problem the checks
/// flag (unknown ends, cycles, pieces without a path to the rest).
pub struct Graph<'a> {
    pub names: Vec<&'a str>,
    pub is_server: Vec<bool>,
    pub gpus: Vec<u32>,
    pub index: BTreeMap<&'a str, usize>,
    /// Neighbours with the link's index, in the order links are written.
    pub adj: Vec<Vec<(usize, usize)>>,
    /// The tree: parent and the link to it.
    pub parent: Vec<Option<(usize, usize)>>,
    pub children: Vec<Vec<usize>>,
    pub depth: Vec<u32>,
    /// Height as the core counts it: 1 for a server, one more than the highest child for a
    /// switch (2 for a switch with nothing below).
    pub height: Vec<u32>,
    /// One root per connected piece, the main one first.
    pub roots: Vec<usize>,
    /// Links outside the tree (closing a cycle, or with an unknown end).
    pub off_tree: Vec<usize>,
}

impl<'a> Graph<'a> {
    pub fn of(spec: &'a TopologySpec, root: Option<String>) -> Graph<'a> {
        let mut names: Vec<&str> = Vec::new();
        let mut is_server = Vec::new();
        let mut gpus = Vec::new();
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for s in &spec.switches {
            index.entry(s.id.as_str()).or_insert(names.len());
            names.push(&s.id);
            is_server.push(false);
            gpus.push(0);
        }
        for s in &spec.servers {
            index.entry(s.id.as_str()).or_insert(names.len());
            names.push(&s.id);
            is_server.push(true);
            gpus.push(s.gpus);
        }
        let n = names.len();
        let mut adj = vec![Vec::new(); n];
        let mut off_tree = Vec::new();
        for (i, l) in spec.links.iter().enumerate() {
            match (index.get(l.a.as_str()), index.get(l.b.as_str())) {
                (Some(&a), Some(&b)) if a != b => {
                    adj[a].push((b, i));
                    adj[b].push((a, i));
                }
                _ => off_tree.push(i),
            }
        }
        let mut g = Graph {
            names,
            is_server,
            gpus,
            index,
            adj,
            parent: vec![None; n],
            children: vec![Vec::new(); n],
            depth: vec![0; n],
            height: vec![1; n],
            roots: Vec::new(),
            off_tree,
        };
        let first = root.and_then(|r| g.index.get(r.as_str()).copied()).or_else(|| g.central_switch());
        let mut seen = vec![false; n];
        let order: Vec<usize> = first.into_iter().chain(0..n).collect();
        let mut tree_links = vec![false; spec.links.len()];
        let mut post = Vec::new();
        for r in order {
            if seen[r] {
                continue;
            }
            g.roots.push(r);
            seen[r] = true;
            // Depth first, children in the order their links are written (as the core
            // numbers GPUs).
            let mut stack = vec![(r, 0usize)];
            while let Some((v, next)) = stack.pop() {
                if next < g.adj[v].len() {
                    stack.push((v, next + 1));
                    let (w, li) = g.adj[v][next];
                    if !seen[w] {
                        seen[w] = true;
                        tree_links[li] = true;
                        g.parent[w] = Some((v, li));
                        g.children[v].push(w);
                        g.depth[w] = g.depth[v] + 1;
                        stack.push((w, 0));
                    }
                } else {
                    post.push(v);
                }
            }
        }
        for (li, on_tree) in tree_links.iter().enumerate() {
            if !on_tree && !g.off_tree.contains(&li) {
                g.off_tree.push(li);
            }
        }
        g.off_tree.sort_unstable();
        for v in post {
            if !g.is_server[v] {
                g.height[v] = 1 + g.children[v].iter().map(|&c| g.height[c]).max().unwrap_or(1);
            }
        }
        g
    }

    /// For a description with problems: the switch with the most switch neighbours (the
    /// spine of the usual tree), else the first switch, else the first server.
    fn central_switch(&self) -> Option<usize> {
        let n = self.names.len();
        (0..n)
            .filter(|&v| !self.is_server[v])
            .max_by_key(|&v| (self.adj[v].iter().filter(|&&(w, _)| !self.is_server[w]).count(), std::cmp::Reverse(v)))
            .or((n > 0).then_some(0))
    }

    /// A switch with servers right below it.
    pub fn is_rack(&self, v: usize) -> bool {
        !self.is_server[v] && self.children[v].iter().any(|&c| self.is_server[c])
    }

    pub fn racks(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.names.len()).filter(|&v| self.is_rack(v))
    }

    /// The bandwidth of the links from a switch down to its children.
    pub fn downlink_gbps(&self, spec: &TopologySpec, v: usize) -> f64 {
        self.children[v].iter().filter_map(|&c| self.parent[c]).map(|(_, li)| spec.links[li].bandwidth_gbps).sum()
    }
}

// -- the checks ---------------------------------------------------------------------------

/// Checks a description with the core: the topology if it is valid, else every problem
/// found, each on its element, in the core's words.
pub fn check(spec: &TopologySpec) -> (Option<Topology>, Vec<Problem>) {
    let mut err = match Topology::from_spec(spec) {
        Ok(t) => return (Some(t), Vec::new()),
        Err(e) => e,
    };
    // A scratch copy, repaired problem by problem; the maps give each of its switches,
    // servers and links the index it has in the original.
    let mut work = spec.clone();
    let mut switches: Vec<usize> = (0..spec.switches.len()).collect();
    let mut servers: Vec<usize> = (0..spec.servers.len()).collect();
    let mut links: Vec<usize> = (0..spec.links.len()).collect();
    let mut problems = Vec::new();
    for _ in 0..MAX_PROBLEMS {
        let (element, field, repaired) = repair(&mut work, &mut switches, &mut servers, &mut links, &err, spec);
        problems.push(Problem { element, text: format!("{field}: {}", err.message) });
        if !repaired {
            break;
        }
        match Topology::from_spec(&work) {
            Ok(_) => break,
            Err(e) => err = e,
        }
    }
    (None, problems)
}

/// `links[3].bandwidth_gbps` → ("links", Some(3), "bandwidth_gbps").
fn parse_field(field: &str) -> (&str, Option<usize>, &str) {
    let Some(open) = field.find('[') else { return (field, None, "") };
    let Some(close) = field[open..].find(']').map(|c| c + open) else { return (field, None, "") };
    let index = field[open + 1..close].parse().ok();
    let rest = field[close + 1..].trim_start_matches('.');
    (&field[..open], index, rest)
}

/// Locates the problem `err` of the scratch copy in the original, and repairs it in the
/// copy so that the core can look further. Returns the element, the field as the original
/// numbers it, and whether the copy was repaired.
fn repair(
    work: &mut TopologySpec,
    switches: &mut Vec<usize>,
    servers: &mut Vec<usize>,
    links: &mut Vec<usize>,
    err: &InputError,
    original: &TopologySpec,
) -> (Option<Element>, String, bool) {
    let (list, index, rest) = parse_field(&err.field);
    let with =
        |name: &str, i: usize| if rest.is_empty() { format!("{name}[{i}]") } else { format!("{name}[{i}].{rest}") };
    match (list, index) {
        ("links", Some(i)) if i < links.len() => {
            let o = links[i];
            let field = with("links", o);
            match rest {
                "bandwidth_gbps" => work.links[i].bandwidth_gbps = 1.0,
                "latency_us" => work.links[i].latency_us = 0.0,
                _ => {
                    work.links.remove(i);
                    links.remove(i);
                }
            }
            (Some(Element::Link(o)), field, true)
        }
        ("servers", Some(i)) if i < servers.len() => {
            let o = servers[i];
            let field = with("servers", o);
            let id = original.servers[o].id.clone();
            match rest {
                "gpus" => work.servers[i].gpus = 1,
                "nvlink_gbps" => work.servers[i].nvlink_gbps = 1.0,
                "nvlink_latency_us" => work.servers[i].nvlink_latency_us = 0.0,
                _ => work.servers[i].id = format!("\u{0}server{o}"),
            }
            (Some(Element::Node(id)), field, true)
        }
        ("switches", Some(i)) if i < switches.len() => {
            let o = switches[i];
            let field = with("switches", o);
            let id = original.switches[o].id.clone();
            if rest == "id" {
                work.switches[i].id = format!("\u{0}switch{o}");
            } else {
                remove_node(work, switches, servers, links, &id);
            }
            (Some(Element::Node(id)), field, true)
        }
        ("links", None) => {
            // "server 'x' has no path to the rest of the cluster".
            let name = err.message.split('\'').nth(1).unwrap_or("").to_string();
            if name.is_empty() || !used(work, &name) {
                return (None, err.field.clone(), false);
            }
            remove_node(work, switches, servers, links, &name);
            (Some(Element::Node(name)), err.field.clone(), !work.servers.is_empty())
        }
        _ => (None, err.field.clone(), false),
    }
}

/// Removes a node and its links from the scratch copy, keeping the maps in step.
fn remove_node(
    work: &mut TopologySpec,
    switches: &mut Vec<usize>,
    servers: &mut Vec<usize>,
    links: &mut Vec<usize>,
    id: &str,
) {
    if let Some(i) = work.switches.iter().position(|s| s.id == id) {
        work.switches.remove(i);
        switches.remove(i);
    }
    if let Some(i) = work.servers.iter().position(|s| s.id == id) {
        work.servers.remove(i);
        servers.remove(i);
    }
    let mut i = 0;
    while i < work.links.len() {
        if work.links[i].a == id || work.links[i].b == id {
            work.links.remove(i);
            links.remove(i);
        } else {
            i += 1;
        }
    }
}

// -- the drawing --------------------------------------------------------------------------

const GPU: f64 = 10.0;
const GPU_GAP: f64 = 3.0;
const PAD: f64 = 6.0;
const LEAF_GAP: f64 = 14.0;
const ROW: f64 = 78.0;
const SWITCH_W: f64 = 72.0;
const BOX_H: f64 = 28.0;
const MARGIN: f64 = 12.0;
/// Space between separate pieces of a cluster with problems.
const PIECE_GAP: f64 = 48.0;
const GPUS_PER_ROW: u32 = 8;
/// The most GPU cells the drawing holds; further servers are drawn as boxes.
pub const MAX_GPU_CELLS: u32 = 4096;
/// A server with more GPUs than this is drawn as a box with its count.
pub const MAX_GPUS_PER_SERVER_DRAWN: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxKind {
    Switch,
    Server,
    /// A switch drawn with everything below it folded in.
    CollapsedSwitch,
    /// A server drawn without its GPUs.
    CollapsedServer,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeBox {
    pub id: String,
    pub kind: BoxKind,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub label: String,
    pub title: String,
    /// The problems about it (or, collapsed, inside it), joined.
    pub problem: Option<String>,
    pub selected: bool,
    /// It can fold (a switch with something below it, or a server).
    pub collapsible: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkLine {
    pub index: usize,
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    pub label: String,
    pub title: String,
    pub problem: Option<String>,
    pub selected: bool,
    /// Not part of the tree (it closes a cycle, or an end is unknown).
    pub off_tree: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GpuCell {
    pub server: String,
    pub index: u32,
    /// The GPU's id in the checked cluster (as runs number them).
    pub id: u32,
    pub x: f64,
    pub y: f64,
    pub selected: bool,
}

/// The editor's drawing, in SVG user units.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub nodes: Vec<NodeBox>,
    pub links: Vec<LinkLine>,
    pub gpus: Vec<GpuCell>,
    pub caption: String,
}

pub const GPU_SIZE: f64 = GPU;

/// Lays the description out as a tree (a computed hierarchical layout, no physics):
/// servers on the bottom row, each switch over its children, dragged nodes moved by their
/// offsets, collapsed nodes folded, pieces without a path to the rest to the right.
pub fn layout(ed: &Editor) -> Drawing {
    layout_with_drag(ed, None)
}

/// The layout with one node moved by a drag in progress (drawing units).
pub fn layout_with_drag(ed: &Editor, drag: Option<(&str, f64, f64)>) -> Drawing {
    let spec = &ed.doc.spec;
    let g = ed.graph();
    let n = g.names.len();
    // GPU ids as the checked cluster numbers them (in description order otherwise).
    let mut first_gpu: BTreeMap<&str, u32> = BTreeMap::new();
    match &ed.topology {
        Some(t) => {
            for &s in t.servers() {
                let node = t.node(s);
                if let Some(&v) = g.index.get(node.name.as_str()) {
                    first_gpu.insert(g.names[v], node.first_gpu);
                }
            }
        }
        None => {
            let mut next = 0u32;
            for s in &spec.servers {
                first_gpu.insert(s.id.as_str(), next);
                next = next.saturating_add(s.gpus);
            }
        }
    }
    // Servers drawn without their GPUs whatever users asked: ones with more GPUs than a
    // box can hold, and all servers past the first MAX_GPU_CELLS GPUs drawn, so that
    // unfolding a huge cluster never floods the page with elements.
    let mut too_big = vec![false; n];
    {
        let mut budget = MAX_GPU_CELLS as u64;
        let mut stack: Vec<usize> = g.roots.iter().rev().copied().collect();
        while let Some(v) = stack.pop() {
            if ed.collapsed.contains(g.names[v]) {
                continue;
            }
            if g.is_server[v] {
                let cells = g.gpus[v] as u64;
                if g.gpus[v] > MAX_GPUS_PER_SERVER_DRAWN || cells > budget {
                    too_big[v] = true;
                } else {
                    budget -= cells;
                }
            }
            stack.extend(g.children[v].iter().rev());
        }
    }
    let collapsed = |v: usize| too_big[v] || ed.collapsed.contains(g.names[v]);
    let max_height = g.roots.iter().map(|&r| g.height[r]).max().unwrap_or(1);
    let y_of = |v: usize| MARGIN + (max_height - g.height[v]) as f64 * ROW;
    let leaf_h = |v: usize| -> f64 {
        if g.is_server[v] && !collapsed(v) {
            let rows = g.gpus[v].div_ceil(GPUS_PER_ROW).max(1) as f64;
            BOX_H + rows * (GPU + GPU_GAP) + 2.0
        } else {
            BOX_H + 8.0
        }
    };
    let problems_in = |v: usize| -> Vec<&str> {
        ed.problems
            .iter()
            .filter(|p| match &p.element {
                Some(e) => ed.inside(e, g.names[v]),
                None => false,
            })
            .map(|p| p.text.as_str())
            .collect()
    };
    let own_problems = |e: &Element| -> Option<String> {
        let texts: Vec<&str> = ed.problems_of(e).iter().map(|p| p.text.as_str()).collect();
        (!texts.is_empty()).then(|| texts.join("; "))
    };

    let mut d = Drawing {
        width: 0.0,
        height: 0.0,
        nodes: Vec::new(),
        links: Vec::new(),
        gpus: Vec::new(),
        caption: String::new(),
    };
    let mut centre: Vec<Option<(f64, f64, f64, f64)>> = vec![None; n]; // x, y, w, h of drawn boxes
    let mut cursor = MARGIN;
    // Post-order placement with an explicit stack: leaves left to right, parents centred.
    for &root in &g.roots {
        let mut stack = vec![(root, false)];
        while let Some((v, done)) = stack.pop() {
            let folded = collapsed(v);
            let kids: &[usize] = if folded { &[] } else { &g.children[v] };
            if !done && !kids.is_empty() {
                stack.push((v, true));
                for &c in kids.iter().rev() {
                    stack.push((c, false));
                }
                continue;
            }
            let (x, w, h) = if kids.is_empty() {
                let w = if g.is_server[v] && !folded {
                    let per_row = g.gpus[v].clamp(1, GPUS_PER_ROW);
                    (per_row as f64 * (GPU + GPU_GAP) - GPU_GAP + 2.0 * PAD).max(64.0)
                } else {
                    SWITCH_W
                };
                let x = cursor;
                cursor += w + LEAF_GAP;
                (x, w, leaf_h(v))
            } else {
                let xs: Vec<f64> = kids.iter().filter_map(|&c| centre[c].map(|b| b.0 + b.2 / 2.0)).collect();
                let cx = (xs[0] + xs[xs.len() - 1]) / 2.0;
                (cx - SWITCH_W / 2.0, SWITCH_W, BOX_H)
            };
            centre[v] = Some((x, y_of(v), w, h));
        }
        cursor += PIECE_GAP - LEAF_GAP;
    }
    // Offsets from dragging; then the boxes.
    let offset = |v: usize| {
        let (x, y) = ed.doc.offsets.get(g.names[v]).copied().unwrap_or((0.0, 0.0));
        match drag {
            Some((node, dx, dy)) if node == g.names[v] => (x + dx, y + dy),
            _ => (x, y),
        }
    };
    let mut drawn: Vec<Option<(f64, f64, f64, f64)>> = vec![None; n];
    for v in 0..n {
        let Some((x, y, w, h)) = centre[v] else { continue };
        let (dx, dy) = offset(v);
        drawn[v] = Some((x + dx, y + dy, w, h));
    }
    for v in 0..n {
        let Some((x, y, w, h)) = drawn[v] else { continue };
        let id = g.names[v].to_string();
        let folded = collapsed(v);
        let kind = match (g.is_server[v], folded) {
            (true, false) => BoxKind::Server,
            (true, true) => BoxKind::CollapsedServer,
            (false, true) => BoxKind::CollapsedSwitch,
            (false, false) => BoxKind::Switch,
        };
        let servers_below = count_servers(&g, v);
        let gpus_below = gpus_below(&g, v);
        let role = spec.switches.iter().find(|s| s.id == id).and_then(|s| s.role.clone());
        let (label, title) = match kind {
            BoxKind::Server => {
                let nvlink =
                    spec.servers.iter().find(|s| s.id == id).map(|s| gbps_label(s.nvlink_gbps)).unwrap_or_default();
                (id.clone(), format!("server {id}: {} GPUs in one NVLink/NVSwitch domain, {nvlink} per GPU", g.gpus[v]))
            }
            BoxKind::CollapsedServer => {
                (format!("{} GPUs", g.gpus[v]), format!("server {id}: {} GPUs (collapsed)", g.gpus[v]))
            }
            BoxKind::CollapsedSwitch => (
                format!(
                    "{id}: {servers_below}×{}",
                    if servers_below > 0 { gpus_below / servers_below as u64 } else { 0 }
                ),
                format!("switch {id}: {servers_below} servers, {gpus_below} GPUs below (collapsed)"),
            ),
            BoxKind::Switch => (
                id.clone(),
                format!(
                    "switch {id}{}: {servers_below} servers, {gpus_below} GPUs below",
                    role.map(|r| format!(" ({r})")).unwrap_or_default()
                ),
            ),
        };
        let mut problem = own_problems(&Element::Node(id.clone()));
        if folded {
            let inner = problems_in(v);
            if !inner.is_empty() {
                let text = format!("{} problem(s) inside: {}", inner.len(), inner.join("; "));
                problem = Some(match problem {
                    Some(p) => format!("{p}; {text}"),
                    None => text,
                });
            }
        }
        let selected = ed.selection == Some(Element::Node(id.clone()));
        let collapsible = g.is_server[v] || !g.children[v].is_empty();
        d.nodes.push(NodeBox { id: id.clone(), kind, x, y, w, h, label, title, problem, selected, collapsible });
        if kind == BoxKind::Server {
            let first = first_gpu.get(g.names[v]).copied().unwrap_or(0);
            let per_row = g.gpus[v].clamp(1, GPUS_PER_ROW);
            for i in 0..g.gpus[v] {
                d.gpus.push(GpuCell {
                    server: id.clone(),
                    index: i,
                    id: first.saturating_add(i),
                    x: x + PAD + (i % per_row) as f64 * (GPU + GPU_GAP),
                    y: y + BOX_H - 4.0 + (i / per_row) as f64 * (GPU + GPU_GAP),
                    selected: ed.selection == Some(Element::Gpu(id.clone(), i)),
                });
            }
        }
    }
    // Links between drawn boxes: tree links from the child's top to the parent's bottom,
    // the rest between centres.
    for (i, l) in spec.links.iter().enumerate() {
        let ends = (g.index.get(l.a.as_str()).copied(), g.index.get(l.b.as_str()).copied());
        let off_tree = g.off_tree.contains(&i);
        let (x1, y1, x2, y2) = match ends {
            (Some(a), Some(b)) => match (drawn[a], drawn[b]) {
                (Some(pa), Some(pb)) => {
                    let (child, parent) = if g.parent[a].map(|p| p.0) == Some(b) { (pa, pb) } else { (pb, pa) };
                    if off_tree {
                        (pa.0 + pa.2 / 2.0, pa.1 + pa.3 / 2.0, pb.0 + pb.2 / 2.0, pb.1 + pb.3 / 2.0)
                    } else {
                        (child.0 + child.2 / 2.0, child.1, parent.0 + parent.2 / 2.0, parent.1 + parent.3)
                    }
                }
                // One end is folded away.
                _ => continue,
            },
            (Some(a), None) | (None, Some(a)) => match drawn[a] {
                // An end that does not exist: a stub from the known one.
                Some(p) => (p.0 + p.2 / 2.0, p.1, p.0 + p.2 / 2.0 + 24.0, p.1 - 24.0),
                None => continue,
            },
            (None, None) => continue,
        };
        d.links.push(LinkLine {
            index: i,
            x1,
            y1,
            x2,
            y2,
            label: gbps_label(l.bandwidth_gbps),
            title: format!("link {} – {}: {}, {} µs", l.a, l.b, gbps_label(l.bandwidth_gbps), l.latency_us),
            problem: own_problems(&Element::Link(i)),
            selected: ed.selection == Some(Element::Link(i)),
            off_tree,
        });
    }
    d.width = d.nodes.iter().map(|b| b.x + b.w).fold(cursor, f64::max) + MARGIN;
    d.height = d.nodes.iter().map(|b| b.y + b.h).fold(0.0, f64::max) + MARGIN;
    let total: u64 = ed.gpu_count();
    let folded = ed.collapsed.len();
    d.caption = format!(
        "{total} GPUs in {} server{}, {} switch{}, {} link{}{}.",
        spec.servers.len(),
        if spec.servers.len() == 1 { "" } else { "s" },
        spec.switches.len(),
        if spec.switches.len() == 1 { "" } else { "es" },
        spec.links.len(),
        if spec.links.len() == 1 { "" } else { "s" },
        if folded > 0 { format!("; {folded} collapsed (press C or double-click to expand)") } else { String::new() }
    );
    let auto = too_big.iter().filter(|&&b| b).count();
    if auto > 0 {
        d.caption +=
            &format!(" {auto} server{} drawn without GPUs to keep the page quick.", if auto == 1 { "" } else { "s" });
    }
    d
}

fn count_servers(g: &Graph, v: usize) -> usize {
    if g.is_server[v] {
        return 1;
    }
    g.children[v].iter().map(|&c| count_servers(g, c)).sum()
}

fn gpus_below(g: &Graph, v: usize) -> u64 {
    if g.is_server[v] {
        return g.gpus[v] as u64;
    }
    g.children[v].iter().map(|&c| gpus_below(g, c)).sum()
}

/// Gbit/s as people say it: `200 Gb/s`, `2.4 Tb/s`.
pub fn gbps_label(gbps: f64) -> String {
    let round3 = |x: f64| (x * 1000.0).round() / 1000.0;
    if gbps >= 1000.0 {
        format!("{} Tb/s", round3(gbps / 1000.0))
    } else {
        format!("{} Gb/s", round3(gbps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::topology::resolve_topology_arg;

    fn editor(arg: &str) -> Editor {
        let t = resolve_topology_arg(arg).unwrap();
        Editor::new(TopologyChoice::Preset(arg.into()), Rc::new(t))
    }

    fn run(ed: Editor, actions: impl IntoIterator<Item = EditAction>) -> Editor {
        actions.into_iter().fold(ed, Editor::apply)
    }

    fn select(id: &str) -> EditAction {
        EditAction::Select(Some(Element::Node(id.into())))
    }

    #[test]
    fn adding_a_rack_copies_the_selected_one_and_undo_takes_it_back() {
        let ed = editor("teaching");
        assert_eq!(ed.gpu_count(), 16);
        let ed = run(ed, [EditAction::AddRack]);
        assert_eq!(ed.gpu_count(), 24);
        assert!(ed.problems.is_empty(), "{:?}", ed.problems);
        let t = ed.topology.clone().unwrap();
        assert_eq!(t.gpu_count(), 24);
        assert_eq!(t.tier_names(), ["server", "rack", "cluster"]);
        assert_eq!(ed.selection, Some(Element::Node("tor2".into())));
        assert!(
            ed.doc.spec.servers.iter().any(|s| s.id == "r2s0") && ed.doc.spec.servers.iter().any(|s| s.id == "r2s1")
        );
        // The uplink copies the template's (2:1 oversubscribed).
        assert_eq!(ed.oversub("tor2"), Some(2.0));
        assert_eq!(ed.doc.spec.name, "teaching-edited");
        assert!(matches!(ed.doc.choice, TopologyChoice::Custom(_)));
        let ed = run(ed, [EditAction::Undo]);
        assert_eq!(ed.gpu_count(), 16);
        assert_eq!(ed.doc.choice, TopologyChoice::Preset("teaching".into()));
        assert!(ed.selection.is_none(), "the new rack is gone");
        let ed = run(ed, [EditAction::Redo]);
        assert_eq!(ed.gpu_count(), 24);
        assert!(!ed.can_redo() && ed.can_undo());
    }

    #[test]
    fn a_second_rack_on_a_one_rack_cluster_gets_a_spine() {
        let ed = run(editor("n32g4"), [EditAction::AddRack]);
        assert!(ed.problems.is_empty(), "{:?}", ed.problems);
        let t = ed.topology.clone().unwrap();
        assert_eq!(t.gpu_count(), 256);
        assert_eq!(t.node(t.root()).name, "spine");
        assert_eq!(ed.oversub("tor0"), Some(1.0));
    }

    #[test]
    fn servers_and_gpus_are_added_to_the_selection() {
        let ed = run(editor("teaching"), [select("r1s1"), EditAction::AddServer]);
        assert_eq!(ed.selection, Some(Element::Node("r1s2".into())));
        assert_eq!(ed.gpu_count(), 20);
        assert!(ed.problems.is_empty());
        let ed = run(ed, [EditAction::AddGpu]);
        assert_eq!(ed.doc.spec.servers.iter().find(|s| s.id == "r1s2").unwrap().gpus, 5);
        assert_eq!(ed.selection, Some(Element::Gpu("r1s2".into(), 4)));
        let ed = run(ed, [EditAction::Undo, EditAction::Undo]);
        assert_eq!(ed.gpu_count(), 16);
        // Without a server selected, adding a GPU says why it did nothing.
        let ed = run(ed, [EditAction::Select(None), EditAction::AddGpu]);
        assert!(ed.message.as_deref().unwrap().contains("Select a server"));
        assert!(!ed.can_redo() || ed.gpu_count() == 16);
    }

    #[test]
    fn switches_and_links_are_added_and_a_loose_switch_is_flagged() {
        let ed = run(editor("teaching"), [EditAction::AddSwitch]);
        assert_eq!(ed.selection, Some(Element::Node("switch1".into())));
        assert_eq!(ed.problems.len(), 1);
        assert_eq!(ed.problems[0].element, Some(Element::Node("switch1".into())));
        assert_eq!(ed.problems[0].text, "links: switch 'switch1' has no path to the rest of the cluster");
        assert!(ed.refusal().unwrap().contains("1 problem"));
        // Link it under the spine; it still has no servers below it.
        let ed = run(ed, [EditAction::StartLink, EditAction::LinkTo("spine".into())]);
        assert_eq!(ed.selection, Some(Element::Link(6)));
        assert_eq!(ed.problems[0].text, "switches[3]: switch 'switch1' has no servers below it");
        // Move a server under it: delete its link to its rack, link it to the switch.
        let link = ed.doc.spec.links.iter().position(|l| l.a == "r1s1").unwrap();
        let ed = run(
            ed,
            [
                EditAction::Select(Some(Element::Link(link))),
                EditAction::Delete,
                select("r1s1"),
                EditAction::StartLink,
                EditAction::LinkTo("switch1".into()),
            ],
        );
        assert!(ed.problems.is_empty(), "{:?}", ed.problems);
        assert_eq!(ed.topology.as_ref().unwrap().gpu_count(), 16);
        let ed = run(ed, [EditAction::Undo, EditAction::Undo, EditAction::Undo, EditAction::Undo]);
        assert_eq!(ed.doc.spec, resolve_topology_arg("teaching").unwrap().spec().clone());
    }

    #[test]
    fn invalid_edits_are_flagged_on_their_element_with_the_cores_message() {
        let ed = editor("teaching");
        let link = ed.doc.spec.links.iter().position(|l| l.a == "r0s1").unwrap();
        let ed = run(ed, [EditAction::Set { field: Field::LinkBandwidth(link), value: "0".into() }]);
        assert!(ed.topology.is_none());
        assert_eq!(ed.problems.len(), 1);
        assert_eq!(ed.problems[0].element, Some(Element::Link(link)));
        assert_eq!(
            ed.problems[0].text,
            format!("links[{link}].bandwidth_gbps: must be a positive number of Gbit/s, got 0")
        );
        // Several problems at once, each on its element.
        let ed = run(
            ed,
            [
                EditAction::Set { field: Field::ServerGpus("r1s0".into()), value: "0".into() },
                select("spine"),
                EditAction::Delete,
            ],
        );
        let texts: Vec<&str> = ed.problems.iter().map(|p| p.text.as_str()).collect();
        assert!(texts.iter().any(|t| t.contains("server 'r1s0' has no GPUs")), "{texts:?}");
        assert!(texts.iter().any(|t| t.ends_with("has no path to the rest of the cluster")), "{texts:?}");
        // The spine's links are gone, so the zero-bandwidth link moved up in the list.
        let link = ed.doc.spec.links.iter().position(|l| l.a == "r0s1").unwrap();
        assert!(
            ed.problems.iter().any(|p| p.element == Some(Element::Link(link))
                && p.text.starts_with(&format!("links[{link}].bandwidth_gbps"))),
            "{:?}",
            ed.problems
        );
        // Unreadable numbers change nothing and say so.
        let before = ed.doc.clone();
        let ed = run(ed, [EditAction::Set { field: Field::LinkLatency(0), value: "fast".into() }]);
        assert_eq!(ed.doc, before);
        assert_eq!(ed.message.as_deref(), Some("'fast' is not a number"));
        let ed = run(ed, [EditAction::Undo, EditAction::Undo, EditAction::Undo]);
        assert!(ed.problems.is_empty() && ed.topology.is_some());
    }

    #[test]
    fn deleting_a_rack_takes_its_servers_and_deleting_a_gpu_shrinks_its_server() {
        let ed = run(editor("teaching"), [select("tor1"), EditAction::Delete]);
        assert_eq!(ed.gpu_count(), 8);
        // The spine now has one rack below it, which the core does not accept.
        assert_eq!(ed.problems.len(), 1, "{:?}", ed.problems);
        assert_eq!(ed.problems[0].element, Some(Element::Node("spine".into())));
        assert_eq!(ed.selection, Some(Element::Node("spine".into())));
        let ed = run(ed, [EditAction::Delete]);
        assert!(ed.problems.is_empty(), "{:?}", ed.problems);
        let ed = run(ed, [EditAction::Select(Some(Element::Gpu("r0s0".into(), 3))), EditAction::Delete]);
        assert_eq!(ed.gpu_count(), 7);
        assert_eq!(ed.selection, Some(Element::Node("r0s0".into())));
        let ed = run(ed, [select("r0s0"), EditAction::Delete]);
        assert_eq!(ed.gpu_count(), 4);
        let ed = run(ed, [EditAction::Select(Some(Element::Link(0))), EditAction::Delete]);
        assert!(!ed.problems.is_empty(), "removing the server's link cuts it off");
        let ed = run(ed, (0..5).map(|_| EditAction::Undo));
        assert_eq!(ed.gpu_count(), 16);
        assert!(ed.problems.is_empty());
    }

    #[test]
    fn properties_edit_the_description() {
        let ed = run(
            editor("teaching"),
            [
                EditAction::Set { field: Field::Oversub("tor0".into()), value: "4".into() },
                EditAction::Set { field: Field::ServerNvlink("r0s0".into()), value: "600".into() },
                EditAction::Set { field: Field::ServerNvlinkLatency("r0s0".into()), value: "3".into() },
                EditAction::Set { field: Field::SwitchRole("tor0".into()), value: "leaf".into() },
                EditAction::Set { field: Field::LinkLatency(0), value: "5".into() },
                EditAction::Set { field: Field::Name, value: "lab".into() },
            ],
        );
        assert!(ed.problems.is_empty(), "{:?}", ed.problems);
        assert_eq!(ed.oversub("tor0"), Some(4.0));
        let s = &ed.doc.spec;
        assert_eq!(s.servers[0].nvlink_gbps, 600.0);
        assert_eq!(s.servers[0].nvlink_latency_us, 3.0);
        assert_eq!(s.switches.iter().find(|w| w.id == "tor0").unwrap().role.as_deref(), Some("leaf"));
        assert_eq!(s.links[0].latency_us, 5.0);
        assert_eq!(s.name, "lab");
        assert_eq!(ed.doc.choice, TopologyChoice::Custom(s.clone()));
        let ed = run(ed, (0..6).map(|_| EditAction::Undo));
        assert_eq!(ed.doc.choice, TopologyChoice::Preset("teaching".into()));
        // Oversubscription needs an uplink.
        let ed = run(ed, [EditAction::Set { field: Field::Oversub("spine".into()), value: "2".into() }]);
        assert!(ed.message.as_deref().unwrap().contains("no uplink"));
    }

    #[test]
    fn dragging_moves_a_node_undoably_and_loading_replaces_the_document() {
        let ed = editor("teaching");
        let x0 = layout(&ed).nodes.iter().find(|b| b.id == "r0s0").unwrap().x;
        let ed = run(ed, [EditAction::Move { node: "r0s0".into(), dx: 30.0, dy: -5.0 }]);
        let d = layout(&ed);
        let b = d.nodes.iter().find(|b| b.id == "r0s0").unwrap();
        assert_eq!(b.x, x0 + 30.0);
        assert!(
            d.gpus.iter().filter(|g| g.server == "r0s0").all(|g| g.x > b.x && g.x < b.x + b.w),
            "its GPUs move with it"
        );
        assert_eq!(ed.doc.choice, TopologyChoice::Preset("teaching".into()), "moving is not editing the cluster");
        let ed = run(ed, [EditAction::Undo]);
        assert!(ed.doc.offsets.is_empty());
        let other = resolve_topology_arg("n32g4").unwrap();
        let ed =
            run(ed, [EditAction::Load { choice: TopologyChoice::Preset("n32g4".into()), spec: other.spec().clone() }]);
        assert_eq!(ed.gpu_count(), 128);
        let ed = run(ed, [EditAction::Undo]);
        assert_eq!(ed.gpu_count(), 16);
    }

    #[test]
    fn the_keyboard_walks_the_tree() {
        let ed = run(editor("teaching"), [EditAction::SelectMove(Direction::Down)]);
        assert_eq!(ed.selection, Some(Element::Node("spine".into())));
        let ed = run(ed, [EditAction::SelectMove(Direction::Down)]);
        assert_eq!(ed.selection, Some(Element::Node("tor0".into())));
        let ed = run(
            ed,
            [
                EditAction::SelectMove(Direction::Right),
                EditAction::SelectMove(Direction::Down),
                EditAction::SelectMove(Direction::Down),
            ],
        );
        assert_eq!(ed.selection, Some(Element::Gpu("r1s0".into(), 0)));
        let ed = run(
            ed,
            [
                EditAction::SelectMove(Direction::Right),
                EditAction::SelectMove(Direction::Up),
                EditAction::SelectMove(Direction::Up),
            ],
        );
        assert_eq!(ed.selection, Some(Element::Node("tor1".into())));
        let ed = run(ed, [EditAction::SelectMove(Direction::Left)]);
        assert_eq!(ed.selection, Some(Element::Node("tor0".into())));
    }

    #[test]
    fn big_clusters_start_collapsed_and_expand_on_demand() {
        let ed = editor("oversub-2048");
        assert_eq!(ed.collapsed.len(), 16);
        let d = layout(&ed);
        assert!(d.gpus.is_empty());
        assert_eq!(d.nodes.iter().filter(|b| b.kind == BoxKind::CollapsedSwitch).count(), 16);
        assert_eq!(d.links.len(), 16);
        let ed = run(ed, [EditAction::ToggleCollapse("tor3".into())]);
        let d = layout(&ed);
        assert_eq!(d.gpus.len(), 128);
        // GPU ids are the cluster's: rack 3 holds GPUs 384..512.
        assert_eq!(d.gpus.iter().map(|g| g.id).min(), Some(384));
        // Selecting a GPU inside a collapsed rack expands it; collapsing all folds it again.
        let ed = run(ed, [EditAction::Select(Some(Element::Gpu("r7s2".into(), 1))), EditAction::CollapseAll(true)]);
        assert_eq!(ed.selection, Some(Element::Node("tor7".into())));
        assert_eq!(layout(&ed).gpus.len(), 0);
        // Adding a rack to a big cluster stays quick to check and keeps the shape.
        let ed = run(ed, [EditAction::AddRack]);
        assert_eq!(ed.topology.as_ref().unwrap().gpu_count(), 2176);
        assert!(ed.collapsed.contains("tor16"));
        // A collapsed rack with a problem inside shows it.
        let link = ed.doc.spec.links.iter().position(|l| l.a == "r5s0").unwrap();
        let ed = run(
            ed,
            [EditAction::Set { field: Field::LinkBandwidth(link), value: "-1".into() }, EditAction::CollapseAll(true)],
        );
        let d = layout(&ed);
        assert!(d
            .nodes
            .iter()
            .find(|b| b.id == "tor5")
            .unwrap()
            .problem
            .as_deref()
            .unwrap()
            .contains("must be a positive number"));
    }

    #[test]
    fn the_drawing_has_every_gpu_with_the_clusters_ids_and_labelled_links() {
        let ed = editor("teaching");
        let d = layout(&ed);
        let mut ids: Vec<u32> = d.gpus.iter().map(|g| g.id).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..16).collect::<Vec<_>>());
        assert_eq!(d.links.len(), 6);
        assert!(d.links.iter().all(|l| l.y2 < l.y1 && !l.off_tree));
        assert!(d.links.iter().any(|l| l.label == "200 Gb/s"));
        assert!(d.links.iter().any(|l| l.label == "200 Gb/s") && d.links.iter().any(|l| l.label == "200 Gb/s"));
        // Servers sit on the bottom row, switches above.
        let y = |id: &str| d.nodes.iter().find(|b| b.id == id).unwrap().y;
        assert!(y("spine") < y("tor0") && y("tor0") < y("r0s0"));
        // A cycle draws its extra link off the tree and flags it.
        let ed = run(ed, [select("tor0"), EditAction::StartLink, EditAction::LinkTo("tor1".into())]);
        let d = layout(&ed);
        assert_eq!(d.links.iter().filter(|l| l.off_tree).count(), 1, "one link is drawn off the tree");
        assert!(d.links.iter().any(|l| l.problem.as_deref().is_some_and(|p| p.contains("closes a cycle"))));
    }

    #[test]
    fn huge_servers_and_clusters_never_flood_the_drawing() {
        let ed = run(
            editor("teaching"),
            [select("r0s0"), EditAction::Set { field: Field::ServerGpus("r0s0".into()), value: "1000000".into() }],
        );
        assert!(ed.problems.is_empty(), "{:?}", ed.problems);
        let d = layout(&ed);
        assert_eq!(d.gpus.len(), 12, "the big server is a box");
        assert_eq!(d.nodes.iter().find(|b| b.id == "r0s0").unwrap().kind, BoxKind::CollapsedServer);
        let big = Editor::new(
            TopologyChoice::Parametric("racks=40,servers=32,gpus=8".into()),
            Rc::new(resolve_topology_arg("racks=40,servers=32,gpus=8").unwrap()),
        );
        let d = layout(&run(big, [EditAction::CollapseAll(false)]));
        assert_eq!(d.gpus.len() as u32, MAX_GPU_CELLS);
        assert!(d.caption.contains("drawn without GPUs"), "{}", d.caption);
    }

    #[test]
    fn names_are_unique_and_follow_the_pattern() {
        let spec = resolve_topology_arg("teaching").unwrap().spec().clone();
        assert_eq!(unique_id(&spec, "tor1"), "tor2");
        assert_eq!(unique_id(&spec, "spine"), "spine-2");
        assert_eq!(unique_id(&spec, "fresh"), "fresh");
        assert_eq!(next_name("r0s3"), "r0s4");
        assert_eq!(renumber("r1s0", Some(7), "tor7"), "r7s0");
        assert_eq!(renumber("node3", Some(7), "tor7"), "tor7-node3");
        assert_eq!(parse_field("links[3].bandwidth_gbps"), ("links", Some(3), "bandwidth_gbps"));
        assert_eq!(parse_field("switches[2]"), ("switches", Some(2), ""));
        assert_eq!(parse_field("links"), ("links", None, ""));
    }
}
