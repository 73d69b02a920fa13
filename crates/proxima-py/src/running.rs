//! `proxima.run` and `proxima.compare` (through `proxima_sweep::run::execute`, the path
//! the sweep runner takes too), and parsed traces that can be reused across runs.

use crate::errors::{detached, input_error};
use proxima_sweep::load::{self, TopologyInput, TraceInput, WorkloadArgs};
use proxima_sweep::run::{compare_json, execute, RunOutput, Want};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;

/// A parsed trace: parse a file once, run it many times.
#[pyclass(frozen, module = "proxima._native")]
pub struct Trace {
    pub inner: Arc<proxima_core::trace::Trace>,
    /// The name runs report it by (`summary.json`'s `trace`), and errors name.
    #[pyo3(get)]
    pub label: String,
}

#[pymethods]
impl Trace {
    /// Reads and parses a trace file (Philly, Tiresias, Pollux or Proxima CSV/JSON).
    #[staticmethod]
    fn load(py: Python<'_>, path: &str) -> PyResult<Trace> {
        let parsed = detached(py, "reading a trace", || {
            load::read_text(path).and_then(|text| load::parse_trace_text(&text, path))
        })?;
        let trace = parsed.map_err(|e| input_error(py, &e))?;
        Ok(Trace { inner: Arc::new(trace), label: path.to_string() })
    }

    /// Parses trace text; `label` names it in summaries and errors.
    #[staticmethod]
    fn parse(py: Python<'_>, text: &str, label: &str) -> PyResult<Trace> {
        let parsed = detached(py, "parsing a trace", || load::parse_trace_text(text, label))?;
        let trace = parsed.map_err(|e| input_error(py, &e))?;
        Ok(Trace { inner: Arc::new(trace), label: label.to_string() })
    }

    /// The detected format: `philly`, `tiresias`, `pollux` or `proxima`.
    #[getter]
    fn format(&self) -> String {
        serde_json::to_value(self.inner.format).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
    }

    fn __len__(&self) -> usize {
        self.inner.jobs.len()
    }

    fn __repr__(&self) -> String {
        format!("<proxima.Trace {:?}: {} jobs, {}>", self.label, self.inner.jobs.len(), self.format())
    }
}

/// A topology as Python hands it over: a string (preset, parametric spec or JSON file) or
/// `("json", text, name)`.
pub fn topology_input(py: Python<'_>, arg: &Bound<'_, PyAny>) -> PyResult<TopologyInput> {
    if let Ok(tuple) = arg.cast::<PyTuple>() {
        let (_, text, source): (String, String, String) = tuple.extract()?;
        return Ok(TopologyInput::Json { text, source });
    }
    let s: String = arg.extract()?;
    TopologyInput::from_arg(&s).map_err(|e| input_error(py, &e))
}

/// The inputs of one run, owned so that they can cross into a thread without the GIL.
struct Inputs {
    topology: TopologyInput,
    synthetic: Option<String>,
    trace: Option<Py<Trace>>,
    args: WorkloadArgs,
}

impl Inputs {
    fn extract(
        py: Python<'_>,
        topology: &Bound<'_, PyAny>,
        trace: &Bound<'_, PyAny>,
        args: WorkloadArgs,
    ) -> PyResult<Inputs> {
        let topology = topology_input(py, topology)?;
        // A string is a synthetic spec, trace text (it has a line break) or a file name.
        let (synthetic, trace) = match trace.cast::<Trace>() {
            Ok(t) => (None, Some(t.clone().unbind())),
            Err(_) => {
                let s: String = trace.extract()?;
                if load::is_synthetic(&s) {
                    (Some(s), None)
                } else if s.contains('\n') {
                    (None, Some(Py::new(py, Trace::parse(py, &s, "<trace>")?)?))
                } else {
                    (None, Some(Py::new(py, Trace::load(py, &s)?)?))
                }
            }
        };
        Ok(Inputs { topology, synthetic, trace, args })
    }

    fn trace(&self) -> TraceInput<'_> {
        match (&self.synthetic, &self.trace) {
            (Some(s), _) => TraceInput::Synthetic(s),
            (None, Some(t)) => {
                let t = t.get();
                TraceInput::Parsed { trace: &t.inner, label: &t.label }
            }
            (None, None) => unreachable!("one of the two is set"),
        }
    }
}

pub fn output_dict<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("summary_json", &out.summary_json)?;
    d.set_item("jobs_csv", &out.jobs_csv)?;
    d.set_item("timeseries_csv", &out.timeseries_csv)?;
    d.set_item("event_hash", out.event_hash.map(|h| format!("{h:016x}")))?;
    d.set_item("simulation_s", out.simulation_s)?;
    Ok(d)
}

/// One run; returns its files' text. See `proxima.run`.
#[pyfunction]
#[pyo3(signature = (topology, trace, policy, seed, skip, limit, mix, files, event_hash))]
#[allow(clippy::too_many_arguments)]
pub fn run<'py>(
    py: Python<'py>,
    topology: &Bound<'py, PyAny>,
    trace: &Bound<'py, PyAny>,
    policy: String,
    seed: u64,
    skip: u32,
    limit: Option<u32>,
    mix: Option<String>,
    files: bool,
    event_hash: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let inputs = Inputs::extract(py, topology, trace, WorkloadArgs { seed, skip, limit, mix })?;
    let want = Want { files, event_hash };
    let result = detached(py, "the run", || execute(&inputs.topology, inputs.trace(), &inputs.args, &policy, want))?;
    output_dict(py, &result.map_err(|e| input_error(py, &e))?)
}

/// Several policies on the same inputs; returns each run's files and `compare.json`.
#[pyfunction]
#[pyo3(signature = (topology, trace, policies, seed, skip, limit, mix, files))]
#[allow(clippy::too_many_arguments)]
pub fn compare<'py>(
    py: Python<'py>,
    topology: &Bound<'py, PyAny>,
    trace: &Bound<'py, PyAny>,
    policies: Vec<String>,
    seed: u64,
    skip: u32,
    limit: Option<u32>,
    mix: Option<String>,
    files: bool,
) -> PyResult<(Vec<Bound<'py, PyDict>>, String)> {
    // Check every policy before running any, as the CLI does.
    for p in &policies {
        load::policy(p).map_err(|e| input_error(py, &e))?;
    }
    let inputs = Inputs::extract(py, topology, trace, WorkloadArgs { seed, skip, limit, mix })?;
    let want = Want { files, event_hash: false };
    let results = detached(py, "the comparison", || {
        policies
            .iter()
            .map(|p| execute(&inputs.topology, inputs.trace(), &inputs.args, p, want))
            .collect::<Result<Vec<_>, _>>()
    })?
    .map_err(|e| input_error(py, &e))?;
    let summaries: Vec<_> = results.iter().map(|r| r.summary.clone()).collect();
    let dicts = results.iter().map(|r| output_dict(py, r)).collect::<PyResult<Vec<_>>>()?;
    Ok((dicts, compare_json(&summaries)))
}
