//! What a parametric cluster is made of: its network fabric (`fabric=ib|roce|tcp`, with
//! `rdma` an older name of `ib`) and its GPU (`gpu=t4|a100|h100|b200|gb200`). The fabric sets the
//! NICs' default speed and the fraction of it one NCCL ring reaches; the GPU sets the GPU
//! links' default speed and the fraction of NVLink (or PCIe) one ring reaches. Each number
//! is sourced in `comm.rs` and `docs/CALIBRATION.md`.

use crate::comm_params::{
    a100_nvswitch_efficiency, blackwell_nvswitch_efficiency, h100_nvswitch_efficiency, CommParams, A100_NVLINK_GBPS,
    BLACKWELL_NVLINK_GBPS, H100_NVLINK_GBPS, POLLUX_NIC_GBPS, POLLUX_PCIE_GBPS, RDMA_NIC_EFFICIENCY,
    ROCE_NIC_EFFICIENCY,
};
use crate::error::InputError;

use super::spec::CollectiveSpec;

/// The kind of network a parametric topology describes, which sets its NICs' default speed
/// and how much of it one ring reaches, so that they match the links it builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fabric {
    /// InfiniBand NICs with GPUDirect RDMA (`fabric=ib`, or `rdma`): NVIDIA's per-NIC peaks
    /// in nccl-tests ([`RDMA_NIC_EFFICIENCY`]); 200 Gbit/s HDR NICs by default. The default.
    Ib,
    /// RoCE (RDMA over Converged Ethernet) NICs with GPUDirect RDMA (`fabric=roce`): the
    /// same per-NIC peaks on a lossless Ethernet fabric ([`ROCE_NIC_EFFICIENCY`]); 200
    /// Gbit/s NICs by default.
    Roce,
    /// NCCL over TCP sockets (`fabric=tcp`): the Pollux testbed's calibration
    /// ([`CommParams::default`]); 50 Gbit/s NICs and T4 GPUs on PCIe by default.
    Tcp,
}

impl Fabric {
    pub const ALL: [Fabric; 3] = [Fabric::Ib, Fabric::Roce, Fabric::Tcp];

    /// The name in the parametric form (`ib`, `roce`, `tcp`).
    pub fn name(self) -> &'static str {
        match self {
            Fabric::Ib => "ib",
            Fabric::Roce => "roce",
            Fabric::Tcp => "tcp",
        }
    }

    /// The fabric of a name in the parametric form; `rdma`, the name `ib` had before RoCE
    /// was told apart from it, still means InfiniBand, so older scenarios and sweeps keep
    /// their meaning (and their canonical names, which omit the default fabric).
    pub fn named(name: &str) -> Option<Fabric> {
        match name {
            "rdma" => Some(Fabric::Ib),
            _ => Fabric::ALL.into_iter().find(|f| f.name() == name),
        }
    }

    /// [`Fabric::named`], with an error naming `key` for anything else.
    pub fn parse(key: &str, value: &str) -> Result<Fabric, InputError> {
        Fabric::named(value)
            .ok_or_else(|| InputError::new(key, format!("expected ib, roce or tcp (rdma means ib), got '{value}'")))
    }

    /// How people name the network's NICs: `InfiniBand`, `RoCE`, `Ethernet (NCCL over TCP)`.
    pub fn label(self) -> &'static str {
        match self {
            Fabric::Ib => "InfiniBand",
            Fabric::Roce => "RoCE",
            Fabric::Tcp => "Ethernet (NCCL over TCP)",
        }
    }

    /// The GPU a cluster of this fabric has when the form names none: A100 on NVSwitch for
    /// the RDMA fabrics, whose measurements come from such servers; the Pollux testbed's T4
    /// for `tcp`.
    pub fn default_gpu(self) -> GpuKind {
        match self {
            Fabric::Ib | Fabric::Roce => GpuKind::A100,
            Fabric::Tcp => GpuKind::T4,
        }
    }

    /// The GPU model name of [`Fabric::default_gpu`], as a description's `gpu` field has it.
    pub fn gpu(self) -> &'static str {
        self.default_gpu().name()
    }

    /// The bandwidth of one NIC when the form gives none, Gbit/s.
    pub fn default_nic_gbps(self) -> f64 {
        match self {
            Fabric::Ib | Fabric::Roce => DEFAULT_NIC_GBPS,
            Fabric::Tcp => POLLUX_NIC_GBPS,
        }
    }

    /// The bandwidths of a NIC and of a GPU link when the form gives neither, with the
    /// fabric's default GPU.
    pub fn default_links(self) -> (f64, f64) {
        (self.default_nic_gbps(), self.default_gpu().default_link_gbps())
    }

    /// Fraction of a NIC's line rate one ring reaches on this fabric.
    pub fn inter_efficiency(self) -> f64 {
        match self {
            Fabric::Ib => RDMA_NIC_EFFICIENCY,
            Fabric::Roce => ROCE_NIC_EFFICIENCY,
            Fabric::Tcp => CommParams::default().inter_efficiency,
        }
    }

    fn source(self) -> &'static str {
        match self {
            Fabric::Ib => "InfiniBand NICs (NVIDIA/nccl-tests #290, #119)",
            Fabric::Roce => "RoCE NICs (NVIDIA/nccl-tests #267, #119; equal to InfiniBand's on a lossless fabric)",
            Fabric::Tcp => "NCCL over TCP sockets (fitted to the Pollux placement measurements)",
        }
    }

    /// The efficiencies of this fabric on its default GPU, with where they come from.
    pub fn collective(self) -> CollectiveSpec {
        collective(self, self.default_gpu())
    }
}

