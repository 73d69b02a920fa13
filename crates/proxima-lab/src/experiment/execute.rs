//! One run of a plan, from its definition to the figures the report aggregates: the same
//! path for every caller (the CLI spreads runs over threads; a test runs them in a loop).

use super::plan::{Plan, Task, TraceRef};
use proxima_core::error::InputError;
use proxima_core::fairness::isolated::OneAfterAnother;
use proxima_core::inputs::synthetic_trace;
use proxima_core::metrics::Summary;
use proxima_core::model::Catalog;
use proxima_core::scenario::{JobStatus, Scenario};

use proxima_core::run::RunOptions;
use proxima_core::session::{Problem, Session};
use proxima_core::topology::{resolve_topology_arg, Topology};
use proxima_core::trace::Trace;
use proxima_core::workload::{Job, ModelMix, WorkloadOptions};
use serde::Serialize;

/// What a run's report needs, by key: `summary.json`'s headline figures and a few more that
/// explain them.
pub const METRICS: &[Metric] = &[
    Metric { key: "avg_jct_s", label: "mean JCT", ratio: true },
    Metric { key: "makespan_s", label: "makespan", ratio: true },
    Metric { key: "p95_jct_s", label: "p95 JCT", ratio: true },
    Metric { key: "p99_jct_s", label: "p99 JCT", ratio: true },
    Metric { key: "avg_queue_s", label: "mean queueing", ratio: true },
    Metric { key: "comm_overhead_s", label: "comm. overhead (job-s)", ratio: true },
    Metric { key: "comm_overhead_gpu_s", label: "comm. overhead (GPU-s)", ratio: true },
    Metric { key: "single_gpu_jct_s", label: "mean JCT, 1-GPU jobs", ratio: true },
    Metric { key: "multi_gpu_jct_s", label: "mean JCT, multi-GPU jobs", ratio: true },
    Metric { key: "restore_s", label: "restore time", ratio: false },
    Metric { key: "preemptions", label: "preemptions", ratio: false },
    Metric { key: "unfinished", label: "unfinished jobs", ratio: false },
    // Fairness, cheap because the summary has it: Jain's index over the tenants' slowdowns
    // and the preemptions of the job preempted most. Finish-time fairness ρ is in
    // [`RHO_METRICS`]: only some runs have it.
    Metric { key: "jain_slowdown", label: "Jain (tenants' slowdowns)", ratio: false },
    Metric { key: "job_preemptions_max", label: "most preemptions of a job", ratio: false },
];

/// Finish-time fairness, from the runs the plan gives isolated runs ([`Plan::computes_rho`])
/// on scenarios with several tenants: the largest ρ of a job, and the share of jobs with
/// ρ > 1. Other runs have no value, which the report says rather than count as 0 or 1.
pub const RHO_METRICS: &[Metric] = &[
    Metric { key: "rho_max", label: "max ρ", ratio: false },
    Metric { key: "rho_over_1", label: "share of jobs with ρ > 1", ratio: false },
];

/// A run's [`RHO_METRICS`], when its isolated runs were made.
pub fn rho_values(summary: &Summary) -> Option<[f64; 2]> {
    Some([summary.rho_max?, summary.rho_over_1?])
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Metric {
    pub key: &'static str,
    pub label: &'static str,
    /// Whether the report gives ratios of it (counts and restore time are shown as they are).
    pub ratio: bool,
}

/// The position of a metric in [`METRICS`].
pub fn metric_index(key: &str) -> usize {
    METRICS.iter().position(|m| m.key == key).unwrap_or_else(|| panic!("unknown metric {key}"))
}

/// Lower bounds on the makespan of a scenario, whatever the policy (Graham, "Bounds on
/// multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2), 1969, with release times):
/// no job ends before its submission plus its ideal run time (tightest feasible placement,
/// no contention), and the GPU-work submitted at or after any time `t` needs at least its
/// GPU-seconds over the cluster's GPUs after `t`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bounds {
    /// max over jobs of submission + ideal run time.
    pub critical_job_s: f64,
    /// max over submissions `t` of `t` + (GPU-seconds submitted at or after `t`) / GPUs.
    pub work_s: f64,
    /// The mean over jobs of the ideal run time: a floor under the mean JCT.
    pub mean_ideal_run_s: f64,
}

impl Bounds {
    pub fn makespan_s(&self) -> f64 {
        self.critical_job_s.max(self.work_s)
    }

