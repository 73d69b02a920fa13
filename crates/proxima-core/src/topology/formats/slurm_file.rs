//! A Slurm topology file of either syntax, told by its first line: a `topology.conf`
//! (`slurm.rs` reads its lines, in the tree form or the block form) or a `topology.yaml`
//! (`slurm_yaml.rs`).
//!
//! The choice is made here, above both readers, because the YAML reader builds on the
//! `topology.conf` reader's switch lines and blocks (`slurm_yaml_switches.rs` fills the same
//! `Reader`): were the choice in `slurm.rs`, the two would import each other.

use super::options::SlurmOptions;
use super::slurm::{key_values, logical_lines, Reader, SlurmTopology};
use super::slurm_form::{is_yaml, Form};
use super::slurm_yaml::read_slurm_yaml;
use crate::error::InputError;

/// The cluster a `topology.conf` (topology/tree or topology/block form) describes, with the
/// options for what the file does not say. The description has no name (the caller names
/// it after the file). Errors and warnings carry the line (of the first physical line of a
/// continued one) and the key, spelt as Slurm spells it (`Nodes`, `Switches`,
/// `SwitchName`, `LinkSpeed`, `BlockName`, `BlockSizes`). A `topology.yaml`, told by its
/// first line, is read by `slurm_yaml.rs` into the same switches and blocks; its errors
/// and warnings name the YAML's keys (`switch`, `children`, `nodes`, `block_sizes`, ...).
pub fn read_slurm_topology(text: &str, options: &SlurmOptions) -> Result<SlurmTopology, InputError> {
    let lines = logical_lines(text);
    if lines.iter().find(|(_, line)| !line.trim().is_empty()).is_some_and(|(_, first)| is_yaml(first)) {
        return read_slurm_yaml(text, options);
    }
    let mut reader = Reader::new(options, None);
    for (line, text) in lines {
        let pairs = key_values(&text, line)?;
        if pairs.is_empty() {
            continue;
        }
        match reader.form_of(line, &pairs)? {
            Form::Tree => {
                let switch = reader.switch_line(line, &pairs)?;
                reader.add(switch);
            }
            Form::Block => reader.block_line(line, &pairs)?,
        }
    }
    reader.finish()
}
