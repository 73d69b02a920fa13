//! The description as a graph with a spanning forest.

use proxima_core::topology::TopologySpec;
use std::collections::BTreeMap;

/// The description as a graph with a spanning forest: for drawing, navigation and the
/// edits that need to know what is above what. It tolerates every problem the checks
/// flag (unknown ends, cycles, pieces without a path to the rest).
pub struct Graph<'a> {
    pub names: Vec<&'a str>,
    pub is_server: Vec<bool>,
    pub gpus: Vec<u32>,
    pub index: BTreeMap<&'a str, usize>,
    /// Neighbours with the link's index, in the order links are written.
    pub adj: Vec<Vec<(usize, usize)>>,
    /// The tree: parent and the link to it.
    pub parent: Vec<Option<(usize, usize)>>,
    pub children: Vec<Vec<usize>>,
    pub depth: Vec<u32>,
    /// Height as the core counts it: 1 for a server, one more than the highest child for a
    /// switch (2 for a switch with nothing below).
    pub height: Vec<u32>,
    /// One root per connected piece, the main one first.
    pub roots: Vec<usize>,
    /// Links outside the tree (closing a cycle, or with an unknown end).
    pub off_tree: Vec<usize>,
}

impl<'a> Graph<'a> {
    pub fn of(spec: &'a TopologySpec, root: Option<String>) -> Graph<'a> {
        let mut names: Vec<&str> = Vec::new();
        let mut is_server = Vec::new();
        let mut gpus = Vec::new();
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for s in &spec.switches {
            index.entry(s.id.as_str()).or_insert(names.len());
            names.push(&s.id);
            is_server.push(false);
            gpus.push(0);
        }
        for s in &spec.servers {
            index.entry(s.id.as_str()).or_insert(names.len());
            names.push(&s.id);
            is_server.push(true);
            gpus.push(s.gpus);
        }
        let n = names.len();
        let mut adj = vec![Vec::new(); n];
        let mut off_tree = Vec::new();
        for (i, l) in spec.links.iter().enumerate() {
            match (index.get(l.a.as_str()), index.get(l.b.as_str())) {
                (Some(&a), Some(&b)) if a != b => {
                    adj[a].push((b, i));
                    adj[b].push((a, i));
                }
                _ => off_tree.push(i),
            }
        }
        let mut g = Graph {
            names,
            is_server,
            gpus,
            index,
            adj,
            parent: vec![None; n],
            children: vec![Vec::new(); n],
            depth: vec![0; n],
            height: vec![1; n],
            roots: Vec::new(),
            off_tree,
        };
        let first = root.and_then(|r| g.index.get(r.as_str()).copied()).or_else(|| g.central_switch());
        let mut seen = vec![false; n];
        let order: Vec<usize> = first.into_iter().chain(0..n).collect();
        let mut tree_links = vec![false; spec.links.len()];
        let mut post = Vec::new();
        for r in order {
            if seen[r] {
                continue;
            }
            g.roots.push(r);
            seen[r] = true;
            // Depth first, children in the order their links are written (as the core
            // numbers GPUs).
            let mut stack = vec![(r, 0usize)];
            while let Some((v, next)) = stack.pop() {
                if next < g.adj[v].len() {
                    stack.push((v, next + 1));
                    let (w, li) = g.adj[v][next];
                    if !seen[w] {
                        seen[w] = true;
                        tree_links[li] = true;
                        g.parent[w] = Some((v, li));
                        g.children[v].push(w);
                        g.depth[w] = g.depth[v] + 1;
                        stack.push((w, 0));
                    }
                } else {
                    post.push(v);
                }
            }
        }
        for (li, on_tree) in tree_links.iter().enumerate() {
            if !on_tree && !g.off_tree.contains(&li) {
                g.off_tree.push(li);
            }
        }
        g.off_tree.sort_unstable();
        for v in post {
            if !g.is_server[v] {
                g.height[v] = 1 + g.children[v].iter().map(|&c| g.height[c]).max().unwrap_or(1);
            }
        }
        g
    }

    /// For a description with problems: the switch with the most switch neighbours (the
    /// spine of the usual tree), else the first switch, else the first server.
    fn central_switch(&self) -> Option<usize> {
        let n = self.names.len();
        (0..n)
            .filter(|&v| !self.is_server[v])
            .max_by_key(|&v| (self.adj[v].iter().filter(|&&(w, _)| !self.is_server[w]).count(), std::cmp::Reverse(v)))
            .or((n > 0).then_some(0))
    }

    /// A switch with servers right below it.
    pub fn is_rack(&self, v: usize) -> bool {
        !self.is_server[v] && self.children[v].iter().any(|&c| self.is_server[c])
    }

    pub fn racks(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.names.len()).filter(|&v| self.is_rack(v))
    }

    /// The bandwidth of the links from a switch down to its children.
    pub fn downlink_gbps(&self, spec: &TopologySpec, v: usize) -> f64 {
        self.children[v].iter().filter_map(|&c| self.parent[c]).map(|(_, li)| spec.links[li].bandwidth_gbps).sum()
    }
}
