//! Finish-time fairness ρ: how much longer a job took in the shared cluster than it would
//! have if its tenant had a cluster of its own.
//!
//! Themis (Mahajan et al., "Themis: Fair and Efficient GPU Cluster Scheduling", NSDI 2020)
//! defines an application's finish-time fairness as `ρ = T_sh / T_id`: its finish time in the
//! shared cluster over its finish time running alone on a 1/N share of it, N the number of
//! applications contending; ρ ≤ 1 means sharing cost it nothing. Gavel (Narayanan et al.,
//! OSDI 2020) implements the same objective for jobs, estimating the isolated time from
//! throughputs under an equal split of the cluster between the active jobs
//! (stanford-futuredata/gavel, `scheduler/policies/finish_time_fairness.py` and
//! `isolated.py`). HiveD (Zhao et al., OSDI 2020) makes the same comparison for tenants: a
//! tenant should do no worse than in a private cluster the size of its quota.
//!
//! Proxima measures it for tenants, by simulation rather than estimate, because where a job
//! lands, and so how long it runs, depends on the cluster it lands in:
//!
//! 1. each tenant with jobs gets a *share*: the first whole servers of the cluster, in GPU
//!    order, whose GPUs are closest to its quota ([`super::share`]; with the default `equal`
//!    quotas that is Themis's 1/N), grown if needed to hold its largest job;
//! 2. its jobs, and only its, run on that share under the same policy, from the same
//!    submission times, with the same work and models and the same seed ([`IsolatedPlan`]);
//! 3. a job's `ρ = JCT in the shared run / JCT in its tenant's isolated run`, for jobs
//!    completed in both; a tenant's ρ is the sum of its jobs' shared JCTs over the sum of
//!    their isolated JCTs.
//!
//! The isolated runs are pure and independent, and run under the shared run's policy as it
//! was parsed (a [`PolicySpec`], never its text again). [`finish_time_fairness`] is the one
//! way to make them; how they are spread is the caller's [`IsolatedRunner`]: one after
//! another ([`OneAfterAnother`], the core's, which starts no thread) or side by side on a
//! native host's threads (`proxima_host::fairness::Threads`). The result is the same bit
//! for bit either way.

use super::share::{share_gpus, share_servers, share_topology};
use crate::cluster::JobId;
use crate::engine::Simulation;
use crate::error::InputError;
use crate::metrics::nearest_rank_percentile;
use crate::metrics::per_tenant::tenant_count;
use crate::policy::{build_policy, Policy, PolicySpec};
use crate::run_files::RunRecord;
use crate::scenario::{JobStatus, Scenario};
use crate::tenants::{apportion, QuotaBasis, TenantId, Tenants};
use crate::time::SimTime;
use crate::workload::{IdealPlacements, Job};
use std::collections::BTreeMap;

/// One tenant's jobs alone on its share: a scenario to run with the shared run's policy.
#[derive(Clone, Debug)]
pub struct IsolatedPlan {
    pub tenant: TenantId,
    /// GPUs of the share.
    pub share_gpus: u32,
    /// For each job of `scenario`, in order, the job of the shared scenario it is.
    pub jobs: Vec<JobId>,
    pub scenario: Scenario,
}

/// What an isolated run measured: each job's JCT, if it completed.
#[derive(Clone, Debug, PartialEq)]
pub struct IsolatedRun {
    pub tenant: TenantId,
    pub share_gpus: u32,
    /// The shared scenario's jobs and their JCT in the isolated run.
    pub jcts: Vec<(JobId, Option<SimTime>)>,
}

/// Every job's JCT in its tenant's isolated run, and every tenant's share.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishTimeFairness {
    /// Per job of the shared scenario: its JCT alone on its tenant's share, if it completed.
    pub isolated_jct: Vec<Option<SimTime>>,
    /// Per tenant, in id order: the GPUs of its share (`None`: no jobs, nothing run).
    pub share_gpus: Vec<Option<u32>>,
}

/// The quota each tenant's share is sized by: its quota, or an equal split when the
/// scenario's quotas were not set.
fn share_targets(shared: &Scenario, tenants: usize, with_jobs: &[bool]) -> Vec<u32> {
    let gpus = shared.topology.gpu_count();
    if shared.tenants.basis() == QuotaBasis::Unset {
        let weights: Vec<f64> = with_jobs.iter().map(|&w| if w { 1.0 } else { 0.0 }).collect();
        return apportion(gpus, &weights);
    }
    (0..tenants).map(|i| shared.tenants.quota(TenantId(i as u32)).min(gpus)).collect()
}

