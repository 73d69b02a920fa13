//! Job histories as Kubernetes prints them: the objects of a `kubectl get ... -o json` (or
//! `-o yaml`) listing, and what the readers of Kueue `Workload`s (`kueue_workloads.rs`) and
//! Volcano `Job`s (`volcano_jobs.rs`) share: the walk through `List`s that keeps each
//! object's path (`items[3].`) for errors, RFC 3339 timestamps, the GPUs of a pod template
//! as Kubernetes counts them, and the tally of objects that make no job.
//!
//! The YAML layer is the topology importers' (`topology/formats/yaml.rs`, the `saphyr` crate), which
//! reads JSON as well, since JSON is YAML, and keeps every node's line.

use super::{SkipReason, Skipped, Trace, TraceFormat, TraceJob};
use crate::error::InputError;
use crate::topology::formats::yaml::{self, Node};
use crate::topology::formats::GPU_RESOURCE;
use crate::topology::MAX_GPUS;
use std::collections::BTreeMap;

/// The API group of Kueue's objects.
const KUEUE_GROUP: &str = "kueue.x-k8s.io/";
/// The API group of Volcano's batch objects (its `Job`).
const VOLCANO_GROUP: &str = "batch.volcano.sh/";

/// One object of the history: the node and the path that names it in errors (`items[3].`,
/// empty for a document of its own).
pub(super) struct Object<'n, 'a> {
    pub node: &'n Node<'a>,
    pub path: String,
}

/// Whether a text is Kubernetes objects rather than one of Proxima's own formats: a JSON
/// document with an `apiVersion` key (Proxima's JSON has none), or YAML whose first line
/// that is not blank or a comment starts a document or an object (`---`, `apiVersion:`,
/// `kind:`).
pub(super) fn looks_like_kubernetes(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text.trim_start();
    if body.starts_with('{') {
        return body.contains("\"apiVersion\"");
    }
    let first = text.lines().map(str::trim_start).find(|l| !l.trim().is_empty() && !l.starts_with('#'));
    first.is_some_and(|l| l.starts_with("---") || l.starts_with("apiVersion:") || l.starts_with("kind:"))
}

/// The reader of one kind of history object, given the objects of that kind.
pub(super) type HistoryReader = fn(&[Object]) -> Result<Trace, InputError>;

/// Reads a Kubernetes job history: Kueue `Workload`s (read by `workloads`) or Volcano `Job`s
/// (by `jobs`), chosen by what the file holds (one or the other, not both). Objects of other
/// kinds (queues listed alongside) are not read. The readers are passed in, because they
/// build on this module's walk: this module does not know them.
pub(super) fn parse(
    text: &str,
    workloads_reader: HistoryReader,
    jobs_reader: HistoryReader,
) -> Result<Trace, InputError> {
    let is_json = text.trim_start_matches('\u{feff}').trim_start().starts_with('{');
    let documents = yaml::documents(text).map_err(|e| {
        // JSON is read as the YAML it also is; its syntax errors say JSON, as the file does.
        if is_json {
            InputError {
                field: "json".to_string(),
                message: e.message.replacen("not valid YAML", "not valid JSON", 1),
                ..e
            }
        } else {
            e
        }
    })?;
    let mut objects = Vec::new();
    for document in &documents {
        // Documents of a stream are told apart by their lines; the path names a List's item.
        collect(document, String::new(), &mut objects)?;
    }
    let mut workloads = Vec::new();
    let mut jobs = Vec::new();
    let mut others: BTreeMap<String, u32> = BTreeMap::new();
    for object in objects {
        let kind = yaml::required_text(object.node, "kind", &format!("{}kind", object.path))?;
        let api = yaml::get(object.node, "apiVersion").and_then(yaml::scalar_text).unwrap_or_default();
        match kind.as_str() {
            "Workload" | "Job" => {
                let (group, reads) = match kind.as_str() {
                    "Workload" => (KUEUE_GROUP, "Kueue Workload (kueue.x-k8s.io)"),
                    _ => (VOLCANO_GROUP, "Volcano Job (batch.volcano.sh)"),
                };
                if !api.starts_with(group) {
                    return Err(foreign_api(&object, &kind, &api, reads));
                }
                if kind == "Workload" { &mut workloads } else { &mut jobs }.push(object);
            }
            _ => *others.entry(kind).or_default() += 1,
        }
    }
    match (workloads.first(), jobs.first()) {
        (Some(_), None) => workloads_reader(&workloads),
        (None, Some(_)) => jobs_reader(&jobs),
        (Some(w), Some(j)) => Err(InputError::at_line(
            yaml::line(j.node).max(yaml::line(w.node)),
            "kind",
            format!(
                "the file holds both Kueue Workloads (line {}) and Volcano Jobs (line {}): give one history per file",
                yaml::line(w.node),
                yaml::line(j.node)
            ),
        )),
        (None, None) => {
            let found: Vec<String> = others.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
            let found = if found.is_empty() { "no objects".to_string() } else { found.join(", ") };
            Err(InputError::at_line(
                1,
                "kind",
                format!("no job history in the file ({found}): Proxima reads Kueue Workloads (kubectl get workloads -A -o json) and Volcano Jobs (kubectl get vcjob -A -o json)"),
            ))
        }
    }
}

