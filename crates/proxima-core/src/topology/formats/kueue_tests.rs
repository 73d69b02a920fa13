use super::kueue::{read_kueue_topology, KueueTopology};
use super::KueueOptions;
use crate::error::InputError;
use crate::topology::{Fabric, Topology};

/// The cluster of Kueue's TAS guide (2 blocks, 4 racks, 8 workers, a control plane),
/// with 8 GPUs per worker, as `kubectl get nodes -o yaml` prints it after the Topology.
const DOCUMENTED: &str = include_str!("../../../../../tests/fixtures/kueue/cluster.yaml");

const BLOCK: &str = "cloud.provider.com/topology-block";
const RACK: &str = "cloud.provider.com/topology-rack";

fn read(text: &str) -> Result<KueueTopology, InputError> {
    read_kueue_topology(text, &KueueOptions::default())
}

fn error(text: &str) -> (Option<u32>, String, String) {
    let e = read(text).unwrap_err();
    (e.line, e.field, e.message)
}

/// A Topology of `levels` (node labels, widest first), as its documentation writes one.
fn topology(levels: &[&str]) -> String {
    let mut text = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: default\nspec:\n  levels:\n"
        .to_string();
    for level in levels {
        text.push_str(&format!("  - nodeLabel: \"{level}\"\n"));
    }
    text
}

/// A node's mapping (without `kind`), indented by `indent`: its labels, and its GPUs
/// under `status.allocatable` unless `gpus` is empty.
fn node_body(name: &str, labels: &[(&str, &str)], gpus: &str, indent: &str) -> String {
    let mut text = format!("{indent}metadata:\n{indent}  name: {name}\n{indent}  labels:\n");
    text.push_str(&format!("{indent}    kubernetes.io/hostname: {name}\n"));
    for (key, value) in labels {
        text.push_str(&format!("{indent}    {key}: {value}\n"));
    }
    if !gpus.is_empty() {
        text.push_str(&format!("{indent}status:\n{indent}  allocatable:\n{indent}    nvidia.com/gpu: {gpus}\n"));
    }
    text
}

/// `nodes` (name, block, rack) as `kind: Node` documents after the Topology.
fn as_documents(nodes: &[(&str, &str, &str)], gpus: &str) -> String {
    let mut text = topology(&[BLOCK, RACK, "kubernetes.io/hostname"]);
    for (name, block, rack) in nodes {
        text.push_str("---\napiVersion: v1\nkind: Node\n");
        text.push_str(&node_body(name, &[(BLOCK, block), (RACK, rack)], gpus, ""));
    }
    text
}

/// The same nodes as one `kind: List`.
fn as_list(nodes: &[(&str, &str, &str)], gpus: &str) -> String {
    let mut text = topology(&[BLOCK, RACK, "kubernetes.io/hostname"]);
    text.push_str("---\napiVersion: v1\nkind: List\nitems:\n");
    for (name, block, rack) in nodes {
        text.push_str("- apiVersion: v1\n  kind: Node\n");
        text.push_str(&node_body(name, &[(BLOCK, block), (RACK, rack)], gpus, "  "));
    }
    text
}

const FOUR: [(&str, &str, &str); 4] = [("n1", "b1", "r1"), ("n2", "b1", "r1"), ("n3", "b1", "r2"), ("n4", "b2", "r1")];

#[test]
fn the_documented_cluster_reads_as_two_blocks_of_two_racks() {
    let read = read(DOCUMENTED).unwrap();
    assert_eq!(read.levels, [BLOCK, RACK, "kubernetes.io/hostname"]);
    let spec = &read.spec;
    assert_eq!(spec.servers.len(), 8);
    assert_eq!(spec.servers.iter().map(|s| s.gpus).sum::<u32>(), 64);
    let switches: Vec<(&str, &str)> =
        spec.switches.iter().map(|s| (s.id.as_str(), s.role.as_deref().unwrap())).collect();
    assert_eq!(
        switches,
        [
            ("cluster", "cluster"),
            ("b1", BLOCK),
            ("b1/r1", RACK),
            ("b1/r2", RACK),
            ("b2", BLOCK),
            ("b2/r1", RACK),
            ("b2/r2", RACK)
        ]
    );
    // Full bisection: a rack's uplink carries its two nodes' links, a block's its four.
    let bandwidth = |a: &str, b: &str| spec.links.iter().find(|l| l.a == a && l.b == b).unwrap().bandwidth_gbps;
    assert_eq!(bandwidth("kind-worker", "b1/r1"), 200.0);
    assert_eq!(bandwidth("b2/r2", "b2"), 400.0);
    assert_eq!(bandwidth("b1", "cluster"), 800.0);
    // The tiers take the file's level names; the hostname level is the server.
    let topo = Topology::from_spec(spec).unwrap();
    assert_eq!(topo.gpu_count(), 64);
    assert_eq!(topo.tier_names(), ["server", RACK, BLOCK, "cluster"]);
    assert!(
        topo.describe_network().contains(&format!("{RACK} domains non-blocking (1:1), {BLOCK} domains non-blocking")),
        "{}",
        topo.describe_network()
    );
    // The control plane has no GPU: it is the one node left out (the workers all carry the
    // ResourceFlavor's node-group label).
    let warnings: Vec<String> = read.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("line 29: status.allocatable: 1 node left out (kind-control-plane): no nvidia.com/gpu")
    );
}

