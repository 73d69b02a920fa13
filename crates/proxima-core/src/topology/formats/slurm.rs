//! Slurm's `topology.conf` in the form of its `topology/tree` plugin (this file and
//! `slurm_tree.rs`) or of its `topology/block` plugin (`slurm_block.rs`), read into a
//! [`TopologySpec`]; a file is of one form, told by its keys ([`Form`]). A `topology.yaml`
//! (`slurm_yaml.rs`) is read into the same switch lines. The tree form:
//!
//! ```text
//! SwitchName=s0 Nodes=node[01-16]
//! SwitchName=s1 Nodes=node[17-32]
//! SwitchName=top Switches=s[0-1]
//! ```
//!
//! What Slurm says of the format (topology.conf(5), Slurm 26.11; the topology guide,
//! `doc/html/topology.shtml`): parameter names are case insensitive; `#` starts a comment;
//! each line names a switch (`SwitchName`, unique, at most 64 characters) and its children,
//! either nodes (`Nodes=`, a leaf switch) or switches (`Switches=`), as host-list
//! expressions (`tux[0-3,12,18-20]`, see `hostlist.rs`); `LinkSpeed` is "an optional value
//! specifying the performance of this communication link. The units used are arbitrary and
//! this information is currently not used". The parser is Slurm's `parse_config.c` (a line
//! ending in `\` continues on the next; values may be quoted) and the checks its
//! `switch_record.c`.
//!
//! A `topology.conf` does not say how many GPUs a node has (that is `slurm.conf`'s `Gres=`)
//! nor how fast anything is, so [`SlurmOptions`] give GPUs per node, the NIC and the NVLink
//! bandwidth, NICs per node and the fabric, as the parametric form does. How the tree
//! becomes a Proxima cluster (see `docs/FORMATS.md`):
//!
//! - Every node is a server with `gpus` GPUs linked to its leaf switch at `nics ×
//!   nic_gbps` (below, "the node's link"); the description carries the fabric's `collective`
//!   block and GPU, as a parametric cluster of that fabric does.
//! - Without `LinkSpeed` (the usual case, and what generators such as `slurmibtopology`
//!   write), switch links have full bisection: a switch's uplink carries the NIC bandwidth
//!   of every node below it.
//! - With `LinkSpeed`, a line's value is the relative speed of the links from that switch to
//!   each of its children, and the units are scaled so that the fastest leaf switch's value
//!   is the node's link. The same value on every line says nothing relative (it is also
//!   Slurm's default of 1, which `scontrol show topology` prints) and is taken as no value.
//!   Values on some lines only are ignored on every line, with a warning: a line without
//!   one has no speed relative to the others, and Slurm does not use them either.
//! - Parallel switches, several switches listing the same children (the spines of a fat
//!   tree, Slurm's own second example), become one switch whose link to each child carries
//!   the sum of their links, as Proxima models parallel uplinks.
//!
//! Slurm is more lenient than a simulator can be, so these are errors with the line and the
//! key: a node under two leaf switches (Slurm warns), a switch listed under parents whose
//! children differ (Slurm keeps the last parent), separate trees with no common root (Slurm
//! accepts them but runs no job across them unless `TopoOptional` is set; Proxima would
//! have to invent the link between them), a switch with neither nodes nor switches, and
//! the ring plugin's lines.

use super::hostlist::{self, HostlistError};
use super::options::SlurmOptions;
use super::slurm_form::{canonical, foreign_key, Form};
use super::slurm_tree::{build_spec, Children, SwitchLine};
use crate::error::InputError;
use crate::topology::spec::{TopologySpec, MAX_GPUS};
use std::collections::BTreeMap;

/// Slurm's limit on a switch name (`HOST_NAME_MAX` in `switch_record.c`).
const MAX_SWITCH_NAME: usize = 64;

/// What a `topology.conf` reads into: the cluster, and what the reader accepted but did not
/// use, each with its line and key (the CLI prints them to stderr as warnings).
#[derive(Clone, Debug, PartialEq)]
pub struct SlurmTopology {
    pub spec: TopologySpec,
    pub warnings: Vec<InputError>,
}

/// The text of each logical line with its first physical line's number: comments cut at
/// `#`, a trailing `\` joining the next line, a byte-order mark and CRs dropped.
pub(super) fn logical_lines(text: &str) -> Vec<(u32, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = Vec::new();
    let mut pending: Option<(u32, String)> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let number = i as u32 + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let content = raw.split('#').next().unwrap_or("").trim_end();
        let (start, mut joined) = pending.take().unwrap_or((number, String::new()));
        match content.strip_suffix('\\') {
            Some(rest) => {
                joined.push_str(rest);
                pending = Some((start, joined));
            }
            None => {
                joined.push_str(content);
                lines.push((start, joined));
            }
        }
    }
    lines.extend(pending);
    lines
}