/// The error for a `Workload` or `Job` of another API group, such as a Kubernetes
/// `batch/v1` Job.
fn foreign_api(object: &Object, kind: &str, api: &str, reads: &str) -> InputError {
    let line = yaml::get(object.node, "apiVersion").map_or(yaml::line(object.node), yaml::line);
    let what = if api.is_empty() { "no apiVersion".to_string() } else { format!("apiVersion '{api}'") };
    let message = if kind == "Job" && api.starts_with("batch/") {
        format!("a Job of {what} is a Kubernetes Job, not a {reads}: for Jobs queued by Kueue, give their Workloads (kubectl get workloads -A -o json)")
    } else {
        format!("a {kind} of {what} is not a {reads}")
    };
    InputError::at_line(line, format!("{}apiVersion", object.path), message)
}

/// The objects of a document: the document itself, or the items of a `List` (`kind: List`,
/// `WorkloadList`, `JobList`), each with its path.
fn collect<'n, 'a>(node: &'n Node<'a>, path: String, out: &mut Vec<Object<'n, 'a>>) -> Result<(), InputError> {
    if yaml::is_null(node) {
        return Ok(()); // An empty document, as after a trailing `---`.
    }
    let field = if path.is_empty() { "kind".to_string() } else { path.trim_end_matches('.').to_string() };
    yaml::entries(node, &field)?;
    let kind = yaml::required_text(node, "kind", &format!("{path}kind"))?;
    if kind == "List" || kind.ends_with("List") {
        let Some(items) = yaml::get(node, "items").filter(|i| !yaml::is_null(i)) else {
            return Ok(()); // `kubectl get` prints an empty list as `items: []`, or without items.
        };
        for (i, item) in yaml::items(items, &format!("{path}items"))?.iter().enumerate() {
            collect(item, format!("{path}items[{i}]."), out)?;
        }
    } else {
        out.push(Object { node, path });
    }
    Ok(())
}

/// The child `key` of a mapping, if present and not null.
pub(super) fn child<'n, 'a>(node: &'n Node<'a>, key: &str) -> Option<&'n Node<'a>> {
    yaml::get(node, key).filter(|v| !yaml::is_null(v))
}

/// The child `key` of a mapping, which must be there; `field` names it in the error.
pub(super) fn required<'n, 'a>(node: &'n Node<'a>, key: &str, field: &str) -> Result<&'n Node<'a>, InputError> {
    child(node, key).ok_or_else(|| InputError::at_line(yaml::line(node), field, "missing"))
}

/// An object's name as `namespace/name` (just the name for an object without a namespace),
/// refused if another object of the file has it already.
pub(super) fn object_name(object: &Object, seen: &mut BTreeMap<String, u32>) -> Result<String, InputError> {
    let metadata = required(object.node, "metadata", &format!("{}metadata", object.path))?;
    let field = format!("{}metadata.name", object.path);
    let name = yaml::required_text(metadata, "name", &field)?;
    let name = match child(metadata, "namespace").and_then(yaml::scalar_text) {
        Some(namespace) if !namespace.is_empty() => format!("{namespace}/{name}"),
        _ => name,
    };
    let line = yaml::line(object.node);
    if let Some(first) = seen.insert(name.clone(), line) {
        seen.insert(name.clone(), first);
        return Err(InputError::at_line(line, field, format!("'{name}' is already the object on line {first}")));
    }
    Ok(name)
}

