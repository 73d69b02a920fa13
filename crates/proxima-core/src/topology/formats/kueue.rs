//! A Kueue cluster read as Kueue's Topology-Aware Scheduling (TAS) reads it: one YAML file
//! holding a `Topology` object and the cluster's `Node` objects, read into a
//! [`TopologySpec`].
//!
//! What Kueue says of them (kubernetes-sigs/kueue, files as of 2026-08):
//! - `apis/kueue/v1beta2/topology_types.go` (the same in `v1beta1`): a `Topology`
//!   (`kueue.x-k8s.io`, cluster-scoped) lists `spec.levels`, from 1 to 16 of them, each a
//!   `nodeLabel`, the widest level first; the levels are unique, and
//!   `kubernetes.io/hostname`, if present, is the last.
//! - `site/content/en/docs/concepts/topology_aware_scheduling.md`: a node's place is the
//!   values of its level labels, and a value names a domain only under its parent (two
//!   blocks may each have a rack `rack-1`); TAS counts the `.status.allocatable` of nodes
//!   that are ready (`Ready=True`) and schedulable (not `.spec.unschedulable`).
//! - `pkg/cache/scheduler/tas_nodes_cache.go` and `pkg/util/tas/node.go`: a node without
//!   one of the levels' labels belongs to no domain of the topology and is not used.
//! - `site/static/examples/tas/`: the documentation's examples (a `Topology` with block,
//!   rack and hostname levels, and a kind cluster labelled to match).
//!
//! The nodes come as `kind: Node` documents or as a `kind: List` (or `NodeList`) with
//! `items`, as `kubectl get nodes -o yaml` prints them. A `ResourceFlavor` whose
//! `spec.topologyName` is the Topology's name narrows the nodes to those with its
//! `spec.nodeLabels` (`NodeMatchesFlavor` in `pkg/util/tas/node.go`; with several such
//! flavors, a node of any of them is in); other objects in the file (queues) are skipped
//! with a warning. How the file becomes a Proxima cluster (see `docs/FORMATS.md`):
//!
//! - A node's GPUs are its `nvidia.com/gpu` in `status.allocatable`, what TAS counts, or in
//!   `status.capacity` when the file has no `allocatable` (a file written by hand). A node
//!   without GPUs, one not ready or unschedulable, one outside the flavors, and one without
//!   a level's label is left out, as TAS leaves it out, and each group is counted in a
//!   warning that names them.
//! - Each level but `kubernetes.io/hostname` is a tier of switches, one switch per domain,
//!   named by the domain's path of label values (`b1/r2`) and with the level's label as its
//!   role, so the cluster's tiers carry the file's names; the hostname level is the server
//!   itself. When the widest level has several domains, a switch `cluster` joins them.
//! - The file says nothing of links, so the parametric options give them (`nic_gbps`,
//!   `nvlink_gbps`, `nics`, `fabric`; `gpus` is not used, the file gives each node's
//!   GPUs), with full bisection as for a Slurm tree: a node's link is `nics × nic_gbps` and
//!   a switch's uplink carries the links of every node below it.

use super::kube::{node_gpus, node_labels, Objects, GPU_RESOURCE, HOSTNAME_LABEL};
use super::kube_nodes::{implied_levels, named_gpu, set_gpu, PRODUCT_LABEL};
use super::options::KueueOptions;
use super::spec_parts::link;
use super::yaml::{self, Node};
use crate::error::InputError;
use crate::topology::spec::{default_nvlink_latency_us, is_nvlink_role, ServerSpec, SwitchSpec, TopologySpec};
use std::collections::BTreeMap;

/// The most levels a `Topology` may have (the API's validation).
const MAX_LEVELS: usize = 16;

/// The most node names a warning lists before it says how many more there are.
const NAMES_IN_WARNING: usize = 5;

/// What a Kueue file reads into: the cluster, the levels as the file names them (widest
/// first, the switch roles of their tiers), and what was left out, each with its line
/// (the CLI prints them to stderr as warnings).
#[derive(Clone, Debug, PartialEq)]
pub struct KueueTopology {
    pub spec: TopologySpec,
    pub levels: Vec<String>,
    pub warnings: Vec<InputError>,
}

