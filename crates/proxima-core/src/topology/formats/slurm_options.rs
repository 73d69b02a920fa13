//! What a Slurm `topology.conf` does not say, and the parametric form does:
//! `gpus=N,nic_gbps=B,nvlink_gbps=B,nics=K,fabric=ib|roce|tcp[,gpu=M][,block_nvlink=on|off]`.

use crate::error::InputError;
use crate::topology::fabric::{collective, Fabric, GpuKind, DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS};
use crate::topology::spec::{TopologySpec, MAX_GPUS, TOPOLOGY_FORMAT_VERSION};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// GPUs per node when the options give none: eight, as in DGX/HGX-class servers.
pub const DEFAULT_SLURM_GPUS: u32 = 8;

/// The largest bandwidth an option accepts, in Gbit/s (a petabit per second): beyond it a
/// number is a typo, and sums over a million links stay finite.
const MAX_OPTION_GBPS: f64 = 1e6;

/// The most NICs per node an option accepts.
const MAX_NICS: u32 = 64;

/// GPUs per node, the links and the fabric of a cluster read from a `topology.conf`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlurmOptions {
    /// GPUs per node.
    pub gpus: u32,
    /// Bandwidth of one NIC, Gbit/s; a node's link to its leaf switch carries `nics` of them.
    pub nic_gbps: f64,
    /// Per-GPU bandwidth into a node's NVLink/NVSwitch domain (PCIe with `fabric=tcp`),
    /// Gbit/s.
    pub nvlink_gbps: f64,
    /// NICs per node.
    pub nics: u32,
    /// The kind of fabric: its `collective` efficiencies and GPU go into the description,
    /// and its link bandwidths are the defaults of `nic_gbps` and `nvlink_gbps`.
    #[serde(serialize_with = "fabric_name", deserialize_with = "fabric_from_name")]
    pub fabric: Fabric,
    /// The GPU of every node (`gpu=gb200`): its catalogue, its ring efficiency and the
    /// default of `nvlink_gbps`; absent, the fabric's default GPU.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "gpu_key",
        deserialize_with = "gpu_from_key"
    )]
    pub gpu: Option<GpuKind>,
    /// Whether each block of a topology/block file is a multi-node NVLink domain (an NVL72
    /// rack): `block_nvlink=on|off`; absent, on for `gpu=gb200` and off otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_nvlink: Option<bool>,
}

impl Default for SlurmOptions {
    fn default() -> SlurmOptions {
        SlurmOptions {
            gpus: DEFAULT_SLURM_GPUS,
            nic_gbps: DEFAULT_NIC_GBPS,
            nvlink_gbps: DEFAULT_NVLINK_GBPS,
            nics: 1,
            fabric: Fabric::Ib,
            gpu: None,
            block_nvlink: None,
        }
    }
}

impl SlurmOptions {
    const KEYS: &'static str = "gpus, nic_gbps, nvlink_gbps, nics, fabric, gpu, block_nvlink";

    /// Parses `gpus=N,nic_gbps=B,nvlink_gbps=B,nics=K,fabric=ib|roce|tcp`, every key optional,
    /// in any order; an empty text gives the defaults. Bandwidths not given are the
    /// fabric's, as in the parametric form. Errors name the key.
    pub fn parse(text: &str) -> Result<SlurmOptions, InputError> {
        let mut options = SlurmOptions::default();
        let (mut nic, mut gpu_link) = (None, None);
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| InputError::new(part, format!("expected key=value (keys: {})", Self::KEYS)))?;
            let (key, value) = (key.trim(), value.trim());
            match key {
                "gpus" => options.gpus = parse_count(key, value, MAX_GPUS, "GPUs per node")?,
                "nics" => options.nics = parse_count(key, value, MAX_NICS, "NICs per node")?,
                "nic_gbps" => nic = Some(parse_gbps(key, value)?),
                "nvlink_gbps" => gpu_link = Some(parse_gbps(key, value)?),
                "fabric" => options.fabric = Fabric::parse(key, value)?,
                "gpu" => options.gpu = Some(GpuKind::parse(key, value)?),
                "block_nvlink" => options.block_nvlink = Some(parse_switch(key, value)?),
                _ => return Err(InputError::new(key, format!("unknown key (expected one of: {})", Self::KEYS))),
            }
        }
        let (default_nic, default_gpu_link) = options.fabric.default_links();
        options.nic_gbps = nic.unwrap_or(default_nic);
        let default_gpu_link = options.gpu.map_or(default_gpu_link, GpuKind::default_link_gbps);
        options.nvlink_gbps = gpu_link.unwrap_or(default_gpu_link);
        Ok(options)
    }

    /// Whether the blocks of a topology/block file are NVLink domains: as `block_nvlink`
    /// says, else for GB200 nodes, whose Slurm blocks are their NVL72 racks.
    pub fn block_nvlink(&self) -> bool {
        self.block_nvlink.unwrap_or(self.gpu == Some(GpuKind::GB200))
    }

    /// The bandwidth of a node's link to its leaf switch: all its NICs.
    pub fn node_link_gbps(&self) -> f64 {
        self.nics as f64 * self.nic_gbps
    }
}

/// `gpus=8,nic_gbps=200,nvlink_gbps=2400,nics=1,fabric=ib`: every key, so the text says
/// what was assumed.
impl std::fmt::Display for SlurmOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "gpus={},nic_gbps={},nvlink_gbps={},nics={},fabric={}",
            self.gpus,
            self.nic_gbps,
            self.nvlink_gbps,
            self.nics,
            self.fabric.name()
        )?;
        // The newer keys only when given, so that texts written before them keep their form.
        if let Some(gpu) = self.gpu {
            write!(f, ",gpu={}", gpu.key())?;
        }
        if let Some(on) = self.block_nvlink {
            write!(f, ",block_nvlink={}", if on { "on" } else { "off" })?;
        }
        Ok(())
    }
}

