//! The page's panels: the views that read the page's [`crate::state::State`] or turn user
//! input into its [`crate::state::Action`]s (the scenario form, the run, the lessons, the
//! link notice, the results and playback sections, the tour), or into the callbacks the
//! app gave them for effects (reading a file, starting a run). A feature's views that need
//! neither live in its folder (`crate::challenge`, `crate::results`, `crate::glossary`).
//! Each renders what it is given (narrow props, compared cheaply). Text from users (file names, topology
//! names, policy specs) is only ever rendered as text nodes or attribute values, which
//! yew escapes.

mod intro;
mod lessons;
mod link_notice;
mod results;
mod run;
mod scenario;
mod tour;

pub use intro::{where_and_what, Banners, Intro};
pub use lessons::{ClassicRun, LessonWatch, Lessons, LinkTrace};
pub use link_notice::{link_notice, LinkNotice};
pub use results::{PlaybackSection, ResultsPanel};
pub use run::RunPanel;
pub use scenario::ScenarioPanel;
pub use tour::TourView;

use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The value of the input an event came from.
fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}
