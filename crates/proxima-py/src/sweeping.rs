//! Sweeps from Python: a planned spec, its local runner (the CLI's), and the pieces the Ray
//! backend (`proxima/sweep.py`) strings together: run one planned run on a worker, record
//! its files on the driver, write the table.

use crate::errors::{detached, input_error, sweep_error};
use crate::running::Trace;
use proxima_host::inputs::{Jobs, TopologyInput, TraceInput, WorkloadArgs};
use proxima_host::run::execute;
use proxima_host::runner::{run_local, sweep_want, Progress};
use proxima_host::spec::Cell;
use proxima_host::{Paths, PlannedRun, Spec, Store};
use pyo3::exceptions::{PyKeyError, PyOSError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag another thread sets to stop a local sweep after the runs under way.
#[pyclass(frozen, module = "proxima._native")]
#[derive(Default)]
pub struct StopFlag(AtomicBool);

#[pymethods]
impl StopFlag {
    #[new]
    fn new() -> StopFlag {
        StopFlag::default()
    }

    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The runs table's rows as Python values.
type Rows = Vec<Vec<Py<PyAny>>>;

/// A sweep spec expanded into runs.
#[pyclass(frozen, module = "proxima._native")]
pub struct Plan {
    plan: proxima_host::Plan,
}

fn cell(py: Python<'_>, c: &Option<Cell>) -> PyResult<Py<PyAny>> {
    Ok(match c {
        None => py.None(),
        Some(Cell::Str(s)) => s.into_pyobject(py)?.into_any().unbind(),
        Some(Cell::Int(i)) => i.into_pyobject(py)?.into_any().unbind(),
        Some(Cell::Float(x)) => x.into_pyobject(py)?.into_any().unbind(),
        Some(Cell::Bool(b)) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
    })
}

fn path_text(p: &Option<PathBuf>) -> Option<String> {
    p.as_ref().map(|p| p.to_string_lossy().into_owned())
}

impl Plan {
    fn find(&self, id: &str) -> PyResult<&PlannedRun> {
        let runs = &self.plan.runs;
        runs.binary_search_by(|r| r.id.as_str().cmp(id))
            .map(|i| &runs[i])
            .map_err(|_| PyKeyError::new_err(format!("no run {id} in this sweep")))
    }
}

#[pymethods]
impl Plan {
    /// Plans a spec given as TOML (or JSON) text; `source` names it in errors, relative
    /// files are found from `spec_dir`, and `data:PATH` under `data_dir`.
    #[new]
    #[pyo3(signature = (text, source, json, spec_dir, data_dir))]
    fn new(py: Python<'_>, text: &str, source: &str, json: bool, spec_dir: &str, data_dir: &str) -> PyResult<Plan> {
        let spec = if json { Spec::from_json(text, source) } else { Spec::from_toml(text, source) };
        let spec = spec.map_err(|e| input_error(py, &e))?;
        let paths = Paths { spec_dir: spec_dir.into(), data_dir: data_dir.into() };
        let plan = proxima_host::Plan::new(&spec, &paths).map_err(|e| input_error(py, &e))?;
        Ok(Plan { plan })
    }

    #[getter]
    fn name(&self) -> Option<String> {
        self.plan.name.clone()
    }

    /// The grid's columns of the runs table.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.plan.columns.clone()
    }

    fn __len__(&self) -> usize {
        self.plan.runs.len()
    }

    /// Every run in id order: its id, its cells and its inputs.
    fn runs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.plan
            .runs
            .iter()
            .map(|r| {
                let d = PyDict::new(py);
                let i = &r.inputs;
                d.set_item("run_id", &r.id)?;
                let cells = PyDict::new(py);
                for (name, c) in self.plan.columns.iter().zip(&r.cells) {
                    cells.set_item(name, cell(py, c)?)?;
                }
                d.set_item("cells", cells)?;
                d.set_item("topology", &i.topology)?;
                d.set_item("topology_file", path_text(&i.topology_file))?;
                d.set_item("trace", &i.trace)?;
                d.set_item("trace_file", path_text(&i.trace_file))?;
                d.set_item("policy", &i.policy)?;
                d.set_item("seed", i.seed)?;
                d.set_item("skip", i.skip)?;
                d.set_item("limit", i.limit)?;
                d.set_item("mix", &i.mix)?;
                d.set_item("tenants", &i.tenants)?;
                d.set_item("rho", i.rho)?;
                Ok(d)
            })
            .collect()
    }

    /// The ids of the runs without a recorded summary in `out`.
    fn pending(&self, out: &str) -> PyResult<Vec<String>> {
        let store = Store::open(Path::new(out)).map_err(PyOSError::new_err)?;
        Ok(store.pending(&self.plan).into_iter().map(|r| r.id.clone()).collect())
    }

    /// Runs what is missing on `threads` threads (the CLI's runner), without the GIL.
    /// `progress(done, total, reused)` is called after each run; `stop` ends the sweep
    /// after the runs under way. Returns (runs run now, runs found done).
    #[pyo3(signature = (out, threads, files, progress=None, stop=None))]
    fn run_local(
        &self,
        py: Python<'_>,
        out: &str,
        threads: usize,
        files: bool,
        progress: Option<Py<PyAny>>,
        stop: Option<Py<StopFlag>>,
    ) -> PyResult<(usize, usize)> {
        let store = Store::open(Path::new(out)).map_err(PyOSError::new_err)?;
        let on_progress = |p: Progress| {
            if let Some(cb) = &progress {
                // A failing callback must not stop the sweep: it only reports.
                Python::attach(|py| {
                    if let Err(e) = cb.call1(py, (p.done, p.total, p.reused)) {
                        e.print(py);
                    }
                });
            }
            !stop.as_ref().is_some_and(|s| s.get().0.load(Ordering::Relaxed))
        };
        let result = detached(py, "the sweep", || run_local(&self.plan, &store, threads, files, &on_progress))?;
        let outcome = result.map_err(|e| sweep_error(py, e))?;
        Ok((outcome.ran, outcome.reused))
    }

    /// Records a run's output (a dict from `execute`) in `out`.
    fn record(&self, out: &str, run_id: &str, output: &Bound<'_, PyDict>) -> PyResult<()> {
        let run = self.find(run_id)?;
        let get = |k: &str| -> PyResult<Option<String>> {
            output.get_item(k)?.map(|v| v.extract::<Option<String>>()).transpose().map(Option::flatten)
        };
        let summary_json = get("summary_json")?.ok_or_else(|| PyKeyError::new_err("summary_json"))?;
        // The table reads it back: refuse what could not be read now rather than then.
        proxima_host::table::metrics(&summary_json).map_err(|e| PyOSError::new_err(format!("run {run_id}: {e}")))?;
        let (jobs, timeseries) = (get("jobs_csv")?, get("timeseries_csv")?);
        Store::open(Path::new(out))
            .and_then(|s| s.record(run, &summary_json, jobs.as_deref(), timeseries.as_deref()))
            .map_err(PyOSError::new_err)
    }

    /// Writes `runs.csv` and `runs.parquet` in `out` from the recorded runs; returns the
    /// column names and the rows.
    fn write_table(&self, py: Python<'_>, out: &str) -> PyResult<(Vec<String>, Rows)> {
        let store = Store::open(Path::new(out)).map_err(PyOSError::new_err)?;
        let table = store.write_table(&self.plan).map_err(PyOSError::new_err)?;
        let names = table.columns.iter().map(|c| c.name.clone()).collect();
        let rows = table.rows.iter().map(|r| r.iter().map(|c| cell(py, c)).collect()).collect::<PyResult<_>>()?;
        Ok((names, rows))
    }
}

