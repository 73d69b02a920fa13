//! Checking a description: every problem it has, each as data — the element it is about,
//! the key at fault, the field path as the file numbers it, and what is wrong — so that an
//! editor can mark elements without reading message text, and the CLI can print the first.
//!
//! The checks run in a fixed order, and [`super::Topology::from_spec`] refuses a description
//! with the first problem found, so the CLI's message for a file does not depend on how
//! many other problems it has:
//! 1. switch ids, then each server (id, GPUs, NVLink bandwidth and latency);
//! 2. the description as a whole (some servers, not too many GPUs), the `collective` block;
//! 3. each link (its ends, bandwidth, latency);
//! 4. the shape: servers with more than one link, links that close cycles, pieces cut off
//!    from the cluster, and, once nothing is cut off, switches below an NVLink switch (role
//!    `nvlink`) and switches with no server below them.
//!
//! A problem found early does not hide later ones: a link to an unknown node is left out of
//! the shape, a server's extra links and the links closing cycles are set aside, and the
//! shape is judged on what remains.

use super::spec::{TopologySpec, MAX_GPUS};
use crate::error::InputError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod shape;

use shape::{choose_root, find_switches_without_servers, set_aside_extra_server_links, walk_pieces};

/// The part of a description a problem is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ElementRef {
    /// The description as a whole (it has no server, or too many GPUs).
    Spec,
    /// The `collective` block.
    Collective,
    /// `switches[index]`, whose id is `id`.
    Switch { index: usize, id: String },
    /// `servers[index]`, whose id is `id`.
    Server { index: usize, id: String },
    /// `links[index]`.
    Link { index: usize },
}

impl ElementRef {
    /// How a person would name the element: `server r0s1`, `link r0s1–tor0`, `switch
    /// spine`, `the collective parameters`, `the cluster`. Ids are quoted only when empty.
    pub fn label(&self, spec: &TopologySpec) -> String {
        match self {
            ElementRef::Spec => "the cluster".to_string(),
            ElementRef::Collective => "the collective parameters".to_string(),
            ElementRef::Switch { index, id } => node_label("switch", *index, id),
            ElementRef::Server { index, id } => node_label("server", *index, id),
            ElementRef::Link { index } => match spec.links.get(*index) {
                Some(l) => format!("link {}–{}", or_unnamed(&l.a), or_unnamed(&l.b)),
                None => format!("link {}", index + 1),
            },
        }
    }
}

fn node_label(kind: &str, index: usize, id: &str) -> String {
    if id.trim().is_empty() {
        format!("{kind} {} (no id)", index + 1)
    } else {
        format!("{kind} {id}")
    }
}

fn or_unnamed(id: &str) -> &str {
    if id.trim().is_empty() {
        "(no id)"
    } else {
        id
    }
}

/// One problem of a description.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub element: ElementRef,
    /// The key of the element at fault (`bandwidth_gbps`, `gpus`, `id`, `a`, `straggler`,
    /// `servers`), or `None` when the element as a whole is (a link that closes a cycle, a
    /// switch with nothing below it, a server cut off from the cluster).
    pub key: Option<String>,
    /// The field path as the file numbers it, which the CLI prints: `links[3].bandwidth_gbps`,
    /// `servers[0].gpus`, `collective.straggler`; `links` for a piece no link connects.
    pub field: String,
    /// What is wrong, in words a user can act on.
    pub message: String,
}

impl Problem {
    fn new(element: ElementRef, key: Option<&str>, field: String, message: String) -> Problem {
        Problem { element, key: key.map(str::to_string), field, message }
    }

    /// The problem as the error [`super::Topology::from_spec`] returns.
    pub fn to_input_error(&self) -> InputError {
        InputError::new(self.field.clone(), self.message.clone())
    }

    /// The problem in words, naming the element by its label rather than its path:
    /// `link r0s1–tor0, bandwidth: must be a positive number of Gbit/s, got 0`.
    pub fn describe(&self, spec: &TopologySpec) -> String {
        let label = self.element.label(spec);
        match self.key.as_deref().map(key_label) {
            Some(key) => format!("{label}, {key}: {}", self.message),
            None => format!("{label}: {}", self.message),
        }
    }
}

