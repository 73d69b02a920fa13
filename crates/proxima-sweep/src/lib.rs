//! Sweeps of Proxima runs, shared by the `proxima sweep` command and the Python package:
//! a TOML spec whose `[grid]` axes multiply into runs ([`spec`], [`plan`]), each run with
//! a stable id derived from its parameters; an output folder that records each finished
//! run so an interrupted sweep resumes ([`store`]); a runner for this machine's cores
//! ([`runner`]); and the runs table, the same bytes whatever the order or the machines the
//! runs took ([`table`], CSV and Parquet).
//!
//! Unlike the core, this crate does IO (it reads specs and traces and writes results).

pub mod error;
pub mod fairness;
pub mod load;
pub mod parquet_out;
pub mod plan;
pub mod run;
pub mod runner;
pub mod spec;
pub mod store;
pub mod table;
pub mod tree;

pub use error::SourcedError;
pub use plan::{Paths, Plan, PlannedRun, RunInputs};
pub use spec::Spec;
pub use store::Store;
