//! The communication model's cluster-wide parameters ([`CommParams`]) and the published
//! figures they come from: the Pollux testbed's calibration, NVLink and NVSwitch bandwidths,
//! the efficiency of NCCL over RDMA.
//!
//! They live apart from the model itself (`comm.rs`) because topologies carry them: a
//! topology file's `collective` block is a `CommParams`, and a fabric or GPU named in a
//! parametric topology picks its figures from here, while the model reads topologies to time
//! a placement. With the parameters below the topology and the model above it, neither needs
//! the other's module in a circle. The model's own methods on `CommParams` (`ring_cap` and
//! the iteration time) stay in `comm.rs`: an inherent `impl` may sit in any module.

use serde::Serialize;

/// The Pollux testbed's calibrated ring bandwidth inside a server (four T4 GPUs on PCIe),
/// bytes/s. Fitted to all four models' measured step times together (`docs/CALIBRATION.md`,
/// from petuum/adaptdl `osdi21-artifact`, `simulator/traces/*/placements.csv`). Weakly
/// identified: intra-server exchange is mostly hidden, and anything above ~5 GB/s fits
/// almost as well.
pub const POLLUX_INTRA_BYTES_PER_S: f64 = 1.661e9;
/// The Pollux testbed's calibrated ring bandwidth between servers, bytes/s: NCCL 2.7 over TCP
/// sockets (Calico networking in Kubernetes) on 50 Gbit/s AWS g4dn.12xlarge NICs reaches
/// about a tenth of line rate per ring.
pub const POLLUX_INTER_BYTES_PER_S: f64 = 0.5933e9;
/// Nominal bandwidth of a T4's PCIe 3.0 x16 link, Gbit/s (about 16 GB/s per direction).
pub const POLLUX_PCIE_GBPS: f64 = 128.0;
/// Nominal bandwidth of a g4dn.12xlarge's network interface, Gbit/s.
pub const POLLUX_NIC_GBPS: f64 = 50.0;
/// The straggler coefficient fitted on the Pollux testbed.
pub const POLLUX_STRAGGLER: f64 = 0.2288;

/// Cluster-wide parameters of the model that are not properties of one link or one model.
/// A topology file can carry its own (the `collective` block, `docs/FORMATS.md`); the
/// default is the Pollux testbed's calibration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommParams {
    /// Fraction of a GPU link's (NVLink, PCIe) nominal bandwidth one ring reaches, in (0, 1].
    pub intra_efficiency: f64,
    /// Fraction of a server's network link (its NICs) one ring reaches, in (0, 1]. Switch
    /// links beyond the NICs give rings their full nominal bandwidth.
    pub inter_efficiency: f64,
    /// `σ`: a synchronous step of `N` replicas computes `1 + σ(N^¼ − 1)` times as long as
    /// one replica, because every step waits for the slowest. Zero or more.
    pub straggler: f64,
    /// `κ`: with `k` of the job's GPUs on its busiest server, every replica computes
    /// `1 + κ(k − 1)` times as long as alone, because the GPUs of a server share its CPUs,
    /// PCIe and host memory. Zero or more; zero (the default) leaves compute alone.
    pub server_compute: f64,
    /// `λ`: with `k` of the job's GPUs on its busiest server, the ring reaches
    /// `1 / (1 + λ(k − 1))` of what its GPU links give one GPU pair, because the server's GPUs
    /// share the paths between them. Zero or more; zero (the default) leaves the ring alone.
    pub server_ring: f64,
}

impl Default for CommParams {
    /// The Pollux testbed's calibration: ring bandwidths of 1.661 GB/s on 16 GB/s PCIe and
    /// 0.5933 GB/s on 6.25 GB/s NICs, `σ` = 0.2288. Using these efficiencies on another
    /// cluster is an assumption: they describe NCCL over TCP sockets, and NCCL over RDMA
    /// (InfiniBand, RoCE) or NVLink reaches a far larger fraction of line rate.
    fn default() -> Self {
        CommParams {
            intra_efficiency: POLLUX_INTRA_BYTES_PER_S / (POLLUX_PCIE_GBPS * 1.0e9 / 8.0),
            inter_efficiency: POLLUX_INTER_BYTES_PER_S / (POLLUX_NIC_GBPS * 1.0e9 / 8.0),
            straggler: POLLUX_STRAGGLER,
            server_compute: 0.0,
            server_ring: 0.0,
        }
    }
}

