//! The editor's drawing as plain data: a computed hierarchical layout (no physics) with
//! servers on the bottom row, each switch centred over its children, dragged nodes moved
//! by their offsets, collapsed nodes folded, and pieces without a path to the rest placed
//! to the right. `view.rs` renders it as SVG.

use super::graph::Graph;
use super::{Editor, Element};
use std::collections::BTreeMap;

const GPU: f64 = 10.0;
const GPU_GAP: f64 = 3.0;
const PAD: f64 = 6.0;
const LEAF_GAP: f64 = 14.0;
const ROW: f64 = 78.0;
const SWITCH_W: f64 = 72.0;
const BOX_H: f64 = 28.0;
pub const MARGIN: f64 = 12.0;
/// Space between separate pieces of a cluster with problems.
const PIECE_GAP: f64 = 48.0;
const GPUS_PER_ROW: u32 = 8;
/// The most GPU cells the drawing holds; further servers are drawn as boxes.
pub const MAX_GPU_CELLS: u32 = 4096;
/// A server with more GPUs than this is drawn as a box with its count.
pub const MAX_GPUS_PER_SERVER_DRAWN: u32 = 64;
/// The side of a GPU cell, in drawing units.
pub const GPU_SIZE: f64 = GPU;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxKind {
    Switch,
    Server,
    /// A switch drawn with everything below it folded in.
    CollapsedSwitch,
    /// A server drawn without its GPUs.
    CollapsedServer,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeBox {
    pub id: String,
    pub kind: BoxKind,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub label: String,
    pub title: String,
    /// The problems about it (or, collapsed, inside it), joined.
    pub problem: Option<String>,
    pub selected: bool,
    /// For a rail group (a switch of role `rails`), its rails: GPU i of every server below
    /// it is on rail i. Drawn as that many bars, so that a rail-optimised fabric reads as
    /// rails rather than one leaf. 0 for any other box.
    pub rails: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkLine {
    pub index: usize,
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    pub label: String,
    pub title: String,
    pub problem: Option<String>,
    pub selected: bool,
    /// Not part of the tree (it closes a cycle, or an end is unknown).
    pub off_tree: bool,
    /// How thick the line is drawn, 1 to [`WIDTH_STEPS`]: the link's bandwidth on a log
    /// scale from the cluster's slowest link to its fastest.
    pub width_step: u8,
    /// An uplink narrower than the NICs of the servers below it: their sum over its
    /// bandwidth (`4.0` for 4:1).
    pub oversub: Option<f64>,
}

/// How many line widths the drawing uses for bandwidths.
pub const WIDTH_STEPS: u8 = 8;

#[derive(Clone, Debug, PartialEq)]
pub struct GpuCell {
    pub server: String,
    pub index: u32,
    /// The GPU's id in the checked cluster (as runs number them).
    pub id: u32,
    pub x: f64,
    pub y: f64,
    pub selected: bool,
}

/// The editor's drawing, in SVG user units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub nodes: Vec<NodeBox>,
    pub links: Vec<LinkLine>,
    pub gpus: Vec<GpuCell>,
    pub caption: String,
}

/// Where a node's box sits: x, y, width, height.
type Place = (f64, f64, f64, f64);

/// The drawing of the editor's document, with one node moved by a drag in progress
/// (drawing units), if there is one.
pub fn layout_with_drag(ed: &Editor, drag: Option<(&str, f64, f64)>) -> Drawing {
    let g = ed.graph();
    let too_big = servers_without_cells(ed, &g);
    let folded: Vec<bool> = (0..g.names.len()).map(|v| too_big[v] || ed.collapsed.contains(g.names[v])).collect();
    let (places, right) = place_tree(&g, &folded);
    let drawn: Vec<Option<Place>> = places
        .iter()
        .enumerate()
        .map(|(v, p)| {
            p.map(|(x, y, w, h)| {
                let (dx, dy) = offset(ed, g.names[v], drag);
                (x + dx, y + dy, w, h)
            })
        })
        .collect();
    let mut d = Drawing::default();
    node_boxes(ed, &g, &drawn, &folded, &mut d);
    link_lines(ed, &g, &drawn, &mut d);
    // Link labels sit beside their line (see `view.rs`) and may stick out to the right;
    // at 9 px a character is at most about 5.5 units wide.
    let labels = d.links.iter().map(|l| l.x2 + (l.x1 - l.x2) * 0.7 + 3.0 + 5.5 * l.label.chars().count() as f64);
    d.width = d.nodes.iter().map(|b| b.x + b.w).chain(labels).fold(right, f64::max) + MARGIN;
    d.height = d.nodes.iter().map(|b| b.y + b.h).fold(0.0, f64::max) + MARGIN;
    d.caption = caption(ed, too_big.iter().filter(|&&b| b).count());
    d
}

/// Servers drawn without their GPUs whatever users asked: ones with more GPUs than a box
/// can hold, and all servers past the first [`MAX_GPU_CELLS`] GPUs drawn, so that
/// unfolding a huge cluster never floods the page with elements.
fn servers_without_cells(ed: &Editor, g: &Graph) -> Vec<bool> {
    let mut too_big = vec![false; g.names.len()];
    let mut budget = MAX_GPU_CELLS as u64;
    let mut stack: Vec<usize> = g.roots.iter().rev().copied().collect();
    while let Some(v) = stack.pop() {
        if ed.collapsed.contains(g.names[v]) {
            continue;
        }
        if g.is_server[v] {
            let cells = g.gpus[v] as u64;
            if g.gpus[v] > MAX_GPUS_PER_SERVER_DRAWN || cells > budget {
                too_big[v] = true;
            } else {
                budget -= cells;
            }
        }
        stack.extend(g.children[v].iter().rev());
    }
    too_big
}

/// Places every visible node: leaves left to right, each parent centred over its
/// children, one piece after another. Returns the places and the right edge.
fn place_tree(g: &Graph, folded: &[bool]) -> (Vec<Option<Place>>, f64) {
    let max_height = g.roots.iter().map(|&r| g.height[r]).max().unwrap_or(1);
    let y_of = |v: usize| MARGIN + (max_height - g.height[v]) as f64 * ROW;
    let mut places: Vec<Option<Place>> = vec![None; g.names.len()];
    let mut cursor = MARGIN;
    for &root in &g.roots {
        // Post-order with an explicit stack, so that deep trees cannot overflow it.
        let mut stack = vec![(root, false)];
        while let Some((v, done)) = stack.pop() {
            let kids: &[usize] = if folded[v] { &[] } else { &g.children[v] };
            if !done && !kids.is_empty() {
                stack.push((v, true));
                stack.extend(kids.iter().rev().map(|&c| (c, false)));
                continue;
            }
            let (x, w, h) = if kids.is_empty() {
                let w = leaf_width(g, v, folded[v]);
                let x = cursor;
                cursor += w + LEAF_GAP;
                (x, w, leaf_height(g, v, folded[v]))
            } else {
                let xs: Vec<f64> = kids.iter().filter_map(|&c| places[c].map(|b| b.0 + b.2 / 2.0)).collect();
                let cx = (xs[0] + xs[xs.len() - 1]) / 2.0;
                (cx - SWITCH_W / 2.0, SWITCH_W, BOX_H)
            };
            places[v] = Some((x, y_of(v), w, h));
        }
        cursor += PIECE_GAP - LEAF_GAP;
    }
    // The right edge of the last leaf, without the gap left for a next piece.
    (places, (cursor - PIECE_GAP).max(MARGIN))
}

fn leaf_width(g: &Graph, v: usize, folded: bool) -> f64 {
    if g.is_server[v] && !folded {
        let per_row = g.gpus[v].clamp(1, GPUS_PER_ROW);
        (per_row as f64 * (GPU + GPU_GAP) - GPU_GAP + 2.0 * PAD).max(64.0)
    } else {
        SWITCH_W
    }
}

fn leaf_height(g: &Graph, v: usize, folded: bool) -> f64 {
    if g.is_server[v] && !folded {
        let rows = g.gpus[v].div_ceil(GPUS_PER_ROW).max(1) as f64;
        BOX_H + rows * (GPU + GPU_GAP) + 2.0
    } else {
        BOX_H + 8.0
    }
}

/// Where users dragged a node, plus the drag in progress.
fn offset(ed: &Editor, node: &str, drag: Option<(&str, f64, f64)>) -> (f64, f64) {
    let (x, y) = ed.doc.offsets.get(node).copied().unwrap_or((0.0, 0.0));
    match drag {
        Some((dragged, dx, dy)) if dragged == node => (x + dx, y + dy),
        _ => (x, y),
    }
}

/// The problems about an element, joined.
fn own_problems(ed: &Editor, e: &Element) -> Option<String> {
    let texts: Vec<&str> = ed.problems_of(e).iter().map(|p| p.text.as_str()).collect();
    (!texts.is_empty()).then(|| texts.join("; "))
}

/// GPU ids as the checked cluster numbers them (in description order otherwise).
fn first_gpu_ids<'a>(ed: &Editor, g: &Graph<'a>) -> BTreeMap<&'a str, u32> {
    let mut first_gpu = BTreeMap::new();
    match &ed.topology {
        Some(t) => {
            for &s in t.servers() {
                let node = t.node(s);
                if let Some(&v) = g.index.get(node.name.as_str()) {
                    first_gpu.insert(g.names[v], node.first_gpu);
                }
            }
        }
        None => {
            let mut next = 0u32;
            for s in &ed.doc.spec.servers {
                if let Some(&v) = g.index.get(s.id.as_str()) {
                    first_gpu.insert(g.names[v], next);
                }
                next = next.saturating_add(s.gpus);
            }
        }
    }
    first_gpu
}

