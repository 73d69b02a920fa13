//! The built-in clusters (`proxima topologies` lists them) and the one function that turns
//! a preset name or a parametric form into a topology.

use super::parametric::ParametricSpec;
use super::spec::{CollectiveSpec, LinkSpec, ServerSpec, SwitchSpec, TopologySpec, TOPOLOGY_FORMAT_VERSION};
use crate::comm_params::{
    POLLUX_INTER_BYTES_PER_S, POLLUX_INTRA_BYTES_PER_S, POLLUX_NIC_GBPS, POLLUX_PCIE_GBPS, POLLUX_STRAGGLER,
};

#[path = "presets_gb200.rs"]
pub(super) mod presets_gb200;
#[path = "presets_sia.rs"]
pub(super) mod presets_sia;
#[path = "presets_workload.rs"]
pub(super) mod presets_workload;

/// A preset: a name, a one-line description, and how to build it.
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    spec: &'static str,
    /// `Some` for presets that are not a plain parametric form.
    build: Option<fn() -> TopologySpec>,
}

impl Preset {
    pub fn spec(&self) -> TopologySpec {
        match self.build {
            Some(build) => build(),
            None => {
                let mut spec = ParametricSpec::parse(self.spec).expect("preset specs are valid").to_spec();
                spec.name = self.name.to_string();
                spec
            }
        }
    }

    /// The parametric form behind the preset, if it has one.
    pub fn parametric(&self) -> Option<&'static str> {
        self.build.is_none().then_some(self.spec)
    }
}

/// The built-in topologies, listed by `proxima topologies`.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "teaching",
        description: "16 GPUs: 2 racks x 2 servers x 4 GPUs, uplinks 2:1 oversubscribed; small enough to watch every placement",
        spec: "racks=2,servers=2,gpus=4,oversub=2",
        build: None,
    },
    Preset {
        name: "n32g4",
        description: "128 GPUs: one switch over 32 servers of 4 GPUs, 100 Gbit/s NICs (the Tiresias simulator's n32g4 cluster)",
        spec: "racks=1,servers=32,gpus=4,nic_gbps=100",
        build: None,
    },
    Preset {
        name: "flat-2048",
        description: "2,048 A100: 16 racks x 16 servers x 8 A100 on NVSwitch, one 200 Gbit/s NIC per server, full-bisection uplinks; shows that without congested uplinks leaving a server still costs: LLM-era jobs (default mix llm) crossing servers go through one NIC each, and waiting for a server of their own pays",
        spec: "racks=16,servers=16,gpus=8",
        build: None,
    },
    Preset {
        name: "oversub-2048",
        description: "2,048 A100: 16 racks x 16 servers x 8 A100 on NVSwitch, one 200 Gbit/s NIC per server, rack uplinks 4:1 oversubscribed; shows LLM-era jobs (default mix llm) paying for leaving a server and a rack: waiting for a good placement pays",
        spec: "racks=16,servers=16,gpus=8,oversub=4",
        build: None,
    },
    Preset {
        name: "rdma-2048",
        description: "2,048 A100: 16 racks x 16 servers x 8 A100 on NVSwitch, 8 x 200 Gbit/s InfiniBand NICs per server (one per GPU), rack uplinks 4:1 oversubscribed; fabric=ib; shows that eight NICs a server leave only the largest rings to place well: LLaMA 13B jobs (the default mix) crossing racks fill the uplinks",
        spec: "racks=16,servers=16,gpus=8,nics=8,oversub=4",
        build: None,
    },
    Preset {
        name: "dgx-a100-pod",
        description: "1,120 A100: 7 scalable units x 20 DGX A100 (8 A100 on NVSwitch, 8 x 200 Gbit/s HDR InfiniBand each), rail-optimised (a unit's eight rail switches drawn as one rail group), full fat tree (NVIDIA DGX SuperPOD reference architecture); a control: non-blocking with a NIC per GPU, so placement costs LLM-era jobs (default mix llm) almost nothing and the policies come out within 2%",
        spec: DGX_A100_SUPERPOD,
        build: None,
    },
    Preset {
        name: "dgx-h100-pod",
        description: "1,024 H100: 4 scalable units x 32 DGX H100 (8 H100 on NVSwitch at 900 GB/s, 8 x 400 Gbit/s NDR InfiniBand each), rail-optimised, full fat tree (NVIDIA DGX SuperPOD reference architecture); runs need the H100 model catalogue; a control: non-blocking with a NIC per GPU, so placement costs LLM-era jobs (default mix llm) almost nothing and the policies come out within 2%",
        spec: DGX_H100_POD,
        build: None,
    },
    Preset {
        name: "gb200-nvl72",
        description: "576 GB200: 8 GB200 NVL72 racks (a DGX SuperPOD scalable unit), each one 72-GPU NVLink domain of 18 trays x 4 GPUs at 900 GB/s per GPU, 4 x 400 Gbit/s InfiniBand NICs per tray into a full fat tree; shows a job inside one rack paying NVLink, not the NICs; runs need the GB200 model catalogue",
        spec: "",
        build: Some(presets_gb200::gb200_nvl72),
    },
    Preset {
        name: "a100-roce-2048",
        description: "2,048 A100: 16 racks x 16 servers x 8 A100 on NVSwitch, one 100 GbE RoCE NIC per server, rack uplinks 16:1 oversubscribed: the cheapest RDMA network for A100 servers; shows placement mattering most: LLM-era jobs (default mix llm) spread over racks take several times as long, and waiting for a rack pays",
        spec: A100_ROCE_2048,
        build: None,
    },
    Preset {
        name: "fat-tree-k8",
        description: "1,024 A100: a k=8 fat tree (8 pods x 4 edge switches x 4 servers, full bisection at every level, Al-Fares et al. 2008), each server 8 A100 on NVSwitch with one 200 Gbit/s HDR NIC; shows a non-blocking network where leaving a server still costs: LLM-era jobs (default mix llm) crossing servers go through one NIC each",
        spec: "",
        build: Some(fat_tree_k8),
    },
    Preset {
        name: "rail-pod-oversub",
        description: "160 A100: 2 racks x 10 DGX A100 (8 x 200 Gbit/s NICs, one per GPU rail), each rack a rail group, under a spine with 4:1 oversubscribed uplinks",
        spec: RAIL_POD_OVERSUB,
        build: None,
    },
    Preset {
        name: "pollux-testbed",
        description: "64 GPUs: 16 servers x 4 T4 on PCIe under one switch, 50 Gbit/s NICs, NCCL over TCP; the cluster the communication model was calibrated on",
        spec: "",
        build: Some(pollux_testbed),
    },
];

