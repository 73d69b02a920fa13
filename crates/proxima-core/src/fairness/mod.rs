//! Finish-time fairness ρ: each job's JCT in the shared cluster over its JCT when its
//! tenant's jobs run alone on a cluster the size of the tenant's quota ([`isolated`]), on a
//! share of whole servers ([`share`]).
//!
//! The per-tenant figures a run's summary holds without extra runs (Jain's index, slowdown,
//! preemptions) are metrics, in [`crate::metrics::per_tenant`]: they sit below the engine,
//! while the isolated runs here run the engine, so the two halves live apart. Every
//! definition, with its source, is in `docs/METRICS.md`.

pub mod isolated;
pub mod share;

#[cfg(test)]
mod tests;