/// A timestamp field as [`timestamp`] reads it, with the line of its value.
pub(super) fn timestamp_at(owner: &Node, key: &str, field: &str) -> Result<(f64, u32), InputError> {
    let seconds = timestamp(owner, key, field)?;
    Ok((seconds, yaml::get(owner, key).map_or(yaml::line(owner), yaml::line)))
}

/// A timestamp field (`metadata.creationTimestamp`, a condition's `lastTransitionTime`) in
/// seconds since 1970 UTC.
pub(super) fn timestamp(owner: &Node, key: &str, field: &str) -> Result<f64, InputError> {
    let text = yaml::required_text(owner, key, field)?;
    let value = yaml::get(owner, key).expect("required_text found it");
    parse_rfc3339(text.trim()).map_err(|m| InputError::at_line(yaml::line(value), field, m))
}

/// Seconds since 1970-01-01T00:00:00Z of an RFC 3339 date-time as Kubernetes writes it
/// (`2026-03-01T09:15:00Z`), with optional fractions of a second (`.123456Z`, as
/// `metav1.MicroTime` has them) and a zone `Z` or `+HH:MM`/`-HH:MM` (the offset is applied).
pub(crate) fn parse_rfc3339(value: &str) -> Result<f64, String> {
    let expected = || format!("expected an RFC 3339 time like 2026-03-01T09:15:00Z, got '{value}'");
    if value.len() < 20 || !value.is_char_boundary(19) || !matches!(value.as_bytes()[10], b'T' | b't') {
        return Err(expected());
    }
    let (local, rest) = value.split_at(19);
    // RFC 3339 allows a lower-case `t`; the date-time reader takes the upper-case one.
    let whole = super::philly::parse_timestamp(&local.replacen('t', "T", 1)).map_err(|m| {
        if m.starts_with("expected") {
            expected()
        } else {
            m
        }
    })?;
    let (fraction, zone) = match rest.strip_prefix('.') {
        Some(tail) => {
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return Err(expected());
            }
            let fraction: f64 = format!("0.{}", &tail[..digits]).parse().map_err(|_| expected())?;
            (fraction, &tail[digits..])
        }
        None => (0.0, rest),
    };
    let offset = match zone {
        "Z" | "z" => 0,
        _ => zone_offset(zone).ok_or_else(expected)?,
    };
    let utc = whole + fraction - offset as f64;
    if utc < 0.0 {
        return Err(format!("'{value}' is before 1970"));
    }
    Ok(utc)
}

