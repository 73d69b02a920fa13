//! Tests of the `topology.conf` reader ([`super::read_slurm_topology`]): realistic files and
//! Slurm's own examples read into the expected descriptions, and every refusal with its
//! line, key and words.

use super::*;
use crate::error::InputError;
use crate::topology::*;

fn options(gpus: u32, nic_gbps: f64) -> SlurmOptions {
    SlurmOptions { gpus, links: LinkOptions { nic_gbps, ..LinkOptions::default() }, ..SlurmOptions::default() }
}

fn read(text: &str) -> TopologySpec {
    read_slurm_topology(text, &options(4, 100.0)).unwrap_or_else(|e| panic!("{e}\n{text}")).spec
}

fn refused(text: &str) -> (Option<u32>, String, String) {
    let e: InputError = read_slurm_topology(text, &options(4, 100.0)).unwrap_err();
    (e.line, e.field, e.message)
}

/// The bandwidth of the link between `a` and `b`.
fn bandwidth(spec: &TopologySpec, a: &str, b: &str) -> f64 {
    let link = spec.links.iter().find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a));
    link.unwrap_or_else(|| panic!("no link {a} - {b}")).bandwidth_gbps
}

/// A 64-node cluster as a site would write it: one core switch over four leaf switches of
/// sixteen nodes, comments, keys in other cases, a continued line.
const SITE: &str = "\
# Slurm topology for the GPU partition
SwitchName=leaf1 Nodes=gpu[001-016]
SwitchName=leaf2 Nodes=gpu[017-032]   # second rack
switchname=leaf3 NODES=gpu[033-048]
SwitchName=leaf4 \\
    Nodes=gpu[049-064]

SwitchName=core Switches=leaf[1-4]
";

#[test]
fn a_site_file_becomes_a_two_level_tree() {
    let spec = read(SITE);
    let ids = |v: Vec<&String>| v.into_iter().cloned().collect::<Vec<_>>();
    assert_eq!(ids(spec.switches.iter().map(|s| &s.id).collect()), ["core", "leaf1", "leaf2", "leaf3", "leaf4"]);
    assert_eq!(spec.switches[0].role, None);
    assert!(spec.switches[1..].iter().all(|s| s.role.as_deref() == Some("leaf")));
    assert_eq!(spec.servers.len(), 64);
    assert_eq!((spec.servers[0].id.as_str(), spec.servers[63].id.as_str()), ("gpu001", "gpu064"));
    assert!(spec.servers.iter().all(|s| s.gpus == 4 && s.nvlink_gbps == 2400.0 && s.nvlink_latency_us == 1.0));
    // Each node at the NIC's 100 Gbit/s; each leaf's uplink at full bisection, 16 × 100.
    assert_eq!(spec.links.len(), 64 + 4);
    assert_eq!(bandwidth(&spec, "gpu017", "leaf2"), 100.0);
    assert_eq!(bandwidth(&spec, "gpu064", "leaf4"), 100.0);
    for leaf in ["leaf1", "leaf2", "leaf3", "leaf4"] {
        assert_eq!(bandwidth(&spec, leaf, "core"), 1600.0);
    }
    assert!(spec.links.iter().all(|l| l.latency_us == 2.0));
    assert!(spec.servers.iter().all(|s| s.nics == 1));
    // The fabric's collective block and GPU, as a parametric cluster of that fabric has.
    let parametric = ParametricSpec::parse("racks=1,servers=1,gpus=1").unwrap().to_spec();
    assert_eq!((&spec.collective, &spec.gpu), (&parametric.collective, &parametric.gpu));
    assert_eq!((spec.version, spec.name.as_str(), spec.gpu.as_deref()), (Some(1), "", Some("A100")));
}

#[test]
fn the_description_is_a_valid_cluster_and_exports_back_to_itself() {
    let spec = read(SITE);
    let topo = Topology::from_spec(&spec).unwrap();
    assert_eq!(topo.gpu_count(), 256);
    assert_eq!(topo.tier_names(), ["server", "rack", "cluster"]);
    // Servers (and so GPUs) are numbered in the file's node order.
    let servers: Vec<&str> =
        topo.nodes().iter().filter(|n| n.kind == NodeKind::Server).map(|n| n.name.as_str()).collect();
    assert_eq!((servers[0], servers[16], servers[63]), ("gpu001", "gpu017", "gpu064"));
    let again = TopologySpec::from_json(&topo.spec().to_json()).unwrap();
    assert_eq!(again, spec);
    assert_eq!(Topology::from_spec(&again).unwrap(), topo);
}

