//! A Volcano cluster read as Volcano's network-topology-aware scheduler reads it: the
//! `HyperNode` objects of one YAML file (and, for members selected by pattern or label, the
//! `Node` objects), read into a [`TopologySpec`].
//!
//! What Volcano says of them (volcano-sh/apis as of 2026-06, volcano-sh/volcano as of 2026-08):
//! - volcano-sh/apis `pkg/apis/topology/v1alpha1/hypernode_types.go`: a `HyperNode`
//!   (`topology.volcano.sh/v1alpha1`, cluster-scoped) has a `spec.tier` (0 or more), an
//!   optional `spec.tierName`, and `spec.members`, each of `type` `Node` or `HyperNode`
//!   with a `selector` holding exactly one of `exactMatch.name`, `regexMatch.pattern` and
//!   `labelMatch` (a label selector, for nodes only).
//! - volcano-sh/volcano `pkg/util/hypernode/member_selector.go`: a pattern selects the nodes
//!   whose names it matches anywhere (Go's `MatchString`), a label selector the nodes whose
//!   labels it matches; `pkg/scheduler/api/hyper_node_info.go`: a `HyperNode` member is
//!   taken by `exactMatch` only, a `HyperNode` has one parent, and a cycle is an error.
//! - volcano-sh/volcano `docs/user-guide/how_to_use_network_topology_aware_scheduling.md`:
//!   the tree of HyperNodes it draws (s0 to s3 over two nodes each, s4 and s5 over two of
//!   them each, s6 at the top), which the tests read.
//!
//! How the file becomes a Proxima cluster (see `docs/FORMATS.md`):
//!
//! - Each HyperNode is a switch named as the HyperNode, with its `tierName` as its role
//!   (`tier-N` without one), so the cluster's tiers carry the file's names; each node is a
//!   server below the HyperNode that lists it. A node under two HyperNodes, a HyperNode
//!   under two, a cycle or a member that names no HyperNode of the file is an error.
//! - The file does not give GPUs per node nor the network's speed, so the options do, as for
//!   a Slurm file (`gpus`, `nic_gbps`, `nvlink_gbps`, `nics`, `fabric`); links have full
//!   bisection (a switch's uplink carries the links of every node below it).
//! - When several HyperNodes have no parent, a switch `cluster` joins them; a HyperNode with
//!   no node below it is left out with a warning.

use super::kube::{node_labels, Objects};
use super::options::VolcanoOptions;
use super::spec_parts::{link, server};
use super::yaml::{self, Node};
use crate::error::InputError;
use crate::topology::spec::{SwitchSpec, TopologySpec};
use std::collections::BTreeMap;

/// What a Volcano file reads into: the cluster, and what was left out or not read, each on
/// its line (the CLI prints them to stderr as warnings).
#[derive(Clone, Debug, PartialEq)]
pub struct VolcanoTopology {
    pub spec: TopologySpec,
    pub warnings: Vec<InputError>,
}

/// One HyperNode as read: its name, line, role, and its members resolved to names.
struct HyperNode {
    name: String,
    line: u32,
    role: String,
    nodes: Vec<String>,
    children: Vec<usize>,
    parent: Option<usize>,
}

/// The cluster a Volcano file describes, with the options for what it does not say. The
/// description has no name (the caller names it after the file). Errors and warnings carry
/// the line and the field as a path in the object (`spec.members[1].selector`).
pub fn read_volcano_topology(text: &str, options: &VolcanoOptions) -> Result<VolcanoTopology, InputError> {
    let documents = yaml::documents(text)?;
    let objects = Objects::of(&documents, &["HyperNode", "Node"], "HyperNode, Node, List")?;
    let mut warnings = Vec::new();
    let nodes = NodeIndex::of(objects.get("Node"))?;
    let mut hypernodes: Vec<HyperNode> = Vec::new();
    let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
    let mut child_names = Vec::new();
    for object in objects.get("HyperNode") {
        let (hypernode, children) = read_hypernode(object, &nodes, &mut warnings)?;
        if let Some(&first) = by_name.get(&hypernode.name) {
            return Err(InputError::at_line(
                hypernode.line,
                "metadata.name",
                format!("HyperNode '{}' is already on line {}", hypernode.name, hypernodes[first].line),
            ));
        }
        by_name.insert(hypernode.name.clone(), hypernodes.len());
        hypernodes.push(hypernode);
        child_names.push(children);
    }
    if hypernodes.is_empty() {
        return Err(InputError::at_line(
            1,
            "kind",
            "no HyperNode in the file: it needs kind: HyperNode objects (apiVersion topology.volcano.sh/v1alpha1), as kubectl get hypernodes -o yaml prints them",
        ));
    }
    link_children(&mut hypernodes, &by_name, child_names)?;
    check_nodes_once(&hypernodes)?;
    warnings.extend(objects.skipped_warning("the HyperNodes and the Nodes"));
    let spec = build_spec(&hypernodes, options, &mut warnings)?;
    Ok(VolcanoTopology { spec, warnings })
}

