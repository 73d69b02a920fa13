//! Tests of the page's links: parsing, formatting, and what opening one does.

use super::*;

fn at(policy: Option<&str>, t: Option<f64>, job: Option<u32>) -> LinkMoment {
    LinkMoment { policy: policy.map(str::to_string), t, job }
}

#[test]
fn share_links_name_their_trace_file_and_read_back() {
    let link = Link::Share {
        code: "1.eyJhIjoxfQ".into(),
        trace: Some(TraceRef { name: "philly week 1 & more#.csv".into(), hash: "0a1b2c3d".into() }),
        moment: LinkMoment::default(),
    };
    let text = format_fragment(&link);
    assert_eq!(text, "#s=1.eyJhIjoxfQ&trace=philly%20week%201%20%26%20more%23.csv&hash=0a1b2c3d");
    assert_eq!(parse_fragment(&text), Ok(Some(link)));
    // Links made before trace names were added still read.
    assert_eq!(
        parse_fragment("#s=1.abc"),
        Ok(Some(Link::Share { code: "1.abc".into(), trace: None, moment: LinkMoment::default() }))
    );
    assert!(parse_fragment("#s=1.abc&trace=a.csv").is_err());
    // Other encoders' escapes, and a stray %.
    assert_eq!(percent_decode("a+b%2Fc%zz%e2%82%AC"), "a+b/c%zz€");
}

