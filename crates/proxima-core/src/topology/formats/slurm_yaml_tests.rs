//! Tests of `topology.yaml` read through [`super::read_slurm_topology`]: the man page's
//! example read into the clusters it describes, a YAML file and the `topology.conf` that says
//! the same read into the same description, which entry is simulated, and every refusal
//! with its line and key.

use super::*;
use crate::topology::*;

fn options() -> SlurmOptions {
    SlurmOptions::parse("gpus=4,nic_gbps=100").unwrap()
}

fn read(text: &str) -> SlurmTopology {
    read_slurm_topology(text, &options()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn ids(spec: &TopologySpec) -> Vec<&str> {
    spec.switches.iter().map(|s| s.id.as_str()).collect()
}

fn bandwidth(spec: &TopologySpec, a: &str, b: &str) -> f64 {
    let link = spec.links.iter().find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a));
    link.unwrap_or_else(|| panic!("no link {a} - {b}")).bandwidth_gbps
}

fn warnings(read: &SlurmTopology) -> Vec<(Option<u32>, &str, &str)> {
    read.warnings.iter().map(|w| (w.line, w.field.as_str(), w.message.as_str())).collect()
}

/// topology.yaml(5)'s example, SchedMD/slurm `doc/man/man5/topology.yaml.5` lines 271-334:
/// a tree (the cluster default), a block topology, two flat ones, a ring and a 3D torus.
const MAN_PAGE: &str = "\
---
- topology: topo1
  cluster_default: true
  tree:
    switches:
      - switch: sw_root
        children: s[1-2]
      - switch: s1
        nodes: node[01-02]
      - switch: s2
        nodes: node[03-04]
- topology: topo2
  cluster_default: false
  block:
    block_sizes:
      - 4
      - 16
    blocks:
      - block: b1
        nodes: node[01-04]
      - block: b2
        nodes: node[05-08]
      - block: b3
        nodes: node[09-12]
      - block: b4
        nodes: node[13-16]
- topology: topo3
  cluster_default: false
  flat: true
- topology: topo3a
  cluster_default: false
  flat:
    alpha_step_rank: true
- topology: topo4
  cluster_default: false
  ring:
    rings:
      - ring: ring0
        nodes: node[01-08]
      - ring: ring1
        nodes: node[09-16]
- topology: topo5
  cluster_default: false
  torus3d:
    toruses:
      - name: pod1
        dims:
          x: 4
          y: 4
          z: 2
        nodes: node[01-32]
        placements:
          - dims:
              x: 2
              y: 2
              z: 1
";

#[test]
fn the_man_pages_example_reads_as_its_default_tree() {
    let read = read(MAN_PAGE);
    assert_eq!(
        warnings(&read),
        [(
            Some(2),
            "topology",
            "simulating topology 'topo1' (the cluster default); the file's other topologies (topo2, topo3, topo3a, topo4, topo5) are not read further"
        )]
    );
    let spec = &read.spec;
    assert_eq!(ids(spec), ["sw_root", "s1", "s2"]);
    assert_eq!(
        spec.servers.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["node01", "node02", "node03", "node04"]
    );
    // Two racks of two nodes at the NIC's 100 Gbit/s, each rack's uplink at 2 × 100.
    assert_eq!((bandwidth(spec, "node03", "s2"), bandwidth(spec, "s1", "sw_root")), (100.0, 200.0));
    let topo = Topology::from_spec(spec).unwrap();
    assert_eq!((topo.gpu_count(), topo.tier_names()), (16, &["server", "rack", "cluster"].map(String::from)[..]));
}

#[test]
fn the_man_pages_block_topology_reads_as_blocks_under_one_switch() {
    let text = MAN_PAGE.replacen("cluster_default: true", "cluster_default: false", 1).replacen(
        "topology: topo2\n  cluster_default: false",
        "topology: topo2\n  cluster_default: true",
        1,
    );
    let read = read(&text);
    assert_eq!(read.warnings.len(), 1);
    assert!(read.warnings[0]
        .message
        .starts_with("simulating topology 'topo2' (the cluster default); the file's other topologies (topo1, topo3,"));
    assert_eq!(read.warnings[0].line, Some(12));
    assert_eq!(ids(&read.spec), ["b[1-4]", "b1", "b2", "b3", "b4"]);
    assert_eq!((read.spec.servers.len(), bandwidth(&read.spec, "b4", "b[1-4]")), (16, 400.0));
    assert_eq!(Topology::from_spec(&read.spec).unwrap().gpu_count(), 64);
}

