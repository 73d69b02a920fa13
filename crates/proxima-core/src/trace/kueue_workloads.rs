//! Kueue `Workload` objects (`kueue.x-k8s.io/v1beta1` or `v1beta2`) as `kubectl get
//! workloads -A -o json` (or `-o yaml`) prints them, read as a job history.
//!
//! What Kueue says of them (kubernetes-sigs/kueue, `apis/kueue/v1beta2/workload_types.go`
//! and `pkg/workload`): a Workload is the unit of admission, created for each Job (or
//! JobSet, PyTorchJob, ...) submitted to a LocalQueue (`spec.queueName`); its `spec.podSets`
//! each run `count` pods of a pod `template`; its `status.conditions` are
//! `metav1.Condition`s, one per type, whose `lastTransitionTime` is when the type last
//! changed status: `QuotaReserved`, `Admitted` (quota reserved and admission checks passed:
//! the pods may start), `Evicted`, `Requeued`, `Finished` (reason `Succeeded` or `Failed`).
//! Finishing sets `Finished` and leaves `Admitted` as it was. How a Workload becomes a job
//! (see `docs/FORMATS.md`):
//!
//! - The name is `namespace/name`; the submission is `metadata.creationTimestamp`.
//! - The GPUs are the sum over the pod sets of the pods times one pod's `nvidia.com/gpu`
//!   ([`super::kube_history::pod_gpus`]); the pods are the admitted count of the pod set in
//!   `status.admission.podSetAssignments` when there is one (partial admission runs fewer
//!   pods than `count`), else `count`.
//! - The run time is `Finished` minus `Admitted`, both `True`. An evicted workload has
//!   `Admitted` `False` until it is admitted again, and the new admission moves the
//!   condition's time: the history keeps only the last run, so a workload preempted and
//!   readmitted counts from its last admission (the GPU time of the runs before is lost).
//! - The tenant is the LocalQueue, `spec.queueName`, written `namespace/queueName` when
//!   the file has a queue of that name in more than one namespace (a LocalQueue's name is
//!   only unique in its namespace).
//! - Left out and counted: workloads whose pods ask for no GPU (CPU-only), those not
//!   finished and not admitted (pending, also when evicted and waiting to be readmitted),
//!   those admitted and not finished (still running), and those finished without an
//!   admission in force or within the second they were admitted (they never ran).
//!   A workload that finished with reason `Failed` held its GPUs all the same: it is kept.

use super::kube_history::{
    child, gpu_total, object_name, pod_gpus, read_each, required, timestamp, timestamp_at, whole, Object,
};
use super::{SkipReason, Trace, TraceFormat, TraceJob, TraceWork};
use crate::error::InputError;
use crate::topology::formats::yaml::{self, Node};
use std::collections::BTreeMap;

/// The jobs of the Workloads of a file, in the file's order.
pub(super) fn read(objects: &[Object]) -> Result<Trace, InputError> {
    let (mut jobs, tally) = read_each(objects, read_one)?;
    qualify_shared_queue_names(&mut jobs);
    tally.finish(TraceFormat::KueueWorkloads, jobs, "Workloads")
}

/// Names each job's tenant by its LocalQueue: `queueName` alone, which reads well in tables,
/// but `namespace/queueName` for a queue name used in several namespaces (a LocalQueue is
/// only unique in its namespace, and clusters often give every namespace a queue of the
/// same name). The reader stores the qualified name; this takes the namespace off where it
/// is not needed.
fn qualify_shared_queue_names(jobs: &mut [TraceJob]) {
    let mut namespaces: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for tenant in jobs.iter().filter_map(|j| j.tenant.as_deref()) {
        if let Some((namespace, queue)) = tenant.split_once('/') {
            namespaces.entry(queue.to_string()).or_default().insert(namespace.to_string());
        }
    }
    for job in jobs.iter_mut() {
        let Some((_, queue)) = job.tenant.as_deref().and_then(|t| t.split_once('/')) else { continue };
        if namespaces.get(queue).is_some_and(|n| n.len() == 1) {
            job.tenant = Some(queue.to_string());
        }
    }
}

