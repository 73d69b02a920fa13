//! The GB200 NVL72 preset (`gb200-nvl72`): racks that are each one 72-GPU NVLink domain,
//! drawn as trays (the servers Kubernetes and Slurm allocate) under a switch of role
//! `nvlink` ([`NVLINK_ROLE`]), with the trays' InfiniBand NICs as the rack's link into the
//! scale-out fabric.

use super::super::fabric::{collective, Fabric, GpuKind};
use super::super::spec::{LinkSpec, ServerSpec, SwitchSpec, TopologySpec, NVLINK_ROLE, TOPOLOGY_FORMAT_VERSION};

/// Compute trays of a GB200 NVL72 rack, GPUs per tray, and NICs per tray.
pub const NVL72_TRAYS: u32 = 18;
pub const NVL72_TRAY_GPUS: u32 = 4;
/// Per tray, four ConnectX-7 400 Gbit/s NDR InfiniBand NICs for the compute fabric, one per
/// GPU (NVIDIA DGX SuperPOD reference architecture featuring DGX GB200; the DGX GB200
/// compute tray).
pub const NVL72_TRAY_NICS: u32 = 4;
pub const NVL72_NIC_GBPS: f64 = 400.0;
/// Racks in one DGX SuperPOD scalable unit of DGX GB200: eight, 576 GPUs.
pub const GB200_SU_RACKS: u32 = 8;

/// NVIDIA GB200 NVL72 (product page and the DGX SuperPOD reference architecture featuring
/// DGX GB200): a rack of 18 compute trays, each two GB200 superchips (one Grace CPU, two
/// Blackwell GPUs) so four GPUs, all 72 on one NVLink5 fabric of nine NVLink switch trays at
/// 1.8 TB/s per GPU both ways (900 GB/s each way). A tray's link into the domain is its four
/// GPUs' NVLink together; the rack's link up is its trays' 72 NICs of 400 Gbit/s (one
/// ConnectX-7 per GPU), into a non-blocking fat tree over the scalable unit's eight racks
/// (drawn as one spine switch, as the other pods are). The fabric is InfiniBand, or RoCE for
/// `Fabric::Roce` (the Spectrum-X Ethernet variant the reference architecture also names).
pub fn gb200_nvl72_spec(name: &str, racks: u32, fabric: Fabric) -> TopologySpec {
    let gpu = GpuKind::GB200;
    let per_gpu = gpu.default_link_gbps();
    let mut spec = TopologySpec {
        version: Some(TOPOLOGY_FORMAT_VERSION),
        name: name.to_string(),
        switches: vec![SwitchSpec { id: "spine".into(), role: Some("spine".into()) }],
        servers: Vec::new(),
        links: Vec::new(),
        collective: Some(collective(fabric, gpu)),
        gpu: Some(gpu.name().to_string()),
    };
    for r in 0..racks {
        let rack = format!("nvl72-{r}");
        spec.switches.push(SwitchSpec { id: rack.clone(), role: Some(NVLINK_ROLE.into()) });
        let rack_nics = (NVL72_TRAYS * NVL72_TRAY_NICS) as f64 * NVL72_NIC_GBPS;
        spec.links.push(LinkSpec { a: rack.clone(), b: "spine".into(), bandwidth_gbps: rack_nics, latency_us: 2.0 });
        for t in 0..NVL72_TRAYS {
            let tray = format!("{rack}-tray{t}");
            spec.servers.push(ServerSpec {
                id: tray.clone(),
                gpus: NVL72_TRAY_GPUS,
                nvlink_gbps: per_gpu,
                nvlink_latency_us: 1.0,
                nics: NVL72_TRAY_NICS,
            });
            let tray_nvlink = NVL72_TRAY_GPUS as f64 * per_gpu;
            spec.links.push(LinkSpec { a: tray, b: rack.clone(), bandwidth_gbps: tray_nvlink, latency_us: 1.0 });
        }
    }
    spec
}

/// The `gb200-nvl72` preset: one scalable unit, eight NVL72 racks on InfiniBand.
pub(in crate::topology) fn gb200_nvl72() -> TopologySpec {
    gb200_nvl72_spec("gb200-nvl72", GB200_SU_RACKS, Fabric::Ib)
}