/// A key of the format in words.
pub fn key_label(key: &str) -> &str {
    match key {
        "bandwidth_gbps" => "bandwidth",
        "latency_us" => "latency",
        "gpus" => "GPUs",
        "nvlink_gbps" => "NVLink bandwidth",
        "nvlink_latency_us" => "NVLink latency",
        "a" => "first end",
        "b" => "second end",
        "intra_efficiency" => "efficiency inside a server",
        "inter_efficiency" => "efficiency between servers",
        "straggler" => "straggler coefficient",
        other => other,
    }
}

/// Every problem of a description, in the order described in the module's documentation;
/// empty when [`super::Topology::from_spec`] accepts it.
pub fn check(spec: &TopologySpec) -> Vec<Problem> {
    analyse(spec).problems
}

/// The named nodes of a description (switches, then servers, in the order written, each id
/// once) and the links between them that the checks kept: a forest, and a tree when there
/// is no problem.
pub(super) struct Graph<'a> {
    pub names: Vec<&'a str>,
    /// Per node, its index in `spec.switches` or `spec.servers`.
    pub spec_index: Vec<usize>,
    pub is_server: Vec<bool>,
    /// Per node, its neighbours and the index of the link to each, in the order written.
    pub adjacency: Vec<Vec<(usize, usize)>>,
    /// The root of the cluster's main piece; `None` when there is no node at all.
    pub root: Option<usize>,
    index: BTreeMap<&'a str, usize>,
}

impl<'a> Graph<'a> {
    fn add(&mut self, id: &'a str, spec_index: usize, is_server: bool) {
        self.index.insert(id, self.names.len());
        self.names.push(id);
        self.spec_index.push(spec_index);
        self.is_server.push(is_server);
        self.adjacency.push(Vec::new());
    }

    fn len(&self) -> usize {
        self.names.len()
    }

    fn element(&self, v: usize) -> ElementRef {
        let (index, id) = (self.spec_index[v], self.names[v].to_string());
        if self.is_server[v] {
            ElementRef::Server { index, id }
        } else {
            ElementRef::Switch { index, id }
        }
    }

    fn kind(&self, v: usize) -> &'static str {
        if self.is_server[v] {
            "server"
        } else {
            "switch"
        }
    }

    /// Takes the links marked `true` out of the graph, in one pass over it.
    fn remove_links(&mut self, removed: &[bool]) {
        for adj in &mut self.adjacency {
            adj.retain(|&(_, li)| !removed[li]);
        }
    }
}

/// What the checks found: the problems, and the graph a tree is built from when there are
/// none.
pub(super) struct Analysis<'a> {
    pub problems: Vec<Problem>,
    pub graph: Graph<'a>,
}

/// Runs every check, in order.
pub(super) fn analyse(spec: &TopologySpec) -> Analysis<'_> {
    let mut problems = Vec::new();
    let mut graph = index_nodes(spec, &mut problems);
    check_size(spec, &mut problems);
    check_collective(spec, &mut problems);
    link_nodes(spec, &mut graph, &mut problems);
    set_aside_extra_server_links(spec, &mut graph, &mut problems);
    let main = walk_pieces(spec, &mut graph, &mut problems);
    graph.root = choose_root(&graph.adjacency, &graph.is_server, &main);
    // Which switch has nothing below it depends on where the root is, which is not settled
    // while pieces are cut off: a loose rack can move the centre.
    if let (Some(root), true) = (graph.root, main.iter().all(|&m| m)) {
        find_switches_without_servers(spec, &graph, root, &mut problems);
    }
    Analysis { problems, graph }
}

