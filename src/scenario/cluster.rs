//! The cluster the next run uses: how the scenario names it (a preset, the parametric
//! form, a description), its checked form, the editor, and the form's fields.

use super::fields::{Field, ParamField, ParametricFields};
use crate::editor::{EditAction, Editor};
use crate::Shared;
use proxima_core::inputs::{build_topology, ArgumentNames, TopologyInput};
use proxima_core::share::TopologyChoice;
use proxima_core::topology::{preset, NodeKind, ParametricSpec, Topology};

/// The preset a fresh page starts with.
pub const DEFAULT_PRESET: &str = "teaching";

#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// How the scenario names the cluster the next run uses.
    pub choice: TopologyChoice,
    /// Its checked form. While the editor's cluster has problems, this is the last
    /// cluster without any.
    pub topology: Shared<Topology>,
    /// The topology editor: the cluster being drawn, its history and its problems.
    pub editor: Shared<Editor>,
    /// The preset selected in the form (`None` for the parametric form or a description).
    pub preset: Option<String>,
    /// The parametric form; its error says why its fields do not make a cluster (the
    /// previous cluster stays).
    pub param: Field<ParametricFields>,
}

impl Default for Cluster {
    fn default() -> Self {
        let topology = Shared::new(topology_of(&TopologyChoice::Preset(DEFAULT_PRESET.into())).expect("presets build"));
        let choice = TopologyChoice::Preset(DEFAULT_PRESET.into());
        let param = preset(DEFAULT_PRESET).and_then(|p| p.parametric()).and_then(|t| ParametricSpec::parse(t).ok());
        Cluster {
            editor: Shared::new(Editor::new(choice.clone(), topology.clone())),
            choice,
            topology,
            preset: Some(DEFAULT_PRESET.into()),
            param: Field::new(param.as_ref().map(ParametricFields::from_spec).unwrap_or_default()),
        }
    }
}

/// The cluster a choice names, built by the core as for a run (the errors name the
/// `topology`).
pub fn topology_of(choice: &TopologyChoice) -> Result<Topology, String> {
    build_topology(&TopologyInput::from(choice), ArgumentNames::Words).map_err(|e| e.to_string())
}

impl Cluster {
    /// What a worker needs to build the same cluster.
    pub fn input(&self) -> TopologyInput {
        TopologyInput::from(&self.choice)
    }

    pub fn gpu_count(&self) -> u32 {
        self.topology.gpu_count()
    }

    pub fn select_preset(&mut self, name: &str) -> Result<(), String> {
        let Some(p) = preset(name) else { return Ok(()) };
        if let Some(spec) = p.parametric().and_then(|t| ParametricSpec::parse(t).ok()) {
            self.param.value = ParametricFields::from_spec(&spec);
        }
        self.preset = Some(name.to_string());
        self.param.error = None;
        self.set(TopologyChoice::Preset(name.to_string()))
    }

    /// A field of the parametric form typed: a cluster if the fields make one, else the
    /// form's error.
    pub fn set_param(&mut self, field: ParamField, value: String) -> Result<(), String> {
        self.param.value.set(field, value);
        match self.param.value.spec() {
            Ok(spec) => {
                self.param.error = None;
                self.preset = None;
                self.set(TopologyChoice::Parametric(spec))
            }
            Err(e) => {
                self.param.error = Some(e);
                Ok(())
            }
        }
    }

    /// A topology JSON file loaded: the cluster it describes, or an error naming the file
    /// and field (and nothing changes).
    pub fn import(&mut self, name: &str, text: &str) -> Result<(), String> {
        // The core reads it as the CLI reads a `--topology` file (an unnamed topology takes
        // the file's name); the scenario then names the description itself.
        let file = TopologyInput::File { name: name.to_string(), text: text.to_string() };
        let topology = build_topology(&file, ArgumentNames::Words).map_err(|e| e.to_string())?;
        self.preset = None;
        self.param.error = None;
        self.set(TopologyChoice::Custom(topology.spec().clone()))
    }

    /// An edit in the editor. A cluster without problems becomes the one runs use (a preset
    /// again after undoing every edit); with problems, the last good one stays.
    pub fn edit(&mut self, edit: EditAction) {
        let editor = (*self.editor).clone().apply(edit);
        self.editor = Shared::new(editor);
        let doc = &self.editor.doc;
        let Some(topology) = &self.editor.topology else { return };
        if self.choice == doc.choice && self.topology == *topology {
            return;
        }
        self.topology = topology.clone();
        self.choice = doc.choice.clone();
        self.preset = match &doc.choice {
            TopologyChoice::Preset(name) => Some(name.clone()),
            _ => None,
        };
        if let TopologyChoice::Parametric(spec) = &doc.choice {
            self.param.value = ParametricFields::from_spec(spec);
        }
    }

    /// The cluster of a restored scenario (a link, local storage).
    pub fn restore(&mut self, choice: &TopologyChoice) -> Result<(), String> {
        match choice {
            TopologyChoice::Preset(name) => self.select_preset(name),
            TopologyChoice::Parametric(spec) => {
                self.param.value = ParametricFields::from_spec(spec);
                self.preset = None;
                self.set(choice.clone())
            }
            TopologyChoice::Custom(_) => {
                self.preset = None;
                self.set(choice.clone())
            }
        }
    }

    /// Makes `choice` the cluster, undoably in the editor.
    fn set(&mut self, choice: TopologyChoice) -> Result<(), String> {
        let topology = Shared::new(topology_of(&choice)?);
        self.editor.make_mut().load_checked(choice.clone(), topology.clone());
        self.topology = topology;
        self.choice = choice;
        Ok(())
    }
}

/// The most oversubscribed uplink of a cluster, as `r` in `r:1`: over every switch's
/// uplink, the bandwidth of the server links below it over the uplink's. `None` when no
/// uplink is narrower than what it carries (full bisection), so that advice about the
/// network can tell a congested cluster from an uncongested one.
pub fn max_oversubscription(topo: &Topology) -> Option<f64> {
    let servers: Vec<(u32, f64)> = topo
        .servers()
        .iter()
        .map(|&s| {
            let n = topo.node(s);
            (n.first_gpu, n.uplink.map_or(0.0, |l| topo.link(l).bandwidth_gbps))
        })
        .collect();
    topo.nodes()
        .iter()
        .filter(|n| n.kind == NodeKind::Switch)
        .filter_map(|n| {
            let up = topo.link(n.uplink?).bandwidth_gbps;
            let gpus = n.first_gpu..n.first_gpu + n.gpu_count;
            let below: f64 = servers.iter().filter(|(g, _)| gpus.contains(g)).map(|s| s.1).sum();
            (up > 0.0 && below > up * (1.0 + 1e-9)).then(|| below / up)
        })
        .max_by(f64::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_oversubscribed_uplink_is_found() {
        let ratio = |name: &str| max_oversubscription(&topology_of(&TopologyChoice::Preset(name.into())).unwrap());
        assert_eq!(ratio("oversub-2048"), Some(4.0));
        assert_eq!(ratio("teaching"), Some(2.0));
        assert_eq!(ratio("flat-2048"), None);
        assert_eq!(ratio("fat-tree-k8"), None);
        let default =
            topology_of(&TopologyChoice::from_argument(super::super::defaults::DEFAULT_TOPOLOGY).unwrap()).unwrap();
        assert_eq!(max_oversubscription(&default), Some(32.0));
    }
}
