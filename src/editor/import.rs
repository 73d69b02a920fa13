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

/// The import box's option fields, as typed (checked by the core when a file is read).
#[derive(Clone, Debug, PartialEq)]
pub struct SlurmFields {
    pub gpus: String,
    pub nics: String,
    /// Empty for the fabric's own speed.
    pub nic_gbps: String,
    /// `ib` or `tcp`.
    pub fabric: String,
}

impl Default for SlurmFields {
    fn default() -> SlurmFields {
        SlurmFields {
            gpus: DEFAULT_SLURM_GPUS.to_string(),
            nics: "1".to_string(),
            nic_gbps: String::new(),
            fabric: "ib".to_string(),
        }
    }
}

impl SlurmFields {
    /// The fields as Slurm options (`gpus=8,nics=1,fabric=ib`), the NIC speed only when
    /// one is typed.
    pub fn options(&self) -> String {
        let mut parts = vec![format!("gpus={}", self.gpus.trim()), format!("nics={}", self.nics.trim())];
        parts.push(format!("fabric={}", self.fabric));
        if !self.nic_gbps.trim().is_empty() {
            parts.push(format!("nic_gbps={}", self.nic_gbps.trim()));
        }
        parts.join(",")
    }
}

/// Why a file of `bytes` is refused before it is read, if it is larger than a topology
/// file needs.
pub fn size_refusal(name: &str, bytes: f64) -> Option<String> {
    (bytes as u64 > MAX_TOPOLOGY_BYTES).then(|| {
        format!(
            "{name}: size: {:.1} MiB is more than a topology file needs (at most {} MiB)",
            bytes / 1048576.0,
            MAX_TOPOLOGY_BYTES >> 20
        )
    })
}

/// Reads a chosen or dropped file and sends it to the editor with `options`, or why it
/// cannot be read (too large, not UTF-8, the browser's error).
fn file_reader(edit: Callback<EditAction>, options: String) -> Callback<web_sys::File> {
    Callback::from(move |file: web_sys::File| {
        let (edit, options, name) = (edit.clone(), options.clone(), file.name());
        if let Some(refusal) = size_refusal(&name, file.size()) {
            edit.emit(EditAction::ImportFailed(refusal));
            return;
        }
        wasm_bindgen_futures::spawn_local(async move {
            let action = match crate::browser::read_file(file).await {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => EditAction::Import { name, text, options },
                    Err(_) => {
                        EditAction::ImportFailed(format!("{name}: encoding: not valid UTF-8; save the file as UTF-8"))
                    }
                },
                Err(message) => EditAction::ImportFailed(message),
            };
            edit.emit(action);
        });
    })
}

/// The file picker's change: reads the chosen file.
fn on_file_chosen(read: Callback<web_sys::File>) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let input = e.target_unchecked_into::<HtmlInputElement>();
        if let Some(f) = input.files().and_then(|f| f.get(0)) {
            read.emit(f);
        }
        // Forget it, so that choosing the same file again (after fixing it) reads it again.
        input.set_value("");
    })
}

/// A drop zone: whether a file is dragged over it, and its handlers.
struct DropZone {
    over: bool,
    on_drag_over: Callback<DragEvent>,
    on_drag_leave: Callback<DragEvent>,
    on_drop: Callback<DragEvent>,
}

