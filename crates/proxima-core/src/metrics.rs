//! What a run measured: the summary (`summary.json`), the per-job table (`jobs.csv`) and
//! the time series (`timeseries.csv`).
//!
//! Definitions (`docs/METRICS.md` has them all, with their sources):
//! - JCT: completion minus submission, over completed jobs. Percentiles are nearest-rank:
//!   p-th = the ⌈p/100·n⌉-th smallest.
//! - makespan: last completion minus first submission (which is time 0).
//! - queueing delay: time a job spent queued, over all its waits (a preempted job waits
//!   again), averaged over completed jobs.
//! - communication overhead: for each completed job, its time on GPUs minus checkpoint
//!   restores minus its ideal run time (tightest feasible placement, no contention), summed
//!   over jobs (job-seconds), and the same weighted by each job's GPUs (GPU-seconds).
//! - GPU utilisation: busy GPU-time over GPUs × makespan.
//! - tier counts: placements (restarts included) per tier.
//! - per tenant, Jain's index and preemptions per job: [`per_tenant`]; finish-time
//!   fairness ρ: [`crate::fairness`].

pub mod per_tenant;

use crate::scenario::{JobRun, JobStatus, Scenario};
use crate::tenants::QuotaBasis;
use crate::tier_counts::TierCounts;
use crate::time::SimTime;
use per_tenant::{tenant_figures, TenantSummary};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The cluster's state over time as a step function: each point holds from its time until
/// the next point.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timeline {
    pub points: Vec<TimelinePoint>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TimelinePoint {
    pub time: SimTime,
    pub busy_gpus: u32,
    pub queued: u32,
    pub running: u32,
}

impl Timeline {
    pub fn record(&mut self, time: SimTime, busy_gpus: u32, queued: u32, running: u32) {
        let p = TimelinePoint { time, busy_gpus, queued, running };
        match self.points.last_mut() {
            Some(last) if last.time == time => *last = p,
            Some(last) if (last.busy_gpus, last.queued, last.running) == (busy_gpus, queued, running) => {}
            _ => self.points.push(p),
        }
    }

    /// Time-weighted averages over `buckets` equal intervals of `[0, end]`.
    pub fn bucketed(&self, end: SimTime, buckets: u32) -> Vec<Bucket> {
        let buckets = buckets.max(1) as u64;
        let end = end.0.max(1);
        let width = end.div_ceil(buckets).max(1);
        let count = end.div_ceil(width);
        let mut out: Vec<Bucket> = (0..count)
            .map(|b| Bucket {
                start: SimTime(b * width),
                end: SimTime(((b + 1) * width).min(end)),
                busy_gpus: 0.0,
                queued: 0.0,
                running: 0.0,
            })
            .collect();
        for (i, p) in self.points.iter().enumerate() {
            let seg_start = p.time.0.min(end);
            let seg_end = self.points.get(i + 1).map(|n| n.time.0).unwrap_or(end).min(end);
            let mut t = seg_start;
            while t < seg_end {
                let b = (t / width) as usize;
                let b_end = ((b as u64 + 1) * width).min(seg_end);
                let dt = (b_end - t) as f64;
                let bucket = &mut out[b];
                bucket.busy_gpus += dt * p.busy_gpus as f64;
                bucket.queued += dt * p.queued as f64;
                bucket.running += dt * p.running as f64;
                t = b_end;
            }
        }
        for b in &mut out {
            let span = (b.end.0 - b.start.0) as f64;
            if span > 0.0 {
                b.busy_gpus /= span;
                b.queued /= span;
                b.running /= span;
            }
        }
        out
    }

    /// Busy GPU-seconds over `[0, end]`.
    pub fn busy_gpu_seconds(&self, end: SimTime) -> f64 {
        let mut total = 0.0;
        for (i, p) in self.points.iter().enumerate() {
            let seg_end = self.points.get(i + 1).map(|n| n.time).unwrap_or(end).min(end);
            if seg_end > p.time {
                total += (seg_end - p.time).as_secs_f64() * p.busy_gpus as f64;
            }
        }
        total
    }
}

/// Time-weighted means over one interval of the run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    pub start: SimTime,
    pub end: SimTime,
    pub busy_gpus: f64,
    pub queued: f64,
    pub running: f64,
}

