//! The operator's what-if, as data: given their cluster and history (a built scenario per
//! seed), it runs their scheduler as configured, the same with a time limit on its hard
//! topology constraint (fixed and tuned), the same with eviction, and Proxima's
//! network-aware policies, over several seeds, and returns a [`WhatIfReport`]: each
//! policy's mean JCT against the configured scheduler's as a ratio of means with a bootstrap
//! interval over seeds, the same per tenant, and three analyses read from the runs' events
//! (`analysis.rs`): preemptions whose freed GPUs nobody used, jobs held for their topology
//! level while GPUs were free, and jobs a quota admitted that were not placed.
//!
//! The CLI (`proxima what-if`) prints the report's text screen and writes its Markdown and
//! HTML (`render.rs`, `html.rs`); the web page's worker builds the same report from the same
//! function, so both show the same figures. `docs/OPERATORS.md` walks through it.

mod analysis;
mod html;
mod render;
mod report;
#[cfg(test)]
mod tests;

pub use analysis::{Admitted, RunAnalysis, RunLedger};
pub use html::html;
pub use render::{incomplete_caution, markdown, screen};
pub use report::{Fragmentation, Holding, PolicyRow, QuotaUnplaced, TenantRow, WhatIfReport};

use proxima_core::error::InputError;
use proxima_core::run::RunOptions;
use proxima_core::session::{parse_policies, PolicyChoice, Problem, Session};
use proxima_core::Scenario;

/// The bootstrap of the intervals: resamples, generator seed and confidence, fixed so that
/// the same runs give the same intervals.
pub const RESAMPLES: u32 = 2000;
pub const BOOTSTRAP_SEED: u64 = 0x0be7_a71f;
pub const CONFIDENCE: f64 = 0.95;

/// Seconds after a preemption within which another job must take one of the GPUs it freed
/// (or its beneficiary be placed) for the preemption to count as used; also how long a job
/// within its quota must wait with its GPUs free to count as admitted but not placed. Five
/// minutes: Slurm's `max_switch_wait` default, and a checkpoint-restore cost's order.
pub const WINDOW_S: f64 = 300.0;

/// How many jobs admitted by quota but not placed the report lists, per policy.
pub const LISTED: usize = 20;

/// Proxima's policies every what-if shows beside the operator's own.
const OURS: &[&str] = &["dally", "dally:order=las"];

/// What to compare, besides the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct WhatIfPlan {
    /// The scheduler as the operator runs it, e.g. `kueue-tas:required=rack`.
    pub scheduler: String,
    /// The time limit given to its `required` level, in seconds.
    pub timer_s: f64,
    /// Seeds 1..=seeds.
    pub seeds: u64,
    /// The cluster and the history as the operator named them, for the report's title.
    pub topology_label: String,
    pub trace_label: String,
}

impl WhatIfPlan {
    /// The plan's policies, each parsed and built once (`proxima_core::session`); the error
    /// names the argument at fault as the field (`seeds`, `timer`, `policy`).
    pub fn check(&self) -> Result<Vec<PolicyChoice>, InputError> {
        if self.seeds == 0 {
            return Err(InputError::new("seeds", "at least 1"));
        }
        if !(self.timer_s.is_finite() && self.timer_s >= 0.0) {
            return Err(InputError::new("timer", format!("expected seconds, 0 or more, got {}", self.timer_s)));
        }
        parse_policies(&policies(&self.scheduler, self.timer_s)).map_err(Problem::into_input_error)
    }
}

/// The option that puts a time limit on a scheduler's hard topology constraint, if the
/// scheduler has one: Kueue's `required` level, Volcano's `hard` tier, Slurm's rule.
fn timer_key(scheduler: &str) -> Option<&'static str> {
    let options = scheduler.split_once(':').map_or("", |(_, o)| o);
    let has = |key: &str| options.split(',').any(|kv| kv.trim().starts_with(key));
    match scheduler.split(':').next().unwrap_or("") {
        "kueue-tas" if has("required=") => Some("required_for_s"),
        "volcano" if has("hard=") => Some("hard_for_s"),
        "slurm" => Some("wait_s"),
        _ => None,
    }
}