/// The cluster the Pollux placement measurements come from, as the Pollux artifact's
/// Terraform file provisions it (petuum/adaptdl `osdi21-artifact`, `benchmark/main.tf`):
/// 16 AWS `g4dn.12xlarge` workers in one placement group, each with four NVIDIA T4 on PCIe
/// 3.0 x16 (no NVLink) and a 50 Gbit/s network interface. The `collective` block makes one
/// ring's bandwidth the calibrated 1.661 GB/s inside a server and 0.5933 GB/s between servers
/// (`docs/CALIBRATION.md`); link latencies make a ring step 10 µs inside a server and 50 µs
/// between servers, the latencies the calibration fixed.
fn pollux_testbed() -> TopologySpec {
    let mut spec = TopologySpec {
        version: Some(TOPOLOGY_FORMAT_VERSION),
        name: "pollux-testbed".into(),
        switches: vec![SwitchSpec { id: "switch".into(), role: Some("tor".into()) }],
        servers: Vec::new(),
        links: Vec::new(),
        collective: Some(CollectiveSpec {
            intra_efficiency: Some(POLLUX_INTRA_BYTES_PER_S / (POLLUX_PCIE_GBPS * 1.0e9 / 8.0)),
            inter_efficiency: Some(POLLUX_INTER_BYTES_PER_S / (POLLUX_NIC_GBPS * 1.0e9 / 8.0)),
            straggler: Some(POLLUX_STRAGGLER),
            server_compute: None,
            server_ring: None,
            source: Some(
                "fitted to the Pollux placement measurements (petuum/adaptdl osdi21-artifact, simulator/traces/*/placements.csv); docs/CALIBRATION.md"
                    .into(),
            ),
        }),
        gpu: Some(super::fabric::FITTED_GPU.into()),
    };
    for s in 0..16 {
        let id = format!("node{s}");
        spec.servers.push(ServerSpec {
            id: id.clone(),
            gpus: 4,
            nvlink_gbps: POLLUX_PCIE_GBPS,
            nvlink_latency_us: 10.0,
            nics: 1,
        });
        spec.links.push(LinkSpec { a: id, b: "switch".into(), bandwidth_gbps: POLLUX_NIC_GBPS, latency_us: 25.0 });
    }
    spec
}

