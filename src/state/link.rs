//! What opening a link ([`crate::link`]) does to the page's [`State`]: a lesson loaded, a
//! shared scenario restored and offered to run, a tour step opened; and the link that
//! says what the page shows now.

use super::State;
use crate::lessons::Lesson;
use crate::link::{
    format_fragment, lesson, parse_fragment, Focus, FromLink, Link, LinkMoment, LinkNoticeAction, TraceRef,
};
use proxima_core::share::{SharedScenario, TraceChoice};

impl State {
    /// Loads a lesson, to run at once if `run` (with its playback opening at `focus`).
    pub(super) fn open_lesson(&mut self, id: &str, run: bool, focus: Option<Focus>) {
        let Some(l) = lesson(id) else {
            self.errors.push(format!("There is no lesson \u{201c}{id}\u{201d} in this version of Proxima.").into());
            return;
        };
        self.restore(&l.scenario());
        self.notices.push(if run {
            format!("Running the lesson \u{201c}{}\u{201d}.", l.title)
        } else {
            format!("Loaded the lesson \u{201c}{}\u{201d}: press Run to see it.", l.title)
        });
        // A link's scenario not run yet is replaced: said in its notice, which offers it back.
        if let Some(linked) = &mut self.from_link {
            if linked.scenario != l.scenario() {
                linked.replaced_by = Some(l.title.to_string());
            }
        }
        self.autorun = run;
        self.focus = focus;
    }

    /// Opens a link (one followed in this tab; a page opened on a link starts from
    /// [`super::startup`], which comes here for all but a plain share link).
    pub(super) fn open_link(&mut self, link: Link) {
        match link {
            Link::Share { code, trace, moment } => match proxima_core::share::decode(&code) {
                Ok(scenario) => self.open_shared(scenario, trace, moment),
                Err(e) => self.errors.push(format!("This share link could not be read: {e}.").into()),
            },
            Link::Lesson { id, autoplay, moment } => self.open_lesson(&id, autoplay, moment.focus()),
            Link::Tour { step } => match &mut self.tour {
                Some(tour) if tour.error.is_none() => tour.make_mut().go_to(step),
                // The app starts the tour's runs, then opens this step.
                _ => self.tour_link = Some(step),
            },
        }
    }

    /// A scenario from a link: restored, and offered to run (the notice's "Run it"), or
    /// run at once when the link names a moment of its playback.
    pub(super) fn open_shared(&mut self, scenario: SharedScenario, trace: Option<TraceRef>, moment: LinkMoment) {
        self.restore(&scenario);
        self.from_link = Some(FromLink { scenario, trace: None, replaced_by: None });
        self.link_details(trace, moment);
    }

    /// The rest of a share link, once its scenario is restored (and in
    /// [`State::from_link`]): the trace file it names, and the moment to open its playback
    /// at, if it names one (it then runs at once).
    pub(super) fn link_details(&mut self, trace: Option<TraceRef>, moment: LinkMoment) {
        self.link_trace(trace.clone());
        if let Some(linked) = &mut self.from_link {
            linked.trace = trace;
        }
        if let Some(focus) = moment.focus() {
            self.focus = Some(focus);
            // A trace file still awaited runs once it is opened (`pending_trace_loaded`).
            self.autorun = self.pending_trace.is_none();
        }
    }

    /// The notice of a scenario from a link was used.
    pub(super) fn link_notice(&mut self, action: LinkNoticeAction) {
        match action {
            LinkNoticeAction::Dismiss => self.from_link = None,
            LinkNoticeAction::Run => {
                let Some(linked) = self.from_link.clone() else { return };
                if linked.replaced_by.is_some() || self.shared_scenario().as_ref() != Some(&linked.scenario) {
                    self.restore(&linked.scenario);
                    self.link_trace(linked.trace.clone());
                    // A focus asked for by what replaced it is not this run's.
                    self.focus = None;
                }
                if let Some(l) = &mut self.from_link {
                    l.replaced_by = None;
                }
                // Without its trace file it cannot run: the page asks for the file.
                self.autorun = self.pending_trace.is_none();
            }
        }
    }

    /// A run started on `scenario`: a link's scenario, once run, needs no notice.
    pub(super) fn link_ran(&mut self, scenario: &SharedScenario) {
        if self.from_link.as_ref().is_some_and(|l| l.scenario == *scenario) {
            self.from_link = None;
        }
    }

