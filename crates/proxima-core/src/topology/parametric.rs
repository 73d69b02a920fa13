//! The parametric form
//! `racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=F][,gpu=M][,rails=on]`:
//! a two- or three-level cluster of identical racks, turned into a full description whose
//! `collective` block and GPU are those of its fabric and GPU (`fabric.rs`).
//!
//! **The default network.** Without the optional keys the form describes racks of servers
//! with eight A100 SXM4 GPUs on NVSwitch (2,400 Gbit/s per GPU each way) and one 200 Gbit/s
//! HDR InfiniBand NIC per server, under a non-blocking top-of-rack switch: the entry
//! configuration of an A100 cluster, cheaper than the DGX-style one NIC per GPU. It is the
//! configuration NVIDIA's rule of thumb for nccl-tests is stated per NIC for ("24GB/s is the
//! peak performance per 200G NIC", NVIDIA/nccl-tests issue #119, 2022-11-17), and a user
//! measured it by restricting two 8 × A100 servers to one HDR NIC each: 24 GB/s all-reduce
//! bus bandwidth (NVIDIA/nccl issue #1048, 2023-11-01); the same servers reach ~192 GB/s
//! with eight NICs (NVIDIA/nccl issue #812, 2023-03-31). We found no published census of
//! how many NICs GPU servers have, so "common" rests on it being the smallest RDMA
//! configuration of an 8-GPU A100 server, not on a count. With one NIC per eight GPUs the
//! network is the narrow part of every ring that leaves a server, which is where placement
//! matters (issue 21); `nics=8` gives the DGX-style servers where it matters less.
//!
//! **Networks of today.** `nics=1|2|4|8` and `nic_gbps=100|200|400` (any positive number
//! is accepted) cover the clusters of today: 100 GbE (RoCE), 200 Gbit/s HDR InfiniBand or
//! 200 GbE, and 400 Gbit/s NDR InfiniBand or 400 GbE; a server's link carries
//! `nics × nic_gbps`, and a ring with fewer GPUs on a server than it has NICs drives only
//! as many NICs as it has GPUs there (`comm.rs`). `gpu=h100` sets H100 SXM5 GPUs on
//! NVLink4 (3,600 Gbit/s each way) with their measured ring efficiency. `rails=on` makes
//! each rack's switch a rail group ([`ParametricSpec::to_spec`]).

use super::fabric::{collective, Fabric, GpuKind};
use super::spec::{
    default_link_latency_us, default_nvlink_latency_us, LinkSpec, ServerSpec, SwitchSpec, TopologySpec, MAX_GPUS,
    RAILS_ROLE, TOPOLOGY_FORMAT_VERSION,
};
use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// The parameters of the parametric form `racks=R,servers=S,gpus=G[,...]`: the one typed
/// description of a parametric cluster, from the page's form, a share link or the command
/// line to [`ParametricSpec::to_spec`]. Text is read into it once, at the edge
/// ([`ParametricSpec::parse`] for the form's text, [`ParametricSpec::from_pairs`] for the
/// page's fields), and it travels typed (the worker protocol serialises its numbers).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// What the network is and how collectives perform on its NICs.
    pub fabric: Fabric,
    /// The GPU of every server, and how collectives perform on its links
    /// ([`Fabric::default_gpu`] unless the form names one).
    pub gpu: GpuKind,
    /// Whether each rack's switch is a rail group (`rails=on`): NIC `i` of every server on
    /// rail `i`.
    pub rails: bool,
}

impl ParametricSpec {
    const KEYS: &'static str = "racks, servers, gpus, oversub, nic_gbps, nvlink_gbps, nics, fabric, gpu, rails";
    const FORM: &'static str = "racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=ib|roce|tcp][,gpu=t4|a100|h100|b200|gb200][,rails=on]";

