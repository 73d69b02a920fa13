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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{shape_of, PlacementShape};
    use crate::model::{Catalog, ModelProfile};
    use crate::topology::{resolve_topology_arg, GpuId, Tier, Topology};

    fn ring(t: &Topology, gpus: &[GpuId]) -> PlacementShape {
        let mut servers: Vec<_> = gpus.iter().map(|&g| t.server_of(g)).collect();
        servers.dedup();
        let mut links = Vec::new();
        t.inter_server_links(&servers, &mut links);
        shape_of(t, gpus, &links)
    }

    fn llama_7b(gpu: &str) -> ModelProfile {
        let catalog = Catalog::for_gpu(gpu).expect("a catalogue measured on the GPU");
        catalog.get(catalog.lookup("llama-7b").expect("llama-7b is in every catalogue")).clone()
    }

    #[test]
    fn the_preset_is_eight_72_gpu_nvlink_domains_of_gb200() {
        let t = resolve_topology_arg("gb200-nvl72").unwrap();
        assert_eq!((t.gpu_count(), t.server_count(), t.gpu()), (576, 144, Some("GB200")));
        assert_eq!(t.tier_names(), &["server", "nvlink", "cluster"]);
        let racks = t.tier_nodes(Tier(1));
        assert_eq!(racks.len(), 8);
        let rack = t.node(racks[0]);
        assert!(rack.is_nvlink_switch());
        assert_eq!((rack.gpu_count, rack.nics), (72, 72));
        assert_eq!(t.link(rack.uplink.unwrap()).bandwidth_gbps, 72.0 * 400.0);
        let tray = t.node(t.servers()[0]);
        assert_eq!(t.link(tray.uplink.unwrap()).bandwidth_gbps, 4.0 * GpuKind::GB200.default_link_gbps());
        assert_eq!(
            t.describe_network(),
            "4 × GB200 per server (NVSwitch, 7,200 Gbit/s per GPU), 4 × 400 Gbit/s InfiniBand NICs per server, NVLink domains of 18 servers (72 GPUs) (fabric=ib)"
        );
    }

    /// Llama-7B on 16 GPUs: four trays of one NVL72 rack run their ring at NVLink speed;
    /// two trays in each of two racks at their NICs'; two DGX A100 at theirs. The GB200
    /// placements share one compute time, H100's measured row (the catalogue has no row
    /// measured on GB200), so that they differ by their network alone.
    #[test]
    fn sixteen_gpus_in_one_domain_pay_nvlink_and_across_two_pay_the_nics() {
        let t = resolve_topology_arg("gb200-nvl72").unwrap();
        let p = t.comm_params().clone();
        let model = llama_7b("H100");
        let inside: Vec<GpuId> = (0..16).map(GpuId).collect();
        let across: Vec<GpuId> = (0..8).chain(72..80).map(GpuId).collect();
        let (s_in, s_across) = (ring(&t, &inside), ring(&t, &across));
        assert_eq!((t.tier_of(&inside), t.tier_of(&across)), (Tier(1), Tier(2)));
        assert_eq!((s_in.servers, s_in.nic_bytes_per_s), (4, f64::INFINITY), "no NIC inside the domain");
        let nvlink = GpuKind::GB200.default_link_gbps() * 1e9 / 8.0;
        assert!((p.ring_bytes_per_s(&s_in) - p.intra_efficiency * nvlink).abs() < 1.0);
        // Eight GPUs each side drive eight of a rack's 72 NICs of 400 Gbit/s.
        assert!((s_across.nic_bytes_per_s - 8.0 * 50e9).abs() < 1.0);
        assert!((p.ring_bytes_per_s(&s_across) - p.inter_efficiency * 8.0 * 50e9).abs() < 1.0);
        let (t_in, t_across) = (p.iteration_time(&model, &s_in), p.iteration_time(&model, &s_across));
        assert!(p.sync_time(&model, &s_in) < 0.6 * p.sync_time(&model, &s_across));
        assert!(t_in <= t_across, "the backward pass may hide either exchange, never make NVLink slower");
        let exposed = ModelProfile { overlap: 0.0, ..model.clone() };
        assert!(p.iteration_time(&exposed, &s_in) < p.iteration_time(&exposed, &s_across));
        // Two DGX A100 (8 GPUs and 8 x 200 Gbit/s NICs each) on the A100's own compute time.
        let a100 = resolve_topology_arg("dgx-a100-pod").unwrap();
        let pair: Vec<GpuId> = (0..16).map(GpuId).collect();
        let s_a100 = ring(&a100, &pair);
        assert_eq!(s_a100.servers, 2);
        let t_a100 = a100.comm_params().iteration_time(&llama_7b("A100"), &s_a100);
        assert!(t_across < t_a100, "GB200 across two racks {t_across} s against A100 {t_a100} s");
        // The figures docs/FORMATS.md quotes, to the millisecond.
        let ms = |s: f64| (s * 1000.0).round();
        let sync_a100 = a100.comm_params().sync_time(&llama_7b("A100"), &s_a100);
        let syncs = [p.sync_time(&model, &s_in), p.sync_time(&model, &s_across), sync_a100].map(ms);
        assert_eq!(syncs, [53.0, 103.0, 206.0]);
        assert_eq!((ms(t_in), ms(t_across)), (1329.0, 1329.0));
    }
}
