//! A cluster's network in one line, for every output that names the set-up it ran on
//! (the CLI's run summary and comparison table, the experiment report): the servers and
//! their GPU links, the NICs of a server, each switch tier's oversubscription, and the
//! fabric whose efficiencies the description carries. It reads only the built tree and its
//! description, so parametric, preset, JSON, Slurm and Lingjun clusters are described alike.

use super::build::Topology;
use super::fabric::{fabric_of, Fabric, GpuKind};
use super::nodes::{NodeKind, Tier};
use super::spec::RAILS_ROLE;

impl Topology {
    /// E.g. `8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU), 1 × 200 Gbit/s
    /// InfiniBand NIC per server, racks 16:1 oversubscribed (fabric=ib)`.
    ///
    /// The fabric is named when the description's `collective` block is exactly one a
    /// parametric fabric builds (so a JSON file exported from a parametric cluster keeps its
    /// name); otherwise the line says whose efficiencies the description carries.
    pub fn describe_network(&self) -> String {
        let spec = self.spec();
        let detected = spec.collective.as_ref().and_then(fabric_of);
        let mut parts = vec![self.describe_servers(), self.describe_nics(detected.map(|(f, _)| f))];
        parts.extend(self.describe_switch_tiers());
        let origin = match (detected, &spec.collective) {
            (Some((fabric, _)), _) => format!("fabric={}", fabric.name()),
            (None, Some(_)) => "collective efficiencies from the description".to_string(),
            (None, None) => "default collective efficiencies: the Pollux testbed's NCCL over TCP".to_string(),
        };
        format!("{} ({origin})", parts.join(", "))
    }

    /// `8 × A100 per server (NVSwitch, 2,400 Gbit/s per GPU)`.
    fn describe_servers(&self) -> String {
        let spec = self.spec();
        let gpu = spec.gpu.as_deref().unwrap_or("GPU");
        let counts = range(spec.servers.iter().map(|s| s.gpus as f64));
        let links = range(spec.servers.iter().map(|s| s.nvlink_gbps));
        let interconnect = spec.gpu.as_deref().and_then(GpuKind::named).map(|g| format!("{}, ", g.interconnect()));
        format!(
            "{} × {gpu} per server ({}{} Gbit/s per GPU)",
            span(counts, count),
            interconnect.unwrap_or_default(),
            span(links, gbps)
        )
    }

    /// `1 × 200 Gbit/s InfiniBand NIC per server`: a server's link divided among its NICs.
    fn describe_nics(&self, fabric: Option<Fabric>) -> String {
        let servers = self.servers().iter().map(|&s| self.node(s));
        let nics = range(servers.clone().map(|n| n.nics as f64));
        // A tray's link into its NVLink domain is NVLink; its NICs are the domain's link up.
        let per_nic = range(servers.filter_map(|n| {
            let parent = self.node(n.parent?);
            if parent.is_nvlink_switch() {
                return parent.uplink.map(|l| self.link(l).bandwidth_gbps / parent.nics as f64);
            }
            n.uplink.map(|l| self.link(l).bandwidth_gbps / n.nics as f64)
        }));
        let label = fabric.map(|f| format!("{} ", f.label())).unwrap_or_default();
        let plural = if nics.is_some_and(|(_, most)| most > 1.0) { "s" } else { "" };
        match per_nic {
            Some(bw) => {
                format!("{} × {} Gbit/s {label}NIC{plural} per server", span(nics, count), span(Some(bw), gbps))
            }
            None => "one server, no network".to_string(),
        }
    }

    /// Per switch tier below the top, `racks 16:1 oversubscribed` (what its switches' links
    /// down carry over their link up), with `rail-optimised, 8 rails` for rail groups; `one
    /// switch` when every server hangs under the top.
    fn describe_switch_tiers(&self) -> Vec<String> {
        let top = self.top_tier().0;
        if top == 0 {
            return Vec::new();
        }
        if top == 1 {
            return vec!["one switch".to_string()];
        }
        (1..top)
            .map(|t| {
                let tier = Tier(t);
                if let Some(domains) = self.describe_nvlink_tier(tier) {
                    return domains;
                }
                let switches = self.tier_nodes(tier).iter().map(|&n| (n, self.node(n)));
                let ratios = range(switches.clone().filter_map(|(_, node)| {
                    let up = self.link(node.uplink?).bandwidth_gbps;
                    let down: f64 = node
                        .children
                        .iter()
                        .filter_map(|&c| self.node(c).uplink)
                        .map(|l| self.link(l).bandwidth_gbps)
                        .sum();
                    Some(down / up)
                }));
                let rails = range(
                    switches
                        .filter(|(_, node)| node.kind == NodeKind::Switch && node.role.as_deref() == Some(RAILS_ROLE))
                        .filter_map(|(_, node)| self.spec().rail_count(&node.name).map(|r| r as f64)),
                );
                // A tier named by a node label (an imported Kueue level such as
                // `cloud.provider.com/topology-rack`) is not a word to pluralise.
                let name = self.tier_name(tier);
                let name = if name.contains('/') { format!("{name} domains") } else { format!("{name}s") };
                let sharing = match ratios {
                    Some((lo, hi)) if hi <= 1.0 + 1e-9 && lo <= hi => "non-blocking (1:1)".to_string(),
                    Some(r) => format!("{}:1 oversubscribed", span(Some(r), ratio)),
                    None => "with no uplink".to_string(),
                };
                match rails {
                    Some(r) => format!("{name} rail-optimised ({} rails each), {sharing}", span(Some(r), count)),
                    None => format!("{name} {sharing}"),
                }
            })
            .collect()
    }
}

impl Topology {
    /// `NVLink domains of 18 servers (72 GPUs)` for a tier of NVLink switches, whose links
    /// up are their trays' NICs rather than an oversubscribed uplink; `None` for other tiers.
    fn describe_nvlink_tier(&self, tier: Tier) -> Option<String> {
        let nodes = self.tier_nodes(tier);
        if nodes.is_empty() || !nodes.iter().all(|&n| self.node(n).is_nvlink_switch()) {
            return None;
        }
        let servers = range(nodes.iter().map(|&n| self.node(n).children.len() as f64));
        let gpus = range(nodes.iter().map(|&n| self.node(n).gpu_count as f64));
        Some(format!("NVLink domains of {} servers ({} GPUs)", span(servers, count), span(gpus, count)))
    }
}

/// The smallest and largest of some values, if there are any.
fn range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// `8` for a single value, `4–8` for a range, each written by `write`.
fn span(range: Option<(f64, f64)>, write: fn(f64) -> String) -> String {
    match range {
        None => "?".to_string(),
        Some((lo, hi)) if (hi - lo).abs() <= 1e-9 * hi.abs().max(1.0) => write(lo),
        Some((lo, hi)) => format!("{}–{}", write(lo), write(hi)),
    }
}

fn count(n: f64) -> String {
    format!("{n:.0}")
}

/// Gbit/s with thousands grouped (`2,400`), decimals only where the number has them.
pub(super) fn gbps(x: f64) -> String {
    if x.fract() != 0.0 || x.abs() >= 1e15 {
        return format!("{x}");
    }
    let digits = format!("{:.0}", x.abs());
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if x < 0.0 {
        grouped.insert(0, '-');
    }
    grouped
}

/// An oversubscription ratio: whole numbers bare (`16`), others to two decimals (`1.33`).
fn ratio(r: f64) -> String {
    if (r - r.round()).abs() < 1e-9 {
        format!("{:.0}", r.round())
    } else {
        format!("{r:.2}")
    }
}
