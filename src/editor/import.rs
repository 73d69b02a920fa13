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
//! use follows the import's message as warnings, as the CLI prints them to stderr.

use super::{EditAction, Editor};
use crate::Shared;
use proxima_core::inputs::{read_topology, ArgumentNames, TopologyInput};
use proxima_core::share::TopologyChoice;
use proxima_core::topology::formats::{
    KueueOptions, LingjunOptions, SlurmOptions, VolcanoOptions, DEFAULT_SLURM_GPUS, LINGJUN_HEADER,
};
use proxima_core::topology::Topology;
use web_sys::HtmlInputElement;
use yew::prelude::*;

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
    // own name. The import box always has a GPUs field, for the formats whose files do not
    // give them; a Kueue file gives each node's GPUs, so that field does not apply to it.
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
        let links: Vec<&str> =
            options.split(',').filter(|p| p.split('=').next().map(str::trim) != Some("gpus")).collect();
        let options = KueueOptions::parse(&links.join(",")).map_err(refused("Kueue"))?;
        TopologyInput::Kueue { name, text, options }
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

#[derive(Properties, PartialEq)]
pub struct ImportProps {
    pub edit: Callback<EditAction>,
}

/// The import box: a file picker and a drop zone, with the Slurm options beside them.
#[component]
pub fn TopologyImport(props: &ImportProps) -> Html {
    let gpus = use_state(|| DEFAULT_SLURM_GPUS.to_string());
    let nic = use_state(String::new);
    let nics = use_state(|| "1".to_string());
    let fabric = use_state(|| "ib".to_string());
    let over = use_state(|| false);
    let options = {
        let mut parts = vec![format!("gpus={}", gpus.trim()), format!("nics={}", nics.trim())];
        parts.push(format!("fabric={}", *fabric));
        if !nic.trim().is_empty() {
            parts.push(format!("nic_gbps={}", nic.trim()));
        }
        parts.join(",")
    };
    let read = {
        let (edit, options) = (props.edit.clone(), options.clone());
        Callback::from(move |file: web_sys::File| {
            let (edit, options, name) = (edit.clone(), options.clone(), file.name());
            if file.size() as u64 > MAX_TOPOLOGY_BYTES {
                edit.emit(EditAction::ImportFailed(format!(
                    "{name}: size: {:.1} MiB is more than a topology file needs (at most {} MiB)",
                    file.size() / 1048576.0,
                    MAX_TOPOLOGY_BYTES >> 20
                )));
                return;
            }
            wasm_bindgen_futures::spawn_local(async move {
                let action = match crate::browser::read_file(file).await {
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(text) => EditAction::Import { name, text, options },
                        Err(_) => EditAction::ImportFailed(format!(
                            "{name}: encoding: not valid UTF-8; save the file as UTF-8"
                        )),
                    },
                    Err(message) => EditAction::ImportFailed(message),
                };
                edit.emit(action);
            });
        })
    };
    let on_file = {
        let read = read.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(f) = input.files().and_then(|f| f.get(0)) {
                read.emit(f);
            }
            // Forget it, so that choosing the same file again (after fixing it) reads it again.
            input.set_value("");
        })
    };
    let on_drop = {
        let (read, over) = (read.clone(), over.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(false);
            if let Some(f) = e.data_transfer().and_then(|t| t.files()).and_then(|f| f.get(0)) {
                read.emit(f);
            }
        })
    };
    let on_drag_over = {
        let over = over.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if !*over {
                over.set(true);
            }
        })
    };
    let on_drag_leave = {
        let over = over.clone();
        Callback::from(move |_: DragEvent| over.set(false))
    };
    let text_field = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: Event| state.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_fabric = {
        let fabric = fabric.clone();
        Callback::from(move |e: Event| fabric.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    html! {
        <div class={classes!("editor-import", over.then_some("over"))} data-testid="topology-import"
             ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
            <label class="file-button">{ "Import Slurm topology.conf, Lingjun topo.csv, Kueue or Volcano YAML, or JSON…" }
                <input type="file" accept=".conf,.txt,.csv,.json,.yaml,.yml,text/plain,application/json,application/yaml" onchange={on_file}
                       data-testid="slurm-input" />
            </label>
            <span class="hint">{ " or drop it here. A topology.conf says nothing of GPUs or speeds: " }</span>
            <label>{ "GPUs per node " }
                <input type="number" min="1" step="1" value={(*gpus).clone()} onchange={text_field(&gpus)} data-testid="slurm-gpus" /></label>
            <label>{ "NICs per node " }
                <input type="number" min="1" step="1" value={(*nics).clone()} onchange={text_field(&nics)} data-testid="slurm-nics" /></label>
            <label>{ "NIC Gb/s " }
                <input type="number" min="0" step="any" placeholder="fabric's" value={(*nic).clone()} onchange={text_field(&nic)} data-testid="slurm-nic" /></label>
            // Radio buttons rather than a <select>: the cluster section's one <select> is the
            // preset list.
            <span role="radiogroup" aria-label="Fabric" data-testid="slurm-fabric">
                <label><input type="radio" name="slurm-fabric" value="ib" checked={*fabric == "ib"} onchange={on_fabric.clone()} />{ " InfiniBand (NVSwitch)" }</label>
                <label><input type="radio" name="slurm-fabric" value="tcp" checked={*fabric == "tcp"} onchange={on_fabric} />{ " TCP (PCIe, Ethernet)" }</label>
            </span>
        </div>
    }
}
