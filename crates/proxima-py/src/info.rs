//! What the CLI's listing commands show, as Python data: topologies, policies, models, and
//! the calibration of the communication model.

use crate::errors::{detached, input_error};
use crate::running::topology_input;
use proxima_core::model::Catalog;
use proxima_core::policy::POLICIES;
use proxima_core::topology::all_presets;
use proxima_host::error::SourcedError;
use proxima_host::inputs;
use proxima_lab::calibrate::{calibrate_file, file_report};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;

/// A topology's name, GPU count, tiers and its JSON in the topology file format.
#[pyfunction]
pub fn topology<'py>(py: Python<'py>, spec: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let input = topology_input(py, spec)?;
    let topo = inputs::topology(&input).map_err(|e| input_error(py, &e))?;
    let d = PyDict::new(py);
    d.set_item("name", topo.name())?;
    d.set_item("gpus", topo.gpu_count())?;
    d.set_item("tiers", topo.tier_names().to_vec())?;
    d.set_item("json", topo.spec().to_json())?;
    Ok(d)
}

/// The file-name-safe form of a policy spec that names its result folder in
/// `proxima compare --out DIR`.
#[pyfunction]
pub fn result_dir_name(policy: &str) -> String {
    proxima_core::metrics::result_dir_name(policy)
}

/// A text file's content, with the CLI's errors (`cannot read`, `encoding`).
#[pyfunction]
pub fn read_text(py: Python<'_>, path: &str) -> PyResult<String> {
    inputs::read_text(path).map_err(|e| input_error(py, &e))
}

/// The presets: (name, description).
#[pyfunction]
pub fn presets() -> Vec<(String, String)> {
    all_presets().map(|p| (p.name.to_string(), p.description.to_string())).collect()
}

/// The policies: (name, summary, source, options with their defaults).
#[pyfunction]
pub fn policies() -> Vec<(String, String, String, String)> {
    POLICIES
        .iter()
        .map(|p| (p.name.to_string(), p.summary.to_string(), p.source.to_string(), p.options_line()))
        .collect()
}

/// The model catalogue as JSON (a list of model profiles).
#[pyfunction]
pub fn models() -> String {
    let catalog = Catalog::built_in();
    let models: Vec<_> = catalog.models().map(|(_, m)| m).collect();
    serde_json::to_string(&models).expect("models serialise")
}

/// `proxima calibrate FILE --json`: the fit of the communication model to a placements
/// table and its error, as JSON.
#[pyfunction]
pub fn calibrate(py: Python<'_>, path: &str) -> PyResult<String> {
    let result = detached(py, "calibration", || -> Result<String, SourcedError> {
        let samples = inputs::placements(path)?;
        let name = Path::new(path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let catalog = Catalog::built_in();
        let grad_bytes = catalog.lookup(&name).map(|id| catalog.get(id).grad_bytes());
        let fit = calibrate_file(&samples);
        let value = file_report(path, &samples, &fit, grad_bytes);
        Ok(serde_json::to_string_pretty(&value).expect("plain data serialises"))
    })?;
    result.map_err(|e| input_error(py, &e))
}
