//! Helpers shared by the integration tests.

pub mod build;
mod data;
pub mod record;
pub mod sketch;

pub use data::*;
