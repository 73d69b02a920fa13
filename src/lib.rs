//! Proxima in the browser: build a scenario (cluster, trace, policies), run it in a web
//! worker, compare the policies' results, export them and share the scenario as a link.
//!
//! The crate is a library plus two thin binaries: `src/main.rs` mounts [`App`] on the
//! page, and `src/bin/worker.rs` is the web worker that runs simulations. Tests in `tests/`
//! mount the app into nodes of their own and drive the reducer directly.
//!
//! - [`state`]: the page's state and its reducer (pure: no web API).
//! - [`protocol`] and [`runner`]: the worker's messages and what it does with them;
//!   [`eventlog`]: the compact event log runs send for playback, and the run's event hash.
//! - [`app`]: the component that wires state, worker and browser together.
//! - [`views`], [`charts`], [`topology_view`]: dumb views of the state.
//! - [`browser`]: the edges (local storage, URL, files, downloads, the worker, panics).

pub mod app;
pub mod browser;
pub mod charts;
pub mod editor;
pub mod eventlog;
pub mod intro;
pub mod intro_view;
pub mod playback;
pub mod playback_view;
pub mod protocol;
pub mod runner;
pub mod state;
pub mod topology_view;
pub mod views;

pub use app::App;

/// An `Rc` compared by identity rather than by value: for memo and effect dependencies
/// whose values are large (a cluster, a frame of playback) and only ever replaced.
pub struct Same<T>(pub std::rc::Rc<T>);

impl<T> PartialEq for Same<T> {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
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
