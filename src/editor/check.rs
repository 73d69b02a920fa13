//! The problems of the editor's description, each on the element the drawing shows it on:
//! the core's `topology::check` lists them as data (element, key, field path, message), so
//! nothing here reads message text.

use super::{Element, Problem};
use proxima_core::topology::{self, ElementRef, Topology, TopologySpec};

/// The cluster a description makes, or every problem it has.
pub fn check(spec: &TopologySpec) -> (Option<Topology>, Vec<Problem>) {
    let problems: Vec<Problem> = topology::check(spec).into_iter().map(|p| Problem::of(p, spec)).collect();
    if !problems.is_empty() {
        return (None, problems);
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
            (None, vec![Problem::of(problem, spec)])
        }
    }
}

impl Problem {
    fn of(problem: topology::Problem, spec: &TopologySpec) -> Problem {
        let element = match &problem.element {
            ElementRef::Switch { id, .. } | ElementRef::Server { id, .. } => Some(Element::Node(id.clone())),
            ElementRef::Link { index } => Some(Element::Link(*index)),
            ElementRef::Spec | ElementRef::Collective => None,
        };
        Problem { element, text: problem.describe(spec), problem }
    }
}
