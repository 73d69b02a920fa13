//! From a trace to the jobs a simulation runs.
//!
//! Resolution does four things, in this order:
//! 1. sorts jobs by submission time (stable, so ties keep file order), drops the first
//!    `skip` and keeps the next `limit` (a window of the trace);
//! 2. shifts time so that the first submission is at 0;
//! 3. gives every job without a model one drawn from the [`ModelMix`], with a generator
//!    seeded by the run's seed and the job's position in the trace's submission order (so
//!    taking a window never changes the models of the jobs in it);
//! 4. gives a job whose trace states its global batch size, of a model with a measured
//!    compute curve, the model as it runs at that batch ([`ModelProfile::for_batch`]: the
//!    per-GPU batch sets the compute time, with gradient accumulation beyond the largest
//!    per-GPU batch measured), added to the scenario's catalogue once per model, batch and
//!    GPU count;
//! 5. turns the trace's work into iterations: a measured duration is taken as the run time
//!    at the job's tightest feasible placement on this cluster with no contention, so
//!    `iterations = duration / ideal iteration time`;
//! 6. gives every job its tenant's id: the tenants of the kept jobs, their names sorted
//!    ([`crate::tenants`]), with equal quotas until [`crate::scenario::apply_tenant_spec`] sets
//!    others.

use crate::cluster::{ClusterState, JobId};
use crate::comm::{shape_of, PlacementShape};
use crate::comm_params::CommParams;
use crate::error::InputError;
use crate::model::{Catalog, ModelId, ModelProfile};
use crate::rng::Rng;
use crate::tenants::{TenantId, DEFAULT_TENANT};
use crate::time::SimTime;
use crate::topology::{GpuId, Tier, Topology};
use crate::trace::{Trace, TraceWork};
use serde::Serialize;
use std::collections::BTreeMap;

/// A job as the simulator runs it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Job {
    pub id: JobId,
    /// The trace's name for the job.
    pub name: String,
    pub submit: SimTime,
    pub gpus: u32,
    pub model: ModelId,
    /// Training iterations to run.
    pub iterations: f64,
    /// Seconds per iteration at the tightest feasible placement with no contention; `None`
    /// for a job larger than the cluster, which is rejected on arrival.
    pub ideal_iter_s: Option<f64>,
    /// The input line the job came from (0 when generated).
    pub line: u32,
    /// The tenant the job belongs to.
    pub tenant: TenantId,
}

impl Job {
    /// The run time at the tightest feasible placement with no contention.
    pub fn ideal_run_s(&self) -> Option<f64> {
        self.ideal_iter_s.map(|t| t * self.iterations)
    }
}

/// The models given to jobs whose trace does not name one, with their weights.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelMix {
    pub entries: Vec<(ModelId, f64)>,
}

/// The default mix: equal shares of eight models that span the range of network
/// sensitivity, from communication-bound (VGG-16, BERT, GPT-2) to compute-bound (ResNet-18,
/// Inception-v3, DeepSpeech2). The Philly trace does not record models; equal shares of a
/// spread are the assumption that hides least. A catalogue for one GPU type keeps those of
/// the eight that were measured on it.
pub const DEFAULT_MIX: &[&str] =
    &["resnet18", "resnet50", "vgg16", "inception3", "bert", "gpt2", "transformer", "deepspeech2"];

/// Mixes by name: `--mix llm` stands for its list. `llm` is the models of today in equal
/// shares: BERT-large and GPT-2 XL data parallel, LLaMA 7B and 13B sharded (FSDP), all in
/// bf16. No public trace of an LLM-era cluster records which model each job trains (the
/// Acme trace of Shanghai AI Lab's Seren and Kalos clusters names none), so equal shares of
/// a spread from 0.3 to 13 billion parameters are again the assumption that hides least.
/// The draw does not look at a job's size: a 1-GPU job may get a 13B model that would not
/// fit one GPU's memory, which the simulator, timing compute and exchange only, does not
/// check.
pub const NAMED_MIXES: &[(&str, &str)] = &[("llm", "bert-large:1,gpt2-xl:1,llama-7b:1,llama-13b:1")];

impl ModelMix {
    pub fn default_for(catalog: &Catalog) -> ModelMix {
        // Measured models only where the GPU has some, so that adding estimates to a GPU's
        // catalogue leaves its default runs as they were; its estimates where it has none.
        let named = || DEFAULT_MIX.iter().filter_map(|n| catalog.lookup(n));
        let mut entries: Vec<(ModelId, f64)> =
            named().filter(|&id| catalog.get(id).estimate.is_none()).map(|id| (id, 1.0)).collect();
        if entries.is_empty() {
            entries = named().map(|id| (id, 1.0)).collect();
        }
        if entries.is_empty() {
            entries = catalog.models().map(|(id, _)| (id, 1.0)).collect();
        }
        ModelMix { entries }
    }