/// A node TAS uses: its name, GPUs and the line it starts on.
struct UsedNode {
    name: String,
    gpus: u32,
    /// The label value of each switch level, widest first.
    path: Vec<String>,
    /// Its `nvidia.com/gpu.product` label and that label's line, if it has one.
    product: Option<(u32, String)>,
}

/// Nodes left out for one reason: the first one's line and every name.
#[derive(Default)]
struct LeftOut {
    line: Option<u32>,
    names: Vec<String>,
}

impl LeftOut {
    fn add(&mut self, line: u32, name: &str) {
        self.line.get_or_insert(line);
        self.names.push(name.to_string());
    }

    /// The warning for this group, or none if it is empty: `what` says why they are out.
    fn warning(&self, field: &str, what: &str) -> Option<InputError> {
        let line = self.line?;
        let shown = self.names.iter().take(NAMES_IN_WARNING).cloned().collect::<Vec<_>>().join(", ");
        let more = self.names.len().saturating_sub(NAMES_IN_WARNING);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        let count = match self.names.len() {
            1 => "1 node".to_string(),
            n => format!("{n} nodes"),
        };
        Some(InputError::at_line(line, field, format!("{count} left out ({shown}{more}): {what}")))
    }
}

/// The cluster a Kueue file describes (a `Topology` and its `Node`s), with the options for
/// the links the file does not describe. The description has no name (the caller names it
/// after the file). Errors and warnings carry the line and the field as a path in the
/// object (`spec.levels[2].nodeLabel`, `status.allocatable`).
pub fn read_kueue_topology(text: &str, options: &KueueOptions) -> Result<KueueTopology, InputError> {
    let documents = yaml::documents(text)?;
    let objects = Objects::of(&documents, &["Topology", "Node", "ResourceFlavor"], "Topology, Node, List")?;
    let topology = the_topology(objects.get("Topology"))?;
    if topology.is_none() && objects.get("Node").is_empty() {
        return Err(InputError::at_line(
            1,
            "kind",
            "no Topology and no Node in the file: it needs the nodes, as kind: Node objects or the List kubectl get nodes -o yaml (or -o json) prints, and for Kueue a kind: Topology object (apiVersion kueue.x-k8s.io/v1beta2) whose spec.levels name the node labels",
        ));
    }
    // A file of nodes alone is read with the levels its labels imply (`kube_nodes.rs`).
    let (levels, optional_clique) = match topology {
        Some(t) => (read_levels(t)?, false),
        None => implied_levels(objects.get("Node"))?,
    };
    let switch_levels = match levels.last().map(String::as_str) {
        Some(HOSTNAME_LABEL) => &levels[..levels.len() - 1],
        _ => &levels[..],
    };
    let flavors = match topology {
        Some(t) => flavor_selectors(objects.get("ResourceFlavor"), t)?,
        None => Vec::new(),
    };
    let mut warnings = Vec::new();
    let shape = Levels { all: &levels, switches: switch_levels, optional_last: optional_clique };
    let nodes = used_nodes(objects.get("Node"), &shape, &flavors, &mut warnings)?;
    warnings.extend(objects.skipped_warning("the Topology, its ResourceFlavors and the Nodes"));
    let products: Vec<(u32, String)> = nodes.iter().filter_map(|n| n.product.clone()).collect();
    // A GPU the options name wins over the nodes' labels.
    let gpu = match options.links.gpu {
        Some(kind) => Some((kind, options.links.nvlink_gbps)),
        None => named_gpu(&products, &options.links, &mut warnings),
    };
    let mut spec = build_spec(&nodes, switch_levels, options, gpu.map_or(options.links.nvlink_gbps, |(_, link)| link));
    if let Some((kind, _)) = gpu {
        set_gpu(&mut spec, kind, &options.links);
    }
    Ok(KueueTopology { spec, levels, warnings })
}

