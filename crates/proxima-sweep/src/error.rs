//! A problem with an input, as data: which source, which line, which field, what is wrong.
//! It renders as the CLI's `SOURCE:LINE: field: what is wrong` (without `:LINE` when
//! there is none).

use proxima_core::InputError;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcedError {
    /// A file name as the user gave it, or the flag or key the value came from (`--policy`).
    pub source: String,
    pub line: Option<u32>,
    pub field: String,
    pub message: String,
}

impl SourcedError {
    pub fn new(source: &str, line: Option<u32>, field: impl Into<String>, message: impl Into<String>) -> SourcedError {
        SourcedError { source: source.to_string(), line, field: field.into(), message: message.into() }
    }

    /// The core's error (which knows line and field) attributed to a source.
    pub fn from_input(source: &str, e: InputError) -> SourcedError {
        SourcedError { source: source.to_string(), line: e.line, field: e.field, message: e.message }
    }
}

impl fmt::Display for SourcedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}: {}", self.source, self.field, self.message),
            None => write!(f, "{}: {}: {}", self.source, self.field, self.message),
        }
    }
}

impl std::error::Error for SourcedError {}
