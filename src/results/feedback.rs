//! Feedback after a run: how long it took, measured in the page from the render that
//! showed it started to the render that showed it finished, and the results brought into
//! view with the keyboard focus on the player's Play button, so that Space plays the run
//! at once.

use super::Results;
use crate::Shared;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

/// A run that finished: how many policies ran and how long it took, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunDone {
    pub run_id: u32,
    pub policies: usize,
    pub seconds: f64,
}

impl RunDone {
    /// "Done: 3 policies in 0.9 s".
    pub fn text(&self) -> String {
        let s = self.seconds;
        let took = if s < 10.0 {
            format!("{s:.1} s")
        } else if s < 120.0 {
            format!("{s:.0} s")
        } else {
            format!("{:.1} min", s / 60.0)
        };
        format!("Done: {} polic{} in {took}", self.policies, if self.policies == 1 { "y" } else { "ies" })
    }
}

fn now_ms() -> f64 {
    gloo::utils::window().performance().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

/// The id of the element the results are brought into view at.
pub const RESULTS_TOP: &str = "results-panel";

/// The id of the playback section, brought into view instead for a run whose playback was
/// asked to open at a moment (the first screen's comparison, a lesson link's `t`).
pub const PLAYBACK_TOP: &str = "playback";

/// Times each run and, when one finishes (not when it is cancelled), moves the focus to
/// the player's Play button and scrolls `top` (the results, or the playback) into view.
/// Returns the last finished run.
#[hook]
pub fn use_run_feedback(results: &Shared<Results>, top: &'static str) -> Option<RunDone> {
    let started = use_mut_ref(|| (0u32, 0.0f64));
    let done = use_state(|| None::<RunDone>);
    {
        let started = started.clone();
        use_effect_with(results.run_id, move |&run_id| *started.borrow_mut() = (run_id, now_ms()));
    }
    {
        let done = done.clone();
        let (run_id, policies) = (results.run_id, results.outcomes.len());
        use_effect_with((run_id, results.finished), move |&(run_id, finished)| {
            let (id, t0) = *started.borrow();
            if finished && id == run_id && run_id != 0 {
                done.set(Some(RunDone { run_id, policies, seconds: (now_ms() - t0) / 1000.0 }));
                focus_play(top, PLAY_TRIES);
            }
        });
    }
    (*done).filter(|d| d.run_id == results.run_id)
}

/// How many times, 50 ms apart, the focus waits for the player to appear: it renders
/// once the run's event log has been decoded, a frame or a few after the results.
const PLAY_TRIES: u32 = 40;

/// Focuses the player's Play button, then scrolls `top` to the top of the window (the
/// focus scrolled to Play; the reader is shown `top`). Until the player appears, `top`
/// itself (it has `tabindex="-1"`) holds the focus, and the next tries move it on to Play
/// while it is still there (not once the reader has moved it); a run without an event log
/// leaves it on `top`.
fn focus_play(top: &'static str, tries: u32) {
    let document = gloo::utils::document();
    let element = |selector: &str| {
        document.query_selector(selector).ok().flatten().and_then(|e| e.dyn_into::<HtmlElement>().ok())
    };
    let (Some(top_el), play) = (element(&format!("#{top}")), element("#playback [data-testid=play-button]")) else {
        return;
    };
    let first = tries == PLAY_TRIES;
    let focus_on_top = document.active_element().is_some_and(|a| top_el.is_same_node(Some(&a)));
    match play {
        Some(play) if first || focus_on_top => {
            let _ = play.focus();
            top_el.scroll_into_view();
        }
        Some(_) => {}
        None if first => {
            let _ = top_el.focus();
            top_el.scroll_into_view();
            gloo::timers::callback::Timeout::new(50, move || focus_play(top, tries - 1)).forget();
        }
        None if focus_on_top && tries > 0 => {
            gloo::timers::callback::Timeout::new(50, move || focus_play(top, tries - 1)).forget();
        }
        None => {}
    }
}
