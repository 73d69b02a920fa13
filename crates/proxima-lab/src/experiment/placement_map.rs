//! The map of when placement matters: for each model (as it is trained: its exchange
//! precision and its parallelism) and each network (NICs per server, rack
//! oversubscription), how much slower a job runs on its worst placement than on its best,
//! alone on an idle cluster; and, per network, what that does to a whole LLM-era workload
//! under `consolidate`, `random` and `dally`.
//!
//! The cluster is a parametric one of 8-GPU servers (`racks=4,servers=4,gpus=8` by
//! default, 128 GPUs) whose fabric and GPU give the collective efficiencies and the model
//! catalogue. A job's best placement is the one its ideal run time is measured on (the
//! tightest, split evenly over NICs: [`proxima_core::workload::ideal_placement`]); its worst is
//! the slowest of three spread placements: one GPU per server, round robin over the racks;
//! whole servers, one per rack in turn; and half servers, round robin over the racks. The
//! slowdown is the ratio of their iteration times, so compute-bound models read 1.00.
//!
//! A model's precision here is the precision of what it exchanges ([`Precision`]); its
//! compute time stays the catalogue's, so the map isolates what the network costs.
//! Data parallelism keeps a full copy of the model and its Adam state on every GPU, 16
//! bytes a parameter in mixed precision (ZeRO, Rajbhandari et al. 2020, §3.1): a model
//! whose copy exceeds the GPU's 80 GB is shown only sharded (FSDP).

use proxima_core::error::InputError;
use proxima_core::error::SourcedError;
use proxima_core::inputs::{build_scenario, ArgumentNames, ScenarioInput, TopologyInput, TraceInput};
use proxima_core::model::{Catalog, ModelProfile, Parallelism, Precision};
use proxima_core::session::{parse_policies, PolicyNames, Problem, Session};
use proxima_core::topology::{resolve_topology_arg, GpuId, Topology};
use proxima_core::workload::{ideal_placement, uncontended_shape};
use serde::Serialize;

/// Memory of one GPU of the A100 80GB and H100 80GB kind, bytes.
const GPU_MEMORY_BYTES: f64 = 80.0e9;
/// Bytes a data-parallel replica holds per parameter with Adam in mixed precision: fp16
/// parameters and gradients (2 + 2) and fp32 master weights, momentum and variance
/// (4 + 4 + 4). ZeRO, §3.1.
const DATA_PARALLEL_BYTES_PER_PARAM: f64 = 16.0;

/// What the map is drawn for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapSpec {
    /// The GPU: `A100` or `H100` (its catalogue and NVLink).
    pub gpu: String,
    /// The parametric form's fabric (`ib`, `roce` or `tcp`).
    pub fabric: String,
    pub racks: u32,
    pub servers_per_rack: u32,
    pub gpus_per_server: u32,
    /// The job whose placements are compared.
    pub job_gpus: u32,
    pub nic_gbps: f64,
    /// NICs per server, one column group each.
    pub nics: Vec<u32>,
    /// Rack uplink oversubscription, one column each within a group.
    pub oversubs: Vec<f64>,
    /// The workload of the JCT rows: jobs of a synthetic trace, the `llm` mix.
    pub jobs: u32,
    /// The workload's offered load (the synthetic trace's `load`).
    pub load: f64,
    /// Seeds of the JCT rows (each redraws the trace and the models).
    pub seeds: Vec<u64>,
}

impl Default for MapSpec {
    fn default() -> Self {
        MapSpec {
            gpu: "A100".into(),
            fabric: "ib".into(),
            racks: 4,
            servers_per_rack: 4,
            gpus_per_server: 8,
            job_gpus: 16,
            nic_gbps: 200.0,
            nics: vec![1, 2, 4, 8],
            oversubs: vec![1.0, 4.0, 16.0],
            jobs: 300,
            load: 0.8,
            seeds: vec![1, 2, 3],
        }
    }
}

/// A network of the map: its NICs, oversubscription and parametric form.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapNetwork {
    pub nics: u32,
    pub oversub: f64,
    pub topology: String,
}

