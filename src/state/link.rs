//! The page's links, as the URL's fragment carries them, parsed and written without any
//! web API (so they are tested natively):
//!
//! - `#s=CODE[&trace=NAME&hash=H][&policy=P][&t=SECONDS][&job=N]`: a scenario (a share
//!   code); a scenario whose jobs come from a trace file names the file and a short hash
//!   of its contents, since the link cannot carry the file: whoever opens it is asked for
//!   that file, and the hash tells them whether the file they chose is the author's. With
//!   a moment (`policy`, `t`, `job`: "Link to this moment" in the playback) it runs at
//!   once and its playback opens there;
//! - `#lesson=ID[&autoplay][&policy=P][&t=SECONDS][&job=N]`: a lesson of the gallery, run
//!   at once with `autoplay`, its playback opened on policy `P` at `t` with job `N`
//!   selected;
//! - `#tour=N`: step `N` (from 1) of the guided introduction.

use super::State;
use crate::lessons::{Lesson, LESSONS};
use proxima_core::share::{SharedScenario, TraceChoice};

/// A trace file as a link names it.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceRef {
    pub name: String,
    /// [`trace_hash`] of its bytes.
    pub hash: String,
}

/// A moment of a run's playback as a link names it: the policy watched, the time and the
/// job selected (each may be left out).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkMoment {
    pub policy: Option<String>,
    pub t: Option<f64>,
    pub job: Option<u32>,
}

impl LinkMoment {
    pub fn is_empty(&self) -> bool {
        self.policy.is_none() && self.t.is_none() && self.job.is_none()
    }

    /// Where the next run's playback opens for this moment (`None` for no moment).
    pub fn focus(&self) -> Option<Focus> {
        (!self.is_empty()).then(|| Focus {
            run_id: None,
            policy: self.policy.clone(),
            at: FocusAt::Seconds(self.t.unwrap_or(0.0)),
            job: self.job,
            scroll: true,
        })
    }
}

/// What a fragment asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    Share {
        code: String,
        trace: Option<TraceRef>,
        moment: LinkMoment,
    },
    Lesson {
        id: String,
        autoplay: bool,
        moment: LinkMoment,
    },
    /// A step of the guided introduction, counted from 0 (the link counts from 1).
    Tour {
        step: usize,
    },
}

// The checks worker hashes a trace file as it checks it (the page never reads the file);
// the function lives with it, in the build the worker has too.
pub use crate::worker::trace_hash;

/// The link a fragment (`#...` or without its `#`) holds, if it is one of the page's:
/// `Err` names what is wrong with a link that is ours but broken.
pub fn parse_fragment(fragment: &str) -> Result<Option<Link>, String> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let pairs: Vec<(&str, Option<String>)> = fragment
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k, Some(percent_decode(v))),
            None => (p, None),
        })
        .collect();
    let get = |key: &str| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone().unwrap_or_default());
    if let Some(code) = get("s") {
        let trace = match (get("trace"), get("hash")) {
            (Some(name), Some(hash)) if !name.is_empty() && !hash.is_empty() => Some(TraceRef { name, hash }),
            (None, None) => None,
            _ => return Err("it names a trace file without its hash, or a hash without its file".into()),
        };
        return Ok(Some(Link::Share { code, trace, moment: parse_moment(&get)? }));
    }
    if let Some(step) = get("tour") {
        let steps = crate::tour::STEPS;
        return match step.parse::<usize>() {
            Ok(n) if (1..=steps).contains(&n) => Ok(Some(Link::Tour { step: n - 1 })),
            _ => Err(format!("tour must be a step of the introduction, 1 to {steps}, not '{step}'")),
        };
    }
    let Some(id) = get("lesson") else { return Ok(None) };
    let moment = parse_moment(&get)?;
    Ok(Some(Link::Lesson { id, autoplay: pairs.iter().any(|(k, _)| *k == "autoplay"), moment }))
}

