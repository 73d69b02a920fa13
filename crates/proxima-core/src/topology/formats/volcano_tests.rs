use super::volcano::{read_volcano_topology, VolcanoTopology};
use super::VolcanoOptions;
use crate::error::InputError;
use crate::topology::Topology;

fn read(text: &str) -> Result<VolcanoTopology, InputError> {
    read_volcano_topology(text, &VolcanoOptions::default())
}

/// A HyperNode document: its members as (type, selector in flow style).
fn hypernode(name: &str, tier: u32, tier_name: Option<&str>, members: &[(&str, String)]) -> String {
    let mut text = format!("---\napiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: {name}\nspec:\n  tier: {tier}\n");
    if let Some(t) = tier_name {
        text.push_str(&format!("  tierName: {t}\n"));
    }
    text.push_str("  members:\n");
    for (kind, selector) in members {
        text.push_str(&format!("  - type: {kind}\n    selector: {selector}\n"));
    }
    text
}

fn exact(name: &str) -> String {
    format!("{{exactMatch: {{name: {name}}}}}")
}

/// The tree of Volcano's user guide (how_to_use_network_topology_aware_scheduling.md):
/// s0..s3 over node0..node7 two by two, s4 over s0 and s1, s5 over s2 and s3, s6 over s4
/// and s5.
fn documented() -> String {
    let mut text = String::new();
    for s in 0..4 {
        let members = [("Node", exact(&format!("node{}", 2 * s))), ("Node", exact(&format!("node{}", 2 * s + 1)))];
        text.push_str(&hypernode(&format!("s{s}"), 1, Some("switch"), &members));
    }
    text.push_str(&hypernode("s4", 2, Some("zone"), &[("HyperNode", exact("s0")), ("HyperNode", exact("s1"))]));
    text.push_str(&hypernode("s5", 2, Some("zone"), &[("HyperNode", exact("s2")), ("HyperNode", exact("s3"))]));
    text.push_str(&hypernode("s6", 3, None, &[("HyperNode", exact("s4")), ("HyperNode", exact("s5"))]));
    text
}

fn nodes(names: &[(&str, &str)]) -> String {
    let mut text = "---\napiVersion: v1\nkind: List\nitems:\n".to_string();
    for (name, rack) in names {
        text.push_str(&format!("- kind: Node\n  metadata:\n    name: {name}\n    labels: {{rack: {rack}}}\n"));
    }
    text
}

#[test]
fn the_documented_tree_reads_as_its_hypernodes() {
    let got = read(&documented()).unwrap();
    assert!(got.warnings.is_empty(), "{:?}", got.warnings);
    let topo = Topology::from_spec(&got.spec).unwrap();
    assert_eq!(topo.gpu_count(), 64);
    assert_eq!(got.spec.servers.len(), 8);
    let ids: Vec<&str> = got.spec.switches.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["s6", "s4", "s0", "s1", "s5", "s2", "s3"]);
    // The file's tier names name the tiers; without one, the tier's number.
    assert_eq!(topo.tier_names(), ["server", "switch", "zone", "tier-3"]);
    let bandwidth = |a: &str| got.spec.links.iter().find(|l| l.a == a).unwrap().bandwidth_gbps;
    assert_eq!((bandwidth("node0"), bandwidth("s0"), bandwidth("s4")), (200.0, 400.0, 800.0));
    // GPUs per node come from the options.
    let four = read_volcano_topology(&documented(), &VolcanoOptions { gpus: 4, ..VolcanoOptions::default() }).unwrap();
    assert_eq!(Topology::from_spec(&four.spec).unwrap().gpu_count(), 32);
}

