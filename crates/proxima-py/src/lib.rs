//! `proxima._native`: the compiled half of the Python package `proxima`. The Python half
//! (python/proxima/) turns what these functions return into results, DataFrames and
//! exceptions; docs and types are there and in `_native.pyi`.
//!
//! Every simulation runs without the GIL, so Python threads (and Ray workers) run them in
//! parallel, and no panic unwinds into Python.

mod errors;
mod info;
mod running;
mod sweeping;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<running::Trace>()?;
    m.add_class::<running::Record>()?;
    m.add_class::<sweeping::Plan>()?;
    m.add_class::<sweeping::StopFlag>()?;
    m.add_function(wrap_pyfunction!(running::run, m)?)?;
    m.add_function(wrap_pyfunction!(running::compare, m)?)?;
    m.add_function(wrap_pyfunction!(running::_bench_simulation, m)?)?;
    m.add_function(wrap_pyfunction!(info::topology, m)?)?;
    m.add_function(wrap_pyfunction!(info::presets, m)?)?;
    m.add_function(wrap_pyfunction!(info::read_text, m)?)?;
    m.add_function(wrap_pyfunction!(info::result_dir_name, m)?)?;
    m.add_function(wrap_pyfunction!(info::policies, m)?)?;
    m.add_function(wrap_pyfunction!(info::models, m)?)?;
    m.add_function(wrap_pyfunction!(info::calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(sweeping::execute_planned, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_panic_for_test, m)?)?;
    Ok(())
}
