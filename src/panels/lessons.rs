//! The gallery of lessons: each a named scenario with what it shows and what to watch;
//! choosing one loads it into the form, or loads and runs it (the lessons and their
//! checked claims are in `crate::lessons`). Also the first screen's button that runs the
//! first lesson, the box that restates a lesson's "watch" over its results, and the box
//! that asks for a link's trace file.

use crate::lessons::{Lesson, LESSONS};
use crate::state::link::{Focus, FocusAt, PendingTrace};
use crate::state::Action;
use web_sys::File;
use yew::prelude::*;

/// The lesson the first screen's button runs: fifo, consolidate and dally on the default
/// cluster, the comparison the page is about.
pub const CLASSIC_LESSON: &str = "first-run";

#[derive(Properties, PartialEq)]
pub struct LessonsProps {
    pub dispatch: Callback<Action>,
}

/// The lessons, folded by default under the introduction.
#[component]
pub fn Lessons(props: &LessonsProps) -> Html {
    let act = |lesson: &'static Lesson, run: bool| {
        props.dispatch.reform(move |_| Action::Lesson { id: lesson.id.to_string(), run, focus: None })
    };
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
    pub dispatch: Callback<Action>,
}

/// The first screen's way in: runs the first lesson and opens dally's playback, paused at
/// its first delay decision (a job declining free scattered GPUs to wait for one server),
/// so a first visit sees the point without scrolling to Run (far below the fold) or
/// reading the form.
#[component]
pub fn ClassicRun(props: &ClassicRunProps) -> Html {
    let onclick = props.dispatch.reform(|_| Action::Lesson {
        id: CLASSIC_LESSON.to_string(),
        run: true,
        focus: Some(Focus {
            run_id: None,
            policy: Some("dally".into()),
            at: FocusAt::FirstMoment,
            job: None,
            scroll: true,
        }),
    });
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

#[derive(Properties, PartialEq)]
pub struct LinkTraceProps {
    pub pending: PendingTrace,
    pub on_trace_file: Callback<File>,
}

/// Asks for the trace file a link (or a saved scenario) names: the link cannot carry it.
#[component]
pub fn LinkTrace(props: &LinkTraceProps) -> Html {
    let p = &props.pending;
    let onchange = {
        let cb = props.on_trace_file.clone();
        Callback::from(move |e: Event| {
            if let Some(f) = super::scenario::take_file(&e) {
                cb.emit(f)
            }
        })
    };
    let text = match &p.hash {
        Some(h) => format!("This link's trace is {} (hash {h}): open it to run.", p.name),
        None => format!("This scenario's trace is {}: open it to use it; the generator stands in until then.", p.name),
    };
    html! {
        <aside class="link-trace" data-testid="link-trace" data-name={p.name.clone()} data-hash={p.hash.clone()}>
            <p>{ text }</p>
            <label class="file-button">{ format!("Open {}…", p.name) }
                <input type="file" accept=".csv,.json,text/csv,application/json" data-testid="link-trace-file" {onchange} />
            </label>
        </aside>
    }
}