/// NVIDIA DGX A100 (datasheet and "NVIDIA DGX A100 System Architecture" white paper): eight
/// A100 SXM4 on six NVSwitches, 600 GB/s of NVLink per GPU both ways (300 GB/s, 2,400
/// Gbit/s, each way: the parametric default), and eight single-port ConnectX-6 HDR
/// InfiniBand adapters of 200 Gbit/s for the compute fabric (the parametric default NIC).
/// The DGX SuperPOD reference architecture (DGX A100) builds the compute fabric in scalable
/// units of 20 systems, up to 140 systems in 7 units, as a full (non-blocking) fat tree,
/// rail-optimised: NIC k of every system in a unit goes to the unit's leaf switch k. Each
/// unit is a rail group (`rails=on`: its eight rail switches drawn as one switch, exact for
/// ring traffic, see [`ParametricSpec::to_spec`]), and the spine carries all the units'
/// NICs (full bisection: oversubscription 1).
const DGX_A100_SUPERPOD: &str = "racks=7,servers=20,gpus=8,nics=8,rails=on";

/// NVIDIA DGX H100 (datasheet): eight H100 SXM5 on four NVSwitches, 900 GB/s of NVLink per
/// GPU both ways (450 GB/s, 3,600 Gbit/s, each way: `gpu=h100`'s default), and eight
/// ConnectX-7 adapters of up to 400 Gbit/s (NDR InfiniBand) for the compute fabric. The DGX
/// SuperPOD reference architecture (DGX H100) builds it in scalable units of 32 systems,
/// full fat tree, rail-optimised, drawn as in [`DGX_A100_SUPERPOD`]. The GPU is H100, so
/// ring efficiencies inside a server are NVLink4's and jobs take H100 compute times from
/// the model catalogue measured on H100.
const DGX_H100_POD: &str = "racks=4,servers=32,gpus=8,nics=8,nic_gbps=400,gpu=h100,rails=on";

/// A100 servers (eight on NVSwitch) with a single 100 Gbit/s RoCE NIC each, 16 servers a
/// rack, rack uplinks 16:1 oversubscribed: the low end of RDMA networks for A100 servers.
/// NVIDIA's per-NIC peak for a 100 Gbit/s NIC is 12 GB/s (NVIDIA/nccl-tests issue #119,
/// 2022-11-17), and A100 servers on 100 Gbit/s RoCE NICs appear in NVIDIA/nccl issue #495
/// (2021-04-16, eight NICs a server there). 16:1 is where issue 21 found placement to cost
/// most with one NIC per 8-GPU server: a choice to show contention, not a measured cluster.
const A100_ROCE_2048: &str = "racks=16,servers=16,gpus=8,nic_gbps=100,fabric=roce,oversub=16";

/// A rail-optimised pod like a DGX A100 unit (eight 200 Gbit/s NICs per server, one per GPU
/// rail, see [`DGX_A100_SUPERPOD`]) split over two racks of 10, each a rail group, whose
/// uplinks to the spine carry a quarter of their servers' NICs: the congested variant,
/// where placement across racks costs.
const RAIL_POD_OVERSUB: &str = "racks=2,servers=10,gpus=8,nics=8,oversub=4,rails=on";