/// Nominal per-direction bandwidth of one A100 SXM4 GPU into NVSwitch, Gbit/s: twelve
/// third-generation NVLinks of 25 GB/s each way (300 GB/s).
pub const A100_NVLINK_GBPS: f64 = 2400.0;
/// NCCL all-reduce bus bandwidth on eight A100 over NVSwitch, bytes/s: "~230GB/s", of the
/// 300 GB/s line rate (12 NVLinks × 25 GB/s, ~20 GB/s each effective with 128-byte payloads,
/// "some other bottlenecks on the GPUs" taking the rest). S. Jeaugey (NCCL), NVIDIA/nccl-tests
/// issue #149, 2023-07-05; 232.54 GB/s measured on one 8 × A100 node in NVIDIA/nccl-tests
/// issue #175, 2023-10-29.
pub const A100_NVSWITCH_BUSBW_BYTES_PER_S: f64 = 230.0e9;
/// Fraction of an InfiniBand NIC's line rate one NCCL ring reaches: "For NDR @ 400Gbps you
/// should see 46-48GB/s per NIC" (of 50 GB/s: 0.92–0.96; NVIDIA, NVIDIA/nccl-tests issue
/// #290, 2025-03-03). Users measured 86–91 GB/s bus bandwidth over four 200 Gbit/s HDR NICs
/// between two 8 × A100 nodes (0.86–0.91; NVIDIA/nccl-tests issues #100 and #175). The lower
/// end of NVIDIA's range is taken.
pub const RDMA_NIC_EFFICIENCY: f64 = 0.92;

/// Fraction of a RoCE NIC's line rate one NCCL ring reaches: the same as InfiniBand's
/// ([`RDMA_NIC_EFFICIENCY`]), because NVIDIA gives the same per-NIC peaks for both and users
/// on well-configured RoCE reach them. On a RoCE cluster of six servers with eight 400 Gbit/s
/// ConnectX-7 NICs each, NVIDIA answered "All numbers look good" and "CX-7 NICs at NDR rate
/// (400Gbps) should achieve up to 48-49GB/s per NIC" (NVIDIA/nccl-tests issue #267,
/// 2024-11-19 and 2025-01-23), the InfiniBand figure of #290; and NVIDIA's rule of thumb,
/// "24GB/s is the peak performance per 200G NIC (12 GB/s for 100G NICs)" (NVIDIA/nccl-tests
/// issue #119, 2022-11-17), names no link layer. The RoCE measurements that fall short are
/// set-up faults, each named by NVIDIA in its thread: two A100 servers with eight 100 Gbit/s
/// RoCE NICs at 75 GB/s of 96 ("a bit low", NCCL 2.7; NVIDIA/nccl issue #495, 2021-04-19),
/// a 200 Gbit/s RoCEv2 NIC at under half its rate with PCIe ACS on (NVIDIA/nccl-tests issue
/// #112, 2022-07-07), and bandwidth collapsing without flow control (PFC) on the switches
/// (NVIDIA/nccl issue #378, 2020-09-02). A lossy or misconfigured RoCE fabric is slower than
/// any efficiency can describe; the figure here is for a lossless one.
pub const ROCE_NIC_EFFICIENCY: f64 = RDMA_NIC_EFFICIENCY;

/// Nominal per-direction bandwidth of one H100 SXM5 GPU into NVSwitch, Gbit/s: eighteen
/// fourth-generation NVLinks, 900 GB/s both ways, 450 GB/s ("450GB/s is the line rate",
/// NVIDIA/nccl-tests issue #212) each way.
pub const H100_NVLINK_GBPS: f64 = 3600.0;
/// NCCL ring bus bandwidth on eight H100 over NVSwitch, bytes/s: with NCCL's protocol
/// overhead (about 20%) a ring reaches an effective 370 GB/s of NVLink's 450 GB/s, seen as
/// bus bandwidth with `NCCL_ALGO=RING` (S. Jeaugey, NVIDIA/nccl-tests issue #212,
/// 2024-05-06). NCCL's default all-reduce on H100 uses NVLink SHARP and reports about 480
/// GB/s bus bandwidth (same thread; 476 GB/s measured on one node in NVIDIA/nccl-tests issue
/// #290, 2025-03-03), but that figure is not bandwidth on the wire and exceeds line rate, so
/// it cannot be an efficiency of the link; Proxima's exchange is a ring, and the ring's
/// figure is taken.
pub const H100_NVSWITCH_RING_BUSBW_BYTES_PER_S: f64 = 370.0e9;