/// The GPU the built-in model catalogue's fitted entries were measured on (`model/built_in.rs`).
/// It is named here, with the other GPUs, because a topology names its GPU and the model
/// catalogue is chosen by that name: the catalogue reads topologies' GPU names, never the
/// other way round.
pub const FITTED_GPU: &str = "T4";

/// The GPU of a parametric cluster (`gpu=t4|a100|h100|b200|gb200`): its name in the
/// description, its link into the server's GPU domain, how much of that link one ring
/// reaches, and its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuKind {
    /// NVIDIA T4 on PCIe 3.0 x16, as on the Pollux testbed.
    T4,
    /// NVIDIA A100 SXM4 on NVSwitch (NVLink3, 300 GB/s each way).
    A100,
    /// NVIDIA H100 SXM5 on NVSwitch (NVLink4, 450 GB/s each way).
    H100,
    /// NVIDIA B200 (SXM, 180 GB) in an HGX B200 server: eight GPUs on NVLink5 switches,
    /// 900 GB/s each way.
    B200,
    /// NVIDIA GB200: the Blackwell GPU of a GB200 superchip (one Grace CPU, two GPUs), as in a
    /// GB200 NVL72 rack, whose 72 GPUs share one NVLink5 domain at 900 GB/s each way. It runs
    /// at a higher power than the HGX B200, hence its higher peak
    /// ([`crate::model::per_gpu::PEAK_BF16_FLOPS`]).
    GB200,
}

impl GpuKind {
    pub const ALL: [GpuKind; 5] = [GpuKind::T4, GpuKind::A100, GpuKind::H100, GpuKind::B200, GpuKind::GB200];

