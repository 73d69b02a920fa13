//! Tests of the parametric form ([`super::ParametricSpec`]): every key, its errors, the
//! canonical name, and the structure it builds (racks, rails, NICs).

use super::*;
use crate::comm_params::{CommParams, A100_NVLINK_GBPS, H100_NVLINK_GBPS};

fn parse(text: &str) -> ParametricSpec {
    ParametricSpec::parse(text).unwrap()
}

fn field_of(text: &str) -> String {
    ParametricSpec::parse(text).unwrap_err().field
}

#[test]
fn parametric_errors_name_the_key() {
    assert_eq!(field_of("racks=2,servers=2"), "gpus");
    assert_eq!(field_of("racks=2,servers=2,gpus=4,rack=3"), "rack");
    assert_eq!(field_of("racks=0,servers=2,gpus=4"), "racks");
    assert_eq!(field_of("racks=1,servers=0,gpus=4"), "servers");
    assert_eq!(field_of("racks=1,servers=2,gpus=4,nic_gbps=0"), "nic_gbps");
    assert_eq!(field_of("racks=1,servers=2,gpus=4,nvlink_gbps=-1"), "nvlink_gbps");
    assert_eq!(field_of("racks=1,servers=2,gpus=4,oversub=0.5"), "oversub");
    assert_eq!(field_of("racks=1024,servers=32,gpus=64"), "racks");
    assert_eq!(field_of("racks=1,servers=1,gpus=1,fabric=ethernet"), "fabric");
    assert_eq!(field_of("racks=1,servers=1,gpus=1,nics=0"), "nics");
    assert_eq!(field_of("racks=1,servers=1,gpus=1,gpu=v100"), "gpu");
    assert_eq!(field_of("racks=1,servers=1,gpus=1,rails=yes"), "rails");
    // A rail per NIC: one NIC makes no rails.
    let e = ParametricSpec::parse("racks=2,servers=2,gpus=8,rails=on").unwrap_err();
    assert_eq!(e.field, "rails");
    assert!(e.message.contains("nics=K"), "{e}");
    assert!(ParametricSpec::parse("racks=2,servers=2,gpus=8,nics=8,rails=on").is_ok());
}

#[test]
fn the_fabric_sets_the_links_the_efficiencies_and_the_gpu() {
    let ib = parse("racks=2,servers=2,gpus=8,nics=8").to_spec();
    assert_eq!(ib.collective.as_ref().unwrap().inter_efficiency, Some(CommParams::rdma().inter_efficiency));
    assert_eq!((ib.gpu.as_deref(), ib.servers[0].nics, ib.servers[0].nvlink_gbps), (Some("A100"), 8, 2400.0));
    // Eight 200 Gbit/s NICs per server; the uplink carries two servers' worth.
    assert_eq!(ib.links.iter().find(|l| l.a == "r0s0").unwrap().bandwidth_gbps, 1600.0);
    assert_eq!(ib.links.iter().find(|l| l.a == "tor0").unwrap().bandwidth_gbps, 3200.0);
    let tcp = parse("racks=2,servers=2,gpus=4,fabric=tcp");
    let spec = tcp.to_spec();
    assert_eq!(spec.collective.as_ref().unwrap().resolve().unwrap(), CommParams::default());
    assert_eq!((spec.gpu.as_deref(), spec.servers[0].nvlink_gbps), (Some("T4"), 128.0));
    assert_eq!(spec.links.iter().find(|l| l.a == "r0s0").unwrap().bandwidth_gbps, 50.0);
    assert_eq!(tcp.to_string(), "racks=2,servers=2,gpus=4,fabric=tcp");
    let p = parse("racks=16,servers=16,gpus=8,nics=8,oversub=4,fabric=tcp");
    assert_eq!(p.to_string(), "racks=16,servers=16,gpus=8,oversub=4,nics=8,fabric=tcp");
    // RoCE: the same links and efficiencies as InfiniBand, its own source.
    let roce = parse("racks=1,servers=2,gpus=8,fabric=roce").to_spec();
    assert_eq!(roce.collective.as_ref().unwrap().resolve().unwrap(), CommParams::roce());
    assert!(roce.collective.as_ref().unwrap().source.as_deref().unwrap().starts_with("roce:"));
    assert_eq!((roce.gpu.as_deref(), roce.links[0].bandwidth_gbps), (Some("A100"), 200.0));
}