    /// The link's name and hash of the trace file its scenario needs.
    pub(super) fn link_trace(&mut self, trace: Option<TraceRef>) {
        if let (Some(pending), Some(t)) = (&mut self.pending_trace, trace) {
            if pending.name == t.name {
                pending.hash = Some(t.hash);
            }
        }
    }

    /// A trace file was loaded (`name`, hashed `hash`) while the scenario waited for one:
    /// the link's file runs at once; another file is kept, said to be another.
    pub(super) fn pending_trace_loaded(&mut self, name: &str, hash: Option<&str>) {
        let Some(pending) = self.pending_trace.take() else { return };
        match (&pending.hash, hash) {
            (Some(wanted), Some(got)) if wanted == got => self.autorun = true,
            (Some(wanted), got) => {
                self.errors.push(
                    format!(
                        "{name} is not the link's trace: its hash is {}, the link's file {} has {wanted}. \
                         It is loaded; open the link's file to see the link's results.",
                        got.unwrap_or("unknown"),
                        pending.name
                    )
                    .into(),
                );
                self.pending_trace = Some(pending);
            }
            // A saved scenario's file: no hash to check, and nothing run unasked.
            (None, _) => {}
        }
    }

    /// The fragment of a link to the current scenario (`None` while a field is invalid):
    /// a trace file is named with its hash.
    pub fn share_fragment(&self) -> Option<String> {
        let scenario = self.shared_scenario()?;
        let trace = self.trace_ref(&scenario);
        Some(format_fragment(&Link::Share {
            code: proxima_core::share::encode(&scenario),
            trace,
            moment: LinkMoment::default(),
        }))
    }

    /// What the Share button links to: the tour's step while the tour is open (that is
    /// what is on screen), else the scenario ([`State::share_fragment`]).
    pub fn page_fragment(&self) -> Option<String> {
        match &self.tour {
            Some(tour) if tour.error.is_none() => Some(format_fragment(&Link::Tour { step: tour.step })),
            _ => self.share_fragment(),
        }
    }

    /// The link that reruns the results on screen, without a moment: their lesson's, if
    /// they are a lesson's unchanged, else their scenario's (`None` before any run).
    pub fn results_link(&self) -> Option<Link> {
        let scenario = self.results.scenario.as_ref()?;
        Some(match self.results.lesson {
            Some(id) => Link::Lesson { id: id.to_string(), autoplay: true, moment: LinkMoment::default() },
            None => Link::Share {
                code: proxima_core::share::encode(scenario),
                trace: self.trace_ref(scenario),
                moment: LinkMoment::default(),
            },
        })
    }

    /// The trace file a scenario runs, as a link names it (the page's file, if it is the
    /// one the scenario names and it was hashed).
    fn trace_ref(&self, scenario: &SharedScenario) -> Option<TraceRef> {
        match (&scenario.trace, &self.trace.uploaded) {
            (TraceChoice::Uploaded { name }, Some(u)) if u.name == *name => {
                u.preview.hash.clone().map(|hash| TraceRef { name: u.name.clone(), hash })
            }
            _ => None,
        }
    }

    /// What the URL's fragment should become now that the scenario changed: `None` to
    /// leave it (it has no link of ours, or its link still shows this scenario, or a
    /// link's trace file is still awaited, or it is the open tour's), `Some("")` to clear
    /// it (a field is invalid), else the current scenario's link. So the address bar
    /// never shows an old scenario.
    pub fn fragment_after_edit(&self, fragment: &str) -> Option<String> {
        if self.pending_trace.is_some() {
            return None;
        }
        let link = match parse_fragment(fragment) {
            Ok(Some(link)) => link,
            Ok(None) | Err(_) => return None,
        };
        let linked = match &link {
            Link::Share { code, .. } => proxima_core::share::decode(code).ok(),
            Link::Lesson { id, .. } => lesson(id).map(Lesson::scenario),
            Link::Tour { .. } if self.tour.is_some() || self.tour_link.is_some() => return None,
            Link::Tour { .. } => None,
        };
        let current = self.shared_scenario();
        if current.is_some() && linked == current {
            // Unchanged; but a trace link made before the file was hashed gains its hash
            // (and keeps its moment).
            return match (link, current.and_then(|c| self.trace_ref(&c))) {
                (Link::Share { code, trace: None, moment }, Some(trace)) => {
                    Some(format_fragment(&Link::Share { code, trace: Some(trace), moment }))
                }
                _ => None,
            };
        }
        Some(self.share_fragment().unwrap_or_default())
    }
}

#[cfg(test)]
#[path = "link_tests.rs"]
mod tests;