/// The headline figures of one run: `summary.json`. It reads back from that file (or from
/// any serde format) unchanged, so results can cross a worker boundary as data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub policy: String,
    pub seed: u64,
    pub topology: String,
    pub trace: String,
    pub gpus: u32,
    pub jobs_total: u32,
    pub jobs_completed: u32,
    pub jobs_rejected: u32,
    /// Jobs neither completed nor rejected when the run ended (0 unless a policy stalls).
    pub jobs_unfinished: u32,
    pub avg_jct_s: f64,
    pub p50_jct_s: f64,
    pub p95_jct_s: f64,
    pub p99_jct_s: f64,
    pub makespan_s: f64,
    pub avg_queue_s: f64,
    /// Communication overhead in job-seconds: each completed job's extra time, summed.
    pub comm_overhead_s: f64,
    /// Communication overhead in GPU-seconds: each completed job's extra time times its
    /// GPUs, summed (the GPU-time the cluster spent on it).
    pub comm_overhead_gpu_s: f64,
    pub avg_gpu_util: f64,
    pub preemptions: u64,
    /// Placements per tier, by tier name, tightest first.
    pub tier_counts: TierCounts,
    /// Preemptions suffered by one job that ran: the most, and the nearest-rank p99.
    #[serde(default)]
    pub job_preemptions_max: u32,
    #[serde(default)]
    pub job_preemptions_p99: u32,
    /// Jain's fairness index over the tenants' slowdowns: 1 when all tenants' work was slowed
    /// alike, down to `1/n` when one tenant bore it all.
    #[serde(default = "one")]
    pub jain_slowdown: f64,
    /// How the tenants' quotas were set.
    #[serde(default)]
    pub quotas: QuotaBasis,
    /// Finish-time fairness, over the jobs completed in the shared and the isolated runs: the
    /// largest ρ, the nearest-rank median and the share of those jobs with ρ > 1. Absent
    /// unless the isolated runs were made ([`crate::fairness::isolated`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho_max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho_p50: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho_over_1: Option<f64>,
    /// Per tenant, in tenant order (names sorted).
    #[serde(default)]
    pub tenants: Vec<TenantSummary>,
}

fn one() -> f64 {
    1.0
}

/// The nearest-rank percentile of sorted values, the ⌈p/100·n⌉-th smallest: always one of
/// the values, which is what `summary.json`'s p50/p95/p99 JCT are. (The calibration's error
/// statistics interpolate instead: `proxima_lab::calibrate::interpolated_percentile`.)
pub fn nearest_rank_percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = libm::ceil(p / 100.0 * sorted.len() as f64) as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Summary {
    pub fn compute(
        policy: &str,
        scenario: &Scenario,
        runs: &[JobRun],
        timeline: &Timeline,
        tier_placements: &[u64],
        preemptions: u64,
    ) -> Summary {
        let mut jcts = Vec::new();
        let mut queue_total = 0.0;
        let mut overhead = 0.0;
        let mut overhead_gpu = 0.0;
        let mut rejected = 0;
        let mut last_end = SimTime::ZERO;
        for (job, run) in scenario.jobs.iter().zip(runs) {
            match run.status {
                JobStatus::Completed => {
                    let end = run.end.expect("completed jobs have an end");
                    last_end = last_end.max(end);
                    jcts.push((end - job.submit).as_secs_f64());
                    queue_total += run.queued_total.as_secs_f64();
                    let productive = (run.run_total - run.restore_total).as_secs_f64();
                    let extra = productive - job.ideal_run_s().unwrap_or(productive);
                    overhead += extra;
                    overhead_gpu += extra * job.gpus as f64;
                }
                JobStatus::Rejected => rejected += 1,
                _ => {}
            }
        }
        let completed = jcts.len() as u32;
        jcts.sort_by(f64::total_cmp);
        let mean = |total: f64| if completed > 0 { total / completed as f64 } else { 0.0 };
        let gpus = scenario.topology.gpu_count();
        let makespan = last_end.as_secs_f64();
        let util = if makespan > 0.0 { timeline.busy_gpu_seconds(last_end) / (gpus as f64 * makespan) } else { 0.0 };
        let topo = &scenario.topology;
        let tier_counts =
            TierCounts::new(tier_placements.iter().enumerate().map(|(t, &n)| (topo.tier_names()[t].clone(), n)));
        let fair = tenant_figures(scenario, runs);
        Summary {
            policy: policy.to_string(),
            seed: scenario.seed,
            topology: topo.name().to_string(),
            trace: scenario.trace_label.clone(),
            gpus,
            jobs_total: scenario.jobs.len() as u32,
            jobs_completed: completed,
            jobs_rejected: rejected,
            jobs_unfinished: scenario.jobs.len() as u32 - completed - rejected,
            avg_jct_s: mean(jcts.iter().sum()),
            p50_jct_s: nearest_rank_percentile(&jcts, 50.0),
            p95_jct_s: nearest_rank_percentile(&jcts, 95.0),
            p99_jct_s: nearest_rank_percentile(&jcts, 99.0),
            makespan_s: makespan,
            avg_queue_s: mean(queue_total),
            comm_overhead_s: overhead,
            comm_overhead_gpu_s: overhead_gpu,
            avg_gpu_util: util,
            preemptions,
            tier_counts,
            job_preemptions_max: fair.job_preemptions_max,
            job_preemptions_p99: fair.job_preemptions_p99,
            jain_slowdown: fair.jain_slowdown,
            quotas: scenario.tenants.basis(),
            rho_max: None,
            rho_p50: None,
            rho_over_1: None,
            tenants: fair.tenants,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a summary serialises")
    }
}

/// The file-name-safe form of a policy spec that names a run's result directory (the CLI's
/// `compare --out DIR/<name>/`, the app's exports): `dally:preempt=off` becomes
/// `dally_preempt-off`.
pub fn result_dir_name(policy: &str) -> String {
    policy
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '.' => c,
            '=' => '-',
            _ => '_',
        })
        .collect()
}