    /// Of jobs sorted by submission (as a scenario holds them); jobs larger than the
    /// cluster, which are rejected, count for nothing.
    pub fn of(jobs: &[Job], gpus: u32) -> Bounds {
        let accepted: Vec<(f64, f64, f64)> = jobs
            .iter()
            .filter_map(|j| j.ideal_run_s().map(|run| (j.submit.as_secs_f64(), run, run * j.gpus as f64)))
            .collect();
        let critical_job_s = accepted.iter().map(|&(submit, run, _)| submit + run).fold(0.0, f64::max);
        let mut suffix = 0.0;
        let mut work_s: f64 = 0.0;
        for &(submit, _, work) in accepted.iter().rev() {
            suffix += work;
            work_s = work_s.max(submit + suffix / gpus.max(1) as f64);
        }
        let mean_ideal_run_s = if accepted.is_empty() {
            0.0
        } else {
            accepted.iter().map(|&(_, run, _)| run).sum::<f64>() / accepted.len() as f64
        };
        Bounds { critical_job_s, work_s, mean_ideal_run_s }
    }
}

/// What one run gives the report.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskResult {
    /// With ρ (per run and per tenant) when the plan computes it for the task and the
    /// scenario has several tenants.
    pub summary: Summary,
    /// Per entry of [`METRICS`].
    pub values: Vec<f64>,
    pub bounds: Bounds,
    /// Completed jobs' JCTs in job order, when the plan keeps them ([`Plan::keeps_jcts`]).
    pub jcts: Vec<f64>,
}

/// Runs one task. The Philly trace, parsed once by the caller, is needed when the task's
/// scenario takes a window of it.
pub fn run_task(plan: &Plan, task: &Task, philly: Option<&Trace>) -> Result<TaskResult, InputError> {
    let def = &plan.scenarios[task.scenario];
    let window = def
        .windows()
        .into_iter()
        .nth(task.window as usize)
        .ok_or_else(|| InputError::new("window", format!("scenario {} has no window {}", def.name, task.window)))?;
    let run = WindowRun {
        scenario: &def.name,
        topology: resolve_topology_arg(&def.topology)?,
        window: &window,
        mix: def.mix.as_deref(),
        seed: task.seed,
        policy: &task.policy,
        rho: plan.computes_rho(task),
        keep_jcts: plan.keeps_jcts(task),
    };
    run_window(run, philly)
}

/// One run, its inputs resolved: a policy on one window of a trace on a cluster already
/// built, under one seed. [`run_task`] makes one from a plan's task; an experiment whose
/// clusters are not parametric specs (a slice of a production topology read from a file)
/// builds the cluster itself and makes its own.
pub struct WindowRun<'a> {
    /// The scenario's name, for errors.
    pub scenario: &'a str,
    pub topology: Topology,
    pub window: &'a TraceRef,
    /// The model mix ([`super::plan::Workload::mix`]); `None`: the catalogue's default.
    pub mix: Option<&'a str>,
    pub seed: u64,
    pub policy: &'a str,
    /// Whether to make the isolated runs of finish-time fairness ρ (skipped anyway when
    /// the scenario's jobs belong to one tenant).
    pub rho: bool,
    /// Whether to keep the completed jobs' JCTs.
    pub keep_jcts: bool,
}

