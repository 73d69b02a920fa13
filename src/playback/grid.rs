//! The playback's drawing of the cluster: racks as blocks, servers as rows of GPU cells,
//! each link as a bar, laid out to fit the page's width.

use proxima_core::topology::{GpuId, LinkId, NodeId, NodeKind, Topology};

/// A rectangle in canvas pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x < self.x + self.w && y >= self.y && y < self.y + self.h
    }

    pub fn centre(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }
}

/// A server's row of GPUs and the link to its switch.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerCell {
    pub node: NodeId,
    pub rect: Rect,
    pub first_gpu: u32,
    pub gpus: u32,
    pub uplink: Option<LinkId>,
    /// Where its uplink is drawn: a bar at the left of its row.
    pub link_bar: Rect,
}

/// A group of servers under one switch (a rack), with the switch's uplink.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupCell {
    pub node: NodeId,
    pub rect: Rect,
    pub label: String,
    pub uplink: Option<LinkId>,
    /// Where the uplink is drawn: a bar above the block.
    pub link_bar: Rect,
}

/// The playback's drawing of the cluster: racks as blocks, servers as rows, GPUs as cells.
/// GPU cells are indexed by GPU id.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub width: f64,
    pub height: f64,
    /// The side of a GPU cell.
    pub cell: f64,
    pub gpus: Vec<Rect>,
    pub servers: Vec<ServerCell>,
    pub groups: Vec<GroupCell>,
    /// The line the groups' uplinks rise to (the switches above the racks).
    pub spine_y: f64,
}

/// GPUs per row of a server.
const GPUS_PER_ROW: u32 = 8;

impl Grid {
    /// Lays the cluster out to fit about `max_width` pixels: big cells with room for a
    /// label on small clusters, 7-pixel cells on the 2,048-GPU presets.
    pub fn new(topo: &Topology, max_width: f64) -> Grid {
        let n = topo.gpu_count();
        let cell: f64 = if n <= 32 {
            34.0
        } else if n <= 64 {
            26.0
        } else if n <= 512 {
            14.0
        } else {
            7.0
        };
        let gap = (cell / 7.0).max(1.0).floor();
        let bar = (cell / 2.0).max(3.0);
        let margin = 8.0;
        // Groups: the parents of servers, in GPU order.
        let mut group_nodes: Vec<NodeId> = Vec::new();
        for &s in topo.servers() {
            let g = topo.node(s).parent.unwrap_or(s);
            if group_nodes.last() != Some(&g) {
                group_nodes.push(g);
            }
        }
        let mut grid = Grid {
            width: 0.0,
            height: 0.0,
            cell,
            gpus: vec![Rect { x: 0.0, y: 0.0, w: 0.0, h: 0.0 }; n as usize],
            servers: Vec::new(),
            groups: Vec::new(),
            spine_y: margin,
        };
        let spine_gap = bar * 3.0;
        let top = margin + spine_gap;
        let (mut x, mut y) = (margin, top);
        let mut row_height: f64 = 0.0;
        for &g in &group_nodes {
            let servers: Vec<NodeId> =
                topo.servers().iter().copied().filter(|&s| topo.node(s).parent.unwrap_or(s) == g).collect();
            let widest = servers.iter().map(|&s| topo.node(s).gpu_count.min(GPUS_PER_ROW)).max().unwrap_or(1);
            let w = bar + gap * 2.0 + widest as f64 * (cell + gap);
            let h: f64 = servers
                .iter()
                .map(|&s| topo.node(s).gpu_count.div_ceil(GPUS_PER_ROW) as f64 * (cell + gap) + gap)
                .sum::<f64>()
                + gap
                + 14.0;
            if x + w > max_width && x > margin {
                x = margin;
                y += row_height + spine_gap + margin;
                row_height = 0.0;
            }
            let block = Rect { x, y, w, h };
            let mut sy = y + 14.0;
            for &s in &servers {
                let node = topo.node(s);
                let rows = node.gpu_count.div_ceil(GPUS_PER_ROW);
                let rh = rows as f64 * (cell + gap);
                for i in 0..node.gpu_count {
                    let gx = x + bar + gap * 2.0 + (i % GPUS_PER_ROW) as f64 * (cell + gap);
                    let gy = sy + (i / GPUS_PER_ROW) as f64 * (cell + gap);
                    grid.gpus[(node.first_gpu + i) as usize] = Rect { x: gx, y: gy, w: cell, h: cell };
                }
                grid.servers.push(ServerCell {
                    node: s,
                    rect: Rect { x: x + bar + gap, y: sy - gap / 2.0, w: w - bar - gap, h: rh },
                    first_gpu: node.first_gpu,
                    gpus: node.gpu_count,
                    uplink: node.uplink,
                    link_bar: Rect { x: x + gap / 2.0, y: sy, w: bar - gap / 2.0, h: (rh - gap).max(1.0) },
                });
                sy += rh + gap;
            }
            let node = topo.node(g);
            let label = node.name.clone();
            grid.groups.push(GroupCell {
                node: g,
                rect: block,
                label,
                uplink: if node.kind == NodeKind::Switch { node.uplink } else { None },
                link_bar: Rect { x: x + w / 2.0 - bar / 2.0, y: y - spine_gap + bar, w: bar, h: spine_gap - bar },
            });
            x += w + margin;
            row_height = row_height.max(h);
            grid.width = grid.width.max(x);
        }
        grid.height = y + row_height + margin;
        grid
    }

    /// The GPU under a point, if any.
    pub fn gpu_at(&self, x: f64, y: f64) -> Option<u32> {
        let server = self.servers.iter().find(|s| s.rect.contains(x, y))?;
        (server.first_gpu..server.first_gpu + server.gpus).find(|&g| {
            let r = self.gpus[g as usize];
            // Cells and the gaps after them, so that a click never falls between.
            Rect { x: r.x - 1.0, y: r.y - 1.0, w: r.w + 2.0, h: r.h + 2.0 }.contains(x, y)
        })
    }

    /// The centres of the groups of a job's GPUs that sit in one server: a scattered job
    /// has several, to be linked by lines.
    pub fn server_centres(&self, gpus: &[GpuId]) -> Vec<(f64, f64)> {
        let mut out: Vec<(f64, f64, u32)> = Vec::new();
        let mut current: Option<usize> = None;
        for g in gpus {
            let s = self.servers.partition_point(|s| s.first_gpu + s.gpus <= g.0);
            let (cx, cy) = self.gpus[g.0 as usize].centre();
            if current == Some(s) {
                let last = out.last_mut().expect("a group");
                last.0 += cx;
                last.1 += cy;
                last.2 += 1;
            } else {
                out.push((cx, cy, 1));
                current = Some(s);
            }
        }
        out.into_iter().map(|(x, y, n)| (x / n as f64, y / n as f64)).collect()
    }
}
