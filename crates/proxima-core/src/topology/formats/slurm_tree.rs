//! From the lines of a `topology.conf` to a description: the switches resolved by name,
//! checked to form one tree, parallel switches merged, and the links given bandwidths (see
//! `slurm.rs` for the rules and `docs/FORMATS.md` for the reasons).

use super::options::SlurmOptions;
use super::spec_parts::{link, server};
use crate::error::InputError;
use crate::topology::spec::{SwitchSpec, TopologySpec};
use std::collections::{BTreeMap, BTreeSet};

/// One `SwitchName=...` line.
#[derive(Clone, Debug)]
pub(super) struct SwitchLine {
    pub name: String,
    pub line: u32,
    pub children: Children,
    pub link_speed: Option<u32>,
}

#[derive(Clone, Debug)]
pub(super) enum Children {
    /// A leaf switch's nodes.
    Nodes(Vec<String>),
    /// The names of the switches below.
    Switches(Vec<String>),
}

impl SwitchLine {
    pub fn nodes(&self) -> &[String] {
        match &self.children {
            Children::Nodes(nodes) => nodes,
            Children::Switches(_) => &[],
        }
    }
}

/// The switches as a graph: child switches by index, and the groups of parallel switches.
struct Tree<'a> {
    lines: &'a [SwitchLine],
    /// Child switches of each switch, in the order listed.
    children: Vec<Vec<usize>>,
    /// The group each switch belongs to (the index of its first member).
    group: Vec<usize>,
}

pub(super) fn build_spec(
    lines: &[SwitchLine],
    by_name: &BTreeMap<String, usize>,
    options: &SlurmOptions,
    warnings: &mut Vec<InputError>,
) -> Result<TopologySpec, InputError> {
    if lines.is_empty() {
        return Err(InputError::new(
            "SwitchName",
            "no switches: a topology/tree file has lines such as SwitchName=s0 Nodes=node[01-16]",
        ));
    }
    let speeds = link_speeds(lines, options, warnings);
    let children = resolve_children(lines, by_name)?;
    check_acyclic(lines, &children)?;
    let mut tree = Tree { lines, children, group: (0..lines.len()).collect() };
    tree.merge_parallel_switches()?;
    let root = tree.single_root()?;
    Ok(tree.spec(root, &speeds, options))
}

/// Each line's link speed in Gbit/s, when the file's `LinkSpeed`s say anything: on every
/// line, scaled so the fastest leaf switch's value is a node's link (`nics × nic_gbps`).
/// On some lines only they say nothing Proxima can scale (a line without one has no value,
/// and Slurm's default of 1 is no speed relative to the others), so they are ignored on
/// every line, with a warning at the first line without one.
fn link_speeds(lines: &[SwitchLine], options: &SlurmOptions, warnings: &mut Vec<InputError>) -> Option<Vec<f64>> {
    let first = lines.iter().find(|l| l.link_speed.is_some())?;
    if let Some(missing) = lines.iter().find(|l| l.link_speed.is_none()) {
        warnings.push(InputError::at_line(
            missing.line,
            "LinkSpeed",
            format!(
                "missing here but given on line {}: LinkSpeed is relative and Slurm does not use it, so with it on some lines only Proxima ignores it on every line and gives the switches full bisection",
                first.line
            ),
        ));
        return None;
    }
    let speed = |l: &SwitchLine| l.link_speed.unwrap_or(1) as f64;
    if lines.iter().all(|l| l.link_speed == first.link_speed) {
        return None;
    }
    let fastest_leaf = lines.iter().filter(|l| matches!(l.children, Children::Nodes(_))).map(speed).fold(0.0, f64::max);
    if fastest_leaf == 0.0 {
        return None;
    }
    Some(lines.iter().map(|l| options.links.node_link_gbps() * (speed(l) / fastest_leaf)).collect())
}

