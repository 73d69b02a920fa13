//! Slurm's `topology.conf` in the form of its `topology/block` plugin:
//!
//! ```text
//! BlockName=block1 Nodes=node[1-32]
//! BlockName=block2 Nodes=node[33-64]
//! BlockSizes=32,64
//! ```
//!
//! What Slurm says of the form (SchedMD/slurm, Slurm 26.11): a block is a set of nodes with
//! "lower-latency connections" among them than to other blocks (`doc/man/man5/topology.conf.5`
//! lines 82–85), the "fundamental, contiguous groups of nodes" that adjacent blocks pair up
//! with into larger ones "to ensure optimized communication performance for jobs running
//! within these blocks" (`doc/html/topology.shtml` lines 186–193). Each `BlockName` line has
//! only `Nodes=` besides (`src/plugins/topology/block/block_record.c` lines 60–62) and
//! `BlockSizes` stands on its own line (lines 82–85). `BlockSizes` lists the base block size
//! in nodes, then larger sizes, each the base times a power of two up to 2^15 (lines
//! 105–141; slurmctld stops on anything else); without it the base is the first block's
//! node count (lines 319–321). A block may have no nodes (lines 304–326), and a second
//! `BlockSizes` replaces the first ("latest value used", `src/common/parse_config.c` lines
//! 535–537).
//!
//! How the blocks become a Proxima cluster (see `docs/FORMATS.md`): each block is a leaf
//! switch (tier `rack`) with its nodes below at the node's link (`nics × nic_gbps`), and
//! the blocks hang from one top switch named by their host list (`block[1-2]`, the name Slurm
//! gives the aggregated block of them all), each at full bisection: its uplink carries the
//! links of its nodes, so blocks are not oversubscribed (1:1), as a tree without
//! `LinkSpeed`. The aggregated levels of `BlockSizes` are checked but not modelled as
//! switches: the file says nothing of how they are wired, and at full bisection they would
//! change no bandwidth.
//!
//! With `block_nvlink=on` (the default with `gpu=gb200`, whose Slurm blocks are its NVL72
//! racks) each block is a multi-node NVLink domain instead: its switch has the role
//! `nvlink`, its nodes join it at their GPUs' NVLink (`gpus × nvlink_gbps`), and its link up
//! is still its nodes' NICs, so a job inside one block pays NVLink and one across blocks
//! the NICs.

use super::slurm::Reader;
use super::slurm_form::{canonical, other_key};
use super::slurm_tree::{build_spec, compress, Children, SwitchLine};
use crate::error::InputError;
use crate::topology::spec::{default_nvlink_latency_us, TopologySpec, NVLINK_ROLE};
use std::collections::{BTreeMap, BTreeSet};

/// The largest power of two a block size may be of the base size (`block_record.c` line 131).
const MAX_BLOCK_LEVEL: u32 = 15;

impl Reader<'_> {
    /// One line of a topology/block file: a block, or the block sizes.
    pub(super) fn block_line(&mut self, line: u32, pairs: &[(String, String)]) -> Result<(), InputError> {
        let (first_key, first_value) = &pairs[0];
        if first_key.eq_ignore_ascii_case("blocksizes") {
            if let Some((key, _)) = pairs.get(1) {
                return Err(InputError::at_line(
                    line,
                    key,
                    "BlockSizes stands on a line of its own (slurmctld refuses anything after it)",
                ));
            }
            let sizes = block_sizes(line, first_value)?;
            if let Some((earlier, _)) = self.block_sizes {
                self.warnings.push(InputError::at_line(
                    line,
                    "BlockSizes",
                    format!("given again (earlier on line {earlier}): Slurm uses the last value, and so does Proxima"),
                ));
            }
            self.block_sizes = Some((line, sizes));
            return Ok(());
        }
        let mut name = None;
        let mut nodes = None;
        for (key, value) in pairs {
            let slot = match key.to_ascii_lowercase().as_str() {
                "blockname" => &mut name,
                "nodes" => &mut nodes,
                "blocksizes" => {
                    return Err(InputError::at_line(
                        line,
                        key,
                        "BlockSizes stands on a line of its own, not on a BlockName line",
                    ))
                }
                other => return Err(foreign_block_key(line, key, other)),
            };
            if slot.is_some() {
                return Err(InputError::at_line(line, canonical(key), "given twice on this line"));
            }
            *slot = Some(value.as_str());
        }
        let name = name.ok_or_else(|| {
            InputError::at_line(
                line,
                "BlockName",
                "missing: each line names a block, as in BlockName=b1 Nodes=node[01-16]",
            )
        })?;
        self.check_name(line, name)?;
        let nodes = match nodes {
            Some(list) => self.nodes(line, list)?,
            None => Vec::new(),
        };
        self.add(SwitchLine { name: name.to_string(), line, children: Children::Nodes(nodes), link_speed: None });
        Ok(())
    }

    /// The cluster of the blocks read: blocks with nodes under one top switch (or one block
    /// alone), with warnings for blocks Slurm accepts that add nothing or are smaller than
    /// the base block size.
    pub(super) fn block_spec(&mut self) -> Result<TopologySpec, InputError> {
        let mut blocks = Vec::new();
        for block in &self.switches {
            if block.nodes().is_empty() {
                self.warnings.push(InputError::at_line(
                    block.line,
                    "Nodes",
                    format!(
                        "block '{}' has no nodes: Slurm accepts it, and it adds nothing to the cluster",
                        block.name
                    ),
                ));
            } else {
                blocks.push(block.clone());
            }
        }
        let Some(first) = blocks.first() else {
            return Err(InputError::new(
                "BlockName",
                "no blocks with nodes: a topology/block file has lines such as BlockName=b1 Nodes=node[01-16]",
            ));
        };
        // The base block size: BlockSizes' first, else the first block's node count.
        let (base, said) = match &self.block_sizes {
            Some((line, sizes)) => (sizes[0] as usize, format!("BlockSizes, line {line}")),
            None => (first.nodes().len(), format!("the first block's, line {}", first.line)),
        };
        for block in blocks.iter().filter(|b| b.nodes().len() < base) {
            self.warnings.push(InputError::at_line(
                block.line,
                "Nodes",
                format!(
                    "block '{}' has {} nodes, fewer than the base block size of {base} ({said}); Slurm plans in base blocks of that size, Proxima builds the block as written",
                    block.name,
                    block.nodes().len()
                ),
            ));
        }
        if blocks.len() > 1 {
            let names: Vec<&str> = blocks.iter().map(|b| b.name.as_str()).collect();
            let top = SwitchLine {
                name: compress(&names),
                line: first.line,
                children: Children::Switches(names.iter().map(|n| n.to_string()).collect()),
                link_speed: None,
            };
            blocks.push(top);
        }
        let by_name: BTreeMap<String, usize> = blocks.iter().enumerate().map(|(i, b)| (b.name.clone(), i)).collect();
        let mut spec = build_spec(&blocks, &by_name, self.options, &mut self.warnings)?;
        if self.options.block_nvlink() {
            let leaves: BTreeSet<&str> =
                blocks.iter().filter(|b| matches!(b.children, Children::Nodes(_))).map(|b| b.name.as_str()).collect();
            nvlink_blocks(&mut spec, &leaves, self.options.links.nvlink_gbps);
        }
        Ok(spec)
    }
}

