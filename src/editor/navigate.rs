//! Moving around the drawing: what a collapsed group hides, revealing an element, and the
//! keyboard's walk through the tree.

use super::{Direction, Editor, Element};
use std::collections::BTreeSet;

impl Editor {
    pub(super) fn toggle_collapse(&mut self, id: String) {
        if !self.collapsed.remove(&id) {
            self.collapsed.insert(id.clone());
            // A selection hidden inside moves up to the collapsed box.
            if let Some(sel) = &self.selection {
                if self.inside(sel, &id) {
                    self.selection = Some(Element::Node(id));
                }
            }
        }
    }

    /// Collapses (true) or expands (false) every rack.
    pub(super) fn collapse_all(&mut self, collapse: bool) {
        if !collapse {
            self.collapsed.clear();
            return;
        }
        let g = self.graph();
        let racks: BTreeSet<String> = g.racks().map(|v| g.names[v].to_string()).collect();
        drop(g);
        self.collapsed = racks;
        if let Some(sel) = self.selection.clone() {
            if let Some(rack) = self.collapsed.iter().find(|r| self.inside(&sel, r)).cloned() {
                self.selection = Some(Element::Node(rack));
            }
        }
    }

    /// Whether `e` lies inside the collapsed node `group`.
    pub(super) fn inside(&self, e: &Element, group: &str) -> bool {
        let g = self.graph();
        let Some(&target) = g.index.get(group) else { return false };
        let start = match e {
            Element::Node(id) | Element::Gpu(id, _) => g.index.get(id.as_str()).copied(),
            Element::Link(i) => self.doc.spec.links.get(*i).and_then(|l| {
                let (a, b) = (g.index.get(l.a.as_str())?, g.index.get(l.b.as_str())?);
                // A link is inside when its lower end is.
                Some(if g.depth[*a] > g.depth[*b] { *a } else { *b })
            }),
        };
        let Some(mut v) = start else { return false };
        if matches!(e, Element::Node(_)) {
            match g.parent[v] {
                Some((p, _)) => v = p,
                None => return false,
            }
        }
        loop {
            if v == target {
                return true;
            }
            match g.parent[v] {
                Some((p, _)) => v = p,
                None => return false,
            }
        }
    }

    /// Expands every collapsed node hiding `e`.
    pub(super) fn reveal(&mut self, e: &Element) {
        let hidden: Vec<String> = self.collapsed.iter().filter(|c| self.inside(e, c)).cloned().collect();
        for h in hidden {
            self.collapsed.remove(&h);
        }
        if let Element::Gpu(id, _) = e {
            self.collapsed.remove(id);
        }
    }

    pub(super) fn select_move(&mut self, dir: Direction) {
        let g = self.graph();
        let visible_children = |v: usize| -> Vec<usize> {
            if self.collapsed.contains(g.names[v]) {
                Vec::new()
            } else {
                g.children[v].clone()
            }
        };
        let next = match (&self.selection, dir) {
            (None, _) => g.roots.first().map(|&r| Element::Node(g.names[r].to_string())),
            (Some(Element::Node(id)), _) => {
                let Some(&v) = g.index.get(id.as_str()) else { return };
                match dir {
                    Direction::Up => g.parent[v].map(|(p, _)| Element::Node(g.names[p].to_string())),
                    Direction::Down => {
                        let kids = visible_children(v);
                        if let Some(&c) = kids.first() {
                            Some(Element::Node(g.names[c].to_string()))
                        } else if g.is_server[v] && !self.collapsed.contains(id) && g.gpus[v] > 0 {
                            Some(Element::Gpu(id.clone(), 0))
                        } else {
                            None
                        }
                    }
                    Direction::Left | Direction::Right => {
                        let siblings: Vec<usize> = match g.parent[v] {
                            Some((p, _)) => g.children[p].clone(),
                            None => g.roots.clone(),
                        };
                        let i = siblings.iter().position(|&s| s == v).unwrap_or(0);
                        let j = if dir == Direction::Left { i.checked_sub(1) } else { Some(i + 1) };
                        j.and_then(|j| siblings.get(j)).map(|&s| Element::Node(g.names[s].to_string()))
                    }
                }
            }
            (Some(Element::Gpu(id, k)), _) => {
                let count = g.index.get(id.as_str()).map(|&v| g.gpus[v]).unwrap_or(0);
                match dir {
                    Direction::Up => Some(Element::Node(id.clone())),
                    Direction::Down => None,
                    Direction::Left => k.checked_sub(1).map(|k| Element::Gpu(id.clone(), k)),
                    Direction::Right => (k + 1 < count).then(|| Element::Gpu(id.clone(), k + 1)),
                }
            }
            (Some(Element::Link(i)), _) => {
                let n = self.doc.spec.links.len();
                match dir {
                    Direction::Left => i.checked_sub(1).map(Element::Link),
                    Direction::Right => (i + 1 < n).then(|| Element::Link(i + 1)),
                    Direction::Up | Direction::Down => self.doc.spec.links.get(*i).map(|l| {
                        let upper = match (g.index.get(l.a.as_str()), g.index.get(l.b.as_str())) {
                            (Some(&a), Some(&b)) if g.depth[a] > g.depth[b] => {
                                if dir == Direction::Up {
                                    b
                                } else {
                                    a
                                }
                            }
                            (Some(&a), Some(&b)) => {
                                if dir == Direction::Up {
                                    a
                                } else {
                                    b
                                }
                            }
                            _ => return Element::Link(*i),
                        };
                        Element::Node(g.names[upper].to_string())
                    }),
                }
            }
        };
        drop(g);
        if let Some(e) = next {
            self.reveal(&e);
            self.selection = Some(e);
        }
    }
}