/// Step 1: the ids of switches and servers, and each server's own keys.
fn index_nodes<'a>(spec: &'a TopologySpec, problems: &mut Vec<Problem>) -> Graph<'a> {
    let mut graph = Graph {
        names: Vec::new(),
        spec_index: Vec::new(),
        is_server: Vec::new(),
        adjacency: Vec::new(),
        root: None,
        index: BTreeMap::new(),
    };
    for (i, s) in spec.switches.iter().enumerate() {
        match id_problem(&s.id, &graph.index) {
            Some(message) => problems.push(Problem::new(
                ElementRef::Switch { index: i, id: s.id.clone() },
                Some("id"),
                format!("switches[{i}].id"),
                message,
            )),
            None => graph.add(&s.id, i, false),
        }
    }
    for (i, s) in spec.servers.iter().enumerate() {
        let element = || ElementRef::Server { index: i, id: s.id.clone() };
        let mut report = |key: &str, message: String| {
            problems.push(Problem::new(element(), Some(key), format!("servers[{i}].{key}"), message))
        };
        match id_problem(&s.id, &graph.index) {
            Some(message) => report("id", message),
            None => graph.add(&s.id, i, true),
        }
        if s.gpus == 0 {
            report("gpus", format!("server '{}' has no GPUs", s.id));
        }
        if s.nics == 0 {
            report("nics", "a server needs at least one NIC".to_string());
        }
        if let Some(message) = bandwidth_problem(s.nvlink_gbps) {
            report("nvlink_gbps", message);
        }
        if let Some(message) = latency_problem(s.nvlink_latency_us) {
            report("nvlink_latency_us", message);
        }
    }
    graph
}

/// Step 2a: a cluster has servers, and not more GPUs than Proxima supports.
fn check_size(spec: &TopologySpec, problems: &mut Vec<Problem>) {
    let mut report = |message: String| {
        problems.push(Problem::new(ElementRef::Spec, Some("servers"), "servers".to_string(), message))
    };
    if spec.servers.is_empty() {
        report("a topology needs at least one server with GPUs".to_string());
    }
    let total_gpus: u64 = spec.servers.iter().map(|s| s.gpus as u64).sum();
    if total_gpus > MAX_GPUS as u64 {
        report(format!("{total_gpus} GPUs is more than the {MAX_GPUS} Proxima supports"));
    }
}

/// Step 2b: the keys of the `collective` block.
fn check_collective(spec: &TopologySpec, problems: &mut Vec<Problem>) {
    let Some(collective) = &spec.collective else { return };
    for (key, message) in collective.resolve_all().1 {
        problems.push(Problem::new(ElementRef::Collective, Some(key), format!("collective.{key}"), message));
    }
}

/// Step 3: each link. Links whose ends are known, distinct and not both servers join the
/// graph (a bad bandwidth or latency does not change the shape).
fn link_nodes(spec: &TopologySpec, graph: &mut Graph, problems: &mut Vec<Problem>) {
    for (i, l) in spec.links.iter().enumerate() {
        let element = ElementRef::Link { index: i };
        let mut report = |key: Option<&str>, message: String| {
            let field = match key {
                Some(key) => format!("links[{i}].{key}"),
                None => format!("links[{i}]"),
            };
            problems.push(Problem::new(element.clone(), key, field, message));
        };
        let a = graph.index.get(l.a.as_str()).copied();
        let b = graph.index.get(l.b.as_str()).copied();
        if a.is_none() {
            report(Some("a"), format!("unknown node '{}'", l.a));
        }
        if b.is_none() {
            report(Some("b"), format!("unknown node '{}'", l.b));
        }
        let mut joins = None;
        if let (Some(a), Some(b)) = (a, b) {
            if a == b {
                report(None, format!("links '{}' to itself", l.a));
            } else if graph.is_server[a] && graph.is_server[b] {
                report(None, format!("links two servers ('{}' and '{}'); connect servers through a switch", l.a, l.b));
            } else {
                joins = Some((a, b));
            }
        }
        if let Some(message) = bandwidth_problem(l.bandwidth_gbps) {
            report(Some("bandwidth_gbps"), message);
        }
        if let Some(message) = latency_problem(l.latency_us) {
            report(Some("latency_us"), message);
        }
        if let Some((a, b)) = joins {
            graph.adjacency[a].push((b, i));
            graph.adjacency[b].push((a, i));
        }
    }
}

fn id_problem(id: &str, index: &BTreeMap<&str, usize>) -> Option<String> {
    if id.trim().is_empty() {
        Some("an id must not be empty".to_string())
    } else if index.contains_key(id) {
        Some(format!("duplicate id '{id}'"))
    } else {
        None
    }
}

fn bandwidth_problem(value: f64) -> Option<String> {
    (!(value.is_finite() && value > 0.0)).then(|| format!("must be a positive number of Gbit/s, got {value}"))
}

fn latency_problem(value: f64) -> Option<String> {
    (!(value.is_finite() && value >= 0.0))
        .then(|| format!("must be zero or a positive number of microseconds, got {value}"))
}