/// The `Node` objects of the file, by name, with their labels: what pattern and label
/// selectors are resolved against.
struct NodeIndex {
    names: Vec<String>,
    labels: Vec<BTreeMap<String, String>>,
}

impl NodeIndex {
    fn of(objects: &[&Node]) -> Result<NodeIndex, InputError> {
        let mut index = NodeIndex { names: Vec::new(), labels: Vec::new() };
        for object in objects {
            let metadata = yaml::get(object, "metadata").filter(|m| !yaml::is_null(m)).ok_or_else(|| {
                InputError::at_line(yaml::line(object), "metadata.name", "missing: every node has a name")
            })?;
            index.names.push(yaml::required_text(metadata, "name", "metadata.name")?);
            index.labels.push(node_labels(metadata)?);
        }
        Ok(index)
    }
}

/// One HyperNode: its name, tier and members (nodes resolved, child HyperNodes by name
/// with the line that names them).
fn read_hypernode(
    object: &Node,
    nodes: &NodeIndex,
    warnings: &mut Vec<InputError>,
) -> Result<(HyperNode, Vec<(String, u32)>), InputError> {
    let line = yaml::line(object);
    let api = yaml::required_text(object, "apiVersion", "apiVersion")?;
    if api.split('/').next() != Some("topology.volcano.sh") {
        return Err(InputError::at_line(
            line,
            "apiVersion",
            format!("'{api}' is not Volcano's: a HyperNode is of topology.volcano.sh/v1alpha1"),
        ));
    }
    let metadata = yaml::get(object, "metadata")
        .filter(|m| !yaml::is_null(m))
        .ok_or_else(|| InputError::at_line(line, "metadata.name", "missing: every HyperNode has a name"))?;
    let name = yaml::required_text(metadata, "name", "metadata.name")?;
    let spec = yaml::get(object, "spec")
        .filter(|s| !yaml::is_null(s))
        .ok_or_else(|| InputError::at_line(line, "spec", "missing: a HyperNode has a tier and members"))?;
    let tier_text = yaml::required_text(spec, "tier", "spec.tier")?;
    let tier: u32 = tier_text.parse().map_err(|_| {
        InputError::at_line(
            yaml::line(yaml::get(spec, "tier").unwrap_or(spec)),
            "spec.tier",
            format!("expected a whole number, 0 or more, got '{tier_text}'"),
        )
    })?;
    let role = match yaml::get(spec, "tierName").and_then(yaml::scalar_text) {
        Some(tier_name) if !tier_name.trim().is_empty() => tier_name,
        _ => format!("tier-{tier}"),
    };
    let list = yaml::get(spec, "members").filter(|m| !yaml::is_null(m)).ok_or_else(|| {
        InputError::at_line(yaml::line(spec), "spec.members", "missing: a HyperNode has at least one member")
    })?;
    let mut hypernode = HyperNode { name, line, role, nodes: Vec::new(), children: Vec::new(), parent: None };
    let mut children = Vec::new();
    for (i, member) in yaml::items(list, "spec.members")?.iter().enumerate() {
        let field = format!("spec.members[{i}]");
        let kind = yaml::required_text(member, "type", &format!("{field}.type"))?;
        let selector = yaml::get(member, "selector")
            .filter(|s| !yaml::is_null(s))
            .ok_or_else(|| InputError::at_line(yaml::line(member), format!("{field}.selector"), "missing"))?;
        let chosen = selector_kind(selector, &format!("{field}.selector"))?;
        match (kind.as_str(), chosen) {
            ("Node", Selector::Exact(node)) => hypernode.nodes.push(node),
            ("Node", selected) => {
                let names = resolve(selected, nodes, selector, &format!("{field}.selector"))?;
                if names.is_empty() {
                    warnings.push(InputError::at_line(
                        yaml::line(selector),
                        format!("{field}.selector"),
                        "selects no Node of the file",
                    ));
                }
                hypernode.nodes.extend(names);
            }
            ("HyperNode", Selector::Exact(child)) => children.push((child, yaml::line(member))),
            ("HyperNode", _) => warnings.push(InputError::at_line(
                yaml::line(selector),
                format!("{field}.selector"),
                "not read: Volcano takes a HyperNode member by exactMatch only, and so does Proxima",
            )),
            (other, _) => {
                return Err(InputError::at_line(
                    yaml::line(member),
                    format!("{field}.type"),
                    format!("'{other}' is not a member type: Node or HyperNode"),
                ))
            }
        }
    }
    Ok((hypernode, children))
}

