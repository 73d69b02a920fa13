//! Finish-time fairness for the CLI: the core's isolated runs (one per tenant, pure and
//! independent), run side by side on the machine's cores. The result equals the core's
//! sequential `finish_time_fairness` bit for bit; only the wall time differs.

use crate::inputs::UsageError;
use proxima_core::engine::Simulation;
use proxima_core::fairness::isolated::{isolated_plans, FinishTimeFairness, IsolatedRun};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The isolated runs of a finished simulation, on up to `threads` threads.
pub fn finish_time_fairness(sim: &Simulation, threads: usize) -> Result<FinishTimeFairness, UsageError> {
    let shared = sim.scenario();
    let runs = sim.runs();
    let policy = sim.policy_spec();
    let plans = isolated_plans(shared).map_err(|e| UsageError::in_argument("topology", e))?;
    let count = plans.len();
    let slots: Vec<Mutex<Option<_>>> = plans.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let results: Mutex<Vec<IsolatedRun>> = Mutex::new(Vec::with_capacity(count));
    let failure: Mutex<Option<UsageError>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let show = std::io::stderr().is_terminal() && count > 1;
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, count.max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let plan = slots[i].lock().expect("no thread panics holding it").take().expect("taken once");
                let run = if plan.is_whole(shared) {
                    Ok(plan.from_shared(shared, runs))
                } else {
                    plan.run(&policy).map_err(|e| UsageError::in_argument("policy", e))
                };
                match run {
                    Ok(r) => results.lock().expect("no thread panics holding it").push(r),
                    Err(e) => *failure.lock().expect("no thread panics holding it") = Some(e),
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if show {
                    eprint!("\risolated runs for finish-time fairness: {d}/{count} tenants");
                    let _ = std::io::stderr().flush();
                }
            });
        }
    });
    if show {
        eprint!("\r{:width$}\r", "", width = 60);
    }
    if let Some(e) = failure.into_inner().expect("threads are done") {
        return Err(e);
    }
    Ok(FinishTimeFairness::from_runs(shared, &results.into_inner().expect("threads are done")))
}

/// Threads to use: every core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}