/// `spec` with one more option.
fn with_option(spec: &str, option: &str) -> String {
    let sep = if spec.contains(':') { ',' } else { ':' };
    format!("{spec}{sep}{option}")
}

/// The policies of a what-if: the scheduler; when it has a hard constraint without a time
/// limit, the same with the limit fixed at `timer_s` and tuned (`auto`); when it can evict
/// and does not (and does not admit by quota, which the core refuses with eviction), the
/// same with eviction; and [`OURS`].
pub fn policies(scheduler: &str, timer_s: f64) -> Vec<String> {
    let mut out = vec![scheduler.to_string()];
    if let Some(key) = timer_key(scheduler).filter(|k| !scheduler.contains(&format!("{k}="))) {
        // Slurm's tree plugin already waits (max_switch_wait, 300 s): only its block plugin
        // lacks a limit to try.
        if !scheduler.starts_with("slurm") || scheduler.contains("block=on") {
            out.push(with_option(scheduler, &format!("{key}={timer_s}")));
        }
        out.push(with_option(scheduler, &format!("{key}=auto")));
    }
    let name = scheduler.split(':').next().unwrap_or("");
    if matches!(name, "kueue-tas" | "volcano" | "slurm")
        && !scheduler.contains("evict=")
        && !scheduler.contains("quota=on")
    {
        out.push(with_option(scheduler, "evict=on"));
    }
    out.extend(OURS.iter().filter(|p| **p != scheduler).map(|p| p.to_string()));
    out
}

/// One run's figures: its summary and what its events said.
pub struct RunResult {
    pub summary: proxima_core::metrics::Summary,
    pub analysis: RunAnalysis,
}

/// Runs every policy of `plan` on the scenario of every seed (`scenario_of(seed)`, seeds
/// 1..=plan.seeds), each seed a session (`proxima_core::session`: every policy checked
/// against the cluster before any run), and returns the report. `policy_error` makes the
/// caller's error from a policy that does not fit the cluster. Runs go one after another,
/// in order: the report is the same bytes on every machine and in the browser's worker.
pub fn run_what_if<E>(
    plan: &WhatIfPlan,
    scenario_of: &mut dyn FnMut(u64) -> Result<Scenario, E>,
    policy_error: &dyn Fn(InputError) -> E,
) -> Result<WhatIfReport, E> {
    let choices = plan.check().map_err(policy_error)?;
    // runs[policy][seed]
    let mut runs: Vec<Vec<RunResult>> = choices.iter().map(|_| Vec::new()).collect();
    let mut first = None;
    for seed in 1..=plan.seeds {
        let session = Session::new(scenario_of(seed)?, choices.clone())
            .map_err(|problem| policy_error(problem.into_input_error()))?;
        for (i, policy_runs) in runs.iter_mut().enumerate() {
            policy_runs.push(run_one(&session, i));
        }
        first.get_or_insert(session);
    }
    let first = first.expect("at least one seed");
    let specs: Vec<String> = choices.iter().map(|c| c.text().to_string()).collect();
    Ok(WhatIfReport::build(plan, first.scenario(), &specs, runs))
}

/// Policy `index` of a session run on its scenario, with the ledger of its events.
pub fn run_one(session: &Session, index: usize) -> RunResult {
    let mut ledger = RunLedger::new(session.scenario(), WINDOW_S);
    let options = RunOptions { observers: vec![&mut ledger], ..RunOptions::default() };
    let finished = session.run(index, options).expect("without ρ nothing fails once checked");
    let summary = finished.summary().clone();
    RunResult { summary, analysis: ledger.finish(session.policies()[index].text()) }
}