    /// Parses `name[:weight],name[:weight],...`, e.g. `vgg16:2,resnet50:1`, or the name of
    /// a mix of [`NAMED_MIXES`], e.g. `llm`.
    pub fn parse(text: &str, catalog: &Catalog) -> Result<ModelMix, InputError> {
        let wanted = text.trim().to_ascii_lowercase();
        let text = NAMED_MIXES.iter().find(|(name, _)| *name == wanted).map_or(text, |&(_, list)| list);
        let mut entries = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, weight) = match part.split_once(':') {
                Some((n, w)) => {
                    let w: f64 = w
                        .trim()
                        .parse()
                        .map_err(|_| InputError::new("mix", format!("weight of '{n}' must be a number, got '{w}'")))?;
                    (n.trim(), w)
                }
                None => (part, 1.0),
            };
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(InputError::new("mix", format!("weight of '{name}' must be zero or positive")));
            }
            let id = catalog.lookup(name).ok_or_else(|| {
                InputError::new("mix", format!("unknown model '{name}' (known: {})", catalog.names().join(", ")))
            })?;
            entries.push((id, weight));
        }
        if entries.iter().all(|(_, w)| *w == 0.0) {
            return Err(InputError::new("mix", "needs at least one model with a positive weight"));
        }
        Ok(ModelMix { entries })
    }

    fn draw(&self, rng: &mut Rng) -> ModelId {
        let weights: Vec<f64> = self.entries.iter().map(|(_, w)| *w).collect();
        self.entries[rng.weighted_index(&weights)].0
    }
}

/// How to turn a trace into jobs.
#[derive(Clone, Debug)]
pub struct WorkloadOptions {
    pub seed: u64,
    /// Drop the first `skip` jobs by submission time.
    pub skip: u32,
    /// Then keep only the first `limit` jobs by submission time.
    pub limit: Option<u32>,
    /// The models of jobs whose trace names none, as ids of the built-in catalogue
    /// ([`Catalog::built_in`]); [`crate::scenario::Scenario::from_trace`] carries them over to the cluster's own.
    pub mix: ModelMix,
}

/// The stream of [`Rng::for_item`] used for model assignment.
/// ("model" in ASCII.)
const MODEL_STREAM: u64 = 0x6d_6f64_656c;

/// The tightest placement of `n` GPUs on an empty cluster, with its shape: the reference
/// against which slowdowns and communication overhead are measured. Cached per GPU count.
#[derive(Clone, Debug, Default)]
pub struct IdealPlacements {
    cache: BTreeMap<u32, Option<(Tier, PlacementShape)>>,
}

impl IdealPlacements {
    pub fn get(&mut self, topo: &Topology, n: u32) -> Option<(Tier, PlacementShape)> {
        *self.cache.entry(n).or_insert_with(|| ideal_placement(topo, n))
    }
}

/// The best placement of `n` GPUs on an empty cluster, and its tier: the one a job's ideal
/// run time is measured on.
pub fn ideal_placement(topo: &Topology, n: u32) -> Option<(Tier, PlacementShape)> {
    let empty = ClusterState::new(topo);
    let (tier, gpus) = empty.place_tightest(topo, n)?;
    // With one NIC per server the flat ring's time depends on the GPU count, the tier and
    // the slowest link crossed, not on how the GPUs split between servers: best fit's 4 + 2
    // costs what 3 + 3 would. With several NICs per server a ring drives as many as it has
    // GPUs on each, so the best placement splits the GPUs as evenly as it can.
    let multi_nic = topo.servers().iter().any(|&s| topo.node(s).nics > 1);
    let gpus = if multi_nic && tier > Tier::SERVER { balanced(topo, &empty, tier, n).unwrap_or(gpus) } else { gpus };
    Some((tier, uncontended_shape(topo, &gpus)))
}