/// A box for every drawn node, and a cell for every GPU of an unfolded server.
fn node_boxes(ed: &Editor, g: &Graph, drawn: &[Option<Place>], folded: &[bool], d: &mut Drawing) {
    let first_gpu = first_gpu_ids(ed, g);
    for (v, place) in drawn.iter().enumerate() {
        let Some((x, y, w, h)) = *place else { continue };
        let id = g.names[v].to_string();
        let kind = match (g.is_server[v], folded[v]) {
            (true, false) => BoxKind::Server,
            (true, true) => BoxKind::CollapsedServer,
            (false, true) => BoxKind::CollapsedSwitch,
            (false, false) => BoxKind::Switch,
        };
        let (label, title) = node_label(ed, g, v, kind);
        let mut problem = own_problems(ed, &Element::Node(id.clone()));
        if folded[v] {
            let inner: Vec<&str> = ed
                .problems
                .iter()
                .filter(|p| p.element.as_ref().is_some_and(|e| ed.inside(e, g.names[v])))
                .map(|p| p.text.as_str())
                .collect();
            if !inner.is_empty() {
                let text = format!("{} problem(s) inside: {}", inner.len(), inner.join("; "));
                problem = Some(match problem {
                    Some(p) => format!("{p}; {text}"),
                    None => text,
                });
            }
        }
        let selected = ed.selection == Some(Element::Node(id.clone())) || ed.also.contains(&id);
        if kind == BoxKind::Server {
            let first = first_gpu.get(g.names[v]).copied().unwrap_or(0);
            let per_row = g.gpus[v].clamp(1, GPUS_PER_ROW);
            for i in 0..g.gpus[v] {
                d.gpus.push(GpuCell {
                    server: id.clone(),
                    index: i,
                    id: first.saturating_add(i),
                    x: x + PAD + (i % per_row) as f64 * (GPU + GPU_GAP),
                    y: y + BOX_H - 4.0 + (i / per_row) as f64 * (GPU + GPU_GAP),
                    selected: ed.selection == Some(Element::Gpu(id.clone(), i)),
                });
            }
        }
        let rails = if kind == BoxKind::Switch { ed.doc.spec.rail_count(&id).unwrap_or(0) } else { 0 };
        d.nodes.push(NodeBox { id, kind, x, y, w, h, label, title, problem, selected, rails });
    }
}

