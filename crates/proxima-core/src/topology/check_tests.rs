//! Tests of [`super::check`] and of the errors [`super::Topology::from_spec`] gives.

use super::*;
use crate::comm_params::CommParams;
use crate::error::InputError;

fn spec(json: &str) -> TopologySpec {
    TopologySpec::from_json(json).unwrap()
}

fn err(json: &str) -> InputError {
    let spec = match TopologySpec::from_json(json) {
        Ok(s) => s,
        Err(e) => return e,
    };
    Topology::from_spec(&spec).unwrap_err()
}

/// The fields of every problem, in order.
fn fields(json: &str) -> Vec<String> {
    check(&spec(json)).into_iter().map(|p| p.field).collect()
}

const TWO: &str = r#"{"switches":[{"id":"t"}],"servers":[{"id":"a","gpus":1,"nvlink_gbps":1},{"id":"b","gpus":1,"nvlink_gbps":1}],"links":[LINKS]}"#;

#[test]
fn invalid_topologies_name_the_field() {
    let e = err(r#"{"servers": []}"#);
    assert_eq!(e.field, "servers");
    let e = err(r#"{"servers": [{"id":"s","gpus":0,"nvlink_gbps":1}]}"#);
    assert_eq!(e.field, "servers[0].gpus");
    let e = err(r#"{"servers": [{"id":"s","gpus":2,"nvlink_gbps":1,"colour":"red"}]}"#);
    assert_eq!(e.field, "colour");
    assert!(e.message.contains("unknown field"), "{e}");
    let e = err(&TWO.replace("LINKS", r#"{"a":"a","b":"t","bandwidth_gbps":0}"#));
    assert_eq!(e.field, "links[0].bandwidth_gbps");
    let e = err(&TWO.replace("LINKS", r#"{"a":"a","b":"t","bandwidth_gbps":-5}"#));
    assert_eq!(e.field, "links[0].bandwidth_gbps");
    let e = err(&TWO.replace("LINKS", r#"{"a":"a","b":"t","bandwidth_gbps":10}"#));
    assert_eq!(e.field, "links");
    assert_eq!(e.message, "server 'b' has no path to the rest of the cluster");
    let e = err(&TWO.replace("LINKS", r#"{"a":"a","b":"nowhere","bandwidth_gbps":10}"#));
    assert_eq!(e.field, "links[0].b");
    let cyc = r#"{"switches":[{"id":"t"},{"id":"u"}],"servers":[{"id":"a","gpus":1,"nvlink_gbps":1}],
        "links":[{"a":"a","b":"t","bandwidth_gbps":1},{"a":"t","b":"u","bandwidth_gbps":1},{"a":"u","b":"t","bandwidth_gbps":1}]}"#;
    let e = err(cyc);
    assert_eq!(e.field, "links[2]");
    assert!(e.message.starts_with("the link u - t closes a cycle"), "{e}");
}

#[test]
fn a_collective_block_sets_and_checks_the_parameters() {
    let base = r#"{"servers": [{"id":"s","gpus":2,"nvlink_gbps":100}], "collective": BLOCK}"#;
    let good = spec(&base.replace("BLOCK", r#"{"inter_efficiency": 0.9, "straggler": 0}"#));
    let p = Topology::from_spec(&good).unwrap().comm_params().clone();
    assert_eq!((p.inter_efficiency, p.straggler), (0.9, 0.0));
    assert_eq!(p.intra_efficiency, CommParams::default().intra_efficiency, "absent keys take the defaults");
    let e = err(&base.replace("BLOCK", r#"{"inter_efficiency": 1.5}"#));
    assert_eq!(e.field, "collective.inter_efficiency");
    let e = err(&base.replace("BLOCK", r#"{"intra_efficiency": 0}"#));
    assert_eq!(e.field, "collective.intra_efficiency");
    let e = err(&base.replace("BLOCK", r#"{"straggler": -1}"#));
    assert_eq!(e.field, "collective.straggler");
    let e = err(&base.replace("BLOCK", r#"{"efficiency": 0.5}"#));
    assert_eq!(e.field, "efficiency");
    assert!(e.message.contains("unknown field"), "{e}");
    let problems = check(&spec(&base.replace("BLOCK", r#"{"intra_efficiency": 2, "straggler": -1}"#)));
    assert_eq!(problems.len(), 2);
    assert!(problems.iter().all(|p| p.element == ElementRef::Collective));
    assert_eq!(problems[1].key.as_deref(), Some("straggler"));
}

#[test]
fn json_round_trip() {
    let t = resolve_topology_arg("teaching").unwrap();
    let json = t.spec().to_json();
    let back = Topology::from_spec(&TopologySpec::from_json(&json).unwrap()).unwrap();
    assert_eq!(back, t);
    // A root that is not written first is still found: the spine is the centre.
    let mut spec = t.spec().clone();
    spec.switches.rotate_left(1);
    let rotated = Topology::from_spec(&spec).unwrap();
    assert_eq!(rotated.node(rotated.root()).name, "spine");
}

#[test]
fn a_valid_description_has_no_problem() {
    for p in PRESETS {
        assert_eq!(check(&p.spec()), Vec::new(), "{}", p.name);
    }
}

#[test]
fn every_problem_is_listed_each_on_its_element() {
    let json = r#"{
        "switches": [{"id": "spine"}, {"id": "tor0"}, {"id": "tor0"}, {"id": "lost"}, {"id": "empty"}],
        "servers": [
            {"id": "s0", "gpus": 0, "nvlink_gbps": 100},
            {"id": "s1", "gpus": 2, "nvlink_gbps": -1, "nvlink_latency_us": -2},
            {"id": "s2", "gpus": 2, "nvlink_gbps": 100},
            {"id": "s3", "gpus": 2, "nvlink_gbps": 100}
        ],
        "links": [
            {"a": "s0", "b": "tor0", "bandwidth_gbps": 0},
            {"a": "s1", "b": "tor0", "bandwidth_gbps": 100, "latency_us": -1},
            {"a": "tor0", "b": "spine", "bandwidth_gbps": 100},
            {"a": "s2", "b": "ghost", "bandwidth_gbps": 100},
            {"a": "s2", "b": "s1", "bandwidth_gbps": 100},
            {"a": "spine", "b": "spine", "bandwidth_gbps": 100},
            {"a": "s3", "b": "tor0", "bandwidth_gbps": 100},
            {"a": "s3", "b": "spine", "bandwidth_gbps": 100},
            {"a": "tor0", "b": "spine", "bandwidth_gbps": 100},
            {"a": "empty", "b": "spine", "bandwidth_gbps": 100}
        ]
    }"#;
    let spec = spec(json);
    let problems = check(&spec);
    let got: Vec<(&ElementRef, Option<&str>, &str)> =
        problems.iter().map(|p| (&p.element, p.key.as_deref(), p.field.as_str())).collect();
    let switch = |index: usize, id: &str| ElementRef::Switch { index, id: id.into() };
    let server = |index: usize, id: &str| ElementRef::Server { index, id: id.into() };
    let link = |index: usize| ElementRef::Link { index };
    assert_eq!(
        got,
        vec![
            (&switch(2, "tor0"), Some("id"), "switches[2].id"),
            (&server(0, "s0"), Some("gpus"), "servers[0].gpus"),
            (&server(1, "s1"), Some("nvlink_gbps"), "servers[1].nvlink_gbps"),
            (&server(1, "s1"), Some("nvlink_latency_us"), "servers[1].nvlink_latency_us"),
            (&link(0), Some("bandwidth_gbps"), "links[0].bandwidth_gbps"),
            (&link(1), Some("latency_us"), "links[1].latency_us"),
            (&link(3), Some("b"), "links[3].b"),
            (&link(4), None, "links[4]"),
            (&link(5), None, "links[5]"),
            // s3's second link is set aside, not reported again as a cycle.
            (&link(7), None, "links[7]"),
            // The parallel uplink closes a cycle.
            (&link(8), None, "links[8]"),
            // s2 (its links unusable) and the loose switch are cut off.
            (&switch(3, "lost"), None, "links"),
            (&server(2, "s2"), None, "links"),
            // The switch with nothing below it is reported once nothing is cut off.
        ]
    );
    assert_eq!(problems[0].message, "duplicate id 'tor0'");
    assert_eq!(problems[9].message.split(';').next().unwrap(), "server 's3' has 2 links");
    assert_eq!(problems[11].message, "switch 'lost' has no path to the rest of the cluster");
    // The refusal is the first problem.
    assert_eq!(Topology::from_spec(&spec).unwrap_err(), problems[0].to_input_error());
}

#[test]
fn a_piece_cut_off_is_one_problem_and_the_cluster_is_the_piece_with_most_servers() {
    // tor1's rack lost its uplink; the loose switch is written first.
    let mut spec = resolve_topology_arg("teaching").unwrap().spec().clone();
    spec.switches.insert(0, SwitchSpec { id: "new".into(), role: None });
    spec.links.retain(|l| !(l.a == "tor1" && l.b == "spine"));
    let problems = check(&spec);
    let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "switch 'new' has no path to the rest of the cluster",
            "switch 'tor1', with the 2 nodes linked to it, has no path to the rest of the cluster",
        ]
    );
    // A loose switch is cut off, and not also reported as having nothing below it.
    assert!(problems.iter().all(|p| p.field == "links"));
}

#[test]
fn a_rack_removed_leaves_the_spine_without_servers() {
    let mut spec = resolve_topology_arg("teaching").unwrap().spec().clone();
    spec.switches.retain(|s| s.id != "tor1");
    spec.servers.retain(|s| !s.id.starts_with("r1"));
    spec.links.retain(|l| l.a != "tor1" && !l.a.starts_with("r1"));
    let problems = check(&spec);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].element, ElementRef::Switch { index: 0, id: "spine".into() });
    assert_eq!(problems[0].message, "switch 'spine' has no servers below it");
}

#[test]
fn labels_name_elements_as_people_do() {
    let spec = resolve_topology_arg("teaching").unwrap().spec().clone();
    let link = spec.links.iter().position(|l| l.a == "r0s1").unwrap();
    assert_eq!(ElementRef::Link { index: link }.label(&spec), "link r0s1–tor0");
    assert_eq!(ElementRef::Server { index: 1, id: "r0s1".into() }.label(&spec), "server r0s1");
    assert_eq!(ElementRef::Switch { index: 3, id: " ".into() }.label(&spec), "switch 4 (no id)");
    assert_eq!(ElementRef::Spec.label(&spec), "the cluster");
    let mut bad = spec.clone();
    bad.links[link].bandwidth_gbps = 0.0;
    let problems = check(&bad);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].describe(&bad), "link r0s1–tor0, bandwidth: must be a positive number of Gbit/s, got 0");
    // Problems are data that cross a worker boundary and come back equal.
    let json = serde_json::to_string(&problems).unwrap();
    assert_eq!(serde_json::from_str::<Vec<Problem>>(&json).unwrap(), problems);
}

#[test]
fn two_servers_and_self_links_are_problems_of_the_link() {
    assert_eq!(
        fields(&TWO.replace(
            "LINKS",
            r#"{"a":"a","b":"b","bandwidth_gbps":1},{"a":"t","b":"t","bandwidth_gbps":1},{"a":"a","b":"t","bandwidth_gbps":1},{"a":"b","b":"t","bandwidth_gbps":1}"#
        )),
        ["links[0]", "links[1]"]
    );
}

#[test]
fn huge_broken_descriptions_are_checked_in_linear_time() {
    // 50,000 parallel links between one server and one switch, and 50,000 loose servers:
    // quadratic bookkeeping would take minutes.
    let mut spec = spec(r#"{"switches":[{"id":"t"}],"servers":[{"id":"a","gpus":1,"nvlink_gbps":1}]}"#);
    for i in 0..50_000 {
        spec.links.push(LinkSpec { a: "a".into(), b: "t".into(), bandwidth_gbps: 1.0, latency_us: 0.0 });
        spec.servers.push(ServerSpec {
            id: format!("x{i}"),
            gpus: 1,
            nvlink_gbps: 1.0,
            nvlink_latency_us: 0.0,
            nics: 1,
        });
    }
    let problems = check(&spec);
    assert_eq!(problems.len(), 2 * 50_000 - 1);
}
