//! The page's links, as the URL's fragment carries them, parsed and written without any
//! web API (so they are tested natively):
//!
//! - `#s=CODE[&trace=NAME&hash=H]`: a scenario (a share code); a scenario whose jobs come
//!   from a trace file names the file and a short hash of its contents, since the link
//!   cannot carry the file: whoever opens it is asked for that file, and the hash tells
//!   them whether the file they chose is the author's;
//! - `#lesson=ID[&autoplay][&t=SECONDS][&job=N]`: a lesson of the gallery, run at once
//!   with `autoplay`, its playback opened at `t` with job `N` selected.

use super::lessons::{Lesson, LESSONS};
use super::State;
use proxima_core::share::TraceChoice;

/// A trace file as a link names it.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceRef {
    pub name: String,
    /// [`trace_hash`] of its bytes.
    pub hash: String,
}

/// What a fragment asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    Share { code: String, trace: Option<TraceRef> },
    Lesson { id: String, autoplay: bool, t: Option<f64>, job: Option<u32> },
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
        return Ok(Some(Link::Share { code, trace }));
    }
    let Some(id) = get("lesson") else { return Ok(None) };
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
    Ok(Some(Link::Lesson { id, autoplay: pairs.iter().any(|(k, _)| *k == "autoplay"), t, job }))
}