/// A model as trained: one row of the map.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapModel {
    pub name: String,
    pub display: String,
    pub precision: Precision,
    pub parallelism: Parallelism,
    /// Worst ÷ best iteration time, per network.
    pub slowdown: Vec<f64>,
}

impl MapModel {
    /// `LLaMA 7B, bf16, FSDP (ZeRO-3)`.
    pub fn label(&self) -> String {
        format!("{}, {}, {}", self.display, self.precision.label(), self.parallelism.label())
    }
}

/// Mean JCT of one policy per network, over the seeds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapPolicy {
    pub policy: String,
    pub mean_jct_s: Vec<f64>,
}

/// The map.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlacementMap {
    pub spec: MapSpec,
    pub networks: Vec<MapNetwork>,
    pub models: Vec<MapModel>,
    /// `consolidate`, `random`, `dally` on the LLM-era workload.
    pub policies: Vec<MapPolicy>,
    /// The workload of the JCT rows, as the CLI would name it.
    pub workload: String,
}

/// The policies compared on the workload.
pub const MAP_POLICIES: [&str; 3] = ["consolidate", "random", "dally"];

impl MapSpec {
    fn networks(&self) -> Vec<MapNetwork> {
        let mut out = Vec::new();
        for &nics in &self.nics {
            for &oversub in &self.oversubs {
                let gpu =
                    if self.gpu.eq_ignore_ascii_case("A100") { String::new() } else { format!(",gpu={}", self.gpu) };
                let topology = format!(
                    "racks={},servers={},gpus={},oversub={oversub},nic_gbps={},nics={nics},fabric={}{gpu}",
                    self.racks, self.servers_per_rack, self.gpus_per_server, self.nic_gbps, self.fabric
                );
                out.push(MapNetwork { nics, oversub, topology });
            }
        }
        out
    }

    /// The synthetic trace of the JCT rows.
    fn trace(&self) -> String {
        format!("synthetic:jobs={},load={}", self.jobs, self.load)
    }
}

/// Computes the map. Errors name what in the spec is wrong (a network the parametric form
/// refuses, a GPU without a catalogue, a job larger than the cluster).
pub fn placement_map(spec: &MapSpec) -> Result<PlacementMap, SourcedError> {
    let networks = spec.networks();
    let topologies: Vec<Topology> = networks
        .iter()
        .map(|n| resolve_topology_arg(&n.topology).map_err(|e| SourcedError::new("topology", e)))
        .collect::<Result<_, _>>()?;
    let catalog = Catalog::for_gpu_or_built_in(topologies[0].gpu()).map_err(|e| SourcedError::new("gpu", e))?;
    let mut models = Vec::new();
    for (_, m) in catalog.models() {
        for variant in variants(m) {
            let slowdown = topologies
                .iter()
                .map(|t| worst_over_best(t, &variant, spec.job_gpus))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| SourcedError::new("job_gpus", e))?;
            models.push(MapModel {
                name: variant.name.clone(),
                display: variant.display.clone(),
                precision: variant.precision,
                parallelism: variant.parallelism,
                slowdown,
            });
        }
    }
    // Per network, one scenario per seed, run under every policy.
    let mut means = vec![Vec::with_capacity(networks.len()); MAP_POLICIES.len()];
    for n in &networks {
        for (i, jct) in mean_jcts(spec, &n.topology)?.into_iter().enumerate() {
            means[i].push(jct);
        }
    }
    let policies =
        MAP_POLICIES.iter().zip(means).map(|(p, mean_jct_s)| MapPolicy { policy: p.to_string(), mean_jct_s }).collect();
    Ok(PlacementMap {
        spec: spec.clone(),
        networks,
        models,
        policies,
        workload: format!("{}, --mix llm", spec.trace()),
    })
}

/// Models below this many parameters are not trained sharded in practice: their full
/// copy and its optimizer state take a few gigabytes.
const SHARDED_FROM_PARAMS_MILLIONS: f64 = 1000.0;

