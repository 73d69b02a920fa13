//! The problems the page shows in its error banner, kept so that they do not pile up: the
//! same problem twice is shown once, and a new problem with an input (a trace file, the
//! topology, a policy) replaces the older ones with that input, which the user has since
//! changed or tried again. The newest comes last.

use crate::protocol::Problem;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Problems(Vec<Problem>);

impl Problems {
    /// Adds `problem`, dropping the ones it makes stale.
    pub fn push(&mut self, problem: Problem) {
        let source = match &problem {
            Problem::Input(e) => Some(e.source.clone()),
            Problem::Message(_) => None,
        };
        self.0.retain(|old| match (old, &source) {
            (Problem::Input(e), Some(s)) => &e.source != s,
            _ => old != &problem,
        });
        self.0.push(problem);
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

// Read as a slice (first, last, iteration); added to only through `push`.
impl std::ops::Deref for Problems {
    type Target = [Problem];

    fn deref(&self) -> &[Problem] {
        &self.0
    }
}

impl Extend<Problem> for Problems {
    fn extend<I: IntoIterator<Item = Problem>>(&mut self, problems: I) {
        for p in problems {
            self.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::error::SourcedError;

    fn input(source: &str, line: u32, message: &str) -> Problem {
        Problem::Input(SourcedError {
            source: source.into(),
            line: Some(line),
            field: "gpus".into(),
            message: message.into(),
        })
    }

    #[test]
    fn the_same_problem_shows_once_and_an_input_keeps_only_its_newest() {
        let mut p = Problems::default();
        p.push("The worker stopped.".into());
        p.push(input("jobs.csv", 3, "not a number"));
        p.push("The worker stopped.".into());
        p.push(input("jobs.csv", 7, "must be at least 1"));
        p.push(input("topology.conf", 2, "unknown switch"));
        let shown: Vec<String> = p.iter().map(|e| e.to_string()).collect();
        assert_eq!(p.len(), 3, "{shown:?}");
        // The repeated message moved to where it was repeated, before jobs.csv's newest.
        assert_eq!(shown[0], "The worker stopped.");
        assert!(shown[1].starts_with("jobs.csv:7:"), "{shown:?}");
        assert!(shown[2].starts_with("topology.conf:2:"), "{shown:?}");
        p.clear();
        assert!(p.is_empty());
    }
}
