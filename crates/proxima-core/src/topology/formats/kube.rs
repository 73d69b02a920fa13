//! The Kubernetes objects of a YAML file, as the importers of Kubernetes schedulers' files
//! (Kueue's, Volcano's) take them: documents, or the items of a `List` (`kind: List` or
//! `kind: NodeList`, as `kubectl get ... -o yaml` prints several objects), sorted by kind;
//! objects of kinds the importer does not read are counted for a warning.

use super::yaml::{self, Node};
use crate::error::InputError;
use std::collections::BTreeMap;

/// The extended resource NVIDIA's device plugin gives a node's GPUs under.
pub const GPU_RESOURCE: &str = "nvidia.com/gpu";

/// The node label that names a node itself; as a level it is the server, not a switch.
pub const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";

/// The objects of the kinds an importer reads, in the file's order, and a count of the others.
pub(super) struct Objects<'n, 'a> {
    pub(super) of_kind: BTreeMap<&'static str, Vec<&'n Node<'a>>>,
    skipped: BTreeMap<String, usize>,
    first_skipped: u32,
}

impl<'n, 'a> Objects<'n, 'a> {
    /// The objects of `documents`, those of `kinds` kept; `hint` says in errors which kinds
    /// the file holds (`Topology, Node, List`).
    pub(super) fn of(documents: &'n [Node<'a>], kinds: &[&'static str], hint: &str) -> Result<Self, InputError> {
        let mut objects = Objects { of_kind: BTreeMap::new(), skipped: BTreeMap::new(), first_skipped: 0 };
        for kind in kinds {
            objects.of_kind.insert(kind, Vec::new());
        }
        for document in documents {
            objects.add(document, kinds, hint)?;
        }
        Ok(objects)
    }

    /// The objects of one kind the importer reads.
    pub(super) fn get(&self, kind: &str) -> &[&'n Node<'a>] {
        self.of_kind.get(kind).map_or(&[], Vec::as_slice)
    }

    /// The warning for the objects of other kinds, if there were any: `reads` says what the
    /// importer reads (`the Topology and the Nodes`).
    pub(super) fn skipped_warning(&self, reads: &str) -> Option<InputError> {
        if self.skipped.is_empty() {
            return None;
        }
        let kinds: Vec<String> = self.skipped.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
        Some(InputError::at_line(
            self.first_skipped,
            "kind",
            format!("skipped {}: Proxima reads {reads}", kinds.join(", ")),
        ))
    }

    /// One object (a document, or an item of a `List`).
    fn add(&mut self, object: &'n Node<'a>, kinds: &[&'static str], hint: &str) -> Result<(), InputError> {
        if yaml::is_null(object) {
            return Ok(()); // An empty document, as after a trailing `---`.
        }
        yaml::entries(object, "kind")?;
        let kind = yaml::required_text(object, "kind", "kind")
            .map_err(|e| InputError { message: format!("{}: every object names its kind ({hint})", e.message), ..e })?;
        if let Some(&known) = kinds.iter().find(|k| **k == kind) {
            self.of_kind.entry(known).or_default().push(object);
        } else if kind == "List" || kind.ends_with("List") {
            let list = yaml::get(object, "items").filter(|items| !yaml::is_null(items)).ok_or_else(|| {
                InputError::at_line(yaml::line(object), "items", "missing: a List holds its objects under items")
            })?;
            for item in yaml::items(list, "items")? {
                self.add(item, kinds, hint)?;
            }
        } else {
            if self.skipped.is_empty() {
                self.first_skipped = yaml::line(object);
            }
            *self.skipped.entry(kind).or_default() += 1;
        }
        Ok(())
    }
}

/// A node's GPUs: `nvidia.com/gpu` in `status.allocatable`, else in `status.capacity`;
/// zero when neither has it. The quantity is a whole number, written as a number or a
/// string (Kubernetes prints `"8"`).
pub(super) fn node_gpus(object: &Node) -> Result<u32, InputError> {
    let Some(status) = yaml::get(object, "status").filter(|s| !yaml::is_null(s)) else {
        return Ok(0);
    };
    let (field, resources) = match yaml::get(status, "allocatable").filter(|a| !yaml::is_null(a)) {
        Some(allocatable) => ("status.allocatable", allocatable),
        None => match yaml::get(status, "capacity").filter(|c| !yaml::is_null(c)) {
            Some(capacity) => ("status.capacity", capacity),
            None => return Ok(0),
        },
    };
    yaml::entries(resources, field)?;
    let Some(value) = yaml::get(resources, GPU_RESOURCE) else {
        return Ok(0);
    };
    let text = yaml::scalar_text(value).unwrap_or_default();
    text.trim().parse::<u32>().map_err(|_| {
        InputError::at_line(
            yaml::line(value),
            format!("{field}.{GPU_RESOURCE}"),
            format!(
                "expected a whole number of GPUs, got {}",
                if text.is_empty() { yaml::kind(value).to_string() } else { format!("'{text}'") }
            ),
        )
    })
}

/// A node's labels (none if it has no `labels`).
pub(super) fn node_labels(metadata: &Node) -> Result<BTreeMap<String, String>, InputError> {
    let Some(labels) = yaml::get(metadata, "labels").filter(|l| !yaml::is_null(l)) else {
        return Ok(BTreeMap::new());
    };
    let mut out = BTreeMap::new();
    for (key, value) in yaml::entries(labels, "metadata.labels")? {
        let text = yaml::scalar_text(value).ok_or_else(|| {
            InputError::at_line(
                yaml::line(value),
                format!("metadata.labels.{key}"),
                format!("expected a text value, got {}", yaml::kind(value)),
            )
        })?;
        out.insert(key, text);
    }
    Ok(out)
}
