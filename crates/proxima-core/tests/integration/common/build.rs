//! Small clusters and workloads with round numbers, for tests whose answers are computed by
//! hand.

use proxima_core::cluster::JobId;
use proxima_core::comm_params::CommParams;
use proxima_core::model::{Catalog, ModelId, ModelProfile, Parallelism, Precision};
use proxima_core::scenario::Scenario;
use proxima_core::tenants::{TenantId, Tenants};
use proxima_core::time::SimTime;
use proxima_core::topology::{CollectiveSpec, LinkSpec, ServerSpec, SwitchSpec, Topology, TopologySpec};
use proxima_core::workload::{IdealPlacements, Job};

fn model(name: &str, params_millions: f64) -> ModelProfile {
    ModelProfile {
        name: name.into(),
        aliases: vec![],
        display: name.into(),
        params_millions,
        compute_s: 1.0,
        local_batch: 1,
        compute_curve: None,
        gpu: "test".into(),
        overlap: 0.0,
        source: "test".into(),
        max_local_batch: None,
        compute_points: Vec::new(),
        precision: Precision::Fp32,
        parallelism: Parallelism::DataParallel,
        estimate: None,
    }
}

/// One model: 1 s of compute per iteration, 1 GB of gradients (250 M fp32 parameters), no
/// overlap. Model 0 of [`two_models`] too.
pub fn unit_model() -> Catalog {
    Catalog::from_models(vec![model("unit", 250.0)])
}

/// Model 0 as in [`unit_model`], model 1 the same compute with 1 MB of gradients: it does
/// not care where it runs.
pub fn two_models() -> Catalog {
    Catalog::from_models(vec![model("unit", 250.0), model("tiny", 0.25)])
}

/// The communication parameters of hand-computed tests: every ring reaches line rate (so a
/// ring alone on its links gets their full bandwidth, and `n` rings get `C / n` each), and
/// no straggler wait. With the links' zero latency, every time is a few divisions.
pub fn textbook_comm() -> CommParams {
    CommParams::ideal()
}

/// `racks` racks of `servers` servers of `gpus` GPUs; NVLink 800 Gbit/s (100 GB/s), NICs
/// 80 Gbit/s (10 GB/s), uplinks `servers × 80 / oversub`, no latency anywhere; its
/// `collective` block states [`textbook_comm`].
pub fn cluster(racks: u32, servers: u32, gpus: u32, oversub: f64) -> Topology {
    let comm = textbook_comm();
    let collective = CollectiveSpec {
        intra_efficiency: Some(comm.intra_efficiency),
        inter_efficiency: Some(comm.inter_efficiency),
        straggler: Some(comm.straggler),
        server_compute: None,
        server_ring: None,
        source: Some("hand-computed tests".into()),
    };
    let mut spec = TopologySpec {
        version: None,
        name: "test".into(),
        switches: vec![],
        servers: vec![],
        links: vec![],
        collective: Some(collective),
        gpu: None,
    };
    if racks > 1 {
        spec.switches.push(SwitchSpec { id: "spine".into(), role: Some("spine".into()) });
    }
    for r in 0..racks {
        let tor = format!("tor{r}");
        spec.switches.push(SwitchSpec { id: tor.clone(), role: Some("tor".into()) });
        if racks > 1 {
            spec.links.push(LinkSpec {
                a: tor.clone(),
                b: "spine".into(),
                bandwidth_gbps: servers as f64 * 80.0 / oversub,
                latency_us: 0.0,
            });
        }
        for s in 0..servers {
            let id = format!("r{r}s{s}");
            spec.servers.push(ServerSpec { id: id.clone(), gpus, nvlink_gbps: 800.0, nvlink_latency_us: 0.0, nics: 1 });
            spec.links.push(LinkSpec { a: id, b: tor.clone(), bandwidth_gbps: 80.0, latency_us: 0.0 });
        }
    }
    Topology::from_spec(&spec).unwrap()
}

/// Jobs of the unit model: (submit s, GPUs, iterations).
pub fn scenario(topology: Topology, jobs: &[(f64, u32, f64)]) -> Scenario {
    let jobs: Vec<(f64, u32, f64, u16)> = jobs.iter().map(|&(s, g, i)| (s, g, i, 0)).collect();
    scenario_with(topology, unit_model(), &jobs)
}

/// Jobs (submit s, GPUs, iterations, model index) of any catalogue, timed with
/// [`textbook_comm`] whatever the topology says.
pub fn scenario_with(topology: Topology, catalog: Catalog, jobs: &[(f64, u32, f64, u16)]) -> Scenario {
    let comm = textbook_comm();
    let mut ideal = IdealPlacements::default();
    let jobs = jobs
        .iter()
        .enumerate()
        .map(|(i, &(submit, gpus, iterations, m))| Job {
            id: JobId(i as u32),
            name: format!("j{i}"),
            submit: SimTime::from_secs_f64(submit),
            gpus,
            model: ModelId(m),
            iterations,
            ideal_iter_s: ideal.get(&topology, gpus).map(|(_, s)| comm.iteration_time(catalog.get(ModelId(m)), &s)),
            line: 0,
            tenant: TenantId(0),
        })
        .collect();
    Scenario {
        topology,
        catalog,
        comm,
        jobs,
        seed: 0,
        trace_label: "test".into(),
        tenants: Tenants::default(),
        trace_skipped: Vec::new(),
    }
}
