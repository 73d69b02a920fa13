//! What a cluster file does not say, per format. Slurm's `topology.conf` and
//! `topology.yaml`, Lingjun's `topo.csv` and Volcano's HyperNodes name the shape of a
//! cluster but not its GPUs per node nor its links; Kueue's nodes give their GPUs but not
//! their links. Each format has its own options type, holding exactly the keys it uses
//! ([`SlurmOptions`], [`LingjunOptions`], [`KueueOptions`], [`VolcanoOptions`]), around the
//! links every format shares ([`LinkOptions`]): `nic_gbps=B,nvlink_gbps=B,nics=K,
//! fabric=ib|roce|tcp[,gpu=M]`, with `gpus=N` where the file does not give it and
//! `block_nvlink=on|off` for Slurm's block form. A key a format does not use is refused, so
//! that nothing typed is silently ignored.

use crate::error::InputError;
use crate::topology::fabric::{collective, Fabric, GpuKind, DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS};
use crate::topology::formats::GPU_RESOURCE;
use crate::topology::spec::{TopologySpec, MAX_GPUS, TOPOLOGY_FORMAT_VERSION};
use serde::{Deserialize, Serialize};

/// GPUs per node when the options give none: eight, as in DGX/HGX-class servers.
pub const DEFAULT_SLURM_GPUS: u32 = 8;

/// The largest bandwidth an option accepts, in Gbit/s (a petabit per second): beyond it a
/// number is a typo, and sums over a million links stay finite.
const MAX_OPTION_GBPS: f64 = 1e6;

/// The most NICs per node an option accepts.
const MAX_NICS: u32 = 64;

/// The links and GPU of a cluster read from a file that does not give them, as every
/// format's options hold them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkOptions {
    /// Bandwidth of one NIC, Gbit/s; a node's link to its leaf switch carries `nics` of them.
    pub nic_gbps: f64,
    /// Per-GPU bandwidth into a node's NVLink/NVSwitch domain (PCIe with `fabric=tcp`),
    /// Gbit/s.
    pub nvlink_gbps: f64,
    /// NICs per node.
    pub nics: u32,
    /// The kind of fabric: its `collective` efficiencies and GPU go into the description,
    /// and its link bandwidths are the defaults of `nic_gbps` and `nvlink_gbps`.
    pub fabric: Fabric,
    /// The GPU of every node (`gpu=gb200`): its catalogue, its ring efficiency and the
    /// default of `nvlink_gbps`; absent, the fabric's default GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuKind>,
}

impl Default for LinkOptions {
    fn default() -> LinkOptions {
        LinkOptions {
            nic_gbps: DEFAULT_NIC_GBPS,
            nvlink_gbps: DEFAULT_NVLINK_GBPS,
            nics: 1,
            fabric: Fabric::Ib,
            gpu: None,
        }
    }
}

impl LinkOptions {
    /// The bandwidth of a node's link to its leaf switch: all its NICs.
    pub fn node_link_gbps(&self) -> f64 {
        self.nics as f64 * self.nic_gbps
    }

    /// A description of this fabric with no switch, server or link yet: what the readers of
    /// files that name only the shape of a cluster fill in.
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

/// A Slurm `topology.conf` or `topology.yaml`'s options: GPUs per node, the links, and
/// whether each block of the block form is an NVLink domain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlurmOptions {
    /// GPUs per node.
    pub gpus: u32,
    pub links: LinkOptions,
    /// Whether each block of a topology/block file is a multi-node NVLink domain (an NVL72
    /// rack): `block_nvlink=on|off`; absent, on for `gpu=gb200` and off otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_nvlink: Option<bool>,
}

/// A Lingjun `topo.csv`'s options: GPUs per host and the links.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LingjunOptions {
    /// GPUs per host.
    pub gpus: u32,
    pub links: LinkOptions,
}

/// A Volcano file's options: GPUs per node and the links.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VolcanoOptions {
    /// GPUs per node.
    pub gpus: u32,
    pub links: LinkOptions,
}

/// A Kueue file's options: the links only, since its nodes give their GPUs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KueueOptions {
    pub links: LinkOptions,
}

impl Default for SlurmOptions {
    fn default() -> SlurmOptions {
        SlurmOptions { gpus: DEFAULT_SLURM_GPUS, links: LinkOptions::default(), block_nvlink: None }
    }
}

impl Default for LingjunOptions {
    fn default() -> LingjunOptions {
        LingjunOptions { gpus: DEFAULT_SLURM_GPUS, links: LinkOptions::default() }
    }
}

impl Default for VolcanoOptions {
    fn default() -> VolcanoOptions {
        VolcanoOptions { gpus: DEFAULT_SLURM_GPUS, links: LinkOptions::default() }
    }
}

/// The keys of the links, which every format takes.
const LINK_KEYS: [&str; 5] = ["nic_gbps", "nvlink_gbps", "nics", "fabric", "gpu"];

