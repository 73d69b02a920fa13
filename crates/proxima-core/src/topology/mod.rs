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
//! - `slurm.rs`, `slurm_form.rs`, `slurm_tree.rs`, `slurm_block.rs`, `hostlist.rs`,
//!   `slurm_options.rs`: Slurm's `topology.conf` (tree and block forms) with its host-list
//!   ranges, read by [`read_slurm_topology`] with [`SlurmOptions`], which also reads a
//!   `topology.yaml` (`slurm_yaml.rs`, `slurm_yaml_switches.rs`) into the same switches
//!   and blocks;
//! - `lingjun.rs`: the production topology of Alibaba's Lingjun dataset (`topo.csv`: each
//!   host's ToR, aggregation and core switch), read by [`read_lingjun_topology`] with the
//!   same [`SlurmOptions`];
//! - `kueue.rs`: a Kueue cluster (a `Topology` of node-label levels and the `Node` objects
//!   in one YAML file), read by [`read_kueue_topology`] with the same [`SlurmOptions`] for
//!   its links; `volcano.rs`: a Volcano cluster (its `HyperNode` objects), read by
//!   [`read_volcano_topology`]; `kube.rs` the Kubernetes objects of a file and `yaml.rs`
//!   the YAML they are read with; `kube_nodes.rs` what nodes say of themselves (their
//!   NVLink clique, their GPU product) and the levels of a file of nodes alone, which
//!   [`read_kueue_topology`] also reads;
//! - `presets.rs`: the built-in clusters ([`PRESETS`]) and [`resolve_topology_arg`];
//!   `presets_gb200.rs` the GB200 NVL72 racks of `gb200-nvl72`; `presets_workload.rs` the
//!   workload each large preset runs by default;
//! - `check.rs`: [`check`], every [`Problem`] on its [`ElementRef`]; the checks of the
//!   shape (extra server links, cycles, cut-off pieces, the root) in `check/shape.rs`;
//! - `build.rs`: [`Topology`] and [`Topology::from_spec`], the tree built step by step;
//! - `queries.rs`: paths, tiers, common ancestors and the links a ring crosses.

mod build;
mod check;
mod describe;
mod fabric;
mod hostlist;
mod kube;
mod kube_nodes;
mod kueue;
mod lingjun;
mod nodes;
mod parametric;
mod presets;
mod queries;
mod slurm;
mod slurm_block;
mod slurm_file;
mod slurm_form;
mod slurm_options;
mod slurm_tree;
mod slurm_yaml;
mod slurm_yaml_switches;
mod spec;
mod volcano;
pub(crate) mod yaml;

pub use build::Topology;
pub use check::{check, key_label, ElementRef, Problem};
pub use fabric::{
    collective, fabric_of, Fabric, GpuKind, DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS, TCP_GPU_LINK_GBPS, TCP_NIC_GBPS,
};
pub use kube::{GPU_RESOURCE, HOSTNAME_LABEL};
pub use kueue::{read_kueue_topology, KueueTopology};
pub use lingjun::{read_lingjun_topology, LINGJUN_HEADER};
pub use nodes::{GpuId, Link, LinkId, Node, NodeId, NodeKind, Tier};
pub use parametric::ParametricSpec;
pub use presets::presets_sia::{sia_cluster, SiaCluster, SIA_CLUSTERS, SIA_PRESETS};
pub use presets::presets_workload::PresetWorkload;
pub use presets::{all_presets, preset, resolve_topology_arg, Preset, PRESETS};
pub use slurm::SlurmTopology;
pub use slurm_file::read_slurm_topology;
pub use slurm_options::{SlurmOptions, DEFAULT_SLURM_GPUS};
pub use spec::{
    is_nvlink_role, CollectiveSpec, LinkSpec, ServerSpec, SwitchSpec, TopologySpec, ACCELERATOR_LABEL, CLIQUE_LABEL,
    MAX_GPUS, NVLINK_ROLE, RAILS_ROLE, TOPOLOGY_FORMAT_VERSION,
};
pub use volcano::{read_volcano_topology, VolcanoTopology};

#[cfg(test)]
mod check_tests;
#[cfg(test)]
mod describe_tests;
#[cfg(test)]
mod kube_nodes_tests;
#[cfg(test)]
mod kueue_tests;
#[cfg(test)]
mod lingjun_tests;
#[cfg(test)]
mod nvlink_tests;
#[cfg(test)]
mod parametric_tests;
#[cfg(test)]
mod slurm_block_tests;
#[cfg(test)]
mod slurm_tests;
#[cfg(test)]
mod slurm_yaml_tests;
#[cfg(test)]
mod volcano_tests;