/// One job's row of `jobs.csv`, as data. Times are exact ([`SimTime`]); a field the CSV
/// leaves empty is `None`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobRow {
    pub id: u32,
    /// The trace's name for the job.
    pub name: String,
    pub status: JobStatus,
    pub submit: SimTime,
    /// The first placement.
    pub start: Option<SimTime>,
    /// The completion, for completed jobs.
    pub end: Option<SimTime>,
    /// Completion minus submission, for completed jobs.
    pub jct: Option<SimTime>,
    /// Time queued, over all its waits.
    pub queue: SimTime,
    pub gpus: u32,
    /// The model's catalogue name.
    pub model: String,
    /// The tier of the last placement, by name.
    pub tier: Option<String>,
    pub placements: u32,
    pub preemptions: u32,
    /// The run time at the tightest feasible placement without contention, in seconds
    /// (`None` for a job larger than the cluster).
    pub ideal_s: Option<f64>,
    /// Time on GPUs.
    pub run: SimTime,
    /// Run time over ideal run time, for completed jobs.
    pub slowdown: Option<f64>,
    /// The tenant's name.
    #[serde(default)]
    pub tenant: String,
    /// Finish-time fairness: JCT here over JCT when its tenant's jobs ran alone on the
    /// tenant's share, for a job completed in both (and when the isolated runs were made).
    #[serde(default)]
    pub rho: Option<f64>,
}

/// The rows of `jobs.csv`, one a job, in job order.
pub fn job_rows(scenario: &Scenario, runs: &[JobRun]) -> Vec<JobRow> {
    let topo = &scenario.topology;
    scenario
        .jobs
        .iter()
        .zip(runs)
        .map(|(job, run)| {
            let completed = run.status == JobStatus::Completed;
            let end = if completed { run.end } else { None };
            let ideal_s = job.ideal_run_s();
            let slowdown = match ideal_s {
                Some(i) if i > 0.0 && completed => Some(run.run_total.as_secs_f64() / i),
                _ => None,
            };
            JobRow {
                id: job.id.0,
                name: job.name.clone(),
                status: run.status,
                submit: job.submit,
                start: run.first_start,
                end,
                jct: end.map(|e| e - job.submit),
                queue: run.queued_total,
                gpus: job.gpus,
                model: scenario.catalog.get(job.model).name.to_string(),
                tier: run.tier.map(|t| topo.tier_name(t).to_string()),
                placements: run.placements,
                preemptions: run.preemptions,
                ideal_s,
                run: run.run_total,
                slowdown,
                tenant: scenario.tenants.name(job.tenant).to_string(),
                rho: None,
            }
        })
        .collect()
}