#[test]
fn slurms_examples_read() {
    // topology.conf(5): three leaves under one switch.
    let man = read("SwitchName=s0 Nodes=dev[0-5]\nSwitchName=s1 Nodes=dev[6-11]\nSwitchName=s2 Nodes=dev[12-17]\nSwitchName=s3 Switches=s[0-2]\n");
    assert_eq!((man.switches[0].id.as_str(), man.servers.len()), ("s3", 18));
    assert_eq!(bandwidth(&man, "s2", "s3"), 600.0);
    // The topology guide's first example: a binary tree of three levels.
    let binary = read(
        "SwitchName=s0 Nodes=tux[0-1]\nSwitchName=s1 Nodes=tux[2-3]\nSwitchName=s2 Nodes=tux[4-5]\nSwitchName=s3 Nodes=tux[6-7]\n\
         SwitchName=s4 Switches=s[0-1]\nSwitchName=s5 Switches=s[2-3]\nSwitchName=s6 Switches=s[4-5]\n",
    );
    assert_eq!(
        binary.switches.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["s6", "s4", "s0", "s1", "s5", "s2", "s3"]
    );
    assert_eq!((bandwidth(&binary, "s0", "s4"), bandwidth(&binary, "s4", "s6")), (200.0, 400.0));
    let topo = Topology::from_spec(&binary).unwrap();
    assert_eq!(
        (topo.gpu_count(), topo.tier_names()),
        (32, &["server", "rack", "pod", "cluster"].map(String::from)[..])
    );
}

#[test]
fn parallel_spines_are_one_switch_with_their_links_summed() {
    // The topology guide's second example: four spines over the same four leaves, with
    // LinkSpeed. The fastest leaf (1800) is the NIC's 100 Gbit/s, so 900 is 50 Gbit/s, and
    // each leaf reaches the spines over four links of 1800, 400 Gbit/s in all.
    let spec = read(
        "SwitchName=s0 Nodes=tux[0-3]   LinkSpeed=900\nSwitchName=s1 Nodes=tux[4-7]   LinkSpeed=900\n\
         SwitchName=s2 Nodes=tux[8-11]  LinkSpeed=900\nSwitchName=s3 Nodes=tux[12-15] LinkSpeed=1800\n\
         SwitchName=s4 Switches=s[0-3]  LinkSpeed=1800\nSwitchName=s5 Switches=s[0-3]  LinkSpeed=1800\n\
         SwitchName=s6 Switches=s[0-3]  LinkSpeed=1800\nSwitchName=s7 Switches=s[0-3]  LinkSpeed=1800\n",
    );
    assert_eq!(spec.switches.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["s[4-7]", "s0", "s1", "s2", "s3"]);
    assert_eq!((bandwidth(&spec, "tux0", "s0"), bandwidth(&spec, "tux15", "s3")), (50.0, 100.0));
    assert_eq!(bandwidth(&spec, "s1", "s[4-7]"), 400.0);
    assert_eq!(Topology::from_spec(&spec).unwrap().gpu_count(), 64);
    // Without LinkSpeed, the same spines give full bisection: four nodes' NICs per leaf.
    let plain = read(
        "SwitchName=s0 Nodes=tux[0-3]\nSwitchName=s1 Nodes=tux[4-7]\nSwitchName=sp1 Switches=s[0-1]\nSwitchName=sp2 Switches=s[0-1]\n",
    );
    assert_eq!(plain.switches[0].id, "sp[1-2]");
    assert_eq!(bandwidth(&plain, "s0", "sp[1-2]"), 400.0);
}