/// The levels nodes are read with: all of them, the switch levels (all but the hostname),
/// and whether a node may lack the last switch level's label (a clique level implied by a
/// file of nodes alone, which ordinary servers do not carry).
struct Levels<'l> {
    all: &'l [String],
    switches: &'l [String],
    optional_last: bool,
}

/// The file's one `Topology`, checked to be Kueue's; `None` if it has none.
fn the_topology<'n, 'a>(topologies: &[&'n Node<'a>]) -> Result<Option<&'n Node<'a>>, InputError> {
    for (i, object) in topologies.iter().enumerate() {
        let api = yaml::required_text(object, "apiVersion", "apiVersion")?;
        if api.split('/').next() != Some("kueue.x-k8s.io") {
            return Err(InputError::at_line(
                yaml::line(yaml::get(object, "apiVersion").unwrap_or(object)),
                "apiVersion",
                format!("'{api}' is not Kueue's: a Topology is of kueue.x-k8s.io (v1beta1 or v1beta2)"),
            ));
        }
        if i > 0 {
            return Err(InputError::at_line(
                yaml::line(object),
                "kind",
                format!(
                    "a second Topology (the first is on line {}): Proxima simulates one topology, so keep the one the ResourceFlavor names in its own file",
                    yaml::line(topologies[0])
                ),
            ));
        }
    }
    Ok(topologies.first().copied())
}

/// The `spec.nodeLabels` of each `ResourceFlavor` whose `spec.topologyName` is the
/// Topology's name: a node belongs to the flavor if it has all of them. No such flavor
/// leaves every node in, as a file of only the Topology and the nodes means.
fn flavor_selectors(flavors: &[&Node], topology: &Node) -> Result<Vec<BTreeMap<String, String>>, InputError> {
    let Some(name) = yaml::get(topology, "metadata").and_then(|m| yaml::get(m, "name")).and_then(yaml::scalar_text)
    else {
        return Ok(Vec::new());
    };
    let mut selectors = Vec::new();
    for flavor in flavors {
        let Some(spec) = yaml::get(flavor, "spec").filter(|s| !yaml::is_null(s)) else { continue };
        if yaml::get(spec, "topologyName").and_then(yaml::scalar_text).as_deref() != Some(name.as_str()) {
            continue;
        }
        let mut selector = BTreeMap::new();
        if let Some(labels) = yaml::get(spec, "nodeLabels").filter(|l| !yaml::is_null(l)) {
            for (key, value) in yaml::entries(labels, "spec.nodeLabels")? {
                selector.insert(key, yaml::scalar_text(value).unwrap_or_default());
            }
        }
        selectors.push(selector);
    }
    Ok(selectors)
}

/// The `nodeLabel` of each level, checked as the API checks them.
fn read_levels(topology: &Node) -> Result<Vec<String>, InputError> {
    let spec = yaml::get(topology, "spec").filter(|s| !yaml::is_null(s)).ok_or_else(|| {
        InputError::at_line(yaml::line(topology), "spec.levels", "missing: a Topology lists its levels")
    })?;
    let list = yaml::get(spec, "levels")
        .filter(|l| !yaml::is_null(l))
        .ok_or_else(|| InputError::at_line(yaml::line(spec), "spec.levels", "missing: a Topology lists its levels"))?;
    let items = yaml::items(list, "spec.levels")?;
    if items.is_empty() || items.len() > MAX_LEVELS {
        return Err(InputError::at_line(
            yaml::line(list),
            "spec.levels",
            format!("a Topology has from 1 to {MAX_LEVELS} levels, this one {}", items.len()),
        ));
    }
    let mut levels: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = format!("spec.levels[{i}].nodeLabel");
        yaml::entries(item, &format!("spec.levels[{i}]"))?;
        let label = yaml::required_text(item, "nodeLabel", &field)?;
        let at = yaml::line(item);
        if let Some(j) = levels.iter().position(|l| *l == label) {
            return Err(InputError::at_line(at, field, format!("'{label}' is already level {j}: levels are unique")));
        }
        if levels.last().map(String::as_str) == Some(HOSTNAME_LABEL) {
            return Err(InputError::at_line(
                at,
                field,
                format!("a level below {HOSTNAME_LABEL}: a node is the narrowest domain, so {HOSTNAME_LABEL} is the last level"),
            ));
        }
        levels.push(label);
    }
    Ok(levels)
}