/// A line's `Key=Value` pairs, keys as written. Values may be quoted (`"a b"`); white space
/// may surround `=`, as Slurm's parser allows.
pub(super) fn key_values(text: &str, line: u32) -> Result<Vec<(String, String)>, InputError> {
    const KEYS_HINT: &str =
        "a topology/tree line is SwitchName=NAME with Nodes=HOSTLIST or Switches=HOSTLIST, and optionally LinkSpeed=N; a topology/block line is BlockName=NAME Nodes=HOSTLIST or BlockSizes=N,...";
    let mut pairs = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let key_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).unwrap_or(rest.len());
        let word_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if key_len == 0 {
            return Err(InputError::at_line(line, &rest[..word_len], format!("expected Key=Value: {KEYS_HINT}")));
        }
        let key = &rest[..key_len];
        let after = rest[key_len..].trim_start();
        let Some(after) = after.strip_prefix('=') else {
            return Err(InputError::at_line(line, key, format!("expected Key=Value: {KEYS_HINT}")));
        };
        let after = after.trim_start();
        let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted
                .find('"')
                .ok_or_else(|| InputError::at_line(line, key, "the quote is not closed on this line".to_string()))?;
            (&quoted[..end], &quoted[end + 1..])
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if value.is_empty() {
            return Err(InputError::at_line(line, key, format!("the value is empty: {KEYS_HINT}")));
        }
        if value.contains('=') && !after.starts_with('"') {
            // `Nodes= LinkSpeed=5`: Slurm's parser would take `LinkSpeed=5` as the value.
            return Err(InputError::at_line(
                line,
                key,
                format!("'{value}' is not a value (values hold no '='): is the value before it missing?"),
            ));
        }
        pairs.push((key.to_string(), value.to_string()));
        rest = remaining.trim_start();
    }
    Ok(pairs)
}

/// The most nodes a cluster of `gpus` GPUs per node may have.
fn max_nodes(options: &SlurmOptions) -> u32 {
    MAX_GPUS / options.gpus.max(1)
}

pub(super) struct Reader<'a> {
    pub(super) options: &'a SlurmOptions,
    /// The file's form, and the line that set it.
    form: Option<(Form, u32)>,
    /// The switches (or blocks) read so far, and their indices by name.
    pub(super) switches: Vec<SwitchLine>,
    pub(super) by_name: BTreeMap<String, usize>,
    /// Each node read so far, with the switch line it hangs from.
    node_owner: BTreeMap<String, usize>,
    /// Names the host lists of the file may still expand to: nodes and switches together,
    /// at most as many as the cluster may have nodes, so that a huge range is refused
    /// before it is expanded.
    budget: usize,
    /// A block file's `BlockSizes`, in nodes, with its line.
    pub(super) block_sizes: Option<(u32, Vec<u32>)>,
    /// What was read but is not used, each on its line and key.
    pub(super) warnings: Vec<InputError>,
}

