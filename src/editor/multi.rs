//! Editing many servers at once: a selection of several nodes (shift-click adds or removes
//! one, a box drawn with Shift selects what it touches), and edits of the GPU count, the
//! NIC link and the GPU link of many servers in one undoable step, either of the selected
//! servers or of every server in a rack.

use super::{EditAction, Editor, Element};
use proxima_core::topology::MAX_GPUS;
use std::collections::BTreeSet;

/// A property every server has, set on many at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerField {
    /// GPUs in the server.
    Gpus,
    /// The bandwidth of the server's link to its switch (its NICs together), Gbit/s.
    Nic,
    /// Per-GPU bandwidth into the server's NVLink/NVSwitch domain, Gbit/s.
    GpuLink,
}

impl ServerField {
    pub const ALL: [ServerField; 3] = [ServerField::Gpus, ServerField::Nic, ServerField::GpuLink];

    pub fn label(self) -> &'static str {
        match self {
            ServerField::Gpus => "GPUs",
            ServerField::Nic => "NIC link (Gb/s)",
            ServerField::GpuLink => "GPU link (NVLink Gb/s per GPU)",
        }
    }
}

impl Editor {
    /// Every selected node: the selection (when it is a node) and the others added to it.
    pub fn selected_nodes(&self) -> BTreeSet<String> {
        let mut nodes = self.also.clone();
        if let Some(Element::Node(id)) = &self.selection {
            nodes.insert(id.clone());
        }
        nodes
    }

    /// The selected servers, in the description's order.
    pub fn selected_servers(&self) -> Vec<String> {
        let nodes = self.selected_nodes();
        self.doc.spec.servers.iter().filter(|s| nodes.contains(&s.id)).map(|s| s.id.clone()).collect()
    }

    /// The servers right below the switch above `server` (its rack), with the switch's id.
    pub fn rack_of(&self, server: &str) -> Option<(String, Vec<String>)> {
        let g = self.graph();
        let v = *g.index.get(server)?;
        if !g.is_server[v] {
            return None;
        }
        let (rack, _) = g.parent[v]?;
        let servers = g.children[rack].iter().filter(|&&c| g.is_server[c]).map(|&c| g.names[c].to_string()).collect();
        Some((g.names[rack].to_string(), servers))
    }

    /// The value of a server's field as the side panel shows it.
    pub fn server_value(&self, server: &str, field: ServerField) -> Option<f64> {
        let spec = &self.doc.spec;
        let s = spec.servers.iter().find(|s| s.id == server)?;
        Some(match field {
            ServerField::Gpus => s.gpus as f64,
            ServerField::GpuLink => s.nvlink_gbps,
            ServerField::Nic => spec.links.iter().find(|l| l.a == server || l.b == server)?.bandwidth_gbps,
        })
    }

    pub(super) fn select_action(&mut self, action: &EditAction) {
        match action {
            EditAction::ToggleSelect(id) => {
                let node = Element::Node(id.clone());
                if self.selection.as_ref() == Some(&node) {
                    // Unselecting the first node makes the next one first.
                    self.selection = self.also.pop_first().map(Element::Node);
                } else if !self.also.remove(id) {
                    if matches!(self.selection, Some(Element::Node(_))) {
                        self.also.insert(id.clone());
                    } else {
                        self.reveal(&node);
                        self.selection = Some(node);
                    }
                }
            }
            EditAction::SelectNodes(ids) => {
                let mut ids: Vec<String> =
                    ids.iter().filter(|id| self.exists(&Element::Node((*id).clone()))).cloned().collect();
                let first = (!ids.is_empty()).then(|| ids.remove(0));
                self.selection = first.map(Element::Node);
                self.also = ids.into_iter().collect();
            }
            _ => {}
        }
    }

    /// Sets a field of every server in `servers` to `value`, in one step.
    pub(super) fn set_servers(&mut self, servers: &[String], field: ServerField, value: &str) {
        let text = value.trim();
        let number = match field {
            ServerField::Gpus => match text.parse::<u32>() {
                Ok(n) if n <= MAX_GPUS => n as f64,
                Ok(_) => return self.refuse(format!("GPUs: at most {MAX_GPUS} in a cluster")),
                Err(_) => return self.refuse(format!("GPUs: '{text}' is not a whole number of GPUs")),
            },
            _ => match text.parse::<f64>() {
                Ok(x) if !x.is_nan() => x,
                _ => return self.refuse(format!("{}: '{text}' is not a number", field.label())),
            },
        };
        let mut spec = self.doc.spec.clone();
        for id in servers {
            match field {
                ServerField::Gpus | ServerField::GpuLink => {
                    if let Some(s) = spec.servers.iter_mut().find(|s| s.id == *id) {
                        if field == ServerField::Gpus {
                            s.gpus = number as u32;
                        } else {
                            s.nvlink_gbps = number;
                        }
                    }
                }
                ServerField::Nic => {
                    if let Some(l) = spec.links.iter_mut().find(|l| l.a == *id || l.b == *id) {
                        l.bandwidth_gbps = number;
                    }
                }
            }
        }
        if spec != self.doc.spec {
            self.edit(spec);
            self.message = Some(format!(
                "{} set to {text} on {} server{}.",
                field.label(),
                servers.len(),
                if servers.len() == 1 { "" } else { "s" }
            ));
        }
    }

    /// Gives every server of `server`'s rack its GPU count, NIC link and GPU link, in one
    /// step.
    pub(super) fn apply_to_rack(&mut self, server: &str) {
        let Some((rack, servers)) = self.rack_of(server) else {
            self.message = Some(format!("{server} is not a server under a switch."));
            return;
        };
        let mut spec = self.doc.spec.clone();
        let values: Vec<(ServerField, f64)> =
            ServerField::ALL.iter().filter_map(|&f| self.server_value(server, f).map(|v| (f, v))).collect();
        let nics = spec.servers.iter().find(|s| s.id == server).map(|s| s.nics).unwrap_or(1);
        for id in &servers {
            for &(field, value) in &values {
                match field {
                    ServerField::Gpus | ServerField::GpuLink => {
                        if let Some(s) = spec.servers.iter_mut().find(|s| s.id == *id) {
                            if field == ServerField::Gpus {
                                s.gpus = value as u32;
                            } else {
                                s.nvlink_gbps = value;
                            }
                            s.nics = nics;
                        }
                    }
                    ServerField::Nic => {
                        if let Some(l) = spec.links.iter_mut().find(|l| l.a == *id || l.b == *id) {
                            l.bandwidth_gbps = value;
                        }
                    }
                }
            }
        }
        if spec != self.doc.spec {
            self.edit(spec);
        }
        self.message =
            Some(format!("Every server of rack {rack} ({}) now has {server}'s GPUs and links.", servers.len()));
    }
}
