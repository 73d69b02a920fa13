//! What the cluster canvas draws, in drawing units: GPU cells by GPU id, boxes for
//! switches, servers or racks, and line segments for the links. Two layouts:
//!
//! - the **graph**: the topology editor's own layout ([`crate::editor::layout`]), so that
//!   playback shows the cluster users drew, switches over servers and each link a line
//!   whose width and colour follow the rings crossing it;
//! - the **racks**: racks as blocks wrapped to the page's width ([`Grid`]), for clusters
//!   whose graph would shrink GPUs below legibility (the editor's tree puts every server
//!   on one row). Jobs spread over racks are then drawn as one line per pair of racks,
//!   as wide as the number of jobs spanning it, never one per GPU.

use super::grid::Rect;
use super::Grid;
use crate::editor::layout::{layout_with_drag, BoxKind, GPU_SIZE};
use crate::editor::Editor;
use crate::Shared;
use proxima_core::share::TopologyChoice;
use proxima_core::topology::{GpuId, LinkId, NodeId, Topology};
use std::collections::BTreeMap;

/// The smallest GPU cell, in CSS pixels, for which the graph is drawn.
pub const MIN_GRAPH_CELL_PX: f64 = 7.0;
/// Above this many GPUs the graph is not tried (its one row of servers cannot fit).
const MAX_GRAPH_GPUS: u32 = 1024;
/// The largest zoom: a small cluster in a wide panel stops growing here.
pub const MAX_SCALE: f64 = 3.0;
/// The racks layout's width in drawing units (it scales to the panel from there).
const RACKS_WIDTH: f64 = 920.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneKind {
    Graph,
    Racks,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxRole {
    Switch,
    Server,
    Rack,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SceneBox {
    pub rect: Rect,
    pub label: String,
    pub role: BoxRole,
    /// A rail group's rails (drawn as bars), 0 for any other box.
    pub rails: u32,
}

/// A link as a segment; `link` is the topology's link (None for decoration).
#[derive(Clone, Debug, PartialEq)]
pub struct SceneLink {
    pub link: Option<LinkId>,
    pub from: (f64, f64),
    pub to: (f64, f64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub kind: SceneKind,
    pub width: f64,
    pub height: f64,
    /// The side of a GPU cell.
    pub cell: f64,
    /// Each GPU's cell, by GPU id.
    pub gpus: Vec<Rect>,
    /// Each GPU's server, as an index into `Topology::servers`.
    pub gpu_server: Vec<u32>,
    /// Each server's rack (its parent's index among the servers' parents).
    pub server_rack: Vec<u32>,
    /// Where lines between racks end, per rack.
    pub rack_anchor: Vec<(f64, f64)>,
    pub boxes: Vec<SceneBox>,
    pub links: Vec<SceneLink>,
}

impl Scene {
    /// The scene for a panel `css_width` pixels wide: the graph if its GPU cells stay at
    /// least [`MIN_GRAPH_CELL_PX`] wide there, the racks otherwise. `offsets` are where
    /// users dragged nodes in the editor (by node id).
    pub fn new(topo: &Shared<Topology>, css_width: f64, offsets: &BTreeMap<String, (f64, f64)>) -> Scene {
        if topo.gpu_count() <= MAX_GRAPH_GPUS {
            if let Some(s) = Scene::graph(topo, offsets) {
                if GPU_SIZE * (css_width / s.width).min(MAX_SCALE) >= MIN_GRAPH_CELL_PX {
                    return s;
                }
            }
        }
        Scene::racks(topo)
    }

    /// The editor's drawing of the cluster, every node unfolded; None if it does not draw
    /// every GPU (servers too large for cells).
    pub fn graph(topo: &Shared<Topology>, offsets: &BTreeMap<String, (f64, f64)>) -> Option<Scene> {
        let spec = topo.spec().clone();
        let mut ed = Editor::new(TopologyChoice::Custom(spec), topo.clone());
        ed.collapsed.clear();
        if !offsets.is_empty() {
            ed.doc.make_mut().offsets = offsets.clone();
        }
        let d = layout_with_drag(&ed, None);
        let n = topo.gpu_count() as usize;
        if d.gpus.len() != n {
            return None;
        }
        let mut scene = Scene::empty(SceneKind::Graph, topo, GPU_SIZE);
        for c in &d.gpus {
            if let Some(r) = scene.gpus.get_mut(c.id as usize) {
                *r = Rect { x: c.x, y: c.y, w: GPU_SIZE, h: GPU_SIZE };
            }
        }
        for b in &d.nodes {
            let role = match b.kind {
                BoxKind::Server | BoxKind::CollapsedServer => BoxRole::Server,
                BoxKind::Switch | BoxKind::CollapsedSwitch => BoxRole::Switch,
            };
            scene.boxes.push(SceneBox {
                rect: Rect { x: b.x, y: b.y, w: b.w, h: b.h },
                label: b.label.clone(),
                role,
                rails: b.rails,
            });
        }
        // The description's links by their ends' names, to the checked cluster's links.
        let mut by_ends: BTreeMap<(&str, &str), LinkId> = BTreeMap::new();
        for (i, l) in topo.links().iter().enumerate() {
            let (a, b) = (topo.node(l.child).name.as_str(), topo.node(l.parent).name.as_str());
            by_ends.insert((a, b), LinkId(i as u32));
            by_ends.insert((b, a), LinkId(i as u32));
        }
        let spec = topo.spec();
        for l in &d.links {
            let Some(sl) = spec.links.get(l.index) else { continue };
            let link = by_ends.get(&(sl.a.as_str(), sl.b.as_str())).copied();
            scene.links.push(SceneLink { link, from: (l.x1, l.y1), to: (l.x2, l.y2) });
        }
        // Racks: the servers' parents, anchored at their boxes.
        let anchors: BTreeMap<&str, (f64, f64)> =
            d.nodes.iter().map(|b| (b.id.as_str(), (b.x + b.w / 2.0, b.y + b.h / 2.0))).collect();
        scene.set_racks(topo, |node| anchors.get(topo.node(node).name.as_str()).copied().unwrap_or((0.0, 0.0)));
        scene.width = d.width;
        scene.height = d.height;
        Some(scene)
    }

    /// Racks as blocks, wrapped.
    pub fn racks(topo: &Shared<Topology>) -> Scene {
        let grid = Grid::new(topo, RACKS_WIDTH);
        let mut scene = Scene::empty(SceneKind::Racks, topo, grid.cell);
        scene.gpus = grid.gpus.clone();
        let bar_line = |r: &Rect| ((r.x + r.w / 2.0, r.y), (r.x + r.w / 2.0, r.y + r.h));
        if grid.groups.len() > 1 {
            for row in grid.groups.chunk_by(|a, b| a.rect.y == b.rect.y) {
                let (first, last) = (row[0].link_bar, row[row.len() - 1].link_bar);
                scene.links.push(SceneLink {
                    link: None,
                    from: (first.x + first.w / 2.0, first.y),
                    to: (last.x + last.w / 2.0, last.y),
                });
            }
        }
        for g in &grid.groups {
            scene.boxes.push(SceneBox { rect: g.rect, label: g.label.clone(), role: BoxRole::Rack, rails: 0 });
            if g.uplink.is_some() {
                let (from, to) = bar_line(&g.link_bar);
                scene.links.push(SceneLink { link: g.uplink, from, to });
            }
        }
        for s in &grid.servers {
            if s.uplink.is_some() {
                let (from, to) = bar_line(&s.link_bar);
                scene.links.push(SceneLink { link: s.uplink, from, to });
            }
        }
        let anchors: BTreeMap<NodeId, (f64, f64)> =
            grid.groups.iter().map(|g| (g.node, (g.rect.x + g.rect.w / 2.0, g.rect.y + g.rect.h / 2.0))).collect();
        scene.set_racks(topo, |node| anchors.get(&node).copied().unwrap_or((0.0, 0.0)));
        scene.width = grid.width;
        scene.height = grid.height;
        scene
    }

    fn empty(kind: SceneKind, topo: &Topology, cell: f64) -> Scene {
        let n = topo.gpu_count() as usize;
        let mut gpu_server = vec![0; n];
        for (i, &s) in topo.servers().iter().enumerate() {
            let node = topo.node(s);
            for g in node.first_gpu..node.first_gpu + node.gpu_count {
                gpu_server[g as usize] = i as u32;
            }
        }
        Scene {
            kind,
            width: 0.0,
            height: 0.0,
            cell,
            gpus: vec![Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 }; n],
            gpu_server,
            server_rack: Vec::new(),
            rack_anchor: Vec::new(),
            boxes: Vec::new(),
            links: Vec::new(),
        }
    }

    fn set_racks(&mut self, topo: &Topology, anchor: impl Fn(NodeId) -> (f64, f64)) {
        let mut racks: Vec<NodeId> = Vec::new();
        for &s in topo.servers() {
            let parent = topo.node(s).parent.unwrap_or(s);
            let i = match racks.iter().position(|&r| r == parent) {
                Some(i) => i,
                None => {
                    racks.push(parent);
                    racks.len() - 1
                }
            };
            self.server_rack.push(i as u32);
        }
        self.rack_anchor = racks.into_iter().map(anchor).collect();
    }

    /// The GPU under a point (drawing units), if any: cells and the gaps around them, so
    /// that a click never falls between.
    pub fn gpu_at(&self, x: f64, y: f64) -> Option<u32> {
        let pad = (self.cell / 6.0).max(1.0);
        self.gpus
            .iter()
            .position(|r| Rect { x: r.x - pad, y: r.y - pad, w: r.w + 2.0 * pad, h: r.h + 2.0 * pad }.contains(x, y))
            .map(|g| g as u32)
    }

    /// A job's GPUs grouped by server: each group's bounding box, in GPU order.
    pub fn server_groups(&self, gpus: &[GpuId]) -> Vec<Rect> {
        let mut out: Vec<(u32, Rect)> = Vec::new();
        for g in gpus {
            let Some(&r) = self.gpus.get(g.0 as usize) else { continue };
            let s = self.gpu_server[g.0 as usize];
            match out.iter_mut().find(|(server, _)| *server == s) {
                Some((_, b)) => {
                    let (x2, y2) = ((b.x + b.w).max(r.x + r.w), (b.y + b.h).max(r.y + r.h));
                    b.x = b.x.min(r.x);
                    b.y = b.y.min(r.y);
                    b.w = x2 - b.x;
                    b.h = y2 - b.y;
                }
                None => out.push((s, r)),
            }
        }
        out.into_iter().map(|(_, r)| r).collect()
    }

    /// Where a job's number goes on each server's share of it: the widest row of its cells
    /// side by side there (so that a number never lands on another job's cell between
    /// two of this job's), in server order.
    pub fn label_spots(&self, gpus: &[GpuId]) -> Vec<Rect> {
        let mut cells: Vec<(u32, Rect)> = gpus
            .iter()
            .filter_map(|g| Some((*self.gpu_server.get(g.0 as usize)?, *self.gpus.get(g.0 as usize)?)))
            .collect();
        cells.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.y.total_cmp(&b.1.y)).then(a.1.x.total_cmp(&b.1.x)));
        let mut out: Vec<(u32, Rect)> = Vec::new();
        let mut run: Option<(u32, Rect)> = None;
        let flush = |run: (u32, Rect), out: &mut Vec<(u32, Rect)>| match out.last_mut() {
            Some((s, best)) if *s == run.0 => {
                if run.1.w > best.w {
                    *best = run.1;
                }
            }
            _ => out.push(run),
        };
        for (s, r) in cells {
            run = match run {
                Some((rs, mut rr)) if rs == s && rr.y == r.y && r.x - (rr.x + rr.w) <= 0.5 * self.cell => {
                    rr.w = r.x + r.w - rr.x;
                    Some((rs, rr))
                }
                Some(done) => {
                    flush(done, &mut out);
                    Some((s, r))
                }
                None => Some((s, r)),
            };
        }
        if let Some(done) = run {
            flush(done, &mut out);
        }
        out.into_iter().map(|(_, r)| r).collect()
    }

    /// Jobs spread over racks, counted per pair of racks they join: a job on racks
    /// a < b < c counts for (a, b) and (b, c), the way its ring runs.
    pub fn rack_pairs<'a>(&self, placements: impl Iterator<Item = &'a [GpuId]>) -> BTreeMap<(u32, u32), u32> {
        let mut pairs = BTreeMap::new();
        let mut racks: Vec<u32> = Vec::new();
        for gpus in placements {
            racks.clear();
            racks.extend(gpus.iter().filter_map(|g| {
                let s = *self.gpu_server.get(g.0 as usize)?;
                self.server_rack.get(s as usize).copied()
            }));
            racks.sort_unstable();
            racks.dedup();
            for w in racks.windows(2) {
                *pairs.entry((w[0], w[1])).or_insert(0) += 1;
            }
        }
        pairs
    }
}
