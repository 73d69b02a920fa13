//! Where `dally`'s gain comes from: after a run of `dally` and `consolidate`, the worker
//! runs `dally` twice more without one mechanism each (its own ablation options), so the
//! results can say how much of the gain waiting and preemption each carry. The runs keep
//! no record and no ρ, and go after the run's results: they cost the page nothing until
//! then, and never the UI thread.

use crate::protocol::{GainSource, Problem};
use proxima_core::error::{InputError, SourcedError};
use proxima_core::run::{run_policy, RunError, RunOptions};
use proxima_core::scenario::Scenario;

/// `dally` without delay timers: its jobs take the tightest placement free now.
pub const WITHOUT_WAITING: &str = "dally:delay=off";
/// `dally` without network-sensitive preemption (and re-consolidation).
pub const WITHOUT_PREEMPTION: &str = "dally:preempt=off";

/// The mean JCT of one run of `spec` on `scenario`, its summary alone.
fn mean_jct(scenario: &Scenario, spec: &str) -> Result<f64, Problem> {
    match run_policy::<InputError>(scenario.clone(), spec, RunOptions::default()) {
        Ok(finished) => Ok(finished.summary().avg_jct_s),
        Err(RunError::Policy(e)) => Err(SourcedError::new(spec, e).into()),
        Err(RunError::Fairness { without, .. }) => Ok(without.summary().avg_jct_s),
    }
}

/// The ablation runs of `dally` beside the run's `dally` and `consolidate` mean JCTs.
pub fn gain_source(
    scenario: &Scenario,
    dally_s: f64,
    consolidate_s: f64,
    now_ms: &dyn Fn() -> f64,
) -> Result<GainSource, Problem> {
    let started = now_ms();
    let without_waiting_s = mean_jct(scenario, WITHOUT_WAITING)?;
    let without_preemption_s = mean_jct(scenario, WITHOUT_PREEMPTION)?;
    Ok(GainSource { dally_s, consolidate_s, without_waiting_s, without_preemption_s, elapsed_ms: now_ms() - started })
}
