//! Volcano `Job` objects (`batch.volcano.sh/v1alpha1`) as `kubectl get vcjob -A -o json`
//! (or `-o yaml`) prints them, read as a job history.
//!
//! What Volcano says of them (volcano-sh/apis, `pkg/apis/batch/v1alpha1/job.go`): a Job's
//! `spec.tasks` each run `replicas` pods of a pod `template`, in the Queue `spec.queue`; its
//! `status.state` holds the current `phase` (`Pending`, `Running`, `Restarting`,
//! `Completing`, `Completed`, `Aborting`, `Aborted`, `Terminating`, `Terminated`,
//! `Failed`) and the `lastTransitionTime` it entered it; `status.conditions` (newer
//! releases) record each phase the job entered (`status`) with its `lastTransitionTime`, and
//! `status.runningDuration` "the length of time from job running to complete" (a Go
//! duration such as `1h2m3s`). How a Job becomes a job (see `docs/FORMATS.md`):
//!
//! - The name is `namespace/name`; the submission is `metadata.creationTimestamp`; the
//!   tenant is the Queue, `spec.queue` (cluster-scoped, so without a namespace).
//! - The GPUs are the sum over the tasks of `replicas` times one pod's `nvidia.com/gpu`
//!   ([`super::kube_history::pod_gpus`]).
//! - A job ended in `Completed`, `Failed`, `Terminated` or `Aborted` ran from its first
//!   `Running` condition to its end: the last condition of its final phase, else
//!   `status.state.lastTransitionTime` (restarts in between are counted as run time). A job
//!   without a `Running` condition (older releases keep no conditions) runs for
//!   `status.runningDuration`; one with neither never ran (aborted while pending).
//! - Left out and counted: CPU-only jobs, pending jobs (phase `Pending`, or no status yet),
//!   jobs in any other phase that is not final (still running), and jobs that never ran.
//!   A `Failed` or `Aborted` job that ran held its GPUs all the same: it is kept.

use super::kube_history::{
    child, gpu_total, object_name, pod_gpus, read_each, required, timestamp, timestamp_at, whole, Object,
};
use super::{SkipReason, Trace, TraceFormat, TraceJob, TraceWork};
use crate::error::InputError;
use crate::topology::formats::yaml::{self, Node};
use std::collections::BTreeMap;

/// Volcano's job phases: the final ones first.
const FINAL_PHASES: [&str; 4] = ["Completed", "Failed", "Terminated", "Aborted"];
const OTHER_PHASES: [&str; 6] = ["Pending", "Running", "Restarting", "Completing", "Aborting", "Terminating"];

/// The jobs of the Volcano Jobs of a file, in the file's order.
pub(super) fn read(objects: &[Object]) -> Result<Trace, InputError> {
    let (jobs, tally) = read_each(objects, read_one)?;
    tally.finish(TraceFormat::VolcanoJobs, jobs, "Volcano Jobs")
}

/// One Volcano Job: its job, or why it makes none.
fn read_one(object: &Object, seen: &mut BTreeMap<String, u32>) -> Result<Result<TraceJob, SkipReason>, InputError> {
    let path = &object.path;
    let name = object_name(object, seen)?;
    let metadata = required(object.node, "metadata", &format!("{path}metadata"))?;
    let submit_s = timestamp(metadata, "creationTimestamp", &format!("{path}metadata.creationTimestamp"))?;
    let spec = required(object.node, "spec", &format!("{path}spec"))?;
    let gpus = job_gpus(spec, path)?;
    let run = run_seconds(child(object.node, "status"), path)?;
    let run_s = match run {
        _ if gpus == 0 => return Ok(Err(SkipReason::CpuOnly)),
        Err(reason) => return Ok(Err(reason)),
        Ok(run_s) => run_s,
    };
    let tenant = child(spec, "queue").and_then(yaml::scalar_text).filter(|q| !q.is_empty());
    Ok(Ok(TraceJob {
        name,
        submit_s,
        gpus: gpu_total(gpus, yaml::line(spec), &format!("{path}spec.tasks"))?,
        model: None,
        work: TraceWork::DurationS(run_s),
        batch: None,
        tenant,
        line: yaml::line(object.node),
    }))
}

/// The GPUs of every task: `replicas` pods times one pod's GPUs.
fn job_gpus(spec: &Node, path: &str) -> Result<u64, InputError> {
    let field = format!("{path}spec.tasks");
    let mut total = 0u64;
    for (i, task) in yaml::items(required(spec, "tasks", &field)?, &field)?.iter().enumerate() {
        let here = format!("{field}[{i}]");
        // `replicas` is omitted from the JSON when it is 0.
        let pods = whole(task, "replicas", &format!("{here}.replicas"), Some(0))?;
        let template = required(task, "template", &format!("{here}.template"))?;
        total = total.saturating_add(pods.saturating_mul(pod_gpus(template, &format!("{here}.template"))?));
    }
    Ok(total)
}

