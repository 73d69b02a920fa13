//! The cluster files of schedulers and datasets, each read into a [`TopologySpec`]:
//! the graph in `topology/` knows nothing of them.
//!
//! Where things are:
//! - `options.rs`: what each format's file does not say, one options type per format
//!   ([`SlurmOptions`], [`LingjunOptions`], [`KueueOptions`], [`VolcanoOptions`]) around
//!   the links they share ([`LinkOptions`]);
//! - `slurm.rs`, `slurm_form.rs`, `slurm_tree.rs`, `slurm_block.rs`, `hostlist.rs`:
//!   Slurm's `topology.conf` (tree and block forms) with its host-list ranges, read by
//!   [`read_slurm_topology`] (`slurm_file.rs`) with [`SlurmOptions`], which also reads a
//!   `topology.yaml` (`slurm_yaml.rs`, `slurm_yaml_switches.rs`) into the same switches and
//!   blocks;
//! - `lingjun.rs`: the production topology of Alibaba's Lingjun dataset (`topo.csv`: each
//!   host's ToR, aggregation and core switch), read by [`read_lingjun_topology`] with
//!   [`LingjunOptions`];
//! - `kueue.rs`: a Kueue cluster (a `Topology` of node-label levels and the `Node` objects
//!   in one YAML file), read by [`read_kueue_topology`] with [`KueueOptions`] for its
//!   links; `volcano.rs`: a Volcano cluster (its `HyperNode` objects), read by
//!   [`read_volcano_topology`] with [`VolcanoOptions`]; `kube.rs` the Kubernetes objects of a file and `yaml.rs`
//!   the YAML they are read with (also by the Kubernetes history readers in `trace/`);
//!   `kube_nodes.rs` what nodes say of themselves (their NVLink clique, their GPU product)
//!   and the levels of a file of nodes alone, which [`read_kueue_topology`] also reads.
//! - `spec_parts.rs`: the server (as the options describe it) and the link the readers
//!   build alike.
//!
//! [`TopologySpec`]: crate::topology::TopologySpec

mod hostlist;
mod kube;
mod kube_nodes;
mod kueue;
mod lingjun;
mod options;
mod slurm;
mod slurm_block;
mod slurm_file;
mod slurm_form;
mod slurm_tree;
mod slurm_yaml;
mod slurm_yaml_switches;
mod spec_parts;
mod volcano;
pub(crate) mod yaml;

pub use kube::{GPU_RESOURCE, HOSTNAME_LABEL};
pub use kueue::{read_kueue_topology, KueueTopology};
pub use lingjun::{read_lingjun_topology, LINGJUN_HEADER};
pub use options::{KueueOptions, LingjunOptions, LinkOptions, SlurmOptions, VolcanoOptions, DEFAULT_SLURM_GPUS};
pub use slurm::SlurmTopology;
pub use slurm_file::read_slurm_topology;
pub use volcano::{read_volcano_topology, VolcanoTopology};

#[cfg(test)]
mod kube_nodes_tests;
#[cfg(test)]
mod kueue_tests;
#[cfg(test)]
mod lingjun_tests;
#[cfg(test)]
mod slurm_block_tests;
#[cfg(test)]
mod slurm_tests;
#[cfg(test)]
mod slurm_yaml_tests;
#[cfg(test)]
mod volcano_tests;
