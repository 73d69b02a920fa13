//! The problems of the editor's description, each on the element the drawing shows it on:
//! the core's `topology::check` lists them as data (element, key, field path, message), so
//! nothing here reads message text. The words name elements as the drawing shows them
//! (`uplink tor1 → spine`, `link r0s1 → tor0`, `server r0s1`), not by their place in the
//! file (`links[10].bandwidth_gbps`), which stays in [`proxima_core::topology::Problem`].

use super::graph::Graph;
use super::{Element, Problem};
use proxima_core::topology::{self, key_label, ElementRef, Topology, TopologySpec};

/// The cluster a description makes, or every problem it has.
pub fn check(spec: &TopologySpec) -> (Option<Topology>, Vec<Problem>) {
    let problems = topology::check(spec);
    if !problems.is_empty() {
        let g = Graph::of(spec, None);
        return (None, problems.into_iter().map(|p| Problem::of(p, spec, &g)).collect());
    }
    match Topology::from_spec(spec) {
        Ok(t) => (Some(t), Vec::new()),
        // The core builds whatever its checks accept; should that ever differ, the
        // refusal is still shown, on the cluster as a whole.
        Err(e) => {
            let problem = topology::Problem {
                element: ElementRef::Spec,
                key: None,
                field: e.field.clone(),
                message: e.message.clone(),
            };
            (None, vec![Problem::of(problem, spec, &Graph::of(spec, None))])
        }
    }
}

/// How the drawing names a link: a server's link to its switch `link r0s1 → tor0`, a
/// switch's link up the tree `uplink tor1 → spine`, any other `link a – b`.
pub fn link_label(spec: &TopologySpec, g: &Graph, index: usize) -> String {
    let Some(l) = spec.links.get(index) else { return format!("link {}", index + 1) };
    let name = |id: &str| if id.trim().is_empty() { "(no id)".to_string() } else { id.to_string() };
    let ends = (g.index.get(l.a.as_str()).copied(), g.index.get(l.b.as_str()).copied());
    if let (Some(a), Some(b)) = ends {
        for (child, parent) in [(a, b), (b, a)] {
            if g.parent[child] == Some((parent, index)) {
                let kind = if g.is_server[child] { "link" } else { "uplink" };
                return format!("{kind} {} → {}", name(g.names[child]), name(g.names[parent]));
            }
        }
    }
    format!("link {} – {}", name(&l.a), name(&l.b))
}

impl Problem {
    fn of(problem: topology::Problem, spec: &TopologySpec, g: &Graph) -> Problem {
        let element = match &problem.element {
            ElementRef::Switch { id, .. } | ElementRef::Server { id, .. } => Some(Element::Node(id.clone())),
            ElementRef::Link { index } => Some(Element::Link(*index)),
            ElementRef::Spec | ElementRef::Collective => None,
        };
        let label = match &problem.element {
            ElementRef::Link { index } => link_label(spec, g, *index),
            other => other.label(spec),
        };
        // "bandwidth must be a positive number" reads as a sentence; other messages follow
        // their key after a colon.
        let text = match problem.key.as_deref().map(key_label) {
            Some(key) if problem.message.starts_with("must ") => format!("{label}: {key} {}", problem.message),
            Some(key) => format!("{label}, {key}: {}", problem.message),
            None => format!("{label}: {}", problem.message),
        };
        Problem { element, text, problem }
    }
}