    /// The name in the parametric form (`t4`, `a100`, `h100`, `b200`, `gb200`).
    pub fn key(self) -> &'static str {
        match self {
            GpuKind::T4 => "t4",
            GpuKind::A100 => "a100",
            GpuKind::H100 => "h100",
            GpuKind::B200 => "b200",
            GpuKind::GB200 => "gb200",
        }
    }

    /// The GPU model as a description names it, which selects the model catalogue measured
    /// on it ([`crate::model::Catalog::for_gpu`]).
    pub fn name(self) -> &'static str {
        match self {
            GpuKind::T4 => FITTED_GPU,
            GpuKind::A100 => "A100",
            GpuKind::H100 => "H100",
            GpuKind::B200 => "B200",
            GpuKind::GB200 => "GB200",
        }
    }

    /// The GPU of a model name, whatever its case (`A100`, `h100`).
    pub fn named(name: &str) -> Option<GpuKind> {
        GpuKind::ALL.into_iter().find(|g| g.key().eq_ignore_ascii_case(name))
    }

    /// [`GpuKind::named`], with an error naming `key` for anything else.
    pub fn parse(key: &str, value: &str) -> Result<GpuKind, InputError> {
        GpuKind::named(value)
            .ok_or_else(|| InputError::new(key, format!("expected t4, a100, h100, b200 or gb200, got '{value}'")))
    }

    /// What joins the GPUs of a server: `PCIe` or `NVSwitch`.
    pub fn interconnect(self) -> &'static str {
        match self {
            GpuKind::T4 => "PCIe",
            GpuKind::A100 | GpuKind::H100 | GpuKind::B200 | GpuKind::GB200 => "NVSwitch",
        }
    }

    /// Per-direction bandwidth of one GPU's link into its server's domain, Gbit/s.
    pub fn default_link_gbps(self) -> f64 {
        match self {
            GpuKind::T4 => POLLUX_PCIE_GBPS,
            GpuKind::A100 => A100_NVLINK_GBPS,
            GpuKind::H100 => H100_NVLINK_GBPS,
            GpuKind::B200 | GpuKind::GB200 => BLACKWELL_NVLINK_GBPS,
        }
    }

    /// Fraction of that link one ring reaches.
    pub fn intra_efficiency(self) -> f64 {
        match self {
            GpuKind::T4 => CommParams::default().intra_efficiency,
            GpuKind::A100 => a100_nvswitch_efficiency(),
            GpuKind::H100 => h100_nvswitch_efficiency(),
            GpuKind::B200 | GpuKind::GB200 => blackwell_nvswitch_efficiency(),
        }
    }

    /// Memory of one GPU, GB (10^9 bytes), which bounds what a data-parallel replica can
    /// hold. T4: 16 GB GDDR6 (NVIDIA T4 datasheet). A100 and H100: the 80 GB SXM parts the
    /// catalogue's mixed-precision and transformer rows were measured on (Lambda's A100 80GB
    /// SXM4 and H100 80GB SXM5; llm-foundry's "A100 80GB" and "H100 80GB" tables). B200: 180
    /// GB HBM3e (NVIDIA HGX B200 datasheet, 1,440 GB for eight GPUs; "NVIDIA B200-SXM-180GB"
    /// in MLPerf Inference v6.0, mlcommons/inference_results_v6.0,
    /// closed/Nebius/systems/nebius_b200_n1.json). GB200: 186 GB, the GB200 NVL72
    /// datasheet's "up to 13.4 TB HBM3e" over its 72 GPUs.
    pub fn memory_gb(self) -> f64 {
        match self {
            GpuKind::T4 => 16.0,
            GpuKind::A100 | GpuKind::H100 => 80.0,
            GpuKind::B200 => 180.0,
            GpuKind::GB200 => 13_400.0 / 72.0,
        }
    }

    fn source(self) -> &'static str {
        match self {
            GpuKind::T4 => "T4 on PCIe (fitted to the Pollux placement measurements)",
            GpuKind::A100 => "A100 on NVSwitch (NVIDIA/nccl-tests #149)",
            GpuKind::H100 => "H100 on NVSwitch, ring (NVIDIA/nccl-tests #212)",
            GpuKind::B200 => "B200 on NVLink5 switches, ring (NCCL's SM100 NVLink model, NVIDIA/nccl #1807)",
            GpuKind::GB200 => {
                "GB200 on the NVL72's NVLink5 switches, ring (NCCL's SM100 NVLink model, NVIDIA/nccl #1807)"
            }
        }
    }
}

/// Defaults of the RDMA fabrics (`fabric=ib`, `roce`): a 200 Gbit/s NIC per server (25 GB/s,
/// InfiniBand HDR or 200 GbE) and, on the default A100, 2,400 Gbit/s (300 GB/s) per GPU into
/// NVSwitch.
pub const DEFAULT_NIC_GBPS: f64 = 200.0;
pub const DEFAULT_NVLINK_GBPS: f64 = A100_NVLINK_GBPS;
/// Defaults of `fabric=tcp`: PCIe 3.0 x16 GPU links and 50 Gbit/s NICs, as on the Pollux
/// testbed.
pub const TCP_NIC_GBPS: f64 = POLLUX_NIC_GBPS;
pub const TCP_GPU_LINK_GBPS: f64 = POLLUX_PCIE_GBPS;

/// The `collective` block of a cluster of `fabric` and `gpu`: the GPU's ring efficiency
/// inside a server, the fabric's at the NICs, the Pollux straggler coefficient (the only one
/// measured), and where each comes from. The fabric's name leads the source, so that a
/// description says which fabric it was built for.
pub fn collective(fabric: Fabric, gpu: GpuKind) -> CollectiveSpec {
    let straggler = CommParams::default().straggler;
    CollectiveSpec {
        intra_efficiency: Some(gpu.intra_efficiency()),
        inter_efficiency: Some(fabric.inter_efficiency()),
        straggler: Some(straggler),
        server_compute: None,
        server_ring: None,
        source: Some(format!(
            "{}: NCCL rings on {} and {}; docs/CALIBRATION.md",
            fabric.name(),
            gpu.source(),
            fabric.source()
        )),
    }
}

