//! The communication model: how long one training iteration takes on a given placement.
//!
//! An iteration computes gradients on every GPU and all-reduces them. The all-reduce is one
//! flat ring through all `N` of the job's GPUs, visited server by server, which is what
//! NCCL builds by default; its speed is set by the slowest link the ring crosses. With `S`
//! gradient bytes, `c` seconds of compute on one GPU and the job's GPU count `N`:
//!
//! ```text
//! c_eff = c · (1 + σ · (N^¼ − 1))                  compute, with the wait for the slowest replica
//! sync  = 2(N−1)/N · S / B  +  2(N−1) · α          ring all-reduce, 0 when N = 1
//! iter  = c_eff + max(0, sync − ov · c_eff)        the backward pass hides up to ov · c_eff of it
//! ```
//!
//! `B` is the ring's bandwidth: the minimum over the links it crosses (its GPUs' NVLink or
//! PCIe links, and on more than one server every NIC and switch uplink between them) of
//! `min(efficiency · C, C / n)`, where `C` is the link's nominal bandwidth, `n` the number of
//! jobs whose rings cross it, and `efficiency` the fraction of a link one ring reaches on its
//! own ([`CommParams`], one value for GPU links and one for network links). `α` is the
//! latency of the ring's slowest step. `σ` (cluster-wide) is how much a synchronous step
//! waits for stragglers; `ov` (per model) is how much exchange the backward pass hides.
//!
//! This form ("E1") and its parameters were fitted to measured step times of four models on
//! 1–16 GPUs; `docs/CALIBRATION.md` has the method, the values and the error. Two parts of
//! the model are assumptions the measurements could not test: the data have no link shared
//! by several jobs, so the fair share `C / n` is untested; and they come from one cluster
//! (NCCL 2.7 over TCP sockets, 50 Gbit/s NICs), so the default efficiencies describe that
//! cluster, not an RDMA fabric, which reaches a far larger fraction of line rate.

use crate::model::ModelProfile;
use crate::topology::{GpuId, LinkId, NodeId, Topology};
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
    /// Fraction of a network link's nominal bandwidth one ring reaches, in (0, 1].
    pub inter_efficiency: f64,
    /// `σ`: a synchronous step of `N` replicas computes `1 + σ(N^¼ − 1)` times as long as
    /// one replica, because every step waits for the slowest. Zero or more.
    pub straggler: f64,
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
        }
    }
}

impl CommParams {
    /// Line-rate links, no stragglers: the model as a textbook computes it. Hand-computed
    /// tests use it so that their arithmetic stays a few divisions.
    pub fn ideal() -> CommParams {
        CommParams { intra_efficiency: 1.0, inter_efficiency: 1.0, straggler: 0.0 }
    }
}

/// What the communication model needs to know about a placement.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PlacementShape {
    /// `N`, the ring's length.
    pub gpus: u32,
    /// Servers the job spans (`m`).
    pub servers: u32,
    /// Most of the job's GPUs on any one server (`k`). The flat ring's time does not depend
    /// on it; it is kept because it describes the placement.
    pub max_per_server: u32,
    /// Slowest GPU link (NVLink, PCIe) of the job's GPUs, nominal bytes/s.
    pub gpu_link_bytes_per_s: f64,
    /// Slowest network link (NIC, uplink) the ring crosses, nominal bytes/s; infinite on one
    /// server.
    pub net_link_bytes_per_s: f64,
    /// Smallest fair share `C / n` of the network links the ring crosses, bytes/s; infinite
    /// on one server.
    pub net_share_bytes_per_s: f64,
    /// Latency of the ring's slowest step, seconds.
    pub step_latency_s: f64,
}

/// `N^¼ − 1`: how the straggler wait grows with the number of replicas. The expected
/// maximum of `N` noisy compute times grows roughly like `log N`, and `N^¼ − 1 ≈ ¼ ln N` for
/// small `N`; the calibration found no gain in fitting the exponent. `libm::pow` gives the
/// same bits natively and in WebAssembly.
pub fn straggler_growth(gpus: u32) -> f64 {
    if gpus <= 1 {
        0.0
    } else {
        libm::pow(gpus as f64, 0.25) - 1.0
    }
}

/// Seconds of a ring all-reduce over `gpus` GPUs whose payload takes `payload_s` seconds to
/// push through the ring's bottleneck once (`S / B`), with `step_latency_s` per ring step:
/// reduce-scatter and all-gather each send `(N−1)/N` of the payload over `N−1` steps.
pub fn ring_time(gpus: u32, payload_s: f64, step_latency_s: f64) -> f64 {
    if gpus <= 1 {
        return 0.0;
    }
    let n = gpus as f64;
    2.0 * (n - 1.0) / n * payload_s + 2.0 * (n - 1.0) * step_latency_s
}

