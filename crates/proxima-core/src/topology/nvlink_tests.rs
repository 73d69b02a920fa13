//! Multi-node NVLink domains (switches of role `nvlink`): their tier, their NICs, the check
//! that only trays hang below them, and how a ring inside or across them is costed.

use crate::comm::shape_of;
use crate::comm_params::CommParams;
use crate::topology::{check, GpuId, LinkSpec, ServerSpec, SwitchSpec, Tier, Topology, TopologySpec, NVLINK_ROLE};

/// `domains` NVLink domains of `trays` trays of 4 GPUs at 7,200 Gbit/s each, 4 NICs of 400
/// Gbit/s a tray, under one spine.
fn domains(domains: u32, trays: u32) -> TopologySpec {
    let mut spec = TopologySpec {
        version: None,
        name: "nvl".into(),
        switches: vec![SwitchSpec { id: "spine".into(), role: Some("spine".into()) }],
        servers: Vec::new(),
        links: Vec::new(),
        collective: None,
        gpu: None,
    };
    for d in 0..domains {
        let domain = format!("d{d}");
        spec.switches.push(SwitchSpec { id: domain.clone(), role: Some(NVLINK_ROLE.into()) });
        let nics = (trays * 4) as f64 * 400.0;
        spec.links.push(LinkSpec { a: domain.clone(), b: "spine".into(), bandwidth_gbps: nics, latency_us: 2.0 });
        for t in 0..trays {
            let tray = format!("{domain}t{t}");
            spec.servers.push(ServerSpec {
                id: tray.clone(),
                gpus: 4,
                nvlink_gbps: 7200.0,
                nvlink_latency_us: 1.0,
                nics: 4,
            });
            spec.links.push(LinkSpec { a: tray, b: domain.clone(), bandwidth_gbps: 28_800.0, latency_us: 1.0 });
        }
    }
    spec
}

fn ring(t: &Topology, gpus: &[GpuId]) -> crate::comm::PlacementShape {
    let mut servers: Vec<_> = gpus.iter().map(|&g| t.server_of(g)).collect();
    servers.dedup();
    let mut links = Vec::new();
    t.inter_server_links(&servers, &mut links);
    shape_of(t, gpus, &links)
}

#[test]
fn an_nvlink_domain_is_a_tier_with_its_trays_nics() {
    let t = Topology::from_spec(&domains(2, 4)).unwrap();
    assert_eq!(t.tier_names(), &["server", "nvlink", "cluster"]);
    let domain = t.tier_nodes(Tier(1))[0];
    assert!(t.node(domain).is_nvlink_switch());
    assert_eq!((t.node(domain).nics, t.node(domain).gpu_count), (16, 16));
    assert_eq!(t.tier_of(&[GpuId(0), GpuId(15)]), Tier(1));
}

#[test]
fn a_ring_inside_a_domain_pays_nvlink_and_one_leaving_it_pays_the_nics() {
    let t = Topology::from_spec(&domains(2, 4)).unwrap();
    let p = CommParams { intra_efficiency: 0.8, inter_efficiency: 0.9, ..CommParams::ideal() };
    // Eight GPUs on two trays of one domain: no NIC, the GPU links' 900 GB/s at 0.8.
    let inside: Vec<GpuId> = (0..8).map(GpuId).collect();
    let s = ring(&t, &inside);
    assert_eq!((s.servers, s.nic_bytes_per_s), (2, f64::INFINITY));
    assert_eq!(p.ring_bytes_per_s(&s), 0.8 * 900e9);
    assert!((s.step_latency_s - 2e-6).abs() < 1e-15, "GPU link, tray link, tray link, GPU link: two NVLink hops up");
    // The same GPU count on one tray of each domain: four of the domain's sixteen NICs
    // each side, 4 x 50 GB/s at 0.9.
    let across: Vec<GpuId> = (0..4).chain(16..20).map(GpuId).collect();
    let s = ring(&t, &across);
    assert_eq!(s.nic_bytes_per_s, 200e9);
    assert!((p.ring_bytes_per_s(&s) - 0.9 * 200e9).abs() < 1.0);
    assert!((s.step_latency_s - 6e-6).abs() < 1e-15);
}

#[test]
fn only_trays_hang_below_an_nvlink_switch() {
    // A domain of two trays with a top-of-rack switch of two servers hung below it.
    let mut spec = domains(1, 2);
    spec.switches.remove(0);
    spec.links.remove(0);
    spec.switches.push(SwitchSpec { id: "tor".into(), role: None });
    spec.links.push(LinkSpec { a: "tor".into(), b: "d0".into(), bandwidth_gbps: 400.0, latency_us: 2.0 });
    for s in ["s0", "s1"] {
        spec.servers.push(ServerSpec { id: s.into(), gpus: 8, nvlink_gbps: 2400.0, nvlink_latency_us: 1.0, nics: 1 });
        spec.links.push(LinkSpec { a: s.into(), b: "tor".into(), bandwidth_gbps: 200.0, latency_us: 2.0 });
    }
    let problems = check(&spec);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].field, "switches[1]");
    assert!(problems[0].message.contains("'tor' hangs below NVLink switch 'd0'"), "{}", problems[0].message);
    assert!(Topology::from_spec(&spec).is_err());
}