/// The nodes TAS would use, in the file's order; the others go into warnings.
fn used_nodes(
    objects: &[&Node],
    levels: &Levels,
    flavors: &[BTreeMap<String, String>],
    warnings: &mut Vec<InputError>,
) -> Result<Vec<UsedNode>, InputError> {
    let (mut no_gpus, mut not_ready, mut unlabelled) = (LeftOut::default(), LeftOut::default(), LeftOut::default());
    let mut outside = LeftOut::default();
    let mut missing_labels = BTreeMap::new();
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    let mut used = Vec::new();
    for object in objects {
        let line = yaml::line(object);
        let metadata = yaml::get(object, "metadata")
            .filter(|m| !yaml::is_null(m))
            .ok_or_else(|| InputError::at_line(line, "metadata.name", "missing: every node has a name"))?;
        let name = yaml::required_text(metadata, "name", "metadata.name")?;
        if let Some(first) = seen.insert(name.clone(), line) {
            return Err(InputError::at_line(
                line,
                "metadata.name",
                format!("node '{name}' is already on line {first}"),
            ));
        }
        let gpus = node_gpus(object)?;
        if gpus == 0 {
            no_gpus.add(line, &name);
            continue;
        }
        if !schedulable_and_ready(object)? {
            not_ready.add(line, &name);
            continue;
        }
        let labels = node_labels(metadata)?;
        let in_flavor = |flavor: &BTreeMap<String, String>| flavor.iter().all(|(k, v)| labels.get(k) == Some(v));
        if !flavors.is_empty() && !flavors.iter().any(in_flavor) {
            outside.add(line, &name);
            continue;
        }
        let optional = levels.optional_last.then(|| levels.switches.last()).flatten();
        if let Some(missing) = levels.all.iter().find(|l| !labels.contains_key(*l) && Some(*l) != optional) {
            unlabelled.add(line, &name);
            missing_labels.entry(missing.clone()).or_insert(name.clone());
            continue;
        }
        let path = levels.switches.iter().map_while(|l| labels.get(l).cloned()).collect();
        let product = labels.get(PRODUCT_LABEL).map(|p| (product_line(metadata), p.clone()));
        used.push(UsedNode { name, gpus, path, product });
    }
    let labels: Vec<String> = missing_labels.iter().map(|(label, node)| format!("{label} (first: {node})")).collect();
    let unlabelled_why = format!(
        "a node without a level's label is in no domain of the topology and TAS does not use it; missing: {}",
        labels.join(", ")
    );
    warnings.extend(
        no_gpus.warning("status.allocatable", &format!("no {GPU_RESOURCE} in status.allocatable or status.capacity")),
    );
    warnings.extend(not_ready.warning("status.conditions", "not Ready or unschedulable, so TAS does not count it"));
    warnings.extend(outside.warning(
        "metadata.labels",
        "the nodeLabels of no ResourceFlavor of this Topology match its labels, so TAS does not use it",
    ));
    warnings.extend(unlabelled.warning("metadata.labels", &unlabelled_why));
    if used.is_empty() {
        let why = warnings.iter().map(|w| w.message.as_str()).collect::<Vec<_>>().join("; ");
        let line = warnings.iter().filter_map(|w| w.line).min().unwrap_or(1);
        return Err(InputError::at_line(
            line,
            "kind",
            format!("no node that TAS would use: every node is ready, schedulable, has {GPU_RESOURCE} and every level's label; {}", if why.is_empty() { "the file has no Node".to_string() } else { why }),
        ));
    }
    Ok(used)
}