/// `n` GPUs under the best-fitting node of `tier` on an empty cluster, on the fewest
/// servers (largest first) and as evenly split between them as their sizes allow.
fn balanced(topo: &Topology, empty: &ClusterState, tier: Tier, n: u32) -> Option<Vec<GpuId>> {
    let node = empty.best_fit_node(tier, n)?;
    let first = topo.node(node).first_gpu;
    let last = first + topo.node(node).gpu_count;
    let mut servers: Vec<_> =
        topo.servers().iter().copied().filter(|&s| (first..last).contains(&topo.node(s).first_gpu)).collect();
    servers.sort_by_key(|&s| std::cmp::Reverse(topo.node(s).gpu_count));
    let mut m = 0;
    let mut capacity = 0;
    while capacity < n && m < servers.len() {
        capacity += topo.node(servers[m]).gpu_count;
        m += 1;
    }
    let servers = &servers[..m];
    // Water-fill: every server gets the same share, a small server what it holds, and the
    // rest is spread over the others one GPU at a time.
    let mut take = vec![0u32; m];
    let mut left = n;
    while left > 0 {
        let open: Vec<usize> = (0..m).filter(|&i| take[i] < topo.node(servers[i]).gpu_count).collect();
        let share = (left / open.len() as u32).max(1);
        for i in open {
            let add = share.min(topo.node(servers[i]).gpu_count - take[i]).min(left);
            take[i] += add;
            left -= add;
        }
    }
    let mut gpus: Vec<GpuId> = servers
        .iter()
        .zip(&take)
        .flat_map(|(&s, &k)| (topo.node(s).first_gpu..topo.node(s).first_gpu + k).map(GpuId))
        .collect();
    gpus.sort_unstable();
    Some(gpus)
}

/// The shape of a placement with no other job on its links.
pub fn uncontended_shape(topo: &Topology, gpus: &[GpuId]) -> PlacementShape {
    let mut servers: Vec<_> = gpus.iter().map(|&g| topo.server_of(g)).collect();
    servers.dedup();
    let mut links = Vec::new();
    topo.inter_server_links(&servers, &mut links);
    shape_of(topo, gpus, &links)
}

/// Resolves a trace into jobs sorted by submission time. Errors name the trace line. Jobs
/// that run a model at their own batch size get their profile added to `catalog`.
pub fn resolve(
    trace: &Trace,
    topo: &Topology,
    catalog: &mut Catalog,
    comm: &CommParams,
    options: &WorkloadOptions,
) -> Result<Vec<Job>, InputError> {
    resolve_with_tenants(trace, topo, catalog, comm, options).map(|(jobs, _)| jobs)
}

/// The tenant name of a trace job.
pub fn tenant_name(job: &crate::trace::TraceJob) -> &str {
    job.tenant.as_deref().unwrap_or(DEFAULT_TENANT)
}

/// [`resolve`], and the names of the jobs' tenants in [`TenantId`] order.
pub fn resolve_with_tenants(
    trace: &Trace,
    topo: &Topology,
    catalog: &mut Catalog,
    comm: &CommParams,
    options: &WorkloadOptions,
) -> Result<(Vec<Job>, Vec<String>), InputError> {
    let mut order: Vec<u32> = (0..trace.jobs.len() as u32).collect();
    order.sort_by(|&a, &b| trace.jobs[a as usize].submit_s.total_cmp(&trace.jobs[b as usize].submit_s));
    order.drain(..(options.skip as usize).min(order.len()));
    if let Some(limit) = options.limit {
        order.truncate(limit as usize);
    }
    let origin = order.first().map(|&i| trace.jobs[i as usize].submit_s).unwrap_or(0.0);
    let tenant_names: Vec<String> = order
        .iter()
        .map(|&i| tenant_name(&trace.jobs[i as usize]))
        .collect::<std::collections::BTreeSet<&str>>()
        .into_iter()
        .map(str::to_string)
        .collect();
    let tenant_of = |name: &str| {
        TenantId(tenant_names.binary_search_by(|n| n.as_str().cmp(name)).expect("every kept job's tenant") as u32)
    };
    let mut ideal = IdealPlacements::default();
    let mut at_batch: BTreeMap<(ModelId, u32, u32), ModelId> = BTreeMap::new();
    let mut jobs = Vec::with_capacity(order.len());
    for (position, &i) in order.iter().enumerate() {
        let tj = &trace.jobs[i as usize];
        let model = match &tj.model {
            Some(name) => {
                catalog.lookup(name).ok_or_else(|| InputError::at_line(tj.line, "model", catalog.why_missing(name)))?
            }
            None => {
                let index = options.skip as u64 + position as u64;
                options.mix.draw(&mut Rng::for_item(options.seed, MODEL_STREAM, index))
            }
        };
        let model = match tj.batch {
            Some(batch) => *at_batch.entry((model, batch, tj.gpus)).or_insert_with(|| {
                match catalog.get(model).for_batch(batch, tj.gpus) {
                    Some(profile) => catalog.add(profile),
                    None => model,
                }
            }),
            None => model,
        };
        let profile: &ModelProfile = catalog.get(model);
        let ideal_iter_s = ideal.get(topo, tj.gpus).map(|(_, shape)| comm.iteration_time(profile, &shape));
        let iterations = match tj.work {
            TraceWork::Iterations(n) => n,
            // A job too big for the cluster never runs; keep its duration in compute-time
            // units so the number stays meaningful in the jobs table.
            TraceWork::DurationS(d) => d / ideal_iter_s.unwrap_or(profile.compute_s),
        };
        jobs.push(Job {
            id: JobId(position as u32),
            name: tj.name.clone(),
            submit: SimTime::from_secs_f64(tj.submit_s - origin),
            gpus: tj.gpus,
            model,
            iterations,
            ideal_iter_s,
            line: tj.line,
            tenant: tenant_of(tenant_name(tj)),
        });
    }
    Ok((jobs, tenant_names))
}