#[test]
fn a_three_level_fat_tree_merges_level_by_level() {
    // Two pods of two leaves under two aggregation switches each; two cores over all four
    // aggregation switches, each core reaching one of each pod's pair.
    let text = "\
SwitchName=l1 Nodes=a[1-2]\nSwitchName=l2 Nodes=a[3-4]\nSwitchName=l3 Nodes=b[1-2]\nSwitchName=l4 Nodes=b[3-4]
SwitchName=agg1 Switches=l[1-2]\nSwitchName=agg2 Switches=l[1-2]\nSwitchName=agg3 Switches=l[3-4]\nSwitchName=agg4 Switches=l[3-4]
SwitchName=core1 Switches=agg1,agg3\nSwitchName=core2 Switches=agg2,agg4
";
    let spec = read(text);
    let ids: Vec<&str> = spec.switches.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["core[1-2]", "agg[1-2]", "l1", "l2", "agg[3-4]", "l3", "l4"]);
    assert_eq!(bandwidth(&spec, "l1", "agg[1-2]"), 200.0);
    assert_eq!(bandwidth(&spec, "agg[3-4]", "core[1-2]"), 400.0);
    assert_eq!(Topology::from_spec(&spec).unwrap().gpu_count(), 32);
}

#[test]
fn nics_and_the_fabric_come_from_the_options() {
    let text = "SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-4]\nSwitchName=t Switches=a,b\n";
    let spec = read_slurm_topology(text, &SlurmOptions::parse("nics=8,nic_gbps=400").unwrap()).unwrap().spec;
    assert_eq!((bandwidth(&spec, "n1", "a"), bandwidth(&spec, "a", "t")), (3200.0, 6400.0));
    assert!(spec.servers.iter().all(|s| s.nics == 8));
    let tcp = read_slurm_topology(text, &SlurmOptions::parse("fabric=tcp,gpus=4").unwrap()).unwrap().spec;
    let parametric = ParametricSpec::parse("racks=1,servers=1,gpus=4,fabric=tcp").unwrap().to_spec();
    assert_eq!((&tcp.collective, &tcp.gpu), (&parametric.collective, &parametric.gpu));
    assert_eq!(bandwidth(&tcp, "n1", "a"), bandwidth(&parametric, "r0s0", "tor0"));
    assert_eq!(tcp.servers[0].nvlink_gbps, parametric.servers[0].nvlink_gbps);
}

#[test]
fn link_speeds_scale_to_the_nic() {
    // Leaves at 100 and 50 units, the top switch's links at 200: with a 400 Gbit/s NIC the
    // units are 4 Gbit/s.
    let text = "SwitchName=a Nodes=n[1-2] LinkSpeed=100\nSwitchName=b Nodes=n[3-4] LinkSpeed=50\nSwitchName=t Switches=a,b LinkSpeed=200\n";
    let spec = read_slurm_topology(text, &options(8, 400.0)).unwrap().spec;
    assert_eq!(
        [
            bandwidth(&spec, "n1", "a"),
            bandwidth(&spec, "n4", "b"),
            bandwidth(&spec, "a", "t"),
            bandwidth(&spec, "b", "t")
        ],
        [400.0, 200.0, 800.0, 800.0]
    );
    // The same value everywhere says nothing relative (Slurm's default is 1): full bisection.
    let same = read("SwitchName=a Nodes=n[1-2] LinkSpeed=1\nSwitchName=b Nodes=n[3-4] LinkSpeed=1\nSwitchName=t Switches=a,b LinkSpeed=1\n");
    assert_eq!((bandwidth(&same, "n1", "a"), bandwidth(&same, "a", "t")), (100.0, 200.0));
}

#[test]
fn link_speeds_on_some_lines_only_are_ignored_everywhere_with_a_warning() {
    // Slurm accepts LinkSpeed on any line (topology.conf(5): "an optional value") and does
    // not use it; a line without one has no speed relative to the others, so none is used.
    let partial =
        "SwitchName=a Nodes=n[1-2] LinkSpeed=100\nSwitchName=b Nodes=n[3-4]\nSwitchName=t Switches=a,b LinkSpeed=200\n";
    let read = read_slurm_topology(partial, &options(8, 400.0)).unwrap();
    assert_eq!(
        [bandwidth(&read.spec, "n1", "a"), bandwidth(&read.spec, "n4", "b"), bandwidth(&read.spec, "a", "t")],
        [400.0, 400.0, 800.0]
    );
    let [warning] = &read.warnings[..] else { panic!("{:?}", read.warnings) };
    assert_eq!((warning.line, warning.field.as_str()), (Some(2), "LinkSpeed"));
    assert!(warning.message.starts_with("missing here but given on line 1: LinkSpeed is relative"), "{warning}");
    // The same file with LinkSpeed on every line uses it, and warns of nothing.
    let full = partial.replace("n[3-4]", "n[3-4] LinkSpeed=50");
    let read = read_slurm_topology(&full, &options(8, 400.0)).unwrap();
    assert_eq!((bandwidth(&read.spec, "n4", "b"), read.warnings.len()), (200.0, 0));
    // A file without LinkSpeed warns of nothing either.
    assert!(read_slurm_topology(SITE, &options(4, 100.0)).unwrap().warnings.is_empty());
}