#[test]
fn a_list_reads_as_the_same_nodes_written_as_documents() {
    let documents = read(&as_documents(&FOUR, "8")).unwrap();
    let list = read(&as_list(&FOUR, "\"8\"")).unwrap();
    assert_eq!(documents, list);
    assert!(documents.warnings.is_empty());
    assert_eq!(documents.spec.servers.len(), 4);
    // One widest domain would be the root: two blocks are joined by a switch `cluster`.
    assert_eq!(documents.spec.switches[0].id, "cluster");
}

#[test]
fn a_rack_name_is_a_domain_only_within_its_block() {
    let nodes = [("n1", "b1", "r1"), ("n2", "b2", "r1")];
    let read = read(&as_documents(&nodes, "4")).unwrap();
    let racks: Vec<&str> =
        read.spec.switches.iter().filter(|s| s.role.as_deref() == Some(RACK)).map(|s| s.id.as_str()).collect();
    assert_eq!(racks, ["b1/r1", "b2/r1"]);
}

#[test]
fn one_widest_domain_is_the_root_and_a_last_level_other_than_hostname_holds_the_nodes() {
    let mut text = topology(&["rack"]);
    for (name, rack) in [("a", "r1"), ("b", "r1"), ("c", "r2")] {
        text.push_str("---\nkind: Node\n");
        text.push_str(&node_body(name, &[("rack", rack)], "2", ""));
    }
    let read = read(&text).unwrap();
    let topo = Topology::from_spec(&read.spec).unwrap();
    assert_eq!(
        (topo.gpu_count(), topo.tier_names()),
        (6, &["server".to_string(), "rack".into(), "cluster".into()][..])
    );
    // A single block is the root itself.
    let one_block = read_kueue_topology(&as_documents(&FOUR[..3], "8"), &KueueOptions::default()).unwrap();
    assert_eq!(one_block.spec.switches[0].id, "b1");
    // Only the hostname level: every node under one switch.
    let mut flat = topology(&["kubernetes.io/hostname"]);
    flat.push_str("---\nkind: Node\n");
    flat.push_str(&node_body("solo", &[], "8", ""));
    let flat = read_kueue_topology(&flat, &KueueOptions::default()).unwrap();
    assert_eq!((flat.spec.switches.len(), flat.spec.servers.len()), (1, 1));
}

#[test]
fn link_options_set_the_links_and_the_fabric() {
    let options = KueueOptions::parse("nic_gbps=400,nics=8,fabric=roce").unwrap();
    let read = read_kueue_topology(&as_documents(&FOUR, "8"), &options).unwrap();
    let link = |a: &str| read.spec.links.iter().find(|l| l.a == a).unwrap().bandwidth_gbps;
    assert_eq!((link("n1"), link("b1/r1")), (3200.0, 6400.0));
    assert_eq!(read.spec.servers[0].nics, 8);
    assert_eq!(read.spec.collective, Some(Fabric::Roce.collective()));
}

#[test]
fn gpus_come_from_allocatable_else_capacity_as_a_number_or_a_string() {
    let text = format!(
        "{}---\nkind: Node\nmetadata:\n  name: n1\n  labels: {{kubernetes.io/hostname: n1}}\nstatus:\n  capacity:\n    nvidia.com/gpu: 4\n---\nkind: Node\nmetadata:\n  name: n2\n  labels: {{kubernetes.io/hostname: n2}}\nstatus:\n  capacity: {{nvidia.com/gpu: '8'}}\n  allocatable: {{nvidia.com/gpu: '7'}}\n",
        topology(&["kubernetes.io/hostname"])
    );
    let gpus: Vec<u32> = read(&text).unwrap().spec.servers.iter().map(|s| s.gpus).collect();
    assert_eq!(gpus, [4, 7]);
    let (line, field, message) = error(&text.replace("'7'", "500m"));
    assert_eq!(
        (line, field.as_str(), message.as_str()),
        (Some(23), "status.allocatable.nvidia.com/gpu", "expected a whole number of GPUs, got '500m'")
    );
}

