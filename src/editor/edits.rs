//! The edits that change the cluster description: adding racks, servers, GPUs, switches
//! and links, deleting, and setting a property. Each builds the new description from a
//! copy and commits it, so undo takes back exactly one edit.

use super::graph::Graph;
use super::names::{next_name, renumber, trailing_number, unique_id};
use super::{Editor, Element, Property};
use proxima_core::share::TopologyChoice;
use proxima_core::topology::{LinkSpec, ServerSpec, SwitchSpec, DEFAULT_NIC_GBPS, DEFAULT_NVLINK_GBPS, MAX_GPUS};
use std::collections::BTreeSet;

/// The latency of new links when there is nothing to copy. (New links take the core's
/// default NIC speed, twice that between switches.)
const DEFAULT_LATENCY_US: f64 = 2.0;

impl Editor {
    pub(super) fn add_gpu(&mut self) {
        let Some(id) = self.selected_server() else {
            self.message = Some("Select a server (or one of its GPUs) to add a GPU to it.".into());
            return;
        };
        let mut spec = self.doc.spec.clone();
        let s = spec.servers.iter_mut().find(|s| s.id == id).expect("selected servers exist");
        s.gpus = s.gpus.saturating_add(1);
        let new = s.gpus - 1;
        self.edit(spec);
        self.collapsed.remove(&id);
        self.selection = Some(Element::Gpu(id, new));
    }

    pub(super) fn add_switch(&mut self) {
        let mut spec = self.doc.spec.clone();
        let id = unique_id(&spec, "switch1");
        spec.switches.push(SwitchSpec { id: id.clone(), role: None });
        self.edit(spec);
        self.message = Some(format!("Added switch {id}; link it to the cluster (L, then pick the other end)."));
        self.selection = Some(Element::Node(id));
    }

    /// A node dragged (or nudged) by this much: undoable, but not an edit of the cluster.
    pub(super) fn move_node(&mut self, node: String, dx: f64, dy: f64) {
        if (dx != 0.0 || dy != 0.0) && dx.is_finite() && dy.is_finite() {
            let mut doc = (*self.doc).clone();
            let o = doc.offsets.entry(node).or_insert((0.0, 0.0));
            o.0 += dx;
            o.1 += dy;
            self.commit(doc);
        }
    }
    fn selected_server(&self) -> Option<String> {
        let spec = &self.doc.spec;
        match &self.selection {
            Some(Element::Node(id)) if spec.servers.iter().any(|s| s.id == *id) => Some(id.clone()),
            Some(Element::Gpu(id, _)) => Some(id.clone()),
            _ => None,
        }
    }

