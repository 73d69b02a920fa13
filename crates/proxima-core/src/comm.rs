//! The communication model: how long one training iteration takes on a given placement.
//!
//! An iteration computes gradients on every GPU and all-reduces them. The all-reduce is one
//! flat ring through all `N` of the job's GPUs, visited server by server, which is what
//! NCCL builds by default; its speed is set by the slowest link the ring crosses. With `S`
//! gradient bytes, `c` seconds of compute on one GPU and the job's GPU count `N`:
//!
//! ```text
//! c_eff = c · (1 + κ · (k − 1)) · (1 + σ · (N^¼ − 1))   compute, with the server's contention
//!                                                  and the wait for the slowest replica
//! sync  = 2(N−1)/N · S / B  +  2(N−1) · α          ring all-reduce, 0 when N = 1
//! iter  = c_eff + max(0, sync − ov · c_eff)        the backward pass hides up to ov · c_eff of it
//! ```
//!
//! `B` is the ring's bandwidth. What limits it is split between the hosts and the switches.
//! A ring's *cap* is what its hosts can drive: the minimum over its GPUs' NVLink or PCIe links
//! and, on more than one server, over its servers' network links (their NICs) of
//! `efficiency · C`, where `C` is the link's nominal bandwidth and `efficiency` the fraction
//! of it one ring reaches from the host ([`CommParams`], one value for GPU links and one for
//! NICs). On a server with several NICs (one per GPU or pair of GPUs, as in NVSwitch servers
//! with InfiniBand), a ring drives only as many of them as it has GPUs there. The efficiency
//! describes the host's software stack (NCCL over TCP sockets reaches a tenth of a NIC, over
//! RDMA nearly all of it), so it applies where the ring enters the network and nowhere else:
//! switch links (rack uplinks, aggregation, core) carry their full nominal bandwidth. Every
//! network link a ring crosses, NICs and switch links alike, is shared max-min fairly among
//! the rings crossing it ([`crate::maxmin`], solved by [`crate::cluster::ClusterState`]), each
//! ring asking for its cap. Alone on idle links a ring therefore runs at its cap or at its
//! slowest switch link's nominal bandwidth, whichever is smaller. `α` is the latency of the
//! ring's slowest step. `σ` (cluster-wide) is how much a synchronous step waits for
//! stragglers; `ov` (per model) is how much exchange the backward pass hides.
//!
//! A multi-node NVLink domain (a GB200 NVL72 rack, a switch of role `nvlink` above its
//! trays, [`crate::topology::NVLINK_ROLE`]) extends the server's GPU links across its trays:
//! a tray's link into the domain counts as a GPU link (`intra_efficiency`, no NIC), so a
//! ring inside one domain runs at NVLink speed however many trays it spans, and the domain's
//! link up counts as NICs, the trays' together, of which a ring leaving the domain drives
//! one per GPU it has there.
//!
//! Two cluster-wide terms describe what the GPUs of one server share, both in the job's GPUs
//! on its busiest server `k` and both zero by default: `κ` ([`CommParams::server_compute`])
//! slows every replica's compute by `κ` per extra GPU on the server (host contention: CPU
//! data loading, PCIe, host memory), and `λ` ([`CommParams::server_ring`]) divides the GPU
//! links' ring bandwidth by `1 + λ · (k − 1)` (a ring on a topology without a switch between
//! the GPUs, or GPUs behind shared PCIe switches). Only the Sia clusters' calibration sets
//! them (`docs/CALIBRATION.md`, "Calibrated on the Sia clusters").
//!
//! This form ("E1") and its parameters were fitted to measured step times of four models on
//! 1–16 GPUs; `docs/CALIBRATION.md` has the method, the values and the error. Two parts of
//! the model are assumptions the measurements could not test: the data have no link shared
//! by several jobs, so the fair sharing is untested; and they come from one cluster (NCCL 2.7
//! over TCP sockets, 50 Gbit/s NICs). The `rdma` efficiencies ([`CommParams::rdma`]) come
//! from published NCCL measurements on NVSwitch servers with InfiniBand instead.

