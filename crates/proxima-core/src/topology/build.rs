//! From a checked description to the rooted tree: [`Topology::from_spec`] asks
//! [`super::check`] for problems, then hangs the tree from the root the checks chose,
//! numbers the GPUs depth first and names the tiers.

use super::check::{analyse, Graph};
use super::nodes::{Link, LinkId, Node, NodeId, NodeKind};
use super::spec::{ServerSpec, TopologySpec, RAILS_ROLE};
use crate::comm_params::CommParams;
use crate::error::InputError;
use serde::Serialize;

/// A checked topology: a rooted tree whose leaves are GPUs. Its queries (paths, tiers,
/// links) are in `queries.rs`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Topology {
    pub(super) name: String,
    pub(super) nodes: Vec<Node>,
    pub(super) links: Vec<Link>,
    /// GPU index to its node.
    pub(super) gpu_nodes: Vec<NodeId>,
    /// GPU index to its server node.
    pub(super) gpu_servers: Vec<NodeId>,
    pub(super) servers: Vec<NodeId>,
    pub(super) root: NodeId,
    /// Names of the tiers, `tier_names[t]` for `Tier(t)`.
    pub(super) tier_names: Vec<String>,
    /// The nodes of each height, in GPU order; index 0 holds the GPUs.
    pub(super) nodes_by_height: Vec<Vec<NodeId>>,
    /// The communication parameters the spec's `collective` block resolves to.
    pub(super) comm: CommParams,
    pub(super) spec: TopologySpec,
}

impl Topology {
    /// Checks a description and builds the tree. A description with problems is refused
    /// with the first [`super::check`] finds, which names the field, e.g.
    /// `links[3].bandwidth_gbps: must be a positive number of Gbit/s, got 0`.
    pub fn from_spec(spec: &TopologySpec) -> Result<Topology, InputError> {
        let analysis = analyse(spec);
        if let Some(first) = analysis.problems.first() {
            return Err(first.to_input_error());
        }
        let comm = match &spec.collective {
            Some(block) => block.resolve()?,
            None => CommParams::default(),
        };
        let root = analysis.graph.root.expect("a description without problems has a server");
        let mut topo = Topology::empty(spec, comm);
        topo.hang_tree(spec, &analysis.graph, root);
        topo.index_heights();
        topo.name_tiers();
        Ok(topo)
    }

    fn empty(spec: &TopologySpec, comm: CommParams) -> Topology {
        Topology {
            name: spec.name.clone(),
            nodes: Vec::new(),
            links: Vec::new(),
            gpu_nodes: Vec::new(),
            gpu_servers: Vec::new(),
            servers: Vec::new(),
            root: NodeId(0),
            tier_names: Vec::new(),
            nodes_by_height: Vec::new(),
            comm,
            spec: spec.clone(),
        }
    }

    /// Creates the nodes depth first from the root, children in the order their links were
    /// written, so GPU numbering follows the description and every subtree's GPUs are
    /// contiguous; a node's height and GPU range are set when the walk leaves it. An
    /// explicit stack keeps deep trees from overflowing the call stack.
    fn hang_tree(&mut self, spec: &TopologySpec, graph: &Graph, root: usize) {
        enum Visit {
            Enter { v: usize, parent: Option<(NodeId, usize)>, from: usize },
            Leave { node: NodeId },
        }
        let mut stack = vec![Visit::Enter { v: root, parent: None, from: usize::MAX }];
        while let Some(visit) = stack.pop() {
            match visit {
                Visit::Enter { v, parent, from } => {
                    let id = self.add_node(graph, spec, v);
                    // The uplink before the GPUs' links: link ids follow creation order.
                    if let Some((p, li)) = parent {
                        let l = &spec.links[li];
                        self.attach(id, p, l.bandwidth_gbps, l.latency_us);
                    }
                    if graph.is_server[v] {
                        self.add_gpus(id, &spec.servers[graph.spec_index[v]]);
                    }
                    stack.push(Visit::Leave { node: id });
                    // Push children in reverse so they are entered in the written order.
                    for &(w, li) in graph.adjacency[v].iter().rev() {
                        if li != from {
                            stack.push(Visit::Enter { v: w, parent: Some((id, li)), from: li });
                        }
                    }
                }
                Visit::Leave { node } => self.close_node(node),
            }
        }
        self.root = NodeId(0);
    }