    /// The rack of the selection: the selected switch if it has servers, or the switch
    /// above the selected server, link or GPU.
    fn selected_rack(&self, g: &Graph) -> Option<usize> {
        let v = match &self.selection {
            Some(Element::Node(id)) | Some(Element::Gpu(id, _)) => g.index.get(id.as_str()).copied()?,
            Some(Element::Link(i)) => {
                let l = self.doc.spec.links.get(*i)?;
                let (a, b) = (g.index.get(l.a.as_str()).copied()?, g.index.get(l.b.as_str()).copied()?);
                if g.is_server[a] {
                    b
                } else {
                    a
                }
            }
            None => return None,
        };
        if g.is_server[v] {
            g.parent[v].map(|(p, _)| p)
        } else if g.is_rack(v) {
            Some(v)
        } else {
            None
        }
    }
    pub(super) fn add_rack(&mut self) {
        let g = self.graph();
        let template = self.selected_rack(&g).or_else(|| g.racks().last());
        let mut spec = self.doc.spec.clone();
        let Some(t) = template else {
            // No rack to copy: a default one, linked under the top switch if there is one.
            let tor = unique_id(&spec, "tor0");
            spec.switches.push(SwitchSpec { id: tor.clone(), role: Some("tor".into()) });
            for s in 0..2 {
                let id = unique_id(&spec, &format!("{tor}s{s}"));
                spec.servers.push(ServerSpec {
                    id: id.clone(),
                    gpus: 4,
                    nvlink_gbps: DEFAULT_NVLINK_GBPS,
                    nvlink_latency_us: 1.0,
                    nics: 1,
                });
                spec.links.push(LinkSpec {
                    a: id,
                    b: tor.clone(),
                    bandwidth_gbps: DEFAULT_NIC_GBPS,
                    latency_us: DEFAULT_LATENCY_US,
                });
            }
            if let Some(&root) = g.roots.first().filter(|&&r| !g.is_server[r]) {
                spec.links.push(LinkSpec {
                    a: tor.clone(),
                    b: g.names[root].to_string(),
                    bandwidth_gbps: 2.0 * DEFAULT_NIC_GBPS,
                    latency_us: DEFAULT_LATENCY_US,
                });
            }
            drop(g);
            self.edit(spec);
            self.selection = Some(Element::Node(tor));
            return;
        };
        let tor_id = g.names[t].to_string();
        let role = spec.switches.iter().find(|s| s.id == tor_id).and_then(|s| s.role.clone());
        let new_tor = unique_id(&spec, &next_name(&tor_id));
        let rack_number = trailing_number(&new_tor);
        spec.switches.push(SwitchSpec { id: new_tor.clone(), role });
        let mut down_gbps = 0.0;
        for &(v, li) in &g.adj[t] {
            if !g.is_server[v] || g.parent[v].map(|p| p.0) != Some(t) {
                continue;
            }
            let server = spec.servers.iter().find(|s| s.id == g.names[v]).expect("servers exist").clone();
            let link = spec.links[li].clone();
            let id = unique_id(&spec, &renumber(&server.id, rack_number, &new_tor));
            spec.servers.push(ServerSpec { id: id.clone(), ..server });
            spec.links.push(LinkSpec { a: id, b: new_tor.clone(), ..link.clone() });
            down_gbps += link.bandwidth_gbps;
        }
        match g.parent[t] {
            Some((p, li)) => {
                let up = spec.links[li].clone();
                spec.links.push(LinkSpec { a: new_tor.clone(), b: g.names[p].to_string(), ..up });
            }
            None => {
                // One rack until now: a spine above both, without oversubscription.
                let spine = unique_id(&spec, "spine");
                spec.switches.insert(0, SwitchSpec { id: spine.clone(), role: Some("spine".into()) });
                let bw = if down_gbps > 0.0 { down_gbps } else { 2.0 * DEFAULT_NIC_GBPS };
                for tor in [&tor_id, &new_tor] {
                    spec.links.push(LinkSpec {
                        a: tor.clone(),
                        b: spine.clone(),
                        bandwidth_gbps: bw,
                        latency_us: DEFAULT_LATENCY_US,
                    });
                }
            }
        }
        let collapse_like_template = self.collapsed.contains(&tor_id);
        self.edit(spec);
        if collapse_like_template {
            self.collapsed.insert(new_tor.clone());
        }
        self.selection = Some(Element::Node(new_tor));
    }

    pub(super) fn add_server(&mut self) {
        let g = self.graph();
        let Some(rack) = self.selected_rack(&g).or_else(|| g.racks().next()) else {
            self.message = Some("Select a rack (a switch with servers) to add a server to it.".into());
            return;
        };
        let rack_id = g.names[rack].to_string();
        let mut spec = self.doc.spec.clone();
        let sibling =
            g.adj[rack].iter().rev().find(|&&(v, _)| g.is_server[v]).map(|&(v, li)| (g.names[v].to_string(), li));
        let (server, link) = match &sibling {
            Some((id, li)) => {
                (spec.servers.iter().find(|s| s.id == *id).expect("exists").clone(), spec.links[*li].clone())
            }
            None => (
                ServerSpec {
                    id: format!("{rack_id}s0"),
                    gpus: 4,
                    nvlink_gbps: DEFAULT_NVLINK_GBPS,
                    nvlink_latency_us: 1.0,
                    nics: 1,
                },
                LinkSpec {
                    a: String::new(),
                    b: String::new(),
                    bandwidth_gbps: DEFAULT_NIC_GBPS,
                    latency_us: DEFAULT_LATENCY_US,
                },
            ),
        };
        let id = unique_id(&spec, &next_name(&server.id));
        spec.servers.push(ServerSpec { id: id.clone(), ..server });
        spec.links.push(LinkSpec { a: id.clone(), b: rack_id.clone(), ..link });
        drop(g);
        self.edit(spec);
        self.collapsed.remove(&rack_id);
        self.selection = Some(Element::Node(id));
    }

    pub(super) fn link_to(&mut self, target: String) {
        let Some(from) = self.linking_from.take() else { return };
        if from == target {
            self.message = Some("A link needs two different ends.".into());
            return;
        }
        if !self.exists(&Element::Node(target.clone())) {
            return;
        }
        let mut spec = self.doc.spec.clone();
        let server_end = spec.servers.iter().any(|s| s.id == from || s.id == target);
        let bandwidth_gbps = if server_end { DEFAULT_NIC_GBPS } else { 2.0 * DEFAULT_NIC_GBPS };
        spec.links.push(LinkSpec { a: from, b: target, bandwidth_gbps, latency_us: DEFAULT_LATENCY_US });
        let index = spec.links.len() - 1;
        self.edit(spec);
        self.selection = Some(Element::Link(index));
    }

