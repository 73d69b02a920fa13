//! Running a plan on this machine's cores: each input file is read and parsed once, each
//! scenario built once a thread for the runs that share it, runs are handed to threads one
//! at a time, each finished run is recorded at once (so an interrupted sweep keeps what it
//! finished), and the table is written at the end.

use crate::error::SourcedError;
use crate::inputs::{
    read_text, scenario, sourced, topology, trace_file, Jobs, TopologyInput, TraceInput, WorkloadArgs,
};
use crate::plan::{Plan, PlannedRun};
use crate::run::{simulate_last, RunOutput, Want};
use crate::store::Store;
use crate::table::Table;
use proxima_core::scenario::Scenario;
use proxima_core::session::Session;
use proxima_core::trace::Trace;
use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

#[derive(Debug)]
pub enum SweepError {
    /// Bad input: a spec, a trace or topology file, a policy.
    Input(SourcedError),
    /// The output folder could not be written.
    Io(String),
    /// A run failed in a way no input check caught (a bug): which run, and what happened.
    Run { id: String, message: String },
    /// The caller asked to stop (finished runs are recorded and kept).
    Interrupted,
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepError::Input(e) => e.fmt(f),
            SweepError::Io(e) => f.write_str(e),
            SweepError::Run { id, message } => write!(f, "run {id}: {message}"),
            SweepError::Interrupted => f.write_str("interrupted; the runs finished so far are kept"),
        }
    }
}

impl From<SourcedError> for SweepError {
    fn from(e: SourcedError) -> Self {
        SweepError::Input(e)
    }
}

/// The files the runs need, each read and parsed once.
#[derive(Default)]
pub struct Loaded {
    topologies: BTreeMap<PathBuf, TopologyInput>,
    traces: BTreeMap<PathBuf, Trace>,
}

impl Loaded {
    pub fn for_runs<'a>(runs: impl IntoIterator<Item = &'a PlannedRun>) -> Result<Loaded, SourcedError> {
        let mut loaded = Loaded::default();
        for run in runs {
            if let Some(path) = &run.inputs.topology_file {
                if !loaded.topologies.contains_key(path) {
                    let source = path.to_string_lossy().into_owned();
                    let text = read_text(&source)?;
                    let input = TopologyInput::File { name: source, text };
                    topology(&input)?;
                    loaded.topologies.insert(path.clone(), input);
                }
            }
            if let Some(path) = &run.inputs.trace_file {
                if !loaded.traces.contains_key(path) {
                    let source = path.to_string_lossy().into_owned();
                    let trace = trace_file(&source)?;
                    loaded.traces.insert(path.clone(), trace);
                }
            }
        }
        Ok(loaded)
    }

    /// The scenario of a planned run, built from the loaded files.
    fn scenario(&self, run: &PlannedRun) -> Result<Scenario, SourcedError> {
        let i = &run.inputs;
        let topology = match &i.topology_file {
            Some(path) => self.topologies[path].clone(),
            None => TopologyInput::Argument(i.topology.clone()),
        };
        let (label, synthetic);
        let jobs = match &i.trace_file {
            Some(path) => {
                label = path.to_string_lossy().into_owned();
                Jobs::Parsed { trace: &self.traces[path], label: &label }
            }
            None => {
                synthetic = TraceInput::Synthetic(i.trace.clone());
                Jobs::Input(&synthetic)
            }
        };
        let args =
            WorkloadArgs { seed: i.seed, skip: i.skip, limit: i.limit, mix: i.mix.clone(), tenants: i.tenants.clone() };
        scenario(&topology, jobs, &args)
    }

    /// Runs one planned run with the loaded files. `last` is the scenario this thread
    /// built last, with its key: a run with the same key (the same inputs but the policy)
    /// starts from a copy of it instead of building it again (generating a synthetic
    /// trace, cutting a window out of a parsed one, building topology and catalogue).
    pub fn execute(
        &self,
        run: &PlannedRun,
        files: bool,
        last: &mut Option<(String, Scenario)>,
    ) -> Result<RunOutput, SourcedError> {
        let key = run.inputs.scenario_key();
        let scenario = match last {
            Some((k, s)) if *k == key => s.clone(),
            _ => {
                // Forget the old one first: a failed build must not leave it under a key
                // it does not belong to, and only one scenario is held at a time.
                *last = None;
                let built = self.scenario(run)?;
                *last = Some((key, built.clone()));
                built
            }
        };
        let session = Session::of_one(scenario, &run.inputs.policy).map_err(sourced)?;
        simulate_last(session, 0, sweep_want(run.inputs.rho, files))
    }
}

