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
//!
//! This file is the import's view (the button, the options, the drop); how a file is told
//! and read is [`super::cluster_file`]'s, which lessons and "your cluster" use too.

use super::EditAction;
use proxima_core::topology::formats::DEFAULT_SLURM_GPUS;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// A topology file larger than this is refused before reading (a `topology.conf` of a
/// 100,000-node cluster is a few megabytes).
pub const MAX_TOPOLOGY_BYTES: u64 = 32 << 20;

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