/// The k-ary fat tree of Al-Fares, Loukissas and Vahdat, "A Scalable, Commodity Data Center
/// Network Architecture" (SIGCOMM 2008), for k = 8: 8 pods, each of k/2 = 4 edge switches
/// with k/2 = 4 hosts and k/2 aggregation switches, under (k/2)^2 core switches; every
/// level has full bisection. Proxima's trees draw a pod's aggregation switches as one
/// switch and the core as one, each link carrying the sum of the parallel links it stands
/// for, so every uplink carries all the NIC bandwidth below it. The hosts are the parametric
/// RDMA servers: eight A100 on NVSwitch with one 200 Gbit/s HDR NIC.
fn fat_tree_k8() -> TopologySpec {
    const K: u32 = 8;
    let host = ParametricSpec::parse("racks=1,servers=1,gpus=8").expect("a valid form").to_spec();
    let server = host.servers[0].clone();
    let nic = host.links[0].bandwidth_gbps;
    let latency = host.links[0].latency_us;
    let mut spec = TopologySpec {
        version: Some(TOPOLOGY_FORMAT_VERSION),
        name: "fat-tree-k8".into(),
        switches: vec![SwitchSpec { id: "core".into(), role: Some("core".into()) }],
        servers: Vec::new(),
        links: Vec::new(),
        collective: host.collective.clone(),
        gpu: host.gpu.clone(),
    };
    let half = K / 2;
    for pod in 0..K {
        let agg = format!("pod{pod}");
        spec.switches.push(SwitchSpec { id: agg.clone(), role: Some("agg".into()) });
        let pod_gbps = (half * half) as f64 * nic;
        spec.links.push(LinkSpec { a: agg.clone(), b: "core".into(), bandwidth_gbps: pod_gbps, latency_us: latency });
        for edge in 0..half {
            let tor = format!("p{pod}e{edge}");
            spec.switches.push(SwitchSpec { id: tor.clone(), role: Some("tor".into()) });
            spec.links.push(LinkSpec {
                a: tor.clone(),
                b: agg.clone(),
                bandwidth_gbps: half as f64 * nic,
                latency_us: latency,
            });
            for h in 0..half {
                let id = format!("p{pod}e{edge}h{h}");
                spec.servers.push(ServerSpec { id: id.clone(), ..server.clone() });
                spec.links.push(LinkSpec { a: id, b: tor.clone(), bandwidth_gbps: nic, latency_us: latency });
            }
        }
    }
    spec
}

/// Finds a preset by name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().chain(presets_sia::SIA_PRESETS).find(|p| p.name == name)
}

