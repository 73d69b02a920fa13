//! What the rest of the core asks a topology: its nodes and links, the tiers, the lowest
//! common ancestor of GPUs, the links between two GPUs or under a ring of servers, and
//! latencies up the tree.

use super::build::Topology;
use super::nodes::{GpuId, Link, LinkId, Node, NodeId, Tier};
use super::spec::TopologySpec;
use crate::comm_params::CommParams;

impl Topology {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How collectives perform here: the `collective` block of the description, or the
    /// calibrated defaults.
    pub fn comm_params(&self) -> &CommParams {
        &self.comm
    }

    /// The description this topology was built from (what export writes).
    pub fn spec(&self) -> &TopologySpec {
        &self.spec
    }

    /// The GPU model the description names, if any.
    pub fn gpu(&self) -> Option<&str> {
        self.spec.gpu.as_deref()
    }

    pub fn gpu_count(&self) -> u32 {
        self.gpu_nodes.len() as u32
    }

    pub fn server_count(&self) -> u32 {
        self.servers.len() as u32
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    pub fn links(&self) -> &[Link] {
        &self.links
    }

    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    pub fn root(&self) -> NodeId {
        self.root
    }

    pub fn servers(&self) -> &[NodeId] {
        &self.servers
    }

    pub fn gpu_node(&self, gpu: GpuId) -> NodeId {
        self.gpu_nodes[gpu.0 as usize]
    }

    pub fn server_of(&self, gpu: GpuId) -> NodeId {
        self.gpu_servers[gpu.0 as usize]
    }

    /// Number of tiers: 1 for a single server, 3 for server / rack / cluster.
    pub fn tier_count(&self) -> u8 {
        self.tier_names.len() as u8
    }

    pub fn tier_name(&self, tier: Tier) -> &str {
        &self.tier_names[tier.0 as usize]
    }

    pub fn tier_names(&self) -> &[String] {
        &self.tier_names
    }

    /// The tier whose name is `label` (the lowest, if two share it): `server`, `rack`, or a
    /// level a cluster file named (a Slurm switch level, a Kueue level's node label, a
    /// Volcano `tierName`). The policies that let a user name a tier look it up here.
    pub fn tier_labelled(&self, label: &str) -> Option<Tier> {
        self.tier_names.iter().position(|n| n == label).map(|i| Tier(i as u8))
    }

    /// The widest tier: the whole cluster.
    pub fn top_tier(&self) -> Tier {
        Tier(self.tier_count() - 1)
    }

    /// The nodes that bound a tier (servers for `Tier(0)`, racks for `Tier(1)` ...).
    pub fn tier_nodes(&self, tier: Tier) -> &[NodeId] {
        &self.nodes_by_height[tier.0 as usize + 1]
    }

    /// The lowest node containing both nodes.
    pub fn common_ancestor(&self, a: NodeId, b: NodeId) -> NodeId {
        let (mut a, mut b) = (a, b);
        while a != b {
            let (ha, hb) = (self.node(a).height, self.node(b).height);
            // Climb the lower one; on equal heights climb both.
            if ha <= hb {
                a = self.node(a).parent.expect("two nodes of one tree meet at the root");
            }
            if hb <= ha {
                b = self.node(b).parent.expect("two nodes of one tree meet at the root");
            }
        }
        a
    }

    /// The tier of a set of GPUs: the height of their lowest common ancestor, less one. A
    /// single GPU (or none) is server-local.
    pub fn tier_of(&self, gpus: &[GpuId]) -> Tier {
        let mut servers = gpus.iter().map(|&g| self.server_of(g));
        let Some(first) = servers.next() else { return Tier::SERVER };
        let lca = servers.fold(first, |acc, s| self.common_ancestor(acc, s));
        Tier(self.node(lca).height - 1)
    }

    /// The links on the path between two GPUs, from `a` up to their common ancestor and
    /// down to `b`.
    pub fn path(&self, a: GpuId, b: GpuId) -> Vec<LinkId> {
        let (na, nb) = (self.gpu_node(a), self.gpu_node(b));
        if na == nb {
            return Vec::new();
        }
        let top = self.common_ancestor(na, nb);
        let mut up = Vec::new();
        let mut n = na;
        while n != top {
            let node = self.node(n);
            up.push(node.uplink.expect("below the common ancestor"));
            n = node.parent.expect("below the common ancestor");
        }
        let mut down = Vec::new();
        let mut n = nb;
        while n != top {
            let node = self.node(n);
            down.push(node.uplink.expect("below the common ancestor"));
            n = node.parent.expect("below the common ancestor");
        }
        down.reverse();
        up.extend(down);
        up
    }

    /// The links between servers that a ring over these servers crosses: the uplinks of the
    /// smallest subtree connecting them, excluding the servers' GPU links. Each of these links
    /// carries exactly one ring flow in each direction when the ring visits servers in GPU
    /// order. `servers` must be sorted and free of duplicates. Appends to `out`.
    pub fn inter_server_links(&self, servers: &[NodeId], out: &mut Vec<LinkId>) {
        if servers.len() < 2 {
            return;
        }
        let top = servers[1..].iter().fold(servers[0], |acc, &s| self.common_ancestor(acc, s));
        let start = out.len();
        for &s in servers {
            let mut n = s;
            while n != top {
                let node = self.node(n);
                let link = node.uplink.expect("below the common ancestor");
                // Several servers share the upper links; the sort below removes repeats.
                out.push(link);
                n = node.parent.expect("below the common ancestor");
            }
        }
        out[start..].sort_unstable();
        let mut w = start;
        for r in start..out.len() {
            if w == start || out[w - 1] != out[r] {
                out[w] = out[r];
                w += 1;
            }
        }
        out.truncate(w);
    }

    /// The sum of link latencies from a server up to the node of height `height` above it.
    pub fn latency_up(&self, server: NodeId, height: u8) -> f64 {
        let mut total = 0.0;
        let mut n = server;
        while self.node(n).height < height {
            let node = self.node(n);
            match (node.uplink, node.parent) {
                (Some(l), Some(p)) => {
                    total += self.link(l).latency_us;
                    n = p;
                }
                _ => break,
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{resolve_topology_arg, DEFAULT_NIC_GBPS};

    fn topo(spec: &str) -> Topology {
        resolve_topology_arg(spec).unwrap()
    }

    #[test]
    fn parametric_three_level_cluster() {
        let t = topo("racks=2,servers=2,gpus=4,oversub=2");
        assert_eq!(t.gpu_count(), 16);
        assert_eq!(t.server_count(), 4);
        assert_eq!(t.tier_names(), &["server", "rack", "cluster"]);
        assert_eq!(t.node(t.root()).name, "spine");
        // GPUs 0-3 on server 0, 4-7 on server 1 (rack 0), 8-15 in rack 1.
        assert_eq!(t.tier_of(&[GpuId(0), GpuId(3)]), Tier(0));
        assert_eq!(t.tier_of(&[GpuId(0), GpuId(4)]), Tier(1));
        assert_eq!(t.tier_of(&[GpuId(0), GpuId(8)]), Tier(2));
        // The uplink of a rack carries servers x NIC / oversubscription.
        let uplink = t.links().iter().find(|l| t.node(l.child).name == "tor0").unwrap();
        assert_eq!(uplink.bandwidth_gbps, 2.0 * DEFAULT_NIC_GBPS / 2.0);
        assert_eq!(t.tier_nodes(Tier(1)).len(), 2);
        assert_eq!(t.top_tier(), Tier(2));
        assert_eq!(t.tier_labelled("rack"), Some(Tier(1)));
        assert_eq!(t.tier_labelled("cluster"), Some(Tier(2)));
        assert_eq!(t.tier_labelled("pod"), None, "a tier this cluster does not have");
    }

    #[test]
    fn paths_and_ring_links() {
        let t = topo("teaching");
        // GPU -> server -> tor0 -> spine -> tor1 -> server -> GPU: six links.
        assert_eq!(t.path(GpuId(0), GpuId(8)).len(), 6);
        assert_eq!(t.path(GpuId(0), GpuId(1)).len(), 2);
        assert!(t.path(GpuId(2), GpuId(2)).is_empty());
        let s: Vec<NodeId> = vec![t.server_of(GpuId(0)), t.server_of(GpuId(4)), t.server_of(GpuId(8))];
        let mut links = Vec::new();
        t.inter_server_links(&s, &mut links);
        // Three server NICs plus both rack uplinks.
        assert_eq!(links.len(), 5);
        let mut two = Vec::new();
        t.inter_server_links(&s[..2], &mut two);
        assert_eq!(two.len(), 2, "two servers of one rack use only their NICs");
    }

    #[test]
    fn single_switch_cluster_has_two_tiers() {
        let t = topo("n32g4");
        assert_eq!(t.gpu_count(), 128);
        assert_eq!(t.tier_names(), &["server", "rack"]);
        let single = topo("racks=1,servers=1,gpus=8");
        assert_eq!(single.tier_names(), &["server", "rack"]);
    }
}