/// Nominal per-direction bandwidth of one Blackwell GPU (B200 in an HGX B200 server, or
/// GB200 in a GB200 NVL72 rack) into its NVLink domain, Gbit/s: eighteen fifth-generation
/// NVLinks, 1.8 TB/s both ways, 900 GB/s each way (NVIDIA GB200 NVL72 and HGX B200
/// datasheets: "1.8 TB/s" NVLink per GPU; "18x 5th Gen NVLink" in the MLPerf Inference v6.0
/// system description of an 8 x B200-SXM-180GB server, mlcommons/inference_results_v6.0,
/// closed/Nebius/systems/nebius_b200_n1.json).
pub const BLACKWELL_NVLINK_GBPS: f64 = 7200.0;
/// What one NCCL ring carries over a Blackwell GPU's eighteen NVLinks, bytes/s: NCCL's own
/// model of the effective bandwidth, 40.1 GB/s per NVLink5 link on SM100
/// (`SM100_NVLINK_BW` in NCCL 2.27's `src/graph/topo.h`), 721.8 GB/s over eighteen links
/// ("maxBw 721.8", NVIDIA/nccl issue #1807, 2025-08-13). The same model gives the H100
/// 20.6 GB/s a link, 370.8 GB/s over eighteen, the ring figure measured there
/// ([`H100_NVSWITCH_RING_BUSBW_BYTES_PER_S`]); NVIDIA puts the application-level bandwidth
/// of NVLink at "roughly 80% of the peak" (S. Jeaugey, NVIDIA/nccl issue #1054). The 830
/// GB/s all-reduce bus bandwidth users report on eight B200 (same thread) is NVLink SHARP's,
/// which, as on H100, exceeds what a ring puts on the wire and is not taken.
pub const BLACKWELL_NVSWITCH_RING_BUSBW_BYTES_PER_S: f64 = 721.8e9;

impl CommParams {
    /// Line-rate links, no stragglers: the model as a textbook computes it. Hand-computed
    /// tests use it so that their arithmetic stays a few divisions.
    pub fn ideal() -> CommParams {
        CommParams {
            intra_efficiency: 1.0,
            inter_efficiency: 1.0,
            straggler: 0.0,
            server_compute: 0.0,
            server_ring: 0.0,
        }
    }

    /// A100 NVSwitch servers with InfiniBand NICs and GPUDirect RDMA (`fabric=ib`, also
    /// spelled `rdma`): ring efficiencies from published NCCL measurements
    /// ([`A100_NVSWITCH_BUSBW_BYTES_PER_S`], [`RDMA_NIC_EFFICIENCY`]). No straggler
    /// coefficient has been measured on such a fabric; the Pollux testbed's is kept, as the
    /// only measurement there is.
    pub fn rdma() -> CommParams {
        CommParams::nvswitch(a100_nvswitch_efficiency(), RDMA_NIC_EFFICIENCY)
    }

    /// A100 NVSwitch servers with RoCE NICs (`fabric=roce`): [`ROCE_NIC_EFFICIENCY`], which
    /// equals InfiniBand's, so these are [`CommParams::rdma`]'s numbers under their own source.
    pub fn roce() -> CommParams {
        CommParams::nvswitch(a100_nvswitch_efficiency(), ROCE_NIC_EFFICIENCY)
    }

    /// H100 NVSwitch servers with InfiniBand NICs (`gpu=h100`): the ring's share of NVLink4
    /// ([`H100_NVSWITCH_RING_BUSBW_BYTES_PER_S`]) and [`RDMA_NIC_EFFICIENCY`].
    pub fn h100_ib() -> CommParams {
        CommParams::nvswitch(h100_nvswitch_efficiency(), RDMA_NIC_EFFICIENCY)
    }

    /// The two efficiencies of an RDMA cluster, with the only straggler coefficient measured.
    pub fn nvswitch(intra_efficiency: f64, inter_efficiency: f64) -> CommParams {
        CommParams {
            intra_efficiency,
            inter_efficiency,
            straggler: POLLUX_STRAGGLER,
            server_compute: 0.0,
            server_ring: 0.0,
        }
    }
}

/// The fraction of an A100's NVSwitch line rate one ring reaches (230 of 300 GB/s).
pub fn a100_nvswitch_efficiency() -> f64 {
    A100_NVSWITCH_BUSBW_BYTES_PER_S / (A100_NVLINK_GBPS * 1.0e9 / 8.0)
}

/// The fraction of an H100's NVSwitch line rate one ring reaches (370 of 450 GB/s).
pub fn h100_nvswitch_efficiency() -> f64 {
    H100_NVSWITCH_RING_BUSBW_BYTES_PER_S / (H100_NVLINK_GBPS * 1.0e9 / 8.0)
}

/// The fraction of a Blackwell GPU's NVLink line rate one ring reaches (721.8 of 900 GB/s).
pub fn blackwell_nvswitch_efficiency() -> f64 {
    BLACKWELL_NVSWITCH_RING_BUSBW_BYTES_PER_S / (BLACKWELL_NVLINK_GBPS * 1.0e9 / 8.0)
}
