//! Finish-time fairness ρ for the front ends (the CLI's `run` and `compare`, the Python
//! package's `run` and `compare`): the core's isolated runs (one per tenant, pure and
//! independent, `proxima_core::fairness::isolated`), run side by side on up to `threads`
//! threads. The result equals the core's sequential `finish_time_fairness` bit for bit;
//! only the wall time differs.

use crate::error::SourcedError;
use proxima_core::engine::Simulation;
use proxima_core::fairness::isolated::{isolated_plans, FinishTimeFairness, IsolatedPlan, IsolatedRun};
use proxima_core::inputs::ArgumentNames;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The isolated runs of a finished simulation, on up to `threads` threads. `progress` is
/// told `(done, total)` after each isolated run, from the thread that made it.
pub fn finish_time_fairness(
    sim: &Simulation,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<FinishTimeFairness, SourcedError> {
    let shared = sim.scenario();
    let runs = sim.runs();
    let policy = sim.policy_spec();
    let plans = isolated_plans(shared).map_err(|e| named("topology", e))?;
    let count = plans.len();
    let slots: Vec<Mutex<Option<IsolatedPlan>>> = plans.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let results: Mutex<Vec<IsolatedRun>> = Mutex::new(Vec::with_capacity(count));
    let failure: Mutex<Option<SourcedError>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, count.max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let plan = slots[i].lock().expect("no thread panics holding it").take().expect("taken once");
                // A tenant with every job on the whole cluster would repeat the shared run
                // event for event: its result is taken from it.
                let run = if plan.is_whole(shared) {
                    Ok(plan.from_shared(shared, runs))
                } else {
                    plan.run(&policy).map_err(|e| named("policy", e))
                };
                match run {
                    Ok(r) => results.lock().expect("no thread panics holding it").push(r),
                    Err(e) => *failure.lock().expect("no thread panics holding it") = Some(e),
                }
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, count);
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("threads are done") {
        return Err(e);
    }
    Ok(FinishTimeFairness::from_runs(shared, &results.into_inner().expect("threads are done")))
}

/// An error of the isolated runs, naming the argument it comes from as the CLI's flag.
fn named(word: &str, e: proxima_core::InputError) -> SourcedError {
    SourcedError::new(ArgumentNames::Flags.name(word), e)
}

/// Threads to use: every core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::fairness::isolated;
    use proxima_core::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
    use proxima_core::policy::resolve_policy;

    #[test]
    fn threads_give_the_cores_sequential_result() {
        let input = ScenarioInput {
            topology: TopologyInput::Argument("racks=2,servers=2,gpus=4".into()),
            trace: TraceInput::Synthetic("synthetic:jobs=24,load=1.5,tenants=3".into()),
            seed: 3,
            skip: 0,
            limit: None,
            mix: None,
            names: ArgumentNames::Flags,
            tenants: Some("demand".into()),
        };
        let mut sim = Simulation::new(build_scenario(&input).unwrap(), resolve_policy("dally").unwrap());
        sim.run();
        let calls = AtomicUsize::new(0);
        let threaded = finish_time_fairness(&sim, 2, &|_, total| {
            assert_eq!(total, 3);
            calls.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        let sequential = isolated::finish_time_fairness(sim.scenario(), &sim.policy_spec(), sim.runs()).unwrap();
        assert_eq!(threaded, sequential);
        assert_eq!(calls.into_inner(), 3);
        assert!(threaded.isolated_jct.iter().any(Option::is_some));
    }
}
