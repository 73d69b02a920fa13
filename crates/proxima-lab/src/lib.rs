//! Proxima's lab: the experiment and the calibration, built on the simulation core.
//!
//! [`experiment`] says which runs make an experiment (the paper's plan), runs one task
//! through the core's run path and turns the finished runs into the report and its
//! figures' data. [`calibrate`] fits the core's communication model to measured step
//! times and validates the fit. Neither is part of a simulation, so the core does not
//! carry them: the web app, which simulates but neither experiments nor calibrates, builds
//! without this crate.
//!
//! Like the core, this crate is pure: callers hand it text and runs, and it returns data,
//! the same bytes on every machine. Reading files and spreading tasks over threads is the
//! native host's (`proxima-host`).

pub mod calibrate;
pub mod experiment;
pub mod what_if;
