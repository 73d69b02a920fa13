//! Panel 3: how the run went, the headline, the summary table, the downloads and the
//! charts; and the playback section.

use super::lessons::LessonWatch;
use crate::lessons::Lesson;
use crate::results::charts::{CommOverhead, JctCdf, JobsPerTier, OverTime};
use crate::results::exports::{Download, Exports};
use crate::results::feedback::RunDone;
use crate::results::gain_source::GainSourceLine;
use crate::results::summary_view::SummarySection;
use crate::results::tenants_view::TenantsSection;
use crate::results::Results;
use crate::state::link::Focus;
use crate::Shared;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ResultsPanelProps {
    pub results: Shared<Results>,
    pub running: bool,
    /// The last run that finished, timed.
    pub done: Option<RunDone>,
    pub on_download: Callback<Download>,
    /// Download `scenario.json` (the app writes it from the scenario).
    pub on_export_scenario: Callback<()>,
    /// `scenario.json` of the current scenario, for the zip.
    pub scenario_json: Callback<(), Option<String>>,
    /// A file that could not be written.
    pub on_error: Callback<String>,
    /// The lesson the results come from, its scenario unchanged: its "watch" is restated.
    #[prop_or_default]
    pub lesson: Option<&'static Lesson>,
    /// The scenario was edited since the run: the results are greyed and say so.
    #[prop_or_default]
    pub stale: bool,
}

/// How the run went, the headline and table, the downloads and the charts.
#[component]
pub fn ResultsPanel(props: &ResultsPanelProps) -> Html {
    let r = &props.results;
    let outcomes = &r.outcomes;
    let status = if props.running {
        format!("{} of {} policies finished…", outcomes.len(), r.policies.len())
    } else if r.cancelled {
        format!("Cancelled: {} of {} policies finished.", outcomes.len(), r.policies.len())
    } else if outcomes.is_empty() {
        "No results yet: choose policies and press Run.".to_string()
    } else if let Some(done) = props.done {
        format!("{}.", done.text())
    } else {
        String::new()
    };
    html! {
        <section id="results-panel" class="panel" tabindex="-1" aria-labelledby="results-title">
            <h2 id="results-title"><span class="step">{ "3" }</span>{ " Results" }</h2>
            <p class="status" role="status" data-testid="results-status">{ status }</p>
            if props.stale && !outcomes.is_empty() {
                <p class="stale-note" role="status" data-testid="results-stale">
                    { "These results are for the scenario before your edit: press Run to see the scenario as it is now." }
                </p>
            }
            if let Some(l) = props.lesson.filter(|_| !props.stale) {
                <LessonWatch lesson={l} />
            }
            <div class={classes!("results-body", props.stale.then_some("stale"))}>
            if !r.notes.is_empty() {
                <ul class="run-notes" data-testid="run-notes" aria-label="Notes on the run's inputs">
                    { for r.notes.iter().map(|n| run_note(n)) }
                </ul>
            }
            if !outcomes.is_empty() {
                <SummarySection outcomes={outcomes.clone()}
                                oversub={r.topology.as_deref().and_then(crate::scenario::cluster::max_oversubscription)} />
                <GainSourceLine results={r.clone()} />
                <TenantsSection outcomes={outcomes.clone()} />
            }
            <Exports results={r.clone()} on_download={props.on_download.clone()} scenario_json={props.scenario_json.clone()}
                     on_export_scenario={props.on_export_scenario.clone()} on_error={props.on_error.clone()} />
            if !outcomes.is_empty() {
                <JctCdf outcomes={outcomes.clone()} />
                <OverTime outcomes={outcomes.clone()} />
                <JobsPerTier outcomes={outcomes.clone()} />
                <CommOverhead outcomes={outcomes.clone()} />
            }
            </div>
        </section>
    }
}

/// One of the run's notes (`worker::run_notes`): a warning stands out from a note.
fn run_note(note: &str) -> Html {
    let (kind, text) = crate::results::summary::notes::run_note_parts(note);
    let label = if kind == "warning" { "Warning: " } else { "Note: " };
    html! { <li class={classes!("run-note", kind)} data-kind={kind}><strong>{ label }</strong>{ text.to_string() }</li> }
}

#[derive(Properties, PartialEq)]
pub struct PlaybackSectionProps {
    pub results: Shared<Results>,
    /// Where this run's playback opens, if a lesson, a link or the first screen asked.
    #[prop_or_default]
    pub focus: Option<Focus>,
    /// The what-if asked on one of the run's preemptions.
    #[prop_or_default]
    pub what_if: Option<crate::Shared<crate::what_if::PreemptWhatIf>>,
    #[prop_or_default]
    pub dispatch: Callback<crate::state::Action>,
}

/// The run played back: placements, delay timers and preemptions as they happened.
#[component]
pub fn PlaybackSection(props: &PlaybackSectionProps) -> Html {
    html! {
        <section id="playback" class="panel" tabindex="-1" aria-labelledby="playback-title">
            <h2 id="playback-title"><span class="step">{ "▶" }</span>{ " Watch the run" }</h2>
            <crate::playback::view::PlaybackPanel results={props.results.clone()} focus={props.focus.clone()}
                                                  what_if={props.what_if.clone()} dispatch={props.dispatch.clone()} />
        </section>
    }
}