/// One Workload: its job, or why it makes none.
fn read_one(object: &Object, seen: &mut BTreeMap<String, u32>) -> Result<Result<TraceJob, SkipReason>, InputError> {
    let path = &object.path;
    let name = object_name(object, seen)?;
    let metadata = required(object.node, "metadata", &format!("{path}metadata"))?;
    let submit_s = timestamp(metadata, "creationTimestamp", &format!("{path}metadata.creationTimestamp"))?;
    let spec = required(object.node, "spec", &format!("{path}spec"))?;
    let status = child(object.node, "status");
    let gpus = workload_gpus(spec, status, path)?;
    let conditions = Conditions::of(status, path)?;
    let ((admitted, _, _), (finished, finished_field, finished_line)) = match (conditions.admitted, conditions.finished)
    {
        _ if gpus == 0 => return Ok(Err(SkipReason::CpuOnly)),
        (Some(_), None) => return Ok(Err(SkipReason::StillRunning)),
        (None, None) => return Ok(Err(SkipReason::Pending)),
        (None, Some(_)) => return Ok(Err(SkipReason::NeverRan)),
        (Some(admitted), Some(finished)) => (admitted, finished),
    };
    let run_s = finished - admitted;
    if run_s < 0.0 {
        return Err(InputError::at_line(
            finished_line,
            finished_field,
            format!("the workload finished {:.0} s before it was admitted", -run_s),
        ));
    }
    if run_s == 0.0 {
        return Ok(Err(SkipReason::NeverRan));
    }
    let queue = child(spec, "queueName").and_then(yaml::scalar_text).filter(|q| !q.is_empty());
    let namespace = name.split_once('/').map(|(namespace, _)| namespace);
    let tenant = queue.map(|q| namespace.map_or(q.clone(), |ns| format!("{ns}/{q}")));
    Ok(Ok(TraceJob {
        name,
        submit_s,
        gpus: gpu_total(gpus, yaml::line(spec), &format!("{path}spec.podSets"))?,
        model: None,
        work: TraceWork::DurationS(run_s),
        batch: None,
        tenant,
        line: yaml::line(object.node),
    }))
}

/// The GPUs of every pod set: pods (admitted, else asked for) times one pod's GPUs.
fn workload_gpus(spec: &Node, status: Option<&Node>, path: &str) -> Result<u64, InputError> {
    let admitted = admitted_counts(status, path)?;
    let field = format!("{path}spec.podSets");
    let mut total = 0u64;
    for (i, pod_set) in yaml::items(required(spec, "podSets", &field)?, &field)?.iter().enumerate() {
        let here = format!("{field}[{i}]");
        let name = child(pod_set, "name").and_then(yaml::scalar_text).unwrap_or_else(|| "main".to_string());
        let pods = match admitted.get(&name) {
            Some(&count) => count,
            // The API defaults a missing count to 1.
            None => whole(pod_set, "count", &format!("{here}.count"), Some(1))?,
        };
        let template = required(pod_set, "template", &format!("{here}.template"))?;
        total = total.saturating_add(pods.saturating_mul(pod_gpus(template, &format!("{here}.template"))?));
    }
    Ok(total)
}

/// The pods admitted of each pod set, by pod set name, from `status.admission`.
fn admitted_counts(status: Option<&Node>, path: &str) -> Result<BTreeMap<String, u64>, InputError> {
    let mut counts = BTreeMap::new();
    let Some(assignments) = status.and_then(|s| child(s, "admission")).and_then(|a| child(a, "podSetAssignments"))
    else {
        return Ok(counts);
    };
    let field = format!("{path}status.admission.podSetAssignments");
    for (i, assignment) in yaml::items(assignments, &field)?.iter().enumerate() {
        let Some(name) = child(assignment, "name").and_then(yaml::scalar_text) else { continue };
        if child(assignment, "count").is_some() {
            counts.insert(name, whole(assignment, "count", &format!("{field}[{i}].count"), None)?);
        }
    }
    Ok(counts)
}

/// The times of the conditions a run is read from, when their status is `True`, each with
/// its field path and line.
struct Conditions {
    admitted: Option<(f64, String, u32)>,
    finished: Option<(f64, String, u32)>,
}

impl Conditions {
    fn of(status: Option<&Node>, path: &str) -> Result<Conditions, InputError> {
        let mut out = Conditions { admitted: None, finished: None };
        let Some(list) = status.and_then(|s| child(s, "conditions")) else {
            return Ok(out);
        };
        let field = format!("{path}status.conditions");
        for (i, condition) in yaml::items(list, &field)?.iter().enumerate() {
            let here = format!("{field}[{i}]");
            let kind = yaml::required_text(condition, "type", &format!("{here}.type"))?;
            let slot = match kind.as_str() {
                "Admitted" => &mut out.admitted,
                "Finished" => &mut out.finished,
                _ => continue,
            };
            let state = yaml::required_text(condition, "status", &format!("{here}.status"))?;
            if state != "True" {
                continue;
            }
            let time_field = format!("{here}.lastTransitionTime");
            let (time, line) = timestamp_at(condition, "lastTransitionTime", &time_field)?;
            *slot = Some((time, time_field, line));
        }
        Ok(out)
    }
}

#[cfg(test)]
#[path = "kueue_workloads_tests.rs"]
mod tests;
