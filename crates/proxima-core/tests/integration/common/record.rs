//! Running a hand-built scenario under a policy and keeping every event it raised, for the
//! tests that check what a policy decided and when.

use proxima_core::engine::Simulation;
use proxima_core::event::{Observer, SimEvent};
use proxima_core::policy::resolve_policy;
use proxima_core::scenario::Scenario;
use proxima_core::time::SimTime;
use std::cell::RefCell;
use std::rc::Rc;

/// Every event of a run with its time in seconds; clones share one list, so a clone handed
/// to the simulation fills the one the test reads.
#[derive(Clone, Default)]
pub struct Log(pub Rc<RefCell<Vec<(f64, SimEvent)>>>);

impl Observer for Log {
    fn observe(&mut self, now: SimTime, event: &SimEvent) {
        self.0.borrow_mut().push((now.as_secs_f64(), event.clone()));
    }
}

/// Runs `scenario` under `policy` to its end, with a [`Log`] of its events.
pub fn run_logged(policy: &str, scenario: Scenario) -> (Simulation, Log) {
    let mut sim = Simulation::new(scenario, resolve_policy(policy).unwrap());
    let log = Log::default();
    sim.add_observer(Box::new(log.clone()));
    sim.run();
    (sim, log)
}

/// Hand-computed times agree to 10 µs: the engine keeps whole microseconds.
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-5
}