/// What an options text says, before it is put into its format's type.
struct ParsedOptions {
    gpus: u32,
    links: LinkOptions,
    block_nvlink: Option<bool>,
}

/// Parses `key=value,...`, every key optional, in any order; an empty text gives the
/// defaults. `extra` are the keys the format takes besides the links (`gpus`,
/// `block_nvlink`); any other key is refused, with the format's own reason when
/// `refused_because` has one for it, else naming the format's keys. Bandwidths not given are
/// the fabric's (the GPU's for `nvlink_gbps`), as in the parametric form.
fn parse_options(
    text: &str,
    extra: &[&str],
    refused_because: fn(&str) -> Option<String>,
) -> Result<ParsedOptions, InputError> {
    let keys: Vec<&str> = extra.iter().take(1).chain(LINK_KEYS.iter()).chain(extra.iter().skip(1)).copied().collect();
    let mut parsed = ParsedOptions { gpus: DEFAULT_SLURM_GPUS, links: LinkOptions::default(), block_nvlink: None };
    let (mut nic, mut gpu_link) = (None, None);
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| InputError::new(part, format!("expected key=value (keys: {})", keys.join(", "))))?;
        let (key, value) = (key.trim(), value.trim());
        if !keys.contains(&key) {
            let why =
                refused_because(key).unwrap_or_else(|| format!("unknown key (expected one of: {})", keys.join(", ")));
            return Err(InputError::new(key, why));
        }
        let links = &mut parsed.links;
        match key {
            "gpus" => parsed.gpus = parse_count(key, value, MAX_GPUS, "GPUs per node")?,
            "nics" => links.nics = parse_count(key, value, MAX_NICS, "NICs per node")?,
            "nic_gbps" => nic = Some(parse_gbps(key, value)?),
            "nvlink_gbps" => gpu_link = Some(parse_gbps(key, value)?),
            "fabric" => links.fabric = Fabric::parse(key, value)?,
            "gpu" => links.gpu = Some(GpuKind::parse(key, value)?),
            _ => parsed.block_nvlink = Some(parse_switch(key, value)?),
        }
    }
    let links = &mut parsed.links;
    let (default_nic, default_gpu_link) = links.fabric.default_links();
    links.nic_gbps = nic.unwrap_or(default_nic);
    links.nvlink_gbps = gpu_link.unwrap_or(links.gpu.map_or(default_gpu_link, GpuKind::default_link_gbps));
    Ok(parsed)
}

impl SlurmOptions {
    /// Parses `gpus=N,nic_gbps=B,nvlink_gbps=B,nics=K,fabric=ib|roce|tcp[,gpu=M]
    /// [,block_nvlink=on|off]`; errors name the key.
    pub fn parse(text: &str) -> Result<SlurmOptions, InputError> {
        let p = parse_options(text, &["gpus", "block_nvlink"], |_| None)?;
        Ok(SlurmOptions { gpus: p.gpus, links: p.links, block_nvlink: p.block_nvlink })
    }

    /// Whether the blocks of a topology/block file are NVLink domains: as `block_nvlink`
    /// says, else for GB200 nodes, whose Slurm blocks are their NVL72 racks.
    pub fn block_nvlink(&self) -> bool {
        self.block_nvlink.unwrap_or(self.links.gpu == Some(GpuKind::GB200))
    }
}

impl LingjunOptions {
    /// Parses `gpus=N,nic_gbps=B,nvlink_gbps=B,nics=K,fabric=ib|roce|tcp[,gpu=M]`; errors
    /// name the key.
    pub fn parse(text: &str) -> Result<LingjunOptions, InputError> {
        let p = parse_options(text, &["gpus"], |_| None)?;
        Ok(LingjunOptions { gpus: p.gpus, links: p.links })
    }
}

impl VolcanoOptions {
    /// Parses `gpus=N,nic_gbps=B,nvlink_gbps=B,nics=K,fabric=ib|roce|tcp[,gpu=M]`; errors
    /// name the key.
    pub fn parse(text: &str) -> Result<VolcanoOptions, InputError> {
        let p = parse_options(text, &["gpus"], |_| None)?;
        Ok(VolcanoOptions { gpus: p.gpus, links: p.links })
    }
}

impl KueueOptions {
    /// Parses `nic_gbps=B,nvlink_gbps=B,nics=K,fabric=ib|roce|tcp[,gpu=M]`; errors name the
    /// key. `gpus` is refused with why: a Kueue file gives each node's GPUs.
    pub fn parse(text: &str) -> Result<KueueOptions, InputError> {
        let gpus_from_the_file = |key: &str| {
            (key == "gpus").then(|| format!("a Kueue file gives each node's GPUs ({GPU_RESOURCE} in status.allocatable or status.capacity); its options are nic_gbps, nvlink_gbps, nics, fabric and gpu"))
        };
        Ok(KueueOptions { links: parse_options(text, &[], gpus_from_the_file)?.links })
    }
}

