//! Proxima's native host: what the pure core leaves to whoever runs it on a machine. It
//! reads files and tells a file argument from a preset or a spec ([`inputs`], the one path
//! by which the CLI, sweeps and the Python package turn arguments into the core's inputs),
//! runs finish-time fairness's isolated runs on threads ([`fairness`]), and runs sweeps: a
//! TOML spec whose `[grid]` axes multiply into runs ([`spec`], [`plan`]), each run with a
//! stable id derived from its parameters; an output folder that records each finished run
//! so an interrupted sweep resumes ([`store`]); a runner for this machine's cores
//! ([`runner`]); and the runs table, the same bytes whatever the order or the machines the
//! runs took ([`table`], CSV and Parquet).
//!
//! Unlike the core, this crate does IO and starts threads; it is not built for the browser.

pub mod error;
pub mod fairness;
pub mod inputs;
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