#[test]
fn rdma_is_ib_and_keeps_every_canonical_name() {
    // Scenarios, sweeps and golden runs written with `fabric=rdma` build the same cluster
    // under the same name as before the split into `ib` and `roce`.
    for text in ["racks=6,servers=16,gpus=4,oversub=16,fabric=rdma,nics=4", "racks=2,servers=2,gpus=4,fabric=rdma"] {
        let rdma = parse(text);
        let ib = parse(&text.replace("fabric=rdma", "fabric=ib"));
        assert_eq!(rdma, ib);
        assert_eq!(rdma.to_spec(), ib.to_spec());
        assert!(!rdma.to_string().contains("fabric"), "the default fabric is left out: {rdma}");
    }
    assert_eq!(
        parse("racks=6,servers=16,gpus=4,oversub=16,fabric=rdma,nics=4").to_string(),
        "racks=6,servers=16,gpus=4,oversub=16,nics=4"
    );
    assert_eq!(parse("racks=1,servers=1,gpus=8").to_spec().collective.unwrap().resolve().unwrap(), CommParams::rdma());
}

#[test]
fn the_name_is_the_canonical_form() {
    let p = parse(" gpus=4, racks=2,servers=2,oversub=2,nic_gbps=200 ");
    assert_eq!(p.to_string(), "racks=2,servers=2,gpus=4,oversub=2");
    let spec = p.to_spec();
    assert_eq!(spec.name, "racks=2,servers=2,gpus=4,oversub=2");
    assert_eq!((spec.switches.len(), spec.servers.len(), spec.links.len()), (3, 4, 6));
    let uplink = spec.links.iter().find(|l| l.a == "tor0").unwrap();
    assert_eq!(uplink.bandwidth_gbps, 2.0 * DEFAULT_NIC_GBPS / 2.0);
}

#[test]
fn every_key_round_trips_through_the_canonical_name() {
    for text in [
        "racks=2,servers=2,gpus=4",
        "racks=16,servers=16,gpus=8,oversub=16,nic_gbps=100,nics=1,fabric=roce",
        "racks=4,servers=32,gpus=8,nic_gbps=400,nics=8,gpu=h100,rails=on",
        "racks=2,servers=10,gpus=8,oversub=4,nics=8,rails=on",
        "racks=2,servers=2,gpus=4,nvlink_gbps=600,fabric=tcp,gpu=a100",
        "racks=3,servers=2,gpus=2,oversub=1.5,fabric=ib,gpu=t4,rails=off",
    ] {
        let p = parse(text);
        let name = p.to_string();
        assert_eq!(parse(&name), p, "{text} -> {name}");
        assert_eq!(parse(&name).to_string(), name);
    }
    // Defaults are left out, others spelled in the form's order.
    assert_eq!(
        parse("rails=on,gpu=h100,nics=8,nic_gbps=400,servers=32,gpus=8,racks=4").to_string(),
        "racks=4,servers=32,gpus=8,nic_gbps=400,nics=8,gpu=h100,rails=on"
    );
    assert_eq!(
        parse("racks=1,servers=1,gpus=8,gpu=a100,rails=off,fabric=rdma").to_string(),
        "racks=1,servers=1,gpus=8"
    );
    assert_eq!(parse("racks=1,servers=1,gpus=4,fabric=tcp,gpu=t4").to_string(), "racks=1,servers=1,gpus=4,fabric=tcp");
}

#[test]
fn h100_sets_the_gpu_its_nvlink_and_its_ring_efficiency() {
    let p = parse("racks=1,servers=2,gpus=8,gpu=h100,nics=8,nic_gbps=400");
    assert_eq!(p.nvlink_gbps, H100_NVLINK_GBPS);
    let spec = p.to_spec();
    assert_eq!((spec.gpu.as_deref(), spec.servers[0].nvlink_gbps), (Some("H100"), 3600.0));
    assert_eq!(spec.collective.as_ref().unwrap().resolve().unwrap(), CommParams::h100_ib());
    // A ring of the server's eight GPUs reaches 370 GB/s, 8 x 400 Gbit/s NICs carry 400 GB/s.
    let t = Topology::from_spec(&spec).unwrap();
    let gpus: Vec<GpuId> = (0..8).map(GpuId).collect();
    let shape = crate::comm::shape_of(&t, &gpus, &[]);
    assert!((t.comm_params().ring_cap(&shape) - 370e9).abs() < 1.0);
    assert_eq!(t.link(t.node(t.servers()[0]).uplink.unwrap()).bandwidth_gbps, 3200.0);
    // The GPU decides the link default whatever the fabric; a given link wins.
    assert_eq!(parse("racks=1,servers=1,gpus=8,fabric=tcp,gpu=h100").nvlink_gbps, 3600.0);
    assert_eq!(parse("racks=1,servers=1,gpus=8,gpu=h100,nvlink_gbps=2400").nvlink_gbps, A100_NVLINK_GBPS);
}

