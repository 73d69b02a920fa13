//! Tests of [`super::Topology::describe_network`]: one line naming the network of any
//! topology, parametric or not.

use super::formats::{read_slurm_topology, SlurmOptions};
use super::*;

fn line(arg: &str) -> String {
    resolve_topology_arg(arg).unwrap().describe_network()
}

#[test]
fn the_default_network_is_named_in_full() {
    assert_eq!(
        line("racks=16,servers=16,gpus=8,oversub=16"),
        "8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 1 × 200 Gbit/s InfiniBand NIC per server, racks 16:1 oversubscribed (fabric=ib)"
    );
    // `rdma` is `ib`, and says so.
    assert_eq!(line("racks=2,servers=2,gpus=8,fabric=rdma"), line("racks=2,servers=2,gpus=8,fabric=ib"));
}

#[test]
fn every_key_shows_in_the_line() {
    assert_eq!(
        line("racks=4,servers=32,gpus=8,nics=8,nic_gbps=400,gpu=h100,rails=on"),
        "8 × H100 per server (NVSwitch, 3,600 Gbit/s per GPU), 8 × 400 Gbit/s InfiniBand NICs per server, racks rail-optimised (8 rails each), non-blocking (1:1) (fabric=ib)"
    );
    assert_eq!(
        line("racks=2,servers=4,gpus=8,nic_gbps=100,fabric=roce,oversub=2.5"),
        "8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 1 × 100 Gbit/s RoCE NIC per server, racks 2.50:1 oversubscribed (fabric=roce)"
    );
    assert_eq!(
        line("racks=2,servers=2,gpus=4,oversub=64,fabric=tcp"),
        "4 × T4 per server (PCIe, 128 Gbit/s per GPU), 1 × 50 Gbit/s Ethernet (NCCL over TCP) NIC per server, racks 64:1 oversubscribed (fabric=tcp)"
    );
    assert_eq!(
        line("racks=1,servers=4,gpus=8"),
        "8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 1 × 200 Gbit/s InfiniBand NIC per server, one switch (fabric=ib)"
    );
}

#[test]
fn other_topologies_are_described_from_their_tree() {
    // The k=8 fat tree: two switch tiers below the core, both with full bisection.
    assert!(
        line("fat-tree-k8").contains("racks non-blocking (1:1), pods non-blocking (1:1) (fabric=ib)"),
        "{}",
        line("fat-tree-k8")
    );
    // A description whose collective block is its own (the Pollux testbed's fitted numbers
    // under their own source) is not given a fabric's name.
    assert!(
        line("pollux-testbed").ends_with("one switch (collective efficiencies from the description)"),
        "{}",
        line("pollux-testbed")
    );
    // A hand-written file with no collective block and no GPU: uneven servers, ranges.
    let spec = TopologySpec::from_json(
        r#"{"switches":[{"id":"top"},{"id":"a"},{"id":"b"}],
            "servers":[{"id":"s1","gpus":4,"nvlink_gbps":600},{"id":"s2","gpus":8,"nvlink_gbps":600,"nics":2},{"id":"s3","gpus":8,"nvlink_gbps":600}],
            "links":[{"a":"s1","b":"a","bandwidth_gbps":100},{"a":"s2","b":"a","bandwidth_gbps":400},{"a":"s3","b":"b","bandwidth_gbps":100},
                     {"a":"a","b":"top","bandwidth_gbps":250},{"a":"b","b":"top","bandwidth_gbps":100}]}"#,
    )
    .unwrap();
    assert_eq!(
        Topology::from_spec(&spec).unwrap().describe_network(),
        "4–8 × GPU per server (600 Gbit/s per GPU), 1–2 × 100–200 Gbit/s NICs per server, racks 1–2:1 oversubscribed (default collective efficiencies: the Pollux testbed's NCCL over TCP)"
    );
}

#[test]
fn slurm_clusters_name_their_fabric_too() {
    // A Slurm tree of two leaves: the options' fabric is named, `rdma` as `ib`.
    let text = "SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-4]\nSwitchName=t Switches=a,b\n";
    let describe = |options: &str| {
        let spec = read_slurm_topology(text, &SlurmOptions::parse(options).unwrap()).unwrap().spec;
        Topology::from_spec(&spec).unwrap().describe_network()
    };
    assert_eq!(
        describe("fabric=roce,nics=2,nic_gbps=400"),
        "8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 2 × 400 Gbit/s RoCE NICs per server, racks non-blocking (1:1) (fabric=roce)"
    );
    assert_eq!(describe("fabric=rdma"), describe("fabric=ib"));
    assert!(describe("fabric=rdma").ends_with("(fabric=ib)"));
}
