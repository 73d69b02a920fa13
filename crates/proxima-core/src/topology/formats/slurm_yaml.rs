//! Slurm's `topology.yaml` (Slurm 25.05 and later), read into the switches or blocks of
//! the `topology.conf` readers, so that one path (`Reader::finish`) builds the cluster
//! whichever file Slurm was given:
//!
//! ```text
//! - topology: fabric
//!   cluster_default: true
//!   tree:
//!     switches:
//!       - switch: spine
//!         children: leaf[1-2]
//!       - switch: leaf1
//!         nodes: gpu[01-16]
//!       - switch: leaf2
//!         nodes: gpu[17-32]
//! ```
//!
//! What Slurm says of the file (SchedMD/slurm as of 2026-08, Slurm 26.11):
//! - topology.yaml(5), `doc/man/man5/topology.yaml.5`: a list of topologies, each with
//!   `topology` (its name, "Must be the first attribute", lines 27-30), `cluster_default`
//!   (lines 33-38: "The first topology defined with cluster_default: true" is the one used
//!   outside partitions) and exactly one type (lines 41-74): `block`, `flat`, `ring`,
//!   `torus3d` or `tree`. A `tree` has `switches`, each with `switch` (at most 64
//!   characters), and `children` (child switches) or `nodes` (lines 108-137); a `block`
//!   has `block_sizes` and `blocks`, each with `block` and `nodes` (lines 76-106); `flat` is
//!   `true` or a mapping of options (lines 50-55, 256-267).
//! - The parser, `src/plugins/data_parser/v0.0.46/parsers.c`: the file may also be one
//!   topology without the list (lines 6966-6972), and `switches` and `blocks` one entry
//!   without the list (lines 7079-7086, 7193-7200); a second type in an entry is an error
//!   (lines 7032-7036, 7148-7151), an empty `tree:` or `block:` and `flat: false` set no
//!   type (lines 7037, 7152, 7263-7270); `children`, `nodes` and `block` are text, host
//!   lists as in `topology.conf` (lines 11780-11793); `block_sizes` a list of numbers, or
//!   one number (`src/plugins/data_parser/v0.0.46/parsing.c` lines 396-404); `cluster_default`
//!   is true or false, or the text y, yes, t, true, on, n, no, f, false, off in any case
//!   (`src/common/data.c` lines 1601-1660). A key the parser does not know is ignored with a
//!   warning (`parsing.c` lines 743-746), and so it is here.
//!
//! Proxima simulates one topology: the entry with `cluster_default: true`, else the first,
//! with a warning naming the others when there are several. Its switches or blocks go
//! through the conf readers' checks, and the errors and warnings name the YAML key and its
//! line. A `flat`, `ring` or `torus3d` topology is refused: the first has no switches to
//! simulate, the others are networks Proxima does not model.

use super::options::SlurmOptions;
use super::slurm::SlurmTopology;
use super::slurm_yaml_switches::{one_or_many, read_block, read_tree, text, unknown};
use super::yaml::{self, Node};
use crate::error::InputError;

/// The keys of an entry, for messages.
const ENTRY_KEYS: &str = "an entry has topology, cluster_default and one of tree, block, flat, ring and torus3d";

/// One topology of the file, as far as choosing one needs.
struct Entry<'n, 'a> {
    name: String,
    /// The line of its `topology:` key.
    line: u32,
    default: bool,
    kind: Kind<'n, 'a>,
}