impl<'a> Reader<'a> {
    /// A reader of nothing yet; `form` is the file's when it is known before its lines (a
    /// `topology.yaml` entry says it), else the first line of one form sets it.
    pub(super) fn new(options: &'a SlurmOptions, form: Option<(Form, u32)>) -> Reader<'a> {
        Reader {
            form,
            switches: Vec::new(),
            by_name: BTreeMap::new(),
            node_owner: BTreeMap::new(),
            budget: max_nodes(options) as usize,
            block_sizes: None,
            warnings: Vec::new(),
            options,
        }
    }

    /// The cluster of the switches or blocks read, built by the one path both file formats
    /// share, with the warnings gathered.
    pub(super) fn finish(mut self) -> Result<SlurmTopology, InputError> {
        let spec = match self.form {
            Some((Form::Block, _)) => self.block_spec()?,
            _ => build_spec(&self.switches, &self.by_name, self.options, &mut self.warnings)?,
        };
        Ok(SlurmTopology { spec, warnings: self.warnings })
    }

    /// The form of a line: the file's, set by its first line with a key of one form only.
    /// A line of the other form is refused, as slurmctld refuses it.
    pub(super) fn form_of(&mut self, line: u32, pairs: &[(String, String)]) -> Result<Form, InputError> {
        let this = Form::of_line(pairs);
        match (self.form, this) {
            (None, Some((form, _))) => {
                self.form = Some((form, line));
                Ok(form)
            }
            (None, None) => Ok(Form::Tree),
            (Some((form, _)), None) => Ok(form),
            (Some((form, _)), Some((other, _))) if other == form => Ok(form),
            (Some((form, first)), Some((other, key))) => Err(InputError::at_line(
                line,
                canonical(key),
                format!(
                    "a {} key in a {} file (line {first} sets the form): slurmctld reads topology.conf with one plugin's keys and refuses the others', so a file has lines such as {} or such as {}, not both",
                    other.plugin(),
                    form.plugin(),
                    form.example(),
                    other.example()
                ),
            )),
        }
    }

    pub(super) fn add(&mut self, switch: SwitchLine) {
        self.by_name.insert(switch.name.clone(), self.switches.len());
        self.switches.push(switch);
    }

    /// One `SwitchName=...` line, checked on its own and against the lines before it.
    pub(super) fn switch_line(&mut self, line: u32, pairs: &[(String, String)]) -> Result<SwitchLine, InputError> {
        let mut name = None;
        let mut nodes = None;
        let mut switches = None;
        let mut link_speed = None;
        for (key, value) in pairs {
            let slot = match key.to_ascii_lowercase().as_str() {
                "switchname" => &mut name,
                "nodes" => &mut nodes,
                "switches" => &mut switches,
                "linkspeed" => &mut link_speed,
                other => return Err(foreign_key(line, key, other)),
            };
            if slot.is_some() {
                return Err(InputError::at_line(line, canonical(key), "given twice on this line"));
            }
            *slot = Some(value.as_str());
        }
        let name = name.ok_or_else(|| {
            InputError::at_line(
                line,
                "SwitchName",
                "missing: each line names a switch, as in SwitchName=s0 Nodes=node[01-16]",
            )
        })?;
        self.check_name(line, name)?;
        let link_speed = link_speed
            .map(|v| {
                v.parse::<u32>().ok().filter(|s| *s > 0).ok_or_else(|| {
                    InputError::at_line(line, "LinkSpeed", format!("expected a positive whole number, got '{v}'"))
                })
            })
            .transpose()?;
        let children = match (nodes, switches) {
            (Some(_), Some(_)) => {
                return Err(InputError::at_line(
                    line,
                    "Switches",
                    format!("switch '{name}' has both Nodes= and Switches=; a switch has either nodes (a leaf switch) or switches below it, as in Slurm"),
                ))
            }
            (None, None) => {
                return Err(InputError::at_line(
                    line,
                    "SwitchName",
                    format!("switch '{name}' has neither Nodes= nor Switches=; Proxima needs every switch to lead to nodes"),
                ))
            }
            (Some(list), None) => Children::Nodes(self.nodes(line, list)?),
            (None, Some(list)) => Children::Switches(self.expand(line, "Switches", list)?),
        };
        Ok(SwitchLine { name: name.to_string(), line, children, link_speed })
    }

    /// A switch's or block's name: one name, new, and for a switch at most Slurm's length.
    pub(super) fn check_name(&self, line: u32, name: &str) -> Result<(), InputError> {
        let (unit, key) = self.unit();
        let problem = if unit == "switch" && name.len() > MAX_SWITCH_NAME {
            Some(format!("'{name}' is longer than the {MAX_SWITCH_NAME} characters Slurm allows"))
        } else if name.contains(['[', ']', ',']) {
            Some(format!("'{name}' is not one name: a line names one {unit} (ranges belong in Switches= and Nodes=)"))
        } else {
            self.by_name
                .get(name)
                .map(|&i| format!("{unit} '{name}' is already defined on line {}", self.switches[i].line))
        };
        problem.map_or(Ok(()), |message| Err(InputError::at_line(line, key, message)))
    }

    /// What a line of the file names, and the key that names it.
    fn unit(&self) -> (&'static str, &'static str) {
        match self.form {
            Some((Form::Block, _)) => ("block", "BlockName"),
            _ => ("switch", "SwitchName"),
        }
    }

    pub(super) fn expand(&mut self, line: u32, key: &str, list: &str) -> Result<Vec<String>, InputError> {
        hostlist::expand(list, &mut self.budget).map_err(|e| {
            let message = match e {
                HostlistError::Invalid(message) => message,
                HostlistError::TooMany(item) => format!(
                    "'{item}' names too many hosts: at {} GPUs per node a cluster has at most {} nodes (Proxima supports {MAX_GPUS} GPUs)",
                    self.options.gpus,
                    max_nodes(self.options)
                ),
            };
            InputError::at_line(line, key, message)
        })
    }

    /// A leaf switch's (or block's) nodes: each once in the whole file. The line is the next
    /// switch.
    pub(super) fn nodes(&mut self, line: u32, list: &str) -> Result<Vec<String>, InputError> {
        let nodes = self.expand(line, "Nodes", list)?;
        let this = self.switches.len();
        for node in &nodes {
            match self.node_owner.get(node) {
                Some(&owner) if owner == this => {
                    return Err(InputError::at_line(line, "Nodes", format!("node '{node}' is listed twice")))
                }
                Some(&owner) => {
                    let other = &self.switches[owner];
                    return Err(InputError::at_line(
                        line,
                        "Nodes",
                        format!(
                            "node '{node}' is also under {} '{}' (line {}); Proxima models trees, so a node hangs from one switch (for several network rails, list each node under one switch and give nics the number of rails)",
                            self.unit().0, other.name, other.line
                        ),
                    ));
                }
                None => {
                    self.node_owner.insert(node.clone(), this);
                }
            }
        }
        Ok(nodes)
    }
}