/// The seconds east of UTC of a zone `+HH:MM` or `-HH:MM`.
fn zone_offset(zone: &str) -> Option<i64> {
    let b = zone.as_bytes();
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    if b.len() != 6 || b[3] != b':' || !zone[1..3].bytes().chain(zone[4..6].bytes()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (hours, minutes): (i64, i64) = (zone[1..3].parse().ok()?, zone[4..6].parse().ok()?);
    (hours <= 23 && minutes <= 59).then_some(sign * (hours * 3_600 + minutes * 60))
}

/// A whole number field such as a pod set's `count` or a task's `replicas` (0 or more);
/// `default` when the key is absent.
pub(super) fn whole(owner: &Node, key: &str, field: &str, default: Option<u64>) -> Result<u64, InputError> {
    let Some(value) = child(owner, key) else {
        return default.ok_or_else(|| InputError::at_line(yaml::line(owner), field, "missing"));
    };
    let text = yaml::scalar_text(value).unwrap_or_default();
    text.trim().parse::<u64>().map_err(|_| {
        let got = if text.is_empty() { yaml::kind(value).to_string() } else { format!("'{text}'") };
        InputError::at_line(yaml::line(value), field, format!("expected a whole number, got {got}"))
    })
}

/// The GPUs one pod of a template asks for, as the scheduler counts a pod's request
/// (`PodRequests` in Kubernetes' resource helpers): the regular containers' sum, plus the
/// sidecars (init containers with `restartPolicy: Always`, which keep running beside them);
/// an ordinary init container runs alone before them, next to the sidecars started before
/// it, so the pod needs the larger of the two. Each container's `nvidia.com/gpu` is its
/// request, else its limit (for extended resources Kubernetes sets the request to the limit
/// when only the limit is given). `template` is the pod template; `field` its path.
pub(super) fn pod_gpus(template: &Node, field: &str) -> Result<u64, InputError> {
    let Some(spec) = child(template, "spec") else {
        return Ok(0);
    };
    let mut sidecars = 0u64;
    let mut init_peak = 0u64;
    if let Some(inits) = child(spec, "initContainers") {
        let path = format!("{field}.spec.initContainers");
        for (i, container) in yaml::items(inits, &path)?.iter().enumerate() {
            let gpus = container_gpus(container, &format!("{path}[{i}]"))?;
            let policy = child(container, "restartPolicy").and_then(yaml::scalar_text);
            if policy.as_deref() == Some("Always") {
                sidecars += gpus;
            } else {
                init_peak = init_peak.max(sidecars + gpus);
            }
        }
    }
    let mut regular = 0u64;
    if let Some(containers) = child(spec, "containers") {
        let path = format!("{field}.spec.containers");
        for (i, container) in yaml::items(containers, &path)?.iter().enumerate() {
            regular += container_gpus(container, &format!("{path}[{i}]"))?;
        }
    }
    Ok(init_peak.max(regular + sidecars))
}

/// One container's `nvidia.com/gpu`: its request, else its limit, else none.
fn container_gpus(container: &Node, field: &str) -> Result<u64, InputError> {
    let Some(resources) = child(container, "resources") else {
        return Ok(0);
    };
    for key in ["requests", "limits"] {
        let Some(quantities) = child(resources, key) else { continue };
        let path = format!("{field}.resources.{key}");
        yaml::entries(quantities, &path)?;
        if let Some(value) = child(quantities, GPU_RESOURCE) {
            let text = yaml::scalar_text(value).unwrap_or_default();
            return text.trim().parse::<u64>().map_err(|_| {
                let got = if text.is_empty() { yaml::kind(value).to_string() } else { format!("'{text}'") };
                InputError::at_line(
                    yaml::line(value),
                    format!("{path}.{GPU_RESOURCE}"),
                    format!("expected a whole number of GPUs, got {got}"),
                )
            });
        }
    }
    Ok(0)
}

/// A total of GPUs, refused above what Proxima simulates; `field` names the list it was
/// summed over.
pub(super) fn gpu_total(total: u64, line: u32, field: &str) -> Result<u32, InputError> {
    if total > MAX_GPUS as u64 {
        return Err(InputError::at_line(
            line,
            field,
            format!("{total} GPUs in all is more than the {MAX_GPUS} Proxima supports"),
        ));
    }
    Ok(total as u32)
}

/// How a reader reads one object: its job, or why it makes none; `seen` counts the names
/// met so far, so that a name given twice is told apart.
pub(super) type ReadOne = fn(&Object, &mut BTreeMap<String, u32>) -> Result<Result<TraceJob, SkipReason>, InputError>;

/// Every object read by `read_one`, in the file's order: the jobs, and the tally of those
/// left out. The walk both history readers share.
pub(super) fn read_each(objects: &[Object], read_one: ReadOne) -> Result<(Vec<TraceJob>, Tally), InputError> {
    let mut seen = BTreeMap::new();
    let mut tally = Tally::default();
    let mut jobs = Vec::new();
    for object in objects {
        match read_one(object, &mut seen)? {
            Ok(job) => jobs.push(job),
            Err(reason) => tally.skip(reason, yaml::line(object.node)),
        }
    }
    Ok((jobs, tally))
}

/// The objects that made no job, by reason, in the order the reasons first appear.
#[derive(Default)]
pub(super) struct Tally {
    skipped: Vec<Skipped>,
}

impl Tally {
    pub(super) fn skip(&mut self, reason: SkipReason, line: u32) {
        match self.skipped.iter_mut().find(|s| s.reason == reason) {
            Some(s) => s.rows += 1,
            None => self.skipped.push(Skipped { reason, rows: 1, first_line: line }),
        }
    }

    /// The trace, or the error that no object made a job (`noun`: `Workloads`), which says
    /// why each was left out.
    pub(super) fn finish(self, format: TraceFormat, jobs: Vec<TraceJob>, noun: &str) -> Result<Trace, InputError> {
        if jobs.is_empty() {
            let total: u32 = self.skipped.iter().map(|s| s.rows).sum();
            let why: Vec<String> = self.skipped.iter().map(|s| s.reason.count(s.rows)).collect();
            let line = self.skipped.first().map_or(1, |s| s.first_line);
            return Err(InputError::at_line(
                line,
                "status",
                format!("no finished GPU jobs among the {total} {noun}: {}", why.join(", ")),
            ));
        }
        Ok(Trace { format, jobs, skipped: self.skipped })
    }
}

#[cfg(test)]
#[path = "kube_history_tests.rs"]
mod tests;
