//! Rules of the Volcano Job reader, on jobs written as `kubectl get vcjob -A -o json`
//! prints them.

use super::parse_go_duration;
use crate::trace::{parse_trace, SkipReason, TraceFormat, TraceWork};

/// A Volcano Job in kubectl's JSON: tasks of (replicas, GPUs per pod), the state's phase and
/// time, and conditions as (phase, time).
fn vcjob(name: &str, tasks: &[(u32, u32)], phase: &str, at: &str, conditions: &[(&str, &str)]) -> String {
    let tasks: Vec<String> = tasks
        .iter()
        .enumerate()
        .map(|(i, (replicas, gpus))| {
            format!(
                "{{\"name\": \"t{i}\", \"replicas\": {replicas}, \"template\": {{\"spec\": {{\"containers\": [{{\"name\": \"c\", \"resources\": {{\"limits\": {{\"nvidia.com/gpu\": \"{gpus}\"}}}}}}]}}}}}}"
            )
        })
        .collect();
    let conditions: Vec<String> =
        conditions.iter().map(|(p, t)| format!("{{\"lastTransitionTime\": \"{t}\", \"status\": \"{p}\"}}")).collect();
    format!(
        r#"{{
  "apiVersion": "batch.volcano.sh/v1alpha1",
  "kind": "Job",
  "metadata": {{"creationTimestamp": "2026-03-01T09:00:00Z", "name": "{name}", "namespace": "ml"}},
  "spec": {{"minAvailable": 1, "queue": "research", "schedulerName": "volcano", "tasks": [{}]}},
  "status": {{"conditions": [{}], "state": {{"lastTransitionTime": "{at}", "phase": "{phase}"}}}}
}}"#,
        tasks.join(", "),
        conditions.join(", ")
    )
}

fn list(items: &[String]) -> String {
    format!("{{\"apiVersion\": \"v1\", \"items\": [\n{}\n], \"kind\": \"List\"}}\n", items.join(",\n"))
}

const PENDING: (&str, &str) = ("Pending", "2026-03-01T09:00:01Z");
const RUNNING: (&str, &str) = ("Running", "2026-03-01T09:05:00Z");
const END: &str = "2026-03-01T11:05:00Z";

#[test]
fn a_completed_job_runs_from_its_first_running_to_its_end() {
    let job = vcjob(
        "j",
        &[(1, 1), (4, 8)],
        "Completed",
        END,
        &[PENDING, RUNNING, ("Completing", "2026-03-01T11:04:00Z"), ("Completed", END)],
    );
    let trace = parse_trace(&list(&[job])).unwrap();
    assert_eq!(trace.format, TraceFormat::VolcanoJobs);
    let job = &trace.jobs[0];
    assert_eq!((job.name.as_str(), job.gpus, job.tenant.as_deref()), ("ml/j", 33, Some("research")));
    assert_eq!(job.work, TraceWork::DurationS(7_200.0));
}

#[test]
fn restarts_count_from_the_first_run_and_the_state_time_stands_in_for_a_missing_condition() {
    let conditions = [PENDING, RUNNING, ("Restarting", "2026-03-01T09:30:00Z"), ("Running", "2026-03-01T09:31:00Z")];
    let trace = parse_trace(&list(&[vcjob("j", &[(2, 8)], "Failed", END, &conditions)])).unwrap();
    assert_eq!(trace.jobs[0].work, TraceWork::DurationS(7_200.0), "a failed job held its GPUs");
}

#[test]
fn without_conditions_the_running_duration_gives_the_run_time() {
    let job =
        vcjob("j", &[(1, 8)], "Completed", END, &[]).replace("\"conditions\": []", "\"runningDuration\": \"1h2m3.5s\"");
    let trace = parse_trace(&job).unwrap();
    assert_eq!(trace.jobs[0].work, TraceWork::DurationS(3_723.5));
    let bad = job.replace("1h2m3.5s", "an hour");
    let e = parse_trace(&bad).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.message.as_str()),
        ("status.runningDuration", "expected a duration like 1h2m3s, got 'an hour'")
    );
}

#[test]
fn pending_running_cpu_only_and_never_run_jobs_are_counted_not_read() {
    let items = [
        vcjob("done", &[(1, 8)], "Completed", END, &[RUNNING, ("Completed", END)]),
        vcjob("waiting", &[(1, 8)], "Pending", END, &[PENDING]),
        vcjob("running", &[(1, 8)], "Running", END, &[PENDING, RUNNING]),
        vcjob("cpu", &[(4, 0)], "Completed", END, &[RUNNING, ("Completed", END)]),
        vcjob("aborted", &[(1, 8)], "Aborted", END, &[PENDING, ("Aborted", END)]),
        vcjob("fresh", &[(1, 8)], "Pending", END, &[]).replace(
            ",\n  \"status\": {\"conditions\": [], \"state\": {\"lastTransitionTime\": \"2026-03-01T11:05:00Z\", \"phase\": \"Pending\"}}",
            "",
        ),
    ];
    let trace = parse_trace(&list(&items)).unwrap();
    assert_eq!(trace.jobs.len(), 1);
    let counts: Vec<(SkipReason, u32)> = trace.skipped.iter().map(|s| (s.reason, s.rows)).collect();
    assert_eq!(
        counts,
        [(SkipReason::Pending, 2), (SkipReason::StillRunning, 1), (SkipReason::CpuOnly, 1), (SkipReason::NeverRan, 1)]
    );
}

