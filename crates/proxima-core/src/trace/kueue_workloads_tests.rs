//! Rules of the Kueue Workload reader, on workloads written as `kubectl get workloads -A
//! -o json` prints them.
#![allow(clippy::too_many_arguments)]

use crate::trace::{parse_trace, SkipReason, TraceFormat, TraceWork};

/// A Workload in kubectl's JSON: one pod set of `pods` pods of `gpus` GPUs (limits), and
/// conditions as (type, status, lastTransitionTime).
fn workload(name: &str, queue: &str, created: &str, pods: u32, gpus: u32, conditions: &[(&str, &str, &str)]) -> String {
    let conditions: Vec<String> = conditions
        .iter()
        .map(|(kind, status, time)| {
            format!("{{\"lastTransitionTime\": \"{time}\", \"reason\": \"R\", \"status\": \"{status}\", \"type\": \"{kind}\"}}")
        })
        .collect();
    format!(
        r#"{{
  "apiVersion": "kueue.x-k8s.io/v1beta1",
  "kind": "Workload",
  "metadata": {{"creationTimestamp": "{created}", "name": "{name}", "namespace": "team-a"}},
  "spec": {{
    "podSets": [{{"count": {pods}, "name": "main", "template": {{"spec": {{"containers": [
      {{"name": "c", "resources": {{"limits": {{"cpu": "8", "nvidia.com/gpu": "{gpus}"}}}}}}]}}}}}}],
    "queueName": "{queue}"
  }},
  "status": {{"conditions": [{}]}}
}}"#,
        conditions.join(", ")
    )
}

fn list(items: &[String]) -> String {
    format!("{{\"apiVersion\": \"v1\", \"items\": [\n{}\n], \"kind\": \"List\", \"metadata\": {{\"resourceVersion\": \"\"}}}}\n", items.join(",\n"))
}

const T0: &str = "2026-03-01T09:00:00Z";
const ADMITTED: (&str, &str, &str) = ("Admitted", "True", "2026-03-01T09:10:00Z");
const FINISHED: (&str, &str, &str) = ("Finished", "True", "2026-03-01T10:10:00Z");

#[test]
fn a_finished_workload_runs_from_admission_to_finish_with_count_times_gpus() {
    let trace = parse_trace(&list(&[workload("w1", "lq-a", T0, 2, 8, &[ADMITTED, FINISHED])])).unwrap();
    assert_eq!(trace.format, TraceFormat::KueueWorkloads);
    let job = &trace.jobs[0];
    assert_eq!((job.name.as_str(), job.gpus, job.tenant.as_deref()), ("team-a/w1", 16, Some("lq-a")));
    assert_eq!(job.work, TraceWork::DurationS(3_600.0));
    assert_eq!(job.submit_s, 1_772_355_600.0);
    assert_eq!(job.line, 2);
    assert!(trace.skipped.is_empty());
}

#[test]
fn a_failed_workload_used_its_gpus_and_is_kept() {
    let failed = ("Finished", "True", "2026-03-01T09:40:00Z");
    let trace = parse_trace(&list(&[workload("w1", "q", T0, 1, 4, &[ADMITTED, failed])])).unwrap();
    assert_eq!(trace.jobs[0].work, TraceWork::DurationS(1_800.0));
}

