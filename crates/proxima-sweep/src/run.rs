//! One run from its inputs to its files: `summary.json` (always), and on request
//! `jobs.csv` and `timeseries.csv`, the same bytes `proxima run --out` writes.

use crate::error::SourcedError;
use crate::load::{self, TopologyInput, TraceInput, WorkloadArgs};
use proxima_core::engine::Simulation;
use proxima_core::event::EventHasher;
use proxima_core::metrics::{jobs_csv, timeseries_csv, Summary};
use proxima_core::time::SimTime;

/// Buckets in `timeseries.csv` (as the CLI writes it).
pub const TIMESERIES_BUCKETS: u32 = 500;

/// What a run produced, as the text of its files.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    pub summary: Summary,
    /// `summary.json`, with its final line break.
    pub summary_json: String,
    pub jobs_csv: Option<String>,
    pub timeseries_csv: Option<String>,
    /// The event-log hash (as `proxima run --events` prints it), when asked for.
    pub event_hash: Option<u64>,
    /// Wall-clock seconds of the simulation itself (`Simulation::new` to the summary), as
    /// `proxima bench` times it: for measuring, never part of a result file.
    pub simulation_s: f64,
}

/// Which files and figures to produce besides the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Want {
    pub files: bool,
    pub event_hash: bool,
}

/// Shares the hasher with the simulation, which owns its observers.
struct Shared(std::rc::Rc<std::cell::RefCell<EventHasher>>);

impl proxima_core::event::Observer for Shared {
    fn observe(&mut self, now: SimTime, event: &proxima_core::event::SimEvent) {
        self.0.borrow_mut().observe(now, event);
    }
}

pub fn execute(
    topology: &TopologyInput,
    trace: TraceInput,
    args: &WorkloadArgs,
    policy: &str,
    want: Want,
) -> Result<RunOutput, SourcedError> {
    let policy_box = load::policy(policy)?;
    let scenario = load::scenario(topology, trace, args)?;
    let started = std::time::Instant::now();
    let mut sim = Simulation::new(scenario, policy_box);
    let hasher = std::rc::Rc::new(std::cell::RefCell::new(EventHasher::default()));
    if want.event_hash {
        sim.add_observer(Box::new(Shared(hasher.clone())));
    }
    let summary = sim.run();
    let simulation_s = started.elapsed().as_secs_f64();
    let (jobs, timeseries) = if want.files {
        let end = SimTime::from_secs_f64(summary.makespan_s);
        (
            Some(jobs_csv(sim.scenario(), sim.runs())),
            Some(timeseries_csv(sim.timeline(), end, summary.gpus, TIMESERIES_BUCKETS)),
        )
    } else {
        (None, None)
    };
    let event_hash = want.event_hash.then(|| hasher.borrow().hash());
    let summary_json = summary.to_json() + "\n";
    Ok(RunOutput { summary, summary_json, jobs_csv: jobs, timeseries_csv: timeseries, event_hash, simulation_s })
}

/// `compare.json`: the summaries in the order given, as `proxima compare --out` writes it.
pub fn compare_json(summaries: &[Summary]) -> String {
    serde_json::to_string_pretty(summaries).expect("summaries serialise") + "\n"
}
