//! Calibrating the communication model against measured step times, and measuring its error.
//!
//! The input is a placements table in the format the Pollux artifact records (petuum/adaptdl
//! `osdi21-artifact`, `simulator/traces/<model>/placements.csv`): one row per measured
//! configuration of one model,
//!
//! ```text
//! placement,local_bsz,step_time,sync_time
//! 1,4,0.455,0.0137          one GPU, local batch 4
//! 22,8,1.98,1.21            two GPUs on each of two nodes
//! ```
//!
//! where `placement` lists the GPUs used on each node, `step_time` is the wall time of one
//! optimizer step and `sync_time` the part of it spent waiting for the gradient all-reduce
//! after the local backward pass ended (the exposed exchange plus any wait for slower
//! replicas).
//!
//! The model is the one the simulator runs ([`proxima_core::comm`]), per row:
//!
//! ```text
//! c     = c0 + c1 · b                                  compute on one GPU, local batch b
//! T     = 2(N−1)/N · τ_t + 2(N−1) · α_t                 t = intra if one node, else inter
//! step  = c(1 + σ(N^¼ − 1)) + max(0, T − ov · c(1 + σ(N^¼ − 1)))
//! sync  = step − c                                     comparable to the table's sync_time
//! ```
//!
//! `τ_t = S / B_t` is the time to push the gradient once through tier `t`'s ring bottleneck,
//! so a file calibrates without knowing the model's size `S`; with `S` the bandwidths follow.
//! The latencies `α` are fixed (0.01 ms and 0.05 ms): with gradients of tens of megabytes
//! and at most 16 GPUs the data cannot tell them from zero.
//!
//! Three fits, all minimising the mean squared log error `mean(ln²(pred / measured))` of
//! `step_time` (relative, symmetric, scale-free):
//! - [`calibrate_file`]: one file on its own ("Mode B" of the calibration study): compute
//!   curve by closed-form weighted least squares on the single-GPU rows, then a grid over
//!   `ov` and `σ`; for each grid point the loss separates into single-node rows (which see
//!   only `τ_intra`) and multi-node rows (only `τ_inter`), each a 1-D search (scan plus
//!   golden section), robust to the flat regions where all exchange is hidden; then a
//!   Nelder–Mead polish. A tier whose exchange the fit hides in every row is reported as
//!   not identified, with the largest `τ` that stays hidden.
//! - [`fit_shared`]: several models on one cluster: shared bandwidths and `σ`, overlap per
//!   model or shared, by Nelder–Mead; each model weighs the same.
//! - [`leave_one_out`]: for each model, [`fit_shared`] with one shared overlap on the others,
//!   then a prediction of it from only its single-GPU rows and its gradient size.
//!
//! Everything here is deterministic: rows are used in file order, sums run in that order,
//! grid points are exact multiples, ties go to the smaller parameter, and the only
//! transcendental functions are `libm`'s.
//!
//! Where things are: `samples.rs` reads the table, `compute.rs` fits the compute curve,
//! `rows.rs` holds the model on the rows, `file_fit.rs` the per-file fit, `shared.rs` the
//! fits across models, `cluster.rs` one cluster's figures from them (the Sia clusters,
//! `docs/CALIBRATION.md`), `errors.rs` the error tables, `report.rs` one file's fit as JSON.

mod cluster;
mod compute;
mod errors;
mod file_fit;
mod report;
mod rows;
mod samples;
mod shared;
#[cfg(test)]
mod tests;

pub use cluster::*;
pub use compute::*;
pub use errors::*;
pub use file_fit::*;
pub use report::*;
pub use rows::*;
pub use samples::*;
pub use shared::*;
// Shared between the fits, not part of the API.
use rows::{sum_sq, Row};

use proxima_core::comm::{ring_time, server_factor, step_time, straggler_growth};
use proxima_core::csv::{self, Table};
use proxima_core::error::InputError;
use proxima_core::model::ComputeCurve;
use serde::Serialize;

/// Latency of one ring step inside a node, seconds (fixed, see the module comment).
pub const ALPHA_INTRA_S: f64 = 1.0e-5;
/// Latency of one ring step between nodes, seconds (fixed).
pub const ALPHA_INTER_S: f64 = 5.0e-5;