/// The ways a catalogue model may be trained: each exchange precision, data parallel when
/// a full copy fits a GPU, and sharded for models of a billion parameters and more. The
/// catalogued way comes first.
fn variants(m: &ModelProfile) -> Vec<ModelProfile> {
    let fits = m.params_millions * 1e6 * DATA_PARALLEL_BYTES_PER_PARAM <= GPU_MEMORY_BYTES;
    let shardable = m.params_millions >= SHARDED_FROM_PARAMS_MILLIONS;
    let mut out = vec![m.clone()];
    for precision in [Precision::Fp32, Precision::Bf16] {
        for parallelism in [Parallelism::DataParallel, Parallelism::Fsdp] {
            let sensible = match parallelism {
                Parallelism::DataParallel => fits,
                Parallelism::Fsdp => shardable,
            };
            if (precision, parallelism) == (m.precision, m.parallelism) || !sensible {
                continue;
            }
            // The overlap as the model's parallelism sets it, from its data-parallel one.
            let dp_overlap = m.parallelism.data_parallel_overlap(m.overlap);
            out.push(ModelProfile {
                precision,
                parallelism,
                overlap: parallelism.overlap_from(dp_overlap),
                ..m.clone()
            });
        }
    }
    out
}

/// Iteration time on the worst of the spread placements over that on the best.
fn worst_over_best(topo: &Topology, model: &ModelProfile, n: u32) -> Result<f64, InputError> {
    let too_big = || InputError::new("job_gpus", format!("a job of {n} GPUs does not fit the cluster"));
    let (_, best) = ideal_placement(topo, n).ok_or_else(too_big)?;
    let comm = topo.comm_params();
    let time = |shape: &proxima_core::comm::PlacementShape| comm.iteration_time(model, shape);
    let best_s = time(&best);
    let worst_s =
        spread_placements(topo, n).iter().map(|gpus| time(&uncontended_shape(topo, gpus))).fold(best_s, f64::max);
    Ok(worst_s / best_s)
}

/// Spread placements of `n` GPUs: `per_server` GPUs on each of as many servers as it
/// takes, the servers taken round robin over the racks, for one GPU per server, half a
/// server and a whole server.
fn spread_placements(topo: &Topology, n: u32) -> Vec<Vec<GpuId>> {
    let racks = topo.tier_nodes(proxima_core::topology::Tier(1.min(topo.top_tier().0)));
    let servers_by_rack: Vec<Vec<proxima_core::topology::NodeId>> = racks
        .iter()
        .map(|&r| topo.servers().iter().copied().filter(|&s| topo.common_ancestor(s, r) == r).collect())
        .collect();
    let width = topo.node(topo.servers()[0]).gpu_count;
    let mut out = Vec::new();
    for per_server in [1, (width / 2).max(1), width] {
        let mut gpus = Vec::new();
        let mut round = 0;
        'fill: while (gpus.len() as u32) < n {
            let mut took = false;
            for rack in &servers_by_rack {
                let Some(&s) = rack.get(round) else { continue };
                took = true;
                let first = topo.node(s).first_gpu;
                for g in first..first + per_server.min(topo.node(s).gpu_count) {
                    gpus.push(GpuId(g));
                    if gpus.len() as u32 == n {
                        break 'fill;
                    }
                }
            }
            if !took {
                break;
            }
            round += 1;
        }
        if gpus.len() as u32 == n {
            gpus.sort_unstable();
            out.push(gpus);
        }
    }
    out
}

