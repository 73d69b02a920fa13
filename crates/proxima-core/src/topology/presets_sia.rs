//! The six clusters of the Sia artifact (siasosp23/artifacts, SOSP 2023), each with the
//! communication model fitted to its placement measurements (`proxima calibrate --cluster
//! NAME`, `docs/CALIBRATION.md`, "Calibrated on the Sia clusters").
//!
//! What each cluster is comes from two places, cited per entry:
//! - the Sia paper ("Sia: Heterogeneity-aware, goodput-optimized ML-cluster scheduling",
//!   SOSP 2023; the artifact ships its pre-publication draft as `sia-sosp23.pdf`), Section 4.2
//!   "Hardware measurements and simulator", which names the GPUs, GPU counts and network of
//!   `t4` (= `aws`), `rtx`, `a100` (= `dgx`, `dgx-ext`) and `quad`, and Section 4.3, which
//!   gives the on-premises node counts (3 rtx, 2 a100, 1 quad);
//! - the artifact's `sia-simulator/simulator_config.py`, whose comments name the instance or
//!   machine behind each trace suffix (including `azure`, which the paper does not mention)
//!   and whose `cluster_ngpus_per_node` and `cluster_max_physical_nnodes` give GPUs per
//!   node and the most nodes profiled.
//!
//! The GPU links inside a server are not stated by either source; each entry says what it
//! assumes and why.

use super::{Preset, TopologySpec};
use crate::topology::spec::{CollectiveSpec, LinkSpec, ServerSpec, SwitchSpec, TOPOLOGY_FORMAT_VERSION};

/// One Sia cluster: its hardware as cited, and the communication model fitted to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SiaCluster {
    /// The artifact's trace suffix: `placements-<name>.csv`.
    pub name: &'static str,
    /// The preset that describes it: `sia-<name>`.
    pub preset: &'static str,
    /// The GPU, as the model catalogue names GPUs (`Catalog::for_gpu`).
    pub gpu: &'static str,
    pub gpus_per_server: u32,
    /// Servers in the preset: the most nodes the artifact profiled on this hardware.
    pub servers: u32,
    /// Per-GPU bandwidth of the GPUs' link inside a server, each way, Gbit/s.
    pub gpu_link_gbps: f64,
    /// Network interfaces per server and the bandwidth of each, Gbit/s.
    pub nics: u32,
    pub nic_gbps: f64,
    /// The hardware in words, with its sources.
    pub hardware: &'static str,
    /// Fitted ring bandwidth inside a server, bytes/s (all-fit, `docs/CALIBRATION.md`).
    pub intra_bytes_per_s: f64,
    /// Fitted ring bandwidth between servers, bytes/s; `None` when the tables have no
    /// multi-node row, so the network was never measured.
    pub inter_bytes_per_s: Option<f64>,
    /// Fitted straggler coefficient `σ`.
    pub straggler: f64,
    /// Fitted `κ`: compute slowed per extra GPU of a job on one server (`comm`'s
    /// `server_compute`); zero where the fit found none.
    pub server_compute: f64,
    /// Fitted `λ`: the ring inside a server slowed per extra GPU of a job on it (`comm`'s
    /// `server_ring`); zero where the fit found none.
    pub server_ring: f64,
}

/// PCIe 3.0 x16, per direction (about 16 GB/s), Gbit/s: the link of a T4, an RTX 2080 Ti and a
/// Quadro RTX 6000 to their host.
const PCIE3_X16_GBPS: f64 = 128.0;
/// V100 SXM2: six NVLink 2.0 links of 25 GB/s each way (NVIDIA Tesla V100 datasheet: 300 GB/s
/// NVLink, both ways), Gbit/s per direction.
const V100_NVLINK_GBPS: f64 = 1200.0;
/// A100 SXM4 into NVSwitch: twelve NVLink 3.0 links of 25 GB/s each way (300 GB/s), Gbit/s.
const A100_NVLINK_GBPS: f64 = crate::comm_params::A100_NVLINK_GBPS;