/// Makes each block an NVLink domain (`block_nvlink`): its switch of role `nvlink`, its
/// nodes joined to it by their GPUs' NVLink (`gpus × nvlink_gbps`, at NVLink latency); the
/// block's link up keeps the NICs of its nodes.
fn nvlink_blocks(spec: &mut TopologySpec, blocks: &BTreeSet<&str>, gpu_link_gbps: f64) {
    for switch in spec.switches.iter_mut().filter(|s| blocks.contains(s.id.as_str())) {
        switch.role = Some(NVLINK_ROLE.to_string());
    }
    let gpus: BTreeMap<&str, u32> = spec.servers.iter().map(|s| (s.id.as_str(), s.gpus)).collect();
    for link in spec.links.iter_mut().filter(|l| blocks.contains(l.b.as_str())) {
        if let Some(&n) = gpus.get(link.a.as_str()) {
            link.bandwidth_gbps = n as f64 * gpu_link_gbps;
            link.latency_us = default_nvlink_latency_us();
        }
    }
}

/// `BlockSizes=16,32,64`: the base size in nodes, then sizes that are the base times a power
/// of two, as slurmctld requires.
pub(super) fn block_sizes(line: u32, text: &str) -> Result<Vec<u32>, InputError> {
    let mut sizes: Vec<u32> = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        let problem = match (item.parse::<u32>().ok().filter(|&n| n > 0), sizes.first()) {
            (None, _) => Some(format!("'{item}' is not a positive whole number of nodes")),
            (Some(n), Some(&base)) => {
                let ratio = (n % base == 0).then_some(n / base);
                match ratio {
                    Some(r) if r.is_power_of_two() && r.trailing_zeros() <= MAX_BLOCK_LEVEL => {
                        sizes.push(n);
                        None
                    }
                    _ => Some(format!(
                        "{n} is not the base size {base} times a power of two (up to 2^{MAX_BLOCK_LEVEL}), as slurmctld requires"
                    )),
                }
            }
            (Some(n), None) => {
                sizes.push(n);
                None
            }
        };
        if let Some(message) = problem {
            return Err(InputError::at_line(
                line,
                "BlockSizes",
                format!("{message}: BlockSizes lists the base block size in nodes, then larger ones, as in BlockSizes=16,32,64"),
            ));
        }
    }
    Ok(sizes)
}

/// A key that is not one of the block plugin's, with what it most likely is.
fn foreign_block_key(line: u32, key: &str, lower: &str) -> InputError {
    let message = match lower {
        "switchname" | "switches" | "linkspeed" => "a topology/tree key on a topology/block line: a file is of one form, as slurmctld reads it (SwitchName=... lines, or BlockName=... lines)".to_string(),
        _ => other_key(lower, "a topology/block line has BlockName and Nodes; BlockSizes stands on a line of its own"),
    };
    InputError::at_line(line, key, message)
}