/// Mean JCT of each of [`MAP_POLICIES`] on the map's workload on `topology`, over the
/// seeds, through a session (`proxima_core::session`): the policies parsed once, each
/// seed's scenario built once, every policy checked against its cluster, then run.
fn mean_jcts(spec: &MapSpec, topology: &str) -> Result<Vec<f64>, SourcedError> {
    let named = |p: Problem| p.sourced(PolicyNames::Argument(ArgumentNames::Words));
    let policies = parse_policies(&MAP_POLICIES).map_err(named)?;
    let mut sums = vec![0.0; MAP_POLICIES.len()];
    for &seed in &spec.seeds {
        let mut input =
            ScenarioInput::new(TopologyInput::Argument(topology.into()), TraceInput::Synthetic(spec.trace()), seed);
        input.mix = Some("llm".into());
        let session = Session::new(build_scenario(&input)?, policies.clone()).map_err(named)?;
        for (index, sum) in sums.iter_mut().enumerate() {
            *sum += session.simulation(index).run().avg_jct_s;
        }
    }
    Ok(sums.into_iter().map(|s| s / spec.seeds.len().max(1) as f64).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> MapSpec {
        MapSpec { nics: vec![1, 8], oversubs: vec![1.0, 16.0], jobs: 120, seeds: vec![1], ..MapSpec::default() }
    }

    #[test]
    fn spread_placements_cross_the_racks_and_keep_the_job_size() {
        let topo = resolve_topology_arg("racks=4,servers=8,gpus=8").unwrap();
        let spreads = spread_placements(&topo, 16);
        assert_eq!(spreads.len(), 3);
        for gpus in &spreads {
            assert_eq!(gpus.len(), 16);
            assert_eq!(topo.tier_of(gpus), topo.top_tier(), "every spread crosses the racks");
        }
        // One GPU per server: sixteen servers; whole servers: two.
        let servers = |g: &Vec<GpuId>| {
            let mut s: Vec<_> = g.iter().map(|&g| topo.server_of(g)).collect();
            s.dedup();
            s.len()
        };
        assert_eq!((servers(&spreads[0]), servers(&spreads[2])), (16, 2));
    }

    #[test]
    fn the_map_shows_llms_paying_on_a_thin_network_and_not_on_a_rich_one() {
        let map = placement_map(&small()).unwrap();
        assert_eq!(map.networks.len(), 4);
        let row = |name: &str, parallelism: Parallelism| {
            map.models.iter().find(|m| m.name == name && m.parallelism == parallelism && m.precision == Precision::Bf16)
        };
        let llama = row("llama-7b", Parallelism::Fsdp).expect("the 7B model is in the A100 map");
        assert!(row("llama-7b", Parallelism::DataParallel).is_none(), "7B does not fit data parallel in 80 GB");
        // Columns: (1 NIC, 1:1), (1 NIC, 16:1), (8 NICs, 1:1), (8 NICs, 16:1).
        assert!(llama.slowdown[1] > 2.0, "one NIC at 16:1: {:?}", llama.slowdown);
        assert!(llama.slowdown[2] < 1.1, "eight NICs at 1:1: {:?}", llama.slowdown);
        for m in &map.models {
            assert!(m.slowdown.iter().all(|&s| s >= 1.0), "{}: the best placement is best", m.label());
            assert!(m.slowdown[1] >= m.slowdown[0] - 1e-9, "{}: oversubscription never helps", m.label());
        }
        // bf16 halves what an fp32 model sends, so its worst placement costs less: GPT-2 XL
        // data parallel is 1.46x slower spread at one NIC and 16:1 in fp32, not at all in bf16.
        let gpt2 = |p: Precision| {
            map.models
                .iter()
                .find(|m| m.name == "gpt2-xl" && m.precision == p && m.parallelism == Parallelism::DataParallel)
        };
        assert!(gpt2(Precision::Fp32).unwrap().slowdown[1] > 1.3 * gpt2(Precision::Bf16).unwrap().slowdown[1]);
        // The workload (120 jobs, seed 1): random ÷ consolidate 1.11 on the thin network,
        // 1.000 on the rich one, where placement is free.
        let jct = |p: &str| &map.policies.iter().find(|q| q.policy == p).unwrap().mean_jct_s;
        assert!(jct("random")[1] > 1.08 * jct("consolidate")[1], "scattering costs on the thin network");
        assert!(jct("random")[2] < 1.01 * jct("consolidate")[2], "and nothing on the rich one");
    }

    #[test]
    fn a_job_larger_than_the_cluster_is_refused_by_name() {
        let spec = MapSpec { job_gpus: 4096, ..small() };
        assert_eq!(placement_map(&spec).unwrap_err().field, "job_gpus");
    }
}
