//! The one typed description of the cluster a scenario names: a preset, the parametric
//! form's numbers, or a full description. The page's form makes one directly, share links
//! and local storage carry one, the worker protocol sends one, and the command line reads
//! its `--topology` text into one ([`TopologyChoice::from_argument`]); each becomes a
//! [`Topology`] here, without being turned back into text on the way.

use super::{all_presets, preset, ParametricSpec, Topology, TopologySpec};
use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// The cluster of a scenario.
// A scenario holds one choice, never a collection of them, so the description's size
// (grown by the `collective` block's node terms) costs nothing worth a box at 18 call sites.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TopologyChoice {
    /// A built-in preset, by name (`teaching`, `flat-2048`, ...).
    Preset(String),
    /// The parametric form `racks=R,servers=S,gpus=G[,...]`, typed.
    Parametric(ParametricSpec),
    /// A topology described in full: imported from a file or drawn in the editor.
    Custom(TopologySpec),
}

impl TopologyChoice {
    /// The choice a `--topology` argument that is not a file names: a preset's name, or the
    /// parametric form. The one place such text is read; errors name the key at fault, or
    /// `topology` for a name that is neither.
    pub fn from_argument(arg: &str) -> Result<TopologyChoice, InputError> {
        if preset(arg).is_some() {
            return Ok(TopologyChoice::Preset(arg.to_string()));
        }
        if arg.contains('=') {
            return ParametricSpec::parse(arg).map(TopologyChoice::Parametric);
        }
        let names: Vec<&str> = all_presets().map(|p| p.name).collect();
        Err(InputError::new(
            "topology",
            format!(
                "'{arg}' is neither a preset ({}), a parametric spec (racks=R,servers=S,gpus=G[,...]) nor a JSON file",
                names.join(", ")
            ),
        ))
    }

    /// The cluster this choice names. A typed parametric spec is checked first (it may come
    /// from a message rather than the parser), a preset must exist.
    pub fn build(&self) -> Result<Topology, InputError> {
        match self {
            TopologyChoice::Preset(name) => match preset(name) {
                Some(p) => Topology::from_spec(&p.spec()),
                None => TopologyChoice::from_argument(name).and_then(|c| c.build()),
            },
            TopologyChoice::Parametric(p) => {
                p.check()?;
                Topology::from_spec(&p.to_spec())
            }
            TopologyChoice::Custom(spec) => Topology::from_spec(spec),
        }
    }

    /// How the cluster is named to people: the preset's name, the canonical form, or the
    /// description's name.
    pub fn label(&self) -> String {
        match self {
            TopologyChoice::Preset(name) => name.clone(),
            TopologyChoice::Parametric(p) => p.to_string(),
            TopologyChoice::Custom(spec) => spec.name.clone(),
        }
    }
}

/// Builds a topology from any of the accepted forms except a file: a preset name or a
/// parametric spec. (A JSON file's text goes to [`TopologySpec::from_json`].)
pub fn resolve_topology_arg(arg: &str) -> Result<Topology, InputError> {
    TopologyChoice::from_argument(arg)?.build()
}