/// Runs one window. The Philly trace, parsed once by the caller, is needed when the window
/// is one of it.
pub fn run_window(run: WindowRun<'_>, philly: Option<&Trace>) -> Result<TaskResult, InputError> {
    let WindowRun { scenario: name, topology, window, mix, seed, policy, rho: wants_rho, keep_jcts } = run;
    let generated;
    let (trace, skip, limit): (&Trace, u32, Option<u32>) = match window {
        TraceRef::Philly { skip, limit } => {
            let philly = philly.ok_or_else(|| {
                InputError::new("philly", format!("scenario {name} needs the Philly trace, and none was given"))
            })?;
            (philly, *skip, Some(*limit))
        }
        TraceRef::Synthetic { .. } => {
            let spec = window.synthetic_spec().expect("a synthetic window has a spec");
            generated = synthetic_trace(&spec, topology.gpu_count(), seed)?;
            (&generated, 0, None)
        }
    };
    let catalog = Catalog::built_in();
    let mix = match mix {
        Some(mix) => ModelMix::parse(mix, &catalog)?,
        None => ModelMix::default_for(&catalog),
    };
    let options = WorkloadOptions { seed, skip, limit, mix };
    let scenario = Scenario::from_trace(topology, trace, &options, &window.label())?;
    let bounds = Bounds::of(&scenario.jobs, scenario.topology.gpu_count());
    // One tenant's ρ is 1 for every job: the report leaves it out.
    let with_rho = wants_rho && tenants_with_jobs(&scenario) > 1;
    let session = Session::of_one(scenario, policy).map_err(Problem::into_input_error)?;
    let options = RunOptions { rho: with_rho.then_some(&OneAfterAnother as _), ..RunOptions::default() };
    let finished = session.into_run(0, options).map_err(|failed| failed.problem)?;
    let summary = finished.summary().clone();
    let sim = finished.simulation;
    let jobs = &sim.scenario().jobs;
    let (mut single, mut multi, mut restore) = ((0.0, 0u32), (0.0, 0u32), 0.0);
    let mut jcts = Vec::new();
    for (job, run) in jobs.iter().zip(sim.runs()) {
        restore += run.restore_total.as_secs_f64();
        if run.status != JobStatus::Completed {
            continue;
        }
        let jct = (run.end.expect("completed jobs have an end") - job.submit).as_secs_f64();
        let class = if job.gpus == 1 { &mut single } else { &mut multi };
        class.0 += jct;
        class.1 += 1;
        jcts.push(jct);
    }
    if !keep_jcts {
        jcts = Vec::new();
    }
    let mean = |(total, n): (f64, u32)| if n > 0 { total / n as f64 } else { 0.0 };
    let values = METRICS
        .iter()
        .map(|m| match m.key {
            "avg_jct_s" => summary.avg_jct_s,
            "makespan_s" => summary.makespan_s,
            "p95_jct_s" => summary.p95_jct_s,
            "p99_jct_s" => summary.p99_jct_s,
            "avg_queue_s" => summary.avg_queue_s,
            "comm_overhead_s" => summary.comm_overhead_s,
            "comm_overhead_gpu_s" => summary.comm_overhead_gpu_s,
            "single_gpu_jct_s" => mean(single),
            "multi_gpu_jct_s" => mean(multi),
            "restore_s" => restore,
            "preemptions" => summary.preemptions as f64,
            "unfinished" => summary.jobs_unfinished as f64,
            "jain_slowdown" => summary.jain_slowdown,
            "job_preemptions_max" => summary.job_preemptions_max as f64,
            other => unreachable!("metric {other} has no source"),
        })
        .collect();
    Ok(TaskResult { summary, values, bounds, jcts })
}

/// How many tenants have jobs in the scenario.
fn tenants_with_jobs(scenario: &proxima_core::scenario::Scenario) -> usize {
    scenario.jobs.iter().map(|j| j.tenant).collect::<std::collections::BTreeSet<_>>().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::cluster::JobId;
    use proxima_core::time::SimTime;

    fn job(id: u32, submit: f64, gpus: u32, run_s: f64) -> Job {
        Job {
            id: JobId(id),
            name: format!("j{id}"),
            submit: SimTime::from_secs_f64(submit),
            gpus,
            model: proxima_core::model::ModelId(0),
            iterations: run_s,
            ideal_iter_s: Some(1.0),
            tenant: proxima_core::tenants::TenantId(0),
            line: 0,
        }
    }

    #[test]
    fn makespan_bounds_by_hand() {
        // Four GPUs. Job a: 4 GPUs × 100 s at 0; b: 1 × 300 s at 10; c: 4 × 50 s at 200.
        // Critical job: b ends no earlier than 10 + 300 = 310.
        // Work: from 0, (400 + 300 + 200) / 4 = 225; from 10, 10 + 500 / 4 = 135;
        // from 200, 200 + 200 / 4 = 250. So 250, and the bound is max(310, 250) = 310.
        let jobs = [job(0, 0.0, 4, 100.0), job(1, 10.0, 1, 300.0), job(2, 200.0, 4, 50.0)];
        let b = Bounds::of(&jobs, 4);
        assert_eq!((b.critical_job_s, b.work_s, b.makespan_s()), (310.0, 250.0, 310.0));
        assert_eq!(b.mean_ideal_run_s, 150.0);
        // On one GPU-equivalent the work dominates: 0 + 900 / 1 = 900 (a job larger than
        // the cluster would be rejected; the bound only sums what it is given).
        assert_eq!(Bounds::of(&jobs, 1).makespan_s(), 900.0);
    }

    #[test]
    fn rejected_jobs_count_for_nothing() {
        let mut big = job(1, 5.0, 64, 1e6);
        big.ideal_iter_s = None;
        let b = Bounds::of(&[job(0, 0.0, 2, 10.0), big], 4);
        assert_eq!((b.critical_job_s, b.work_s, b.mean_ideal_run_s), (10.0, 5.0, 10.0));
    }
}