/// A node's label and its tooltip.
fn node_label(ed: &Editor, g: &Graph, v: usize, kind: BoxKind) -> (String, String) {
    let spec = &ed.doc.spec;
    let id = g.names[v];
    let servers_below = count_servers(g, v);
    let gpus_below = gpus_below(g, v);
    match kind {
        BoxKind::Server => {
            let nvlink =
                spec.servers.iter().find(|s| s.id == id).map(|s| gbps_label(s.nvlink_gbps)).unwrap_or_default();
            (id.to_string(), format!("server {id}: {} GPUs in one NVLink/NVSwitch domain, {nvlink} per GPU", g.gpus[v]))
        }
        BoxKind::CollapsedServer => {
            (format!("{} GPUs", g.gpus[v]), format!("server {id}: {} GPUs (collapsed)", g.gpus[v]))
        }
        BoxKind::CollapsedSwitch => (
            format!("{id}: {servers_below}×{}", if servers_below > 0 { gpus_below / servers_below as u64 } else { 0 }),
            format!("switch {id}: {servers_below} servers, {gpus_below} GPUs below (collapsed)"),
        ),
        BoxKind::Switch => {
            let role = spec.switches.iter().find(|s| s.id == id).and_then(|s| s.role.clone());
            (
                id.to_string(),
                format!(
                    "switch {id}{}: {servers_below} servers, {gpus_below} GPUs below",
                    role.map(|r| format!(" ({r})")).unwrap_or_default()
                ),
            )
        }
    }
}