/// How long a job ran, or why it has no run time (pending, still running, never ran).
fn run_seconds(status: Option<&Node>, path: &str) -> Result<Result<f64, SkipReason>, InputError> {
    let Some(status) = status else {
        return Ok(Err(SkipReason::Pending)); // Not yet seen by the controller.
    };
    let state = child(status, "state");
    let phase_field = format!("{path}status.state.phase");
    let phase = match state.and_then(|s| child(s, "phase")) {
        Some(_) => yaml::required_text(state.expect("has a phase"), "phase", &phase_field)?,
        None => "Pending".to_string(),
    };
    if !FINAL_PHASES.contains(&phase.as_str()) && !OTHER_PHASES.contains(&phase.as_str()) {
        let line = state.and_then(|s| yaml::get(s, "phase")).map_or(yaml::line(status), yaml::line);
        return Err(InputError::at_line(
            line,
            phase_field,
            format!("unknown phase '{phase}' (Volcano's are {}, {})", OTHER_PHASES.join(", "), FINAL_PHASES.join(", ")),
        ));
    }
    let times = PhaseTimes::of(status, path)?;
    if !FINAL_PHASES.contains(&phase.as_str()) {
        let ran = times.first_running.is_some() || matches!(phase.as_str(), "Running" | "Completing" | "Restarting");
        return Ok(Err(if ran { SkipReason::StillRunning } else { SkipReason::Pending }));
    }
    let Some(start) = times.first_running else {
        return match child(status, "runningDuration") {
            Some(value) => {
                let field = format!("{path}status.runningDuration");
                let text = yaml::scalar_text(value).unwrap_or_default();
                let seconds =
                    parse_go_duration(text.trim()).map_err(|m| InputError::at_line(yaml::line(value), field, m))?;
                Ok(if seconds > 0.0 { Ok(seconds) } else { Err(SkipReason::NeverRan) })
            }
            None => Ok(Err(SkipReason::NeverRan)),
        };
    };
    let (end, end_field, end_line) = match times.last_of(&phase) {
        Some(end) => end,
        None => {
            let field = format!("{path}status.state.lastTransitionTime");
            let state = state.expect("a final phase was read from the state");
            let (time, line) = timestamp_at(state, "lastTransitionTime", &field)?;
            (time, field, line)
        }
    };
    if end < start {
        return Err(InputError::at_line(
            end_line,
            end_field,
            format!("the job ended ({phase}) {:.0} s before it first ran", start - end),
        ));
    }
    Ok(if end > start { Ok(end - start) } else { Err(SkipReason::NeverRan) })
}

/// The phases of `status.conditions` with their times, in the file's order.
struct PhaseTimes {
    first_running: Option<f64>,
    /// Each condition's phase, time, field path and line.
    all: Vec<(String, f64, String, u32)>,
}

impl PhaseTimes {
    fn of(status: &Node, path: &str) -> Result<PhaseTimes, InputError> {
        let mut out = PhaseTimes { first_running: None, all: Vec::new() };
        let Some(list) = child(status, "conditions") else {
            return Ok(out);
        };
        let field = format!("{path}status.conditions");
        for (i, condition) in yaml::items(list, &field)?.iter().enumerate() {
            let here = format!("{field}[{i}]");
            let phase = yaml::required_text(condition, "status", &format!("{here}.status"))?;
            // The time is optional in the API; a condition without one says nothing of when.
            if child(condition, "lastTransitionTime").is_none() {
                continue;
            }
            let time_field = format!("{here}.lastTransitionTime");
            let (time, line) = timestamp_at(condition, "lastTransitionTime", &time_field)?;
            if phase == "Running" && out.first_running.is_none_or(|first| time < first) {
                out.first_running = Some(time);
            }
            out.all.push((phase, time, time_field, line));
        }
        Ok(out)
    }

    /// The latest time the job entered `phase`.
    fn last_of(&self, phase: &str) -> Option<(f64, String, u32)> {
        self.all
            .iter()
            .filter(|(p, ..)| p == phase)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(_, time, field, line)| (*time, field.clone(), *line))
    }
}

/// Seconds of a Go duration as `metav1.Duration` prints it: `1h2m3.5s`, `45m0s`, `300ms`
/// (units `h`, `m`, `s`, `ms`, `us` or `µs`, `ns`; no sign: a run time is not negative).
pub(crate) fn parse_go_duration(value: &str) -> Result<f64, String> {
    let expected = || format!("expected a duration like 1h2m3s, got '{value}'");
    if value == "0" {
        return Ok(0.0);
    }
    let mut rest = value;
    let mut seconds = 0.0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(|c| c.is_ascii_digit() || *c == b'.').count();
        let number: f64 = rest[..digits].parse().map_err(|_| expected())?;
        rest = &rest[digits..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3_600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return Err(expected()),
        };
        seconds += number * scale;
        rest = &rest[unit_len..];
    }
    if value.is_empty() {
        return Err(expected());
    }
    Ok(seconds)
}

#[cfg(test)]
#[path = "volcano_jobs_tests.rs"]
mod tests;