#[test]
fn a_server_link_is_its_nics_times_their_speed() {
    // The clusters of today: 100 GbE, 200 Gbit/s HDR, 400 Gbit/s NDR; one to eight NICs.
    for nics in [1u32, 2, 4, 8] {
        for speed in [100.0, 200.0, 400.0] {
            let t = Topology::from_spec(
                &parse(&format!("racks=2,servers=4,gpus=8,nics={nics},nic_gbps={speed},oversub=2")).to_spec(),
            )
            .unwrap();
            let server = t.node(t.servers()[0]);
            assert_eq!((server.nics, t.link(server.uplink.unwrap()).bandwidth_gbps), (nics, nics as f64 * speed));
            let uplink = t.links().iter().find(|l| t.node(l.child).name == "tor0").unwrap();
            assert_eq!(uplink.bandwidth_gbps, 4.0 * nics as f64 * speed / 2.0);
        }
    }
}

#[test]
fn a_ring_with_fewer_gpus_on_a_server_than_nics_drives_only_its_share() {
    // Four 400 Gbit/s NICs (200 GB/s) per server: a ring with one GPU on each of two servers
    // drives one NIC (50 GB/s), with two GPUs two NICs, with four or more all four.
    let t = Topology::from_spec(&parse("racks=1,servers=2,gpus=8,nics=4,nic_gbps=400").to_spec()).unwrap();
    let nic_share = |per_server: u32| {
        let gpus: Vec<GpuId> = (0..per_server).chain(8..8 + per_server).map(GpuId).collect();
        let mut links = Vec::new();
        t.inter_server_links(&[t.servers()[0], t.servers()[1]], &mut links);
        crate::comm::shape_of(&t, &gpus, &links).nic_bytes_per_s
    };
    assert_eq!(nic_share(1), 50e9);
    assert_eq!(nic_share(2), 100e9);
    assert_eq!(nic_share(4), 200e9);
    assert_eq!(nic_share(8), 200e9, "eight GPUs still have four NICs");
}

#[test]
fn rails_make_each_rack_a_rail_group_under_the_spine() {
    let spec = parse("racks=3,servers=4,gpus=8,nics=8,oversub=2,rails=on").to_spec();
    let groups: Vec<&SwitchSpec> = spec.switches.iter().filter(|s| s.role.as_deref() == Some(RAILS_ROLE)).collect();
    assert_eq!(groups.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["rails0", "rails1", "rails2"]);
    assert_eq!(spec.rail_count("rails1"), Some(8));
    assert_eq!(spec.rail_count("spine"), None);
    // Each server hangs under its rack's rail group with all eight NICs; the group's link to
    // the spine carries its four servers' NICs over the oversubscription.
    let link = |a: &str| spec.links.iter().find(|l| l.a == a).unwrap();
    assert_eq!((link("r1s3").b.as_str(), link("r1s3").bandwidth_gbps), ("rails1", 1600.0));
    assert_eq!((link("rails1").b.as_str(), link("rails1").bandwidth_gbps), ("spine", 4.0 * 1600.0 / 2.0));
    // Still a tree with the usual tiers: a rail group bounds a rack.
    let t = Topology::from_spec(&spec).unwrap();
    assert_eq!(t.tier_names(), &["server", "rack", "cluster"]);
    assert_eq!(t.node(t.tier_nodes(crate::topology::Tier(1))[0]).role.as_deref(), Some(RAILS_ROLE));
    // A ring inside a rail group crosses no switch link: the group is non-blocking.
    let mut links = Vec::new();
    t.inter_server_links(&[t.servers()[0], t.servers()[3]], &mut links);
    assert!(links.iter().all(|&l| t.node(t.link(l).child).kind == NodeKind::Server), "only the two servers' NICs");
    // Without rails the same form builds top-of-rack switches and the same links.
    let tor = parse("racks=3,servers=4,gpus=8,nics=8,oversub=2").to_spec();
    let bandwidths = |s: &TopologySpec| s.links.iter().map(|l| l.bandwidth_gbps).collect::<Vec<_>>();
    assert_eq!(bandwidths(&tor), bandwidths(&spec));
    // The rails survive export: the role is in the JSON, the count comes from the NICs.
    let back = TopologySpec::from_json(&spec.to_json()).unwrap();
    assert_eq!(back.rail_count("rails0"), Some(8));
}

#[test]
fn a_rail_group_counts_rails_only_when_its_servers_agree() {
    let mut spec = parse("racks=1,servers=2,gpus=8,nics=8,rails=on").to_spec();
    assert_eq!(spec.rail_count("rails0"), Some(8));
    spec.servers[1].nics = 4;
    assert_eq!(spec.rail_count("rails0"), None);
}