/// The one selector a member holds.
enum Selector<'n, 'a> {
    Exact(String),
    Regex(&'n Node<'a>),
    Labels(&'n Node<'a>),
}

fn selector_kind<'n, 'a>(selector: &'n Node<'a>, field: &str) -> Result<Selector<'n, 'a>, InputError> {
    let present: Vec<&str> =
        ["exactMatch", "regexMatch", "labelMatch"].into_iter().filter(|k| yaml::get(selector, k).is_some()).collect();
    if present.len() != 1 {
        return Err(InputError::at_line(
            yaml::line(selector),
            field,
            format!(
                "holds exactly one of exactMatch, regexMatch and labelMatch, this one {}",
                if present.is_empty() { "none".to_string() } else { present.join(" and ") }
            ),
        ));
    }
    let value = yaml::get(selector, present[0]).expect("present");
    Ok(match present[0] {
        "exactMatch" => Selector::Exact(yaml::required_text(value, "name", &format!("{field}.exactMatch.name"))?),
        "regexMatch" => Selector::Regex(value),
        _ => Selector::Labels(value),
    })
}

/// The nodes of the file a pattern or label selector picks, in the file's order.
fn resolve(selected: Selector, nodes: &NodeIndex, selector: &Node, field: &str) -> Result<Vec<String>, InputError> {
    let (key, value) = match &selected {
        Selector::Regex(value) => ("regexMatch", *value),
        Selector::Labels(value) => ("labelMatch", *value),
        Selector::Exact(_) => unreachable!("exact names need no resolving"),
    };
    if nodes.names.is_empty() {
        return Err(InputError::at_line(
            yaml::line(selector),
            format!("{field}.{key}"),
            "selects Nodes, and the file has none: add them (kubectl get nodes -o yaml) after the HyperNodes",
        ));
    }
    let picked: Vec<bool> = match selected {
        Selector::Regex(value) => {
            let pattern = yaml::required_text(value, "pattern", &format!("{field}.regexMatch.pattern"))?;
            let regex = regex_lite::Regex::new(&pattern).map_err(|e| {
                InputError::at_line(
                    yaml::line(value),
                    format!("{field}.regexMatch.pattern"),
                    format!("not a regular expression: {e}"),
                )
            })?;
            nodes.names.iter().map(|n| regex.is_match(n)).collect()
        }
        _ => {
            if yaml::get(value, "matchExpressions").is_some_and(|m| !yaml::is_null(m)) {
                return Err(InputError::at_line(
                    yaml::line(value),
                    format!("{field}.labelMatch.matchExpressions"),
                    "not read yet: write the selector as matchLabels",
                ));
            }
            let wanted = match yaml::get(value, "matchLabels").filter(|m| !yaml::is_null(m)) {
                Some(labels) => yaml::entries(labels, &format!("{field}.labelMatch.matchLabels"))?
                    .into_iter()
                    .map(|(k, v)| (k, yaml::scalar_text(v).unwrap_or_default()))
                    .collect(),
                None => Vec::new(),
            };
            // An empty selector selects nothing, as Volcano's does.
            nodes.labels.iter().map(|l| !wanted.is_empty() && wanted.iter().all(|(k, v)| l.get(k) == Some(v))).collect()
        }
    };
    Ok(nodes.names.iter().zip(picked).filter(|(_, p)| *p).map(|(n, _)| n.clone()).collect())
}