/// The child switches of each line, by index: every name known, none listed twice, none
/// the switch itself; and no node named like a switch.
fn resolve_children(lines: &[SwitchLine], by_name: &BTreeMap<String, usize>) -> Result<Vec<Vec<usize>>, InputError> {
    let mut all = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        let mut children = Vec::new();
        match &l.children {
            Children::Nodes(nodes) => {
                if let Some((node, &j)) = nodes.iter().find_map(|n| by_name.get(n).map(|j| (n, j))) {
                    return Err(InputError::at_line(
                        l.line,
                        "Nodes",
                        format!("node '{node}' has the name of switch '{node}' (line {})", lines[j].line),
                    ));
                }
            }
            Children::Switches(names) => {
                for name in names {
                    let problem = match by_name.get(name) {
                        None => Some(format!("unknown switch '{name}' (no line SwitchName={name})")),
                        Some(&j) if j == i => Some(format!("switch '{name}' lists itself")),
                        Some(j) if children.contains(j) => Some(format!("switch '{name}' is listed twice")),
                        Some(&j) => {
                            children.push(j);
                            None
                        }
                    };
                    if let Some(message) = problem {
                        return Err(InputError::at_line(l.line, "Switches", message));
                    }
                }
            }
        }
        all.push(children);
    }
    Ok(all)
}

/// No switch may lead back to itself.
fn check_acyclic(lines: &[SwitchLine], children: &[Vec<usize>]) -> Result<(), InputError> {
    // 0: not seen, 1: on the current path, 2: done. An explicit stack keeps long chains from
    // overflowing the call stack.
    let mut state = vec![0u8; lines.len()];
    for start in 0..lines.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&w) = children[v].get(*next) {
                *next += 1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => {
                        return Err(InputError::at_line(
                            lines[v].line,
                            "Switches",
                            format!(
                                "switch '{}' lists '{}', which leads back to '{}': the switches must form a tree",
                                lines[v].name, lines[w].name, lines[v].name
                            ),
                        ))
                    }
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}

