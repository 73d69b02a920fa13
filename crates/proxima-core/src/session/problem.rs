//! The one problem type of a session: what is wrong with a policy a person typed, or with
//! an input of the scenario (a file, or an argument), as data until the front end renders
//! it in its own terms: flag names on the command line, fields on the page, an exception in
//! Python ([`Problem::sourced`]).

use crate::error::{InputError, SourcedError};
use crate::inputs::ArgumentNames;
use std::fmt;

/// What stops a session before any run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A policy, as typed, and what is wrong with it: its spec, an option, or a part of the
    /// cluster an option names that the cluster lacks.
    Policy { text: String, error: InputError },
    /// An input of the scenario, already named: a file with its line, or an argument named
    /// as the front end names it ([`ArgumentNames`]).
    Input(SourcedError),
}

/// How a front end names the policy a problem is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyNames {
    /// As the argument it was given in: `--policy` (the CLI, the Python package), `policy`.
    Argument(ArgumentNames),
    /// As typed (`dally:order=las`): the page, whose runs name several policies at once.
    AsTyped,
}

impl Problem {
    /// The problem as a front end shows it: `SOURCE[:LINE]: field: what`, with a policy
    /// named as `names` says.
    pub fn sourced(self, names: PolicyNames) -> SourcedError {
        match self {
            Problem::Policy { text, error } => match names {
                PolicyNames::Argument(names) => SourcedError::new(names.name("policy"), error),
                PolicyNames::AsTyped => SourcedError::new(text, error),
            },
            Problem::Input(e) => e,
        }
    }
}

impl Problem {
    /// The problem as the error of the thing at fault, for a caller that names its source
    /// itself (the lab's runs, the operator's what-if): a policy's own error, or an input's
    /// line, field and message.
    pub fn into_input_error(self) -> InputError {
        match self {
            Problem::Policy { error, .. } => error,
            Problem::Input(e) => InputError { line: e.line, field: e.field, message: e.message },
        }
    }
}

impl From<SourcedError> for Problem {
    fn from(e: SourcedError) -> Problem {
        Problem::Input(e)
    }
}

/// Rendered with the policy named as typed (the form a log line or a test reads best).
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.clone().sourced(PolicyNames::AsTyped).fmt(f)
    }
}

impl std::error::Error for Problem {}
