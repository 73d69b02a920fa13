//! Every problem of a description, each on its element, in the core's words.
//!
//! [`Topology::from_spec`] stops at the first problem, so [`check`] repairs that problem
//! in a scratch copy (drops the bad link, gives the server a GPU, ...) and asks again,
//! collecting every problem with the core's own message and the element it belongs to.

use super::names::used;
use super::{Element, Problem};
use proxima_core::topology::{Topology, TopologySpec};
use proxima_core::InputError;

/// At most this many problems are listed (the core is asked once per problem).
pub const MAX_PROBLEMS: usize = 50;

/// Checks a description with the core: the topology if it is valid, else every problem
/// found, each on its element, in the core's words.
pub fn check(spec: &TopologySpec) -> (Option<Topology>, Vec<Problem>) {
    let mut err = match Topology::from_spec(spec) {
        Ok(t) => return (Some(t), Vec::new()),
        Err(e) => e,
    };
    // A scratch copy, repaired problem by problem; the maps give each of its switches,
    // servers and links the index it has in the original.
    let mut work = spec.clone();
    let mut switches: Vec<usize> = (0..spec.switches.len()).collect();
    let mut servers: Vec<usize> = (0..spec.servers.len()).collect();
    let mut links: Vec<usize> = (0..spec.links.len()).collect();
    let mut problems = Vec::new();
    for _ in 0..MAX_PROBLEMS {
        let (element, field, repaired) = repair(&mut work, &mut switches, &mut servers, &mut links, &err, spec);
        problems.push(Problem { element, text: format!("{field}: {}", err.message) });
        if !repaired {
            break;
        }
        match Topology::from_spec(&work) {
            Ok(_) => break,
            Err(e) => err = e,
        }
    }
    (None, problems)
}

/// `links[3].bandwidth_gbps` → ("links", Some(3), "bandwidth_gbps").
fn parse_field(field: &str) -> (&str, Option<usize>, &str) {
    let Some(open) = field.find('[') else { return (field, None, "") };
    let Some(close) = field[open..].find(']').map(|c| c + open) else { return (field, None, "") };
    let index = field[open + 1..close].parse().ok();
    let rest = field[close + 1..].trim_start_matches('.');
    (&field[..open], index, rest)
}

/// Locates the problem `err` of the scratch copy in the original, and repairs it in the
/// copy so that the core can look further. Returns the element, the field as the original
/// numbers it, and whether the copy was repaired.
fn repair(
    work: &mut TopologySpec,
    switches: &mut Vec<usize>,
    servers: &mut Vec<usize>,
    links: &mut Vec<usize>,
    err: &InputError,
    original: &TopologySpec,
) -> (Option<Element>, String, bool) {
    let (list, index, rest) = parse_field(&err.field);
    let with =
        |name: &str, i: usize| if rest.is_empty() { format!("{name}[{i}]") } else { format!("{name}[{i}].{rest}") };
    match (list, index) {
        ("links", Some(i)) if i < links.len() => {
            let o = links[i];
            let field = with("links", o);
            match rest {
                "bandwidth_gbps" => work.links[i].bandwidth_gbps = 1.0,
                "latency_us" => work.links[i].latency_us = 0.0,
                _ => {
                    work.links.remove(i);
                    links.remove(i);
                }
            }
            (Some(Element::Link(o)), field, true)
        }
        ("servers", Some(i)) if i < servers.len() => {
            let o = servers[i];
            let field = with("servers", o);
            let id = original.servers[o].id.clone();
            match rest {
                "gpus" => work.servers[i].gpus = 1,
                "nvlink_gbps" => work.servers[i].nvlink_gbps = 1.0,
                "nvlink_latency_us" => work.servers[i].nvlink_latency_us = 0.0,
                _ => work.servers[i].id = format!("\u{0}server{o}"),
            }
            (Some(Element::Node(id)), field, true)
        }
        ("switches", Some(i)) if i < switches.len() => {
            let o = switches[i];
            let field = with("switches", o);
            let id = original.switches[o].id.clone();
            if rest == "id" {
                work.switches[i].id = format!("\u{0}switch{o}");
            } else {
                remove_node(work, switches, servers, links, &id);
            }
            (Some(Element::Node(id)), field, true)
        }
        ("links", None) => {
            // "server 'x' has no path to the rest of the cluster".
            let name = err.message.split('\'').nth(1).unwrap_or("").to_string();
            if name.is_empty() || !used(work, &name) {
                return (None, err.field.clone(), false);
            }
            remove_node(work, switches, servers, links, &name);
            (Some(Element::Node(name)), err.field.clone(), !work.servers.is_empty())
        }
        _ => (None, err.field.clone(), false),
    }
}

/// Removes a node and its links from the scratch copy, keeping the maps in step.
fn remove_node(
    work: &mut TopologySpec,
    switches: &mut Vec<usize>,
    servers: &mut Vec<usize>,
    links: &mut Vec<usize>,
    id: &str,
) {
    if let Some(i) = work.switches.iter().position(|s| s.id == id) {
        work.switches.remove(i);
        switches.remove(i);
    }
    if let Some(i) = work.servers.iter().position(|s| s.id == id) {
        work.servers.remove(i);
        servers.remove(i);
    }
    let mut i = 0;
    while i < work.links.len() {
        if work.links[i].a == id || work.links[i].b == id {
            work.links.remove(i);
            links.remove(i);
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_are_split_into_list_index_and_rest() {
        assert_eq!(parse_field("links[3].bandwidth_gbps"), ("links", Some(3), "bandwidth_gbps"));
        assert_eq!(parse_field("switches[2]"), ("switches", Some(2), ""));
        assert_eq!(parse_field("links"), ("links", None, ""));
    }
}