#[test]
fn patterns_and_labels_select_the_files_nodes() {
    let mut text = hypernode("r1", 1, None, &[("Node", "{regexMatch: {pattern: '^gpu-[0-1]$'}}".into())]);
    text.push_str(&hypernode("r2", 1, None, &[("Node", "{labelMatch: {matchLabels: {rack: b}}}".into())]));
    text.push_str(&nodes(&[("gpu-0", "a"), ("gpu-1", "a"), ("gpu-2", "b"), ("gpu-3", "b"), ("gpu-10", "c")]));
    let got = read(&text).unwrap();
    let servers: Vec<&str> = got.spec.servers.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(servers, ["gpu-0", "gpu-1", "gpu-2", "gpu-3"]);
    // Two HyperNodes with no parent are joined by a switch `cluster`.
    assert_eq!(got.spec.switches[0].id, "cluster");
    assert!(Topology::from_spec(&got.spec).is_ok());
    // A pattern needs the nodes to match against.
    let alone = hypernode("r1", 1, None, &[("Node", "{regexMatch: {pattern: 'gpu'}}".into())]);
    let e = read(&alone).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(10), "spec.members[0].selector.regexMatch"));
    assert!(e.message.starts_with("selects Nodes, and the file has none"), "{e}");
}

#[test]
fn hypernodes_that_do_not_form_a_tree_are_refused_on_their_line() {
    let two_parents = format!(
        "{}{}{}",
        hypernode("a", 1, None, &[("Node", exact("n1"))]),
        hypernode("p", 2, None, &[("HyperNode", exact("a"))]),
        hypernode("q", 2, None, &[("HyperNode", exact("a"))])
    );
    let cases = [
        (two_parents, 29, "spec.members", "HyperNode 'a' is already a member of 'p' (line 12)"),
        (hypernode("p", 2, None, &[("HyperNode", exact("gone"))]), 9, "spec.members", "no HyperNode named 'gone'"),
        (
            format!(
                "{}{}",
                hypernode("a", 1, None, &[("Node", exact("n1"))]),
                hypernode("b", 1, None, &[("Node", exact("n1"))])
            ),
            12,
            "spec.members",
            "node 'n1' is also a member of HyperNode 'a' (line 2)",
        ),
        (
            format!(
                "{}{}",
                hypernode("a", 1, None, &[("HyperNode", exact("b"))]),
                hypernode("b", 2, None, &[("HyperNode", exact("a"))])
            ),
            2,
            "spec.members",
            "HyperNode 'a' is its own ancestor",
        ),
        (hypernode("a", 1, None, &[("Rack", exact("n1"))]), 9, "spec.members[0].type", "'Rack' is not a member type"),
        (hypernode("a", 1, None, &[("Node", "{}".into())]), 10, "spec.members[0].selector", "holds exactly one of"),
        (documented().replace("tier: 3", "tier: top"), 85, "spec.tier", "expected a whole number"),
        (
            documented().replace("topology.volcano.sh/v1alpha1", "kueue.x-k8s.io/v1beta2"),
            2,
            "apiVersion",
            "'kueue.x-k8s.io/v1beta2' is not Volcano's",
        ),
        ("kind: Node\nmetadata: {name: n1}\n".to_string(), 1, "kind", "no HyperNode in the file"),
    ];
    for (text, line, field, start) in cases {
        let e = read(&text).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(line), field), "{e}\n{text}");
        assert!(e.message.starts_with(start), "{e}");
    }
}

#[test]
fn what_volcano_does_not_use_is_a_warning() {
    let mut text = documented();
    text.push_str(&hypernode("empty", 1, None, &[("Node", "{labelMatch: {matchLabels: {rack: z}}}".into())]));
    text.push_str(&hypernode("x", 2, None, &[("HyperNode", "{regexMatch: {pattern: 's.*'}}".into())]));
    text.push_str(&nodes(&[("other", "a")]));
    let got = read(&text).unwrap();
    let warnings: Vec<String> = got.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 4, "{warnings:?}");
    assert!(warnings[0].ends_with("spec.members[0].selector: selects no Node of the file"), "{warnings:?}");
    assert!(warnings[1].ends_with("not read: Volcano takes a HyperNode member by exactMatch only, and so does Proxima"));
    assert!(warnings[2].ends_with("HyperNode 'empty' has no node below it and is left out"));
    assert!(warnings[3].ends_with("HyperNode 'x' has no node below it and is left out"));
    assert_eq!(got.spec.servers.len(), 8);
}
