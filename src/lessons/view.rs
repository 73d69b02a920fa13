//! The gallery of lessons: each a named scenario with what it shows and what to watch;
//! choosing one sends a [`LessonChoice`] (the app loads it into the form, or loads and runs
//! it; the lessons and their checked claims are in [`crate::lessons`]). Also the first
//! screen's button that runs the classic lesson, and the box that restates a lesson's
//! "watch" over its results.

use super::{Lesson, LessonChoice, LESSONS};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LessonsProps {
    pub on_choose: Callback<LessonChoice>,
}

/// The lessons, folded by default under the introduction.
#[component]
pub fn Lessons(props: &LessonsProps) -> Html {
    let act = |lesson: &'static Lesson, run: bool| props.on_choose.reform(move |_| LessonChoice { id: lesson.id, run });
    html! {
        <details class="lessons" data-testid="lessons">
            <summary>{ format!("Lessons: {} scenarios that each show one thing", LESSONS.len()) }</summary>
            <ol>
                { for LESSONS.iter().map(|l| html! {
                    <li data-lesson={l.id}>
                        <h3>{ l.title }</h3>
                        <p>{ l.explanation }</p>
                        <p class="hint"><strong>{ "Watch: " }</strong>{ l.watch }</p>
                        <p class="hint">{ format!("{} jobs at offered load {} on {}; policies {}.", l.jobs, l.load, l.topology.describe(), l.policies.join(", ")) }</p>
                        <div class="form-row">
                            <button type="button" class="primary" onclick={act(l, true)} data-testid={format!("lesson-run-{}", l.id)}>{ "Run this lesson" }</button>
                            <button type="button" onclick={act(l, false)} data-testid={format!("lesson-{}", l.id)}>{ "Load this lesson" }</button>
                        </div>
                    </li>
                }) }
            </ol>
        </details>
    }
}

#[derive(Properties, PartialEq)]
pub struct ClassicRunProps {
    /// Runs [`super::CLASSIC_LESSON`] (the app opens dally's playback at its first delay
    /// decision).
    pub on_run: Callback<()>,
}

/// The first screen's way in: runs the first lesson and opens dally's playback, paused at
/// its first delay decision (a job declining free scattered GPUs to wait for one server),
/// so a first visit sees the point without scrolling to Run (far below the fold) or
/// reading the form.
#[component]
pub fn ClassicRun(props: &ClassicRunProps) -> Html {
    let onclick = props.on_run.reform(|_: MouseEvent| ());
    html! {
        <p class="classic-run">
            <button type="button" class="primary" {onclick} data-testid="classic-run">
                { "▶ Run the classic comparison" }
            </button>
            <span class="hint">{ " fifo, consolidate and dally on a congested 32-GPU cluster; opens the playback where dally first declines free GPUs to wait for one server." }</span>
        </p>
    }
}

#[derive(Properties, PartialEq)]
pub struct LessonWatchProps {
    pub lesson: &'static Lesson,
}

/// "What to look for", over results that come from a lesson's scenario unchanged.
#[component]
pub fn LessonWatch(props: &LessonWatchProps) -> Html {
    let l = props.lesson;
    html! {
        <aside class="lesson-watch" data-testid="lesson-watch" data-lesson={l.id}>
            <h3>{ "What to look for" }</h3>
            <p><strong>{ l.title }</strong>{ ": " }{ l.watch }</p>
        </aside>
    }
}
