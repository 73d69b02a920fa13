//! Files of Kubernetes nodes alone (`kubectl get nodes -o json` or `-o yaml`), their
//! NVLink cliques and their GPU product, read by [`read_kueue_topology`].

use super::kube_nodes::gpu_of_product;
use super::kueue::read_kueue_topology;
use super::KueueOptions;
use crate::comm::shape_of;
use crate::topology::{GpuId, GpuKind, Tier, Topology, CLIQUE_LABEL};

/// Eight GB200 trays in two cliques, as `kubectl get nodes -o json` prints them.
const GB200_JSON: &str = include_str!("../../../../../examples/your-cluster/gb200-nodes.json");

/// A node's labels besides its hostname.
type Labels<'a> = &'a [(&'a str, &'a str)];

/// `kind: Node` documents of `(name, labels, gpus under status.capacity)`.
fn nodes_yaml(nodes: &[(&str, Labels, u32)]) -> String {
    let mut text = String::new();
    for (name, labels, gpus) in nodes {
        text.push_str(&format!("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n"));
        text.push_str(&format!("    kubernetes.io/hostname: {name}\n"));
        for (k, v) in *labels {
            text.push_str(&format!("    {k}: \"{v}\"\n"));
        }
        text.push_str(&format!("status:\n  capacity:\n    cpu: \"64\"\n    nvidia.com/gpu: \"{gpus}\"\n"));
    }
    text
}

#[test]
fn kubectl_json_of_gb200_trays_reads_as_two_nvlink_domains() {
    let read = read_kueue_topology(GB200_JSON, &KueueOptions::default()).unwrap();
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    assert_eq!(read.levels, [CLIQUE_LABEL, "kubernetes.io/hostname"]);
    let t = Topology::from_spec(&read.spec).unwrap();
    assert_eq!((t.gpu_count(), t.server_count(), t.gpu()), (32, 8, Some("GB200")));
    assert_eq!(t.tier_names(), &["server", CLIQUE_LABEL, "cluster"]);
    let domains = t.tier_nodes(Tier(1));
    assert!(domains.iter().all(|&d| t.node(d).is_nvlink_switch()));
    let tray = t.node(t.servers()[0]);
    assert_eq!(t.link(tray.uplink.unwrap()).bandwidth_gbps, 4.0 * GpuKind::GB200.default_link_gbps());
    // Eight GPUs on two trays of a clique: a ring with no NIC in it.
    let gpus: Vec<GpuId> = (0..8).map(GpuId).collect();
    let mut links = Vec::new();
    t.inter_server_links(&[t.server_of(GpuId(0)), t.server_of(GpuId(4))], &mut links);
    assert_eq!(shape_of(&t, &gpus, &links).nic_bytes_per_s, f64::INFINITY);
}

#[test]
fn a_node_list_reads_capacity_and_hangs_servers_without_a_clique_beside_the_domains() {
    let clique: &[(&str, &str)] = &[(CLIQUE_LABEL, "u.1"), ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")];
    let plain: &[(&str, &str)] = &[("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")];
    let text = nodes_yaml(&[("a", clique, 8), ("b", clique, 8), ("c", plain, 8), ("cpu", &[], 0)]);
    let read = read_kueue_topology(&text, &KueueOptions::default()).unwrap();
    assert_eq!(read.warnings.len(), 1, "the CPU node is left out: {:?}", read.warnings);
    let t = Topology::from_spec(&read.spec).unwrap();
    assert_eq!((t.gpu_count(), t.gpu()), (24, Some("H100")), "capacity counts without allocatable");
    let c = t.servers().iter().map(|&s| t.node(s)).find(|n| n.name == "c").unwrap();
    assert_eq!(t.node(c.parent.unwrap()).name, "cluster", "a server without a clique hangs under the cluster");
    assert_eq!(t.link(c.uplink.unwrap()).bandwidth_gbps, 200.0, "its link is its NIC");
}

#[test]
fn several_or_unknown_gpu_products_keep_the_default_gpu_with_a_warning() {
    let h100: &[(&str, &str)] = &[("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")];
    let a100: &[(&str, &str)] = &[("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB")];
    let read = read_kueue_topology(&nodes_yaml(&[("a", h100, 8), ("b", a100, 8)]), &KueueOptions::default()).unwrap();
    assert_eq!(read.spec.gpu.as_deref(), Some("A100"));
    let w = &read.warnings[0];
    assert_eq!((w.line, w.field.as_str()), (Some(20), "metadata.labels.nvidia.com/gpu.product"));
    assert!(w.message.contains("several GPUs"), "{}", w.message);
    let v100: &[(&str, &str)] = &[("nvidia.com/gpu.product", "Tesla-V100-SXM2-32GB")];
    let read = read_kueue_topology(&nodes_yaml(&[("a", v100, 8)]), &KueueOptions::default()).unwrap();
    assert!(read.warnings[0].message.contains("'Tesla-V100-SXM2-32GB' is not a GPU"), "{:?}", read.warnings);
    assert_eq!(gpu_of_product("NVIDIA-GB200"), Some(GpuKind::GB200));
    assert_eq!(gpu_of_product("NVIDIA-B200"), Some(GpuKind::B200));
    assert_eq!(gpu_of_product("Tesla-T4"), Some(GpuKind::T4));
}

#[test]
fn a_file_with_neither_nodes_nor_a_topology_is_refused() {
    let e = read_kueue_topology("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", &KueueOptions::default())
        .unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(1), "kind"));
    assert!(e.message.starts_with("no Topology and no Node"), "{}", e.message);
}
