//! (reader being written)
use super::Trace;
use crate::error::InputError;

pub fn parse(_text: &str) -> Result<Trace, InputError> {
    Err(InputError::new("format", "this reader is not written yet"))
}
