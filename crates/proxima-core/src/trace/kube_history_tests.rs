use super::*;
use crate::trace::parse_trace;

fn pod_gpus_of(yaml_text: &str) -> Result<u64, InputError> {
    let docs = yaml::documents(yaml_text).unwrap();
    pod_gpus(&docs[0], "template")
}

#[test]
fn rfc3339_times_apply_their_zone_and_keep_fractions() {
    assert_eq!(parse_rfc3339("1970-01-02T00:00:00Z"), Ok(86_400.0));
    assert_eq!(parse_rfc3339("1970-01-02T02:00:00+02:00"), Ok(86_400.0));
    assert_eq!(parse_rfc3339("1970-01-01T23:30:00-00:30"), Ok(86_400.0));
    assert_eq!(parse_rfc3339("1970-01-02t00:00:00.250z"), Ok(86_400.25));
    assert_eq!(parse_rfc3339("2026-03-01T09:15:00Z"), Ok(1_772_356_500.0));
    for bad in
        ["2026-03-01 09:15:00Z", "2026-03-01T09:15:00", "2026-03-01T09:15:00+2", "2026-03-01T09:15:00.Z", "yesterday"]
    {
        assert!(parse_rfc3339(bad).unwrap_err().starts_with("expected an RFC 3339 time"), "{bad}");
    }
    assert!(parse_rfc3339("2026-02-30T00:00:00Z").unwrap_err().contains("day 30 does not exist"));
    assert!(parse_rfc3339("1970-01-01T00:00:00+01:00").unwrap_err().contains("before 1970"));
}

#[test]
fn kubernetes_text_is_told_from_proxima_json_and_csv() {
    assert!(looks_like_kubernetes("{\n  \"apiVersion\": \"v1\",\n  \"items\": []\n}"));
    assert!(looks_like_kubernetes("\u{feff}# history\napiVersion: v1\nkind: List\n"));
    assert!(looks_like_kubernetes("---\nkind: Workload\n"));
    assert!(!looks_like_kubernetes("{\"version\": 1, \"jobs\": []}"));
    assert!(!looks_like_kubernetes("[{\"id\": \"a\"}]"));
    assert!(!looks_like_kubernetes("id,submit_s,gpus,duration_s\n"));
}

#[test]
fn a_pod_asks_for_its_containers_gpus_from_requests_else_limits() {
    let two = "spec:\n  containers:\n  - resources: {requests: {nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: 2}}\n  - resources: {limits: {nvidia.com/gpu: \"3\"}}\n  - resources: {requests: {cpu: 4}}\n  - name: no-resources\n";
    assert_eq!(pod_gpus_of(two).unwrap(), 5);
    assert_eq!(pod_gpus_of("metadata: {}\n").unwrap(), 0);
    let e =
        pod_gpus_of("spec:\n  containers:\n  - resources:\n      limits:\n        nvidia.com/gpu: 1.5\n").unwrap_err();
    assert_eq!(e.field, "template.spec.containers[0].resources.limits.nvidia.com/gpu");
    assert_eq!((e.line, e.message.as_str()), (Some(5), "expected a whole number of GPUs, got '1.5'"));
}

#[test]
fn init_containers_count_as_kubernetes_counts_them() {
    // An ordinary init container runs before the others: the pod needs the larger of the two.
    let init = "spec:\n  initContainers:\n  - resources: {limits: {nvidia.com/gpu: 8}}\n  containers:\n  - resources: {limits: {nvidia.com/gpu: 4}}\n";
    assert_eq!(pod_gpus_of(init).unwrap(), 8);
    // A sidecar (restartPolicy Always) keeps running beside the containers and the init
    // containers after it.
    let sidecar = "spec:\n  initContainers:\n  - restartPolicy: Always\n    resources: {limits: {nvidia.com/gpu: 1}}\n  - resources: {limits: {nvidia.com/gpu: 4}}\n  containers:\n  - resources: {limits: {nvidia.com/gpu: 2}}\n";
    assert_eq!(pod_gpus_of(sidecar).unwrap(), 5);
    let small_init = "spec:\n  initContainers:\n  - resources: {limits: {nvidia.com/gpu: 1}}\n  containers:\n  - resources: {limits: {nvidia.com/gpu: 4}}\n";
    assert_eq!(pod_gpus_of(small_init).unwrap(), 4);
}

#[test]
fn other_objects_are_not_read_and_a_file_without_a_history_is_refused() {
    let e = parse_trace("apiVersion: v1\nkind: List\nitems:\n- apiVersion: kueue.x-k8s.io/v1beta1\n  kind: LocalQueue\n  metadata: {name: q}\n").unwrap_err();
    assert_eq!(e.field, "kind");
    assert!(e.message.starts_with("no job history in the file (1 LocalQueue)"), "{}", e.message);
    let e = parse_trace("{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": []}").unwrap_err();
    assert!(e.message.starts_with("no job history in the file (no objects)"), "{}", e.message);
}

#[test]
fn a_kubernetes_job_is_not_taken_for_a_volcano_job() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: batch/v1\n  kind: Job\n  metadata: {name: j}\n";
    let e = parse_trace(text).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(4), "items[0].apiVersion"));
    assert!(
        e.message.starts_with("a Job of apiVersion 'batch/v1' is a Kubernetes Job, not a Volcano Job"),
        "{}",
        e.message
    );
    assert!(e.message.contains("give their Workloads"), "{}", e.message);
    let e = parse_trace("apiVersion: example.com/v1\nkind: Workload\nmetadata: {name: w}\n").unwrap_err();
    assert_eq!(e.message, "a Workload of apiVersion 'example.com/v1' is not a Kueue Workload (kueue.x-k8s.io)");
}

#[test]
fn a_file_mixing_workloads_and_volcano_jobs_is_refused() {
    let text = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\n---\napiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\n";
    let e = parse_trace(text).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(5), "kind"));
    assert!(e.message.contains("both Kueue Workloads (line 1) and Volcano Jobs (line 5)"), "{}", e.message);
}

#[test]
fn a_list_item_that_is_not_an_object_is_named_by_its_path() {
    let e = parse_trace("{\"apiVersion\": \"v1\", \"kind\": \"List\",\n \"items\": [\n 3]}").unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(3), "items[0]"));
}

#[test]
fn a_syntax_error_names_the_language_of_the_file() {
    let e = parse_trace("{\"apiVersion\": \"v1\",\n \"items\": [\n}").unwrap_err();
    assert_eq!(e.field, "json");
    assert!(e.message.starts_with("not valid JSON: "), "{}", e.message);
    let e = parse_trace("apiVersion: v1\nitems: [\n").unwrap_err();
    assert_eq!(e.field, "yaml");
    assert!(e.message.starts_with("not valid YAML: "), "{}", e.message);
}