/// Runs one planned run (a dict from `Plan.runs()`) with its files' contents: the topology
/// JSON text and the parsed trace when the run names files. For Ray workers, which get the
/// files from the driver rather than from a shared disk.
#[pyfunction]
#[pyo3(signature = (run, topology_text, trace, files))]
pub fn execute_planned<'py>(
    py: Python<'py>,
    run: &Bound<'py, PyDict>,
    topology_text: Option<String>,
    trace: Option<Py<Trace>>,
    files: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let get = |k: &str| run.get_item(k)?.ok_or_else(|| PyKeyError::new_err(k.to_string()));
    let topology = match (get("topology_file")?.extract::<Option<String>>()?, topology_text) {
        (Some(name), Some(text)) => TopologyInput::File { name, text },
        (Some(name), None) => return Err(PyKeyError::new_err(format!("the text of {name}"))),
        (None, _) => TopologyInput::Argument(get("topology")?.extract()?),
    };
    let synthetic = TraceInput::Synthetic(get("trace")?.extract()?);
    let trace_file: Option<String> = get("trace_file")?.extract()?;
    if trace_file.is_some() && trace.is_none() {
        return Err(PyKeyError::new_err(format!("the parsed trace {}", trace_file.unwrap_or_default())));
    }
    let args = WorkloadArgs {
        seed: get("seed")?.extract()?,
        skip: get("skip")?.extract()?,
        limit: get("limit")?.extract()?,
        mix: get("mix")?.extract()?,
        tenants: get("tenants")?.extract()?,
    };
    let rho: bool = get("rho")?.extract()?;
    let policy: String = get("policy")?.extract()?;
    let result = detached(py, "the run", || {
        let jobs = match (&trace, &trace_file) {
            (Some(t), Some(label)) => Jobs::Parsed { trace: &t.get().inner, label },
            _ => Jobs::Input(&synthetic),
        };
        let out = execute(&topology, jobs, &args, &policy, sweep_want(rho, files))?;
        let files = out.record.as_ref().map(|r| r.files());
        Ok((out.summary_json, files))
    })?;
    let (summary_json, files) = result.map_err(|e| input_error(py, &e))?;
    let d = PyDict::new(py);
    d.set_item("summary_json", summary_json)?;
    d.set_item("jobs_csv", files.as_ref().map(|f| f.jobs_csv.clone()))?;
    d.set_item("timeseries_csv", files.as_ref().map(|f| f.timeseries_csv.clone()))?;
    Ok(d)
}