/// The isolated runs to make: one per tenant with jobs, in tenant order.
pub fn isolated_plans(shared: &Scenario) -> Result<Vec<IsolatedPlan>, InputError> {
    let n = tenant_count(shared);
    let mut members: Vec<Vec<JobId>> = vec![Vec::new(); n];
    for j in &shared.jobs {
        members[j.tenant.0 as usize].push(j.id);
    }
    let with_jobs: Vec<bool> = members.iter().map(|m| !m.is_empty()).collect();
    let targets = share_targets(shared, n, &with_jobs);
    let topo = &shared.topology;
    let mut plans = Vec::new();
    for (i, jobs) in members.into_iter().enumerate() {
        if jobs.is_empty() {
            continue;
        }
        let tenant = TenantId(i as u32);
        // The largest job that fits the cluster must fit the share.
        let largest = jobs
            .iter()
            .map(|&j| &shared.jobs[j.0 as usize])
            .filter(|j| j.ideal_iter_s.is_some())
            .map(|j| j.gpus)
            .max()
            .unwrap_or(1);
        let servers = share_servers(topo, targets[i], largest);
        let share = share_topology(topo, servers)?;
        let share_gpus = share_gpus(topo, servers);
        let mut ideal = IdealPlacements::default();
        let alone: Vec<Job> = jobs
            .iter()
            .enumerate()
            .map(|(k, &id)| {
                let job = &shared.jobs[id.0 as usize];
                let ideal_iter_s = job.ideal_iter_s.and_then(|_| {
                    ideal
                        .get(&share, job.gpus)
                        .map(|(_, s)| shared.comm.iteration_time(shared.catalog.get(job.model), &s))
                });
                Job { id: JobId(k as u32), tenant: TenantId(0), ideal_iter_s, ..job.clone() }
            })
            .collect();
        let name = shared.tenants.name(tenant).to_string();
        let scenario = Scenario {
            topology: share,
            catalog: shared.catalog.clone(),
            comm: shared.comm.clone(),
            jobs: alone,
            seed: shared.seed,
            trace_label: format!("{} (tenant {name} alone)", shared.trace_label),
            tenants: Tenants::single(&name, share_gpus, shared.tenants.basis()),
            trace_skipped: Vec::new(),
        };
        plans.push(IsolatedPlan { tenant, share_gpus, jobs, scenario });
    }
    Ok(plans)
}

impl IsolatedPlan {
    /// Whether the plan is the shared run itself: one tenant with every job on the whole
    /// cluster. Its run would repeat the shared one event for event.
    pub fn is_whole(&self, shared: &Scenario) -> bool {
        self.jobs.len() == shared.jobs.len() && self.share_gpus == shared.topology.gpu_count()
    }

    /// Runs the plan to the end under `policy`, a fresh policy of the shared run's spec.
    pub fn run(self, policy: Box<dyn Policy>) -> IsolatedRun {
        let mut sim = Simulation::new(self.scenario, policy);
        sim.run();
        let jcts = self
            .jobs
            .iter()
            .zip(sim.scenario().jobs.iter().zip(sim.runs()))
            .map(|(&id, (job, run))| {
                let jct = (run.status == JobStatus::Completed).then(|| run.end.expect("completed") - job.submit);
                (id, jct)
            })
            .collect();
        IsolatedRun { tenant: self.tenant, share_gpus: self.share_gpus, jcts }
    }

    /// The plan's result taken from the shared run, for a plan that [`Self::is_whole`].
    pub fn from_shared(self, shared: &Scenario, runs: &[crate::scenario::JobRun]) -> IsolatedRun {
        let jcts = self
            .jobs
            .iter()
            .map(|&id| {
                let run = &runs[id.0 as usize];
                let submit = shared.jobs[id.0 as usize].submit;
                (id, (run.status == JobStatus::Completed).then(|| run.end.expect("completed") - submit))
            })
            .collect();
        IsolatedRun { tenant: self.tenant, share_gpus: self.share_gpus, jcts }
    }
}

/// How the isolated runs are spread: they are independent, so a native host may run them
/// on threads (the core starts none). Every way gives the same result bit for bit.
pub trait IsolatedRunner {
    /// `run` applied to every plan; the results in the plans' order.
    fn run_all(&self, plans: Vec<IsolatedPlan>, run: &(dyn Fn(IsolatedPlan) -> IsolatedRun + Sync))
        -> Vec<IsolatedRun>;
}

/// The isolated runs one after another, in the calling thread: the page's worker and the
/// lab take this way, and every other is held to its result.
pub struct OneAfterAnother;