    /// Parses the form (see the module's documentation); keys in any order, errors name the
    /// key at fault.
    pub fn parse(text: &str) -> Result<ParametricSpec, InputError> {
        let mut pairs = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| InputError::new(part, format!("expected key=value (keys: {})", Self::KEYS)))?;
            pairs.push((key.trim(), value.trim()));
        }
        ParametricSpec::from_pairs(pairs)
    }

    /// The spec of `key`, `value` pairs, each value read once into its number or name: what
    /// [`ParametricSpec::parse`] splits the form into, and what the page's form gives field
    /// by field. Errors name the key.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<ParametricSpec, InputError> {
        let (mut racks, mut servers, mut gpus) = (None, None, None);
        let (mut oversub, mut nic, mut nvlink, mut nics) = (1.0, None, None, 1);
        let (mut fabric, mut gpu, mut rails) = (Fabric::Ib, None, false);
        for (key, value) in pairs.into_iter().map(|(k, v)| (k.trim(), v.trim())) {
            match key {
                "racks" => racks = Some(parse_count(key, value)?),
                "servers" => servers = Some(parse_count(key, value)?),
                "gpus" => gpus = Some(parse_count(key, value)?),
                "oversub" => oversub = parse_positive(key, value)?,
                "nic_gbps" => nic = Some(parse_positive(key, value)?),
                "nvlink_gbps" => nvlink = Some(parse_positive(key, value)?),
                "nics" => nics = parse_count(key, value)?,
                "fabric" => fabric = Fabric::parse(key, value)?,
                "gpu" => gpu = Some(GpuKind::parse(key, value)?),
                "rails" => {
                    rails = match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(InputError::new(key, format!("expected on or off, got '{value}'"))),
                    }
                }
                _ => return Err(InputError::new(key, format!("unknown key (expected one of: {})", Self::KEYS))),
            }
        }
        let need = |v: Option<u32>, k: &str| {
            v.ok_or_else(|| InputError::new(k, format!("missing (the form is {})", Self::FORM)))
        };
        let gpu = gpu.unwrap_or(fabric.default_gpu());
        let spec = ParametricSpec {
            racks: need(racks, "racks")?,
            servers_per_rack: need(servers, "servers")?,
            gpus_per_server: need(gpus, "gpus")?,
            oversub,
            nic_gbps: nic.unwrap_or(fabric.default_nic_gbps()),
            nvlink_gbps: nvlink.unwrap_or(gpu.default_link_gbps()),
            nics,
            fabric,
            gpu,
            rails,
        };
        spec.check()?;
        Ok(spec)
    }

    /// Whether the numbers make a cluster: what [`ParametricSpec::parse`] checks, and what a
    /// spec that arrives typed (a worker message) is checked against before it is built.
    /// Errors name the key.
    pub fn check(&self) -> Result<(), InputError> {
        for (key, n) in [("racks", self.racks), ("servers", self.servers_per_rack), ("gpus", self.gpus_per_server)] {
            if n == 0 {
                return Err(InputError::new(key, "must be a positive whole number, got '0'"));
            }
        }
        if self.nics == 0 {
            return Err(InputError::new("nics", "must be a positive whole number, got '0'"));
        }
        for (key, x) in [("oversub", self.oversub), ("nic_gbps", self.nic_gbps), ("nvlink_gbps", self.nvlink_gbps)] {
            if !(x.is_finite() && x > 0.0) {
                return Err(InputError::new(key, format!("must be a positive number, got '{x}'")));
            }
        }
        if self.oversub < 1.0 {
            return Err(InputError::new("oversub", format!("must be at least 1, got {}", self.oversub)));
        }
        if self.rails && self.nics < 2 {
            return Err(InputError::new(
                "rails",
                "a rail-optimised fabric needs a NIC per rail: give nics=K with K of at least 2 (usually one per GPU)",
            ));
        }
        let total = self.racks as u64 * self.servers_per_rack as u64 * self.gpus_per_server as u64;
        if total > MAX_GPUS as u64 {
            return Err(InputError::new("racks", format!("{total} GPUs is more than the {MAX_GPUS} Proxima supports")));
        }
        Ok(())
    }

    /// The description: one switch per rack and, with more than one rack, a spine whose link
    /// to each rack carries `servers × nics × nic_gbps / oversub`; the `collective` block and
    /// the GPU of its fabric and GPU.
    ///
    /// With `rails=on` each rack's switch is a *rail group* (role `rails`, id `rails{r}`):
    /// the `nics` rail switches of a rail-optimised fabric, where NIC `i` of every server in
    /// the rack connects to rail switch `i`, as in NVIDIA's DGX SuperPOD reference
    /// architectures. Proxima's topologies are trees (parallel links are one link), so the
    /// rails are drawn as one switch whose link to a server carries all its NICs. For ring
    /// all-reduce, which is the only traffic Proxima models, that switch is exact, not an
    /// approximation: NCCL builds each ring channel to leave a server on NIC `i` and enter
    /// the next server on NIC `i` (by default NCCL keeps a ring on the same NIC on every
    /// node so that each NIC can sit on its own switch, a rail: `NCCL_CROSS_NIC` in the NCCL
    /// user guide's Environment Variables), so a ring's traffic between servers of one rail group
    /// stays on one rail and never crosses between rails; and the traffic that would cross
    /// rails (send/receive and all-to-all to a GPU on another rail) NCCL moves over NVLink to
    /// the GPU next to the destination's rail first and sends it on that rail (PXN, "PCI
    /// × NVLink", NCCL 2.12, released 2022-02-28; NVIDIA's technical blog "Doubling all2all
    /// Performance with NVIDIA Collective Communication Library 2.12"; NCCL enables it
    /// always, NVIDIA/nccl issue #918, 2023-07-14; it keeps traffic off cross-rail paths,
    /// NVIDIA/nccl issue #2193, 2026-06-03). Each rail switch is non-blocking for the
    /// servers of its group, so the group is non-blocking as a whole, which is what one
    /// switch node with no capacity of its own models. Between racks the rail groups meet
    /// at the spine, whose link to each group carries the group's NICs divided by `oversub`.
    pub fn to_spec(&self) -> TopologySpec {
        let server_gbps = self.nics as f64 * self.nic_gbps;
        let mut spec = TopologySpec {
            version: Some(TOPOLOGY_FORMAT_VERSION),
            name: self.to_string(),
            switches: Vec::new(),
            servers: Vec::new(),
            links: Vec::new(),
            collective: Some(collective(self.fabric, self.gpu)),
            gpu: Some(self.gpu.name().into()),
        };
        if self.racks > 1 {
            spec.switches.push(SwitchSpec { id: "spine".into(), role: Some("spine".into()) });
        }
        let (leaf_prefix, leaf_role) = if self.rails { ("rails", RAILS_ROLE) } else { ("tor", "tor") };
        for r in 0..self.racks {
            let leaf = format!("{leaf_prefix}{r}");
            spec.switches.push(SwitchSpec { id: leaf.clone(), role: Some(leaf_role.into()) });
            if self.racks > 1 {
                spec.links.push(LinkSpec {
                    a: leaf.clone(),
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
                    b: leaf.clone(),
                    bandwidth_gbps: server_gbps,
                    latency_us: default_link_latency_us(),
                });
            }
        }
        spec
    }
}

/// The canonical form: the three counts, then each optional key that differs from its
/// default, in the order of the form. Parsing it gives the same spec back.
impl std::fmt::Display for ParametricSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "racks={},servers={},gpus={}", self.racks, self.servers_per_rack, self.gpus_per_server)?;
        if self.oversub != 1.0 {
            write!(f, ",oversub={}", self.oversub)?;
        }
        if self.nic_gbps != self.fabric.default_nic_gbps() {
            write!(f, ",nic_gbps={}", self.nic_gbps)?;
        }
        if self.nvlink_gbps != self.gpu.default_link_gbps() {
            write!(f, ",nvlink_gbps={}", self.nvlink_gbps)?;
        }
        if self.nics != 1 {
            write!(f, ",nics={}", self.nics)?;
        }
        if self.fabric != Fabric::Ib {
            write!(f, ",fabric={}", self.fabric.name())?;
        }
        if self.gpu != self.fabric.default_gpu() {
            write!(f, ",gpu={}", self.gpu.key())?;
        }
        if self.rails {
            write!(f, ",rails=on")?;
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