fn gpu_key<S: Serializer>(gpu: &Option<GpuKind>, s: S) -> Result<S::Ok, S::Error> {
    match gpu {
        Some(g) => s.serialize_str(g.key()),
        None => s.serialize_none(),
    }
}

fn gpu_from_key<'de, D: Deserializer<'de>>(d: D) -> Result<Option<GpuKind>, D::Error> {
    let key = String::deserialize(d)?;
    GpuKind::parse("gpu", &key).map(Some).map_err(|e| serde::de::Error::custom(e.message))
}

fn parse_switch(key: &str, value: &str) -> Result<bool, InputError> {
    match value {
        "on" | "true" | "yes" => Ok(true),
        "off" | "false" | "no" => Ok(false),
        _ => Err(InputError::new(key, format!("expected on or off, got '{value}'"))),
    }
}

fn fabric_name<S: Serializer>(fabric: &Fabric, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(fabric.name())
}

fn fabric_from_name<'de, D: Deserializer<'de>>(d: D) -> Result<Fabric, D::Error> {
    let name = String::deserialize(d)?;
    Fabric::named(&name)
        .ok_or_else(|| serde::de::Error::custom(format!("expected ib, roce or tcp (rdma means ib), got '{name}'")))
}

fn parse_count(key: &str, value: &str, max: u32, what: &str) -> Result<u32, InputError> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| InputError::new(key, format!("must be a whole number of {what} from 1 to {max}, got '{value}'")))
}

fn parse_gbps(key: &str, value: &str) -> Result<f64, InputError> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= MAX_OPTION_GBPS => Ok(x),
        _ => Err(InputError::new(
            key,
            format!("must be a positive number of Gbit/s, at most {MAX_OPTION_GBPS}, got '{value}'"),
        )),
    }
}

impl SlurmOptions {
    /// A description of this fabric with no switch, server or link yet: what the readers of
    /// files that name only the shape of a cluster (Slurm's, Lingjun's) fill in.
    pub(crate) fn empty_spec(&self) -> TopologySpec {
        TopologySpec {
            version: Some(TOPOLOGY_FORMAT_VERSION),
            name: String::new(),
            switches: Vec::new(),
            servers: Vec::new(),
            links: Vec::new(),
            collective: Some(collective(self.fabric, self.gpu.unwrap_or(self.fabric.default_gpu()))),
            gpu: Some(self.gpu.unwrap_or(self.fabric.default_gpu()).name().to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TCP_GPU_LINK_GBPS;

    #[test]
    fn options_parse_with_the_fabrics_defaults_and_name_the_key() {
        assert_eq!(SlurmOptions::parse("").unwrap(), SlurmOptions::default());
        assert_eq!(SlurmOptions::default().to_string(), "gpus=8,nic_gbps=200,nvlink_gbps=2400,nics=1,fabric=ib");
        let o = SlurmOptions::parse(" gpus=4, nic_gbps=400 ,nvlink_gbps=7200,nics=8").unwrap();
        assert_eq!(
            o,
            SlurmOptions { gpus: 4, nic_gbps: 400.0, nvlink_gbps: 7200.0, nics: 8, ..SlurmOptions::default() }
        );
        assert_eq!(o.node_link_gbps(), 3200.0);
        assert_eq!(SlurmOptions::parse(&o.to_string()).unwrap(), o);
        // The fabric sets the bandwidths not given, wherever it is written.
        let tcp = SlurmOptions::parse("nic_gbps=25,fabric=tcp").unwrap();
        assert_eq!((tcp.nic_gbps, tcp.nvlink_gbps, tcp.fabric), (25.0, TCP_GPU_LINK_GBPS, Fabric::Tcp));
        // A GPU sets the GPU links' default and, for GB200, makes blocks NVLink domains.
        let gb200 = SlurmOptions::parse("gpu=gb200,nics=4,nic_gbps=400").unwrap();
        assert_eq!((gb200.nvlink_gbps, gb200.block_nvlink()), (GpuKind::GB200.default_link_gbps(), true));
        assert_eq!(gb200.empty_spec().gpu.as_deref(), Some("GB200"));
        assert_eq!(SlurmOptions::parse(&gb200.to_string()).unwrap(), gb200);
        assert!(!SlurmOptions::parse("gpu=gb200,block_nvlink=off").unwrap().block_nvlink());
        assert!(SlurmOptions::parse("block_nvlink=on").unwrap().block_nvlink());
        let json = serde_json::to_string(&gb200).unwrap();
        assert_eq!(serde_json::from_str::<SlurmOptions>(&json).unwrap(), gb200);
        // Options cross a worker boundary as JSON, the fabric by its name.
        let json = serde_json::to_string(&tcp).unwrap();
        assert!(json.contains("\"fabric\":\"tcp\""), "{json}");
        assert_eq!(serde_json::from_str::<SlurmOptions>(&json).unwrap(), tcp);
        for (text, field) in [
            ("gpus=0", "gpus"),
            ("gpus=2.5", "gpus"),
            ("gpus=2000000", "gpus"),
            ("nics=0", "nics"),
            ("nics=65", "nics"),
            ("nic_gbps=0", "nic_gbps"),
            ("nic_gbps=inf", "nic_gbps"),
            ("nvlink_gbps=1e9", "nvlink_gbps"),
            ("fabric=ethernet", "fabric"),
            ("gpu=v100", "gpu"),
            ("block_nvlink=maybe", "block_nvlink"),
            ("racks=2", "racks"),
            ("fast", "fast"),
        ] {
            assert_eq!(SlurmOptions::parse(text).unwrap_err().field, field, "{text}");
        }
    }
}