/// Links between drawn boxes: tree links from the child's top to the parent's bottom, the
/// rest between centres, and a stub for a link with an unknown end.
fn link_lines(ed: &Editor, g: &Graph, drawn: &[Option<Place>], d: &mut Drawing) {
    let spec = &ed.doc.spec;
    let nics = nics_below(spec, g);
    let usable = |b: f64| b.is_finite() && b > 0.0;
    let bandwidths = spec.links.iter().map(|l| l.bandwidth_gbps).filter(|&b| usable(b));
    let (lo, hi) = bandwidths.fold((f64::INFINITY, 0.0f64), |(lo, hi), b| (lo.min(b), hi.max(b)));
    let width_step = |b: f64| -> u8 {
        if !usable(b) {
            return 1;
        }
        if hi <= lo {
            return WIDTH_STEPS / 2;
        }
        let t = (b / lo).ln() / (hi / lo).ln();
        1 + (t * (WIDTH_STEPS - 1) as f64).round().clamp(0.0, (WIDTH_STEPS - 1) as f64) as u8
    };
    for (i, l) in spec.links.iter().enumerate() {
        let ends = (g.index.get(l.a.as_str()).copied(), g.index.get(l.b.as_str()).copied());
        let off_tree = g.off_tree.contains(&i);
        let (x1, y1, x2, y2) = match ends {
            (Some(a), Some(b)) => match (drawn[a], drawn[b]) {
                (Some(pa), Some(pb)) => {
                    let (child, parent) = if g.parent[a].map(|p| p.0) == Some(b) { (pa, pb) } else { (pb, pa) };
                    if off_tree {
                        (pa.0 + pa.2 / 2.0, pa.1 + pa.3 / 2.0, pb.0 + pb.2 / 2.0, pb.1 + pb.3 / 2.0)
                    } else {
                        (child.0 + child.2 / 2.0, child.1, parent.0 + parent.2 / 2.0, parent.1 + parent.3)
                    }
                }
                // One end is folded away.
                _ => continue,
            },
            (Some(a), None) | (None, Some(a)) => match drawn[a] {
                Some(p) => (p.0 + p.2 / 2.0, p.1, p.0 + p.2 / 2.0 + 24.0, p.1 - 24.0),
                None => continue,
            },
            (None, None) => continue,
        };
        // An uplink (a tree link whose lower end is a switch) narrower than the NICs below it.
        let below = ends.0.zip(ends.1).and_then(|(a, b)| {
            let child = [a, b].into_iter().find(|&c| g.parent[c] == Some((a + b - c, i)))?;
            (!g.is_server[child]).then_some(nics[child])
        });
        let oversub = below.filter(|&n| usable(l.bandwidth_gbps) && n > l.bandwidth_gbps * (1.0 + 1e-9));
        let oversub = oversub.map(|n| n / l.bandwidth_gbps);
        let name = super::link_label(spec, g, i);
        let mut title = format!("{name}: {}, {} µs", gbps_label(l.bandwidth_gbps), l.latency_us);
        if let (Some(n), Some(ratio)) = (below, oversub) {
            title +=
                &format!("; the servers below have {} of NICs: {}:1 oversubscribed", gbps_label(n), ratio_label(ratio));
        }
        d.links.push(LinkLine {
            index: i,
            x1,
            y1,
            x2,
            y2,
            label: match oversub {
                Some(r) => format!("{} · {}:1", gbps_label(l.bandwidth_gbps), ratio_label(r)),
                None => gbps_label(l.bandwidth_gbps),
            },
            title,
            problem: own_problems(ed, &Element::Link(i)),
            selected: ed.selection == Some(Element::Link(i)),
            off_tree,
            width_step: width_step(l.bandwidth_gbps),
            oversub,
        });
    }
}

