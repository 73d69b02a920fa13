//! The communication model: how long one training iteration takes on a given placement.
//!
//! An iteration computes gradients on every GPU, then all-reduces them. The all-reduce is
//! hierarchical, the way NCCL and Horovod run it on multi-GPU servers: GPUs of one server
//! reduce over NVLink/NVSwitch, one ring among the servers exchanges over the network, and
//! the result is broadcast inside each server again. With `m` servers, at most `k` of the
//! job's GPUs on one server and `S` gradient bytes:
//!
//! ```text
//! intra = [k > 1] · ( 2(k−1)/k · S / B_intra  + 2(k−1) · α_intra )
//! inter = [m > 1] · ( 2(m−1)/m · S / B_inter  + 2(m−1) · α_inter )
//! sync  = intra + inter
//! iter  = (compute^γ + sync^γ)^(1/γ)
//! ```
//!
//! `B_intra` is the slowest NVLink of the job's GPUs; `B_inter` is the smallest share the job
//! gets on any link its ring crosses: links are shared fairly (equally) among the jobs whose
//! rings cross them, so a job slows down when another starts beside it and speeds up when it
//! ends. `α` is the latency of one ring step: the slowest path between ring neighbours. `γ`
//! (per model) says how much of the exchange hides behind the backward pass; γ = 1 adds the
//! two times. Bandwidths are the links' nominal figures times an efficiency per tier
//! ([`CommParams`]): collective libraries do not reach line rate.
//!
//! `docs/CALIBRATION.md` fits these parameters to measured iteration times.

use crate::model::ModelProfile;
use crate::topology::{GpuId, LinkId, NodeId, Topology};
use serde::Serialize;

/// Cluster-wide parameters of the model that are not properties of one link or one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommParams {
    /// Fraction of NVLink bandwidth an all-reduce achieves.
    pub intra_efficiency: f64,
    /// Fraction of network bandwidth an all-reduce achieves.
    pub inter_efficiency: f64,
}

impl Default for CommParams {
    fn default() -> Self {
        CommParams { intra_efficiency: 1.0, inter_efficiency: 1.0 }
    }
}

/// What the communication model needs to know about a placement.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PlacementShape {
    pub gpus: u32,
    /// Servers the job spans (`m`).
    pub servers: u32,
    /// Most of the job's GPUs on any one server (`k`).
    pub max_per_server: u32,
    /// Slowest NVLink of the job's GPUs, bytes/s.
    pub intra_bytes_per_s: f64,
    /// Slowest NVLink latency of the job's GPUs, seconds.
    pub intra_latency_s: f64,
    /// The job's bottleneck share of the inter-server links, bytes/s (infinite when `m = 1`).
    pub inter_bytes_per_s: f64,
    /// Latency of the slowest ring step between neighbouring servers, seconds.
    pub inter_latency_s: f64,
}

impl CommParams {
    /// Seconds of gradient exchange per iteration.
    pub fn sync_time(&self, model: &ModelProfile, shape: &PlacementShape) -> f64 {
        let bytes = model.grad_bytes();
        let mut sync = 0.0;
        if shape.max_per_server > 1 {
            let k = shape.max_per_server as f64;
            let bw = shape.intra_bytes_per_s * self.intra_efficiency;
            sync += 2.0 * (k - 1.0) / k * bytes / bw + 2.0 * (k - 1.0) * shape.intra_latency_s;
        }
        if shape.servers > 1 {
            let m = shape.servers as f64;
            let bw = shape.inter_bytes_per_s * self.inter_efficiency;
            sync += 2.0 * (m - 1.0) / m * bytes / bw + 2.0 * (m - 1.0) * shape.inter_latency_s;
        }
        sync
    }

    /// Seconds per training iteration.
    pub fn iteration_time(&self, model: &ModelProfile, shape: &PlacementShape) -> f64 {
        let compute = model.compute_s;
        let sync = self.sync_time(model, shape);
        combine(compute, sync, model.overlap_gamma)
    }
}

/// The soft maximum `(a^γ + b^γ)^(1/γ)`: the sum for γ = 1, the maximum as γ grows.
pub fn combine(a: f64, b: f64, gamma: f64) -> f64 {
    if b <= 0.0 {
        return a;
    }
    if gamma == 1.0 {
        return a + b;
    }
    // Factor out the larger term so the powers cannot overflow.
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi * libm::pow(1.0 + libm::pow(lo / hi, gamma), 1.0 / gamma)
}