#[test]
fn bad_phases_and_times_are_named_by_their_path() {
    let e = parse_trace(&list(&[vcjob("j", &[(1, 8)], "Finished", END, &[])])).unwrap_err();
    assert_eq!(e.field, "items[0].status.state.phase");
    assert!(e.message.starts_with("unknown phase 'Finished' (Volcano's are Pending, Running"), "{}", e.message);
    let job = vcjob("j", &[(1, 8)], "Completed", END, &[PENDING, ("Running", "09:05")]);
    let e = parse_trace(&list(&[job])).unwrap_err();
    assert_eq!(e.field, "items[0].status.conditions[1].lastTransitionTime");
    let early = vcjob("j", &[(1, 8)], "Completed", "2026-03-01T09:04:00Z", &[RUNNING]);
    let e = parse_trace(&list(&[early])).unwrap_err();
    assert_eq!(e.field, "items[0].status.state.lastTransitionTime");
    assert!(e.message.contains("ended (Completed) 60 s before it first ran"), "{}", e.message);
    let e = parse_trace(&list(&[
        vcjob("j", &[(1, 8)], "Completed", END, &[]).replace("\"replicas\": 1", "\"replicas\": -1")
    ]))
    .unwrap_err();
    assert_eq!(e.field, "items[0].spec.tasks[0].replicas");
}

#[test]
fn yaml_documents_read_as_well() {
    let yaml = "apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: a
  namespace: ml
  creationTimestamp: 2026-03-01T09:00:00Z
spec:
  queue: research
  tasks:
  - replicas: 2
    template:
      spec:
        containers:
        - resources:
            requests: {nvidia.com/gpu: 8}
status:
  state: {phase: Completed, lastTransitionTime: 2026-03-01T10:00:00Z}
  conditions:
  - {status: Running, lastTransitionTime: 2026-03-01T09:30:00Z}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: b, namespace: ml, creationTimestamp: 2026-03-01T09:10:00Z}
spec:
  tasks:
  - replicas: 1
    template: {spec: {containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]}}
status:
  state: {phase: Running, lastTransitionTime: 2026-03-01T09:20:00Z}
";
    let trace = parse_trace(yaml).unwrap();
    assert_eq!((trace.jobs[0].gpus, trace.jobs[0].work), (16, TraceWork::DurationS(1_800.0)));
    assert_eq!((trace.skipped[0].reason, trace.skipped[0].first_line), (SkipReason::StillRunning, 21));
}

#[test]
fn go_durations_read_as_metav1_prints_them() {
    assert_eq!(parse_go_duration("1h2m3s"), Ok(3_723.0));
    assert_eq!(parse_go_duration("45m0s"), Ok(2_700.0));
    assert_eq!(parse_go_duration("1.5h"), Ok(5_400.0));
    assert_eq!(parse_go_duration("300ms"), Ok(0.3));
    assert_eq!(parse_go_duration("0s"), Ok(0.0));
    for bad in ["", "1d", "h", "-1s", "1h2"] {
        assert!(parse_go_duration(bad).is_err(), "{bad}");
    }
}

#[test]
fn phases_on_the_way_out_are_running_if_the_job_ran_and_a_terminated_job_that_ran_is_kept() {
    let items = [
        vcjob("stopping", &[(1, 8)], "Terminating", END, &[PENDING, RUNNING]),
        vcjob("aborting", &[(1, 8)], "Aborting", END, &[PENDING]),
        vcjob("killed", &[(1, 8)], "Terminated", END, &[PENDING, RUNNING, ("Terminating", END)]),
    ];
    let trace = parse_trace(&list(&items)).unwrap();
    assert_eq!((trace.jobs.len(), trace.jobs[0].name.as_str()), (1, "ml/killed"));
    assert_eq!(trace.jobs[0].work, TraceWork::DurationS(7_200.0));
    let counts: Vec<(SkipReason, u32)> = trace.skipped.iter().map(|s| (s.reason, s.rows)).collect();
    assert_eq!(counts, [(SkipReason::StillRunning, 1), (SkipReason::Pending, 1)]);
}
