//! The gallery of lessons: each a named scenario with what it shows and what to watch;
//! choosing one loads it into the form (the lessons and their checked claims are in
//! `state::lessons`).

use crate::state::lessons::{Lesson, LESSONS};
use crate::state::Action;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LessonsProps {
    pub dispatch: Callback<Action>,
}

/// The lessons, folded by default under the introduction.
#[component]
pub fn Lessons(props: &LessonsProps) -> Html {
    let load = |lesson: &'static Lesson| {
        props.dispatch.reform(move |_| Action::Restore {
            scenario: lesson.scenario(),
            notice: Some(format!("Loaded the lesson \u{201c}{}\u{201d}: press Run to see it.", lesson.title)),
        })
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
                        <button type="button" onclick={load(l)} data-testid={format!("lesson-{}", l.id)}>{ "Load this lesson" }</button>
                    </li>
                }) }
            </ol>
        </details>
    }
}