/// Describes the placement of `gpus` (sorted ascending) whose ring crosses `links`, where
/// `jobs_on(link)` says how many jobs share each link (this one included).
pub fn shape_of(
    topo: &Topology,
    gpus: &[GpuId],
    links: &[LinkId],
    jobs_on: impl Fn(LinkId) -> u32,
) -> PlacementShape {
    let mut servers: Vec<NodeId> = Vec::new();
    let mut max_per_server = 0u32;
    let mut run = 0u32;
    let mut intra_bw = f64::INFINITY;
    let mut intra_lat: f64 = 0.0;
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
        intra_bw = intra_bw.min(link.bytes_per_s());
        intra_lat = intra_lat.max(link.latency_us * 1e-6);
    }
    let mut inter_bw = f64::INFINITY;
    for &l in links {
        let share = topo.link(l).bytes_per_s() / jobs_on(l).max(1) as f64;
        inter_bw = inter_bw.min(share);
    }
    let mut inter_lat: f64 = 0.0;
    if servers.len() > 1 {
        for i in 0..servers.len() {
            let (a, b) = (servers[i], servers[(i + 1) % servers.len()]);
            let top = topo.node(topo.common_ancestor(a, b)).height;
            let lat = topo.latency_up(a, top) + topo.latency_up(b, top);
            inter_lat = inter_lat.max(lat * 1e-6);
        }
    }
    PlacementShape {
        gpus: gpus.len() as u32,
        servers: servers.len() as u32,
        max_per_server,
        intra_bytes_per_s: intra_bw,
        intra_latency_s: intra_lat,
        inter_bytes_per_s: inter_bw,
        inter_latency_s: inter_lat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Catalog;
    use crate::topology::resolve_topology_arg;

    #[test]
    fn combine_is_sum_at_one_and_tends_to_max() {
        assert_eq!(combine(2.0, 3.0, 1.0), 5.0);
        assert_eq!(combine(2.0, 0.0, 3.0), 2.0);
        let c = combine(2.0, 3.0, 50.0);
        assert!(c > 3.0 && c < 3.05, "{c}");
    }

    #[test]
    fn ring_times_by_hand() {
        // 2 racks x 2 servers x 4 GPUs, NIC 200 Gbit/s = 25 GB/s, NVLink 2400 Gbit/s = 300 GB/s.
        let t = resolve_topology_arg("teaching").unwrap();
        let mut model = Catalog::built_in().get(Catalog::built_in().lookup("resnet50").unwrap()).clone();
        model.params_millions = 250.0; // S = 1 GB
        model.compute_s = 1.0;
        let p = CommParams::default();
        // Four GPUs of one server: 2 * 3/4 * 1e9 / 300e9 s plus 6 steps of 1 us.
        let gpus: Vec<GpuId> = (0..4).map(GpuId).collect();
        let s = shape_of(&t, &gpus, &[], |_| 1);
        assert_eq!((s.servers, s.max_per_server), (1, 4));
        let expected = 2.0 * 0.75 * 1e9 / 300e9 + 6.0 * 1e-6;
        assert!((p.sync_time(&model, &s) - expected).abs() < 1e-12);
        // One GPU on each server of rack 0: a two-server ring over the NICs (2 us each way).
        let gpus = [GpuId(0), GpuId(4)];
        let mut links = Vec::new();
        t.inter_server_links(&[t.server_of(gpus[0]), t.server_of(gpus[1])], &mut links);
        let s = shape_of(&t, &gpus, &links, |_| 1);
        let expected = 2.0 * 0.5 * 1e9 / 25e9 + 2.0 * 4e-6;
        assert!((p.sync_time(&model, &s) - expected).abs() < 1e-12);
        // The same ring sharing its links with one other job gets half the bandwidth.
        let shared = shape_of(&t, &gpus, &links, |_| 2);
        assert_eq!(shared.inter_bytes_per_s, 12.5e9);
        assert!(p.iteration_time(&model, &shared) > p.iteration_time(&model, &s));
    }
}
