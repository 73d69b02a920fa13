//! What a nodes file says, in the numbers an operator checks first: the cluster's GPUs,
//! servers, GPU model, switch tiers and multi-node NVLink domains. It is read on the page, through the topology
//! editor's import path (the same readers, already in the page's module), so the section
//! accepts and refuses exactly what the editor and `proxima` do. A job history is read by
//! the worker ([`crate::worker::describe_history`]), as every trace file is.

use crate::editor::cluster_file::import_input;
use proxima_core::error::SourcedError;
use proxima_core::inputs::{read_topology, utf8_text, ArgumentNames, TopologyInput};
use proxima_core::topology::{Tier, Topology};

/// The format a cluster file was read as, which also suggests the scheduler the operator
/// runs (see [`super::Scheduler::guess`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterFormat {
    Slurm,
    Kueue,
    Volcano,
    Lingjun,
    Json,
}

impl ClusterFormat {
    fn of(input: &TopologyInput) -> ClusterFormat {
        match input {
            TopologyInput::Slurm { .. } => ClusterFormat::Slurm,
            TopologyInput::Kueue { .. } => ClusterFormat::Kueue,
            TopologyInput::Volcano { .. } => ClusterFormat::Volcano,
            TopologyInput::Lingjun { .. } => ClusterFormat::Lingjun,
            _ => ClusterFormat::Json,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ClusterFormat::Slurm => "Slurm topology",
            ClusterFormat::Kueue => "Kueue Topology and Nodes",
            ClusterFormat::Volcano => "Volcano HyperNodes",
            ClusterFormat::Lingjun => "Lingjun topo.csv",
            ClusterFormat::Json => "Proxima topology JSON",
        }
    }
}

/// A cluster file as read: what the worker needs to build it again, and its summary.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterSummary {
    pub name: String,
    pub format: ClusterFormat,
    pub input: TopologyInput,
    pub gpus: u32,
    pub servers: u32,
    /// The GPU model the file names (`A100`, `GB200`), if any.
    pub gpu_kind: Option<String>,
    /// Each tier above a server, tightest first: its name and how many groups it has
    /// (`rack`, 4). The whole cluster is the last.
    pub tiers: Vec<(String, u32)>,
    /// The multi-node NVLink domains (GB200 NVL72 racks, Kubernetes cliques, Slurm NVLink
    /// blocks): how many, and the fewest and most GPUs in one; `None` without any.
    pub nvlink_domains: Option<(u32, (u32, u32))>,
    /// The network in one line, as the CLI's summary prints it.
    pub network: String,
    /// What the core read but does not use, as the CLI warns of it.
    pub warnings: Vec<String>,
}

/// Reads a cluster file (`bytes` as chosen or dropped) the way the topology editor
/// imports one, with `options` for what a Slurm or Lingjun file does not say.
pub fn read_cluster(name: &str, bytes: &[u8], options: &str) -> Result<ClusterSummary, SourcedError> {
    let text = utf8_text(name, bytes)?;
    let input = import_input(name, text, options).map_err(|message| SourcedError {
        source: name.to_string(),
        line: None,
        field: "options".to_string(),
        message,
    })?;
    let read = read_topology(&input, ArgumentNames::Words)?;
    let warnings = read.warnings.iter().map(|w| w.to_string()).collect();
    Ok(summarise_cluster(name, input, &read.topology, warnings))
}

fn summarise_cluster(name: &str, input: TopologyInput, topology: &Topology, warnings: Vec<String>) -> ClusterSummary {
    let tiers = (1..topology.tier_count())
        .map(|t| {
            let tier = Tier(t);
            (topology.tier_name(tier).to_string(), topology.tier_nodes(tier).len() as u32)
        })
        .collect();
    let domains: Vec<u32> = topology.nodes().iter().filter(|n| n.is_nvlink_switch()).map(|n| n.gpu_count).collect();
    let nvlink_domains = (!domains.is_empty()).then(|| {
        let (fewest, most) = (domains.iter().min().copied(), domains.iter().max().copied());
        (domains.len() as u32, (fewest.unwrap_or(0), most.unwrap_or(0)))
    });
    ClusterSummary {
        name: name.to_string(),
        nvlink_domains,
        format: ClusterFormat::of(&input),
        gpus: topology.gpu_count(),
        servers: topology.server_count(),
        gpu_kind: topology.gpu().map(str::to_string),
        tiers,
        network: topology.describe_network(),
        warnings,
        input,
    }
}
