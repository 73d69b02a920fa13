//! Who pays: the run's metrics per tenant, and how evenly the cluster treated tenants.
//!
//! - Per tenant ([`TenantSummary`]): jobs, GPU-time asked for and used, mean and p95 JCT,
//!   mean queueing, communication overhead (in job- and GPU-seconds), slowdown, preemptions
//!   suffered (in all and by its worst-hit job), and, when the isolated runs were made, its
//!   finish-time fairness.
//! - Across tenants: Jain's fairness index over the tenants' slowdowns ([`jain_index`]), and
//!   preemptions suffered per job (the most, and the 99th percentile).
//!
//! These figures are part of the run's summary (`summary.json`'s `tenants`), so they sit
//! with the other metrics, below the engine. Finish-time fairness ρ needs more runs (each
//! tenant alone on its share of the cluster), so it sits above the engine, in
//! [`crate::fairness`], and only fills in `TenantSummary::rho` afterwards.
//!
//! Every definition, with its source, is in `docs/METRICS.md`. Per-tenant sums (jobs,
//! queueing, overhead, preemptions, GPU-time) add up to the cluster's, which a property test
//! checks.

use super::nearest_rank_percentile;
use crate::scenario::{JobRun, JobStatus, Scenario};
use crate::tenants::TenantId;
use serde::{Deserialize, Serialize};

/// One tenant's figures in a run: an element of `summary.json`'s `tenants`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantSummary {
    pub name: String,
    /// GPUs guaranteed to the tenant.
    pub quota_gpus: u32,
    pub jobs: u32,
    pub completed: u32,
    pub rejected: u32,
    /// GPU-time asked for: GPUs × ideal run time, summed over its jobs that fit the cluster.
    pub demand_gpu_s: f64,
    /// GPU-time held: GPUs × time on GPUs (restores included), summed over its jobs.
    pub used_gpu_s: f64,
    /// Mean and nearest-rank p95 JCT over its completed jobs.
    pub avg_jct_s: f64,
    pub p95_jct_s: f64,
    /// Mean time queued per completed job, over all its waits.
    pub avg_queue_s: f64,
    /// Communication overhead summed over its completed jobs, in job-seconds and in
    /// GPU-seconds (as the cluster's).
    pub comm_overhead_s: f64,
    pub comm_overhead_gpu_s: f64,
    /// Its completed jobs' JCTs summed over their ideal run times summed: how many times
    /// longer than alone on an ideal placement its work took, waiting included.
    pub slowdown: f64,
    /// Preemptions its jobs suffered, and the most one of them suffered.
    pub preemptions: u64,
    pub job_preemptions_max: u32,
    /// GPUs of the cluster its jobs ran on alone (finish-time fairness), when computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_gpus: Option<u32>,
    /// Its finish-time fairness: the JCTs of its jobs in the shared run summed over their
    /// JCTs in the isolated run summed, over jobs completed in both; and the largest ρ of one
    /// of its jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho_max: Option<f64>,
}

/// The fairness figures of a run that need no extra simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct TenantFigures {
    pub tenants: Vec<TenantSummary>,
    /// Jain's index over the slowdowns of the tenants with completed jobs.
    pub jain_slowdown: f64,
    /// Preemptions suffered by one job that ran: the most, and the nearest-rank p99.
    pub job_preemptions_max: u32,
    pub job_preemptions_p99: u32,
}

/// Jain's fairness index of `x`: `(Σx)² / (n · Σx²)`, 1 when all are equal, `1/n` when one
/// value holds everything (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984). 1 for no values or
/// all zeros, where nothing is unequal.
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || squares <= 0.0 {
        return 1.0;
    }
    sum * sum / (x.len() as f64 * squares)
}

/// How many tenant ids the scenario's jobs and table use.
pub fn tenant_count(scenario: &Scenario) -> usize {
    let in_jobs = scenario.jobs.iter().map(|j| j.tenant.0 as usize + 1).max().unwrap_or(0);
    scenario.tenants.len().max(in_jobs)
}