/// What a sweep's run produces besides its summary. The isolated runs of ρ take one
/// thread: the sweep already runs a run on every thread (a task on every Ray CPU), and
/// their result does not depend on the thread count.
pub fn sweep_want(rho: bool, files: bool) -> Want {
    Want { record: files, event_hash: false, rho_threads: rho.then_some(1) }
}

/// The text of a panic's payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Runs a planned run, turning a panic into an error.
pub fn execute_guarded(
    loaded: &Loaded,
    run: &PlannedRun,
    files: bool,
    last: &mut Option<(String, Scenario)>,
) -> Result<RunOutput, SweepError> {
    match catch_unwind(AssertUnwindSafe(|| loaded.execute(run, files, last))) {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(e)) => Err(SweepError::Input(e)),
        Err(payload) => {
            Err(SweepError::Run { id: run.id.clone(), message: format!("panicked: {}", panic_message(&*payload)) })
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Runs done, those found done at the start included.
    pub done: usize,
    pub total: usize,
    /// Runs found done at the start (skipped).
    pub reused: usize,
}

pub struct Outcome {
    pub ran: usize,
    pub reused: usize,
    pub table: Table,
}

/// Runs what is missing of `plan` on `threads` threads, records each run in `store`, and
/// writes the table. Stops at the first failure, or when `on_progress` returns false (runs
/// already under way finish and are kept).
pub fn run_local(
    plan: &Plan,
    store: &Store,
    threads: usize,
    files: bool,
    on_progress: &(dyn Fn(Progress) -> bool + Sync),
) -> Result<Outcome, SweepError> {
    // In the order of their scenarios (and of their ids within one), so that the runs
    // that share a scenario follow each other and each thread builds it once for them.
    // The table is in id order whatever the order the runs took.
    let mut pending = store.pending(plan);
    pending.sort_by_cached_key(|run| run.inputs.scenario_key());
    let total = plan.runs.len();
    let reused = total - pending.len();
    let loaded = Loaded::for_runs(pending.iter().copied())?;
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(reused);
    let failed = AtomicBool::new(false);
    let first_error: Mutex<Option<SweepError>> = Mutex::new(None);
    if !on_progress(Progress { done: reused, total, reused }) {
        return Err(SweepError::Interrupted);
    }
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, pending.len().max(1)) {
            scope.spawn(|| {
                let mut last = None;
                loop {
                    if failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(run) = pending.get(i) else { break };
                    let result = execute_guarded(&loaded, run, files, &mut last).and_then(|out| {
                        let files = out.record.as_ref().map(|r| r.files());
                        let jobs = files.as_ref().map(|f| f.jobs_csv.as_str());
                        let timeseries = files.as_ref().map(|f| f.timeseries_csv.as_str());
                        store.record(run, &out.summary_json, jobs, timeseries).map_err(SweepError::Io)
                    });
                    match result {
                        Ok(()) => {
                            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                            if !on_progress(Progress { done: d, total, reused }) {
                                failed.store(true, Ordering::Relaxed);
                                first_error.lock().expect("not poisoned").get_or_insert(SweepError::Interrupted);
                            }
                        }
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            first_error.lock().expect("not poisoned").get_or_insert(e);
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let table = store.write_table(plan).map_err(SweepError::Io)?;
    Ok(Outcome { ran: pending.len(), reused, table })
}