/// Per node of the graph, the bandwidth of the links of the servers below it (a server's
/// own link for a server), over the tree.
fn nics_below(spec: &proxima_core::topology::TopologySpec, g: &Graph) -> Vec<f64> {
    let mut below = vec![0.0; g.names.len()];
    // Deepest first, so that children are summed before their parents.
    let mut order: Vec<usize> = (0..g.names.len()).collect();
    order.sort_by_key(|&v| std::cmp::Reverse(g.depth[v]));
    for v in order {
        if g.is_server[v] {
            let own = g.parent[v].map(|(_, li)| spec.links[li].bandwidth_gbps);
            below[v] = own.filter(|b| b.is_finite() && *b > 0.0).unwrap_or(0.0);
        }
        if let Some((p, _)) = g.parent[v] {
            below[p] += below[v];
        }
    }
    below
}

/// An oversubscription ratio as people write it: `4`, `2.5`, `1.33`.
pub fn ratio_label(ratio: f64) -> String {
    let r = (ratio * 100.0).round() / 100.0;
    format!("{r}")
}

/// What the drawing shows, in a sentence (also the `<svg>`'s accessible name).
fn caption(ed: &Editor, without_cells: usize) -> String {
    let spec = &ed.doc.spec;
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let folded = ed.collapsed.len();
    let mut caption = format!(
        "{} GPUs in {}, {}, {}{}.",
        ed.gpu_count(),
        plural(spec.servers.len(), "server", "servers"),
        plural(spec.switches.len(), "switch", "switches"),
        plural(spec.links.len(), "link", "links"),
        if folded > 0 { format!("; {folded} collapsed (press C or double-click to expand)") } else { String::new() }
    );
    if without_cells > 0 {
        caption += &format!(
            " {without_cells} server{} drawn without GPUs to keep the page quick.",
            if without_cells == 1 { "" } else { "s" }
        );
    }
    caption
}

fn count_servers(g: &Graph, v: usize) -> usize {
    if g.is_server[v] {
        return 1;
    }
    g.children[v].iter().map(|&c| count_servers(g, c)).sum()
}

fn gpus_below(g: &Graph, v: usize) -> u64 {
    if g.is_server[v] {
        return g.gpus[v] as u64;
    }
    g.children[v].iter().map(|&c| gpus_below(g, c)).sum()
}

/// Gbit/s as people say it: `200 Gb/s`, `2.4 Tb/s`.
pub fn gbps_label(gbps: f64) -> String {
    let round3 = |x: f64| (x * 1000.0).round() / 1000.0;
    if gbps >= 1000.0 {
        format!("{} Tb/s", round3(gbps / 1000.0))
    } else {
        format!("{} Gb/s", round3(gbps))
    }
}