/// The Sia clusters, in the order the artifact's simulator lists them.
pub const SIA_CLUSTERS: &[SiaCluster] = &[
    SiaCluster {
        name: "aws",
        preset: "sia-aws",
        gpu: "T4",
        gpus_per_server: 4,
        servers: 16,
        gpu_link_gbps: PCIE3_X16_GBPS,
        nics: 1,
        nic_gbps: 50.0,
        hardware: "AWS g4dn.12xlarge: 4 NVIDIA T4 (16 GB) on PCIe 3.0 x16, one 50 Gbit/s NIC; 16 instances (Sia paper Sec. 4.2 't4'; simulator_config.py; the NIC from the Pollux artifact's benchmark/main.tf). The same tables as the Pollux testbed's.",
        intra_bytes_per_s: 1.727e9,
        inter_bytes_per_s: Some(0.6002e9),
        straggler: 0.2269,
        server_compute: 0.0,
        server_ring: 0.0,
    },
    SiaCluster {
        name: "azure",
        preset: "sia-azure",
        gpu: "V100",
        gpus_per_server: 8,
        servers: 5,
        gpu_link_gbps: V100_NVLINK_GBPS,
        nics: 1,
        nic_gbps: 100.0,
        hardware: "Azure ND40rs_v2: 8 NVIDIA V100 SXM2 (32 GB) on NVLink, a 100 Gbit/s EDR InfiniBand back-end network; up to 5 instances profiled (simulator_config.py; Microsoft Learn, NDv2-series; not in the Sia paper). Which transport the runs used is not recorded.",
        // The one Sia cluster whose steps follow the GPUs per server: the node terms are kept
        // (`calibrate_cluster`, `docs/CALIBRATION.md`), and with them the ring and the
        // straggler coefficient move.
        intra_bytes_per_s: 2.890e9,
        inter_bytes_per_s: Some(4.755e9),
        straggler: 0.0007466,
        server_compute: 0.06344,
        server_ring: 0.3446,
    },
    SiaCluster {
        name: "dgx",
        preset: "sia-dgx",
        gpu: "A100",
        gpus_per_server: 8,
        servers: 2,
        gpu_link_gbps: A100_NVLINK_GBPS,
        nics: 8,
        nic_gbps: 200.0,
        hardware: "NVIDIA DGX A100: 8 A100 (40 GB) on NVSwitch, 1.6 Tbit/s InfiniBand (8 x 200 Gbit/s HDR); 2 servers, on premises (Sia paper Sec. 4.2 'a100'; simulator_config.py: 'limited profiled batch sizes').",
        intra_bytes_per_s: 4.245e9,
        inter_bytes_per_s: Some(4.539e9),
        straggler: 0.1273,
        server_compute: 0.0,
        server_ring: 0.0,
    },
    SiaCluster {
        name: "dgx-ext",
        preset: "sia-dgx-ext",
        gpu: "A100",
        gpus_per_server: 8,
        servers: 2,
        gpu_link_gbps: A100_NVLINK_GBPS,
        nics: 8,
        nic_gbps: 200.0,
        hardware: "The same 2 DGX A100 as 'dgx', profiled at larger per-GPU batches (simulator_config.py: 'extended profiled batch sizes (should be default)').",
        intra_bytes_per_s: 3.623e9,
        inter_bytes_per_s: Some(3.969e9),
        straggler: 0.1857,
        server_compute: 0.0,
        server_ring: 0.0,
    },
    SiaCluster {
        name: "quad",
        preset: "sia-quad",
        gpu: "Quadro RTX 6000",
        gpus_per_server: 4,
        servers: 1,
        gpu_link_gbps: PCIE3_X16_GBPS,
        nics: 1,
        nic_gbps: 200.0,
        hardware: "A workstation with 4 NVIDIA Quadro RTX 6000 (24 GB) and 200 Gbit/s InfiniBand; 1 server, on premises (Sia paper Sec. 4.2 'quad'). GPU links assumed PCIe 3.0 x16: whether NVLink bridges join pairs is not stated.",
        intra_bytes_per_s: 1.293e9,
        inter_bytes_per_s: None,
        straggler: 0.1762,
        server_compute: 0.0,
        server_ring: 0.0,
    },
    SiaCluster {
        name: "rtx",
        preset: "sia-rtx",
        gpu: "RTX 2080 Ti",
        gpus_per_server: 8,
        servers: 3,
        gpu_link_gbps: PCIE3_X16_GBPS,
        nics: 1,
        nic_gbps: 50.0,
        hardware: "Commodity servers with 8 NVIDIA RTX 2080 Ti (11 GB) and 50 Gbit/s Ethernet; 3 servers, on premises (Sia paper Sec. 4.2 'rtx'). GPU links assumed PCIe 3.0 x16, the card's host interface; the servers' PCIe layout is not stated.",
        intra_bytes_per_s: 1.004e9,
        inter_bytes_per_s: Some(0.8908e9),
        straggler: 0.1391,
        server_compute: 0.0,
        server_ring: 0.0,
    },
];

