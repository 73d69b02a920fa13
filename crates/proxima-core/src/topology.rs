//! The cluster as a graph: GPUs inside servers (each server one NVLink/NVSwitch domain),
//! servers under switches, links with bandwidth and latency.
//!
//! Users describe a topology as switches, servers (with their GPU count) and links between
//! them ([`TopologySpec`], the JSON format), as a parametric spec
//! (`racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B]`) or by a preset name.
//! [`Topology::from_spec`] checks the description and derives everything else: the GPUs as
//! leaves of a rooted tree, the tiers (server, rack, cluster, more if the tree is deeper),
//! and the path between any two GPUs.
//!
//! The graph must be a tree. Real clusters often have several parallel uplinks from a
//! top-of-rack switch to several spines; Proxima models them as one link whose bandwidth is
//! their sum, which is what fair sharing of an ECMP-balanced fabric amounts to.

use crate::comm::{
    CommParams, POLLUX_INTER_BYTES_PER_S, POLLUX_INTRA_BYTES_PER_S, POLLUX_NIC_GBPS, POLLUX_PCIE_GBPS, POLLUX_STRAGGLER,
};
use crate::error::InputError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A GPU, numbered so that the GPUs of every server, rack and larger group are contiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct GpuId(pub u32);

/// A node of the tree: a GPU, a server or a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct NodeId(pub u32);

/// A link from a node to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct LinkId(pub u32);

/// A placement tier: the tightest group that holds all of a job's GPUs. `Tier(0)` is one
/// server, `Tier(1)` the next level up (a rack in the usual three-level cluster), and so on
/// to the whole cluster. [`Topology::tier_name`] names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Tier(pub u8);

impl Tier {
    pub const SERVER: Tier = Tier(0);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Gpu,
    Server,
    Switch,
}

/// A node of the rooted tree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// For switches, the role given in the description (`tor`, `spine`, ...), if any.
    pub role: Option<String>,
    pub parent: Option<NodeId>,
    /// The link to the parent.
    pub uplink: Option<LinkId>,
    pub children: Vec<NodeId>,
    /// 0 for a GPU, 1 for a server, one more than its highest child for a switch.
    pub height: u8,
    /// The GPUs below this node are `first_gpu .. first_gpu + gpu_count`.
    pub first_gpu: u32,
    pub gpu_count: u32,
    /// For servers, how many NICs make up the link to the switch (1 for other nodes).
    pub nics: u32,
}

/// A link between a node and its parent. Links are full duplex: the bandwidth is available
/// in each direction, which is what a ring all-reduce uses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Link {
    pub child: NodeId,
    pub parent: NodeId,
    pub bandwidth_gbps: f64,
    pub latency_us: f64,
}

impl Link {
    /// Bandwidth in bytes per second.
    pub fn bytes_per_s(&self) -> f64 {
        self.bandwidth_gbps * 1.0e9 / 8.0
    }
}

// ---------------------------------------------------------------------------------------
// The description users write (JSON) and the parametric spec.
// ---------------------------------------------------------------------------------------

/// The version of the JSON format written by [`TopologySpec::to_json`].
pub const TOPOLOGY_FORMAT_VERSION: u32 = 1;

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
    /// Where the numbers come from, for whoever reads the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl CollectiveSpec {
    /// The parameters this block states, the defaults for the rest. Errors name the key.
    pub fn resolve(&self) -> Result<CommParams, InputError> {
        let d = CommParams::default();
        let efficiency = |value: Option<f64>, default: f64, key: &str| match value {
            None => Ok(default),
            Some(v) if v.is_finite() && v > 0.0 && v <= 1.0 => Ok(v),
            Some(v) => Err(InputError::new(
                format!("collective.{key}"),
                format!("must be a fraction of line rate above 0 and at most 1, got {v}"),
            )),
        };
        let straggler = match self.straggler {
            None => d.straggler,
            Some(v) if v.is_finite() && v >= 0.0 => v,
            Some(v) => {
                return Err(InputError::new(
                    "collective.straggler",
                    format!("must be zero or a positive number, got {v}"),
                ))
            }
        };
        Ok(CommParams {
            intra_efficiency: efficiency(self.intra_efficiency, d.intra_efficiency, "intra_efficiency")?,
            inter_efficiency: efficiency(self.inter_efficiency, d.inter_efficiency, "inter_efficiency")?,
            straggler,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    pub id: String,
    /// `tor`, `agg`/`pod`, `spine`/`core`, or any word; it names the tier the switch bounds.
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

fn default_nvlink_latency_us() -> f64 {
    1.0
}

fn default_link_latency_us() -> f64 {
    2.0
}

/// The parameters of the parametric form `racks=R,servers=S,gpus=G[,...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParametricSpec {
    pub racks: u32,
    pub servers_per_rack: u32,
    pub gpus_per_server: u32,
    /// Ratio of the rack's server-facing bandwidth to its uplink bandwidth.
    pub oversub: f64,
    /// Bandwidth of one NIC; a server's link carries `nics × nic_gbps`.
    pub nic_gbps: f64,
    pub nvlink_gbps: f64,
    /// NICs per server (1 by default).
    pub nics: u32,
    /// What the links are and how collectives perform on them (the `collective` block).
    pub fabric: Fabric,
}

/// The kind of fabric a parametric topology describes, which sets its collective
/// efficiencies so that they match the links it builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fabric {
    /// NVSwitch servers with InfiniBand/RoCE NICs and GPUDirect RDMA: efficiencies from
    /// published NCCL measurements ([`CommParams::rdma`]). The default.
    Rdma,
    /// PCIe servers with NCCL over TCP sockets: the Pollux testbed's calibration
    /// ([`CommParams::default`]); GPU links default to PCIe 3.0 x16, NICs to 50 Gbit/s.
    Tcp,
}

impl Fabric {
    pub fn name(self) -> &'static str {
        match self {
            Fabric::Rdma => "rdma",
            Fabric::Tcp => "tcp",
        }
    }

    /// The GPU whose measurements the fabric's efficiencies come from, and whose model
    /// catalogue a cluster of this fabric uses: A100 for the NVSwitch/RDMA numbers, T4 for
    /// the Pollux testbed's.
    pub fn gpu(self) -> &'static str {
        match self {
            Fabric::Rdma => "A100",
            Fabric::Tcp => crate::model::FITTED_GPU,
        }
    }

    /// The efficiencies of this fabric, with where they come from.
    pub fn collective(self) -> CollectiveSpec {
        let (p, source) = match self {
            Fabric::Rdma => (
                CommParams::rdma(),
                "rdma: NCCL all-reduce on NVSwitch (NVIDIA/nccl-tests #149) and InfiniBand NICs (NVIDIA/nccl-tests #290); docs/CALIBRATION.md",
            ),
            Fabric::Tcp => (
                CommParams::default(),
                "tcp: fitted to the Pollux placement measurements (NCCL over TCP, T4 on PCIe); docs/CALIBRATION.md",
            ),
        };
        CollectiveSpec {
            intra_efficiency: Some(p.intra_efficiency),
            inter_efficiency: Some(p.inter_efficiency),
            straggler: Some(p.straggler),
            source: Some(source.into()),
        }
    }
}