/// A drop zone that reads the first file dropped on it.
#[hook]
fn use_drop_zone(read: Callback<web_sys::File>) -> DropZone {
    let over = use_state(|| false);
    let on_drop = {
        let over = over.clone();
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
    DropZone { over: *over, on_drag_over, on_drag_leave, on_drop }
}

#[derive(Properties, PartialEq)]
pub struct ImportProps {
    pub edit: Callback<EditAction>,
}

/// The import box: a file picker and a drop zone, with the Slurm options beside them.
#[component]
pub fn TopologyImport(props: &ImportProps) -> Html {
    let fields = use_state(SlurmFields::default);
    let read = file_reader(props.edit.clone(), fields.options());
    let drop = use_drop_zone(read.clone());
    let on_fields = {
        let fields = fields.clone();
        Callback::from(move |changed: SlurmFields| fields.set(changed))
    };
    html! {
        <div class={classes!("editor-import", drop.over.then_some("over"))} data-testid="topology-import"
             ondragover={drop.on_drag_over} ondragleave={drop.on_drag_leave} ondrop={drop.on_drop}>
            <label class="file-button">{ "Import Slurm topology.conf, Lingjun topo.csv, Kueue or Volcano YAML, or JSON…" }
                <input type="file" accept=".conf,.txt,.csv,.json,.yaml,.yml,text/plain,application/json,application/yaml" onchange={on_file_chosen(read)}
                       data-testid="slurm-input" />
            </label>
            <span class="hint">{ " or drop it here. A topology.conf says nothing of GPUs or speeds: " }</span>
            <SlurmOptionFields fields={(*fields).clone()} on_change={on_fields} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct SlurmOptionProps {
    fields: SlurmFields,
    /// The fields with the one just changed.
    on_change: Callback<SlurmFields>,
}

/// The fields for what a `topology.conf` does not say: GPUs and NICs per node, the NICs'
/// speed and the fabric.
#[component]
fn SlurmOptionFields(props: &SlurmOptionProps) -> Html {
    let fields = &props.fields;
    // Each field sends the whole set with its own value changed.
    let change = |set: fn(&mut SlurmFields, String)| {
        let (fields, on_change) = (fields.clone(), props.on_change.clone());
        Callback::from(move |e: Event| {
            let mut changed = fields.clone();
            set(&mut changed, e.target_unchecked_into::<HtmlInputElement>().value());
            on_change.emit(changed);
        })
    };
    let on_fabric = change(|f, v| f.fabric = v);
    html! {
        <>
            <label>{ "GPUs per node " }
                <input type="number" min="1" step="1" value={fields.gpus.clone()} onchange={change(|f, v| f.gpus = v)} data-testid="slurm-gpus" /></label>
            <label>{ "NICs per node " }
                <input type="number" min="1" step="1" value={fields.nics.clone()} onchange={change(|f, v| f.nics = v)} data-testid="slurm-nics" /></label>
            <label>{ "NIC Gb/s " }
                <input type="number" min="0" step="any" placeholder="fabric's" value={fields.nic_gbps.clone()} onchange={change(|f, v| f.nic_gbps = v)} data-testid="slurm-nic" /></label>
            // Radio buttons rather than a <select>: the cluster section's one <select> is the
            // preset list.
            <span role="radiogroup" aria-label="Fabric" data-testid="slurm-fabric">
                <label><input type="radio" name="slurm-fabric" value="ib" checked={fields.fabric == "ib"} onchange={on_fabric.clone()} />{ " InfiniBand (NVSwitch)" }</label>
                <label><input type="radio" name="slurm-fabric" value="tcp" checked={fields.fabric == "tcp"} onchange={on_fabric} />{ " TCP (PCIe, Ethernet)" }</label>
            </span>
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::topology::formats::SlurmOptions;

    #[test]
    fn the_fields_spell_slurm_options_the_core_reads() {
        let fields = SlurmFields::default();
        assert_eq!(fields.options(), format!("gpus={DEFAULT_SLURM_GPUS},nics=1,fabric=ib"));
        let typed =
            SlurmFields { gpus: " 4 ".into(), nics: "2".into(), nic_gbps: " 100 ".into(), fabric: "tcp".into() };
        assert_eq!(typed.options(), "gpus=4,nics=2,fabric=tcp,nic_gbps=100");
        let options = SlurmOptions::parse(&typed.options()).unwrap();
        assert_eq!((options.gpus, options.links.nics, options.links.nic_gbps), (4, 2, 100.0));
    }

    #[test]
    fn a_file_larger_than_a_topology_needs_is_refused_by_name() {
        assert_eq!(size_refusal("topology.conf", MAX_TOPOLOGY_BYTES as f64), None);
        let refusal = size_refusal("huge.conf", (MAX_TOPOLOGY_BYTES + 1) as f64).unwrap();
        assert!(refusal.starts_with("huge.conf: size: 32.0 MiB"), "{refusal}");
        assert!(refusal.ends_with("(at most 32 MiB)"), "{refusal}");
    }
}
