//! The switches of a `topology.yaml`'s `tree:` entry and the blocks of a `block:` entry,
//! read into the conf readers' [`Reader`] as `SwitchName=` and `BlockName=` lines are, and
//! the errors of the checks they share told in the YAML's keys (see `slurm_yaml.rs`).

use super::options::SlurmOptions;
use super::slurm::{Reader, SlurmTopology};
use super::slurm_block::block_sizes;
use super::slurm_form::Form;
use super::slurm_tree::{Children, SwitchLine};
use super::yaml::{self, Node};
use crate::error::InputError;
use std::collections::BTreeMap;

/// A `tree:` entry's switches, read as `SwitchName=` lines are.
pub(super) fn read_tree(
    node: &Node,
    line: u32,
    options: &SlurmOptions,
    warnings: &mut Vec<InputError>,
) -> Result<SlurmTopology, InputError> {
    let mut reader = Reader::new(options, Some((Form::Tree, line)));
    let mut children_lines = BTreeMap::new();
    let list = only_key(node, line, "tree", "switches", warnings)?;
    for switch in one_or_many(list, "switches")? {
        let fields = yaml::entries_with_lines(switch, "switches")?;
        let (mut name, mut nodes, mut children) = (None, None, None);
        for (key, line, value) in fields {
            let slot = match key.as_str() {
                "switch" => &mut name,
                "nodes" => &mut nodes,
                "children" => &mut children,
                _ => {
                    warnings.push(unknown(line, &key, "a switch has switch, and children or nodes"));
                    continue;
                }
            };
            *slot = Some((text(value, line, &key)?, line));
        }
        let (name, at) = name.ok_or_else(|| {
            InputError::at_line(yaml::line(switch), "switch", "missing: each switch is named, as in - switch: s1")
        })?;
        reader.check_name(at, &name).map_err(in_yaml_words)?;
        let children = match (nodes, children) {
            (Some((list, line)), None) => {
                children_lines.insert(at, line);
                Children::Nodes(reader.nodes(line, &list).map_err(in_yaml_words)?)
            }
            (None, Some((list, line))) => {
                children_lines.insert(at, line);
                Children::Switches(reader.expand(line, "children", &list)?)
            }
            (Some(_), Some((_, line))) => {
                return Err(InputError::at_line(
                    line,
                    "children",
                    format!("switch '{name}' has both nodes and children; a switch has either nodes (a leaf switch) or switches below it, as in Slurm"),
                ))
            }
            (None, None) => {
                return Err(InputError::at_line(
                    at,
                    "switch",
                    format!("switch '{name}' has neither nodes nor children; Proxima needs every switch to lead to nodes"),
                ))
            }
        };
        reader.add(SwitchLine { name, line: at, children, link_speed: None });
    }
    finish(reader, &children_lines)
}

/// A `block:` entry's blocks and block sizes, read as `BlockName=` and `BlockSizes=` lines.
pub(super) fn read_block(
    node: &Node,
    line: u32,
    options: &SlurmOptions,
    warnings: &mut Vec<InputError>,
) -> Result<SlurmTopology, InputError> {
    let mut reader = Reader::new(options, Some((Form::Block, line)));
    let mut nodes_lines = BTreeMap::new();
    let mut blocks = None;
    for (key, line, value) in yaml::entries_with_lines(node, "block")? {
        match key.as_str() {
            "blocks" => blocks = Some(value),
            "block_sizes" => {
                let sizes: Vec<String> = match yaml::items(value, "block_sizes") {
                    Ok(items) => items.iter().map(|n| yaml::scalar_text(n).unwrap_or_default()).collect(),
                    Err(_) => vec![yaml::scalar_text(value).unwrap_or_default()],
                };
                reader.block_sizes = Some((line, block_sizes(line, &sizes.join(",")).map_err(in_yaml_words)?));
            }
            _ => warnings.push(unknown(line, &key, "a block topology has blocks and block_sizes")),
        }
    }
    let blocks = blocks.filter(|b| !yaml::is_null(b)).ok_or_else(|| {
        InputError::at_line(
            line,
            "blocks",
            "missing: a block topology lists its blocks, as in blocks: [{block: b1, nodes: node[01-16]}]",
        )
    })?;
    for block in one_or_many(blocks, "blocks")? {
        let (mut name, mut nodes) = (None, None);
        for (key, line, value) in yaml::entries_with_lines(block, "blocks")? {
            match key.as_str() {
                "block" => name = Some((text(value, line, "block")?, line)),
                "nodes" => nodes = Some((text(value, line, "nodes")?, line)),
                _ => warnings.push(unknown(line, &key, "a block has block and nodes")),
            }
        }
        let (name, at) = name.ok_or_else(|| {
            InputError::at_line(yaml::line(block), "block", "missing: each block is named, as in - block: b1")
        })?;
        reader.check_name(at, &name).map_err(in_yaml_words)?;
        let nodes = match nodes {
            Some((list, line)) => {
                nodes_lines.insert(at, line);
                reader.nodes(line, &list).map_err(in_yaml_words)?
            }
            None => Vec::new(),
        };
        reader.add(SwitchLine { name, line: at, children: Children::Nodes(nodes), link_speed: None });
    }
    finish(reader, &nodes_lines)
}