/// Whether TAS counts a node: not `spec.unschedulable`, and `Ready` if the file has its
/// conditions (a file written by hand often has none; such a node is taken as ready).
fn schedulable_and_ready(object: &Node) -> Result<bool, InputError> {
    let unschedulable =
        yaml::get(object, "spec").and_then(|s| yaml::get(s, "unschedulable")).and_then(yaml::scalar_text);
    if unschedulable.as_deref() == Some("true") {
        return Ok(false);
    }
    let Some(conditions) =
        yaml::get(object, "status").and_then(|s| yaml::get(s, "conditions")).filter(|c| !yaml::is_null(c))
    else {
        return Ok(true);
    };
    for condition in yaml::items(conditions, "status.conditions")? {
        if yaml::get(condition, "type").and_then(yaml::scalar_text).as_deref() == Some("Ready") {
            return Ok(yaml::get(condition, "status").and_then(yaml::scalar_text).as_deref() == Some("True"));
        }
    }
    Ok(true)
}

/// One switch of the tree: its path name, the level it is a domain of (none for the root
/// added above the widest level), its children and its nodes, in the file's order.
struct Switch {
    id: String,
    level: Option<usize>,
    children: Vec<usize>,
    nodes: Vec<usize>,
}

/// The description: the domains of each switch level as switches, walking down from the
/// root; every uplink at full bisection.
fn build_spec(nodes: &[UsedNode], switch_levels: &[String], options: &KueueOptions, gpu_link: f64) -> TopologySpec {
    let mut switches = vec![Switch { id: "cluster".to_string(), level: None, children: Vec::new(), nodes: Vec::new() }];
    let mut by_path: BTreeMap<String, usize> = BTreeMap::new();
    for (n, node) in nodes.iter().enumerate() {
        let mut parent = 0;
        for depth in 0..node.path.len() {
            let id = node.path[..=depth].join("/");
            parent = *by_path.entry(id.clone()).or_insert_with(|| {
                switches.push(Switch { id, level: Some(depth), children: Vec::new(), nodes: Vec::new() });
                let index = switches.len() - 1;
                switches[parent].children.push(index);
                index
            });
        }
        switches[parent].nodes.push(n);
    }
    // One domain at the widest level is the root itself, unless nodes without a clique
    // hang beside it.
    let root = match switches[0].children[..] {
        [only] if switches[0].nodes.is_empty() => only,
        _ => 0,
    };
    let node_link = options.links.node_link_gbps();
    let mut spec = options.links.empty_spec();
    let mut stack = vec![root];
    while let Some(s) = stack.pop() {
        let switch = &switches[s];
        let role = switch.level.map_or_else(|| "cluster".to_string(), |l| switch_levels[l].clone());
        spec.switches.push(SwitchSpec { id: switch.id.clone(), role: Some(role) });
        // The trays of an NVLink domain join it by their GPUs' NVLink; its link up is their NICs.
        let nvlink_domain = switch.level.is_some_and(|l| is_nvlink_role(&switch_levels[l]));
        for &n in &switch.nodes {
            let node = &nodes[n];
            spec.servers.push(ServerSpec {
                id: node.name.clone(),
                gpus: node.gpus,
                nvlink_gbps: gpu_link,
                nvlink_latency_us: default_nvlink_latency_us(),
                nics: options.links.nics,
            });
            if nvlink_domain {
                let mut nvlink = link(&node.name, &switch.id, node.gpus as f64 * gpu_link);
                nvlink.latency_us = default_nvlink_latency_us();
                spec.links.push(nvlink);
            } else {
                spec.links.push(link(&node.name, &switch.id, node_link));
            }
        }
        for &c in &switch.children {
            let below = nodes_below(&switches, c) as f64;
            spec.links.push(link(&switches[c].id, &switch.id, below * node_link));
        }
        stack.extend(switch.children.iter().rev());
    }
    spec
}

/// The nodes below a switch; the tree is at most 16 levels deep.
fn nodes_below(switches: &[Switch], s: usize) -> usize {
    switches[s].nodes.len() + switches[s].children.iter().map(|&c| nodes_below(switches, c)).sum::<usize>()
}

/// The line of a node's `nvidia.com/gpu.product` label (its metadata's, if not found).
fn product_line(metadata: &Node) -> u32 {
    let labels = yaml::get(metadata, "labels");
    yaml::line(labels.and_then(|l| yaml::get(l, PRODUCT_LABEL)).unwrap_or(metadata))
}
