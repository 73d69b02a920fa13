//! Step 4 of the checks, the shape of a description: servers with more than one link, links
//! that close cycles, pieces cut off from the cluster, the root, and switches with no server
//! below it. Apart from `check.rs` because these judge the graph as a whole, not one element.

use super::{ElementRef, Graph, Problem};
use crate::topology::spec::{is_nvlink_role, TopologySpec};

/// Step 4a: a server is a leaf with one link. Each further link is a problem and is set
/// aside, so that it is not reported again as closing a cycle. (A cluster of one server
/// and one switch is exempt: two links between them close a cycle, reported as such.)
pub(super) fn set_aside_extra_server_links(spec: &TopologySpec, graph: &mut Graph, problems: &mut Vec<Problem>) {
    if graph.len() <= 2 {
        return;
    }
    let mut extra = vec![false; spec.links.len()];
    for v in 0..graph.len() {
        let count = graph.adjacency[v].len();
        if !graph.is_server[v] || count <= 1 {
            continue;
        }
        for &(_, li) in &graph.adjacency[v][1..] {
            extra[li] = true;
            problems.push(Problem::new(
                ElementRef::Link { index: li },
                None,
                format!("links[{li}]"),
                format!(
                    "server '{}' has {count} links; a server is a leaf connected to one switch (aggregate parallel NICs into one link)",
                    graph.names[v]
                ),
            ));
        }
    }
    graph.remove_links(&extra);
}

/// Step 4b: the pieces of the graph. The main piece is the one with the most servers (the
/// first written on a tie); every other piece is cut off, reported once on its first node.
/// Within each piece, a depth-first walk from its first node reports every link that
/// closes a cycle, and sets it aside. Returns which nodes are in the main piece.
pub(super) fn walk_pieces(spec: &TopologySpec, graph: &mut Graph, problems: &mut Vec<Problem>) -> Vec<bool> {
    let n = graph.len();
    // Label the pieces, numbered in the order of their first node.
    let mut piece = vec![usize::MAX; n];
    let mut firsts = Vec::new();
    let mut sizes: Vec<(usize, usize)> = Vec::new();
    for start in 0..n {
        if piece[start] != usize::MAX {
            continue;
        }
        let id = firsts.len();
        firsts.push(start);
        sizes.push((0, 0));
        piece[start] = id;
        let mut stack = vec![start];
        while let Some(v) = stack.pop() {
            sizes[id].0 += 1;
            sizes[id].1 += graph.is_server[v] as usize;
            for &(w, _) in &graph.adjacency[v] {
                if piece[w] == usize::MAX {
                    piece[w] = id;
                    stack.push(w);
                }
            }
        }
    }
    let Some(main) = (0..firsts.len()).max_by_key(|&p| (sizes[p].1, std::cmp::Reverse(p))) else {
        return Vec::new();
    };
    let order = std::iter::once(main).chain((0..firsts.len()).filter(|&p| p != main));
    let mut closing = vec![false; spec.links.len()];
    let mut seen = vec![false; n];
    for p in order {
        let start = firsts[p];
        if p != main {
            let others = sizes[p].0 - 1;
            let message = match others {
                0 => format!("{} '{}' has no path to the rest of the cluster", graph.kind(start), graph.names[start]),
                _ => format!(
                    "{} '{}', with the {others} node{} linked to it, has no path to the rest of the cluster",
                    graph.kind(start),
                    graph.names[start],
                    if others == 1 { "" } else { "s" }
                ),
            };
            problems.push(Problem::new(graph.element(start), None, "links".to_string(), message));
        }
        mark_cycle_links(spec, graph, start, &mut seen, &mut closing, problems);
    }
    graph.remove_links(&closing);
    piece.iter().map(|&p| p == main).collect()
}

/// Marks in `closing` the links that close a cycle in the piece of `start`, reporting each
/// once; a depth-first walk that remembers the link it arrived by finds them.
fn mark_cycle_links(
    spec: &TopologySpec,
    graph: &Graph,
    start: usize,
    seen: &mut [bool],
    closing: &mut [bool],
    problems: &mut Vec<Problem>,
) {
    let mut stack = vec![(start, usize::MAX)];
    seen[start] = true;
    while let Some((v, via)) = stack.pop() {
        for &(w, li) in &graph.adjacency[v] {
            if li == via {
                continue;
            }
            if seen[w] {
                if !closing[li] {
                    closing[li] = true;
                    problems.push(Problem::new(
                        ElementRef::Link { index: li },
                        None,
                        format!("links[{li}]"),
                        format!(
                            "the link {} - {} closes a cycle; Proxima models tree topologies, so aggregate parallel links into one link with their total bandwidth",
                            spec.links[li].a, spec.links[li].b
                        ),
                    ));
                }
                continue;
            }
            seen[w] = true;
            stack.push((w, li));
        }
    }
}