/// The fabric and GPU whose [`collective`] block `block` is, if it is one of them.
pub fn fabric_of(block: &CollectiveSpec) -> Option<(Fabric, GpuKind)> {
    Fabric::ALL
        .into_iter()
        .flat_map(|f| GpuKind::ALL.into_iter().map(move |g| (f, g)))
        .find(|&(f, g)| collective(f, g) == *block)
}

/// A fabric travels (the worker protocol, a typed cluster description) by its name in the
/// parametric form, so that a message reads like the form.
impl serde::Serialize for Fabric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Fabric {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Fabric, D::Error> {
        let name = <String as serde::Deserialize>::deserialize(d)?;
        Fabric::parse("fabric", &name).map_err(|e| serde::de::Error::custom(e.message))
    }
}

/// A GPU travels by its key in the parametric form (`a100`).
impl serde::Serialize for GpuKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

impl<'de> serde::Deserialize<'de> for GpuKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GpuKind, D::Error> {
        let key = <String as serde::Deserialize>::deserialize(d)?;
        GpuKind::parse("gpu", &key).map_err(|e| serde::de::Error::custom(e.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_combinations_keep_the_calibrated_numbers_to_the_bit() {
        // `ib` on A100 is the former `rdma`, `tcp` on T4 the Pollux calibration: results of
        // scenarios written before the split must not move.
        assert_eq!(collective(Fabric::Ib, GpuKind::A100).resolve().unwrap(), CommParams::rdma());
        assert_eq!(collective(Fabric::Tcp, GpuKind::T4).resolve().unwrap(), CommParams::default());
        assert_eq!(collective(Fabric::Roce, GpuKind::A100).resolve().unwrap(), CommParams::roce());
        assert_eq!(collective(Fabric::Ib, GpuKind::H100).resolve().unwrap(), CommParams::h100_ib());
        // RoCE and InfiniBand reach the same share of a NIC; only the source tells them apart.
        assert_eq!(CommParams::roce(), CommParams::rdma());
        assert_ne!(collective(Fabric::Roce, GpuKind::A100), collective(Fabric::Ib, GpuKind::A100));
    }

    #[test]
    fn h100_rings_reach_370_of_450_gb_per_s() {
        let p = CommParams::h100_ib();
        assert!((p.intra_efficiency * H100_NVLINK_GBPS * 1e9 / 8.0 - 370e9).abs() < 1.0);
        assert!(p.intra_efficiency > CommParams::rdma().intra_efficiency, "NVLink4 rings lose less to protocol");
        assert_eq!(GpuKind::H100.default_link_gbps(), 3600.0);
    }

    #[test]
    fn blackwell_rings_reach_721_8_of_900_gb_per_s() {
        // NVLink5: 900 GB/s each way per GPU, twice NVLink4's; NCCL's model of a ring over it
        // loses about the same fifth to protocol as on H100.
        for g in [GpuKind::B200, GpuKind::GB200] {
            assert_eq!(g.default_link_gbps(), 2.0 * GpuKind::H100.default_link_gbps());
            let ring_bytes_per_s = g.intra_efficiency() * g.default_link_gbps() * 1e9 / 8.0;
            assert!((ring_bytes_per_s - 721.8e9).abs() < 1.0, "{g:?}: {ring_bytes_per_s}");
            assert_eq!(g.interconnect(), "NVSwitch");
        }
        assert!((GpuKind::GB200.memory_gb() - 186.1).abs() < 0.05, "13.4 TB over 72 GPUs");
        assert_eq!(GpuKind::B200.memory_gb(), 180.0);
    }

    #[test]
    fn names_round_trip_and_rdma_means_ib() {
        for f in Fabric::ALL {
            assert_eq!(Fabric::named(f.name()), Some(f));
        }
        for g in GpuKind::ALL {
            assert_eq!(GpuKind::named(g.key()), Some(g));
            assert_eq!(GpuKind::named(g.name()), Some(g));
        }
        assert_eq!(Fabric::named("rdma"), Some(Fabric::Ib));
        assert_eq!(Fabric::parse("fabric", "ethernet").unwrap_err().field, "fabric");
        assert_eq!(GpuKind::parse("gpu", "v100").unwrap_err().field, "gpu");
        for f in Fabric::ALL {
            for g in GpuKind::ALL {
                assert_eq!(fabric_of(&collective(f, g)), Some((f, g)));
            }
        }
        assert_eq!(fabric_of(&CollectiveSpec::default()), None);
    }
}
