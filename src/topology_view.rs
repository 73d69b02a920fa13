//! A read-only drawing of the cluster: switches on top, servers below them, GPUs inside the
//! servers. [`layout`] computes the drawing as plain data (no yew), so it can be tested
//! natively; [`TopologyView`] renders it as SVG. Part 2 turns this into an editor; the
//! GPU and link elements already carry `data-gpu` and `data-link` for it.
//!
//! Big clusters are collapsed so the drawing stays legible and cheap: beyond
//! [`MAX_GPUS_DRAWN`] GPUs a server is one box with its GPU count, and beyond
//! [`MAX_LEAVES`] servers each rack (the switch above the servers) is one box.

use proxima_core::topology::{NodeId, NodeKind, Topology};
use yew::prelude::*;

/// Above this many GPUs, servers are drawn without their GPUs.
pub const MAX_GPUS_DRAWN: u32 = 256;
/// Above this many servers, the switches above them are drawn collapsed instead.
pub const MAX_LEAVES: usize = 64;

const GPU: f64 = 10.0;
const GPU_GAP: f64 = 3.0;
const PAD: f64 = 6.0;
const LEAF_GAP: f64 = 12.0;
const ROW: f64 = 70.0;
const SWITCH_W: f64 = 64.0;
const BOX_H: f64 = 28.0;
const MARGIN: f64 = 10.0;

#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    Switch,
    Server,
    /// A switch drawn with everything below it folded in.
    Collapsed,
}

/// A box: a switch, a server, or a collapsed group.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub node: u32,
    pub kind: ItemKind,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub label: String,
    /// The longer description shown on hover.
    pub title: String,
}