#[test]
fn pending_running_cpu_only_and_never_run_workloads_are_counted_not_read() {
    let items = [
        workload("done", "q", T0, 1, 8, &[ADMITTED, FINISHED]),
        workload("pending", "q", T0, 1, 8, &[("QuotaReserved", "False", T0)]),
        workload("running", "q", T0, 1, 8, &[ADMITTED]),
        workload("cpu", "q", T0, 4, 0, &[ADMITTED, FINISHED]),
        workload("quit", "q", T0, 1, 8, &[("Admitted", "False", T0), FINISHED]),
        workload("pending2", "q", T0, 1, 8, &[]),
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
fn an_evicted_workload_waits_and_a_readmitted_one_counts_from_its_last_admission() {
    // Evicted: Admitted turned False at the eviction; the workload waits to be readmitted.
    let evicted = [("Admitted", "False", "2026-03-01T09:30:00Z"), ("Evicted", "True", "2026-03-01T09:30:00Z")];
    // Readmitted at 09:50: the condition's time moved; the run before the eviction is lost.
    let readmitted = [
        ("Admitted", "True", "2026-03-01T09:50:00Z"),
        ("Evicted", "False", "2026-03-01T09:50:00Z"),
        ("Requeued", "True", "2026-03-01T09:35:00Z"),
        FINISHED,
    ];
    let trace =
        parse_trace(&list(&[workload("e", "q", T0, 1, 8, &evicted), workload("r", "q", T0, 1, 8, &readmitted)]))
            .unwrap();
    assert_eq!(trace.jobs.len(), 1);
    assert_eq!(trace.jobs[0].work, TraceWork::DurationS(1_200.0));
    assert_eq!(trace.skipped[0].reason, SkipReason::Pending);
}

#[test]
fn every_pod_set_counts_and_partial_admission_runs_the_admitted_pods() {
    let yaml = "apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: js
  namespace: ml
  creationTimestamp: 2026-03-01T09:00:00+01:00
spec:
  queueName: lq
  podSets:
  - name: driver
    count: 1
    template:
      spec:
        containers:
        - resources: {requests: {nvidia.com/gpu: 1}}
  - name: workers
    count: 8
    template:
      spec:
        containers:
        - resources: {requests: {nvidia.com/gpu: 4}}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: workers
      count: 6
  conditions:
  - type: Admitted
    status: \"True\"
    lastTransitionTime: 2026-03-01T08:05:00Z
  - type: Finished
    status: \"True\"
    lastTransitionTime: 2026-03-01T08:06:40Z
";
    let trace = parse_trace(yaml).unwrap();
    let job = &trace.jobs[0];
    assert_eq!((job.name.as_str(), job.gpus, job.line), ("ml/js", 25, 1));
    assert_eq!(job.submit_s, 1_772_352_000.0);
    assert_eq!(job.work, TraceWork::DurationS(100.0));
}

#[test]
fn yaml_and_json_listings_read_the_same() {
    let json = list(&[workload("w1", "q", T0, 2, 8, &[ADMITTED, FINISHED])]);
    let yaml = "apiVersion: v1
items:
- apiVersion: kueue.x-k8s.io/v1beta1
  kind: Workload
  metadata: {creationTimestamp: \"2026-03-01T09:00:00Z\", name: w1, namespace: team-a}
  spec:
    queueName: q
    podSets:
    - count: 2
      name: main
      template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
  status:
    conditions:
    - {type: Admitted, status: \"True\", lastTransitionTime: \"2026-03-01T09:10:00Z\"}
    - {type: Finished, status: \"True\", lastTransitionTime: \"2026-03-01T10:10:00Z\"}
kind: List
";
    let (a, b) = (parse_trace(&json).unwrap(), parse_trace(yaml).unwrap());
    assert_eq!(a.jobs[0].work, b.jobs[0].work);
    assert_eq!(
        (a.jobs[0].gpus, &a.jobs[0].name, &a.jobs[0].tenant),
        (b.jobs[0].gpus, &b.jobs[0].name, &b.jobs[0].tenant)
    );
}

#[test]
fn a_bad_time_names_the_item_and_condition() {
    let mut items: Vec<String> =
        (0..4).map(|i| workload(&format!("w{i}"), "q", T0, 1, 1, &[ADMITTED, FINISHED])).collect();
    items[3] = workload("w3", "q", T0, 1, 1, &[ADMITTED, ("Finished", "True", "2026-03-01 10:10")]);
    let text = list(&items);
    let e = parse_trace(&text).unwrap_err();
    assert_eq!(e.field, "items[3].status.conditions[1].lastTransitionTime");
    assert!(e.message.contains("got '2026-03-01 10:10'"), "{}", e.message);
    let line = text.lines().position(|l| l.contains("2026-03-01 10:10")).unwrap() as u32 + 1;
    assert_eq!(e.line, Some(line));
}

#[test]
fn a_workload_finished_before_its_admission_is_refused() {
    let early = ("Finished", "True", "2026-03-01T09:05:00Z");
    let e = parse_trace(&list(&[workload("w", "q", T0, 1, 1, &[ADMITTED, early])])).unwrap_err();
    assert_eq!(e.field, "items[0].status.conditions[1].lastTransitionTime");
    assert!(e.message.contains("finished 300 s before it was admitted"), "{}", e.message);
}

#[test]
fn missing_fields_and_duplicates_are_named() {
    let no_time = workload("w", "q", T0, 1, 1, &[ADMITTED, FINISHED])
        .replace("\"creationTimestamp\": \"2026-03-01T09:00:00Z\", ", "");
    let e = parse_trace(&list(&[no_time])).unwrap_err();
    assert_eq!((e.field.as_str(), e.message.as_str()), ("items[0].metadata.creationTimestamp", "missing"));
    let twice = list(&[workload("w", "q", T0, 1, 1, &[ADMITTED, FINISHED]), workload("w", "q", T0, 1, 1, &[])]);
    let e = parse_trace(&twice).unwrap_err();
    assert_eq!(e.field, "items[1].metadata.name");
    assert!(e.message.starts_with("'team-a/w' is already the object on line 2"), "{}", e.message);
    let bad_count = workload("w", "q", T0, 1, 1, &[]).replace("\"count\": 1", "\"count\": \"two\"");
    let e = parse_trace(&list(&[bad_count])).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.message.as_str()),
        ("items[0].spec.podSets[0].count", "expected a whole number, got 'two'")
    );
}

#[test]
fn a_history_with_no_finished_gpu_workload_is_refused_with_the_reasons() {
    let e = parse_trace(&list(&[workload("a", "q", T0, 1, 8, &[ADMITTED]), workload("b", "q", T0, 1, 0, &[])]))
        .unwrap_err();
    assert_eq!(e.field, "status");
    assert!(e.message.starts_with("no finished GPU jobs among the 2 Workloads: 1 job still running"), "{}", e.message);
}

#[test]
fn a_single_object_without_a_namespace_or_queue_reads() {
    let text = workload("w", "", T0, 1, 2, &[ADMITTED, FINISHED]).replace(", \"namespace\": \"team-a\"", "");
    let trace = parse_trace(&text).unwrap();
    assert_eq!((trace.jobs[0].name.as_str(), trace.jobs[0].tenant.as_deref()), ("w", None));
}

#[test]
fn a_queue_name_used_in_two_namespaces_keeps_its_namespace() {
    let other = workload("w2", "shared", T0, 1, 1, &[ADMITTED, FINISHED]).replace("team-a", "team-b");
    let items = [
        workload("w1", "shared", T0, 1, 1, &[ADMITTED, FINISHED]),
        other,
        workload("w3", "own", T0, 1, 1, &[ADMITTED, FINISHED]),
    ];
    let trace = parse_trace(&list(&items)).unwrap();
    let tenants: Vec<_> = trace.jobs.iter().map(|j| j.tenant.clone().unwrap()).collect();
    assert_eq!(tenants, ["team-a/shared", "team-b/shared", "own"]);
}

#[test]
fn a_pod_set_without_a_count_runs_one_pod_as_the_api_defaults() {
    let text = workload("w", "q", T0, 1, 4, &[ADMITTED, FINISHED]).replace("\"count\": 1, ", "");
    assert_eq!(parse_trace(&text).unwrap().jobs[0].gpus, 4);
}
