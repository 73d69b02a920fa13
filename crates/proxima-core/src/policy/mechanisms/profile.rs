//! What a policy knows of how fast a job will run: a profile an operator could measure, not
//! the engine's own function (`profile=table`, the default), or that function for ablation
//! (`profile=exact`).
//!
//! The table holds, per model, GPU count and tier, what an operator measures on an idle
//! cluster with one representative placement spanning that tier (the placement
//! [`LevelProfile::shape`] describes, the fewest servers that hold the job): the iteration
//! time, the iteration time with the exchange switched off (its compute part), the time the
//! exchange alone takes and the bandwidth its ring reached (what `nccl-tests` reports), and
//! from the three times the share of compute that hides exchange. It is measured once per
//! run, from the topology and the catalogue, with the communication model on an idle
//! network: that is the calibration an operator does with a few placements per model
//! (`proxima-lab`'s `calibrate`), not a look at any job's live truth.
//!
//! The live load enters only through what a scheduler can observe: the link-share counters
//! of the cluster state. For a placement the policy could make now, the rate a new ring
//! would get on the links it would cross ([`crate::cluster::ClusterState::estimate_new_ring`]);
//! for a representative placement at a tier where nothing is free, the rate a ring gets on a
//! link of each level carrying that level's mean number of rings. When that rate is below the
//! measured one, the measured exchange is stretched by their ratio and what the backward pass
//! cannot hide of it is added to the compute part: linear in the load, which misses that
//! latency does not stretch, and prices a placement of the tier with more servers than the
//! representative one as the representative.
//!
//! `profile_error=E` multiplies each job's predicted communication part by a factor drawn
//! uniformly from `[1 − E, 1 + E]`, fixed per job: a hash of the job's id and the run's seed,
//! never a shared random stream, so the same run gives the same results.

use super::levels::LevelProfile;
use crate::cluster::JobId;
use crate::comm::{combine, server_factor, step_time, straggler_growth};
use crate::comm_params::CommParams;
use crate::error::InputError;
use crate::model::{ModelId, ModelProfile};
use crate::policy::{PolicySpec, View};
use crate::rng::Rng;
use crate::topology::{GpuId, NodeId, Tier};
use std::collections::BTreeMap;

/// Where a policy's predictions come from (`profile=table|exact`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileSource {
    /// The measured table, stretched by observed link shares (the default).
    Table,
    /// The engine's communication model with every link's live load: the truth, for
    /// ablation only.
    Exact,
}

impl ProfileSource {
    pub fn name(self) -> &'static str {
        match self {
            ProfileSource::Table => "table",
            ProfileSource::Exact => "exact",
        }
    }
}

/// The profile options every policy that predicts slowdowns takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileOptions {
    pub source: ProfileSource,
    /// Half-width of each job's multiplicative error on its communication part, in `[0, 1)`.
    pub error: f64,
}

impl Default for ProfileOptions {
    fn default() -> ProfileOptions {
        ProfileOptions { source: ProfileSource::Table, error: 0.0 }
    }
}

impl ProfileOptions {
    /// Reads `profile=table|exact` and `profile_error=E` from a spec.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<ProfileOptions, InputError> {
        let source = match spec.take("profile").as_deref() {
            None | Some("table") => ProfileSource::Table,
            Some("exact") => ProfileSource::Exact,
            Some(other) => return Err(InputError::new("profile", format!("expected table or exact, got '{other}'"))),
        };
        let error = spec.take_f64("profile_error", 0.0, 0.0)?;
        if error >= 1.0 {
            return Err(InputError::new("profile_error", format!("expected a number in [0, 1), got '{error}'")));
        }
        if error > 0.0 && source == ProfileSource::Exact {
            return Err(InputError::new("profile_error", "applies only with profile=table: exact is the engine's own"));
        }
        Ok(ProfileOptions { source, error })
    }

    /// The options as a canonical spec prints them.
    pub fn spec_part(&self) -> String {
        format!("profile={},profile_error={}", self.source.name(), self.error)
    }
}

/// One row of the table: a model on some GPUs spanning one tier, measured on an idle cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Seconds per iteration.
    pub iter_s: f64,
    /// Seconds per iteration with the exchange switched off.
    pub compute_s: f64,
    /// Seconds the exchange alone takes (an all-reduce of the model's gradients at the rate
    /// the ring reached, as `nccl-tests` measures it).
    pub sync_s: f64,
    /// The share of the compute time that can hide exchange: what the iteration time shows
    /// against compute plus exchange.
    pub overlap: f64,
    /// The rate the ring reached, bytes/s (infinite on one server).
    pub ring_bytes_per_s: f64,
}

impl Measured {
    /// Measures `model` on `gpus` GPUs on the representative placement spanning `tier`, idle.
    pub fn measure(
        levels: &LevelProfile,
        comm: &CommParams,
        model: &ModelProfile,
        gpus: u32,
        tier: Tier,
    ) -> Option<Measured> {
        let shape = levels.shape(gpus, tier, None)?;
        let compute = model.compute_s * server_factor(shape.max_per_server, comm.server_compute);
        Some(Measured {
            iter_s: comm.iteration_time(model, &shape),
            compute_s: step_time(compute, straggler_growth(shape.gpus), comm.straggler, 0.0, model.overlap),
            sync_s: comm.sync_time(model, &shape),
            overlap: model.overlap,
            ring_bytes_per_s: comm.ring_bytes_per_s(&shape),
        })
    }

