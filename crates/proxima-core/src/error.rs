//! Errors about user input.
//!
//! The core parses text it is given (it never opens files), so an error knows the line and
//! the field but not the file name; the caller adds it. The rendered form is the contract
//! users see: `FILE:LINE: field: what is wrong`, a [`SourcedError`].
//!
//! This module is the ground floor: it imports nothing of the crate, so that every other
//! module can return its errors. `SourcedError` lives here rather than with the inputs that
//! attach file names (`inputs.rs`) because `InputError::with_source` renders through it.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A problem with user input: a trace row, a topology file, a policy or topology spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// 1-based line in the input, when the input has lines and the problem sits on one.
    pub line: Option<u32>,
    /// The field at fault: a column name, a JSON path such as `links[3].bandwidth_gbps`, or
    /// a spec key.
    pub field: String,
    /// What is wrong, in words a user can act on.
    pub message: String,
}

impl InputError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError { line: None, field: field.into(), message: message.into() }
    }

    pub fn at_line(line: u32, field: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError { line: Some(line), field: field.into(), message: message.into() }
    }

    /// Renders the error for a named source: `FILE:LINE: field: message`, or
    /// `FILE: field: message` when there is no line (as [`SourcedError`] displays it).
    pub fn with_source(&self, source: &str) -> String {
        SourcedError::new(source, self.clone()).to_string()
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}: {}", self.field, self.message),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// An input error with the source it came from: a file name, or the name of an argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcedError {
    /// The file's name, or the argument's (`--topology` on the command line, `topology` in
    /// the app).
    pub source: String,
    /// 1-based line in the source, when the problem sits on one.
    pub line: Option<u32>,
    /// The field at fault: a column, a JSON path such as `links[3].bandwidth_gbps`, a key.
    pub field: String,
    /// What is wrong, in words a user can act on.
    pub message: String,
}

impl SourcedError {
    pub fn new(source: impl Into<String>, error: InputError) -> SourcedError {
        SourcedError { source: source.into(), line: error.line, field: error.field, message: error.message }
    }
}

/// `FILE:LINE: field: what`, or `FILE: field: what` without a line: what the CLI prints
/// after `error: ` and what the app shows.
impl fmt::Display for SourcedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}: {}", self.source, self.field, self.message),
            None => write!(f, "{}: {}: {}", self.source, self.field, self.message),
        }
    }
}

impl std::error::Error for SourcedError {}
