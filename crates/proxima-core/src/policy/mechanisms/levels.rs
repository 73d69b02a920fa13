//! Representative placements per tier: for a job of `n` GPUs, the shape of a placement
//! that spans exactly a tier (the fewest servers that hold it, at least two above a server)
//! and the bandwidth and latency of each level of links. The profile measures its table on
//! these shapes, and sensitivity judges tiers where nothing is free by them.

use crate::cluster::ClusterState;
use crate::comm::PlacementShape;
use crate::topology::{Tier, Topology};

/// Per level of links (0 = NVLink, 1 = server NICs, 2 = rack uplinks, ...): the slowest
/// bandwidth and the largest latency, plus per tier the largest group of GPUs it offers.
#[derive(Clone, Debug)]
pub struct LevelProfile {
    bytes_per_s: Vec<f64>,
    latency_s: Vec<f64>,
    tier_capacity: Vec<u32>,
    gpus_per_server: u32,
}

impl LevelProfile {
    pub fn new(topo: &Topology) -> LevelProfile {
        let levels = topo.tier_count() as usize + 1;
        let mut bytes_per_s = vec![f64::INFINITY; levels];
        let mut latency_s = vec![0.0f64; levels];
        for l in topo.links() {
            let h = topo.node(l.child).height as usize;
            if h < levels {
                bytes_per_s[h] = bytes_per_s[h].min(l.bytes_per_s());
                latency_s[h] = latency_s[h].max(l.latency_us * 1e-6);
            }
        }
        let tier_capacity = (0..topo.tier_count())
            .map(|t| topo.tier_nodes(Tier(t)).iter().map(|&n| topo.node(n).gpu_count).max().unwrap_or(0))
            .collect();
        let gpus_per_server = topo.servers().iter().map(|&s| topo.node(s).gpu_count).max().unwrap_or(1);
        LevelProfile { bytes_per_s, latency_s, tier_capacity, gpus_per_server }
    }

    /// The tightest tier that can hold `n` GPUs at all.
    pub fn base_tier(&self, n: u32) -> Option<Tier> {
        self.tier_capacity.iter().position(|&c| c >= n).map(|t| Tier(t as u8))
    }

    /// A representative placement of `n` GPUs spanning exactly `tier`, its links loaded as
    /// `cluster` loads them on average (`None`: contention-free).
    pub fn shape(&self, n: u32, tier: Tier, cluster: Option<&ClusterState>) -> Option<PlacementShape> {
        if self.tier_capacity.get(tier.0 as usize).copied().unwrap_or(0) < n {
            return None;
        }
        let servers = if tier.0 == 0 { 1 } else { n.div_ceil(self.gpus_per_server).max(2).min(n) };
        let mut nic = f64::INFINITY;
        let mut switch_link = f64::INFINITY;
        let mut share = f64::INFINITY;
        // A ring step between servers goes up to the tier's switch and down again.
        let mut step_latency = if tier.0 == 0 { self.latency_s[0] } else { 0.0 };
        for level in 1..=tier.0 as usize {
            let load = cluster.map(|c| c.mean_jobs_at_level(level as u8)).unwrap_or(0.0);
            // Level 1 is the servers' NICs, where the ring's efficiency applies; above it
            // are switch links, which give their nominal bandwidth.
            if level == 1 {
                nic = self.bytes_per_s[level];
            } else {
                switch_link = switch_link.min(self.bytes_per_s[level]);
            }
            share = share.min(self.bytes_per_s[level] / (load + 1.0));
            step_latency += 2.0 * self.latency_s[level];
        }
        Some(PlacementShape {
            gpus: n,
            servers,
            max_per_server: n.div_ceil(servers),
            gpu_link_bytes_per_s: self.bytes_per_s[0],
            nic_bytes_per_s: nic,
            switch_link_bytes_per_s: switch_link,
            net_share_bytes_per_s: share,
            step_latency_s: step_latency,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::resolve_topology_arg;

    #[test]
    fn representative_shapes() {
        let t = resolve_topology_arg("racks=2,servers=2,gpus=4,oversub=2").unwrap();
        let l = LevelProfile::new(&t);
        assert_eq!(l.base_tier(1), Some(Tier(0)));
        assert_eq!(l.base_tier(6), Some(Tier(1)));
        assert_eq!(l.base_tier(16), Some(Tier(2)));
        assert_eq!(l.base_tier(17), None);
        let s = l.shape(4, Tier(0), None).unwrap();
        assert_eq!((s.servers, s.max_per_server), (1, 4));
        assert_eq!((s.nic_bytes_per_s, s.switch_link_bytes_per_s), (f64::INFINITY, f64::INFINITY));
        let s = l.shape(4, Tier(1), None).unwrap();
        assert_eq!((s.servers, s.max_per_server), (2, 2));
        assert_eq!(
            (s.nic_bytes_per_s, s.switch_link_bytes_per_s, s.net_share_bytes_per_s),
            (25e9, f64::INFINITY, 25e9)
        );
        // Across racks the ring also crosses the 2:1 oversubscribed uplink: 2 x 200 / 2 Gbit/s.
        let s = l.shape(4, Tier(2), None).unwrap();
        assert_eq!((s.nic_bytes_per_s, s.switch_link_bytes_per_s, s.net_share_bytes_per_s), (25e9, 25e9, 25e9));
        let s = l.shape(8, Tier(2), None).unwrap();
        assert_eq!((s.servers, s.max_per_server), (2, 4));
        assert!(l.shape(6, Tier(0), None).is_none());
    }
}
