//! A cluster file as the core reads it, for the editor's import ([`super::import`]), the
//! lessons that carry a cluster file and "your cluster": which format a file is in (a
//! Slurm `topology.conf`, a Lingjun `topo.csv`, a Kueue or Volcano file, or a topology
//! JSON file), told by its name and content, and the cluster the core builds from it with
//! the warnings the CLI prints. Pure: no web API.

use super::Editor;
use crate::Shared;
use proxima_core::inputs::{read_topology, ArgumentNames, TopologyInput};
use proxima_core::share::TopologyChoice;
use proxima_core::topology::formats::{KueueOptions, LingjunOptions, SlurmOptions, VolcanoOptions, LINGJUN_HEADER};
use proxima_core::topology::Topology;

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
    let read = read_topology(&input, ArgumentNames::Words).map_err(|e| e.to_string())?;
    Ok((read.topology, read.warnings.iter().map(|w| w.to_string()).collect()))
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
    // Each format reads the options it takes, and refuses a key it does not use in its
    // own name.
    let refused = |format: &'static str| move |e: proxima_core::InputError| format!("{format} options: {e}");
    Ok(if is_lingjun(&text) {
        let options = LingjunOptions::parse(options).map_err(refused("Lingjun"))?;
        TopologyInput::Lingjun { name, text, options }
    } else if (is_kubernetes(&text) && text.contains("kind: HyperNode"))
        || (is_kubernetes_json(&text) && text.contains("\"HyperNode\""))
    {
        let options = VolcanoOptions::parse(options).map_err(refused("Volcano"))?;
        TopologyInput::Volcano { name, text, options }
    } else if is_kubernetes(&text) || is_kubernetes_json(&text) {
        // The import box always sends GPUs per node with the links, for the formats whose
        // files lack them; a Kueue file gives each node's GPUs, so it takes the links alone.
        let boxed = VolcanoOptions::parse(options).map_err(refused("Kueue"))?;
        TopologyInput::Kueue { name, text, options: KueueOptions { links: boxed.links } }
    } else {
        let options = SlurmOptions::parse(options).map_err(refused("Slurm"))?;
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
