//! Proxima in the browser: build a scenario (cluster, trace, policies), run it in a web
//! worker, compare the policies' results, watch a run played back, export the results
//! and share the scenario as a link.
//!
//! The crate is a library plus two thin binaries: `src/main.rs` mounts [`App`] on the
//! page, and `src/bin/worker.rs` is the web worker that runs simulations and checks
//! traces. Tests in `tests/` mount components into nodes of their own and drive the
//! reducers directly.
//!
//! The page is arranged by feature. Each feature's folder holds its model (pure: no web
//! API, tested natively) and the views that render it; a model never imports a view:
//! - [`scenario`]: the scenario form (cluster, trace, fields as typed, the defaults).
//! - [`results`]: a run in progress, the last run's results, their metrics, tenants,
//!   charts, exports and where the gain comes from.
//! - [`playback`]: a run's state at any instant, derived from its event log, and the player.
//! - [`what_if`]: "had it not been preempted", a what-if on a preemption played back.
//! - [`challenge`]: "Be the scheduler", the challenge mode, and its views.
//! - [`lessons`]: the lessons, each a scenario and what it shows.
//! - [`tour`]: the guided introduction's runs, the facts it reads from them and its steps.
//! - [`editor`]: the topology editor's document, history, checks and drawing.
//! - [`your_cluster`]: an operator's nodes file and job history, summarised, and the
//!   what-if on them (its model, and its section of the page).
//! - [`glossary`]: the terms the page uses, each defined once, and their popovers.
//! - [`numbers`]: numbers for people (significant figures, durations, ratios).
//!
//! The page's state and what wires it together:
//! - [`state`]: the page's state, which holds the features' models, and the one reducer
//!   that changes it.
//! - [`panels`]: the views that read that state or dispatch its actions (the form, the
//!   run, the lessons, the link notice, the results and playback sections, the tour).
//! - [`app`]: the component that wires state, workers and browser together.
//! - [`browser`]: the edges (local storage, the URL, files, downloads, timers, the
//!   worker client, the panic hook).
//!
//! The worker and its messages:
//! - [`protocol`]: what crosses between page and worker, typed.
//! - [`worker`]: what the worker does with each request (runs, previews, trace checks).
//! - [`eventlog`]: the compact event log runs send for playback, and the run's event hash.
//!
//! The models and the page need the `app` feature (on by default); the worker's modules
//! do not, so the worker binary is built without it (see `Cargo.toml`).

#[cfg(feature = "app")]
pub mod app;
#[cfg(feature = "app")]
pub mod browser;
#[cfg(feature = "app")]
pub mod challenge;
pub mod codec;
#[cfg(feature = "app")]
pub mod editor;
pub mod eventlog;
#[cfg(feature = "app")]
pub mod glossary;
#[cfg(feature = "app")]
pub mod lessons;
#[cfg(feature = "app")]
pub mod numbers;
#[cfg(feature = "app")]
pub mod panels;
#[cfg(feature = "app")]
pub mod playback;
pub mod protocol;
#[cfg(feature = "app")]
pub mod results;
#[cfg(feature = "app")]
pub mod scenario;
#[cfg(feature = "app")]
pub mod state;
#[cfg(feature = "app")]
pub mod tour;
#[cfg(feature = "app")]
pub mod what_if;
pub mod worker;
#[cfg(feature = "app")]
pub mod your_cluster;

#[cfg(feature = "app")]
pub use app::App;

use std::rc::Rc;

/// A value shared between the state and the views, compared by identity.
///
/// Big parts of the state (a cluster, the editor with its undo history, a run's results,
/// a frame of playback) are never changed in place, only replaced, so two `Shared`s are
/// equal exactly when they are the same allocation. Deriving `PartialEq` on a struct
/// that holds them (props, memo dependencies, the state itself) then costs a pointer
/// comparison per field, never a walk through megabytes of results.
#[derive(Debug, Default)]
pub struct Shared<T>(Rc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Rc::new(value))
    }

    /// The value, for changing a copy of it (a clone only if someone else holds it too).
    pub fn make_mut(&mut self) -> &mut T
    where
        T: Clone,
    {
        Rc::make_mut(&mut self.0)
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> From<T> for Shared<T> {
    fn from(value: T) -> Self {
        Shared::new(value)
    }
}

impl<T> From<Rc<T>> for Shared<T> {
    fn from(value: Rc<T>) -> Self {
        Shared(value)
    }
}

/// A panic's message and place, for the page and the worker to report.
pub fn panic_message(info: &std::panic::PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    match info.location() {
        Some(l) => format!("{what} (at {}:{})", l.file(), l.line()),
        None => what,
    }
}
