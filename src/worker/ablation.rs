//! Where `dally`'s gain comes from: after a run of `dally` and `consolidate`, the worker
//! runs `dally` twice more without one mechanism each (its own ablation options), so the
//! results can say how much of the gain waiting and preemption each carry. The runs keep
//! no record and no ρ, and go after the run's results: they cost the page nothing until
//! then, and never the UI thread.

use crate::protocol::{GainSource, Problem};
use proxima_core::run::RunOptions;
use proxima_core::scenario::Scenario;
use proxima_core::session::{self, parse_policies, PolicyNames, Session};

/// `dally` without delay timers: its jobs take the tightest placement free now.
pub const WITHOUT_WAITING: &str = "dally:delay=off";
/// `dally` without network-sensitive preemption (and re-consolidation).
pub const WITHOUT_PREEMPTION: &str = "dally:preempt=off";

/// The mean JCT of one run of `spec` on `scenario`, its summary alone.
fn mean_jct(scenario: &Scenario, spec: &str) -> Result<f64, Problem> {
    let named = |p: session::Problem| Problem::from(p.sourced(PolicyNames::AsTyped));
    let session = Session::new(scenario.clone(), parse_policies(&[spec]).map_err(named)?).map_err(named)?;
    // Without ρ asked for, the run has nothing that can fail once the session is made.
    let finished = session.run(0, RunOptions::default()).unwrap_or_else(|failed| *failed.without);
    Ok(finished.summary().avg_jct_s)
}

/// The most jobs whose run the worker ablates: two more runs of `dally` hold the worker
/// (a run asked for meanwhile waits behind them), so only scenarios of the size of the
/// first run's and the lessons' (800 to 1,000 jobs on 32 GPUs: tens of milliseconds in
/// the page) get them. A count, not a time, so that the same scenario always does.
pub const MAX_JOBS: usize = 3_000;

/// The ablation runs of `dally` beside the run's `dally` and `consolidate` mean JCTs, or
/// why they were not run (a scenario of more than [`MAX_JOBS`] jobs).
pub fn gain_source(
    scenario: &Scenario,
    dally_s: f64,
    consolidate_s: f64,
    now_ms: &dyn Fn() -> f64,
) -> Result<GainSource, Problem> {
    let jobs = scenario.jobs.len();
    if jobs > MAX_JOBS {
        return Err(Problem::Message(format!(
            "not measured in the page for {jobs} jobs (it runs dally twice more, up to {MAX_JOBS} jobs); `proxima compare` with `--policy {WITHOUT_WAITING} --policy {WITHOUT_PREEMPTION}` measures it"
        )));
    }
    let started = now_ms();
    let without_waiting_s = mean_jct(scenario, WITHOUT_WAITING)?;
    let without_preemption_s = mean_jct(scenario, WITHOUT_PREEMPTION)?;
    Ok(GainSource { dally_s, consolidate_s, without_waiting_s, without_preemption_s, elapsed_ms: now_ms() - started })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{RunRequest, TraceSource};
    use proxima_core::inputs::TopologyInput;

    #[test]
    fn a_large_scenario_is_not_ablated_in_the_page_and_says_how_to_measure_it() {
        let request = |jobs: usize| RunRequest {
            run_id: 1,
            topology: TopologyInput::Argument("teaching".into()),
            trace: TraceSource::Synthetic(format!("synthetic:jobs={jobs},load=0.8,seed=1")),
            seed: 1,
            mix: None,
            policies: vec!["dally".into()],
        };
        let large = crate::worker::build_request_scenario(&request(MAX_JOBS + 1)).unwrap();
        let refused = gain_source(&large, 1.0, 2.0, &|| 0.0).unwrap_err().to_string();
        assert!(refused.starts_with("not measured in the page for 3001 jobs"), "{refused}");
        assert!(refused.contains("--policy dally:delay=off --policy dally:preempt=off"), "{refused}");
        let small = crate::worker::build_request_scenario(&request(20)).unwrap();
        assert!(gain_source(&small, 1.0, 2.0, &|| 0.0).is_ok());
    }
}