/// An entry's type, with the line of its key.
enum Kind<'n, 'a> {
    Tree(&'n Node<'a>, u32),
    Block(&'n Node<'a>, u32),
    /// A type Proxima does not simulate: `flat`, `ring` or `torus3d`.
    Other(&'static str, u32),
}

/// The cluster a `topology.yaml` describes (the entry Slurm uses outside partitions), with
/// the options for what the file does not say, as [`super::read_slurm_topology`] gives it.
pub(super) fn read_slurm_yaml(text: &str, options: &SlurmOptions) -> Result<SlurmTopology, InputError> {
    let documents = yaml::documents(text)?;
    let root = match documents.as_slice() {
        [one] => one,
        [_, second, ..] => {
            return Err(InputError::at_line(yaml::line(second), "topology", "a topology.yaml is one YAML document"))
        }
        [] => return Err(InputError::new("topology", "the file is empty")),
    };
    let nodes: Vec<&Node> = one_or_many(root, "topology")?;
    let mut warnings = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    for node in nodes {
        let entry = read_entry(node, &mut warnings)?;
        if let Some(first) = entries.iter().find(|e| e.name == entry.name) {
            warnings.push(InputError::at_line(
                entry.line,
                "topology",
                format!(
                    "topology '{}' is already named on line {}: partitions would use the first",
                    entry.name, first.line
                ),
            ));
        }
        entries.push(entry);
    }
    let chosen = entries.iter().position(|e| e.default).unwrap_or(0);
    let Some(entry) = entries.get(chosen) else {
        return Err(InputError::at_line(yaml::line(root), "topology", format!("no topologies: {ENTRY_KEYS}")));
    };
    if entries.len() > 1 {
        let others: Vec<&str> =
            entries.iter().enumerate().filter(|(i, _)| *i != chosen).map(|(_, e)| e.name.as_str()).collect();
        let why = if entry.default { "the cluster default" } else { "the first, as no entry is cluster_default: true" };
        warnings.push(InputError::at_line(
            entry.line,
            "topology",
            format!(
                "simulating topology '{}' ({why}); the file's other topologies ({}) are not read further",
                entry.name,
                others.join(", ")
            ),
        ));
    }
    let mut read = match entry.kind {
        Kind::Tree(node, line) => read_tree(node, line, options, &mut warnings)?,
        Kind::Block(node, line) => read_block(node, line, options, &mut warnings)?,
        Kind::Other(key, line) => {
            let why = match key {
                "flat" => "a flat topology (every node on one switch, as Slurm schedules without a topology) has no switches to simulate: give Proxima a tree or block topology, or a parametric cluster (racks=1,servers=N,gpus=G)",
                _ => "Proxima simulates tree and block topologies, not this network",
            };
            return Err(InputError::at_line(line, key, format!("topology '{}' is of type {key}: {why}", entry.name)));
        }
    };
    warnings.append(&mut read.warnings);
    read.warnings = warnings;
    Ok(read)
}

/// One entry's name, default flag and type; unknown keys are warnings, as Slurm warns.
fn read_entry<'n, 'a>(node: &'n Node<'a>, warnings: &mut Vec<InputError>) -> Result<Entry<'n, 'a>, InputError> {
    let mut name = None;
    let mut default = false;
    let mut kind: Option<Kind> = None;
    for (key, line, value) in yaml::entries_with_lines(node, "topology")? {
        let this = match key.as_str() {
            "topology" => {
                name = Some(text(value, line, "topology")?);
                None
            }
            "cluster_default" => {
                default = boolean(value, line, "cluster_default")?;
                None
            }
            "flat" => match yaml::entries(value, "flat") {
                Ok(_) => Some(Kind::Other("flat", line)),
                Err(_) => boolean(value, line, "flat")?.then_some(Kind::Other("flat", line)),
            },
            "tree" | "block" | "ring" | "torus3d" => {
                if yaml::entries(value, &key)?.is_empty() {
                    None
                } else {
                    Some(match key.as_str() {
                        "tree" => Kind::Tree(value, line),
                        "block" => Kind::Block(value, line),
                        "ring" => Kind::Other("ring", line),
                        _ => Kind::Other("torus3d", line),
                    })
                }
            }
            _ => {
                warnings.push(unknown(line, &key, ENTRY_KEYS));
                None
            }
        };
        if let (Some(this), Some(first)) = (&this, &kind) {
            return Err(InputError::at_line(
                kind_line(this),
                key,
                format!(
                    "a second type in one entry (the first on line {}): an entry is of exactly one type, as Slurm requires",
                    kind_line(first)
                ),
            ));
        }
        kind = kind.or(this);
    }
    let line = yaml::line(node);
    let name = name.ok_or_else(|| {
        InputError::at_line(line, "topology", format!("missing: each entry starts with topology: NAME ({ENTRY_KEYS})"))
    })?;
    let kind = kind.ok_or_else(|| {
        InputError::at_line(line, "topology", format!("topology '{name}' has no type: an entry has one of tree, block, flat: true, ring and torus3d, with its content"))
    })?;
    Ok(Entry { name, line, default, kind })
}

fn kind_line(kind: &Kind) -> u32 {
    match kind {
        Kind::Tree(_, line) | Kind::Block(_, line) | Kind::Other(_, line) => *line,
    }
}

/// A true/false value, spelt as Slurm takes it.
fn boolean(value: &Node, line: u32, key: &str) -> Result<bool, InputError> {
    let text = yaml::scalar_text(value).unwrap_or_default().to_ascii_lowercase();
    match text.as_str() {
        "y" | "yes" | "t" | "true" | "on" => Ok(true),
        "n" | "no" | "f" | "false" | "off" => Ok(false),
        _ => Err(InputError::at_line(line, key, format!("expected true or false, got {}", yaml::kind(value)))),
    }
}