#[test]
fn a_yaml_file_and_its_topology_conf_give_the_same_cluster() {
    let tree_yaml = "\
# two racks under a spine
- topology: fabric
  tree:
    switches:
      - {switch: spine, children: 'leaf[1-2]'}
      - switch: leaf1
        nodes: gpu[01-16]
      - switch: leaf2
        nodes: gpu[17-32]
";
    let tree_conf =
        "SwitchName=spine Switches=leaf[1-2]\nSwitchName=leaf1 Nodes=gpu[01-16]\nSwitchName=leaf2 Nodes=gpu[17-32]\n";
    let block_yaml = "\
topology: nvl
cluster_default: yes
block:
  block_sizes: 16
  blocks:
    - block: nvl1
      nodes: gpu[001-016]
    - block: nvl2
      nodes: gpu[017-032]
";
    let block_conf = "BlockName=nvl1 Nodes=gpu[001-016]\nBlockName=nvl2 Nodes=gpu[017-032]\nBlockSizes=16\n";
    for (yaml, conf) in [(tree_yaml, tree_conf), (block_yaml, block_conf)] {
        let (from_yaml, from_conf) = (read(yaml), read(conf));
        assert_eq!(from_yaml.spec, from_conf.spec, "{yaml}");
        assert!(from_yaml.warnings.is_empty() && from_conf.warnings.is_empty(), "{:?}", from_yaml.warnings);
    }
}

#[test]
fn the_first_cluster_default_is_simulated_else_the_first_entry() {
    let entry = |name: &str, default: &str, leaf: &str| {
        format!(
            "- topology: {name}\n{default}  tree:\n    switches:\n      switch: {leaf}\n      nodes: {leaf}n[1-2]\n"
        )
    };
    let chosen = |text: String| {
        let read = read(&text);
        (ids(&read.spec)[0].to_string(), read.warnings[0].line, read.warnings[0].message.clone())
    };
    let no_default = entry("a", "", "x") + &entry("b", "  cluster_default: false\n", "y");
    assert_eq!(
        chosen(no_default),
        (
            "x".into(),
            Some(1),
            "simulating topology 'a' (the first, as no entry is cluster_default: true); the file's other topologies (b) are not read further".into()
        )
    );
    let two_defaults = entry("a", "", "x")
        + &entry("b", "  cluster_default: True\n", "y")
        + &entry("c", "  cluster_default: on\n", "z");
    let (leaf, line, message) = chosen(two_defaults);
    assert_eq!((leaf.as_str(), line), ("y", Some(6)));
    assert!(message.contains("(a, c)"), "{message}");
    // A topology named twice is accepted, as Slurm accepts it, with a warning.
    let twice = read(&(entry("a", "", "x") + &entry("a", "", "y")));
    assert_eq!(
        warnings(&twice)[0],
        (Some(6), "topology", "topology 'a' is already named on line 1: partitions would use the first")
    );
}

#[test]
fn unknown_keys_are_ignored_with_a_warning_as_slurm_ignores_them() {
    let read = read("- topology: t\n  colour: red\n  tree:\n    switches:\n      - switch: s\n        nodes: n[1-2]\n        link_speed: 10\n");
    assert_eq!(
        warnings(&read),
        [
            (Some(2), "colour", "unknown key, ignored as Slurm ignores it (an entry has topology, cluster_default and one of tree, block, flat, ring and torus3d)"),
            (Some(7), "link_speed", "unknown key, ignored as Slurm ignores it (a switch has switch, and children or nodes)"),
        ]
    );
    assert_eq!(read.spec.servers.len(), 2);
}