/// Each tenant's GPU-time demand: the sum over its jobs of GPUs × ideal run time, in
/// GPU-seconds (jobs larger than the cluster count nothing).
pub fn tenant_demand(jobs: &[Job], tenants: usize) -> Vec<f64> {
    let mut demand = vec![0.0; tenants];
    for j in jobs {
        if let (Some(d), Some(run)) = (demand.get_mut(j.tenant.0 as usize), j.ideal_run_s()) {
            *d += j.gpus as f64 * run;
        }
    }
    demand
}

/// Carries a mix of built-in models over to `catalog`: the default mix becomes the
/// catalogue's default; a mix someone chose must name models the catalogue has. (Public
/// so that the web page checks a typed mix against the cluster's GPU as a run will.)
pub fn mix_for(mix: &ModelMix, catalog: &Catalog) -> Result<ModelMix, InputError> {
    let built_in = Catalog::built_in();
    if catalog.gpu().is_none() {
        return Ok(mix.clone());
    }
    if *mix == ModelMix::default_for(&built_in) {
        return Ok(ModelMix::default_for(catalog));
    }
    let entries = mix
        .entries
        .iter()
        .map(|&(id, w)| {
            let name = &built_in.get(id).name;
            catalog.lookup(name).map(|id| (id, w)).ok_or_else(|| InputError::new("mix", catalog.why_missing(name)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ModelMix { entries })
}

/// How far past the rest of the trace a submission must lie to be warned of: this many
/// times the 99th percentile of the submit times (or of a day, whichever is later).
pub const SUBMIT_OUTLIER_FACTOR: f64 = 10.0;

/// Jobs submitted far beyond the rest of the trace (`1e9` where the others are within a
/// week, most likely a typo), one warning each naming the job's line. They are kept, not
/// refused: the run is still valid, but its makespan (and so its utilisation) stretches to
/// reach them, so the front end shows these before the results.
pub fn submit_outliers(jobs: &[Job]) -> Vec<InputError> {
    let mut submits: Vec<f64> = jobs.iter().map(|j| j.submit.as_secs_f64()).collect();
    submits.sort_by(f64::total_cmp);
    let Some(last) = submits.len().checked_sub(1) else { return Vec::new() };
    let p99 = submits[(0.99 * last as f64).floor() as usize];
    let limit = SUBMIT_OUTLIER_FACTOR * p99.max(86_400.0);
    jobs.iter()
        .filter(|j| j.submit.as_secs_f64() > limit)
        .map(|j| {
            let submit = j.submit.as_secs_f64();
            let message = format!(
                "job {} is submitted at {} s, {} after 99% of the trace's jobs (all in by {} s; over {}x that): \
                 kept, but the run's makespan stretches to cover the gap; is the time a typo?",
                j.name,
                submit,
                gap_in_words(submit - p99),
                p99,
                SUBMIT_OUTLIER_FACTOR,
            );
            if j.line == 0 {
                InputError::new("submit", message)
            } else {
                InputError::at_line(j.line, "submit", message)
            }
        })
        .collect()
}

/// A long gap in the unit a person reads it in: `31.7 years`, `12.5 days`, `5.0 h`.
fn gap_in_words(s: f64) -> String {
    const YEAR_S: f64 = 365.25 * 86_400.0;
    if s >= YEAR_S {
        format!("{:.1} years", s / YEAR_S)
    } else if s >= 86_400.0 {
        format!("{:.1} days", s / 86_400.0)
    } else {
        format!("{:.1} h", s / 3_600.0)
    }
}

#[cfg(test)]
#[path = "workload_tests.rs"]
mod tests;