#[test]
fn lesson_links_read_autoplay_time_and_job() {
    assert_eq!(
        parse_fragment("#lesson=light-load&autoplay&t=120.5&job=7"),
        Ok(Some(Link::Lesson { id: "light-load".into(), autoplay: true, moment: at(None, Some(120.5), Some(7)) }))
    );
    let plain = Link::Lesson { id: "first-run".into(), autoplay: false, moment: LinkMoment::default() };
    assert_eq!(parse_fragment("lesson=first-run"), Ok(Some(plain.clone())));
    assert_eq!(format_fragment(&plain), "#lesson=first-run");
    let full = Link::Lesson { id: "wait-preempt".into(), autoplay: true, moment: at(None, Some(30.0), Some(12)) };
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
    let s = crate::scenario::trace::opened_and_checked(s, "t.csv", TRACE);
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
    let other = crate::scenario::trace::opened_and_checked(opened.clone(), "t.csv", &TRACE[..TRACE.len() - 1]);
    assert!(!other.autorun);
    assert!(other.pending_trace.is_some());
    assert!(other.errors.iter().any(|e| e.to_string().contains("is not the link's trace")), "{:?}", other.errors);
    // The link's file: loaded and run.
    let right = crate::scenario::trace::opened_and_checked(opened, "renamed.csv", TRACE);
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

#[test]
fn moment_and_tour_links_read_back_and_refuse_what_they_cannot_open() {
    let link = "#s=1.abc&policy=consolidate&t=90.5&job=3";
    let Ok(Some(Link::Share { moment, .. })) = parse_fragment(link) else { panic!("{link}") };
    assert_eq!(moment, at(Some("consolidate"), Some(90.5), Some(3)));
    assert_eq!(
        moment.focus().map(|f| (f.policy, f.at, f.job, f.scroll)),
        Some((Some("consolidate".into()), FocusAt::Seconds(90.5), Some(3), true))
    );
    assert_eq!(LinkMoment::default().focus(), None);
    assert!(parse_fragment("#s=1.abc&policy=").unwrap_err().contains("policy"));
    assert!(parse_fragment("#s=1.abc&t=soon").unwrap_err().contains("'soon'"));
    assert_eq!(parse_fragment("#tour=1"), Ok(Some(Link::Tour { step: 0 })));
    assert_eq!(format_fragment(&Link::Tour { step: 4 }), "#tour=5");
    assert!(parse_fragment("#tour=0").unwrap_err().contains("1 to 5"));
    assert!(parse_fragment("#tour=6").is_err());
}

#[test]
fn a_shared_link_waits_for_run_it_and_a_moment_link_runs_at_its_moment() {
    use super::super::{startup_from, Action};
    let s = State::default().apply(Action::SelectPreset("teaching".into())).apply(Action::SetSeed("4".into()));
    let fragment = s.share_fragment().unwrap();
    let scenario = s.shared_scenario().unwrap();
    // A plain link: restored, not run, its notice offers to run it.
    let opened = startup_from(&fragment, None);
    assert!(!opened.autorun);
    assert_eq!(opened.from_link.as_ref().map(|l| &l.scenario), Some(&scenario));
    let run = opened.clone().apply(Action::LinkNotice(LinkNoticeAction::Run));
    assert!(run.autorun);
    // Once its run starts the notice goes.
    let (_, ran) = run.run_request(5).unwrap();
    assert_eq!(ran, scenario);
    assert_eq!(run.apply(Action::RunStarted { run_id: 5, scenario: ran }).from_link, None);
    // The classic comparison replaces it: said, and the notice brings it back and runs it.
    let classic = opened.apply(Action::Lesson { id: "first-run".into(), run: true, focus: None });
    let replaced = classic.from_link.as_ref().unwrap();
    assert!(replaced.replaced_by.is_some(), "{replaced:?}");
    let back = classic.apply(Action::AutorunTaken).apply(Action::LinkNotice(LinkNoticeAction::Run));
    assert_eq!(back.shared_scenario(), Some(scenario.clone()));
    assert!(back.autorun && back.focus.is_none());
    assert_eq!(back.from_link.as_ref().unwrap().replaced_by, None);
    assert_eq!(back.apply(Action::LinkNotice(LinkNoticeAction::Dismiss)).from_link, None);
    // A moment link runs at once, its playback opening on the policy, time and job.
    let moment = startup_from(&format!("{fragment}&policy=consolidate&t=42&job=2"), None);
    assert!(moment.autorun);
    let focus = moment.focus.clone().unwrap();
    assert_eq!((focus.policy.as_deref(), focus.at, focus.job), (Some("consolidate"), FocusAt::Seconds(42.0), Some(2)));
    assert_eq!(moment.shared_scenario(), Some(scenario));
    // Its moment stays in the address bar while the scenario is unchanged.
    assert_eq!(moment.fragment_after_edit(&format!("{fragment}&policy=consolidate&t=42&job=2")), None);
}

#[test]
fn the_results_link_to_their_lesson_or_scenario_and_the_tour_shares_its_step() {
    use super::super::{startup_from, Action};
    use crate::tour::TourAction;
    // The default scenario is the first lesson's: another seed makes it no lesson's.
    let s = State::default().apply(Action::SetSeed("2".into()));
    assert_eq!(s.results_link(), None, "nothing run yet");
    let (_, scenario) = s.run_request(1).unwrap();
    let s = s.apply(Action::RunStarted { run_id: 1, scenario: scenario.clone() });
    let code = proxima_core::share::encode(&scenario);
    assert_eq!(s.results_link(), Some(Link::Share { code, trace: None, moment: LinkMoment::default() }));
    let lesson = startup_from("#lesson=light-load&autoplay", None);
    let (_, scenario) = lesson.run_request(2).unwrap();
    let lesson = lesson.apply(Action::RunStarted { run_id: 2, scenario });
    assert_eq!(
        lesson.results_link(),
        Some(Link::Lesson { id: "light-load".into(), autoplay: true, moment: LinkMoment::default() })
    );
    // The tour open: Share links to its step.
    let touring =
        s.clone().apply(Action::Tour(TourAction::Started { run_id: 7 })).apply(Action::Tour(TourAction::Step(2)));
    assert_eq!(touring.page_fragment().as_deref(), Some("#tour=3"));
    assert_eq!(s.page_fragment(), s.share_fragment());
    // A tour link asks for the tour; its runs open at the step; the address bar keeps it.
    let linked = startup_from("#tour=4", None);
    assert_eq!(linked.tour_link, Some(3));
    assert_eq!(linked.fragment_after_edit("#tour=4"), None);
    let started = linked.apply(Action::Tour(TourAction::Started { run_id: 9 }));
    assert_eq!((started.tour.as_ref().map(|t| t.step), started.tour_link), (Some(3), None));
    // Followed in a tab whose tour is open: it goes to the step.
    let moved = started.apply(Action::OpenLink(Link::Tour { step: 1 }));
    assert_eq!(moved.tour.as_ref().map(|t| t.step), Some(1));
}