#[test]
fn one_switch_and_quoted_values_are_fine() {
    let spec = read("SwitchName = only  Nodes = \"n1, n2 n3\"\n");
    assert_eq!((spec.switches.len(), spec.servers.len(), spec.links.len()), (1, 3, 3));
    assert_eq!(Topology::from_spec(&spec).unwrap().gpu_count(), 12);
    // A byte-order mark, CRLF line ends and a comment-only file around one line.
    let spec = read("\u{feff}# generated\r\nSwitchName=s Nodes=x[1-2]\r\n#\r\n");
    assert_eq!(spec.servers.len(), 2);
}

#[test]
fn every_refusal_names_the_line_and_the_key() {
    let leaf = "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\n";
    let cases: Vec<(String, u32, &str, &str)> = vec![
        (leaf.to_string(), 2, "SwitchName", "2 switches have no parent switch (s0, s1): Slurm lets separate trees stand side by side but never runs a job across them, and Proxima simulates one connected cluster; add a line above them such as SwitchName=top Switches=s0,s1"),
        ("SwitchName=s0 Nodes=n1 Switches=s1\n".into(), 1, "Switches", "switch 's0' has both Nodes= and Switches=; a switch has either nodes (a leaf switch) or switches below it, as in Slurm"),
        ("SwitchName=s0\n".into(), 1, "SwitchName", "switch 's0' has neither Nodes= nor Switches=; Proxima needs every switch to lead to nodes"),
        ("SwitchName=s0 Nodes=n[1-3]\nSwitchName=s1 Nodes=n[3-4]\nSwitchName=t Switches=s[0-1]\n".into(), 2, "Nodes", "node 'n3' is also under switch 's0' (line 1); Proxima models trees, so a node hangs from one switch (for several network rails, list each node under one switch and give nics the number of rails)"),
        ("SwitchName=s0 Nodes=n1,n1\n".into(), 1, "Nodes", "node 'n1' is listed twice"),
        (format!("{leaf}SwitchName=t Switches=s[0-2]\n"), 3, "Switches", "unknown switch 's2' (no line SwitchName=s2)"),
        (format!("{leaf}SwitchName=t Switches=s0,t\n"), 3, "Switches", "switch 't' lists itself"),
        (format!("{leaf}SwitchName=t Switches=s0,s1,s0\n"), 3, "Switches", "switch 's0' is listed twice"),
        ("SwitchName=s0 Nodes=node[]\n".into(), 1, "Nodes", "empty range in 'node[]'"),
        ("SwitchName=s0 Nodes=node[16-1]\n".into(), 1, "Nodes", "reversed range '16-1' in 'node[16-1]': the first number must not be larger than the last"),
        ("SwitchName=s0 Nodes=node[1-4\n".into(), 1, "Nodes", "'[' is not closed in 'node[1-4'"),
        (format!("{leaf}SwitchName=t Switches=s[1-0]\n"), 3, "Switches", "reversed range '1-0' in 's[1-0]': the first number must not be larger than the last"),
        (format!("{leaf}SwitchName=s1 Switches=s0\n"), 3, "SwitchName", "switch 's1' is already defined on line 2"),
        ("SwitchName=s[0-1] Nodes=n1\n".into(), 1, "SwitchName", "'s[0-1]' is not one name: a line names one switch (ranges belong in Switches= and Nodes=)"),
        (format!("SwitchName={} Nodes=n1\n", "x".repeat(65)), 1, "SwitchName", "is longer than the 64 characters Slurm allows"),
        ("Nodes=n[1-2]\n".into(), 1, "SwitchName", "missing: each line names a switch, as in SwitchName=s0 Nodes=node[01-16]"),
        ("SwitchName=s0 SwitchName=s1 Nodes=n1\n".into(), 1, "SwitchName", "given twice on this line"),
        ("SwitchName=s0 Nodes=n1 Colour=red\n".into(), 1, "Colour", "unknown key (a topology/tree line has SwitchName, Switches, Nodes and LinkSpeed)"),
        (format!("{leaf}BlockName=b1 Nodes=m[01-04]\n"), 3, "BlockName", "a topology/block key in a topology/tree file (line 1 sets the form): slurmctld reads topology.conf with one plugin's keys and refuses the others'"),
        ("SwitchName=s0 Nodes=n1 BlockName=b1\n".into(), 1, "BlockName", "a topology/block key on a topology/tree line: a file is of one form"),
        ("SwitchName=s0 Nodes=n1 RingName=r0\n".into(), 1, "RingName", "this is a topology/ring line; Proxima reads the topology/tree and topology/block forms"),
        ("SwitchName=s0 Nodes=\n".into(), 1, "Nodes", "the value is empty"),
        ("SwitchName=s0 Nodes= LinkSpeed=3\n".into(), 1, "Nodes", "'LinkSpeed=3' is not a value (values hold no '='): is the value before it missing?"),
        ("SwitchName=s0 Nodes=\"n1\n".into(), 1, "Nodes", "the quote is not closed on this line"),
        ("SwitchName=s0 n1\n".into(), 1, "n1", "expected Key=Value"),
        ("SwitchName=s0 Nodes=n1 LinkSpeed=fast\n".into(), 1, "LinkSpeed", "expected a positive whole number, got 'fast'"),
        ("SwitchName=s0 Nodes=n1 LinkSpeed=0\n".into(), 1, "LinkSpeed", "expected a positive whole number, got '0'"),
        (format!("{leaf}SwitchName=t Switches=s[0-1]\nSwitchName=u Switches=s[0-1],t\n"), 4, "Switches", "switch 's0' is under both 't' (line 3) and 'u', which do not list the same switches"),
        ("SwitchName=a Switches=b\nSwitchName=b Switches=a\n".into(), 2, "Switches", "switch 'b' lists 'a', which leads back to 'b': the switches must form a tree"),
        ("SwitchName=s0 Nodes=s0\n".into(), 1, "Nodes", "node 's0' has the name of switch 's0' (line 1)"),
        ("SwitchName=s0 Nodes=n1\nSwitchName=s1 Nodes=s0\nSwitchName=t Switches=s0,s1\n".into(), 2, "Nodes", "node 's0' has the name of switch 's0' (line 1)"),
    ];
    for (text, line, field, message) in cases {
        let (got_line, got_field, got_message) = refused(&text);
        assert_eq!((got_line, got_field.as_str()), (Some(line), field), "{text}: {got_message}");
        assert!(got_message.contains(message), "{text}:\n  got  {got_message}\n  want {message}");
    }
}