#[test]
fn every_yaml_refusal_names_the_line_and_the_key() {
    let tree = |switches: &str| format!("- topology: t\n  tree:\n    switches:\n{switches}");
    let cases: Vec<(String, Option<u32>, &str, &str)> = vec![
        ("- topology: t\n  flat: true\n".into(), Some(2), "flat", "topology 't' is of type flat: a flat topology (every node on one switch, as Slurm schedules without a topology) has no switches to simulate"),
        ("- topology: r\n  ring:\n    rings: []\n".into(), Some(2), "ring", "topology 'r' is of type ring: Proxima simulates tree and block topologies"),
        ("- topology: t\n  tree:\n    switches: {switch: s, nodes: n1}\n  block:\n    blocks: {block: b}\n".into(), Some(4), "block", "a second type in one entry (the first on line 2): an entry is of exactly one type, as Slurm requires"),
        ("- topology: t\n  flat: false\n".into(), Some(1), "topology", "topology 't' has no type"),
        ("- cluster_default: true\n  tree:\n    switches: {switch: s, nodes: n1}\n".into(), Some(1), "topology", "missing: each entry starts with topology: NAME"),
        ("- topology: t\n  cluster_default: maybe\n  flat: true\n".into(), Some(2), "cluster_default", "expected true or false, got text"),
        ("- topology: t\n  tree:\n    fabric: ib\n".into(), Some(2), "switches", "missing: a tree topology lists its switches"),
        (tree("      - switch: s\n        nodes: n[1-2]\n        children: x\n"), Some(6), "children", "switch 's' has both nodes and children"),
        (tree("      - switch: s\n"), Some(4), "switch", "switch 's' has neither nodes nor children"),
        (tree("      - nodes: n1\n"), Some(4), "switch", "missing: each switch is named"),
        (tree("      - switch: s\n        nodes: n1\n      - switch: s\n        nodes: n2\n"), Some(6), "switch", "switch 's' is already defined on line 4"),
        (tree("      - switch: a\n        nodes: n[1-2]\n      - switch: b\n        nodes: n[2-3]\n"), Some(7), "nodes", "node 'n2' is also under switch 'a' (line 4)"),
        (tree("      - switch: top\n        children: leaf[1-2]\n      - switch: leaf1\n        nodes: n1\n"), Some(5), "children", "unknown switch 'leaf2' (no - switch: leaf2)"),
        (tree("      - switch: a\n        nodes: n1\n      - switch: b\n        nodes: n2\n"), Some(6), "switch", "2 switches have no parent switch (a, b): Slurm lets separate trees stand side by side but never runs a job across them, and Proxima simulates one connected cluster; add a switch above them such as - switch: top with children: a,b"),
        (tree("      - switch: s\n        nodes: [n1, n2]\n"), Some(5), "nodes", "expected text (a name, or a host list such as node[01-16]), got a list"),
        (tree("      - switch: s\n        nodes: n[3-1]\n"), Some(5), "nodes", "reversed range '3-1' in 'n[3-1]'"),
        ("- topology: b\n  block:\n    block_sizes: [4, 6]\n    blocks: {block: b1, nodes: 'n[1-4]'}\n".into(), Some(3), "block_sizes", "6 is not the base size 4 times a power of two (up to 2^15), as slurmctld requires: BlockSizes lists the base block size in nodes, then larger ones, as in block_sizes: [16, 32, 64]"),
        ("- topology: b\n  block:\n    block_sizes: 4\n".into(), Some(2), "blocks", "missing: a block topology lists its blocks"),
        ("- topology: b\n  block:\n    blocks:\n      - block: b1\n".into(), None, "block", "no blocks with nodes: a block topology lists blocks such as - block: b1 with nodes: node[01-16]"),
        ("- topology: a\n  flat: true\n---\n- topology: b\n  flat: true\n".into(), Some(4), "topology", "a topology.yaml is one YAML document"),
        ("- topology: a\n  topology: b\n".into(), Some(2), "yaml", "not valid YAML"),
        ("---\n[]\n".into(), Some(2), "topology", "no topologies"),
    ];
    for (text, line, field, message) in cases {
        let e = read_slurm_topology(&text, &options()).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (line, field), "{text}: {}", e.message);
        assert!(e.message.contains(message), "{text}:\n  got  {}\n  want {message}", e.message);
    }
}

#[test]
fn a_file_is_yaml_by_its_first_line_and_a_conf_file_never_is() {
    for first in [
        "---",
        "--- # topologies",
        "%YAML 1.2",
        "- topology: t",
        "-   topology: t",
        "topology: t",
        "- cluster_default: true",
    ] {
        assert!(slurm_form::is_yaml(first), "{first}");
    }
    for first in ["SwitchName=s0 Nodes=n1", "BlockSizes=4", "- SwitchName=s0", "topology=t", "Nodes=a:b"] {
        assert!(!slurm_form::is_yaml(first), "{first}");
    }
}
