//! The production topology of Alibaba's Lingjun dataset (`data/topo.csv` of
//! alibaba/alibaba-lingjun-dataset-2023, Apache-2.0; the dataset of Crux, SIGCOMM'24), read
//! into a [`TopologySpec`]:
//!
//! ```text
//! ip,DSW,PSW,ASW
//! 0c9d...,G6,P10,S14
//! ```
//!
//! One row per host gives the switches above it in a three-layer Clos: `ASW` its
//! top-of-rack switch, `PSW` its aggregation switch, `DSW` its core switch. The file says
//! neither how many GPUs a host has (eight per host in the paper) nor how fast anything is,
//! so the same [`LingjunOptions`] as for a Slurm `topology.conf` give them. How the rows become
//! a tree (see `docs/FORMATS.md`):
//!
//! - A switch is its whole path, not its name: the file reuses `ASW` names under different
//!   `PSW`s (S2 appears under P8, P10 and P12 with different hosts), so an `ASW` name is
//!   local to its `PSW`, and a `PSW` name to its `DSW`. Switches are named by the path
//!   (`G6/P10/S14`), and as each row names one `PSW` for its host, every switch has one
//!   parent and the rows always form a tree.
//! - Links have full bisection, as a Slurm tree without `LinkSpeed`: a host's link is `nics
//!   × nic_gbps`, and a switch's uplink carries the links of every host below it.
//! - One core switch must hold everything (Proxima simulates one connected cluster, as for
//!   Slurm); a core switch with a single aggregation switch below it adds nothing and is
//!   left out, the aggregation switch becoming the root.

use super::options::LingjunOptions;
use super::spec_parts::{link, server};
use crate::csv::Table;
use crate::error::InputError;
use crate::topology::spec::{SwitchSpec, TopologySpec, MAX_GPUS};
use std::collections::BTreeMap;

/// The header of the file, as the dataset writes it.
pub const LINGJUN_HEADER: &str = "ip,DSW,PSW,ASW";

/// The columns in the dataset's spelling, in the header's order.
const COLUMNS: [&str; 4] = ["ip", "DSW", "PSW", "ASW"];

/// One switch of the tree: its path name, its role, and the children in the order the
/// file first names them.
struct Switch {
    id: String,
    role: &'static str,
    children: Vec<usize>,
    /// Hosts directly below (for a top-of-rack switch).
    hosts: Vec<String>,
}