    pub(super) fn delete(&mut self) {
        let Some(sel) = self.selection.clone() else {
            self.message = Some("Select something to delete.".into());
            return;
        };
        let g = self.graph();
        let parent_of = |id: &str| g.index.get(id).and_then(|&v| g.parent[v]).map(|(p, _)| g.names[p].to_string());
        let mut spec = self.doc.spec.clone();
        let next_selection;
        match &sel {
            Element::Link(i) => {
                if *i >= spec.links.len() {
                    return;
                }
                spec.links.remove(*i);
                next_selection = None;
            }
            Element::Gpu(id, _) => {
                let s = spec.servers.iter_mut().find(|s| s.id == *id).expect("exists");
                s.gpus = s.gpus.saturating_sub(1);
                next_selection = Some(Element::Node(id.clone()));
            }
            Element::Node(id) => {
                let mut gone: BTreeSet<String> = BTreeSet::from([id.clone()]);
                if spec.switches.iter().any(|s| s.id == *id) {
                    // A rack goes with its servers: those whose only link is to it.
                    for s in &spec.servers {
                        let ends: Vec<&LinkSpec> = spec.links.iter().filter(|l| l.a == s.id || l.b == s.id).collect();
                        if !ends.is_empty() && ends.iter().all(|l| l.a == *id || l.b == *id) {
                            gone.insert(s.id.clone());
                        }
                    }
                }
                spec.switches.retain(|s| !gone.contains(&s.id));
                spec.servers.retain(|s| !gone.contains(&s.id));
                spec.links.retain(|l| !gone.contains(&l.a) && !gone.contains(&l.b));
                next_selection = parent_of(id).map(Element::Node);
            }
        }
        drop(g);
        self.edit(spec);
        let doc = self.doc.make_mut();
        let ids: BTreeSet<String> = doc
            .spec
            .switches
            .iter()
            .map(|s| s.id.clone())
            .chain(doc.spec.servers.iter().map(|s| s.id.clone()))
            .collect();
        doc.offsets.retain(|k, _| ids.contains(k));
        self.collapsed.retain(|k| ids.contains(k));
        self.selection = next_selection.filter(|e| self.exists(e));
    }

    pub(super) fn set(&mut self, property: Property, value: &str) {
        let text = value.trim();
        let number = || -> Result<f64, String> {
            text.parse::<f64>().ok().filter(|x| !x.is_nan()).ok_or_else(|| format!("'{text}' is not a number"))
        };
        let mut spec = self.doc.spec.clone();
        let result: Result<(), String> = (|| {
            match &property {
                Property::LinkBandwidth(i) => spec.links.get_mut(*i).ok_or("no such link")?.bandwidth_gbps = number()?,
                Property::LinkLatency(i) => spec.links.get_mut(*i).ok_or("no such link")?.latency_us = number()?,
                Property::ServerGpus(id) => {
                    let n = text.parse::<u32>().map_err(|_| format!("GPUs: '{text}' is not a whole number of GPUs"))?;
                    if n > MAX_GPUS {
                        return Err(format!("GPUs: at most {} in a cluster", MAX_GPUS));
                    }
                    spec.servers.iter_mut().find(|s| s.id == *id).ok_or("no such server")?.gpus = n;
                }
                Property::ServerNvlink(id) => {
                    spec.servers.iter_mut().find(|s| s.id == *id).ok_or("no such server")?.nvlink_gbps = number()?
                }
                Property::ServerNvlinkLatency(id) => {
                    spec.servers.iter_mut().find(|s| s.id == *id).ok_or("no such server")?.nvlink_latency_us = number()?
                }
                Property::Oversub(id) => {
                    let ratio = number()?;
                    let g = Graph::of(&self.doc.spec, self.root_hint());
                    let v = *g.index.get(id.as_str()).ok_or("no such switch")?;
                    let (_, up) = g.parent[v].ok_or("this switch has no uplink to oversubscribe")?;
                    let down = g.downlink_gbps(&self.doc.spec, v);
                    if down <= 0.0 {
                        return Err("this switch has no servers below it".into());
                    }
                    spec.links[up].bandwidth_gbps = down / ratio;
                }
                Property::SwitchRole(id) => {
                    let role = (!text.is_empty()).then(|| text.to_string());
                    spec.switches.iter_mut().find(|s| s.id == *id).ok_or("no such switch")?.role = role;
                }
                Property::Name => spec.name = text.to_string(),
            }
            Ok(())
        })();
        match result {
            Ok(()) if spec != self.doc.spec => {
                // Renaming is not an edit of the cluster's shape; keep the name typed.
                let renamed = property == Property::Name;
                let name = spec.name.clone();
                self.edit(spec);
                if renamed {
                    let doc = self.doc.make_mut();
                    doc.spec.name = name.clone();
                    doc.choice = TopologyChoice::Custom(doc.spec.clone());
                    self.after_change();
                }
            }
            Ok(()) => {}
            Err(e) => self.refuse(e),
        }
    }
}
