//! Rust errors as Python exceptions: bad input is `proxima.InputError` (a `ValueError`,
//! defined in `proxima/_errors.py`) carrying the CLI's message and its parts; a panic is
//! caught before it reaches Python and becomes a `RuntimeError` that says it is a bug.

use proxima_host::error::SourcedError;
use proxima_host::runner::{panic_message, SweepError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `proxima.InputError(message, file, line, field, reason)`.
pub fn input_error(py: Python<'_>, e: &SourcedError) -> PyErr {
    let made = py.import("proxima._errors").and_then(|m| {
        m.getattr("InputError")?.call1((e.to_string(), e.source.clone(), e.line, e.field.clone(), e.message.clone()))
    });
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(err) => err,
    }
}

pub fn sweep_error(py: Python<'_>, e: SweepError) -> PyErr {
    match e {
        SweepError::Input(e) => input_error(py, &e),
        SweepError::Io(message) => PyOSError::new_err(message),
        SweepError::Run { .. } => PyRuntimeError::new_err(format!("{e} (a bug in Proxima: please report it)")),
        SweepError::Interrupted => PyKeyboardInterrupt::new_err("sweep interrupted; finished runs are kept"),
    }
}

/// Runs `f` without the GIL, turning a panic into an error value instead of unwinding
/// into Python.
pub fn detached<T: Send, F: FnOnce() -> T + Send>(py: Python<'_>, what: &str, f: F) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)).map_err(|p| panic_message(&*p))).map_err(|message| {
        PyRuntimeError::new_err(format!("{what} panicked: {message} (a bug in Proxima: please report it)"))
    })
}

/// Panics inside the guard, for the test that a panic reaches Python as an exception.
#[pyfunction]
pub fn _panic_for_test(py: Python<'_>) -> PyResult<()> {
    detached(py, "the test", || panic!("a deliberate panic"))
}