/// `jobs.csv`: one row a job.
pub fn jobs_csv(scenario: &Scenario, runs: &[JobRun]) -> String {
    jobs_csv_of(&job_rows(scenario, runs))
}

/// `jobs.csv` from its rows.
pub fn jobs_csv_of(rows: &[JobRow]) -> String {
    let mut out = String::from(
        "id,name,status,submit_s,start_s,end_s,jct_s,queue_s,gpus,model,tier,placements,preemptions,ideal_s,run_s,slowdown,tenant,rho\n",
    );
    let opt = |t: Option<SimTime>| t.map(|t| t.to_string()).unwrap_or_default();
    let fixed = |x: Option<f64>| x.map(|x| format!("{x:.6}")).unwrap_or_default();
    for row in rows {
        let status = match row.status {
            JobStatus::Completed => "completed",
            JobStatus::Rejected => "rejected",
            JobStatus::Running => "running",
            JobStatus::Queued => "queued",
            JobStatus::Future => "future",
        };
        let quoted = |text: &str| {
            if text.contains([',', '"', '\n']) {
                format!("\"{}\"", text.replace('"', "\"\""))
            } else {
                text.to_string()
            }
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            row.id,
            quoted(&row.name),
            status,
            row.submit,
            opt(row.start),
            opt(row.end),
            opt(row.jct),
            row.queue,
            row.gpus,
            row.model,
            row.tier.as_deref().unwrap_or(""),
            row.placements,
            row.preemptions,
            fixed(row.ideal_s),
            row.run,
            fixed(row.slowdown),
            quoted(&row.tenant),
            fixed(row.rho)
        );
    }
    out
}

/// `timeseries.csv`: time-weighted means over `buckets` equal intervals of the makespan.
pub fn timeseries_csv(timeline: &Timeline, end: SimTime, gpus: u32, buckets: u32) -> String {
    timeseries_csv_of(&timeline.bucketed(end, buckets), gpus)
}

/// `timeseries.csv` from its buckets, on a cluster of `gpus` GPUs.
pub fn timeseries_csv_of(buckets: &[Bucket], gpus: u32) -> String {
    let mut out = String::from("start_s,end_s,gpu_util,busy_gpus,queued_jobs,running_jobs\n");
    for b in buckets {
        let _ = writeln!(
            out,
            "{},{},{:.6},{:.3},{:.3},{:.3}",
            b.start,
            b.end,
            b.busy_gpus / gpus.max(1) as f64,
            b.busy_gpus,
            b.queued,
            b.running
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_directories_are_file_name_safe() {
        assert_eq!(result_dir_name("dally:preempt=off,autotune=off"), "dally_preempt-off_autotune-off");
        assert_eq!(result_dir_name("dally:timers=30/15"), "dally_timers-30_15");
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=10).map(|x| x as f64).collect();
        assert_eq!(nearest_rank_percentile(&v, 50.0), 5.0);
        assert_eq!(nearest_rank_percentile(&v, 95.0), 10.0);
        assert_eq!(nearest_rank_percentile(&v, 10.0), 1.0);
        assert_eq!(nearest_rank_percentile(&[], 50.0), 0.0);
    }

    #[test]
    fn timeline_buckets_are_time_weighted() {
        let mut t = Timeline::default();
        t.record(SimTime::from_secs_f64(0.0), 4, 0, 1);
        t.record(SimTime::from_secs_f64(5.0), 0, 0, 0);
        let b = t.bucketed(SimTime::from_secs_f64(10.0), 2);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].busy_gpus, 4.0);
        assert_eq!(b[1].busy_gpus, 0.0);
        let one = t.bucketed(SimTime::from_secs_f64(10.0), 1);
        assert_eq!(one[0].busy_gpus, 2.0);
        assert_eq!(t.busy_gpu_seconds(SimTime::from_secs_f64(10.0)), 20.0);
    }
}