/// Each HyperNode's children by index: every name a HyperNode of the file, with one parent
/// each, and no cycle.
fn link_children(
    hypernodes: &mut [HyperNode],
    by_name: &BTreeMap<String, usize>,
    child_names: Vec<Vec<(String, u32)>>,
) -> Result<(), InputError> {
    for (parent, children) in child_names.into_iter().enumerate() {
        for (child, line) in children {
            let &c = by_name.get(&child).ok_or_else(|| {
                InputError::at_line(line, "spec.members", format!("no HyperNode named '{child}' in the file"))
            })?;
            if let Some(other) = hypernodes[c].parent.filter(|&o| o != parent) {
                return Err(InputError::at_line(
                    line,
                    "spec.members",
                    format!(
                        "HyperNode '{child}' is already a member of '{}' (line {}): a HyperNode has one parent",
                        hypernodes[other].name, hypernodes[other].line
                    ),
                ));
            }
            if hypernodes[c].parent.is_none() {
                hypernodes[c].parent = Some(parent);
                hypernodes[parent].children.push(c);
            }
        }
    }
    for start in 0..hypernodes.len() {
        let (mut at, mut steps) = (start, 0);
        while let Some(p) = hypernodes[at].parent {
            (at, steps) = (p, steps + 1);
            if p == start || steps > hypernodes.len() {
                return Err(InputError::at_line(
                    hypernodes[start].line,
                    "spec.members",
                    format!(
                        "HyperNode '{}' is its own ancestor: the HyperNodes must form a tree",
                        hypernodes[start].name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Every node under one HyperNode, as a tree has it.
fn check_nodes_once(hypernodes: &[HyperNode]) -> Result<(), InputError> {
    let mut owner: BTreeMap<&str, usize> = BTreeMap::new();
    for (h, hypernode) in hypernodes.iter().enumerate() {
        for node in &hypernode.nodes {
            match owner.insert(node, h) {
                Some(first) if first == h => {
                    return Err(InputError::at_line(hypernode.line, "spec.members", format!("node '{node}' is a member twice")))
                }
                Some(first) => {
                    return Err(InputError::at_line(
                        hypernode.line,
                        "spec.members",
                        format!("node '{node}' is also a member of HyperNode '{}' (line {}): Proxima models trees, so a node is under one HyperNode", hypernodes[first].name, hypernodes[first].line),
                    ))
                }
                None => {}
            }
        }
    }
    if let Some(name) = hypernodes.iter().map(|h| &h.name).find(|h| owner.contains_key(h.as_str())) {
        let h = &hypernodes[owner[name.as_str()]];
        return Err(InputError::at_line(h.line, "spec.members", format!("'{name}' names both a node and a HyperNode")));
    }
    Ok(())
}

/// The description, walking down from the roots; every uplink at full bisection.
fn build_spec(
    hypernodes: &[HyperNode],
    options: &VolcanoOptions,
    warnings: &mut Vec<InputError>,
) -> Result<TopologySpec, InputError> {
    let below: Vec<usize> = (0..hypernodes.len()).map(|h| nodes_below(hypernodes, h)).collect();
    for (h, hypernode) in hypernodes.iter().enumerate() {
        if below[h] == 0 {
            warnings.push(InputError::at_line(
                hypernode.line,
                "spec.members",
                format!("HyperNode '{}' has no node below it and is left out", hypernode.name),
            ));
        }
    }
    let roots: Vec<usize> = (0..hypernodes.len()).filter(|&h| hypernodes[h].parent.is_none() && below[h] > 0).collect();
    if roots.is_empty() {
        return Err(InputError::at_line(hypernodes[0].line, "spec.members", "no HyperNode has a node below it"));
    }
    let node_link = options.links.node_link_gbps();
    let mut spec = options.links.empty_spec();
    if roots.len() > 1 {
        spec.switches.push(SwitchSpec { id: "cluster".to_string(), role: Some("cluster".to_string()) });
        for &r in &roots {
            spec.links.push(link(&hypernodes[r].name, "cluster", below[r] as f64 * node_link));
        }
    }
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(h) = stack.pop() {
        let hypernode = &hypernodes[h];
        spec.switches.push(SwitchSpec { id: hypernode.name.clone(), role: Some(hypernode.role.clone()) });
        for node in &hypernode.nodes {
            spec.servers.push(server(node, options.gpus, &options.links));
            spec.links.push(link(node, &hypernode.name, node_link));
        }
        let children: Vec<usize> = hypernode.children.iter().copied().filter(|&c| below[c] > 0).collect();
        for &c in &children {
            spec.links.push(link(&hypernodes[c].name, &hypernode.name, below[c] as f64 * node_link));
        }
        stack.extend(children.into_iter().rev());
    }
    Ok(spec)
}

/// The nodes below a HyperNode (the links checked the tree has no cycle).
fn nodes_below(hypernodes: &[HyperNode], h: usize) -> usize {
    hypernodes[h].nodes.len() + hypernodes[h].children.iter().map(|&c| nodes_below(hypernodes, c)).sum::<usize>()
}