/// The fragment (with its `#`) of a link.
pub fn format_fragment(link: &Link) -> String {
    match link {
        Link::Share { code, trace } => {
            let mut out = format!("#s={code}");
            if let Some(t) = trace {
                out += &format!("&trace={}&hash={}", percent_encode(&t.name), percent_encode(&t.hash));
            }
            out
        }
        Link::Lesson { id, autoplay, t, job } => {
            let mut out = format!("#lesson={}", percent_encode(id));
            if *autoplay {
                out += "&autoplay";
            }
            if let Some(t) = t {
                out += &format!("&t={t}");
            }
            if let Some(j) = job {
                out += &format!("&job={j}");
            }
            out
        }
    }
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
        self.autorun = run;
        self.focus = focus;
    }

    /// Opens a link (one followed in this tab; a page opened on a link starts from
    /// [`super::startup`]).
    pub(super) fn open_link(&mut self, link: Link) {
        match link {
            Link::Share { code, trace } => match proxima_core::share::decode(&code) {
                Ok(scenario) => {
                    self.restore(&scenario);
                    self.notices.push("Restored the scenario from the link.".into());
                    self.link_trace(trace);
                }
                Err(e) => self.errors.push(format!("This share link could not be read: {e}.").into()),
            },
            Link::Lesson { id, autoplay, t, job } => {
                let focus = (t.is_some() || job.is_some()).then(|| Focus {
                    run_id: None,
                    policy: None,
                    at: FocusAt::Seconds(t.unwrap_or(0.0)),
                    job,
                    scroll: true,
                });
                self.open_lesson(&id, autoplay, focus);
            }
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
        let trace = match (&scenario.trace, &self.trace.uploaded) {
            (TraceChoice::Uploaded { .. }, Some(u)) => {
                u.preview.hash.clone().map(|hash| TraceRef { name: u.name.clone(), hash })
            }
            _ => None,
        };
        Some(format_fragment(&Link::Share { code: proxima_core::share::encode(&scenario), trace }))
    }

    /// What the URL's fragment should become now that the scenario changed: `None` to
    /// leave it (it has no link of ours, or its link still shows this scenario, or a
    /// link's trace file is still awaited), `Some("")` to clear it (a field is invalid),
    /// else the current scenario's link. So the address bar never shows an old scenario.
    pub fn fragment_after_edit(&self, fragment: &str) -> Option<String> {
        if self.pending_trace.is_some() {
            return None;
        }
        let linked = match parse_fragment(fragment) {
            Ok(Some(Link::Share { code, .. })) => proxima_core::share::decode(&code).ok(),
            Ok(Some(Link::Lesson { id, .. })) => lesson(&id).map(Lesson::scenario),
            Ok(None) | Err(_) => return None,
        };
        let current = self.shared_scenario();
        if current.is_some() && linked == current {
            // Unchanged; but a trace link made before the file was hashed gains its hash.
            return self.share_fragment().filter(|f| f != fragment && fragment.starts_with("#s="));
        }
        Some(self.share_fragment().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_links_name_their_trace_file_and_read_back() {
        let link = Link::Share {
            code: "1.eyJhIjoxfQ".into(),
            trace: Some(TraceRef { name: "philly week 1 & more#.csv".into(), hash: "0a1b2c3d".into() }),
        };
        let text = format_fragment(&link);
        assert_eq!(text, "#s=1.eyJhIjoxfQ&trace=philly%20week%201%20%26%20more%23.csv&hash=0a1b2c3d");
        assert_eq!(parse_fragment(&text), Ok(Some(link)));
        // Links made before trace names were added still read.
        assert_eq!(parse_fragment("#s=1.abc"), Ok(Some(Link::Share { code: "1.abc".into(), trace: None })));
        assert!(parse_fragment("#s=1.abc&trace=a.csv").is_err());
        // Other encoders' escapes, and a stray %.
        assert_eq!(percent_decode("a+b%2Fc%zz%e2%82%AC"), "a+b/c%zz€");
    }

    #[test]
    fn lesson_links_read_autoplay_time_and_job() {
        assert_eq!(
            parse_fragment("#lesson=light-load&autoplay&t=120.5&job=7"),
            Ok(Some(Link::Lesson { id: "light-load".into(), autoplay: true, t: Some(120.5), job: Some(7) }))
        );
        let plain = Link::Lesson { id: "first-run".into(), autoplay: false, t: None, job: None };
        assert_eq!(parse_fragment("lesson=first-run"), Ok(Some(plain.clone())));
        assert_eq!(format_fragment(&plain), "#lesson=first-run");
        let full = Link::Lesson { id: "wait-preempt".into(), autoplay: true, t: Some(30.0), job: Some(12) };
        assert_eq!(format_fragment(&full), "#lesson=wait-preempt&autoplay&t=30&job=12");
        assert_eq!(parse_fragment(&format_fragment(&full)), Ok(Some(full)));
        assert!(parse_fragment("#lesson=x&t=-1").unwrap_err().contains("'-1'"));
        assert!(parse_fragment("#lesson=x&job=one").unwrap_err().contains("'one'"));
        // Fragments that are not the page's links: ordinary anchors.
        assert_eq!(parse_fragment("#run-panel"), Ok(None));
        assert_eq!(parse_fragment(""), Ok(None));
    }

    #[test]
    fn the_trace_hash_is_short_stable_and_tells_files_apart() {
        // FNV-1a 64 of "" is the offset basis: its first 32 bits.
        assert_eq!(trace_hash(b""), "cbf29ce4");
        assert_eq!(trace_hash(b"job,gpus\n1,4\n").len(), 8);
        assert_ne!(trace_hash(b"job,gpus\n1,4\n"), trace_hash(b"job,gpus\n1,8\n"));
        assert!(lesson("light-load").is_some());
        assert!(lesson("no-such-lesson").is_none());
    }

    #[test]
    fn a_trace_link_waits_for_its_file_and_runs_it_once_the_hash_matches() {
        use super::super::{startup_from, Action};
        const TRACE: &[u8] = b"id,submit_s,gpus,model,duration_s\na,0,1,resnet50,600\nb,30,4,resnet50,1200\n";
        let s = State::default().apply(Action::SelectPreset("teaching".into()));
        let s = crate::state::trace::opened_and_checked(s, "t.csv", TRACE);
        assert_eq!(s.trace.uploaded.as_ref().unwrap().preview.hash.as_deref(), Some(trace_hash(TRACE).as_str()));
        let fragment = s.share_fragment().unwrap();
        assert!(fragment.ends_with(&format!("&trace=t.csv&hash={}", trace_hash(TRACE))), "{fragment}");
        // Opened elsewhere: the file is asked for by name and hash; nothing runs.
        let opened = startup_from(&fragment, None);
        assert_eq!(opened.pending_trace, Some(PendingTrace { name: "t.csv".into(), hash: Some(trace_hash(TRACE)) }));
        assert!(!opened.autorun);
        // While the file is awaited the address bar keeps the link.
        assert_eq!(opened.fragment_after_edit(&fragment), None);
        // Another file: said so, kept waiting, not run.
        let other = crate::state::trace::opened_and_checked(opened.clone(), "t.csv", &TRACE[..TRACE.len() - 1]);
        assert!(!other.autorun);
        assert!(other.pending_trace.is_some());
        assert!(other.errors.iter().any(|e| e.to_string().contains("is not the link's trace")), "{:?}", other.errors);
        // The link's file: loaded and run.
        let right = crate::state::trace::opened_and_checked(opened, "renamed.csv", TRACE);
        assert!(right.autorun);
        assert_eq!(right.pending_trace, None);
        assert_eq!(right.trace.mode, super::super::TraceMode::File);
        assert!(!right.apply(Action::AutorunTaken).autorun);
    }

    #[test]
    fn a_lesson_link_loads_runs_and_focuses_the_next_run() {
        use super::super::{startup_from, Action};
        let s = startup_from("#lesson=light-load&autoplay&t=90&job=4", None);
        assert!(s.autorun);
        assert_eq!(s.shared_scenario(), Some(lesson("light-load").unwrap().scenario()));
        let focus = s.focus.clone().unwrap();
        assert_eq!((focus.run_id, focus.at, focus.job), (None, FocusAt::Seconds(90.0), Some(4)));
        // The run it asked for takes the focus, and is known to be the lesson's.
        let (_, scenario) = s.run_request(9).unwrap();
        let s = s.apply(Action::AutorunTaken).apply(Action::RunStarted { run_id: 9, scenario });
        assert_eq!(s.focus.as_ref().unwrap().run_id, Some(9));
        assert_eq!(s.results.lesson, Some("light-load"));
        // A later run does not.
        let (_, scenario) = s.run_request(10).unwrap();
        assert_eq!(s.clone().apply(Action::RunStarted { run_id: 10, scenario }).focus, None);
        // The link is left while the scenario is the lesson's, and follows an edit.
        assert_eq!(s.fragment_after_edit("#lesson=light-load&autoplay"), None);
        let edited = s.apply(Action::SetSeed("2".into()));
        let f = edited.fragment_after_edit("#lesson=light-load&autoplay").unwrap();
        assert_eq!(f, edited.share_fragment().unwrap());
        assert_eq!(edited.fragment_after_edit(&f), None);
        // An invalid field clears it; a fragment that is no link of ours is left.
        let invalid = edited.apply(Action::SetSeed("x".into()));
        assert_eq!(invalid.fragment_after_edit(&f), Some(String::new()));
        assert_eq!(invalid.fragment_after_edit("#run-panel"), None);
        // An unknown lesson says so.
        let unknown = startup_from("#lesson=nope", None);
        assert!(unknown.errors[0].to_string().contains("no lesson"), "{:?}", unknown.errors);
        assert!(!unknown.autorun);
    }

    #[test]
    fn results_go_stale_when_the_scenario_is_edited_and_back_when_undone() {
        use super::super::Action;
        use crate::Shared;
        let s = State::default().apply(Action::Lesson { id: "shared-uplink".into(), run: true, focus: None });
        assert!(s.autorun);
        let (_, scenario) = s.run_request(3).unwrap();
        let mut s = s.apply(Action::RunStarted { run_id: 3, scenario });
        assert!(!s.results_stale(), "no outcomes yet");
        // Any outcome will do: staleness is about the scenario.
        let mut outcome = None;
        crate::worker::run_request(&crate::tour::request(1), &|| 0.0, &mut |m| {
            if let crate::protocol::FromWorker::PolicyDone { result, .. } = m {
                outcome.get_or_insert(Shared::new(*result));
            }
        });
        s.results.make_mut().outcomes.push(outcome.unwrap());
        assert!(!s.results_stale());
        assert_eq!(s.results.lesson, Some("shared-uplink"));
        let edited = s.clone().apply(Action::TogglePolicy("dally".into()));
        assert!(edited.results_stale());
        assert!(!edited.apply(Action::TogglePolicy("dally".into())).results_stale());
        assert!(s.apply(Action::SetSeed("".into())).results_stale(), "an invalid field");
    }
}