/// `gpus=8,nic_gbps=200,nvlink_gbps=2400,nics=1,fabric=ib`: every key, so the text says
/// what was assumed.
impl std::fmt::Display for SlurmOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gpus={},{}", self.gpus, self.links)?;
        if let Some(on) = self.block_nvlink {
            write!(f, ",block_nvlink={}", if on { "on" } else { "off" })?;
        }
        Ok(())
    }
}

/// `nic_gbps=200,nvlink_gbps=2400,nics=1,fabric=ib[,gpu=M]`.
impl std::fmt::Display for LinkOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "nic_gbps={},nvlink_gbps={},nics={},fabric={}",
            self.nic_gbps,
            self.nvlink_gbps,
            self.nics,
            self.fabric.name()
        )?;
        // The newer key only when given, so that texts written before it keep their form.
        if let Some(gpu) = self.gpu {
            write!(f, ",gpu={}", gpu.key())?;
        }
        Ok(())
    }
}

fn parse_switch(key: &str, value: &str) -> Result<bool, InputError> {
    match value {
        "on" | "true" | "yes" => Ok(true),
        "off" | "false" | "no" => Ok(false),
        _ => Err(InputError::new(key, format!("expected on or off, got '{value}'"))),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TCP_GPU_LINK_GBPS;

    #[test]
    fn options_parse_with_the_fabrics_defaults_and_name_the_key() {
        assert_eq!(SlurmOptions::parse("").unwrap(), SlurmOptions::default());
        assert_eq!(SlurmOptions::default().to_string(), "gpus=8,nic_gbps=200,nvlink_gbps=2400,nics=1,fabric=ib");
        let o = SlurmOptions::parse(" gpus=4, nic_gbps=400 ,nvlink_gbps=7200,nics=8").unwrap();
        let links = LinkOptions { nic_gbps: 400.0, nvlink_gbps: 7200.0, nics: 8, ..LinkOptions::default() };
        assert_eq!(o, SlurmOptions { gpus: 4, links, ..SlurmOptions::default() });
        assert_eq!(o.links.node_link_gbps(), 3200.0);
        assert_eq!(SlurmOptions::parse(&o.to_string()).unwrap(), o);
        // The fabric sets the bandwidths not given, wherever it is written.
        let tcp = SlurmOptions::parse("nic_gbps=25,fabric=tcp").unwrap();
        assert_eq!(
            (tcp.links.nic_gbps, tcp.links.nvlink_gbps, tcp.links.fabric),
            (25.0, TCP_GPU_LINK_GBPS, Fabric::Tcp)
        );
        // A GPU sets the GPU links' default and, for GB200, makes blocks NVLink domains.
        let gb200 = SlurmOptions::parse("gpu=gb200,nics=4,nic_gbps=400").unwrap();
        assert_eq!((gb200.links.nvlink_gbps, gb200.block_nvlink()), (GpuKind::GB200.default_link_gbps(), true));
        assert_eq!(gb200.links.empty_spec().gpu.as_deref(), Some("GB200"));
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

    #[test]
    fn each_format_takes_its_own_keys() {
        // The links parse alike everywhere.
        let links = SlurmOptions::parse("nic_gbps=400,nics=8,fabric=roce,gpu=h100").unwrap().links;
        assert_eq!(LingjunOptions::parse("nic_gbps=400,nics=8,fabric=roce,gpu=h100").unwrap().links, links);
        assert_eq!(VolcanoOptions::parse("gpu=h100,fabric=roce,nics=8,nic_gbps=400").unwrap().links, links);
        assert_eq!(KueueOptions::parse("nic_gbps=400,nics=8,fabric=roce,gpu=h100").unwrap().links, links);
        assert_eq!(LingjunOptions::parse("gpus=2").unwrap().gpus, 2);
        assert_eq!(VolcanoOptions::parse("").unwrap(), VolcanoOptions::default());
        // A key a format does not use is refused, naming the keys it does.
        let e = LingjunOptions::parse("block_nvlink=on").unwrap_err();
        assert_eq!(
            e.to_string(),
            "block_nvlink: unknown key (expected one of: gpus, nic_gbps, nvlink_gbps, nics, fabric, gpu)"
        );
        let e = VolcanoOptions::parse("oversub=2").unwrap_err();
        assert_eq!(e.field, "oversub");
        let e = KueueOptions::parse("block_nvlink=off").unwrap_err();
        assert_eq!(
            e.to_string(),
            "block_nvlink: unknown key (expected one of: nic_gbps, nvlink_gbps, nics, fabric, gpu)"
        );
        let e = KueueOptions::parse("nics=2,gpus=8").unwrap_err();
        assert!(e.field == "gpus" && e.message.starts_with("a Kueue file gives each node's GPUs"), "{e}");
        // Slurm's keys are listed as they always were.
        let e = SlurmOptions::parse("racks=2").unwrap_err();
        assert_eq!(
            e.message,
            "unknown key (expected one of: gpus, nic_gbps, nvlink_gbps, nics, fabric, gpu, block_nvlink)"
        );
    }
}
