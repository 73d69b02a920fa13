//! Proxima's simulation core: topology, workloads, the communication model, the
//! discrete-event engine, the scheduling policies and the metrics, and the inputs every
//! front end turns into a scenario. The experiment and the calibration are built on it in
//! `proxima-lab`; reading files and running on threads is `proxima-host`'s.
//!
//! The core is pure: it does no IO (callers hand it text and receive data), reads no clock,
//! and draws randomness only from seeded [`rng::Rng`]s. That is what makes a run
//! reproducible bit for bit, natively and in WebAssembly. See `ARCHITECTURE.md`.

pub mod base64url;
pub mod cluster;
pub mod comm;
pub mod comm_params;
// The CSV reader the trace readers, the calibration and the Lingjun topology share. Public
// for the calibration's tables in `proxima-lab`, so that they forgive and refuse what the
// traces do; only the table reader and the number check are exported (`Table`, `Row`,
// `at`, `number`), the rest stays the core's.
pub mod csv;
pub mod efficiency;
pub mod engine;
pub mod error;
pub mod event;
pub mod fairness;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod inputs;
pub mod maxmin;
pub mod metrics;
pub mod model;
pub mod policy;
pub mod rng;
pub mod run;
pub mod run_files;
pub mod scenario;
pub mod session;
pub mod share;
pub mod tenants;
pub mod tier_counts;
pub mod time;
pub mod topology;
pub mod trace;
pub mod workload;

pub use cluster::JobId;
pub use engine::Simulation;
pub use error::InputError;
pub use scenario::Scenario;
pub use time::SimTime;