/// Defaults of the parametric form (`fabric=rdma`): a 200 Gbit/s NIC per server (25 GB/s,
/// InfiniBand HDR) and 2,400 Gbit/s (300 GB/s) per GPU into NVSwitch, no oversubscription.
pub const DEFAULT_NIC_GBPS: f64 = 200.0;
pub const DEFAULT_NVLINK_GBPS: f64 = 2400.0;
/// Defaults of `fabric=tcp`: PCIe 3.0 x16 GPU links and 50 Gbit/s NICs, as on the Pollux
/// testbed.
pub const TCP_NIC_GBPS: f64 = POLLUX_NIC_GBPS;
pub const TCP_GPU_LINK_GBPS: f64 = POLLUX_PCIE_GBPS;

impl ParametricSpec {
    const KEYS: &'static str = "racks, servers, gpus, oversub, nic_gbps, nvlink_gbps, nics, fabric";

    /// Parses `racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=rdma|tcp]`.
    pub fn parse(text: &str) -> Result<ParametricSpec, InputError> {
        let mut racks = None;
        let mut servers = None;
        let mut gpus = None;
        let mut oversub = 1.0;
        let mut nic = None;
        let mut nvlink = None;
        let mut nics = 1;
        let mut fabric = Fabric::Rdma;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| InputError::new(part, format!("expected key=value (keys: {})", Self::KEYS)))?;
            let key = key.trim();
            let value = value.trim();
            match key {
                "racks" => racks = Some(parse_count(key, value)?),
                "servers" => servers = Some(parse_count(key, value)?),
                "gpus" => gpus = Some(parse_count(key, value)?),
                "oversub" => {
                    oversub = parse_positive(key, value)?;
                    if oversub < 1.0 {
                        return Err(InputError::new(key, format!("must be at least 1, got {value}")));
                    }
                }
                "nic_gbps" => nic = Some(parse_positive(key, value)?),
                "nvlink_gbps" => nvlink = Some(parse_positive(key, value)?),
                "nics" => nics = parse_count(key, value)?,
                "fabric" => {
                    fabric = match value {
                        "rdma" => Fabric::Rdma,
                        "tcp" => Fabric::Tcp,
                        _ => return Err(InputError::new(key, format!("expected rdma or tcp, got '{value}'"))),
                    }
                }
                _ => return Err(InputError::new(key, format!("unknown key (expected one of: {})", Self::KEYS))),
            }
        }
        let need = |v: Option<u32>, k: &str| {
            v.ok_or_else(|| {
                InputError::new(
                    k,
                    "missing (the form is racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=rdma|tcp])",
                )
            })
        };
        let spec = ParametricSpec {
            racks: need(racks, "racks")?,
            servers_per_rack: need(servers, "servers")?,
            gpus_per_server: need(gpus, "gpus")?,
            oversub,
            nic_gbps: nic.unwrap_or(match fabric {
                Fabric::Rdma => DEFAULT_NIC_GBPS,
                Fabric::Tcp => TCP_NIC_GBPS,
            }),
            nvlink_gbps: nvlink.unwrap_or(match fabric {
                Fabric::Rdma => DEFAULT_NVLINK_GBPS,
                Fabric::Tcp => TCP_GPU_LINK_GBPS,
            }),
            nics,
            fabric,
        };
        let total = spec.racks as u64 * spec.servers_per_rack as u64 * spec.gpus_per_server as u64;
        if total > MAX_GPUS as u64 {
            return Err(InputError::new("racks", format!("{total} GPUs is more than the {MAX_GPUS} Proxima supports")));
        }
        Ok(spec)
    }

    /// The description: one top-of-rack switch per rack and, with more than one rack, a
    /// spine whose link to each rack carries `servers × nics × nic_gbps / oversub`; the
    /// `collective` block of its fabric.
    pub fn to_spec(&self) -> TopologySpec {
        let server_gbps = self.nics as f64 * self.nic_gbps;
        let mut spec = TopologySpec {
            version: Some(TOPOLOGY_FORMAT_VERSION),
            name: self.to_string(),
            switches: Vec::new(),
            servers: Vec::new(),
            links: Vec::new(),
            collective: Some(self.fabric.collective()),
            gpu: Some(self.fabric.gpu().into()),
        };
        if self.racks > 1 {
            spec.switches.push(SwitchSpec { id: "spine".into(), role: Some("spine".into()) });
        }
        for r in 0..self.racks {
            let tor = format!("tor{r}");
            spec.switches.push(SwitchSpec { id: tor.clone(), role: Some("tor".into()) });
            if self.racks > 1 {
                spec.links.push(LinkSpec {
                    a: tor.clone(),
                    b: "spine".into(),
                    bandwidth_gbps: self.servers_per_rack as f64 * server_gbps / self.oversub,
                    latency_us: default_link_latency_us(),
                });
            }
            for s in 0..self.servers_per_rack {
                let id = format!("r{r}s{s}");
                spec.servers.push(ServerSpec {
                    id: id.clone(),
                    gpus: self.gpus_per_server,
                    nvlink_gbps: self.nvlink_gbps,
                    nvlink_latency_us: default_nvlink_latency_us(),
                    nics: self.nics,
                });
                spec.links.push(LinkSpec {
                    a: id,
                    b: tor.clone(),
                    bandwidth_gbps: server_gbps,
                    latency_us: default_link_latency_us(),
                });
            }
        }
        spec
    }
}

