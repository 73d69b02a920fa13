//! The core's integration tests, in one test binary (one build and one link instead of one per
//! file): each module is one subject, and `common` holds what they share.
//!
//! Run one subject with `cargo test -p proxima-core --test integration -- dally::`.

mod baselines;
mod common;
mod dally;
mod dally_estimate;
mod dally_las;
mod dally_service;
mod data_required;
mod fuzz_corpus;
mod golden;
mod invariants;
mod kueue_tas;
mod kueue_tas_options;
mod llm;
mod purity;
mod scenarios;
mod slurm_block_policy;
mod tenant_invariants;
mod tenants;
mod topologies;
mod traces;
mod volcano_policy;
