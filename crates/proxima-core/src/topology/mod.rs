//! The cluster as a graph: GPUs inside servers (each server one NVLink/NVSwitch domain, or
//! a tray of a multi-node NVLink domain under a switch of role `nvlink`, [`NVLINK_ROLE`]),
//! servers under switches, links with bandwidth and latency.
//!
//! Users describe a topology as switches, servers (with their GPU count) and links between
//! them ([`TopologySpec`], the JSON format), as a parametric spec
//! (`racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=F][,gpu=M][,rails=on]`),
//! by a preset name, with a Slurm `topology.conf` or `topology.yaml`, a Lingjun `topo.csv`
//! or a Kueue `Topology` with its nodes (YAML), which are read into a [`TopologySpec`].
//! [`check`] lists every problem of a description as data; [`Topology::from_spec`] refuses
//! a description with the first of them, or derives everything else: the GPUs as leaves of
//! a rooted tree, the tiers (server, rack, cluster, more if the tree is deeper), and the path
//! between any two GPUs.
//!
//! The graph must be a tree. Real clusters often have several parallel uplinks from a
//! top-of-rack switch to several spines; Proxima models them as one link whose bandwidth is
//! their sum, which is what fair sharing of an ECMP-balanced fabric amounts to.
//!
//! Where things are:
//! - `nodes.rs`: the ids ([`GpuId`], [`NodeId`], [`LinkId`], [`Tier`]) and the tree's
//!   [`Node`]s and [`Link`]s;
//! - `spec.rs`: the JSON format ([`TopologySpec`] and its parts), read and written;
//! - `parametric.rs`: the parametric form ([`ParametricSpec`]), and `fabric.rs` what it is
//!   made of: the network ([`Fabric`]: InfiniBand, RoCE, TCP) and the GPU ([`GpuKind`]),
//!   with their collective efficiencies;
//! - `describe.rs`: [`Topology::describe_network`], the one-line description of a
//!   cluster's network that every output prints;
//! - `formats/`: the readers of schedulers' and datasets' cluster files (Slurm's
//!   `topology.conf` and `topology.yaml`, Lingjun's `topo.csv`, Kueue and Volcano objects),
//!   each into a [`TopologySpec`] ([`formats::read_slurm_topology`] and its siblings);
//! - `presets.rs`: the built-in clusters ([`PRESETS`]) and [`resolve_topology_arg`];
//!   `presets_gb200.rs` the GB200 NVL72 racks of `gb200-nvl72`; `presets_workload.rs` the
//!   workload each large preset runs by default;
//! - `check.rs`: [`check`], every [`Problem`] on its [`ElementRef`]; the checks of the
//!   shape (extra server links, cycles, cut-off pieces, the root) in `check/shape.rs`;
//! - `build.rs`: [`Topology`] and [`Topology::from_spec`], the tree built step by step;
//! - `queries.rs`: paths, tiers, common ancestors and the links a ring crosses.

mod build;
mod check;
mod choice;
mod describe;
mod fabric;
pub mod formats;
mod nodes;
mod parametric;
mod presets;
mod queries;
mod spec;

pub use build::Topology;
pub use check::{check, key_label, ElementRef, Problem};
pub use choice::{resolve_topology_arg, TopologyChoice};
pub use fabric::{
    collective, fabric_of, Fabric, GpuKind, DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS, TCP_GPU_LINK_GBPS, TCP_NIC_GBPS,
};
pub use nodes::{GpuId, Link, LinkId, Node, NodeId, NodeKind, Tier};
pub use parametric::ParametricSpec;
pub use presets::presets_sia::{sia_cluster, SiaCluster, SIA_CLUSTERS, SIA_PRESETS};
pub use presets::presets_workload::PresetWorkload;
pub use presets::{all_presets, preset, Preset, PRESETS};
pub use spec::{
    is_nvlink_role, CollectiveSpec, LinkSpec, ServerSpec, SwitchSpec, TopologySpec, ACCELERATOR_LABEL, CLIQUE_LABEL,
    MAX_GPUS, NVLINK_ROLE, RAILS_ROLE, TOPOLOGY_FORMAT_VERSION,
};

#[cfg(test)]
mod check_tests;
#[cfg(test)]
mod describe_tests;
#[cfg(test)]
mod nvlink_tests;
#[cfg(test)]
mod parametric_tests;