impl Tree<'_> {
    fn groups(&self) -> BTreeSet<usize> {
        self.group.iter().copied().collect()
    }

    /// The groups directly below a switch.
    fn child_groups(&self, switch: usize) -> BTreeSet<usize> {
        self.children[switch].iter().map(|&c| self.group[c]).collect()
    }

    /// The groups of switches that list a member of each group, by group.
    fn parent_groups(&self) -> BTreeMap<usize, BTreeSet<usize>> {
        let mut parents: BTreeMap<usize, BTreeSet<usize>> =
            self.groups().into_iter().map(|g| (g, BTreeSet::new())).collect();
        for (p, children) in self.children.iter().enumerate() {
            for &c in children {
                parents.entry(self.group[c]).or_default().insert(self.group[p]);
            }
        }
        parents
    }

    /// Merges the switches over a switch with several parents into one, while their
    /// children are the same; refuses them otherwise.
    fn merge_parallel_switches(&mut self) -> Result<(), InputError> {
        loop {
            let parents = self.parent_groups();
            let Some((&child, over)) = parents.iter().find(|(_, p)| p.len() > 1) else { return Ok(()) };
            let over: Vec<usize> = over.iter().copied().collect();
            let first = over[0];
            let wanted = self.child_groups(first);
            if let Some(&other) = over.iter().find(|&&g| self.child_groups(g) != wanted) {
                let (a, b) = (&self.lines[first], &self.lines[other]);
                return Err(InputError::at_line(
                    b.line,
                    "Switches",
                    format!(
                        "switch '{}' is under both '{}' (line {}) and '{}', which do not list the same switches; Proxima models trees: parallel switches (the spines of a fat tree) must list the same children, and then count as one switch with the links' total bandwidth",
                        self.lines[child].name, a.name, a.line, b.name
                    ),
                ));
            }
            for g in self.group.iter_mut() {
                if over.contains(g) {
                    *g = first;
                }
            }
        }
    }

    /// The one group with no parent.
    fn single_root(&self) -> Result<usize, InputError> {
        let roots: Vec<usize> =
            self.parent_groups().into_iter().filter(|(_, p)| p.is_empty()).map(|(g, _)| g).collect();
        if let [root] = roots[..] {
            return Ok(root);
        }
        let names: Vec<String> = roots.iter().map(|&g| self.group_name(g)).collect();
        let shown = names[..names.len().min(4)].join(", ");
        let more = if names.len() > 4 { format!(" and {} more", names.len() - 4) } else { String::new() };
        let listed = if names.len() > 4 { format!("{},...", names[..4].join(",")) } else { names.join(",") };
        Err(InputError::at_line(
            self.lines[roots[1]].line,
            "SwitchName",
            format!(
                "{} switches have no parent switch ({shown}{more}): Slurm lets separate trees stand side by side but never runs a job across them, and Proxima simulates one connected cluster; add a line above them such as SwitchName=top Switches={listed}",
                names.len()
            ),
        ))
    }

    fn members(&self, group: usize) -> impl Iterator<Item = usize> + '_ {
        self.group.iter().enumerate().filter(move |(_, &g)| g == group).map(|(s, _)| s)
    }

    /// The description, walking down from the root: switches in the order they are
    /// reached, each one's children in the order its line lists them.
    fn spec(&self, root: usize, speeds: &Option<Vec<f64>>, options: &SlurmOptions) -> TopologySpec {
        let mut spec = options.links.empty_spec();
        let names: BTreeMap<usize, String> = self.groups().into_iter().map(|g| (g, self.group_name(g))).collect();
        let below = self.nic_bandwidth_below(options);
        let mut stack = vec![root];
        while let Some(g) = stack.pop() {
            let leaf = &self.lines[g];
            spec.switches.push(SwitchSpec {
                id: names[&g].clone(),
                role: matches!(leaf.children, Children::Nodes(_)).then(|| "leaf".to_string()),
            });
            for node in leaf.nodes() {
                spec.servers.push(server(node, options.gpus, &options.links));
                let nic = speeds.as_ref().map_or(options.links.node_link_gbps(), |s| s[g]);
                spec.links.push(link(node, &names[&g], nic));
            }
            let mut child_groups = Vec::new();
            for &c in &self.children[g] {
                if !child_groups.contains(&self.group[c]) {
                    child_groups.push(self.group[c]);
                }
            }
            for &c in &child_groups {
                let bandwidth = match speeds {
                    None => below[&c],
                    Some(s) => self
                        .members(g)
                        .map(|p| self.children[p].iter().filter(|&&x| self.group[x] == c).count() as f64 * s[p])
                        .sum(),
                };
                spec.links.push(link(&names[&c], &names[&g], bandwidth));
            }
            stack.extend(child_groups.into_iter().rev());
        }
        spec
    }

    /// The NIC bandwidth of all nodes below each group: its uplink at full bisection.
    fn nic_bandwidth_below(&self, options: &SlurmOptions) -> BTreeMap<usize, f64> {
        let mut below = BTreeMap::new();
        // Children before parents: a group's height is known once its children's are.
        let mut pending: Vec<usize> = self.groups().into_iter().collect();
        while !pending.is_empty() {
            pending.retain(|&g| {
                let kids = self.child_groups(g);
                if kids.iter().all(|k| below.contains_key(k)) {
                    let own = self.lines[g].nodes().len() as f64 * options.links.node_link_gbps();
                    let total = own + kids.iter().map(|k| below[k]).sum::<f64>();
                    below.insert(g, total);
                    false
                } else {
                    true
                }
            });
        }
        below
    }

    /// A group's name: the switch's own, or the members' as a Slurm host list (`s[4-7]`),
    /// which no switch can be named (names with brackets or commas are refused).
    fn group_name(&self, group: usize) -> String {
        let names: Vec<&str> = self.members(group).map(|s| self.lines[s].name.as_str()).collect();
        match names[..] {
            [one] => one.to_string(),
            _ => compress(&names),
        }
    }
}

/// Names as a host list: `s[4-7]` when they share a prefix and end in numbers of one width,
/// else the names joined by commas.
pub(super) fn compress(names: &[&str]) -> String {
    fn split(n: &str) -> (&str, &str) {
        let digits = n.len() - n.bytes().rev().take_while(u8::is_ascii_digit).count();
        (&n[..digits], &n[digits..])
    }
    let (prefix, first_digits) = split(names[0]);
    let same_shape = names.iter().all(|n| {
        let (p, d) = split(n);
        p == prefix && !d.is_empty() && d.len() == first_digits.len() && d.parse::<u64>().is_ok()
    });
    if !same_shape {
        return names.join(",");
    }
    let width = first_digits.len();
    let mut numbers: Vec<u64> = names.iter().map(|n| split(n).1.parse().expect("checked")).collect();
    numbers.sort_unstable();
    let mut ranges: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let mut j = i;
        while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
            j += 1;
        }
        ranges.push(if i == j {
            format!("{:0width$}", numbers[i])
        } else {
            format!("{:0width$}-{:0width$}", numbers[i], numbers[j])
        });
        i = j + 1;
    }
    format!("{prefix}[{}]", ranges.join(","))
}