    /// Predicted seconds per iteration when the ring gets `rate` bytes/s and the exchange
    /// is off by the factor `error`: the measured exchange stretched by how much slower the
    /// ring runs than measured, of which the backward pass hides what it hid when measured
    /// (up to `overlap` × compute), the compute part as measured.
    pub fn predict(&self, rate: f64, error: f64) -> f64 {
        let stretch = if rate < self.ring_bytes_per_s { self.ring_bytes_per_s / rate } else { 1.0 };
        combine(self.compute_s, self.sync_s * stretch * error, self.overlap)
    }
}

/// A policy's source of predicted iteration times, built at its first decision.
#[derive(Clone, Debug)]
pub struct Profile {
    options: ProfileOptions,
    levels: LevelProfile,
    table: BTreeMap<(ModelId, u32, u8), Measured>,
    seed: u64,
}

impl Profile {
    /// Measures the table for every model and GPU count of the run's jobs at every tier
    /// that can hold them (nothing under `profile=exact`).
    pub fn new(options: ProfileOptions, view: &View) -> Profile {
        let levels = LevelProfile::new(view.topo);
        let mut table = BTreeMap::new();
        if options.source == ProfileSource::Table {
            for j in view.jobs {
                for t in 0..view.topo.tier_count() {
                    if table.contains_key(&(j.model, j.gpus, t)) {
                        continue;
                    }
                    let model = view.catalog.get(j.model);
                    if let Some(m) = Measured::measure(&levels, view.comm, model, j.gpus, Tier(t)) {
                        table.insert((j.model, j.gpus, t), m);
                    }
                }
            }
        }
        Profile { options, levels, table, seed: view.seed }
    }

    pub fn options(&self) -> ProfileOptions {
        self.options
    }

    /// The cluster's links per level, for representative placements.
    pub fn levels(&self) -> &LevelProfile {
        &self.levels
    }

    /// The table's row for `job`'s model and size at `tier`; measured on the spot for a job
    /// the table was not built with (the same measurement, so the same value).
    fn row(&self, view: &View, job: JobId, tier: Tier) -> Option<Measured> {
        let j = view.job(job);
        match self.table.get(&(j.model, j.gpus, tier.0)) {
            Some(m) => Some(*m),
            None => Measured::measure(&self.levels, view.comm, view.catalog.get(j.model), j.gpus, tier),
        }
    }

    /// The factor `job`'s predicted communication part is off by: uniform in
    /// `[1 − E, 1 + E]`, from a hash of the job's id and the run's seed; exactly 1 when `E`
    /// is 0.
    pub fn error_of(&self, job: JobId) -> f64 {
        if self.options.error == 0.0 {
            return 1.0;
        }
        const PROFILE_ERROR_STREAM: u64 = 0x0050_524f_4649_4c45; // "PROFILE" in ASCII
        let u = Rng::for_item(self.seed, PROFILE_ERROR_STREAM, job.0 as u64).next_f64();
        1.0 + self.options.error * (2.0 * u - 1.0)
    }

    /// Seconds per iteration `job` is predicted to run at if it started on `gpus` now.
    pub fn iter_s(&self, view: &View, job: JobId, gpus: &[GpuId]) -> f64 {
        if self.options.source == ProfileSource::Exact {
            return view.estimate_iter_s(job, gpus);
        }
        // A placement the cluster offers spans a tier that holds it, so the row exists.
        let Some(row) = self.row(view, job, view.topo.tier_of(gpus)) else { return f64::INFINITY };
        let mut servers: Vec<NodeId> = gpus.iter().map(|&g| view.topo.server_of(g)).collect();
        servers.dedup();
        let mut links = Vec::new();
        view.topo.inter_server_links(&servers, &mut links);
        let rate = view.cluster.estimate_new_ring(&links, row.ring_bytes_per_s);
        row.predict(rate, self.error_of(job))
    }

    /// How many times slower than ideal `job` is predicted to run on `gpus` now (1 for a job
    /// without an ideal time, as [`View::estimate_slowdown`] says).
    pub fn slowdown(&self, view: &View, job: JobId, gpus: &[GpuId]) -> f64 {
        match view.job(job).ideal_iter_s {
            Some(ideal) if ideal > 0.0 => self.iter_s(view, job, gpus) / ideal,
            _ => 1.0,
        }
    }

    /// Seconds per iteration `job` is predicted to run at on a representative placement
    /// spanning `tier`, its links loaded as the cluster loads them on average now; `None`
    /// when the tier cannot hold the job.
    pub fn representative_iter_s(&self, view: &View, job: JobId, tier: Tier) -> Option<f64> {
        let j = view.job(job);
        let shape = self.levels.shape(j.gpus, tier, Some(view.cluster))?;
        match self.options.source {
            ProfileSource::Exact => Some(view.comm.iteration_time(view.catalog.get(j.model), &shape)),
            ProfileSource::Table => {
                let row = self.row(view, job, tier)?;
                Some(row.predict(shape.net_share_bytes_per_s, self.error_of(job)))
            }
        }
    }

    /// The rate beyond which a link is as good as idle to `job` at `tier`: what its hosts
    /// can drive (exact), or what its ring reached when measured (table).
    pub fn ring_cap(&self, view: &View, job: JobId, tier: Tier) -> f64 {
        let n = view.job(job).gpus;
        let cap = match self.options.source {
            ProfileSource::Exact => self.levels.shape(n, tier, None).map(|s| view.comm.ring_cap(&s)),
            ProfileSource::Table => self.row(view, job, tier).map(|m| m.ring_bytes_per_s),
        };
        cap.unwrap_or(f64::INFINITY)
    }
}

#[cfg(test)]
#[path = "profile_tests.rs"]
mod tests;