/// The per-tenant figures of a run (final once the run is done).
pub fn tenant_figures(scenario: &Scenario, runs: &[JobRun]) -> TenantFigures {
    let n = tenant_count(scenario);
    let mut tenants: Vec<TenantSummary> = (0..n)
        .map(|i| {
            let id = TenantId(i as u32);
            TenantSummary {
                name: scenario.tenants.name(id).to_string(),
                quota_gpus: scenario.tenants.quota(id).min(scenario.topology.gpu_count()),
                jobs: 0,
                completed: 0,
                rejected: 0,
                demand_gpu_s: 0.0,
                used_gpu_s: 0.0,
                avg_jct_s: 0.0,
                p95_jct_s: 0.0,
                avg_queue_s: 0.0,
                comm_overhead_s: 0.0,
                comm_overhead_gpu_s: 0.0,
                slowdown: 0.0,
                preemptions: 0,
                job_preemptions_max: 0,
                share_gpus: None,
                rho: None,
                rho_max: None,
            }
        })
        .collect();
    let mut jcts: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut ideal_sum = vec![0.0; n];
    let mut preempted: Vec<f64> = Vec::new();
    for (job, run) in scenario.jobs.iter().zip(runs) {
        let t = &mut tenants[job.tenant.0 as usize];
        t.jobs += 1;
        t.preemptions += run.preemptions as u64;
        t.job_preemptions_max = t.job_preemptions_max.max(run.preemptions);
        t.used_gpu_s += job.gpus as f64 * run.run_total.as_secs_f64();
        if let Some(ideal) = job.ideal_run_s() {
            t.demand_gpu_s += job.gpus as f64 * ideal;
        }
        match run.status {
            JobStatus::Rejected => t.rejected += 1,
            JobStatus::Completed => {
                let end = run.end.expect("completed jobs have an end");
                let jct = (end - job.submit).as_secs_f64();
                t.completed += 1;
                t.avg_queue_s += run.queued_total.as_secs_f64();
                let productive = (run.run_total - run.restore_total).as_secs_f64();
                let ideal = job.ideal_run_s().unwrap_or(productive);
                t.comm_overhead_s += productive - ideal;
                t.comm_overhead_gpu_s += (productive - ideal) * job.gpus as f64;
                ideal_sum[job.tenant.0 as usize] += ideal;
                jcts[job.tenant.0 as usize].push(jct);
            }
            _ => {}
        }
        if run.status != JobStatus::Rejected {
            preempted.push(run.preemptions as f64);
        }
    }
    let mut slowdowns = Vec::new();
    for (i, t) in tenants.iter_mut().enumerate() {
        let list = &mut jcts[i];
        if list.is_empty() {
            continue;
        }
        let total: f64 = list.iter().sum();
        t.avg_jct_s = total / list.len() as f64;
        t.avg_queue_s /= list.len() as f64;
        list.sort_by(f64::total_cmp);
        t.p95_jct_s = nearest_rank_percentile(list, 95.0);
        t.slowdown = if ideal_sum[i] > 0.0 { total / ideal_sum[i] } else { 1.0 };
        slowdowns.push(t.slowdown);
    }
    preempted.sort_by(f64::total_cmp);
    TenantFigures {
        tenants,
        jain_slowdown: jain_index(&slowdowns),
        job_preemptions_max: preempted.last().copied().unwrap_or(0.0) as u32,
        job_preemptions_p99: nearest_rank_percentile(&preempted, 99.0) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_of_textbook_cases() {
        assert_eq!(jain_index(&[2.0, 2.0, 2.0]), 1.0);
        assert_eq!(jain_index(&[1.0, 0.0, 0.0, 0.0]), 0.25);
        // (1 + 3)² / (2 · (1 + 9)) = 16 / 20.
        assert_eq!(jain_index(&[1.0, 3.0]), 0.8);
        assert_eq!(jain_index(&[]), 1.0);
        assert_eq!(jain_index(&[0.0, 0.0]), 1.0);
    }
}
