//! The description users write: the JSON format of `docs/FORMATS.md` (switches, servers
//! with their GPU count, links, an optional `collective` block), read and written here.
//! Whether a description makes a cluster is [`super::check`]'s business.

use crate::comm_params::CommParams;
use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// The version of the JSON format written by [`TopologySpec::to_json`].
pub const TOPOLOGY_FORMAT_VERSION: u32 = 1;

/// The largest cluster Proxima accepts; GPU ids are `u32`, but beyond this size a browser
/// tab would not cope and the number is more likely a typo.
pub const MAX_GPUS: u32 = 1 << 20;

/// A topology as users write it: the JSON format documented in `docs/FORMATS.md`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub switches: Vec<SwitchSpec>,
    pub servers: Vec<ServerSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// How collectives perform on this cluster; absent keys take [`CommParams::default`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collective: Option<CollectiveSpec>,
    /// The GPU model of every server (`A100`, `T4`, ...): it selects the model catalogue
    /// measured on that GPU ([`crate::model::Catalog::for_gpu`]). Absent: the built-in
    /// catalogue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
}

/// The `collective` block of a topology file: the cluster's calibrated communication
/// parameters (see `comm` and `docs/CALIBRATION.md`). Every key is optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectiveSpec {
    /// Fraction of a GPU link's nominal bandwidth one all-reduce ring reaches, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intra_efficiency: Option<f64>,
    /// Fraction of a network link's nominal bandwidth one ring reaches, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inter_efficiency: Option<f64>,
    /// The straggler coefficient `σ`, zero or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub straggler: Option<f64>,
    /// `κ`, compute slowed by `κ` per extra GPU of a job on one server (host contention),
    /// zero or more; absent: zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_compute: Option<f64>,
    /// `λ`, the ring's GPU-link bandwidth divided by `1 + λ` per extra GPU of a job on one
    /// server (paths between a server's GPUs shared), zero or more; absent: zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_ring: Option<f64>,
    /// Where the numbers come from, for whoever reads the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl CollectiveSpec {
    /// The parameters this block states, the defaults for the rest. Errors name the key
    /// (`collective.straggler`); the first bad key is reported, [`super::check`] reports
    /// them all.
    pub fn resolve(&self) -> Result<CommParams, InputError> {
        let (params, problems) = self.resolve_all();
        match problems.into_iter().next() {
            Some((key, message)) => Err(InputError::new(format!("collective.{key}"), message)),
            None => Ok(params),
        }
    }

    /// The parameters, with the default standing in for each bad key, and every bad key
    /// with what is wrong with it, in the order the block's keys are documented.
    pub(super) fn resolve_all(&self) -> (CommParams, Vec<(&'static str, String)>) {
        let d = CommParams::default();
        let mut problems = Vec::new();
        let mut efficiency = |value: Option<f64>, default: f64, key: &'static str| match value {
            None => default,
            Some(v) if v.is_finite() && v > 0.0 && v <= 1.0 => v,
            Some(v) => {
                problems.push((key, format!("must be a fraction of line rate above 0 and at most 1, got {v}")));
                default
            }
        };
        let intra_efficiency = efficiency(self.intra_efficiency, d.intra_efficiency, "intra_efficiency");
        let inter_efficiency = efficiency(self.inter_efficiency, d.inter_efficiency, "inter_efficiency");
        let mut non_negative = |value: Option<f64>, default: f64, key: &'static str| match value {
            None => default,
            Some(v) if v.is_finite() && v >= 0.0 => v,
            Some(v) => {
                problems.push((key, format!("must be zero or a positive number, got {v}")));
                default
            }
        };
        let straggler = non_negative(self.straggler, d.straggler, "straggler");
        let server_compute = non_negative(self.server_compute, d.server_compute, "server_compute");
        let server_ring = non_negative(self.server_ring, d.server_ring, "server_ring");
        (CommParams { intra_efficiency, inter_efficiency, straggler, server_compute, server_ring }, problems)
    }
}

/// The role of a switch that stands for a *rail group*: the rail switches of a
/// rail-optimised fabric, NIC `i` of every server below on rail switch `i`, drawn as one
/// switch (see [`super::ParametricSpec::to_spec`] for why that is exact for ring traffic).
/// Its rail count is its servers' NIC count ([`TopologySpec::rail_count`]).
pub const RAILS_ROLE: &str = "rails";

/// The role of a switch that stands for the NVLink switches of a multi-node NVLink domain
/// (a GB200 NVL72 rack: 18 trays of 4 GPUs on one NVLink fabric). The servers below it are
/// its trays, the unit Kubernetes and Slurm allocate; their links up are NVLink, as wide as
/// their GPUs' NVLink together, and a ring between them is costed like one inside a server
/// (the GPU links' efficiency, no NIC). The switch's own link up stands for its trays' NICs
/// into the scale-out network, their sum, and is costed like a server's NICs: a ring leaving
/// the domain drives as many of them as it has GPUs in the domain. Only servers may hang
/// below it.
pub const NVLINK_ROLE: &str = "nvlink";

/// The node label NVIDIA's GPU operator (GPU feature discovery) gives every node of a
/// multi-node NVLink domain: `<cluster UUID>.<clique id>`, the same on all of its trays.
pub const CLIQUE_LABEL: &str = "nvidia.com/gpu.clique";