/// Seconds per iteration from one GPU's compute time, the straggler growth of the job's size
/// ([`straggler_growth`]), `σ`, the exchange time and the overlap: the calibrated form, in
/// one place, for the simulator and the fit alike.
pub fn step_time(compute_s: f64, growth: f64, straggler: f64, sync_s: f64, overlap: f64) -> f64 {
    combine(compute_s * (1.0 + straggler * growth), sync_s, overlap)
}

/// Compute plus the part of the exchange the backward pass does not hide: DDP starts
/// all-reducing gradient buckets during backward, so up to `overlap · compute` seconds of
/// exchange cost nothing; `overlap = 0` adds the two times.
pub fn combine(compute_s: f64, sync_s: f64, overlap: f64) -> f64 {
    let exposed = sync_s - overlap * compute_s;
    if exposed > 0.0 {
        compute_s + exposed
    } else {
        compute_s
    }
}

impl CommParams {
    /// The ring's bandwidth, bytes/s: the per-ring limit of its slowest link, or the fair
    /// share of its most shared network link if that is smaller.
    pub fn ring_bytes_per_s(&self, shape: &PlacementShape) -> f64 {
        let mut bw = self.intra_efficiency * shape.gpu_link_bytes_per_s;
        // On one server the network terms are infinite; skipping them also keeps a zero
        // efficiency from turning `0 · ∞` into NaN.
        if shape.servers > 1 {
            bw = bw.min(self.inter_efficiency * shape.net_link_bytes_per_s).min(shape.net_share_bytes_per_s);
        }
        bw
    }

    /// Seconds of gradient exchange per iteration, before any overlap.
    pub fn sync_time(&self, model: &ModelProfile, shape: &PlacementShape) -> f64 {
        if shape.gpus <= 1 {
            return 0.0;
        }
        ring_time(shape.gpus, model.grad_bytes() / self.ring_bytes_per_s(shape), shape.step_latency_s)
    }

    /// Seconds per training iteration.
    pub fn iteration_time(&self, model: &ModelProfile, shape: &PlacementShape) -> f64 {
        let sync = self.sync_time(model, shape);
        step_time(model.compute_s, straggler_growth(shape.gpus), self.straggler, sync, model.overlap)
    }
}

