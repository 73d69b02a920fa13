//! The pieces of a checked topology: identifiers, nodes of the tree and the links between
//! them.

use serde::Serialize;

/// A GPU, numbered so that the GPUs of every server, rack and larger group are contiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct GpuId(pub u32);

/// A node of the tree: a GPU, a server or a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct NodeId(pub u32);

/// A link from a node to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct LinkId(pub u32);

/// A placement tier: the tightest group that holds all of a job's GPUs. `Tier(0)` is one
/// server, `Tier(1)` the next level up (a rack in the usual three-level cluster), and so on
/// to the whole cluster. [`super::Topology::tier_name`] names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Tier(pub u8);

impl Tier {
    pub const SERVER: Tier = Tier(0);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Gpu,
    Server,
    Switch,
}

/// A node of the rooted tree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// For switches, the role given in the description (`tor`, `spine`, ...), if any.
    pub role: Option<String>,
    pub parent: Option<NodeId>,
    /// The link to the parent.
    pub uplink: Option<LinkId>,
    pub children: Vec<NodeId>,
    /// 0 for a GPU, 1 for a server, one more than its highest child for a switch.
    pub height: u8,
    /// The GPUs below this node are `first_gpu .. first_gpu + gpu_count`.
    pub first_gpu: u32,
    pub gpu_count: u32,
    /// For servers, how many NICs make up the link to the switch; for an NVLink switch
    /// (role `nvlink`), its trays' NICs together, which its link up stands for; 1 for other
    /// nodes.
    pub nics: u32,
}

impl Node {
    /// Whether this node is the NVLink switch of a multi-node NVLink domain (its role is
    /// [`super::NVLINK_ROLE`] or a clique label, [`super::spec::is_nvlink_role`]).
    pub fn is_nvlink_switch(&self) -> bool {
        self.kind == NodeKind::Switch && self.role.as_deref().is_some_and(super::spec::is_nvlink_role)
    }
}

/// A link between a node and its parent. Links are full duplex: the bandwidth is available
/// in each direction, which is what a ring all-reduce uses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Link {
    pub child: NodeId,
    pub parent: NodeId,
    pub bandwidth_gbps: f64,
    pub latency_us: f64,
}

impl Link {
    /// Bandwidth in bytes per second.
    pub fn bytes_per_s(&self) -> f64 {
        self.bandwidth_gbps * 1.0e9 / 8.0
    }
}
