//! The page's panels. Each renders what it is given (narrow props, compared cheaply) and
//! turns user input into [`crate::state::Action`]s or into the callbacks the app gave it
//! for effects (reading a file, starting a run). Text from users (file names, topology
//! names, policy specs) is only ever rendered as text nodes or attribute values, which
//! yew escapes.

mod challenge;
mod challenge_end;
mod exports;
mod feedback;
mod gain_source;
mod glossary;
mod intro;
mod lessons;
mod link_notice;
mod results;
mod run;
mod scenario;
mod summary;
mod tenants;
mod tour;

pub use challenge::ChallengeMode;
pub use exports::Download;
pub use feedback::{use_run_feedback, RunDone, PLAYBACK_TOP, RESULTS_TOP};
pub use glossary::glossary;
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