/// Describes the placement of `gpus` (sorted ascending) whose ring crosses the network links
/// `links`, where `jobs_on(link)` says how many jobs share each link (this one included).
/// Runs on every rate change, so it only scans the GPUs and links once.
pub fn shape_of(topo: &Topology, gpus: &[GpuId], links: &[LinkId], jobs_on: impl Fn(LinkId) -> u32) -> PlacementShape {
    let mut servers: Vec<NodeId> = Vec::new();
    let mut max_per_server = 0u32;
    let mut run = 0u32;
    let mut gpu_bw = f64::INFINITY;
    let mut gpu_lat: f64 = 0.0;
    for &g in gpus {
        let s = topo.server_of(g);
        if servers.last() == Some(&s) {
            run += 1;
        } else {
            servers.push(s);
            run = 1;
        }
        max_per_server = max_per_server.max(run);
        let link = topo.link(topo.node(topo.gpu_node(g)).uplink.expect("a GPU hangs under its server"));
        gpu_bw = gpu_bw.min(link.bytes_per_s());
        gpu_lat = gpu_lat.max(link.latency_us * 1e-6);
    }
    let mut net_bw = f64::INFINITY;
    let mut net_share = f64::INFINITY;
    for &l in links {
        let c = topo.link(l).bytes_per_s();
        net_bw = net_bw.min(c);
        net_share = net_share.min(c / jobs_on(l).max(1) as f64);
    }
    // A step inside a server crosses one GPU link; a step between servers crosses the
    // network path between them, which is the slowest step of a ring that has any.
    let mut step_latency = gpu_lat;
    if servers.len() > 1 {
        let mut inter_lat: f64 = 0.0;
        for i in 0..servers.len() {
            let (a, b) = (servers[i], servers[(i + 1) % servers.len()]);
            let top = topo.node(topo.common_ancestor(a, b)).height;
            let lat = topo.latency_up(a, top) + topo.latency_up(b, top);
            inter_lat = inter_lat.max(lat * 1e-6);
        }
        step_latency = inter_lat;
    }
    PlacementShape {
        gpus: gpus.len() as u32,
        servers: servers.len() as u32,
        max_per_server,
        gpu_link_bytes_per_s: gpu_bw,
        net_link_bytes_per_s: net_bw,
        net_share_bytes_per_s: net_share,
        step_latency_s: step_latency,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Catalog;
    use crate::topology::resolve_topology_arg;

    #[test]
    fn overlap_hides_exchange_up_to_a_share_of_compute() {
        assert_eq!(combine(2.0, 3.0, 0.0), 5.0);
        assert_eq!(combine(2.0, 3.0, 0.5), 4.0);
        assert_eq!(combine(2.0, 0.5, 0.5), 2.0, "fully hidden");
        assert_eq!(combine(2.0, 0.0, 0.0), 2.0);
        // One GPU neither waits for stragglers nor exchanges.
        assert_eq!(straggler_growth(1), 0.0);
        assert_eq!(step_time(2.0, straggler_growth(1), 0.3, 0.0, 0.6), 2.0);
        // 16 GPUs: 16^¼ = 2 exactly, so σ = 0.25 makes compute 1.25 times as long.
        assert_eq!(straggler_growth(16), 1.0);
        assert_eq!(step_time(2.0, 1.0, 0.25, 2.0, 0.5), 2.5 + (2.0 - 1.25));
    }

    #[test]
    fn ring_times_by_hand() {
        // 2 racks x 2 servers x 4 GPUs, NIC 200 Gbit/s = 25 GB/s, NVLink 2400 Gbit/s = 300 GB/s,
        // rack uplinks 2 x 200 / 2 = 200 Gbit/s = 25 GB/s.
        let t = resolve_topology_arg("teaching").unwrap();
        let mut model = Catalog::built_in().get(Catalog::built_in().lookup("resnet50").unwrap()).clone();
        model.params_millions = 250.0; // S = 1 GB
        model.compute_s = 1.0;
        model.overlap = 0.0;
        let p = CommParams::ideal();
        // Four GPUs of one server: 2 * 3/4 * 1e9 / 300e9 s plus 6 steps of 1 us.
        let gpus: Vec<GpuId> = (0..4).map(GpuId).collect();
        let s = shape_of(&t, &gpus, &[], |_| 1);
        assert_eq!((s.servers, s.max_per_server), (1, 4));
        let expected = 2.0 * 0.75 * 1e9 / 300e9 + 6.0 * 1e-6;
        assert!((p.sync_time(&model, &s) - expected).abs() < 1e-12);
        // One GPU on each server of rack 0: a two-GPU ring over the NICs (2 us each way).
        let gpus = [GpuId(0), GpuId(4)];
        let mut links = Vec::new();
        t.inter_server_links(&[t.server_of(gpus[0]), t.server_of(gpus[1])], &mut links);
        let s = shape_of(&t, &gpus, &links, |_| 1);
        let expected = 2.0 * 0.5 * 1e9 / 25e9 + 2.0 * 4e-6;
        assert!((p.sync_time(&model, &s) - expected).abs() < 1e-12);
        // Two GPUs on each of those servers: one flat ring of four over the same NICs, not an
        // intra phase plus an inter phase: 2 * 3/4 * 1e9 / 25e9 s plus 6 steps of 4 us.
        let gpus = [GpuId(0), GpuId(1), GpuId(4), GpuId(5)];
        let s = shape_of(&t, &gpus, &links, |_| 1);
        assert_eq!((s.servers, s.max_per_server), (2, 2));
        let expected = 2.0 * 0.75 * 1e9 / 25e9 + 6.0 * 4e-6;
        assert!((p.sync_time(&model, &s) - expected).abs() < 1e-12);
        // The same ring sharing its links with one other job gets half the bandwidth.
        let shared = shape_of(&t, &gpus, &links, |_| 2);
        assert_eq!(shared.net_share_bytes_per_s, 12.5e9);
        assert!(p.iteration_time(&model, &shared) > p.iteration_time(&model, &s));
    }

    #[test]
    fn a_ring_is_capped_by_its_efficiency_until_sharing_bites() {
        // The teaching NICs carry 25 GB/s. With an inter-server efficiency of 0.1 one ring gets
        // 2.5 GB/s; up to ten rings on a link each still get 2.5 GB/s, and eleven get 25/11.
        let t = resolve_topology_arg("teaching").unwrap();
        let p = CommParams { intra_efficiency: 0.5, inter_efficiency: 0.1, straggler: 0.0 };
        let gpus = [GpuId(0), GpuId(4)];
        let mut links = Vec::new();
        t.inter_server_links(&[t.server_of(gpus[0]), t.server_of(gpus[1])], &mut links);
        for (n, expected) in [(1, 2.5e9), (10, 2.5e9), (11, 25e9 / 11.0)] {
            let s = shape_of(&t, &gpus, &links, |_| n);
            assert!((p.ring_bytes_per_s(&s) - expected).abs() < 1.0, "{n} rings: {}", p.ring_bytes_per_s(&s));
        }
        // Inside a server the GPU links set the rate: half of 300 GB/s.
        let s = shape_of(&t, &[GpuId(0), GpuId(1)], &[], |_| 1);
        assert_eq!(p.ring_bytes_per_s(&s), 150e9);
    }
}
