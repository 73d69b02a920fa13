//! What form a `topology.conf` is of, and the words for keys that do not belong: the
//! [`Form`] (tree or block) a line's keys say, a `topology.yaml` told from its first line
//! (read by `slurm_yaml.rs`), and the messages for keys of the other form, the ring plugin
//! or none.

use crate::error::InputError;

/// The plugin a file is written for. slurmctld reads `topology.conf` with the keys of the
/// plugin `slurm.conf` names and refuses any other key ("Parsing error at unrecognized key",
/// `src/common/parse_config.c` line 1047), so a file is of one form; Proxima tells which by
/// the first line with a key of one form only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Form {
    /// `topology/tree`: `SwitchName=` lines.
    Tree,
    /// `topology/block`: `BlockName=` lines and a `BlockSizes=` line.
    Block,
}

impl Form {
    /// The form of the first key on a line that belongs to one form only.
    pub(super) fn of_line(pairs: &[(String, String)]) -> Option<(Form, &str)> {
        pairs.iter().find_map(|(key, _)| match key.to_ascii_lowercase().as_str() {
            "switchname" | "switches" | "linkspeed" => Some((Form::Tree, key.as_str())),
            "blockname" | "blocksizes" => Some((Form::Block, key.as_str())),
            _ => None,
        })
    }

    pub(super) fn plugin(self) -> &'static str {
        match self {
            Form::Tree => "topology/tree",
            Form::Block => "topology/block",
        }
    }

    /// What a line of this form holds, for messages.
    pub(super) fn example(self) -> &'static str {
        match self {
            Form::Tree => "SwitchName=s0 Nodes=node[01-16]",
            Form::Block => "BlockName=b1 Nodes=node[01-16]",
        }
    }
}

/// Whether a file is a `topology.yaml` (Slurm 25.05 and later, `doc/man/man5/topology.yaml.5`
/// in SchedMD/slurm), told by its first line with anything on it: a document start (`---`),
/// a directive (`%YAML`), or a `key:`, alone or as a list entry (`- topology: NAME`; the
/// man page says `topology` "Must be the first attribute", lines 28-30). A `topology.conf`
/// line starts with `Key=`, never with any of these, so the two are never confused.
pub(super) fn is_yaml(first_line: &str) -> bool {
    let text = first_line.trim();
    let entry = text.strip_prefix('-').map(str::trim_start).unwrap_or(text);
    let key_len = entry.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(entry.len());
    text == "---"
        || text.starts_with("--- ")
        || text.starts_with("%YAML")
        || (key_len > 0 && entry[key_len..].starts_with(':'))
}

/// A key that is not one of the tree plugin's, with what it most likely is.
pub(super) fn foreign_key(line: u32, key: &str, lower: &str) -> InputError {
    let message = match lower {
        "blockname" | "blocksizes" => "a topology/block key on a topology/tree line: a file is of one form, as slurmctld reads it (SwitchName=... lines, or BlockName=... lines)".to_string(),
        _ => other_key(lower, "a topology/tree line has SwitchName, Switches, Nodes and LinkSpeed"),
    };
    InputError::at_line(line, key, message)
}

/// What a key that neither form has most likely is; `keys` says what the line may hold.
pub(super) fn other_key(lower: &str, keys: &str) -> String {
    match lower {
        "ringname" => {
            "this is a topology/ring line; Proxima reads the topology/tree and topology/block forms".to_string()
        }
        "include" => "Proxima reads one file: put the included file's lines in its place".to_string(),
        _ => format!("unknown key ({keys})"),
    }
}

/// The key as Slurm's documentation spells it.
pub(super) fn canonical(key: &str) -> &'static str {
    match key.to_ascii_lowercase().as_str() {
        "switchname" => "SwitchName",
        "nodes" => "Nodes",
        "switches" => "Switches",
        "blockname" => "BlockName",
        "blocksizes" => "BlockSizes",
        _ => "LinkSpeed",
    }
}