impl IsolatedRunner for OneAfterAnother {
    fn run_all(
        &self,
        plans: Vec<IsolatedPlan>,
        run: &(dyn Fn(IsolatedPlan) -> IsolatedRun + Sync),
    ) -> Vec<IsolatedRun> {
        plans.into_iter().map(run).collect()
    }
}

/// Finish-time fairness of a finished run: makes every tenant's isolated plan and runs it,
/// spread by `runner`, under a fresh policy of `policy` (the shared run's spec, as parsed
/// for it). `runs` are the shared run's, reused when one tenant has the whole cluster.
pub fn finish_time_fairness(
    shared: &Scenario,
    policy: &PolicySpec,
    runs: &[crate::scenario::JobRun],
    runner: &dyn IsolatedRunner,
) -> Result<FinishTimeFairness, InputError> {
    let plans = isolated_plans(shared)?;
    // Built once here, so that every isolated run builds it again without fail; and checked
    // against every share, which may lack a level the whole cluster has (a share inside one
    // rack has no `rack` level for `kueue-tas:required=rack`): an error, where the isolated
    // run would stop in the middle.
    let built = build_policy(policy.clone())?;
    for plan in plans.iter().filter(|p| !p.is_whole(shared)) {
        built.check_cluster(&plan.scenario.topology).map_err(|e| {
            let tenant = shared.tenants.name(plan.tenant);
            let message = format!(
                "tenant {tenant}'s share of {} GPUs, where its isolated run for finish-time fairness \
                 would run, cannot take the policy ({}: {})",
                plan.share_gpus, e.field, e.message
            );
            InputError::new("rho", message)
        })?;
    }
    let run = |plan: IsolatedPlan| {
        if plan.is_whole(shared) {
            plan.from_shared(shared, runs)
        } else {
            plan.run(build_policy(policy.clone()).expect("built above: the same spec builds again"))
        }
    };
    Ok(FinishTimeFairness::from_runs(shared, &runner.run_all(plans, &run)))
}

impl FinishTimeFairness {
    /// Gathers isolated runs, in any order.
    pub fn from_runs(shared: &Scenario, runs: &[IsolatedRun]) -> FinishTimeFairness {
        let mut isolated_jct = vec![None; shared.jobs.len()];
        let mut share_gpus = vec![None; tenant_count(shared)];
        for run in runs {
            share_gpus[run.tenant.0 as usize] = Some(run.share_gpus);
            for &(id, jct) in &run.jcts {
                isolated_jct[id.0 as usize] = jct;
            }
        }
        FinishTimeFairness { isolated_jct, share_gpus }
    }

    /// Adds ρ to a run's record: each job row's, each tenant's, and the summary's largest,
    /// median and share above 1.
    pub fn apply(&self, record: &mut RunRecord) {
        let index: BTreeMap<String, usize> =
            record.summary.tenants.iter().enumerate().map(|(i, t)| (t.name.clone(), i)).collect();
        let n = record.summary.tenants.len();
        let (mut shared_sum, mut isolated_sum) = (vec![0.0; n], vec![0.0; n]);
        let mut worst: Vec<Option<f64>> = vec![None; n];
        let mut all = Vec::new();
        for (row, iso) in record.jobs.iter_mut().zip(&self.isolated_jct) {
            row.rho = match (row.jct, iso) {
                (Some(jct), Some(iso)) if iso.0 > 0 => Some(jct.as_secs_f64() / iso.as_secs_f64()),
                _ => None,
            };
            let (Some(rho), Some(&t)) = (row.rho, index.get(&row.tenant)) else { continue };
            shared_sum[t] += row.jct.expect("ρ needs a JCT").as_secs_f64();
            isolated_sum[t] += iso.expect("ρ needs an isolated JCT").as_secs_f64();
            worst[t] = Some(worst[t].map_or(rho, |w: f64| w.max(rho)));
            all.push(rho);
        }
        for (i, t) in record.summary.tenants.iter_mut().enumerate() {
            t.share_gpus = self.share_gpus.get(i).copied().flatten();
            t.rho = (isolated_sum[i] > 0.0).then(|| shared_sum[i] / isolated_sum[i]);
            t.rho_max = worst[i];
        }
        let s = &mut record.summary;
        if all.is_empty() {
            (s.rho_max, s.rho_p50, s.rho_over_1) = (None, None, None);
        } else {
            all.sort_by(f64::total_cmp);
            s.rho_max = all.last().copied();
            s.rho_p50 = Some(nearest_rank_percentile(&all, 50.0));
            s.rho_over_1 = Some(all.iter().filter(|&&r| r > 1.0).count() as f64 / all.len() as f64);
        }
    }
}
