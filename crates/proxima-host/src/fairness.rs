//! Finish-time fairness ρ on threads, for the native front ends (the CLI's `run` and
//! `compare`, the sweeps, the Python package): the core's isolated runs (one per tenant,
//! pure and independent, `proxima_core::fairness::isolated`) spread side by side by
//! [`Threads`], a runner for the core's one `finish_time_fairness`. The result equals the
//! core's one after another bit for bit; only the wall time differs.

use proxima_core::fairness::isolated::{IsolatedPlan, IsolatedRun, IsolatedRunner};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The isolated runs on up to `count` threads. `progress` is told `(done, total)` after each
/// isolated run, from the thread that made it.
pub struct Threads<'a> {
    pub count: usize,
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

impl Threads<'static> {
    /// On up to `count` threads, without progress reports.
    pub fn quiet(count: usize) -> Self {
        Threads { count, progress: &|_, _| {} }
    }
}

impl IsolatedRunner for Threads<'_> {
    fn run_all(
        &self,
        plans: Vec<IsolatedPlan>,
        run: &(dyn Fn(IsolatedPlan) -> IsolatedRun + Sync),
    ) -> Vec<IsolatedRun> {
        let count = plans.len();
        let slots: Vec<Mutex<Option<IsolatedPlan>>> = plans.into_iter().map(|p| Mutex::new(Some(p))).collect();
        // Each result in its plan's slot, so that they come back in the plans' order.
        let results: Vec<Mutex<Option<IsolatedRun>>> = (0..count).map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..self.count.clamp(1, count.max(1)) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    let plan = slots[i].lock().expect("no thread panics holding it").take().expect("taken once");
                    *results[i].lock().expect("no thread panics holding it") = Some(run(plan));
                    (self.progress)(done.fetch_add(1, Ordering::Relaxed) + 1, count);
                });
            }
        });
        results.into_iter().map(|r| r.into_inner().expect("threads are done").expect("every plan ran")).collect()
    }
}

/// Threads to use: every core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_core::engine::Simulation;
    use proxima_core::fairness::isolated::{finish_time_fairness, OneAfterAnother};
    use proxima_core::inputs::{build_scenario, ArgumentNames, ScenarioInput, TopologyInput, TraceInput};
    use proxima_core::policy::{resolve_policy, PolicySpec};

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
        let progress = |_, total| {
            assert_eq!(total, 3);
            calls.fetch_add(1, Ordering::Relaxed);
        };
        let spec = PolicySpec::parse("dally").unwrap();
        let threads = Threads { count: 2, progress: &progress };
        let threaded = finish_time_fairness(sim.scenario(), &spec, sim.runs(), &threads).unwrap();
        let sequential = finish_time_fairness(sim.scenario(), &spec, sim.runs(), &OneAfterAnother).unwrap();
        assert_eq!(threaded, sequential);
        assert_eq!(calls.into_inner(), 3);
        assert!(threaded.isolated_jct.iter().any(Option::is_some));
    }
}