impl std::fmt::Display for ParametricSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "racks={},servers={},gpus={}", self.racks, self.servers_per_rack, self.gpus_per_server)?;
        if self.oversub != 1.0 {
            write!(f, ",oversub={}", self.oversub)?;
        }
        let (nic, gpu_link) = match self.fabric {
            Fabric::Rdma => (DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS),
            Fabric::Tcp => (TCP_NIC_GBPS, TCP_GPU_LINK_GBPS),
        };
        if self.nic_gbps != nic {
            write!(f, ",nic_gbps={}", self.nic_gbps)?;
        }
        if self.nvlink_gbps != gpu_link {
            write!(f, ",nvlink_gbps={}", self.nvlink_gbps)?;
        }
        if self.nics != 1 {
            write!(f, ",nics={}", self.nics)?;
        }
        if self.fabric != Fabric::Rdma {
            write!(f, ",fabric={}", self.fabric.name())?;
        }
        Ok(())
    }
}

fn parse_count(key: &str, value: &str) -> Result<u32, InputError> {
    match value.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(InputError::new(key, format!("must be a positive whole number, got '{value}'"))),
    }
}

fn parse_positive(key: &str, value: &str) -> Result<f64, InputError> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(InputError::new(key, format!("must be a positive number, got '{value}'"))),
    }
}

/// The largest cluster Proxima accepts; GPU ids are `u32`, but beyond this size a browser
/// tab would not cope and the number is more likely a typo.
pub const MAX_GPUS: u32 = 1 << 20;

/// A preset: a name, a one-line description, and how to build it.
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    spec: &'static str,
    /// `Some` for presets that are not a plain parametric form.
    build: Option<fn() -> TopologySpec>,
}

impl Preset {
    pub fn spec(&self) -> TopologySpec {
        match self.build {
            Some(build) => build(),
            None => {
                let mut spec = ParametricSpec::parse(self.spec).expect("preset specs are valid").to_spec();
                spec.name = self.name.to_string();
                spec
            }
        }
    }

    /// The parametric form behind the preset, if it has one.
    pub fn parametric(&self) -> Option<&'static str> {
        self.build.is_none().then_some(self.spec)
    }
}

/// The built-in topologies, listed by `proxima topologies`.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "teaching",
        description: "16 GPUs: 2 racks x 2 servers x 4 GPUs, uplinks 2:1 oversubscribed; small enough to watch every placement",
        spec: "racks=2,servers=2,gpus=4,oversub=2",
        build: None,
    },
    Preset {
        name: "n32g4",
        description: "128 GPUs: one switch over 32 servers of 4 GPUs, 100 Gbit/s NICs (the Tiresias simulator's n32g4 cluster)",
        spec: "racks=1,servers=32,gpus=4,nic_gbps=100",
        build: None,
    },
    Preset {
        name: "flat-2048",
        description: "2,048 GPUs: 16 racks x 16 servers x 8 GPUs, full-bisection uplinks (uncongested)",
        spec: "racks=16,servers=16,gpus=8",
        build: None,
    },
    Preset {
        name: "oversub-2048",
        description: "2,048 GPUs: 16 racks x 16 servers x 8 GPUs, rack uplinks 4:1 oversubscribed (congested)",
        spec: "racks=16,servers=16,gpus=8,oversub=4",
        build: None,
    },
    Preset {
        name: "rdma-2048",
        description: "2,048 A100: 16 racks x 16 servers x 8 GPUs on NVSwitch, 8 x 200 Gbit/s InfiniBand NICs per server (one per GPU), rack uplinks 4:1 oversubscribed; fabric=rdma",
        spec: "racks=16,servers=16,gpus=8,nics=8,oversub=4",
        build: None,
    },
    Preset {
        name: "pollux-testbed",
        description: "64 GPUs: 16 servers x 4 T4 on PCIe under one switch, 50 Gbit/s NICs, NCCL over TCP; the cluster the communication model was calibrated on",
        spec: "",
        build: Some(pollux_testbed),
    },
];

/// The cluster the Pollux placement measurements come from, as the Pollux artifact's
/// Terraform file provisions it (petuum/adaptdl `osdi21-artifact`, `benchmark/main.tf`):
/// 16 AWS `g4dn.12xlarge` workers in one placement group, each with four NVIDIA T4 on PCIe
/// 3.0 x16 (no NVLink) and a 50 Gbit/s network interface. The `collective` block makes one
/// ring's bandwidth the calibrated 1.661 GB/s inside a server and 0.5933 GB/s between servers
/// (`docs/CALIBRATION.md`); link latencies make a ring step 10 µs inside a server and 50 µs
/// between servers, the latencies the calibration fixed.
fn pollux_testbed() -> TopologySpec {
    let mut spec = TopologySpec {
        version: Some(TOPOLOGY_FORMAT_VERSION),
        name: "pollux-testbed".into(),
        switches: vec![SwitchSpec { id: "switch".into(), role: Some("tor".into()) }],
        servers: Vec::new(),
        links: Vec::new(),
        collective: Some(CollectiveSpec {
            intra_efficiency: Some(POLLUX_INTRA_BYTES_PER_S / (POLLUX_PCIE_GBPS * 1.0e9 / 8.0)),
            inter_efficiency: Some(POLLUX_INTER_BYTES_PER_S / (POLLUX_NIC_GBPS * 1.0e9 / 8.0)),
            straggler: Some(POLLUX_STRAGGLER),
            source: Some(
                "fitted to the Pollux placement measurements (petuum/adaptdl osdi21-artifact, simulator/traces/*/placements.csv); docs/CALIBRATION.md"
                    .into(),
            ),
        }),
        gpu: Some(crate::model::FITTED_GPU.into()),
    };
    for s in 0..16 {
        let id = format!("node{s}");
        spec.servers.push(ServerSpec {
            id: id.clone(),
            gpus: 4,
            nvlink_gbps: POLLUX_PCIE_GBPS,
            nvlink_latency_us: 10.0,
            nics: 1,
        });
        spec.links.push(LinkSpec { a: id, b: "switch".into(), bandwidth_gbps: POLLUX_NIC_GBPS, latency_us: 25.0 });
    }
    spec
}