/// The root of the main piece (a tree once the checks have set links aside): the node whose
/// farthest server is nearest (the tree's centre, seen from the servers), preferring
/// switches, then the first written. In the usual spine / top-of-rack / server tree this is
/// the spine.
pub(super) fn choose_root(adjacency: &[Vec<(usize, usize)>], is_server: &[bool], in_main: &[bool]) -> Option<usize> {
    let members: Vec<usize> = (0..in_main.len()).filter(|&v| in_main[v]).collect();
    if members.len() <= 1 {
        return members.first().copied();
    }
    // Eccentricity over servers by a search from every node would be O(n^2); peeling
    // leaves layer by layer finds the centre in linear time.
    let mut degree: Vec<usize> = adjacency.iter().map(|a| a.len()).collect();
    let mut removed: Vec<bool> = in_main.iter().map(|&m| !m).collect();
    let mut layer: Vec<usize> = members.iter().copied().filter(|&v| degree[v] <= 1).collect();
    let mut remaining = members.len();
    while remaining > 2 {
        let mut next = Vec::new();
        for &v in &layer {
            removed[v] = true;
            remaining -= 1;
            for &(w, _) in &adjacency[v] {
                if !removed[w] {
                    degree[w] -= 1;
                    if degree[w] == 1 {
                        next.push(w);
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        layer = next;
    }
    members.into_iter().filter(|&v| !removed[v]).min_by_key(|&v| (is_server[v], v))
}

/// Step 4c: in the cluster hung from its root, every switch with no server below it
/// (it would hold no GPUs and only confuse the tiers), in the order the tree is built.
pub(super) fn find_switches_without_servers(
    spec: &TopologySpec,
    graph: &Graph,
    root: usize,
    problems: &mut Vec<Problem>,
) {
    // Depth first from the root, children in the order their links are written: the
    // order in which the tree's nodes are created.
    let mut preorder = Vec::new();
    let mut parent = vec![usize::MAX; graph.len()];
    let mut stack = vec![(root, usize::MAX)];
    while let Some((v, via)) = stack.pop() {
        preorder.push(v);
        for &(w, li) in graph.adjacency[v].iter().rev() {
            if li != via {
                parent[w] = v;
                stack.push((w, li));
            }
        }
    }
    let mut has_server: Vec<bool> = graph.is_server.clone();
    for &v in preorder.iter().rev() {
        if has_server[v] && parent[v] != usize::MAX {
            has_server[parent[v]] = true;
        }
    }
    find_switches_under_nvlink(spec, graph, &preorder, &parent, problems);
    for &v in &preorder {
        if !has_server[v] {
            let i = graph.spec_index[v];
            problems.push(Problem::new(
                graph.element(v),
                None,
                format!("switches[{i}]"),
                format!("switch '{}' has no servers below it", graph.names[v]),
            ));
        }
    }
}

/// Step 4d: an NVLink switch (role `nvlink` or a clique label) joins the trays of one NVLink domain by NVLink,
/// so only servers hang below it; a switch there would put a network inside the domain.
fn find_switches_under_nvlink(
    spec: &TopologySpec,
    graph: &Graph,
    preorder: &[usize],
    parent: &[usize],
    problems: &mut Vec<Problem>,
) {
    let is_nvlink = |v: usize| {
        !graph.is_server[v] && spec.switches[graph.spec_index[v]].role.as_deref().is_some_and(is_nvlink_role)
    };
    for &v in preorder {
        let p = parent[v];
        if p != usize::MAX && !graph.is_server[v] && is_nvlink(p) {
            let i = graph.spec_index[v];
            problems.push(Problem::new(
                graph.element(v),
                None,
                format!("switches[{i}]"),
                format!(
                    "switch '{}' hangs below NVLink switch '{}'; only servers (the trays of its NVLink domain) may",
                    graph.names[v], graph.names[p]
                ),
            ));
        }
    }
}
