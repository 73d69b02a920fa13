//! The built-in clusters (`proxima topologies` lists them) and the one function that turns
//! a preset name or a parametric form into a topology.

use super::build::Topology;
use super::parametric::ParametricSpec;
use super::spec::{CollectiveSpec, LinkSpec, ServerSpec, SwitchSpec, TopologySpec, TOPOLOGY_FORMAT_VERSION};
use crate::comm::{
    POLLUX_INTER_BYTES_PER_S, POLLUX_INTRA_BYTES_PER_S, POLLUX_NIC_GBPS, POLLUX_PCIE_GBPS, POLLUX_STRAGGLER,
};
use crate::error::InputError;

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
        description: "2,048 GPUs: 16 racks x 16 servers x 8 GPUs, full-bisection uplinks (uncongested)",
        spec: "racks=16,servers=16,gpus=8",
        build: None,
    },
    Preset {
        name: "oversub-2048",
        description: "2,048 GPUs: 16 racks x 16 servers x 8 GPUs, rack uplinks 4:1 oversubscribed (congested)",
        spec: "racks=16,servers=16,gpus=8,oversub=4",
        build: None,
    },
    Preset {
        name: "rdma-2048",
        description: "2,048 A100: 16 racks x 16 servers x 8 GPUs on NVSwitch, 8 x 200 Gbit/s InfiniBand NICs per server (one per GPU), rack uplinks 4:1 oversubscribed; fabric=rdma",
        spec: "racks=16,servers=16,gpus=8,nics=8,oversub=4",
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
            source: Some(
                "fitted to the Pollux placement measurements (petuum/adaptdl osdi21-artifact, simulator/traces/*/placements.csv); docs/CALIBRATION.md"
                    .into(),
            ),
        }),
        gpu: Some(crate::model::FITTED_GPU.into()),
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

/// Finds a preset by name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// Builds a topology from any of the accepted forms except a file: a preset name or a
/// parametric spec. (A JSON file's text goes to [`TopologySpec::from_json`].)
pub fn resolve_topology_arg(arg: &str) -> Result<Topology, InputError> {
    if let Some(p) = preset(arg) {
        return Topology::from_spec(&p.spec());
    }
    if arg.contains('=') {
        let spec = ParametricSpec::parse(arg)?.to_spec();
        return Topology::from_spec(&spec);
    }
    let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    Err(InputError::new(
        "topology",
        format!(
            "'{arg}' is neither a preset ({}), a parametric spec (racks=R,servers=S,gpus=G[,...]) nor a JSON file",
            names.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::CommParams;
    use crate::topology::GpuId;

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
    fn an_argument_that_is_neither_names_the_presets() {
        let e = resolve_topology_arg("cluster9").unwrap_err();
        assert_eq!(e.field, "topology");
        assert!(e.message.contains("teaching, n32g4"), "{e}");
        assert!(e.message.contains("rdma-2048"), "{e}");
        assert_eq!(resolve_topology_arg("racks=2,servers=2").unwrap_err().field, "gpus");
    }
}