/// Finds a preset by name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// Builds a topology from any of the accepted forms except a file: a preset name or a
/// parametric spec. (A JSON file's text goes to [`TopologySpec::from_json`].)
pub fn resolve_topology_arg(arg: &str) -> Result<Topology, InputError> {
    if let Some(p) = preset(arg) {
        return Topology::from_spec(&p.spec());
    }
    if arg.contains('=') {
        let spec = ParametricSpec::parse(arg)?.to_spec();
        return Topology::from_spec(&spec);
    }
    let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    Err(InputError::new(
        "topology",
        format!(
            "'{arg}' is neither a preset ({}), a parametric spec (racks=R,servers=S,gpus=G[,...]) nor a JSON file",
            names.join(", ")
        ),
    ))
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

// ---------------------------------------------------------------------------------------
// The checked, rooted topology.
// ---------------------------------------------------------------------------------------

/// A checked topology: a rooted tree whose leaves are GPUs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Topology {
    name: String,
    nodes: Vec<Node>,
    links: Vec<Link>,
    /// GPU index to its node.
    gpu_nodes: Vec<NodeId>,
    /// GPU index to its server node.
    gpu_servers: Vec<NodeId>,
    servers: Vec<NodeId>,
    root: NodeId,
    /// Names of the tiers, `tier_names[t]` for `Tier(t)`.
    tier_names: Vec<String>,
    /// The nodes of each height, in GPU order; index 0 holds the GPUs.
    nodes_by_height: Vec<Vec<NodeId>>,
    /// The communication parameters the spec's `collective` block resolves to.
    comm: CommParams,
    spec: TopologySpec,
}

impl Topology {
    /// Checks a description and builds the tree. Errors name the offending field, e.g.
    /// `links[3].bandwidth_gbps: must be a positive number of Gbit/s, got 0`.
    pub fn from_spec(spec: &TopologySpec) -> Result<Topology, InputError> {
        // Index the named nodes: switches first, then servers, in the order given.
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        let mut is_server: Vec<bool> = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        for (i, s) in spec.switches.iter().enumerate() {
            check_id(&s.id, &format!("switches[{i}].id"), &index)?;
            index.insert(&s.id, names.len());
            names.push(&s.id);
            is_server.push(false);
        }
        let mut total_gpus: u64 = 0;
        for (i, s) in spec.servers.iter().enumerate() {
            check_id(&s.id, &format!("servers[{i}].id"), &index)?;
            if s.gpus == 0 {
                return Err(InputError::new(format!("servers[{i}].gpus"), format!("server '{}' has no GPUs", s.id)));
            }
            if s.nics == 0 {
                return Err(InputError::new(format!("servers[{i}].nics"), "a server needs at least one NIC"));
            }
            check_bandwidth(s.nvlink_gbps, &format!("servers[{i}].nvlink_gbps"))?;
            check_latency(s.nvlink_latency_us, &format!("servers[{i}].nvlink_latency_us"))?;
            total_gpus += s.gpus as u64;
            index.insert(&s.id, names.len());
            names.push(&s.id);
            is_server.push(true);
        }
        if spec.servers.is_empty() {
            return Err(InputError::new("servers", "a topology needs at least one server with GPUs"));
        }
        if total_gpus > MAX_GPUS as u64 {
            return Err(InputError::new(
                "servers",
                format!("{total_gpus} GPUs is more than the {MAX_GPUS} Proxima supports"),
            ));
        }
        let comm = spec.collective.as_ref().map(CollectiveSpec::resolve).transpose()?.unwrap_or_default();

        // Undirected adjacency, checking each link.
        let n = names.len();
        let mut adjacency: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for (i, l) in spec.links.iter().enumerate() {
            let a = *index
                .get(l.a.as_str())
                .ok_or_else(|| InputError::new(format!("links[{i}].a"), format!("unknown node '{}'", l.a)))?;
            let b = *index
                .get(l.b.as_str())
                .ok_or_else(|| InputError::new(format!("links[{i}].b"), format!("unknown node '{}'", l.b)))?;
            if a == b {
                return Err(InputError::new(format!("links[{i}]"), format!("links '{}' to itself", l.a)));
            }
            if is_server[a] && is_server[b] {
                return Err(InputError::new(
                    format!("links[{i}]"),
                    format!("links two servers ('{}' and '{}'); connect servers through a switch", l.a, l.b),
                ));
            }
            check_bandwidth(l.bandwidth_gbps, &format!("links[{i}].bandwidth_gbps"))?;
            check_latency(l.latency_us, &format!("links[{i}].latency_us"))?;
            adjacency[a].push((b, i));
            adjacency[b].push((a, i));
        }
        for (v, adj) in adjacency.iter().enumerate() {
            if is_server[v] && adj.len() > 1 && n > 2 {
                let (_, li) = adj[1];
                return Err(InputError::new(
                    format!("links[{li}]"),
                    format!(
                        "server '{}' has {} links; a server is a leaf connected to one switch (aggregate parallel NICs into one link)",
                        names[v],
                        adj.len()
                    ),
                ));
            }
        }

        // Connected and acyclic: walk from node 0, remembering the link used to arrive.
        let mut seen = vec![false; n];
        let mut stack = vec![(0usize, usize::MAX)];
        seen[0] = true;
        let mut reached = 1;
        while let Some((v, via)) = stack.pop() {
            for &(w, li) in &adjacency[v] {
                if li == via {
                    continue;
                }
                if seen[w] {
                    return Err(InputError::new(
                        format!("links[{li}]"),
                        format!(
                            "the link {} - {} closes a cycle; Proxima models tree topologies, so aggregate parallel links into one link with their total bandwidth",
                            spec.links[li].a, spec.links[li].b
                        ),
                    ));
                }
                seen[w] = true;
                reached += 1;
                stack.push((w, li));
            }
        }
        if reached < n {
            let lost = (0..n).find(|&v| !seen[v]).expect("some node was not reached");
            let what = if is_server[lost] { "server" } else { "switch" };
            return Err(InputError::new(
                "links",
                format!("{what} '{}' has no path to the rest of the cluster", names[lost]),
            ));
        }
        let root = choose_root(&adjacency, &is_server);
        let mut topo = Self::build_tree(spec, &names, &is_server, &adjacency, root);
        topo.comm = comm;
        if let Some(empty) = topo.nodes.iter().find(|n| n.kind == NodeKind::Switch && n.gpu_count == 0) {
            // A switch without servers below holds no GPUs: it would only confuse tiers.
            let i = spec.switches.iter().position(|s| s.id == empty.name).expect("switches come from the spec");
            return Err(InputError::new(
                format!("switches[{i}]"),
                format!("switch '{}' has no servers below it", empty.name),
            ));
        }
        Ok(topo)
    }