/// A link from a node up to its parent.
#[derive(Clone, Debug, PartialEq)]
pub struct Wire {
    pub link: u32,
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    pub gbps: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GpuSquare {
    pub gpu: u32,
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub items: Vec<Item>,
    pub wires: Vec<Wire>,
    pub gpus: Vec<GpuSquare>,
    /// One sentence on what is drawn, including what was collapsed.
    pub caption: String,
}

/// Lays the cluster out as a tree, leaves left to right in GPU order.
pub fn layout(topo: &Topology) -> Drawing {
    let show_gpus = topo.gpu_count() <= MAX_GPUS_DRAWN;
    // The height of the nodes drawn as leaves: servers (1), or the lowest switch level
    // with few enough nodes.
    let root_height = topo.node(topo.root()).height;
    let mut leaf_height = 1u8;
    while leaf_height < root_height && count_at_height(topo, leaf_height) > MAX_LEAVES {
        leaf_height += 1;
    }
    let mut d = Drawing { width: 0.0, height: 0.0, items: Vec::new(), wires: Vec::new(), gpus: Vec::new(), caption: String::new() };
    let mut cursor = MARGIN;
    let depth_of = |n: NodeId| (root_height - topo.node(n).height.max(leaf_height)) as f64;
    place(topo, topo.root(), leaf_height, show_gpus, &mut cursor, &depth_of, &mut d);
    d.width = cursor - LEAF_GAP + MARGIN;
    let rows = (root_height - leaf_height) as f64;
    d.height = MARGIN + rows * ROW + leaf_box_height(topo, leaf_height, show_gpus) + MARGIN;
    let servers = topo.server_count();
    let mut caption = format!(
        "{} GPUs in {} server{}; tiers: {}.",
        topo.gpu_count(),
        servers,
        if servers == 1 { "" } else { "s" },
        topo.tier_names().join(" < ")
    );
    if leaf_height > 1 {
        caption += &format!(
            " Collapsed for legibility: {} groups of servers are drawn as one box each.",
            count_at_height(topo, leaf_height)
        );
    } else if !show_gpus {
        caption += " GPUs are counted inside each server rather than drawn.";
    }
    d.caption = caption;
    d
}

fn count_at_height(topo: &Topology, h: u8) -> usize {
    topo.nodes().iter().filter(|n| n.kind != NodeKind::Gpu && n.height == h).count()
}

fn leaf_box_height(topo: &Topology, leaf_height: u8, show_gpus: bool) -> f64 {
    if leaf_height == 1 && show_gpus {
        let widest = topo.servers().iter().map(|&s| topo.node(s).gpu_count).max().unwrap_or(1);
        let per_row = gpus_per_row(widest);
        let rows = widest.div_ceil(per_row) as f64;
        BOX_H + rows * (GPU + GPU_GAP)
    } else {
        BOX_H + 8.0
    }
}

fn gpus_per_row(gpus: u32) -> u32 {
    gpus.clamp(1, 8)
}

/// Places `node` and everything below it; returns the x of its centre.
fn place(topo: &Topology, node: NodeId, leaf_height: u8, show_gpus: bool, cursor: &mut f64, depth_of: &dyn Fn(NodeId) -> f64, d: &mut Drawing) -> f64 {
    let n = topo.node(node);
    let y = MARGIN + depth_of(node) * ROW;
    let is_leaf = n.height <= leaf_height;
    let (cx, w, h) = if is_leaf {
        let (w, h) = if n.kind == NodeKind::Server && show_gpus {
            let per_row = gpus_per_row(n.gpu_count);
            let w = (per_row as f64 * (GPU + GPU_GAP) - GPU_GAP + 2.0 * PAD).max(SWITCH_W);
            (w, leaf_box_height(topo, leaf_height, show_gpus))
        } else {
            (SWITCH_W, BOX_H + 8.0)
        };
        let x = *cursor;
        *cursor += w + LEAF_GAP;
        if n.kind == NodeKind::Server && show_gpus {
            let per_row = gpus_per_row(n.gpu_count);
            for i in 0..n.gpu_count {
                d.gpus.push(GpuSquare {
                    gpu: n.first_gpu + i,
                    x: x + PAD + (i % per_row) as f64 * (GPU + GPU_GAP),
                    y: y + BOX_H - 4.0 + (i / per_row) as f64 * (GPU + GPU_GAP),
                });
            }
        }
        (x + w / 2.0, w, h)
    } else {
        let centres: Vec<f64> = n
            .children
            .iter()
            .filter(|&&c| topo.node(c).kind != NodeKind::Gpu)
            .map(|&c| place(topo, c, leaf_height, show_gpus, cursor, depth_of, d))
            .collect();
        let cx = if centres.is_empty() { *cursor } else { (centres[0] + centres[centres.len() - 1]) / 2.0 };
        (cx, SWITCH_W, BOX_H)
    };
    let kind = match (n.kind, is_leaf) {
        (NodeKind::Server, _) => ItemKind::Server,
        (_, true) => ItemKind::Collapsed,
        _ => ItemKind::Switch,
    };
    let servers_below = topo.servers().iter().filter(|&&s| is_under(topo, s, node)).count();
    let (label, title) = match kind {
        ItemKind::Server => {
            let label = if show_gpus { n.name.clone() } else { format!("{} GPUs", n.gpu_count) };
            (label, format!("server {}: {} GPUs", n.name, n.gpu_count))
        }
        ItemKind::Collapsed => (
            format!("{}×{}", servers_below, n.gpu_count / servers_below.max(1) as u32),
            format!("{}: {} servers, {} GPUs", n.name, servers_below, n.gpu_count),
        ),
        ItemKind::Switch => (
            n.role.clone().unwrap_or_else(|| n.name.clone()),
            format!("switch {}{}: {} GPUs below", n.name, n.role.as_ref().map(|r| format!(" ({r})")).unwrap_or_default(), n.gpu_count),
        ),
    };
    d.items.push(Item { node: node.0, kind, x: cx - w / 2.0, y, w, h, label, title });
    // The link to the parent, from this box's top to the parent's bottom edge.
    if let (Some(link), Some(parent)) = (n.uplink, n.parent) {
        let py = MARGIN + depth_of(parent) * ROW + BOX_H;
        d.wires.push(Wire { link: link.0, x1: cx, y1: y, x2: f64::NAN, y2: py, gbps: topo.link(link).bandwidth_gbps });
    }
    // Children's wires point at this node's centre, known only now.
    for wire in d.wires.iter_mut().filter(|w| w.x2.is_nan()) {
        let child = topo.link(proxima_core::topology::LinkId(wire.link)).child;
        if topo.node(child).parent == Some(node) {
            wire.x2 = cx;
        }
    }
    cx
}

fn is_under(topo: &Topology, mut n: NodeId, ancestor: NodeId) -> bool {
    loop {
        if n == ancestor {
            return true;
        }
        match topo.node(n).parent {
            Some(p) => n = p,
            None => return false,
        }
    }
}

/// Gbit/s as people say it: `200 Gb/s`, `2.4 Tb/s`.
pub fn gbps_label(gbps: f64) -> String {
    if gbps >= 1000.0 {
        format!("{} Tb/s", round3(gbps / 1000.0))
    } else {
        format!("{} Gb/s", round3(gbps))
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[derive(Properties, PartialEq)]
pub struct TopologyViewProps {
    pub topology: std::rc::Rc<Topology>,
}

/// The SVG drawing with its caption and, behind a disclosure, the links as a table.
#[component]
pub fn TopologyView(props: &TopologyViewProps) -> Html {
    let drawing = use_memo(props.topology.clone(), |t| layout(t));
    let d = &*drawing;
    let mut speeds: Vec<(String, usize)> = Vec::new();
    for w in &d.wires {
        let label = gbps_label(w.gbps);
        match speeds.iter_mut().find(|(l, _)| *l == label) {
            Some(entry) => entry.1 += 1,
            None => speeds.push((label, 1)),
        }
    }
    html! {
        <figure class="topology-figure">
            <div class="svg-scroll">
                <svg class="topology-svg" role="img" viewBox={format!("0 0 {:.0} {:.0}", d.width, d.height)}
                     width={format!("{:.0}", d.width.min(4000.0))} aria-label={d.caption.clone()}>
                    { for d.wires.iter().map(|w| html! {
                        <line class="link" data-link={w.link.to_string()} x1={fmt(w.x1)} y1={fmt(w.y1)} x2={fmt(w.x2)} y2={fmt(w.y2)}>
                            <title>{ gbps_label(w.gbps) }</title>
                        </line>
                    }) }
                    { for d.items.iter().map(|it| {
                        let class = match it.kind { ItemKind::Switch => "switch", ItemKind::Server => "server", ItemKind::Collapsed => "collapsed" };
                        html! {
                            <g class={class} data-node={it.node.to_string()}>
                                <title>{ it.title.clone() }</title>
                                <rect x={fmt(it.x)} y={fmt(it.y)} width={fmt(it.w)} height={fmt(it.h)} rx="4" />
                                <text x={fmt(it.x + it.w / 2.0)} y={fmt(it.y + 14.0)} text-anchor="middle">{ clip(&it.label, 12) }</text>
                            </g>
                        }
                    }) }
                    { for d.gpus.iter().map(|g| html! {
                        <rect class="gpu" data-gpu={g.gpu.to_string()} x={fmt(g.x)} y={fmt(g.y)} width={fmt(GPU)} height={fmt(GPU)}>
                            <title>{ format!("GPU {}", g.gpu) }</title>
                        </rect>
                    }) }
                </svg>
            </div>
            <figcaption>
                { d.caption.clone() }
                if !speeds.is_empty() {
                    { " Links: " }
                    { speeds.iter().map(|(l, n)| format!("{n} × {l}")).collect::<Vec<_>>().join(", ") }
                    { "." }
                }
            </figcaption>
        </figure>
    }
}

fn fmt(x: f64) -> String {
    format!("{x:.1}")
}

fn clip(text: &str, n: usize) -> String {
    let mut out: String = text.chars().take(n).collect();
    if out.chars().count() < text.chars().count() {
        out.pop();
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::topology::resolve_topology_arg;

    #[test]
    fn teaching_is_drawn_in_full() {
        let t = resolve_topology_arg("teaching").unwrap();
        let d = layout(&t);
        assert_eq!(d.gpus.len(), 16);
        assert_eq!(d.items.iter().filter(|i| i.kind == ItemKind::Server).count(), 4);
        assert_eq!(d.items.iter().filter(|i| i.kind == ItemKind::Switch).count(), 3);
        assert_eq!(d.wires.len(), 6);
        assert!(d.wires.iter().all(|w| w.x2.is_finite() && w.y2 < w.y1));
        // GPUs sit inside their server's box.
        for g in &d.gpus {
            assert!(d.items.iter().any(|i| i.kind == ItemKind::Server && g.x >= i.x && g.x + GPU <= i.x + i.w && g.y + GPU <= i.y + i.h));
        }
        assert!(d.caption.starts_with("16 GPUs in 4 servers"), "{}", d.caption);
    }

    #[test]
    fn big_clusters_collapse() {
        let t = resolve_topology_arg("flat-2048").unwrap();
        let d = layout(&t);
        assert!(d.gpus.is_empty());
        assert_eq!(d.items.iter().filter(|i| i.kind == ItemKind::Collapsed).count(), 16);
        assert_eq!(d.items.len(), 17);
        assert!(d.caption.contains("Collapsed"), "{}", d.caption);
        let n32 = layout(&resolve_topology_arg("n32g4").unwrap());
        assert_eq!(n32.items.iter().filter(|i| i.kind == ItemKind::Server).count(), 32);
        assert_eq!(n32.gpus.len(), 128);
        let big = layout(&resolve_topology_arg("racks=2,servers=20,gpus=8").unwrap());
        assert!(big.gpus.is_empty(), "320 GPUs are counted, not drawn");
        assert_eq!(big.items.iter().filter(|i| i.kind == ItemKind::Server).count(), 40);
    }
}
