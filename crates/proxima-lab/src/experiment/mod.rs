//! Experiments as data: which scenarios, policies, seeds, sweeps and oracle grids to run
//! ([`plan`], [`paper`]), one run from its definition to its figures ([`execute`]), and how
//! runs become the report: statistics over seeds and windows ([`stats`]), the primary
//! claims and their correction ([`claims`], their section of the report in
//! `claims_report.rs`), the finished runs indexed by task (`results.rs`), aggregation
//! ([`aggregate`]),
//! the per-tenant table ([`tenant_table`]), the figures' data ([`figures`]) and the text of `report.md` and `report.json`
//! ([`report`]).
//!
//! Running the plan is the caller's business (the CLI spreads runs over every core): this
//! module says what to run, runs one task when asked, and aggregates what came back, so
//! the report is a pure function of the runs.

pub mod aggregate;
mod candidate;
pub mod claims;
mod claims_report;
pub mod execute;
mod fairness_report;
pub mod figures;
pub mod paper;
mod paper_workloads;
pub mod placement_map;
pub mod plan;
pub mod report;
mod results;
pub mod robust;
mod scenario;
pub mod stats;
pub mod tenant_table;

pub use aggregate::{aggregate, Report};
pub use execute::{run_task, TaskResult, METRICS, RHO_METRICS};
pub use paper::paper_plan;
pub use plan::{CandidateDef, ClaimDef, Plan, ScenarioDef, ScenarioSet, Task, TraceRef};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_overhead;
#[cfg(test)]
mod tests_tenants;
#[cfg(test)]
mod tests_windows;
