//! The page's panels: the views that read the page's [`crate::state::State`] or turn user
//! input into its [`crate::state::Action`]s (the scenario form, the run, the results and
//! playback sections), or into the callbacks the app gave them for effects
//! (reading a file, starting a run). A feature's views that need neither live in its
//! folder (`crate::challenge`, `crate::lessons`, `crate::link`, `crate::results`, …): they
//! send their feature's own actions, which the app turns into the page's.
//! Each renders what it is given (narrow props, compared cheaply). Text from users (file names, topology
//! names, policy specs) is only ever rendered as text nodes or attribute values, which
//! yew escapes.

mod intro;
mod results;
mod run;
mod scenario;

pub use intro::{where_and_what, Banners, Intro};
pub use results::{PlaybackSection, ResultsPanel};
pub use run::RunPanel;
pub use scenario::ScenarioPanel;

use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The value of the input an event came from.
fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}
