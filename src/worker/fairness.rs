//! Finish-time fairness ρ in the worker: the core's isolated runs (each tenant's jobs alone
//! on its share of the cluster, under the same policy), one after another, as the CLI makes
//! them (it runs them on threads; the result is the same bit for bit), so that the page's
//! `summary.json` and `jobs.csv` equal the CLI's.

use proxima_core::engine::Simulation;
use proxima_core::fairness::isolated::finish_time_fairness;
use proxima_core::run_files::RunRecord;

/// Adds ρ to `record` (job rows, tenants, the summary's figures) and returns the
/// milliseconds the isolated runs took. With one tenant the core reuses the shared run
/// (its plan is the whole cluster), so that costs next to nothing. An isolated scenario the
/// core cannot build leaves the record without ρ (as `--no-rho` would) and returns `None`.
pub fn add_rho(sim: &Simulation, record: &mut RunRecord, now_ms: &dyn Fn() -> f64) -> Option<f64> {
    let started = now_ms();
    let fairness = finish_time_fairness(sim.scenario(), &sim.policy_spec(), sim.runs()).ok()?;
    fairness.apply(record);
    Some(now_ms() - started)
}
