//! `proxima experiment robust`: does the recommended policy stay close to the best fair
//! baseline across workloads, networks and loads (issue 31)?
//!
//! The grid ([`grid`]) crosses workload families (Philly windows, synthetic 2016-19
//! models, LLM-era jobs, a mix) with networks (thin TCP and RoCE, rail-optimised, fat, a
//! slice of Alibaba's Lingjun production topology, [`lingjun_slice`]) and loads; issue
//! 31's three scenarios are cells of their own. Each family and network is a development
//! or a held-out one, fixed before any run ([`plan`] builds one set's cells; the held-out
//! set runs only once the recommended policy's freeze is recorded). A Philly cell's load
//! is its cluster's size ([`sizing`]). The policies are data ([`policies`]).
//!
//! Runs go through the paper experiment's run path ([`run`]); [`regret`] turns them into
//! each policy's regret against the best fair baseline per cell, with the paper
//! experiment's bootstrap; [`verdict`] judges the protocol's targets, and `report.rs`,
//! `tables.rs` and [`figure`] make the report. As in the paper experiment, the caller
//! (the CLI) spreads the runs over threads and reads the files.

pub mod figure;
pub mod grid;
pub mod lingjun_slice;
pub mod plan;
pub mod policies;
pub mod regret;
mod report;
pub mod run;
pub mod sizing;
mod tables;
pub mod verdict;

pub use plan::{robust_plan, RobustPlan, RobustTask, FROZEN_AT};
pub use regret::{aggregate_robust, RobustReport};
pub use run::{cell_topologies, run_robust_task, RobustInputs};

#[cfg(test)]
mod tests;
