//! What the policies share, none of them a policy by itself: each policy in `policy/` is a
//! choice of these mechanisms and an order of its queue.
//!
//! - `placement.rs`: placement rules the baselines share (free GPUs under a node, the
//!   tightest tier with room, holders of a subtree, a random placement);
//! - `levels.rs`: representative placements per tier, and `profile.rs` what a policy knows
//!   of how fast a job runs on each (`profile=table|exact`, `profile_error`);
//! - `sensitivity.rs`: how much a job slows down when spread out, and the coolest placement
//!   within a tier;
//! - `runtime.rs`: what a policy may know of a job's remaining run time (`runtime=...`);
//! - `tuner.rs`: the auto-tuner of delay timers, and `level_timer.rs` the "required for T,
//!   then preferred" timer that `slurm`, `kueue-tas` and `volcano` hold a job with;
//! - `las.rs`: the discretised least-attained-service queues of `tiresias` and
//!   `dally:order=las`;
//! - `quota.rs`: quota-aware admission (`quota=on`, an option of every policy);
//! - `migrate.rs`: checkpoint-and-move defragmentation (`migrate=on` of `consolidate`,
//!   `slurm`, `kueue-tas`, `volcano`).

pub mod las;
pub mod level_timer;
pub mod levels;
pub mod migrate;
pub mod placement;
pub mod profile;
pub mod quota;
pub mod runtime;
pub mod sensitivity;
pub mod tuner;