use crate::comm_params::CommParams;
use crate::model::{ModelProfile, Parallelism};
use crate::topology::{GpuId, LinkId, NodeId, NodeKind, Topology};
use serde::Serialize;

/// What the communication model needs to know about a placement.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PlacementShape {
    /// `N`, the ring's length.
    pub gpus: u32,
    /// Servers the job spans (`m`).
    pub servers: u32,
    /// Most of the job's GPUs on any one server (`k`): what the server terms `κ` and `λ`
    /// ([`CommParams::server_compute`], [`CommParams::server_ring`]) grow with.
    pub max_per_server: u32,
    /// Slowest GPU link (NVLink, PCIe) of the job's GPUs, nominal bytes/s.
    pub gpu_link_bytes_per_s: f64,
    /// Slowest server network link (the NICs of a server) the ring crosses, nominal bytes/s,
    /// counting of a server's NICs only those its GPUs there drive; infinite on one server.
    pub nic_bytes_per_s: f64,
    /// Slowest switch link (rack uplink, aggregation, core) the ring crosses, nominal
    /// bytes/s; infinite when its servers hang under one switch.
    pub switch_link_bytes_per_s: f64,
    /// The ring's share of the network links it crosses (max-min fair among the rings on
    /// them), bytes/s; infinite on one server or when not shared.
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