/// The presets of [`SIA_CLUSTERS`], chained into the preset lookup by `presets.rs`.
pub const SIA_PRESETS: &[Preset] = &[
    Preset {
        name: "sia-aws",
        description: "64 T4: 16 AWS g4dn.12xlarge (4 T4 on PCIe, 50 Gbit/s NIC) under one switch; fitted to all six Sia/Pollux applications (Sia artifact 'aws')",
        spec: "",
        build: Some(|| SIA_CLUSTERS[0].spec()),
    },
    Preset {
        name: "sia-azure",
        description: "40 V100: 5 Azure ND40rs_v2 (8 V100 on NVLink, 100 Gbit/s InfiniBand) under one switch; fitted to the Sia artifact's 'azure' tables (held-out error above 15%, docs/CALIBRATION.md)",
        spec: "",
        build: Some(|| SIA_CLUSTERS[1].spec()),
    },
    Preset {
        name: "sia-dgx",
        description: "16 A100: 2 DGX A100 (8 A100 on NVSwitch, 8 x 200 Gbit/s HDR InfiniBand) under one switch; fitted to the Sia artifact's 'dgx' tables (held-out error above 15%, docs/CALIBRATION.md)",
        spec: "",
        build: Some(|| SIA_CLUSTERS[2].spec()),
    },
    Preset {
        name: "sia-dgx-ext",
        description: "16 A100: the 2 DGX A100 of sia-dgx, fitted to the Sia artifact's 'dgx-ext' tables (larger batches; held-out error above 15%, docs/CALIBRATION.md)",
        spec: "",
        build: Some(|| SIA_CLUSTERS[3].spec()),
    },
    Preset {
        name: "sia-quad",
        description: "4 Quadro RTX 6000: one workstation (4 GPUs on PCIe, 200 Gbit/s InfiniBand); fitted to the Sia artifact's 'quad' tables, one server only (no catalogue for its GPU)",
        spec: "",
        build: Some(|| SIA_CLUSTERS[4].spec()),
    },
    Preset {
        name: "sia-rtx",
        description: "24 RTX 2080 Ti: 3 servers of 8 GPUs on PCIe with 50 Gbit/s Ethernet under one switch; fitted to the Sia artifact's 'rtx' tables (no catalogue for its GPU)",
        spec: "",
        build: Some(|| SIA_CLUSTERS[5].spec()),
    },
];

/// The cluster named `name` (`azure`, or its preset `sia-azure`).
pub fn sia_cluster(name: &str) -> Option<&'static SiaCluster> {
    SIA_CLUSTERS.iter().find(|c| c.name == name || c.preset == name)
}

impl SiaCluster {
    /// The fraction of the GPU link's nominal bandwidth the fitted ring reaches.
    pub fn intra_efficiency(&self) -> f64 {
        efficiency(self.intra_bytes_per_s, self.gpu_link_gbps)
    }

    /// The fraction of one NIC's nominal bandwidth the fitted ring reaches, if measured.
    pub fn inter_efficiency(&self) -> Option<f64> {
        self.inter_bytes_per_s.map(|b| efficiency(b, self.nic_gbps))
    }