#[test]
fn nodes_tas_would_not_use_are_left_out_and_counted() {
    let mut text = as_documents(&FOUR, "8");
    text.push_str("---\nkind: Node\n");
    text.push_str(&node_body("cpu1", &[(BLOCK, "b1"), (RACK, "r1")], "", ""));
    text.push_str("---\nkind: Node\n");
    text.push_str(&node_body("zero", &[(BLOCK, "b1"), (RACK, "r1")], "0", ""));
    text.push_str("---\nkind: Node\nspec:\n  unschedulable: true\n");
    text.push_str(&node_body("cordoned", &[(BLOCK, "b1"), (RACK, "r1")], "8", ""));
    text.push_str("---\nkind: Node\n");
    text.push_str(&node_body("sick", &[(BLOCK, "b1"), (RACK, "r1")], "8", ""));
    text.push_str("  conditions:\n  - type: Ready\n    status: \"False\"\n");
    text.push_str("---\nkind: Node\n");
    text.push_str(&node_body("stray", &[(BLOCK, "b1")], "8", ""));
    let read = read(&text).unwrap();
    assert_eq!(read.spec.servers.len(), 4);
    let warnings: Vec<(&str, &str)> = read.warnings.iter().map(|w| (w.field.as_str(), w.message.as_str())).collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert_eq!(warnings[0].0, "status.allocatable");
    assert!(warnings[0].1.starts_with("2 nodes left out (cpu1, zero): no nvidia.com/gpu"), "{}", warnings[0].1);
    assert!(warnings[1].1.starts_with("2 nodes left out (cordoned, sick): not Ready or unschedulable"));
    assert_eq!(warnings[2].0, "metadata.labels");
    assert!(warnings[2].1.contains("missing: cloud.provider.com/topology-rack (first: stray)"), "{}", warnings[2].1);
    // With no node left, the file describes no cluster, and the error says why.
    let none = as_documents(&FOUR, "0");
    let (line, field, message) = error(&none);
    assert_eq!((line, field.as_str()), (Some(11), "kind"));
    assert!(message.contains("4 nodes left out (n1, n2, n3, n4): no nvidia.com/gpu"), "{message}");
}

#[test]
fn errors_name_the_line_and_the_field() {
    let good = as_documents(&FOUR, "8");
    let cases: Vec<(String, u32, &str, &str)> = vec![
        // Without a Topology the nodes are read alone (`kube_nodes.rs`), and this one has no GPU.
        ("kind: Node\nmetadata: {name: n1}\n".to_string(), 1, "kind", "1 node left out (n1): no nvidia.com/gpu"),
        (good.replace("kueue.x-k8s.io/v1beta2", "topology.volcano.sh/v1alpha1"), 1, "apiVersion", "is not Kueue's"),
        (
            good.replace(
                "  - nodeLabel: \"cloud.provider.com/topology-rack\"",
                "  - nodeLabel: \"cloud.provider.com/topology-block\"",
            ),
            8,
            "spec.levels[1].nodeLabel",
            "is already level 0",
        ),
        (
            topology(&["kubernetes.io/hostname", RACK]),
            8,
            "spec.levels[1].nodeLabel",
            "a level below kubernetes.io/hostname",
        ),
        (
            good.replace("  - nodeLabel: \"cloud.provider.com/topology-rack\"", "  - label: rack"),
            8,
            "spec.levels[1].nodeLabel",
            "missing",
        ),
        (
            good.replace("  levels:\n", "  levels: []\n").replace("  - nodeLabel", "  # nodeLabel"),
            6,
            "spec.levels",
            "from 1 to 16 levels, this one 0",
        ),
        (good.replace("name: n2", "name: n1"), 23, "metadata.name", "node 'n1' is already on line 11"),
        (format!("{good}---\nkind: Node\nmetadata:\n  labels: {{}}\n"), 61, "metadata.name", "missing"),
        (format!("{good}---\n{}", topology(&[RACK])), 59, "kind", "a second Topology (the first is on line 1)"),
        (format!("{good}---\nkind: List\n"), 59, "items", "missing"),
        (format!("{good}---\napiVersion: v1\nmetadata: {{}}\n"), 59, "kind", "missing: every object names its kind"),
        (format!("{good}---\nkind: Node\nmetadata: [a, b\n"), 61, "yaml", "not valid YAML"),
    ];
    for (text, line, field, start) in cases {
        let (got_line, got_field, message) = error(&text);
        assert_eq!((got_line, got_field.as_str()), (Some(line), field), "{message}\n{text}");
        assert!(message.contains(start), "{message}");
    }
}

#[test]
fn the_flavor_of_the_topology_narrows_the_nodes_to_its_node_labels() {
    let flavor = |topology: &str| {
        format!("---\nkind: ResourceFlavor\napiVersion: kueue.x-k8s.io/v1beta2\nmetadata: {{name: f}}\nspec:\n  nodeLabels: {{{RACK}: r1}}\n  topologyName: {topology}\n")
    };
    let text = format!("{}{}", as_documents(&FOUR, "8"), flavor("default"));
    let got = read(&text).unwrap();
    let servers: Vec<&str> = got.spec.servers.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(servers, ["n1", "n2", "n4"]);
    assert_eq!(got.warnings.len(), 1);
    assert!(
        got.warnings[0].message.starts_with("1 node left out (n3): the nodeLabels of no ResourceFlavor"),
        "{:?}",
        got.warnings
    );
    // A flavor of another topology narrows nothing, and a queue is skipped with a warning.
    let text =
        format!("{}{}---\nkind: ClusterQueue\nmetadata: {{name: q}}\n", as_documents(&FOUR, "8"), flavor("other"));
    let got = read(&text).unwrap();
    assert_eq!(got.spec.servers.len(), 4);
    assert_eq!(
        got.warnings[0].message,
        "skipped 1 ClusterQueue: Proxima reads the Topology, its ResourceFlavors and the Nodes"
    );
}
