//! Importing a cluster into the editor: a Slurm `topology.conf` (the topology/tree or
//! topology/block form), a Lingjun `topo.csv` (told by its header `ip,DSW,PSW,ASW`), a
//! Kueue file (a `Topology` and the `Node` objects, YAML; told by its `kind:` or
//! `apiVersion:` lines, or JSON objects with an `apiVersion`, as `kubectl -o json` prints
//! them) or a Volcano one (the same, with `kind: HyperNode` objects), with what the file does not say (GPUs per node, NICs and their
//! bandwidth, the fabric; a Kueue file gives each node's GPUs), or a topology JSON file,
//! chosen or dropped on the editor. The core reads them, as the
//! CLI's `--topology slurm:PATH,...` and `--topology FILE` do; a file it refuses changes
//! nothing, and its error names the file, the line and the key
//! (`topology.conf:3: Switches: unknown switch 's2' ...`). What the core accepts but does not
//! use follows the import's message as warnings, as the CLI prints them to stderr. The box
//! that chooses the file and the options is [`super::import_box`].

use super::Editor;
use crate::Shared;
use proxima_core::inputs::{build_topology, topology_warnings, ArgumentNames, TopologyInput};
use proxima_core::share::TopologyChoice;
use proxima_core::topology::formats::{SlurmOptions, LINGJUN_HEADER};
use proxima_core::topology::Topology;

/// A topology file larger than this is refused before reading (a `topology.conf` of a
/// 100,000-node cluster is a few megabytes).
pub const MAX_TOPOLOGY_BYTES: u64 = 32 << 20;

impl Editor {
    /// A file's text: a JSON description if it looks like one, else a Slurm
    /// `topology.conf` read with `options` (`gpus=8,nic_gbps=200,...`). The cluster replaces
    /// the document (undoably) only if the core accepts all of it.
    pub(super) fn import(&mut self, name: &str, text: &str, options: &str) {
        match import_cluster(name, text, options) {
            Ok((topology, warnings)) => {
                let spec = topology.spec().clone();
                let (switches, servers) = (spec.switches.len(), spec.servers.len());
                self.load_checked(TopologyChoice::Custom(spec), Shared::new(topology));
                let warnings: String = warnings.iter().map(|w| format!(" Warning: {w}.")).collect();
                self.message = Some(format!("Imported {name}: {switches} switches, {servers} servers.{warnings}"));
            }
            Err(e) => self.refuse(e),
        }
    }
}

/// An imported file's cluster, as the core builds it, with what the core accepted but does
/// not use (the warnings the CLI prints to stderr). The cluster becomes a scenario's
/// `TopologyChoice::Custom` with its description.
pub fn import_cluster(name: &str, text: &str, options: &str) -> Result<(Topology, Vec<String>), String> {
    let input = import_input(name, text, options)?;
    let topology = build_topology(&input, ArgumentNames::Words).map_err(|e| e.to_string())?;
    Ok((topology, topology_warnings(&input).iter().map(|w| w.to_string()).collect()))
}

/// How the core is to read an imported file: a JSON description if it looks like one, else
/// by its content a Lingjun `topo.csv`, a Volcano or Kueue file, or a Slurm
/// `topology.conf`, with `options` (`gpus=8,nic_gbps=200,...`) for what the file does not
/// say. The editor's Open and drop read files through it, and so do lessons that carry one.
pub fn import_input(name: &str, text: &str, options: &str) -> Result<TopologyInput, String> {
    let (name, text) = (name.to_string(), text.to_string());
    let json = name.to_ascii_lowercase().ends_with(".json") || text.trim_start().starts_with('{');
    if json && !is_kubernetes_json(&text) {
        return Ok(TopologyInput::File { name, text });
    }
    let options = SlurmOptions::parse(options).map_err(|e| format!("Slurm options: {e}"))?;
    Ok(if is_lingjun(&text) {
        TopologyInput::Lingjun { name, text, options }
    } else if (is_kubernetes(&text) && text.contains("kind: HyperNode"))
        || (is_kubernetes_json(&text) && text.contains("\"HyperNode\""))
    {
        TopologyInput::Volcano { name, text, options }
    } else if is_kubernetes(&text) || is_kubernetes_json(&text) {
        TopologyInput::Kueue { name, text, options }
    } else {
        TopologyInput::Slurm { name, text, options }
    })
}

/// Whether a file is a Lingjun `topo.csv`: its first line is the dataset's header. A
/// `topology.conf` line has `Key=Value` pairs, so the two cannot be confused.
fn is_lingjun(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}').trim_start();
    let first = text.lines().next().unwrap_or("").trim();
    first.replace(' ', "").eq_ignore_ascii_case(LINGJUN_HEADER)
}

/// Whether a file holds Kubernetes objects (Kueue's or Volcano's): a line starts
/// with `kind:` or `apiVersion:`, as every object's does. A `topology.conf` line is
/// `Key=Value` pairs and a Lingjun file starts with its header, so neither has such a line.
fn is_kubernetes(text: &str) -> bool {
    text.lines().any(|line| line.starts_with("kind:") || line.starts_with("apiVersion:"))
}

/// Whether a JSON file holds Kubernetes objects, as `kubectl get nodes -o json` prints them
/// (a `List` of `Node`s, or one object): each has an `apiVersion`, which a topology JSON
/// never has. The Kueue reader takes them (YAML 1.2 reads JSON).
fn is_kubernetes_json(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains("\"apiVersion\"")
}