/// The cluster a Lingjun `topo.csv` describes, with the options for what the file does not
/// say. The description has no name (the caller names it after the file). Errors carry the
/// line and the column as the dataset spells it (`ip`, `DSW`, `PSW`, `ASW`).
pub fn read_lingjun_topology(text: &str, options: &LingjunOptions) -> Result<TopologySpec, InputError> {
    let mut table = Table::new(text)?;
    let found = table.locate(&["ip", "dsw", "psw", "asw"], &[], true, LINGJUN_HEADER).map_err(dataset_spelling)?;
    let index: Vec<usize> = ["ip", "dsw", "psw", "asw"].iter().map(|c| found[*c]).collect();
    let max_hosts = (MAX_GPUS / options.gpus.max(1)) as usize;
    let mut switches: Vec<Switch> = Vec::new();
    let mut by_path: BTreeMap<String, usize> = BTreeMap::new();
    let mut host_line: BTreeMap<String, u32> = BTreeMap::new();
    let mut core: Option<(String, u32)> = None;
    while let Some(row) = table.next_row() {
        let row = row.map_err(dataset_spelling)?;
        let mut values = [""; 4];
        for (k, &i) in index.iter().enumerate() {
            values[k] = row.fields[i].trim();
            if values[k].is_empty() {
                return Err(InputError::at_line(
                    row.line,
                    COLUMNS[k],
                    "empty: every host needs its ip and its three switches",
                ));
            }
        }
        let [ip, dsw, psw, asw] = values;
        if let Some(k) = (1..4).find(|&k| values[k].contains('/')) {
            return Err(InputError::at_line(
                row.line,
                COLUMNS[k],
                format!("'{}' holds a '/', which Proxima keeps for the switch's path (DSW/PSW/ASW)", values[k]),
            ));
        }
        if let Some(first) = host_line.get(ip) {
            return Err(InputError::at_line(row.line, "ip", format!("host '{ip}' is already on line {first}")));
        }
        if host_line.len() == max_hosts {
            return Err(InputError::at_line(
                row.line,
                "ip",
                format!(
                    "too many hosts: at {} GPUs per host a cluster has at most {max_hosts} hosts (Proxima supports {MAX_GPUS} GPUs)",
                    options.gpus
                ),
            ));
        }
        match &core {
            None => core = Some((dsw.to_string(), row.line)),
            Some((first, line)) if first != dsw => {
                return Err(InputError::at_line(
                    row.line,
                    "DSW",
                    format!("a second core switch '{dsw}' (line {line} has '{first}'): Proxima simulates one tree, so every host must be under one core switch; split the file by DSW"),
                ))
            }
            Some(_) => {}
        }
        host_line.insert(ip.to_string(), row.line);
        let root = switch(&mut switches, &mut by_path, None, dsw.to_string(), "core");
        let agg = switch(&mut switches, &mut by_path, Some(root), format!("{dsw}/{psw}"), "agg");
        let tor = switch(&mut switches, &mut by_path, Some(agg), format!("{dsw}/{psw}/{asw}"), "tor");
        switches[tor].hosts.push(ip.to_string());
    }
    if host_line.is_empty() {
        return Err(InputError::at_line(table.header_line, "header", "no hosts: the file has a header but no rows"));
    }
    Ok(spec(&switches, options))
}

/// The index of the switch with this path, created below `parent` when new.
fn switch(
    switches: &mut Vec<Switch>,
    by_path: &mut BTreeMap<String, usize>,
    parent: Option<usize>,
    id: String,
    role: &'static str,
) -> usize {
    if let Some(&i) = by_path.get(&id) {
        return i;
    }
    let i = switches.len();
    by_path.insert(id.clone(), i);
    switches.push(Switch { id, role, children: Vec::new(), hosts: Vec::new() });
    if let Some(p) = parent {
        switches[p].children.push(i);
    }
    i
}

/// The table reader names columns in lower case; errors name them as the dataset does.
fn dataset_spelling(mut e: InputError) -> InputError {
    if let Some(column) = COLUMNS.iter().find(|c| c.eq_ignore_ascii_case(&e.field)) {
        e.field = column.to_string();
    }
    e
}

/// The description, walking down from the core switch (switch 0): switches and hosts in
/// the order the file first names them, every uplink at full bisection.
fn spec(switches: &[Switch], options: &LingjunOptions) -> TopologySpec {
    let mut spec = options.links.empty_spec();
    let root = match switches[0].children[..] {
        [only] => only,
        _ => 0,
    };
    let mut stack = vec![root];
    while let Some(s) = stack.pop() {
        let sw = &switches[s];
        spec.switches.push(SwitchSpec { id: sw.id.clone(), role: Some(sw.role.to_string()) });
        for host in &sw.hosts {
            spec.servers.push(server(host, options.gpus, &options.links));
            spec.links.push(link(host, &sw.id, options.links.node_link_gbps()));
        }
        for &c in &sw.children {
            let bandwidth = hosts_below(switches, c) as f64 * options.links.node_link_gbps();
            spec.links.push(link(&switches[c].id, &sw.id, bandwidth));
        }
        stack.extend(sw.children.iter().rev());
    }
    spec
}

/// The hosts below a switch: its uplink carries all their links. The tree is three levels
/// deep, so the recursion is shallow.
fn hosts_below(switches: &[Switch], s: usize) -> usize {
    switches[s].hosts.len() + switches[s].children.iter().map(|&c| hosts_below(switches, c)).sum::<usize>()
}