    /// Creates the node for graph node `v`.
    fn add_node(&mut self, graph: &Graph, spec: &TopologySpec, v: usize) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        let index = graph.spec_index[v];
        let (kind, role) = if graph.is_server[v] {
            (NodeKind::Server, None)
        } else {
            (NodeKind::Switch, spec.switches[index].role.clone())
        };
        self.nodes.push(Node {
            name: graph.names[v].to_string(),
            kind,
            role,
            parent: None,
            uplink: None,
            children: Vec::new(),
            height: 1,
            first_gpu: self.gpu_nodes.len() as u32,
            gpu_count: 0,
            nics: if graph.is_server[v] { spec.servers[index].nics } else { 1 },
        });
        id
    }

    /// Creates a server's GPUs below it, each with its link into the NVLink domain.
    fn add_gpus(&mut self, server_node: NodeId, server: &ServerSpec) {
        self.servers.push(server_node);
        for g in 0..server.gpus {
            let gpu = NodeId(self.nodes.len() as u32);
            self.nodes.push(Node {
                name: format!("{}/gpu{g}", server.id),
                kind: NodeKind::Gpu,
                role: None,
                parent: None,
                uplink: None,
                children: Vec::new(),
                height: 0,
                first_gpu: self.gpu_nodes.len() as u32,
                gpu_count: 1,
                nics: 1,
            });
            self.attach(gpu, server_node, server.nvlink_gbps, server.nvlink_latency_us);
            self.gpu_nodes.push(gpu);
            self.gpu_servers.push(server_node);
        }
    }

    /// Sets a node's height and GPU count once everything below it exists.
    fn close_node(&mut self, node: NodeId) {
        let n = &self.nodes[node.0 as usize];
        let height = if n.kind == NodeKind::Server {
            1
        } else {
            1 + n.children.iter().map(|c| self.nodes[c.0 as usize].height).max().unwrap_or(0)
        };
        let count = self.gpu_nodes.len() as u32 - n.first_gpu;
        // An NVLink switch's link up stands for its trays' NICs, so it has their sum.
        let nics =
            if n.is_nvlink_switch() { n.children.iter().map(|c| self.nodes[c.0 as usize].nics).sum() } else { n.nics };
        let n = &mut self.nodes[node.0 as usize];
        n.height = height;
        n.gpu_count = count;
        n.nics = nics;
    }

    fn attach(&mut self, child: NodeId, parent: NodeId, bandwidth_gbps: f64, latency_us: f64) {
        let link = LinkId(self.links.len() as u32);
        self.links.push(Link { child, parent, bandwidth_gbps, latency_us });
        let c = &mut self.nodes[child.0 as usize];
        c.parent = Some(parent);
        c.uplink = Some(link);
        self.nodes[parent.0 as usize].children.push(child);
    }

    /// Lists the nodes of each height. Nodes were created depth first, so within a height
    /// they are in GPU order.
    fn index_heights(&mut self) {
        let max_height = self.nodes[0].height as usize;
        self.nodes_by_height = vec![Vec::new(); max_height + 1];
        for (i, node) in self.nodes.iter().enumerate() {
            self.nodes_by_height[node.height as usize].push(NodeId(i as u32));
        }
    }

    fn name_tiers(&mut self) {
        let max = self.nodes[0].height;
        self.tier_names = (1..=max).map(|h| self.tier_name_of_height(h, max)).collect();
    }

    /// Names the tier bounded by nodes of height `h`: `server` for height 1, then the role
    /// the switches of that height share (`tor` names a `rack`, and so does `rails`, a rail
    /// group standing for the rail switches of a rack, so that tier tables of clusters with
    /// and without rails compare), else `rack` for height 2,
    /// `cluster` for the root, `pod` or `level-N` between.
    fn tier_name_of_height(&self, h: u8, max: u8) -> String {
        if h == 1 {
            return "server".into();
        }
        let roles: Vec<Option<&str>> = self
            .nodes
            .iter()
            .filter(|n| n.height == h && n.kind == NodeKind::Switch)
            .map(|n| n.role.as_deref())
            .collect();
        let shared = roles.first().copied().flatten().filter(|r| roles.iter().all(|x| *x == Some(*r)));
        let from_role = shared.map(|r| match r {
            "tor" | "leaf" | "rack" | RAILS_ROLE => "rack".to_string(),
            "spine" | "core" | "cluster" => "cluster".to_string(),
            "agg" | "aggregation" | "pod" => "pod".to_string(),
            other => other.to_string(),
        });
        let name = from_role.unwrap_or_else(|| match h {
            _ if h == max => "cluster".to_string(),
            2 => "rack".to_string(),
            3 => "pod".to_string(),
            _ => format!("level-{h}"),
        });
        // Two heights must not share a name, or a tier table would be ambiguous.
        let earlier: Vec<String> = (1..h).map(|x| self.tier_name_of_height(x, max)).collect();
        if earlier.contains(&name) {
            format!("{name}-{h}")
        } else {
            name
        }
    }
}
