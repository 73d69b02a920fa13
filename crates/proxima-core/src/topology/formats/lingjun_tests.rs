//! The Lingjun `topo.csv` reader on small hand-made files whose trees are known.

use super::lingjun::read_lingjun_topology;
use super::options::LingjunOptions;
use crate::topology::Topology;

/// Two aggregation switches under one core; the ToR name S1 appears under both, as names
/// repeat across pods in the real file.
const SMALL: &str = "ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,P1,S1\nh3,G1,P1,S2\nh4,G1,P2,S1\nh5,G1,P2,S1\nh6,G1,P2,S3\n";

fn options() -> LingjunOptions {
    LingjunOptions::parse("gpus=2,nic_gbps=100").unwrap()
}

#[test]
fn a_small_file_makes_the_tree_with_switches_named_by_their_path() {
    let spec = read_lingjun_topology(SMALL, &options()).unwrap();
    let switches: Vec<(&str, &str)> =
        spec.switches.iter().map(|s| (s.id.as_str(), s.role.as_deref().unwrap())).collect();
    assert_eq!(
        switches,
        [
            ("G1", "core"),
            ("G1/P1", "agg"),
            ("G1/P1/S1", "tor"),
            ("G1/P1/S2", "tor"),
            ("G1/P2", "agg"),
            ("G1/P2/S1", "tor"),
            ("G1/P2/S3", "tor"),
        ]
    );
    // Full bisection: every uplink carries the 100 Gbit/s link of each host below it.
    let links: Vec<(&str, &str, f64)> =
        spec.links.iter().map(|l| (l.a.as_str(), l.b.as_str(), l.bandwidth_gbps)).collect();
    assert_eq!(
        links,
        [
            ("G1/P1", "G1", 300.0),
            ("G1/P2", "G1", 300.0),
            ("G1/P1/S1", "G1/P1", 200.0),
            ("G1/P1/S2", "G1/P1", 100.0),
            ("h1", "G1/P1/S1", 100.0),
            ("h2", "G1/P1/S1", 100.0),
            ("h3", "G1/P1/S2", 100.0),
            ("G1/P2/S1", "G1/P2", 200.0),
            ("G1/P2/S3", "G1/P2", 100.0),
            ("h4", "G1/P2/S1", 100.0),
            ("h5", "G1/P2/S1", 100.0),
            ("h6", "G1/P2/S3", 100.0),
        ]
    );
    assert!(spec.servers.iter().all(|s| s.gpus == 2));
    let topo = Topology::from_spec(&spec).unwrap();
    assert_eq!(topo.gpu_count(), 12);
    assert_eq!(topo.tier_names(), ["server", "rack", "pod", "cluster"]);
}

#[test]
fn a_core_over_one_aggregation_switch_is_left_out() {
    let text = "ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,P1,S2\n";
    let spec = read_lingjun_topology(text, &options()).unwrap();
    let ids: Vec<&str> = spec.switches.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["G1/P1", "G1/P1/S1", "G1/P1/S2"]);
    assert_eq!(Topology::from_spec(&spec).unwrap().gpu_count(), 4);
}

#[test]
fn columns_may_come_in_any_order_with_extra_ones_and_crlf() {
    let text = "\u{feff}ASW,rack,ip,PSW,DSW\r\nS1,x,h1,P1,G1\r\n\r\nS2,y,h2,P2,G1\r\n";
    let spec = read_lingjun_topology(text, &options()).unwrap();
    assert_eq!(spec.servers.len(), 2);
    assert_eq!(spec.switches[0].id, "G1");
}

#[test]
fn bad_files_name_the_line_and_the_column() {
    let o = options();
    for (text, line, field, start) in [
        ("ip,DSW,PSW\nh1,G1,P1\n", 1, "ASW", "missing column; the header must be ip,DSW,PSW,ASW"),
        ("ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,,S1\n", 3, "PSW", "empty"),
        ("ip,DSW,PSW,ASW\nh1,G1,P1,S1\n h1 ,G1,P2,S1\n", 3, "ip", "host 'h1' is already on line 2"),
        ("ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G2,P1,S1\n", 3, "DSW", "a second core switch 'G2' (line 2 has 'G1')"),
        ("ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,P1,S1/2\n", 3, "ASW", "'S1/2' holds a '/'"),
        ("ip,DSW,PSW,ASW\nh1,G1,P1\n", 2, "ASW", "missing value"),
        ("ip,DSW,PSW,ASW\n", 1, "header", "no hosts"),
        ("", 1, "header", "the file is empty"),
    ] {
        let e = read_lingjun_topology(text, &o).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(line), field), "{text:?}: {e}");
        assert!(e.message.starts_with(start), "{text:?}: {e}");
    }
}

#[test]
fn too_many_hosts_are_refused_before_the_tree_is_built() {
    let o = LingjunOptions { gpus: 1 << 19, ..LingjunOptions::default() };
    let e = read_lingjun_topology("ip,DSW,PSW,ASW\nh1,G,P,S\nh2,G,P,S\nh3,G,P,S\n", &o).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(4), "ip"));
    assert!(e.message.starts_with("too many hosts: at 524288 GPUs per host a cluster has at most 2 hosts"), "{e}");
}