/// The cluster of what was read, its errors and warnings in the YAML's words. The shared
/// checks name a switch's or block's line; a problem with its children or nodes moves to
/// the line of that key (`children_lines`, by the line of the `switch:` or `block:` key).
fn finish(reader: Reader, children_lines: &BTreeMap<u32, u32>) -> Result<SlurmTopology, InputError> {
    let on_children_line = |e: InputError| {
        let mut e = in_yaml_words(e);
        if e.field == "children" || e.field == "nodes" {
            e.line = e.line.map(|line| children_lines.get(&line).copied().unwrap_or(line));
        }
        e
    };
    let mut read = reader.finish().map_err(on_children_line)?;
    read.warnings = read.warnings.into_iter().map(on_children_line).collect();
    Ok(read)
}

/// A conf reader's error as a YAML file says it: its key as the YAML key, and the conf
/// syntax its message quotes as the YAML's.
fn in_yaml_words(e: InputError) -> InputError {
    const WORDS: [(&str, &str); 8] = [
        ("SwitchName", "switch"),
        ("Switches", "children"),
        ("Nodes", "nodes"),
        ("BlockName", "block"),
        ("BlockSizes", "block_sizes"),
        (
            "add a line above them such as SwitchName=top Switches=",
            "add a switch above them such as - switch: top with children: ",
        ),
        ("(no line SwitchName=", "(no - switch: "),
        ("a line names one", "an entry names one"),
    ];
    let field = WORDS[..5].iter().find(|(conf, _)| e.field == *conf).map_or(e.field.clone(), |(_, y)| y.to_string());
    let message = WORDS[5..].iter().fold(e.message, |m, (conf, y)| m.replace(conf, y));
    let message = message
        .replace("ranges belong in Switches= and Nodes=", "ranges belong in children and nodes")
        .replace("as in BlockSizes=16,32,64", "as in block_sizes: [16, 32, 64]")
        .replace(
            "a topology/block file has lines such as BlockName=b1 Nodes=node[01-16]",
            "a block topology lists blocks such as - block: b1 with nodes: node[01-16]",
        );
    InputError { field, message, ..e }
}

/// The value of the one key a `tree:` mapping has; other keys are warnings.
fn only_key<'n, 'a>(
    node: &'n Node<'a>,
    line: u32,
    owner: &str,
    key: &str,
    warnings: &mut Vec<InputError>,
) -> Result<&'n Node<'a>, InputError> {
    let mut found = None;
    for (k, at, value) in yaml::entries_with_lines(node, owner)? {
        if k == key {
            found = Some(value);
        } else {
            warnings.push(unknown(at, &k, &format!("a {owner} topology has {key}")));
        }
    }
    found
        .filter(|v| !yaml::is_null(v))
        .ok_or_else(|| InputError::at_line(line, key, format!("missing: a {owner} topology lists its {key}")))
}

// The value readers both halves of a `topology.yaml` use: here, with the switches and
// blocks that read most values, so that `slurm_yaml.rs`, which reads the file's entries,
// imports them from below and nothing here imports it back.

/// The items of a list, or a mapping standing alone for a list of one, as Slurm takes them.
pub(super) fn one_or_many<'n, 'a>(node: &'n Node<'a>, field: &str) -> Result<Vec<&'n Node<'a>>, InputError> {
    match yaml::items(node, field) {
        Ok(items) => Ok(items.iter().collect()),
        Err(_) if yaml::entries(node, field).is_ok() => Ok(vec![node]),
        Err(_) => Err(InputError::at_line(
            yaml::line(node),
            field,
            format!("expected a list of mappings (- {field}: ... lines), got {}", yaml::kind(node)),
        )),
    }
}

/// A text value: a name or a host list.
pub(super) fn text(value: &Node, line: u32, key: &str) -> Result<String, InputError> {
    match yaml::scalar_text(value) {
        Some(text) if !text.trim().is_empty() => Ok(text.trim().to_string()),
        Some(_) => Err(InputError::at_line(line, key, "empty")),
        None if yaml::is_null(value) => Err(InputError::at_line(line, key, "empty")),
        None => Err(InputError::at_line(
            line,
            key,
            format!("expected text (a name, or a host list such as node[01-16]), got {}", yaml::kind(value)),
        )),
    }
}

/// An unknown key, which Slurm ignores: a warning.
pub(super) fn unknown(line: u32, key: &str, keys: &str) -> InputError {
    InputError::at_line(line, key, format!("unknown key, ignored as Slurm ignores it ({keys})"))
}