    fn build_tree(
        spec: &TopologySpec,
        names: &[&str],
        is_server: &[bool],
        adjacency: &[Vec<(usize, usize)>],
        root: usize,
    ) -> Topology {
        let server_spec: BTreeMap<&str, &ServerSpec> = spec.servers.iter().map(|s| (s.id.as_str(), s)).collect();
        let switch_role: BTreeMap<&str, Option<&String>> =
            spec.switches.iter().map(|s| (s.id.as_str(), s.role.as_ref())).collect();
        let mut topo = Topology {
            name: spec.name.clone(),
            nodes: Vec::new(),
            links: Vec::new(),
            gpu_nodes: Vec::new(),
            gpu_servers: Vec::new(),
            servers: Vec::new(),
            root: NodeId(0),
            tier_names: Vec::new(),
            nodes_by_height: Vec::new(),
            comm: CommParams::default(),
            spec: spec.clone(),
        };
        // Depth-first from the root, children in the order their links were written, so GPU
        // numbering follows the description and every subtree's GPUs are contiguous.
        // An explicit stack keeps deep trees from overflowing the call stack.
        enum Visit {
            Enter { v: usize, parent: Option<(NodeId, f64, f64)>, from: usize },
            Leave { node: NodeId },
        }
        let mut stack = vec![Visit::Enter { v: root, parent: None, from: usize::MAX }];
        while let Some(visit) = stack.pop() {
            match visit {
                Visit::Enter { v, parent, from } => {
                    let id = NodeId(topo.nodes.len() as u32);
                    let kind = if is_server[v] { NodeKind::Server } else { NodeKind::Switch };
                    let role = if is_server[v] { None } else { switch_role.get(names[v]).copied().flatten().cloned() };
                    topo.nodes.push(Node {
                        name: names[v].to_string(),
                        kind,
                        role,
                        parent: None,
                        uplink: None,
                        children: Vec::new(),
                        height: 1,
                        first_gpu: topo.gpu_nodes.len() as u32,
                        gpu_count: 0,
                        nics: if is_server[v] { server_spec[names[v]].nics } else { 1 },
                    });
                    if let Some((p, bw, lat)) = parent {
                        topo.attach(id, p, bw, lat);
                    }
                    stack.push(Visit::Leave { node: id });
                    if is_server[v] {
                        topo.servers.push(id);
                        let s = server_spec[names[v]];
                        for g in 0..s.gpus {
                            let gid = NodeId(topo.nodes.len() as u32);
                            topo.nodes.push(Node {
                                name: format!("{}/gpu{g}", names[v]),
                                kind: NodeKind::Gpu,
                                role: None,
                                parent: None,
                                uplink: None,
                                children: Vec::new(),
                                height: 0,
                                first_gpu: topo.gpu_nodes.len() as u32,
                                gpu_count: 1,
                                nics: 1,
                            });
                            topo.attach(gid, id, s.nvlink_gbps, s.nvlink_latency_us);
                            topo.gpu_nodes.push(gid);
                            topo.gpu_servers.push(id);
                        }
                    }
                    // Push children in reverse so they are entered in the written order.
                    for &(w, li) in adjacency[v].iter().rev() {
                        if li == from {
                            continue;
                        }
                        let l = &spec.links[li];
                        stack.push(Visit::Enter { v: w, parent: Some((id, l.bandwidth_gbps, l.latency_us)), from: li });
                    }
                }
                Visit::Leave { node } => {
                    let n = &topo.nodes[node.0 as usize];
                    let height = if n.kind == NodeKind::Server {
                        1
                    } else {
                        1 + n.children.iter().map(|c| topo.nodes[c.0 as usize].height).max().unwrap_or(0)
                    };
                    let count = topo.gpu_nodes.len() as u32 - n.first_gpu;
                    let n = &mut topo.nodes[node.0 as usize];
                    n.height = height;
                    n.gpu_count = count;
                }
            }
        }
        topo.root = NodeId(0);
        let max_height = topo.nodes[0].height as usize;
        topo.nodes_by_height = vec![Vec::new(); max_height + 1];
        // Nodes were created in depth-first order, so within a height they are in GPU order.
        for (i, node) in topo.nodes.iter().enumerate() {
            topo.nodes_by_height[node.height as usize].push(NodeId(i as u32));
        }
        topo.tier_names = (1..=max_height).map(|h| topo.name_tier(h as u8, max_height as u8)).collect();
        topo
    }

    fn attach(&mut self, child: NodeId, parent: NodeId, bandwidth_gbps: f64, latency_us: f64) {
        let link = LinkId(self.links.len() as u32);
        self.links.push(Link { child, parent, bandwidth_gbps, latency_us });
        let c = &mut self.nodes[child.0 as usize];
        c.parent = Some(parent);
        c.uplink = Some(link);
        self.nodes[parent.0 as usize].children.push(child);
    }

