//! Problems as data: the core's [`SourcedError`] (source, line, field, message), rendered
//! as the CLI's `SOURCE:LINE: field: what is wrong`. Problems of a sweep spec use it too.

pub use proxima_core::error::SourcedError;

/// A problem found here (in a spec, or reading a file), in the core's shape.
pub fn problem(source: &str, line: Option<u32>, field: impl Into<String>, message: impl Into<String>) -> SourcedError {
    SourcedError { source: source.to_string(), line, field: field.into(), message: message.into() }
}
