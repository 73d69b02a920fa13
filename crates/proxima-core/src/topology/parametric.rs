//! The parametric form `racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B]`:
//! a two- or three-level cluster of identical racks, turned into a full description.

use super::spec::{
    default_link_latency_us, default_nvlink_latency_us, LinkSpec, ServerSpec, SwitchSpec, TopologySpec, MAX_GPUS,
    TOPOLOGY_FORMAT_VERSION,
};
use crate::error::InputError;

/// The parameters of the parametric form `racks=R,servers=S,gpus=G[,...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParametricSpec {
    pub racks: u32,
    pub servers_per_rack: u32,
    pub gpus_per_server: u32,
    /// Ratio of the rack's server-facing bandwidth to its uplink bandwidth.
    pub oversub: f64,
    pub nic_gbps: f64,
    pub nvlink_gbps: f64,
}

/// Defaults of the parametric form: a 200 Gbit/s NIC per server (25 GB/s, GPUDirect RDMA
/// class) and 2,400 Gbit/s (300 GB/s) per GPU into NVSwitch, no oversubscription.
pub const DEFAULT_NIC_GBPS: f64 = 200.0;
pub const DEFAULT_NVLINK_GBPS: f64 = 2400.0;

impl ParametricSpec {
    const KEYS: &'static str = "racks, servers, gpus, oversub, nic_gbps, nvlink_gbps";

    /// Parses `racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B]`.
    pub fn parse(text: &str) -> Result<ParametricSpec, InputError> {
        let mut racks = None;
        let mut servers = None;
        let mut gpus = None;
        let mut oversub = 1.0;
        let mut nic = DEFAULT_NIC_GBPS;
        let mut nvlink = DEFAULT_NVLINK_GBPS;
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
                "nic_gbps" => nic = parse_positive(key, value)?,
                "nvlink_gbps" => nvlink = parse_positive(key, value)?,
                _ => return Err(InputError::new(key, format!("unknown key (expected one of: {})", Self::KEYS))),
            }
        }
        let need = |v: Option<u32>, k: &str| {
            v.ok_or_else(|| {
                InputError::new(
                    k,
                    "missing (the form is racks=R,servers=S,gpus=G[,oversub=O][,nic_gbps=B][,nvlink_gbps=B])",
                )
            })
        };
        let spec = ParametricSpec {
            racks: need(racks, "racks")?,
            servers_per_rack: need(servers, "servers")?,
            gpus_per_server: need(gpus, "gpus")?,
            oversub,
            nic_gbps: nic,
            nvlink_gbps: nvlink,
        };
        let total = spec.racks as u64 * spec.servers_per_rack as u64 * spec.gpus_per_server as u64;
        if total > MAX_GPUS as u64 {
            return Err(InputError::new("racks", format!("{total} GPUs is more than the {MAX_GPUS} Proxima supports")));
        }
        Ok(spec)
    }

    /// The description: one top-of-rack switch per rack and, with more than one rack, a
    /// spine whose link to each rack carries `servers × nic_gbps / oversub`.
    pub fn to_spec(&self) -> TopologySpec {
        let mut spec = TopologySpec {
            version: Some(TOPOLOGY_FORMAT_VERSION),
            name: self.to_string(),
            switches: Vec::new(),
            servers: Vec::new(),
            links: Vec::new(),
            collective: None,
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
                    bandwidth_gbps: self.servers_per_rack as f64 * self.nic_gbps / self.oversub,
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
                });
                spec.links.push(LinkSpec {
                    a: id,
                    b: tor.clone(),
                    bandwidth_gbps: self.nic_gbps,
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
        if self.nic_gbps != DEFAULT_NIC_GBPS {
            write!(f, ",nic_gbps={}", self.nic_gbps)?;
        }
        if self.nvlink_gbps != DEFAULT_NVLINK_GBPS {
            write!(f, ",nvlink_gbps={}", self.nvlink_gbps)?;
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