/// The node label NVIDIA's Topograph gives the nodes of one accelerated (NVLink) domain.
pub const ACCELERATOR_LABEL: &str = "network.topology.nvidia.com/accelerator";

/// Whether a switch of this role bounds a multi-node NVLink domain: [`NVLINK_ROLE`], or a
/// Kubernetes level named by [`CLIQUE_LABEL`] or [`ACCELERATOR_LABEL`], so that a Kueue or
/// plain node file keeps its label as the tier's name and its cliques as NVLink domains.
pub fn is_nvlink_role(role: &str) -> bool {
    role == NVLINK_ROLE || role == CLIQUE_LABEL || role == ACCELERATOR_LABEL
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    pub id: String,
    /// `tor`, `agg`/`pod`, `spine`/`core`, `rails` (a rail group, bounding a rack), `nvlink`
    /// (a multi-node NVLink domain, [`NVLINK_ROLE`]), or any word; it names the tier the
    /// switch bounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSpec {
    pub id: String,
    pub gpus: u32,
    /// Per-GPU bandwidth into the server's NVLink/NVSwitch domain, in Gbit/s.
    pub nvlink_gbps: f64,
    #[serde(default = "default_nvlink_latency_us")]
    pub nvlink_latency_us: f64,
    /// How many NICs make up the server's link (1 if absent). The link's bandwidth is their
    /// sum; a ring with `k` GPUs on the server drives at most `k` of them, as in NVSwitch
    /// servers with one InfiniBand NIC per GPU.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub nics: u32,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub bandwidth_gbps: f64,
    #[serde(default = "default_link_latency_us")]
    pub latency_us: f64,
}

/// Latency of a GPU's link into its server's NVLink domain when the file gives none.
pub(super) fn default_nvlink_latency_us() -> f64 {
    1.0
}

/// Latency of a network link when the file gives none.
pub(super) fn default_link_latency_us() -> f64 {
    2.0
}

impl TopologySpec {
    /// Parses the JSON format. Unknown keys are errors, so a typo never passes silently.
    pub fn from_json(text: &str) -> Result<TopologySpec, InputError> {
        serde_json::from_str(text).map_err(|e| {
            let line = e.line() as u32;
            let message = e.to_string();
            // serde_json names unknown or missing fields in its message; make that the field.
            let field = extract_backticked(&message).unwrap_or_else(|| "topology".to_string());
            let message = strip_position(&message);
            if line > 0 {
                InputError::at_line(line, field, message)
            } else {
                InputError::new(field, message)
            }
        })
    }

    /// The number of rails of the switch `id` if it is a rail group (role `rails`): the NIC
    /// count its servers share, one rail per NIC. `None` for other switches, and for a rail
    /// group with no server directly below it or whose servers differ in NIC count, which
    /// describe no rails.
    ///
    /// The count is read from the servers rather than stored on the switch, so that it
    /// cannot disagree with the NICs it counts.
    pub fn rail_count(&self, id: &str) -> Option<u32> {
        let switch = self.switches.iter().find(|s| s.id == id)?;
        if switch.role.as_deref() != Some(RAILS_ROLE) {
            return None;
        }
        let mut counts = self.links.iter().filter_map(|l| {
            let other = if l.a == id {
                &l.b
            } else if l.b == id {
                &l.a
            } else {
                return None;
            };
            self.servers.iter().find(|s| &s.id == other).map(|s| s.nics)
        });
        let first = counts.next()?;
        counts.all(|n| n == first).then_some(first)
    }

    /// Pretty JSON in the documented format.
    pub fn to_json(&self) -> String {
        let mut spec = self.clone();
        spec.version = Some(TOPOLOGY_FORMAT_VERSION);
        serde_json::to_string_pretty(&spec).expect("a topology spec always serialises")
    }
}

fn extract_backticked(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_string())
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named_with_their_line() {
        let e = TopologySpec::from_json(
            "{\n\"servers\": [{\"id\":\"s\",\"gpus\":2,\"nvlink_gbps\":1,\"colour\":\"red\"}]}",
        )
        .unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "colour"));
        assert!(e.message.starts_with("unknown field `colour`"), "{e}");
        assert!(!e.message.contains(" at line "), "the line is a field of the error, not text: {e}");
    }

    #[test]
    fn a_collective_block_reports_every_bad_key_in_order() {
        let block = CollectiveSpec {
            intra_efficiency: Some(0.0),
            inter_efficiency: Some(0.5),
            straggler: Some(-1.0),
            server_compute: Some(0.1),
            server_ring: Some(f64::NAN),
            source: None,
        };
        let (params, problems) = block.resolve_all();
        let keys: Vec<&str> = problems.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["intra_efficiency", "straggler", "server_ring"]);
        assert_eq!(params.server_compute, 0.1);
        assert_eq!(params.server_ring, 0.0, "a bad server term takes the default, zero");
        assert_eq!(params.inter_efficiency, 0.5);
        assert_eq!(params.straggler, CommParams::default().straggler, "a bad key takes the default");
        assert_eq!(block.resolve().unwrap_err().field, "collective.intra_efficiency");
    }
}