/// Every preset: the built-in clusters, then the Sia artifact's six calibrated clusters.
pub fn all_presets() -> impl Iterator<Item = &'static Preset> {
    PRESETS.iter().chain(presets_sia::SIA_PRESETS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm_params::CommParams;
    use crate::topology::{resolve_topology_arg, GpuId, Topology};

    fn topo(spec: &str) -> Topology {
        resolve_topology_arg(spec).unwrap()
    }

    #[test]
    fn presets_build() {
        for p in PRESETS {
            let t = Topology::from_spec(&p.spec()).unwrap();
            assert!(t.gpu_count() > 0, "{}", p.name);
            assert_eq!(t.name(), p.name);
        }
        assert_eq!(topo("oversub-2048").gpu_count(), 2048);
        // Parametric presets carry the efficiencies of the fabric they build: NVSwitch and
        // RDMA by default.
        assert_eq!(topo("teaching").comm_params(), &CommParams::rdma());
        // A description without a collective block keeps the calibrated default.
        let mut spec = topo("teaching").spec().clone();
        spec.collective = None;
        assert_eq!(Topology::from_spec(&spec).unwrap().comm_params(), &CommParams::default());
    }

    #[test]
    fn the_rdma_preset_has_one_nic_per_gpu() {
        let t = topo("rdma-2048");
        assert_eq!((t.gpu_count(), t.server_count(), t.gpu()), (2048, 256, Some("A100")));
        let server = t.node(t.servers()[0]);
        assert_eq!(server.nics, 8);
        // The server's link is its eight 200 Gbit/s NICs; a rack uplink carries 16 of them / 4.
        assert_eq!(t.link(server.uplink.unwrap()).bandwidth_gbps, 1600.0);
        let uplink = t.links().iter().find(|l| t.node(l.child).name == "tor0").unwrap();
        assert_eq!(uplink.bandwidth_gbps, 16.0 * 1600.0 / 4.0);
        assert_eq!(t.comm_params(), &CommParams::rdma());
        // The NIC count and the GPU survive export.
        let back = Topology::from_spec(&TopologySpec::from_json(&t.spec().to_json()).unwrap()).unwrap();
        assert_eq!((back.node(back.servers()[0]).nics, back.gpu()), (8, Some("A100")));
    }

    #[test]
    fn the_pollux_testbed_rings_run_at_the_calibrated_bandwidths() {
        let t = topo("pollux-testbed");
        assert_eq!((t.gpu_count(), t.server_count()), (64, 16));
        assert_eq!(t.tier_names(), &["server", "rack"]);
        let p = t.comm_params();
        let gpu = t.link(t.node(t.gpu_node(GpuId(0))).uplink.unwrap());
        let nic = t.link(t.node(t.servers()[0]).uplink.unwrap());
        assert!((p.intra_efficiency * gpu.bytes_per_s() - POLLUX_INTRA_BYTES_PER_S).abs() < 1.0);
        assert!((p.inter_efficiency * nic.bytes_per_s() - POLLUX_INTER_BYTES_PER_S).abs() < 1.0);
        assert_eq!(p.straggler, POLLUX_STRAGGLER);
        // A ring step between servers crosses two NIC links: 50 us.
        assert_eq!(t.latency_up(t.servers()[0], 2) + t.latency_up(t.servers()[1], 2), 50.0);
        // The collective block survives export.
        let back = TopologySpec::from_json(&t.spec().to_json()).unwrap();
        assert_eq!(Topology::from_spec(&back).unwrap().comm_params(), p);
    }

    #[test]
    fn the_machine_presets_have_their_vendors_numbers() {
        let uplink_of =
            |t: &Topology, name: &str| t.links().iter().find(|l| t.node(l.child).name == name).unwrap().bandwidth_gbps;
        // DGX A100 SuperPOD: 140 systems, 8 x 200 Gbit/s HDR each, rail groups, full bisection.
        let t = topo("dgx-a100-pod");
        assert_eq!((t.gpu_count(), t.server_count(), t.gpu()), (1120, 140, Some("A100")));
        let server = t.node(t.servers()[0]);
        assert_eq!((server.nics, t.link(server.uplink.unwrap()).bandwidth_gbps), (8, 1600.0));
        assert_eq!(uplink_of(&t, "rails0"), 20.0 * 1600.0);
        assert_eq!(t.spec().rail_count("rails6"), Some(8));
        // DGX H100: 8 x 400 Gbit/s NDR, 900 GB/s NVLink both ways (3,600 Gbit/s each way),
        // H100 ring efficiencies.
        let t = topo("dgx-h100-pod");
        assert_eq!((t.gpu_count(), t.server_count(), t.gpu()), (1024, 128, Some("H100")));
        let server = t.node(t.servers()[0]);
        assert_eq!(t.link(server.uplink.unwrap()).bandwidth_gbps, 3200.0);
        assert_eq!(t.spec().servers[0].nvlink_gbps, 3600.0);
        assert_eq!(t.comm_params(), &CommParams::h100_ib());
        assert_eq!((t.spec().rail_count("rails3"), uplink_of(&t, "rails3")), (Some(8), 32.0 * 3200.0));
        // The rail pod's rail groups carry a quarter of their ten servers' NICs to the spine.
        let t = topo("rail-pod-oversub");
        assert_eq!((t.gpu_count(), uplink_of(&t, "rails1")), (160, 10.0 * 1600.0 / 4.0));
        // The RoCE cluster: one 100 Gbit/s NIC per server, 16 of them over a 100 Gbit/s uplink.
        let t = topo("a100-roce-2048");
        let server = t.node(t.servers()[0]);
        assert_eq!((t.gpu_count(), server.nics, t.link(server.uplink.unwrap()).bandwidth_gbps), (2048, 1, 100.0));
        assert_eq!(uplink_of(&t, "tor15"), 100.0);
        assert_eq!(t.comm_params(), &CommParams::roce());
        assert!(t
            .describe_network()
            .contains("1 × 100 Gbit/s RoCE NIC per server, racks 16:1 oversubscribed (fabric=roce)"));
    }

    #[test]
    fn the_fat_tree_has_k_pods_and_full_bisection() {
        let t = topo("fat-tree-k8");
        // k^3/4 = 128 hosts of 8 GPUs, three switch tiers above the servers.
        assert_eq!((t.server_count(), t.gpu_count()), (128, 1024));
        assert_eq!(t.tier_names(), &["server", "rack", "pod", "cluster"]);
        let bw = |name: &str| t.links().iter().find(|l| t.node(l.child).name == name).unwrap().bandwidth_gbps;
        assert_eq!((bw("p0e0h0"), bw("p0e0"), bw("pod0")), (200.0, 800.0, 3200.0));
    }

    #[test]
    fn an_argument_that_is_neither_names_the_presets() {
        let e = resolve_topology_arg("cluster9").unwrap_err();
        assert_eq!(e.field, "topology");
        assert!(e.message.contains("teaching, n32g4"), "{e}");
        assert!(e.message.contains("rdma-2048"), "{e}");
        assert_eq!(resolve_topology_arg("racks=2,servers=2").unwrap_err().field, "gpus");
    }
}
