//! The scenario form, as data: the cluster ([`cluster`]: presets, parametric fields, the
//! editor's topology), the trace ([`trace`]: generated or a file, and the worker's
//! descriptions of it), the fields as typed with their errors ([`fields`]), and the first
//! run's scenario with the clusters the lessons share with it ([`defaults`]).
//!
//! Pure models, no web API: the page's [`crate::state::State`] holds them and its reducer
//! changes them; the form's view is [`crate::panels::ScenarioPanel`].

pub mod cluster;
pub mod defaults;
pub mod fields;
pub mod trace;

pub use cluster::Cluster;
pub use fields::{Field, GenField, GeneratorFields, ParamField, ParametricFields, MAX_APP_JOBS};
pub use trace::{too_large, LoadedTrace, TraceForm, TraceMode, MAX_TRACE_BYTES};