    /// Names the tier bounded by nodes of height `h`: `server` for height 1, then the role
    /// the switches of that height share (`tor` names a `rack`), else `rack` for height 2,
    /// `cluster` for the root, `pod` or `level-N` between.
    fn name_tier(&self, h: u8, max: u8) -> String {
        if h == 1 {
            return "server".into();
        }
        let roles: Vec<Option<&str>> = self
            .nodes
            .iter()
            .filter(|n| n.height == h && n.kind == NodeKind::Switch)
            .map(|n| n.role.as_deref())
            .collect();
        let shared = roles.first().copied().flatten().filter(|r| roles.iter().all(|x| *x == Some(*r)));
        let from_role = shared.map(|r| match r {
            "tor" | "leaf" | "rack" => "rack".to_string(),
            "spine" | "core" | "cluster" => "cluster".to_string(),
            "agg" | "aggregation" | "pod" => "pod".to_string(),
            other => other.to_string(),
        });
        let name = from_role.unwrap_or_else(|| match h {
            _ if h == max => "cluster".to_string(),
            2 => "rack".to_string(),
            3 => "pod".to_string(),
            _ => format!("level-{h}"),
        });
        // Two heights must not share a name, or a tier table would be ambiguous.
        let earlier: Vec<String> = (1..h).map(|x| self.name_tier(x, max)).collect();
        if earlier.contains(&name) {
            format!("{name}-{h}")
        } else {
            name
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// How collectives perform here: the `collective` block of the description, or the
    /// calibrated defaults.
    pub fn comm_params(&self) -> &CommParams {
        &self.comm
    }

    /// The description this topology was built from (what export writes).
    pub fn spec(&self) -> &TopologySpec {
        &self.spec
    }

    /// The GPU model the description names, if any.
    pub fn gpu(&self) -> Option<&str> {
        self.spec.gpu.as_deref()
    }

    pub fn gpu_count(&self) -> u32 {
        self.gpu_nodes.len() as u32
    }

    pub fn server_count(&self) -> u32 {
        self.servers.len() as u32
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    pub fn links(&self) -> &[Link] {
        &self.links
    }

    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    pub fn root(&self) -> NodeId {
        self.root
    }

    pub fn servers(&self) -> &[NodeId] {
        &self.servers
    }

    pub fn gpu_node(&self, gpu: GpuId) -> NodeId {
        self.gpu_nodes[gpu.0 as usize]
    }

    pub fn server_of(&self, gpu: GpuId) -> NodeId {
        self.gpu_servers[gpu.0 as usize]
    }

    /// Number of tiers: 1 for a single server, 3 for server / rack / cluster.
    pub fn tier_count(&self) -> u8 {
        self.tier_names.len() as u8
    }

    pub fn tier_name(&self, tier: Tier) -> &str {
        &self.tier_names[tier.0 as usize]
    }

    pub fn tier_names(&self) -> &[String] {
        &self.tier_names
    }

    /// The widest tier: the whole cluster.
    pub fn top_tier(&self) -> Tier {
        Tier(self.tier_count() - 1)
    }

    /// The nodes that bound a tier (servers for `Tier(0)`, racks for `Tier(1)` ...).
    pub fn tier_nodes(&self, tier: Tier) -> &[NodeId] {
        &self.nodes_by_height[tier.0 as usize + 1]
    }

    /// The lowest node containing both nodes.
    pub fn common_ancestor(&self, a: NodeId, b: NodeId) -> NodeId {
        let (mut a, mut b) = (a, b);
        while a != b {
            let (ha, hb) = (self.node(a).height, self.node(b).height);
            // Climb the lower one; on equal heights climb both.
            if ha <= hb {
                a = self.node(a).parent.expect("two nodes of one tree meet at the root");
            }
            if hb <= ha {
                b = self.node(b).parent.expect("two nodes of one tree meet at the root");
            }
        }
        a
    }

    /// The tier of a set of GPUs: the height of their lowest common ancestor, less one. A
    /// single GPU (or none) is server-local.
    pub fn tier_of(&self, gpus: &[GpuId]) -> Tier {
        let mut servers = gpus.iter().map(|&g| self.server_of(g));
        let Some(first) = servers.next() else { return Tier::SERVER };
        let lca = servers.fold(first, |acc, s| self.common_ancestor(acc, s));
        Tier(self.node(lca).height - 1)
    }

    /// The links on the path between two GPUs, from `a` up to their common ancestor and
    /// down to `b`.
    pub fn path(&self, a: GpuId, b: GpuId) -> Vec<LinkId> {
        let (na, nb) = (self.gpu_node(a), self.gpu_node(b));
        if na == nb {
            return Vec::new();
        }
        let top = self.common_ancestor(na, nb);
        let mut up = Vec::new();
        let mut n = na;
        while n != top {
            let node = self.node(n);
            up.push(node.uplink.expect("below the common ancestor"));
            n = node.parent.expect("below the common ancestor");
        }
        let mut down = Vec::new();
        let mut n = nb;
        while n != top {
            let node = self.node(n);
            down.push(node.uplink.expect("below the common ancestor"));
            n = node.parent.expect("below the common ancestor");
        }
        down.reverse();
        up.extend(down);
        up
    }

    /// The links between servers that a ring over these servers crosses: the uplinks of the
    /// smallest subtree connecting them, excluding the servers' GPU links. Each of these links
    /// carries exactly one ring flow in each direction when the ring visits servers in GPU
    /// order. `servers` must be sorted and free of duplicates. Appends to `out`.
    pub fn inter_server_links(&self, servers: &[NodeId], out: &mut Vec<LinkId>) {
        if servers.len() < 2 {
            return;
        }
        let top = servers[1..].iter().fold(servers[0], |acc, &s| self.common_ancestor(acc, s));
        let start = out.len();
        for &s in servers {
            let mut n = s;
            while n != top {
                let node = self.node(n);
                let link = node.uplink.expect("below the common ancestor");
                // Several servers share the upper links; the sort below removes repeats.
                out.push(link);
                n = node.parent.expect("below the common ancestor");
            }
        }
        out[start..].sort_unstable();
        let mut w = start;
        for r in start..out.len() {
            if w == start || out[w - 1] != out[r] {
                out[w] = out[r];
                w += 1;
            }
        }
        out.truncate(w);
    }

    /// The sum of link latencies from a server up to the node of height `height` above it.
    pub fn latency_up(&self, server: NodeId, height: u8) -> f64 {
        let mut total = 0.0;
        let mut n = server;
        while self.node(n).height < height {
            let node = self.node(n);
            match (node.uplink, node.parent) {
                (Some(l), Some(p)) => {
                    total += self.link(l).latency_us;
                    n = p;
                }
                _ => break,
            }
        }
        total
    }
}

fn check_id(id: &str, field: &str, index: &BTreeMap<&str, usize>) -> Result<(), InputError> {
    if id.trim().is_empty() {
        return Err(InputError::new(field, "an id must not be empty"));
    }
    if index.contains_key(id) {
        return Err(InputError::new(field, format!("duplicate id '{id}'")));
    }
    Ok(())
}

fn check_bandwidth(value: f64, field: &str) -> Result<(), InputError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(InputError::new(field, format!("must be a positive number of Gbit/s, got {value}")))
    }
}

fn check_latency(value: f64, field: &str) -> Result<(), InputError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(InputError::new(field, format!("must be zero or a positive number of microseconds, got {value}")))
    }
}