#[test]
fn a_file_without_switches_is_refused_without_a_line() {
    for text in ["", "# only a comment\n\n", "   \n"] {
        let e = read_slurm_topology(text, &SlurmOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "SwitchName: no switches: a topology/tree file has lines such as SwitchName=s0 Nodes=node[01-16]"
        );
    }
}

#[test]
fn too_many_nodes_are_refused_at_the_line_that_crosses_the_limit_before_expanding() {
    let text = "SwitchName=a Nodes=n[1-100000]\nSwitchName=b Nodes=m[1-100000]\nSwitchName=t Switches=a,b\n";
    let e = read_slurm_topology(text, &options(8, 100.0)).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(2), "Nodes"));
    assert_eq!(
        e.message,
        "'m[1-100000]' names too many hosts: at 8 GPUs per node a cluster has at most 131072 nodes (Proxima supports 1048576 GPUs)"
    );
    // With one GPU per node the same file is fine.
    assert_eq!(read_slurm_topology(text, &options(1, 100.0)).unwrap().spec.servers.len(), 200_000);
    let e = read_slurm_topology("SwitchName=a Nodes=n[1-99999999999]\n", &options(1, 100.0)).unwrap_err();
    assert!(e.message.starts_with("'n[1-99999999999]' names too many hosts"), "{e}");
}

#[test]
fn many_separate_trees_are_listed_briefly() {
    let text: String = (0..6).map(|i| format!("SwitchName=s{i} Nodes=n{i}\n")).collect();
    let (_, _, message) = refused(&text);
    assert!(message.starts_with("6 switches have no parent switch (s0, s1, s2, s3 and 2 more)"), "{message}");
    assert!(message.ends_with("SwitchName=top Switches=s0,s1,s2,s3,..."), "{message}");
}
