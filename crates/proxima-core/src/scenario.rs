//! A scenario: everything a run needs besides the policy (the cluster, the models, the jobs
//! and their tenants), and the life of each job during a run ([`JobRun`], [`JobStatus`]).
//!
//! These types sit in their own module, below the policies and the engine, because almost
//! everything reads them: the workload and the inputs build a [`Scenario`], the policies
//! read each job's [`JobRun`] through their view, the engine writes it, and the metrics and
//! fairness figures summarise it. Were they in `engine.rs`, which calls the policies, every
//! one of those modules would sit in a circle with the engine. `ARCHITECTURE.md` lists the
//! layers, and `tests/integration/layers.rs` checks them.
//!
//! Building one is here too ([`Scenario::from_trace`] from a topology and a parsed trace, and
//! [`apply_tenant_spec`] for the tenants' quotas): it puts the workload's jobs and the
//! tenants into a `Scenario`, so it sits above both, which no longer need this module.

use crate::comm_params::CommParams;
use crate::error::InputError;
use crate::model::Catalog;
use crate::tenants::{TenantSpec, Tenants};
use crate::time::SimTime;
use crate::topology::{GpuId, LinkId, Tier, Topology};
use crate::trace::Trace;
use crate::workload::{mix_for, resolve_with_tenants, tenant_demand, tenant_name, Job, WorkloadOptions};
use serde::Serialize;

/// Everything a run needs besides the policy: the cluster, the models and the jobs.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub topology: Topology,
    pub catalog: Catalog,
    pub comm: CommParams,
    /// Jobs sorted by submission time, `jobs[i].id == JobId(i)`.
    pub jobs: Vec<Job>,
    /// The seed the workload was resolved with (reported in the summary).
    pub seed: u64,
    /// Where the jobs came from, e.g. a file name or a synthetic spec (reported).
    pub trace_label: String,
    /// The tenants the jobs belong to, with their quotas.
    pub tenants: Tenants,
    /// The trace's rows that made no job (CPU-only jobs, jobs that never ran), for front
    /// ends to report: the run is right without them, but its user should know.
    pub trace_skipped: Vec<crate::trace::Skipped>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// Not submitted yet.
    Future,
    Queued,
    Running,
    Completed,
    /// Asked for more GPUs than the cluster has.
    Rejected,
}

/// The life of one job during a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobRun {
    pub status: JobStatus,
    /// GPUs held now (sorted), empty unless running.
    pub gpus: Vec<GpuId>,
    /// Tier of the current (or last) placement.
    pub tier: Option<Tier>,
    /// Inter-server links the job's ring crosses now.
    pub links: Vec<LinkId>,
    /// Seconds per iteration now.
    pub iter_s: f64,
    /// Iterations done as of `updated`.
    pub done: f64,
    pub updated: SimTime,
    /// Progress resumes at this time: after a restart the job first restores its checkpoint.
    pub resume_at: SimTime,
    /// Stale completion events carry an older epoch.
    pub epoch: u32,
    pub first_start: Option<SimTime>,
    pub last_start: SimTime,
    pub end: Option<SimTime>,
    /// When the job last joined the queue.
    pub enqueued_at: SimTime,
    /// Time spent queued, over all waits.
    pub queued_total: SimTime,
    /// Time spent holding GPUs, over all placements.
    pub run_total: SimTime,
    /// Of `run_total`, time spent restoring checkpoints.
    pub restore_total: SimTime,
    /// Checkpoint/restore cost to pay at the next start.
    pub pending_restore: SimTime,
    pub placements: u32,
    pub preemptions: u32,
    /// When the job was last preempted (for guard rails).
    pub last_preempted: Option<SimTime>,
}

impl JobRun {
    /// A job not submitted yet: what the engine starts every job from.
    pub(crate) fn new() -> JobRun {
        JobRun {
            status: JobStatus::Future,
            gpus: Vec::new(),
            tier: None,
            links: Vec::new(),
            iter_s: 0.0,
            done: 0.0,
            updated: SimTime::ZERO,
            resume_at: SimTime::ZERO,
            epoch: 0,
            first_start: None,
            last_start: SimTime::ZERO,
            end: None,
            enqueued_at: SimTime::ZERO,
            queued_total: SimTime::ZERO,
            run_total: SimTime::ZERO,
            restore_total: SimTime::ZERO,
            pending_restore: SimTime::ZERO,
            placements: 0,
            preemptions: 0,
            last_preempted: None,
        }
    }

    /// Iterations done by `now`, at the current rate.
    pub fn progress_at(&self, now: SimTime) -> f64 {
        if self.status != JobStatus::Running || self.iter_s <= 0.0 {
            return self.done;
        }
        let from = self.updated.max(self.resume_at);
        if now <= from {
            return self.done;
        }
        self.done + (now - from).as_secs_f64() / self.iter_s
    }
}

impl Scenario {
    /// A scenario from a topology and a trace already parsed, with the model catalogue of the
    /// topology's GPU (the built-in one if it names none) and its communication parameters (its
    /// `collective` block, or the calibrated defaults). Front ends go through
    /// [`crate::inputs::build_scenario`], which reads their inputs and ends here; sweeps and
    /// experiments that parse one trace for many runs call this directly. Errors name the trace
    /// line; an empty result is an error too.
    pub fn from_trace(
        topology: Topology,
        trace: &Trace,
        options: &WorkloadOptions,
        trace_label: &str,
    ) -> Result<Scenario, InputError> {
        let mut catalog = Catalog::for_gpu_or_built_in(topology.gpu())?;
        let comm = topology.comm_params().clone();
        let options = WorkloadOptions { mix: mix_for(&options.mix, &catalog)?, ..options.clone() };
        let (jobs, tenant_names) = resolve_with_tenants(trace, &topology, &mut catalog, &comm, &options)?;
        if jobs.is_empty() {
            return Err(InputError::new("jobs", "the trace has no jobs"));
        }
        let demand = tenant_demand(&jobs, tenant_names.len());
        let tenants = Tenants::build(tenant_names, &demand, topology.gpu_count(), &TenantSpec::Equal, |_| true)?;
        Ok(Scenario {
            topology,
            catalog,
            comm,
            jobs,
            seed: options.seed,
            trace_label: trace_label.to_string(),
            tenants,
            trace_skipped: trace.skipped.clone(),
        })
    }
}

/// Sets the quotas of a scenario's tenants from `spec`. `trace` is the whole trace the
/// scenario's jobs were taken from, so that a tenant the trace never names is an error while
/// one outside the scenario's window is not.
pub fn apply_tenant_spec(scenario: &mut Scenario, spec: &TenantSpec, trace: &Trace) -> Result<(), InputError> {
    let names: Vec<String> = scenario.tenants.iter().map(|(_, t)| t.name.clone()).collect();
    let demand = tenant_demand(&scenario.jobs, names.len());
    let in_trace = |name: &str| trace.jobs.iter().any(|j| tenant_name(j) == name);
    scenario.tenants = Tenants::build(names, &demand, scenario.topology.gpu_count(), spec, in_trace)?;
    Ok(())
}