/// The moment a link names (`policy`, `t`, `job`), from its fields as `get` reads them.
fn parse_moment(get: &dyn Fn(&str) -> Option<String>) -> Result<LinkMoment, String> {
    let t = match get("t") {
        Some(text) => match text.parse::<f64>() {
            Ok(t) if t.is_finite() && t >= 0.0 => Some(t),
            _ => return Err(format!("t must be a time in seconds, 0 or more, not '{text}'")),
        },
        None => None,
    };
    let job = match get("job") {
        Some(text) => Some(text.parse::<u32>().map_err(|_| format!("job must be a job number, not '{text}'"))?),
        None => None,
    };
    let policy = match get("policy") {
        Some(p) if p.trim().is_empty() => return Err("policy must name a policy of the run, not be empty".into()),
        p => p,
    };
    Ok(LinkMoment { policy, t, job })
}

/// The fragment (with its `#`) of a link.
pub fn format_fragment(link: &Link) -> String {
    let (mut out, moment) = match link {
        Link::Share { code, trace, moment } => {
            let mut out = format!("#s={code}");
            if let Some(t) = trace {
                out += &format!("&trace={}&hash={}", percent_encode(&t.name), percent_encode(&t.hash));
            }
            (out, moment)
        }
        Link::Lesson { id, autoplay, moment } => {
            let mut out = format!("#lesson={}", percent_encode(id));
            if *autoplay {
                out += "&autoplay";
            }
            (out, moment)
        }
        Link::Tour { step } => return format!("#tour={}", step + 1),
    };
    if let Some(p) = &moment.policy {
        out += &format!("&policy={}", percent_encode(p));
    }
    if let Some(t) = moment.t {
        // To the millisecond: the playback's clock shows no finer, and a link stays short.
        out += &format!("&t={}", (t * 1000.0).round() / 1000.0);
    }
    if let Some(j) = moment.job {
        out += &format!("&job={j}");
    }
    out
}

/// The lesson of this id.
pub fn lesson(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

/// Percent-encodes everything but the URL's unreserved characters, so that a file name
/// with spaces, `&` or `#` survives the fragment.
fn percent_encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out += &format!("%{b:02X}");
        }
    }
    out
}

/// Undoes [`percent_encode`] (and any other encoder's): a `%` not followed by two hex
/// digits stays as it is; bytes that are not UTF-8 become U+FFFD.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).and_then(|b| hex(*b)), bytes.get(i + 2).and_then(|b| hex(*b))) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where a run's playback opens, asked for before the run: a lesson link's `t` and `job`,
/// or the first screen's classic comparison at its first interesting moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Focus {
    /// The run it is for: `None` until the run starts (the next run takes it).
    pub run_id: Option<u32>,
    /// The policy to watch, if not the playback's default.
    pub policy: Option<String>,
    pub at: FocusAt,
    pub job: Option<u32>,
    /// Bring the playback into view when it opens.
    pub scroll: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FocusAt {
    Seconds(f64),
    /// The first delay decision (a job declining free GPUs to wait), or in a run without
    /// one the first delay-timer wait or preemption (`Playback::first_moment`).
    FirstMoment,
}

/// A trace file a scenario needs and the page does not have (a link or a saved scenario
/// names it; neither carries its bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct PendingTrace {
    pub name: String,
    /// The link's hash of it; `None` for a saved scenario (local storage keeps no hash).
    pub hash: Option<String>,
}

/// A scenario a link opened, until it is run: the page offers to run it (at the top, in
/// the notice that says where it came from), and says so when something replaces it
/// before it ran (the classic comparison, a lesson) with a way back.
#[derive(Clone, Debug, PartialEq)]
pub struct FromLink {
    pub scenario: SharedScenario,
    pub trace: Option<TraceRef>,
    /// What replaced it since (the lesson's title), if anything did.
    pub replaced_by: Option<String>,
}

/// What the notice of a scenario from a link can do.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkNoticeAction {
    /// Run the link's scenario (restoring it first if something replaced it).
    Run,
    Dismiss,
}

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