/// `1 + coefficient · (k − 1)`: how a server's shared resources slow a job with `k` GPUs on
/// its busiest server. Exactly 1 with a zero coefficient, so the default model's arithmetic
/// is unchanged bit for bit.
pub fn server_factor(per_server: u32, coefficient: f64) -> f64 {
    if per_server <= 1 {
        1.0
    } else {
        1.0 + coefficient * (per_server - 1) as f64
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

impl PlacementShape {
    /// The same placement with the ring's share of the network set.
    pub fn with_share(self, net_share_bytes_per_s: f64) -> PlacementShape {
        PlacementShape { net_share_bytes_per_s, ..self }
    }
}

impl CommParams {
    /// What the ring's hosts can drive (its demand cap), bytes/s: `intra_efficiency` of its
    /// slowest GPU link, divided by the server factor of `λ` ([`server_factor`]), and, across servers, `inter_efficiency` of its slowest NIC link. This
    /// is what the ring asks of the max-min sharing; switch links are not in it, because the
    /// sharing gives each of them its nominal capacity.
    pub fn ring_cap(&self, shape: &PlacementShape) -> f64 {
        let mut bw =
            self.intra_efficiency * shape.gpu_link_bytes_per_s / server_factor(shape.max_per_server, self.server_ring);
        // On one server the network terms are infinite; skipping them also keeps a zero
        // efficiency from turning `0 · ∞` into NaN.
        if shape.servers > 1 {
            bw = bw.min(self.inter_efficiency * shape.nic_bytes_per_s);
        }
        bw
    }

    /// The ring's bandwidth, bytes/s: its cap, its slowest switch link's nominal bandwidth,
    /// or its share of the network, whichever is smallest. A share from the max-min sharing
    /// never exceeds the switch links' capacity; the switch term gives a ring alone on idle
    /// links (no share set) the rate the sharing would give it.
    pub fn ring_bytes_per_s(&self, shape: &PlacementShape) -> f64 {
        self.ring_cap(shape).min(shape.switch_link_bytes_per_s).min(shape.net_share_bytes_per_s)
    }

    /// Seconds of exchange per iteration, before any overlap: a ring all-reduce of the
    /// model's gradient bytes (its parameters in its precision), and for a sharded model
    /// 1.5 times that, its all-gathers and reduce-scatter running on the same ring
    /// ([`crate::model::Parallelism::volume_factor`]). A data-parallel model's time is the
    /// all-reduce's alone, not multiplied by anything.
    pub fn sync_time(&self, model: &ModelProfile, shape: &PlacementShape) -> f64 {
        if shape.gpus <= 1 {
            return 0.0;
        }
        let all_reduce = ring_time(shape.gpus, model.grad_bytes() / self.ring_bytes_per_s(shape), shape.step_latency_s);
        match model.parallelism {
            Parallelism::DataParallel => all_reduce,
            sharded => sharded.volume_factor() * all_reduce,
        }
    }

    /// Seconds per training iteration: the model's compute slowed by the server's contention
    /// (`κ`, [`server_factor`]), then [`step_time`].
    pub fn iteration_time(&self, model: &ModelProfile, shape: &PlacementShape) -> f64 {
        let sync = self.sync_time(model, shape);
        let compute = model.compute_s * server_factor(shape.max_per_server, self.server_compute);
        step_time(compute, straggler_growth(shape.gpus), self.straggler, sync, model.overlap)
    }
}

/// Describes the placement of `gpus` (sorted ascending) whose ring crosses the network links
/// `links`, alone on them: its share of the network is infinite until the caller sets it
/// ([`PlacementShape::with_share`]). Runs on every rate change, so it only scans the GPUs and
/// links once.
pub fn shape_of(topo: &Topology, gpus: &[GpuId], links: &[LinkId]) -> PlacementShape {
    // Servers in GPU order, each with the job's GPUs on it.
    let mut servers: Vec<(NodeId, u32)> = Vec::new();
    let mut gpu_bw = f64::INFINITY;
    let mut gpu_lat: f64 = 0.0;
    for &g in gpus {
        let s = topo.server_of(g);
        match servers.last_mut() {
            Some((last, k)) if *last == s => *k += 1,
            _ => servers.push((s, 1)),
        }
        let link = topo.link(topo.node(topo.gpu_node(g)).uplink.expect("a GPU hangs under its server"));
        gpu_bw = gpu_bw.min(link.bytes_per_s());
        gpu_lat = gpu_lat.max(link.latency_us * 1e-6);
    }
    let max_per_server = servers.iter().map(|&(_, k)| k).max().unwrap_or(0);
    let mut nic_bw = f64::INFINITY;
    let mut switch_bw = f64::INFINITY;
    for &l in links {
        let link = topo.link(l);
        let child = topo.node(link.child);
        let c = link.bytes_per_s();
        if child.kind == NodeKind::Server && topo.node(link.parent).is_nvlink_switch() {
            // A tray's NVLink into its domain: a GPU link, reached at the GPU links'
            // efficiency, never the NICs'.
            gpu_bw = gpu_bw.min(c);
            continue;
        }
        if child.kind == NodeKind::Server {
            // A server's link up is the sum of its NICs; the ring's GPUs there drive at most
            // as many of them as there are GPUs.
            let on_server = servers.binary_search_by(|&(s, _)| s.cmp(&link.child)).map(|i| servers[i].1);
            nic_bw = nic_bw.min(driven_nics(c, child.nics, on_server.ok()));
        } else if child.is_nvlink_switch() {
            // An NVLink domain's link up is its trays' NICs: the ring's GPUs in the domain
            // drive as many of them.
            let (first, end) = (GpuId(child.first_gpu), GpuId(child.first_gpu + child.gpu_count));
            let inside = (gpus.partition_point(|&g| g < end) - gpus.partition_point(|&g| g < first)) as u32;
            nic_bw = nic_bw.min(driven_nics(c, child.nics, Some(inside)));
        } else {
            // A switch's link up: raw capacity, whatever the hosts' stack reaches.
            switch_bw = switch_bw.min(c);
        }
    }
    // A step inside a server crosses one GPU link; a step between servers crosses the
    // network path between them, which is the slowest step of a ring that has any.
    let mut step_latency = gpu_lat;
    if servers.len() > 1 {
        let mut inter_lat: f64 = 0.0;
        for i in 0..servers.len() {
            let (a, b) = (servers[i].0, servers[(i + 1) % servers.len()].0);
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
        nic_bytes_per_s: nic_bw,
        switch_link_bytes_per_s: switch_bw,
        net_share_bytes_per_s: f64::INFINITY,
        step_latency_s: step_latency,
    }
}

/// The part of a link of `nics` NICs (`capacity` bytes/s together) that a ring with `gpus`
/// GPUs behind it drives: one NIC per GPU, all of them when the count is unknown.
fn driven_nics(capacity: f64, nics: u32, gpus: Option<u32>) -> f64 {
    match gpus {
        Some(k) if nics > 1 => capacity * k.min(nics) as f64 / nics as f64,
        _ => capacity,
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
        let s = shape_of(&t, &gpus, &[]);
        assert_eq!((s.servers, s.max_per_server), (1, 4));
        let expected = 2.0 * 0.75 * 1e9 / 300e9 + 6.0 * 1e-6;
        assert!((p.sync_time(&model, &s) - expected).abs() < 1e-12);
        // One GPU on each server of rack 0: a two-GPU ring over the NICs (2 us each way).
        let gpus = [GpuId(0), GpuId(4)];
        let mut links = Vec::new();
        t.inter_server_links(&[t.server_of(gpus[0]), t.server_of(gpus[1])], &mut links);
        let s = shape_of(&t, &gpus, &links);
        let expected = 2.0 * 0.5 * 1e9 / 25e9 + 2.0 * 4e-6;
        assert!((p.sync_time(&model, &s) - expected).abs() < 1e-12);
        // Two GPUs on each of those servers: one flat ring of four over the same NICs, not an
        // intra phase plus an inter phase: 2 * 3/4 * 1e9 / 25e9 s plus 6 steps of 4 us.
        let gpus = [GpuId(0), GpuId(1), GpuId(4), GpuId(5)];
        let s = shape_of(&t, &gpus, &links);
        assert_eq!((s.servers, s.max_per_server), (2, 2));
        let expected = 2.0 * 0.75 * 1e9 / 25e9 + 6.0 * 4e-6;
        assert!((p.sync_time(&model, &s) - expected).abs() < 1e-12);
        // The same ring given half of its links' bandwidth by the sharing runs slower.
        let shared = s.with_share(12.5e9);
        assert_eq!(p.ring_bytes_per_s(&shared), 12.5e9);
        assert!(p.iteration_time(&model, &shared) > p.iteration_time(&model, &s));
    }

    #[test]
    fn the_server_terms_slow_compute_and_the_ring_by_the_gpus_on_the_busiest_server() {
        // teaching: four GPUs per server on 300 GB/s NVLink. κ = 0.1 and λ = 0.5 with four GPUs
        // on one server: compute 1 + 0.1 · 3 = 1.3 times as long, the ring at 300 / 2.5 GB/s.
        let t = resolve_topology_arg("teaching").unwrap();
        let mut model = Catalog::built_in().get(Catalog::built_in().lookup("resnet50").unwrap()).clone();
        model.params_millions = 250.0; // S = 1 GB
        model.compute_s = 1.0;
        model.overlap = 0.0;
        let p = CommParams { server_compute: 0.1, server_ring: 0.5, ..CommParams::ideal() };
        let gpus: Vec<GpuId> = (0..4).map(GpuId).collect();
        let s = shape_of(&t, &gpus, &[]);
        assert_eq!(p.ring_bytes_per_s(&s), 120e9);
        let sync = 2.0 * 0.75 * 1e9 / 120e9 + 6.0 * 1e-6;
        assert!((p.iteration_time(&model, &s) - (1.3 + sync)).abs() < 1e-12);
        // One GPU on each of two servers: k = 1, neither term applies.
        let gpus = [GpuId(0), GpuId(4)];
        let mut links = Vec::new();
        t.inter_server_links(&[t.server_of(gpus[0]), t.server_of(gpus[1])], &mut links);
        let s = shape_of(&t, &gpus, &links);
        let plain = CommParams::ideal();
        assert_eq!(p.iteration_time(&model, &s), plain.iteration_time(&model, &s));
        // Zero terms (the default) leave every placement's time as E1 computes it, bit for bit.
        let gpus: Vec<GpuId> = (0..3).map(GpuId).collect();
        let s = shape_of(&t, &gpus, &[]);
        let e1 = step_time(1.0, straggler_growth(3), plain.straggler, plain.sync_time(&model, &s), 0.0);
        assert_eq!(plain.iteration_time(&model, &s).to_bits(), e1.to_bits());
        assert_eq!((server_factor(3, 0.0), server_factor(1, 0.7), server_factor(3, 0.25)), (1.0, 1.0, 1.5));
    }

    #[test]
    fn a_ring_is_capped_by_its_efficiency_until_sharing_bites() {
        // The teaching NICs carry 25 GB/s. With an inter-server efficiency of 0.1 one ring gets
        // 2.5 GB/s however large a share the sharing leaves it; a share of 25/11 binds.
        let t = resolve_topology_arg("teaching").unwrap();
        let p = CommParams { intra_efficiency: 0.5, inter_efficiency: 0.1, ..CommParams::ideal() };
        let gpus = [GpuId(0), GpuId(4)];
        let mut links = Vec::new();
        t.inter_server_links(&[t.server_of(gpus[0]), t.server_of(gpus[1])], &mut links);
        let s = shape_of(&t, &gpus, &links);
        assert_eq!(p.ring_cap(&s), 2.5e9);
        for (share, expected) in [(f64::INFINITY, 2.5e9), (2.5e9, 2.5e9), (25e9 / 11.0, 25e9 / 11.0)] {
            assert_eq!(p.ring_bytes_per_s(&s.with_share(share)), expected, "share {share}");
        }
        // Inside a server the GPU links set the rate: half of 300 GB/s.
        let s = shape_of(&t, &[GpuId(0), GpuId(1)], &[]);
        assert_eq!(p.ring_bytes_per_s(&s), 150e9);
    }

    #[test]
    fn a_ring_drives_as_many_nics_as_it_has_gpus_on_a_server() {
        // rdma-2048: eight 200 Gbit/s NICs per server (1,600 Gbit/s = 200 GB/s in all). A ring
        // of one GPU on each of two servers reaches one NIC: 25 GB/s nominal; with four GPUs
        // on each, four NICs: 100 GB/s; with 3 + 1, the server with one GPU limits it.
        let t = resolve_topology_arg("rdma-2048").unwrap();
        let ring = |gpus: &[u32]| {
            let gpus: Vec<GpuId> = gpus.iter().map(|&g| GpuId(g)).collect();
            let mut servers: Vec<NodeId> = gpus.iter().map(|&g| t.server_of(g)).collect();
            servers.dedup();
            let mut links = Vec::new();
            t.inter_server_links(&servers, &mut links);
            shape_of(&t, &gpus, &links).nic_bytes_per_s
        };
        assert_eq!(ring(&[0, 8]), 25e9);
        assert_eq!(ring(&[0, 1, 2, 3, 8, 9, 10, 11]), 100e9);
        assert_eq!(ring(&[0, 1, 2, 8]), 25e9);
        // With the rdma efficiencies a one-GPU-per-server ring gets 0.92 × 25 GB/s = 23 GB/s,
        // where a ring inside a server gets 230 GB/s: a 10:1 step, not the 52:1 of NCCL over TCP
        // beside NVSwitch.
        let p = CommParams::rdma();
        let s = shape_of(&t, &[GpuId(0), GpuId(8)], &[]);
        assert!((p.ring_cap(&s) - 230e9).abs() < 1.0);
        let mut links = Vec::new();
        t.inter_server_links(&[t.server_of(GpuId(0)), t.server_of(GpuId(8))], &mut links);
        assert!((p.ring_cap(&shape_of(&t, &[GpuId(0), GpuId(8)], &links)) - 23e9).abs() < 1.0);
    }
}
