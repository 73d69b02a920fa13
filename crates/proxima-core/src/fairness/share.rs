//! A tenant's share of the cluster, as a cluster of its own: the first whole servers in GPU
//! order (so whole racks, then part of the next), with the switches and links above them up
//! to the lowest switch they all hang under, every bandwidth and latency as in the cluster.
//!
//! A partial rack keeps its whole uplink: alone in the share, the tenant has nobody to share
//! it with, as it would have nobody in a cluster of its own.

use crate::error::InputError;
use crate::topology::{NodeId, Topology, TopologySpec};
use std::collections::BTreeSet;

/// How many servers, taken in GPU order, make a tenant's share: the prefix whose GPUs are
/// closest to `target` (ties to the larger), grown if needed to hold `at_least` GPUs, and at
/// least one server.
pub fn share_servers(topo: &Topology, target: u32, at_least: u32) -> usize {
    let servers = topo.servers();
    let mut best = (u64::MAX, 1usize);
    let mut gpus: u64 = 0;
    for (i, &s) in servers.iter().enumerate() {
        gpus += topo.node(s).gpu_count as u64;
        let distance = gpus.abs_diff(target as u64);
        if distance <= best.0 {
            best = (distance, i + 1);
        }
        if gpus > target as u64 {
            break;
        }
    }
    let mut count = best.1;
    let mut held: u64 = servers[..count].iter().map(|&s| topo.node(s).gpu_count as u64).sum();
    while held < at_least as u64 && count < servers.len() {
        held += topo.node(servers[count]).gpu_count as u64;
        count += 1;
    }
    count
}

/// The GPUs of the first `count` servers.
pub fn share_gpus(topo: &Topology, count: usize) -> u32 {
    topo.servers()[..count.min(topo.servers().len())].iter().map(|&s| topo.node(s).gpu_count).sum()
}

/// The cluster made of the first `count` servers of `topo` (all of them if `count` is
/// larger).
pub fn share_topology(topo: &Topology, count: usize) -> Result<Topology, InputError> {
    let servers = topo.servers();
    let count = count.clamp(1, servers.len());
    if count == servers.len() {
        return Ok(topo.clone());
    }
    let kept_servers = &servers[..count];
    let top = topo.common_ancestor(kept_servers[0], kept_servers[count - 1]);
    let mut kept: BTreeSet<&str> = BTreeSet::new();
    for &s in kept_servers {
        let mut node: NodeId = s;
        loop {
            kept.insert(topo.node(node).name.as_str());
            if node == top {
                break;
            }
            match topo.node(node).parent {
                Some(p) => node = p,
                None => break,
            }
        }
    }
    let spec = topo.spec();
    let gpus = share_gpus(topo, count);
    // Everything else (version, collective parameters, GPU model) is the cluster's.
    let sub = TopologySpec {
        name: format!("{} (share of {gpus} GPUs)", topo.name()),
        switches: spec.switches.iter().filter(|s| kept.contains(s.id.as_str())).cloned().collect(),
        servers: spec.servers.iter().filter(|s| kept.contains(s.id.as_str())).cloned().collect(),
        links: spec
            .links
            .iter()
            .filter(|l| kept.contains(l.a.as_str()) && kept.contains(l.b.as_str()))
            .cloned()
            .collect(),
        ..spec.clone()
    };
    Topology::from_spec(&sub)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::resolve_topology_arg;

    #[test]
    fn shares_are_whole_servers_closest_to_the_target() {
        let t = resolve_topology_arg("oversub-2048").unwrap(); // 16 racks x 16 servers x 8 GPUs
                                                               // 2,048 / 15 = 136.5: seventeen servers (136 GPUs) for 136 or 137.
        assert_eq!(share_servers(&t, 137, 8), 17);
        assert_eq!(share_servers(&t, 136, 8), 17);
        // 140 is as far from 136 as from 144: the larger.
        assert_eq!(share_servers(&t, 140, 8), 18);
        // A quota of nothing still runs the tenant's largest job.
        assert_eq!(share_servers(&t, 0, 20), 3);
        assert_eq!(share_servers(&t, 0, 1), 1);
        assert_eq!(share_servers(&t, 5000, 1), 256);
    }

    #[test]
    fn a_share_keeps_its_racks_links_and_bandwidths() {
        let t = resolve_topology_arg("oversub-2048").unwrap();
        let share = share_topology(&t, 17).unwrap();
        assert_eq!((share.gpu_count(), share.server_count()), (136, 17));
        assert_eq!(share.tier_names(), t.tier_names());
        // The rack uplinks keep their bandwidth (4:1 oversubscribed: 16 x 200 / 4 Gbit/s).
        let uplink = |topo: &Topology| topo.links().iter().map(|l| l.bandwidth_gbps).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(uplink(&share), uplink(&t));
        // Inside one rack the share is that rack: its switch is the root.
        let rack = share_topology(&t, 4).unwrap();
        assert_eq!((rack.gpu_count(), rack.tier_count()), (32, 2));
        assert_eq!(share_topology(&t, 256).unwrap(), t);
    }
}