    /// The cluster as a topology: its servers under one switch, each server's GPUs on their
    /// link, its NICs to the switch, and the fitted `collective` block.
    pub fn spec(&self) -> TopologySpec {
        let mut spec = TopologySpec {
            version: Some(TOPOLOGY_FORMAT_VERSION),
            name: self.preset.into(),
            switches: vec![SwitchSpec { id: "switch".into(), role: Some("tor".into()) }],
            servers: Vec::new(),
            links: Vec::new(),
            collective: Some(CollectiveSpec {
                intra_efficiency: Some(self.intra_efficiency()),
                inter_efficiency: self.inter_efficiency(),
                straggler: Some(self.straggler),
                // A zero term is left out, so the description states only what was found.
                server_compute: (self.server_compute > 0.0).then_some(self.server_compute),
                server_ring: (self.server_ring > 0.0).then_some(self.server_ring),
                source: Some(format!(
                    "fitted to the Sia artifact's {} placement measurements (siasosp23/artifacts, adaptdl/sched/traces/*/placements-{}.csv); docs/CALIBRATION.md",
                    self.name, self.name
                )),
            }),
            gpu: Some(self.gpu.into()),
        };
        for s in 0..self.servers {
            let id = format!("node{s}");
            spec.servers.push(ServerSpec {
                id: id.clone(),
                gpus: self.gpus_per_server,
                nvlink_gbps: self.gpu_link_gbps,
                nvlink_latency_us: 10.0,
                nics: self.nics,
            });
            spec.links.push(LinkSpec {
                a: id,
                b: "switch".into(),
                bandwidth_gbps: self.nic_gbps * self.nics as f64,
                latency_us: 25.0,
            });
        }
        spec
    }
}

/// `bytes_per_s` as a fraction of a link of `gbps`, at most 1: a fitted bandwidth above
/// line rate means the exchange was hidden in every row, and any bandwidth that high fits.
fn efficiency(bytes_per_s: f64, gbps: f64) -> f64 {
    (bytes_per_s / (gbps * 1.0e9 / 8.0)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Catalog;
    use crate::topology::{resolve_topology_arg, GpuId, Topology};

    #[test]
    fn every_sia_preset_builds_with_its_clusters_hardware_and_fit() {
        assert_eq!(SIA_PRESETS.len(), SIA_CLUSTERS.len());
        for (preset, c) in SIA_PRESETS.iter().zip(SIA_CLUSTERS) {
            assert_eq!(preset.name, c.preset);
            assert_eq!(sia_cluster(c.name), Some(c));
            let t = resolve_topology_arg(preset.name).unwrap();
            assert_eq!(t.name(), c.preset);
            assert_eq!((t.server_count(), t.gpu_count()), (c.servers, c.servers * c.gpus_per_server));
            assert_eq!(t.gpu(), Some(c.gpu));
            // The ring inside a server reaches the fitted bandwidth on the GPU link.
            let p = t.comm_params();
            let gpu_link = t.link(t.node(t.gpu_node(GpuId(0))).uplink.unwrap());
            assert!(
                (p.intra_efficiency * gpu_link.bytes_per_s() / c.intra_bytes_per_s - 1.0).abs() < 1e-12,
                "{}",
                c.name
            );
            assert!(p.intra_efficiency > 0.0 && p.intra_efficiency <= 1.0 && p.inter_efficiency <= 1.0);
            assert_eq!(p.straggler, c.straggler);
            assert_eq!((p.server_compute, p.server_ring), (c.server_compute, c.server_ring), "{}", c.name);
            // One NIC reaches the fitted bandwidth between servers; a server's link is all its NICs.
            let nic = t.link(t.node(t.servers()[0]).uplink.unwrap());
            assert_eq!(nic.bandwidth_gbps, c.nic_gbps * c.nics as f64);
            if let Some(b) = c.inter_bytes_per_s {
                let one_nic = nic.bytes_per_s() / c.nics as f64;
                assert!((p.inter_efficiency * one_nic / b - 1.0).abs() < 1e-12, "{}", c.name);
            }
            // The description survives export.
            let back = Topology::from_spec(&TopologySpec::from_json(&t.spec().to_json()).unwrap()).unwrap();
            assert_eq!(back.comm_params(), p);
        }
    }

    #[test]
    fn the_rtx_and_quadro_presets_have_no_model_catalogue() {
        // Scenarios need compute times measured on the preset's GPU. The catalogue has T4
        // (fitted), A100 (measured) and V100 (estimates); the Sia tables' fitted compute
        // curves of the RTX 2080 Ti and the Quadro RTX 6000 are not in it.
        let without: Vec<&str> =
            SIA_CLUSTERS.iter().filter(|c| Catalog::for_gpu(c.gpu).is_none()).map(|c| c.gpu).collect();
        assert_eq!(without, ["Quadro RTX 6000", "RTX 2080 Ti"]);
    }
}
