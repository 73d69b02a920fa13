//! The parametric form
//! `racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B][,nics=K][,fabric=F]`:
//! a two- or three-level cluster of identical racks, turned into a full description whose
//! `collective` block and GPU are those of its fabric.

use super::spec::{
    default_link_latency_us, default_nvlink_latency_us, CollectiveSpec, LinkSpec, ServerSpec, SwitchSpec, TopologySpec,
    MAX_GPUS, TOPOLOGY_FORMAT_VERSION,
};
use crate::comm::{CommParams, POLLUX_NIC_GBPS, POLLUX_PCIE_GBPS};
use crate::error::InputError;

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
/// efficiencies and its GPU so that they match the links it builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fabric {
    /// NVSwitch servers with InfiniBand/RoCE NICs and GPUDirect RDMA: efficiencies from
    /// published NCCL measurements ([`CommParams::rdma`]), A100 GPUs. The default.
    Rdma,
    /// PCIe servers with NCCL over TCP sockets: the Pollux testbed's calibration
    /// ([`CommParams::default`]) and GPU (T4); GPU links default to PCIe 3.0 x16, NICs to
    /// 50 Gbit/s.
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

    /// The bandwidths of a NIC and of a GPU link when the form does not give them.
    fn default_links(self) -> (f64, f64) {
        match self {
            Fabric::Rdma => (DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS),
            Fabric::Tcp => (TCP_NIC_GBPS, TCP_GPU_LINK_GBPS),
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
            nic_gbps: nic.unwrap_or(fabric.default_links().0),
            nvlink_gbps: nvlink.unwrap_or(fabric.default_links().1),
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
    /// `collective` block and the GPU of its fabric.
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
        let (nic, gpu_link) = self.fabric.default_links();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parametric_errors_name_the_key() {
        assert_eq!(ParametricSpec::parse("racks=2,servers=2").unwrap_err().field, "gpus");
        assert_eq!(ParametricSpec::parse("racks=2,servers=2,gpus=4,rack=3").unwrap_err().field, "rack");
        assert_eq!(ParametricSpec::parse("racks=0,servers=2,gpus=4").unwrap_err().field, "racks");
        assert_eq!(ParametricSpec::parse("racks=1,servers=2,gpus=4,nic_gbps=0").unwrap_err().field, "nic_gbps");
        assert_eq!(ParametricSpec::parse("racks=1,servers=2,gpus=4,oversub=0.5").unwrap_err().field, "oversub");
        assert_eq!(ParametricSpec::parse("racks=1024,servers=32,gpus=64").unwrap_err().field, "racks");
        assert_eq!(ParametricSpec::parse("racks=1,servers=1,gpus=1,fabric=ib").unwrap_err().field, "fabric");
        assert_eq!(ParametricSpec::parse("racks=1,servers=1,gpus=1,nics=0").unwrap_err().field, "nics");
    }

    #[test]
    fn the_fabric_sets_the_links_the_efficiencies_and_the_gpu() {
        let rdma = ParametricSpec::parse("racks=2,servers=2,gpus=8,nics=8").unwrap().to_spec();
        assert_eq!(rdma.collective.as_ref().unwrap().inter_efficiency, Some(CommParams::rdma().inter_efficiency));
        assert_eq!((rdma.gpu.as_deref(), rdma.servers[0].nics, rdma.servers[0].nvlink_gbps), (Some("A100"), 8, 2400.0));
        // Eight 200 Gbit/s NICs per server; the uplink carries two servers' worth.
        assert_eq!(rdma.links.iter().find(|l| l.a == "r0s0").unwrap().bandwidth_gbps, 1600.0);
        assert_eq!(rdma.links.iter().find(|l| l.a == "tor0").unwrap().bandwidth_gbps, 3200.0);
        let tcp = ParametricSpec::parse("racks=2,servers=2,gpus=4,fabric=tcp").unwrap();
        let spec = tcp.to_spec();
        assert_eq!(spec.collective.as_ref().unwrap().inter_efficiency, Some(CommParams::default().inter_efficiency));
        assert_eq!((spec.gpu.as_deref(), spec.servers[0].nvlink_gbps), (Some("T4"), 128.0));
        assert_eq!(spec.links.iter().find(|l| l.a == "r0s0").unwrap().bandwidth_gbps, 50.0);
        assert_eq!(tcp.to_string(), "racks=2,servers=2,gpus=4,fabric=tcp");
        let p = ParametricSpec::parse("racks=16,servers=16,gpus=8,nics=8,oversub=4,fabric=tcp").unwrap();
        assert_eq!(p.to_string(), "racks=16,servers=16,gpus=8,oversub=4,nics=8,fabric=tcp");
    }

    #[test]
    fn the_name_is_the_canonical_form() {
        let p = ParametricSpec::parse(" gpus=4, racks=2,servers=2,oversub=2,nic_gbps=200 ").unwrap();
        assert_eq!(p.to_string(), "racks=2,servers=2,gpus=4,oversub=2");
        let spec = p.to_spec();
        assert_eq!(spec.name, "racks=2,servers=2,gpus=4,oversub=2");
        assert_eq!((spec.switches.len(), spec.servers.len(), spec.links.len()), (3, 4, 6));
        let uplink = spec.links.iter().find(|l| l.a == "tor0").unwrap();
        assert_eq!(uplink.bandwidth_gbps, 2.0 * DEFAULT_NIC_GBPS / 2.0);
    }
}