/// The root of the tree: the node whose farthest server is nearest (the tree's centre, seen
/// from the servers), preferring switches, then the first written. In the usual
/// spine / top-of-rack / server tree this is the spine.
fn choose_root(adjacency: &[Vec<(usize, usize)>], is_server: &[bool]) -> usize {
    let n = adjacency.len();
    if n == 1 {
        return 0;
    }
    // Eccentricity over servers by a BFS from every node is O(n^2); clusters have at most
    // a few thousand named nodes, and this runs once per topology. Leaves are peeled
    // instead for large trees to stay linear.
    let mut degree: Vec<usize> = adjacency.iter().map(|a| a.len()).collect();
    let mut removed = vec![false; n];
    let mut layer: Vec<usize> = (0..n).filter(|&v| degree[v] <= 1).collect();
    let mut remaining = n;
    while remaining > 2 {
        let mut next = Vec::new();
        for &v in &layer {
            removed[v] = true;
            remaining -= 1;
            for &(w, _) in &adjacency[v] {
                if !removed[w] {
                    degree[w] -= 1;
                    if degree[w] == 1 {
                        next.push(w);
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        layer = next;
    }
    let centre: Vec<usize> = (0..n).filter(|&v| !removed[v]).collect();
    *centre.iter().min_by_key(|&&v| (is_server[v], v)).expect("a tree has a centre")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(spec: &str) -> Topology {
        resolve_topology_arg(spec).unwrap()
    }

    #[test]
    fn parametric_three_level_cluster() {
        let t = topo("racks=2,servers=2,gpus=4,oversub=2");
        assert_eq!(t.gpu_count(), 16);
        assert_eq!(t.server_count(), 4);
        assert_eq!(t.tier_names(), &["server", "rack", "cluster"]);
        assert_eq!(t.node(t.root()).name, "spine");
        // GPUs 0-3 on server 0, 4-7 on server 1 (rack 0), 8-15 in rack 1.
        assert_eq!(t.tier_of(&[GpuId(0), GpuId(3)]), Tier(0));
        assert_eq!(t.tier_of(&[GpuId(0), GpuId(4)]), Tier(1));
        assert_eq!(t.tier_of(&[GpuId(0), GpuId(8)]), Tier(2));
        // The uplink of a rack carries servers x NIC / oversubscription.
        let uplink = t.links().iter().find(|l| t.node(l.child).name == "tor0").unwrap();
        assert_eq!(uplink.bandwidth_gbps, 2.0 * DEFAULT_NIC_GBPS / 2.0);
    }

    #[test]
    fn paths_and_ring_links() {
        let t = topo("teaching");
        // GPU -> server -> tor0 -> spine -> tor1 -> server -> GPU: six links.
        assert_eq!(t.path(GpuId(0), GpuId(8)).len(), 6);
        assert_eq!(t.path(GpuId(0), GpuId(1)).len(), 2);
        assert!(t.path(GpuId(2), GpuId(2)).is_empty());
        let s: Vec<NodeId> = vec![t.server_of(GpuId(0)), t.server_of(GpuId(4)), t.server_of(GpuId(8))];
        let mut links = Vec::new();
        t.inter_server_links(&s, &mut links);
        // Three server NICs plus both rack uplinks.
        assert_eq!(links.len(), 5);
        let mut two = Vec::new();
        t.inter_server_links(&s[..2], &mut two);
        assert_eq!(two.len(), 2, "two servers of one rack use only their NICs");
    }

    #[test]
    fn single_switch_cluster_has_two_tiers() {
        let t = topo("n32g4");
        assert_eq!(t.gpu_count(), 128);
        assert_eq!(t.tier_names(), &["server", "rack"]);
        let single = topo("racks=1,servers=1,gpus=8");
        assert_eq!(single.tier_names(), &["server", "rack"]);
    }

    #[test]
    fn presets_build() {
        for p in PRESETS {
            let t = Topology::from_spec(&p.spec()).unwrap();
            assert!(t.gpu_count() > 0, "{}", p.name);
            assert_eq!(t.name(), p.name);
        }
        assert_eq!(topo("oversub-2048").gpu_count(), 2048);
        // Parametric topologies carry the efficiencies of the fabric they build: NVSwitch and
        // RDMA by default, PCIe and TCP (the Pollux calibration) with fabric=tcp.
        assert_eq!(topo("teaching").comm_params(), &CommParams::rdma());
        let tcp = topo("racks=2,servers=2,gpus=4,fabric=tcp");
        assert_eq!(tcp.comm_params(), &CommParams::default());
        let gpu_link = tcp.link(tcp.node(tcp.gpu_node(GpuId(0))).uplink.unwrap());
        let nic = tcp.link(tcp.node(tcp.servers()[0]).uplink.unwrap());
        assert_eq!((gpu_link.bandwidth_gbps, nic.bandwidth_gbps), (POLLUX_PCIE_GBPS, POLLUX_NIC_GBPS));
        // A JSON file without a collective block keeps the calibrated default.
        let mut spec = topo("teaching").spec().clone();
        spec.collective = None;
        assert_eq!(Topology::from_spec(&spec).unwrap().comm_params(), &CommParams::default());
    }

    #[test]
    fn the_rdma_preset_has_one_nic_per_gpu() {
        let t = topo("rdma-2048");
        assert_eq!((t.gpu_count(), t.server_count()), (2048, 256));
        let server = t.node(t.servers()[0]);
        assert_eq!(server.nics, 8);
        // The server's link is its eight 200 Gbit/s NICs; a rack uplink carries 16 of them / 4.
        assert_eq!(t.link(server.uplink.unwrap()).bandwidth_gbps, 1600.0);
        let uplink = t.links().iter().find(|l| t.node(l.child).name == "tor0").unwrap();
        assert_eq!(uplink.bandwidth_gbps, 16.0 * 1600.0 / 4.0);
        assert_eq!(t.comm_params(), &CommParams::rdma());
        // The NIC count survives export, and the spec prints back as it was written.
        let back = Topology::from_spec(&TopologySpec::from_json(&t.spec().to_json()).unwrap()).unwrap();
        assert_eq!(back.node(back.servers()[0]).nics, 8);
        let p = ParametricSpec::parse("racks=16,servers=16,gpus=8,nics=8,oversub=4,fabric=tcp").unwrap();
        assert_eq!(p.to_string(), "racks=16,servers=16,gpus=8,oversub=4,nics=8,fabric=tcp");
        assert_eq!(ParametricSpec::parse("racks=1,servers=1,gpus=1,fabric=ib").unwrap_err().field, "fabric");
        assert_eq!(ParametricSpec::parse("racks=1,servers=1,gpus=1,nics=0").unwrap_err().field, "nics");
        let e = err(r#"{"servers": [{"id":"s","gpus":2,"nvlink_gbps":100,"nics":0}]}"#);
        assert_eq!(e.field, "servers[0].nics");
    }

    #[test]
    fn the_pollux_testbed_rings_run_at_the_calibrated_bandwidths() {
        let t = topo("pollux-testbed");
        assert_eq!((t.gpu_count(), t.server_count()), (64, 16));
        assert_eq!(t.tier_names(), &["server", "rack"]);
        let p = t.comm_params();
        let gpu = t.link(t.node(t.gpu_node(GpuId(0))).uplink.unwrap());
        let nic = t.link(t.node(t.servers()[0]).uplink.unwrap());
        assert!((p.intra_efficiency * gpu.bytes_per_s() - POLLUX_INTRA_BYTES_PER_S).abs() < 1.0);
        assert!((p.inter_efficiency * nic.bytes_per_s() - POLLUX_INTER_BYTES_PER_S).abs() < 1.0);
        assert_eq!(p.straggler, POLLUX_STRAGGLER);
        // A ring step between servers crosses two NIC links: 50 us.
        assert_eq!(t.latency_up(t.servers()[0], 2) + t.latency_up(t.servers()[1], 2), 50.0);
        // The collective block survives export.
        let back = TopologySpec::from_json(&t.spec().to_json()).unwrap();
        assert_eq!(Topology::from_spec(&back).unwrap().comm_params(), p);
    }

    #[test]
    fn a_collective_block_sets_and_checks_the_parameters() {
        let base = r#"{"servers": [{"id":"s","gpus":2,"nvlink_gbps":100}], "collective": BLOCK}"#;
        let spec =
            TopologySpec::from_json(&base.replace("BLOCK", r#"{"inter_efficiency": 0.9, "straggler": 0}"#)).unwrap();
        let p = Topology::from_spec(&spec).unwrap().comm_params().clone();
        assert_eq!((p.inter_efficiency, p.straggler), (0.9, 0.0));
        assert_eq!(p.intra_efficiency, CommParams::default().intra_efficiency, "absent keys take the defaults");
        let e = err(&base.replace("BLOCK", r#"{"inter_efficiency": 1.5}"#));
        assert_eq!(e.field, "collective.inter_efficiency");
        let e = err(&base.replace("BLOCK", r#"{"intra_efficiency": 0}"#));
        assert_eq!(e.field, "collective.intra_efficiency");
        let e = err(&base.replace("BLOCK", r#"{"straggler": -1}"#));
        assert_eq!(e.field, "collective.straggler");
        let e = err(&base.replace("BLOCK", r#"{"efficiency": 0.5}"#));
        assert_eq!(e.field, "efficiency");
        assert!(e.message.contains("unknown field"), "{e}");
    }

    #[test]
    fn json_round_trip() {
        let t = topo("teaching");
        let json = t.spec().to_json();
        let back = Topology::from_spec(&TopologySpec::from_json(&json).unwrap()).unwrap();
        assert_eq!(back.gpu_count(), 16);
        assert_eq!(back.tier_names(), t.tier_names());
        // A root that is not written first is still found: the spine is the centre.
        let mut spec = t.spec().clone();
        spec.switches.rotate_left(1);
        let rotated = Topology::from_spec(&spec).unwrap();
        assert_eq!(rotated.node(rotated.root()).name, "spine");
    }

    fn err(json: &str) -> InputError {
        let spec = match TopologySpec::from_json(json) {
            Ok(s) => s,
            Err(e) => return e,
        };
        Topology::from_spec(&spec).unwrap_err()
    }

    #[test]
    fn invalid_topologies_name_the_field() {
        let e = err(r#"{"servers": []}"#);
        assert_eq!(e.field, "servers");
        let e = err(r#"{"servers": [{"id":"s","gpus":0,"nvlink_gbps":1}]}"#);
        assert_eq!(e.field, "servers[0].gpus");
        let e = err(r#"{"servers": [{"id":"s","gpus":2,"nvlink_gbps":1,"colour":"red"}]}"#);
        assert_eq!(e.field, "colour");
        assert!(e.message.contains("unknown field"), "{e}");
        let two = r#"{"switches":[{"id":"t"}],"servers":[{"id":"a","gpus":1,"nvlink_gbps":1},{"id":"b","gpus":1,"nvlink_gbps":1}],"links":[LINKS]}"#;
        let e = err(&two.replace("LINKS", r#"{"a":"a","b":"t","bandwidth_gbps":0}"#));
        assert_eq!(e.field, "links[0].bandwidth_gbps");
        let e = err(&two.replace("LINKS", r#"{"a":"a","b":"t","bandwidth_gbps":-5}"#));
        assert_eq!(e.field, "links[0].bandwidth_gbps");
        let e = err(&two.replace("LINKS", r#"{"a":"a","b":"t","bandwidth_gbps":10}"#));
        assert_eq!(e.field, "links");
        assert!(e.message.contains("'b' has no path"), "{e}");
        let e = err(&two.replace("LINKS", r#"{"a":"a","b":"nowhere","bandwidth_gbps":10}"#));
        assert_eq!(e.field, "links[0].b");
        let cyc = r#"{"switches":[{"id":"t"},{"id":"u"}],"servers":[{"id":"a","gpus":1,"nvlink_gbps":1}],
            "links":[{"a":"a","b":"t","bandwidth_gbps":1},{"a":"t","b":"u","bandwidth_gbps":1},{"a":"u","b":"t","bandwidth_gbps":1}]}"#;
        let e = err(cyc);
        assert!(e.message.contains("cycle"), "{e}");
    }

    #[test]
    fn parametric_errors_name_the_key() {
        assert_eq!(ParametricSpec::parse("racks=2,servers=2").unwrap_err().field, "gpus");
        assert_eq!(ParametricSpec::parse("racks=2,servers=2,gpus=4,rack=3").unwrap_err().field, "rack");
        assert_eq!(ParametricSpec::parse("racks=0,servers=2,gpus=4").unwrap_err().field, "racks");
        assert_eq!(ParametricSpec::parse("racks=1,servers=2,gpus=4,nic_gbps=0").unwrap_err().field, "nic_gbps");
        assert_eq!(ParametricSpec::parse("racks=1,servers=2,gpus=4,oversub=0.5").unwrap_err().field, "oversub");
    }
}
