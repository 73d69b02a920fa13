//! `proxima.run` and `proxima.compare` (through a session, `proxima_core::session`, as
//! the CLI's run and compare; each run by `proxima_host::run::simulate`, the sweep
//! runner's), and parsed traces that can be reused across runs.

use crate::errors::{detached, input_error};
use proxima_core::run_files::{compare_json, RunRecord};
use proxima_host::fairness;
use proxima_host::inputs::{self, Jobs, TopologyInput, TraceInput, WorkloadArgs};
use proxima_host::run::{simulate, RunOutput, Want};
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
        let parsed = detached(py, "reading a trace", || inputs::trace_file(path))?;
        let trace = parsed.map_err(|e| input_error(py, &e))?;
        Ok(Trace { inner: Arc::new(trace), label: path.to_string() })
    }

    /// Parses trace text; `label` names it in summaries and errors.
    #[staticmethod]
    fn parse(py: Python<'_>, text: &str, label: &str) -> PyResult<Trace> {
        let parsed = detached(py, "parsing a trace", || inputs::parse_trace_text(text, label))?;
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

/// A finished run as data (summary, job rows, time series): its CSV files are made only
/// when asked for.
#[pyclass(frozen, module = "proxima._native")]
pub struct Record(RunRecord);

#[pymethods]
impl Record {
    /// `jobs.csv`, as `proxima run --out` writes it.
    fn jobs_csv(&self) -> String {
        self.0.files().jobs_csv
    }

    /// `timeseries.csv`, as `proxima run --out` writes it.
    fn timeseries_csv(&self) -> String {
        proxima_core::metrics::timeseries_csv_of(&self.0.timeseries, self.0.summary.gpus)
    }
}

/// A topology as Python hands it over: a string (preset, parametric spec or JSON file) or
/// `("json", text, name)`.
pub fn topology_input(py: Python<'_>, arg: &Bound<'_, PyAny>) -> PyResult<TopologyInput> {
    if let Ok(tuple) = arg.cast::<PyTuple>() {
        let (_, text, name): (String, String, String) = tuple.extract()?;
        return Ok(TopologyInput::File { name, text });
    }
    let s: String = arg.extract()?;
    inputs::topology_input(&s).map_err(|e| input_error(py, &e))
}

/// The inputs of one run, owned so that they can cross into a thread without the GIL.
struct Inputs {
    topology: TopologyInput,
    /// A synthetic spec or a file's text: the core's path from end to end.
    trace_input: Option<TraceInput>,
    /// A trace parsed before.
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
        let (trace_input, trace) = match trace.cast::<Trace>() {
            Ok(t) => (None, Some(t.clone().unbind())),
            Err(_) => {
                let s: String = trace.extract()?;
                let input = if s.contains('\n') && !inputs::is_synthetic(&s) {
                    TraceInput::File { name: "<trace>".into(), text: s }
                } else {
                    inputs::trace_input(&s).map_err(|e| input_error(py, &e))?
                };
                (Some(input), None)
            }
        };
        Ok(Inputs { topology, trace_input, trace, args })
    }

    fn jobs(&self) -> Jobs<'_> {
        match (&self.trace_input, &self.trace) {
            (Some(input), _) => Jobs::Input(input),
            (None, Some(t)) => {
                let t = t.get();
                Jobs::Parsed { trace: &t.inner, label: &t.label }
            }
            (None, None) => unreachable!("one of the two is set"),
        }
    }
}

/// A run's output for Python: the summary's text, the record (files made on demand), the
/// event-log hash and the simulation's time.
pub fn output_dict(py: Python<'_>, out: RunOutput) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("summary_json", &out.summary_json)?;
    d.set_item("event_hash", out.event_hash.map(|h| format!("{h:016x}")))?;
    d.set_item("simulation_s", out.simulation_s)?;
    if let Some(record) = out.record {
        d.set_item("record", Py::new(py, Record(record))?)?;
    }
    Ok(d)
}

/// One run; returns its files' text. See `proxima.run`.
#[pyfunction]
#[pyo3(signature = (topology, trace, policy, seed, skip, limit, mix, tenants, event_hash, rho))]
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
    tenants: Option<String>,
    event_hash: bool,
    rho: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let want = Want { record: true, event_hash, rho_threads: rho.then(fairness::threads) };
    let args = WorkloadArgs { seed, skip, limit, mix, tenants };
    let mut results = run_session(py, "the run", (topology, trace), &[policy], args, want)?;
    output_dict(py, results.pop().expect("one policy, one run"))
}

/// Several policies on the same inputs; returns each run's files and `compare.json`.
#[pyfunction]
#[pyo3(signature = (topology, trace, policies, seed, skip, limit, mix, tenants, rho))]
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
    tenants: Option<String>,
    rho: bool,
) -> PyResult<(Vec<Bound<'py, PyDict>>, String)> {
    let want = Want { record: true, event_hash: false, rho_threads: rho.then(fairness::threads) };
    let args = WorkloadArgs { seed, skip, limit, mix, tenants };
    let results = run_session(py, "the comparison", (topology, trace), &policies, args, want)?;
    let summaries: Vec<_> = results.iter().map(|r| r.record.as_ref().expect("asked for").summary.clone()).collect();
    let dicts = results.into_iter().map(|r| output_dict(py, r)).collect::<PyResult<Vec<_>>>()?;
    Ok((dicts, compare_json(&summaries)))
}

/// The session of Python's run and compare (`proxima_core::session`, as the CLI's): every
/// policy parsed and built before the inputs are read, the scenario built once, every
/// policy checked against its cluster, then each run, one after another.
/// `what` names the work in the message of a panic.
fn run_session(
    py: Python<'_>,
    what: &str,
    (topology, trace): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    policies: &[String],
    args: WorkloadArgs,
    want: Want,
) -> PyResult<Vec<RunOutput>> {
    let policies = inputs::policies(policies).map_err(|e| input_error(py, &e))?;
    let inputs = Inputs::extract(py, topology, trace, args)?;
    let results = detached(py, what, || {
        let session = inputs::session(&inputs.topology, inputs.jobs(), &inputs.args, policies)?;
        (0..session.policies().len()).map(|i| simulate(&session, i, want)).collect::<Result<Vec<_>, _>>()
    })?;
    results.map_err(|e| input_error(py, &e))
}

/// The CLI's `proxima bench` loop inside this module (scenario built once, then each repeat
/// timed by the core's run path, the simulation only): the seconds of each repeat. For measuring what
/// running inside Python costs the simulation (scripts/bench-python.py).
#[pyfunction]
pub fn _bench_simulation(
    py: Python<'_>,
    topology: &Bound<'_, PyAny>,
    trace: &Bound<'_, PyAny>,
    policy: String,
    repeats: u32,
) -> PyResult<Vec<f64>> {
    let policies = inputs::policies(&[policy]).map_err(|e| input_error(py, &e))?;
    let inputs = Inputs::extract(py, topology, trace, WorkloadArgs { seed: 1, ..Default::default() })?;
    let result = detached(py, "the benchmark", || -> Result<Vec<f64>, proxima_host::SourcedError> {
        let session = inputs::session(&inputs.topology, inputs.jobs(), &inputs.args, policies)?;
        let mut times = Vec::new();
        for _ in 0..repeats.max(1) {
            let output = simulate(&session, 0, Want::default())?;
            times.push(std::hint::black_box(output).simulation_s);
        }
        Ok(times)
    })?;
    result.map_err(|e| input_error(py, &e))
}
