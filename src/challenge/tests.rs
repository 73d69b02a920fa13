//! The challenge's model, natively: a whole game played through its acts.

use super::*;
use crate::challenge::end::{figure_svg, Guess, WhatIfKind, YOU};

/// Plays until the end, placing each decision's first job that fits on the GPUs around the
/// first free one (what a drag onto the first free GPU does).
fn play_tight(c: &mut Challenge) {
    for _ in 0..200 {
        if c.snap.finished {
            return;
        }
        let free = c.snap.free();
        let first_free = c.snap.owner.iter().position(Option::is_none).unwrap() as u32;
        let job = c.snap.queue.iter().find(|j| j.gpus <= free).unwrap().id;
        c.apply(Act::Grab(job));
        c.apply(Act::Drop(first_free));
        assert!(matches!(c.preview, Some(Ok(_))), "{:?}", c.preview);
        c.apply(Act::Place);
        assert_eq!(c.error, None);
    }
    panic!("the game did not end");
}

#[test]
fn the_scenario_builds_and_starts_at_a_decision() {
    let c = Challenge::new(Screen::Desktop);
    assert_eq!(c.error, None);
    assert_eq!(c.snap.owner.len(), 16);
    assert_eq!(c.snap.rack, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(c.snap.server[4..8], [1, 1, 1, 1]);
    let queued: Vec<&str> = c.snap.queue.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(queued, ["1", "2", "3"]);
    assert_eq!(c.snap.coming.len(), 7);
    assert!(c.clock.on);
    assert!(!Challenge::new(Screen::Projector).clock.on, "projector mode starts without the clock");
    assert!(!Challenge::new(Screen::Touch).clock.on, "a touch screen starts without the clock");
    assert!(Screen::Touch.clock_off_why().is_some_and(|w| w.contains("touch")), "and says why");
}

#[test]
fn a_drop_takes_the_nearest_free_gpus_and_shows_the_slowdown_first() {
    let mut c = Challenge::new(Screen::Desktop);
    c.apply(Act::Grab(0));
    c.apply(Act::Hover(5));
    assert_eq!(c.picked, [4, 5, 6]);
    let tight = match &c.preview {
        Some(Ok(p)) => p.slowdown,
        other => panic!("{other:?}"),
    };
    assert!((tight - 1.0).abs() < 1e-9);
    // Three GPUs picked one by one across both racks: slower, said before placing.
    c.apply(Act::Drop(5));
    c.apply(Act::Clear);
    for g in [0, 4, 8] {
        c.apply(Act::Toggle(g));
    }
    let spread = match &c.preview {
        Some(Ok(p)) => (p.slowdown, p.spans.clone()),
        other => panic!("{other:?}"),
    };
    assert!(spread.0 > 1.2, "{spread:?}");
    assert_eq!(spread.1, "both racks");
    c.apply(Act::Place);
    assert_eq!(c.made.len(), 1);
    assert!(c.made[0].text.starts_with("job 1 on GPUs 0, 4, 8 (both racks, "), "{}", c.made[0].text);
    assert_eq!(c.snap.owner[4], Some(0));
}

#[test]
fn waiting_moves_to_the_next_event_and_the_clock_decides_when_it_runs_out() {
    let mut c = Challenge::new(Screen::Desktop);
    c.apply(Act::Wait);
    assert_eq!(c.snap.now_s, 60.0, "job 4 arrives at 60 s");
    for _ in 0..DECISION_SECONDS {
        c.apply(Act::Tick);
    }
    assert_eq!(c.made.len(), 2);
    assert_eq!(c.made[1].text, "time ran out: waited");
    c.apply(Act::ClockPaused(true));
    c.apply(Act::Tick);
    assert_eq!(c.clock.left, DECISION_SECONDS);
}

#[test]
fn a_whole_game_ends_in_a_prediction_then_the_comparison_and_what_ifs() {
    let mut c = Challenge::new(Screen::Desktop);
    play_tight(&mut c);
    let end = c.end.clone().expect("the game ended");
    assert!(end.you_s > 0.0);
    assert_eq!(end.rivals.len(), 3);

    // Nothing is revealed before a prediction.
    c.apply(Act::Reveal);
    assert!(!c.end.as_ref().unwrap().revealed);
    c.apply(Act::Predict(YOU.into()));
    c.apply(Act::Reveal);
    let end = c.end.clone().unwrap();
    assert!(end.revealed);
    assert!(end.prediction_right().is_some());
    assert_eq!(end.ranking().len(), 4);
    // What if the first decision had waited 90 s: every job's start moves, so later.
    c.apply(Act::WhatIf(0, WhatIfKind::Wait90));
    let w = c.end.as_ref().unwrap().what_if.clone().unwrap();
    let r = w.run.clone().unwrap();
    assert!(r.avg_jct_s > end.you_s, "{} vs {}", r.avg_jct_s, end.you_s);
    c.apply(Act::Guess(Guess::Later));
    c.apply(Act::Guess(Guess::Sooner));
    assert_eq!(c.end.as_ref().unwrap().what_if.as_ref().unwrap().guess, Some(Guess::Later), "a guess is final");
    let svg = figure_svg(c.end.as_ref().unwrap());
    assert!(svg.starts_with("<svg") && svg.contains(">you<") && svg.contains(">dally<"), "{svg}");
    assert!(svg.contains("what-if on decision 1"));
    c.apply(Act::WhatIf(1, WhatIfKind::Skip));
    assert!(c.end.as_ref().unwrap().what_if.as_ref().unwrap().run.is_ok());
}

#[test]
fn print_the_replay_time_per_decision() {
    // Not a check: the figure quoted in docs/APP.md (`cargo test -p proxima-web --release
    // challenge -- --nocapture`).
    let mut c = Challenge::new(Screen::Desktop);
    play_tight(&mut c);
    let choices = c.choices();
    let s = scenario().unwrap();
    let start = std::time::Instant::now();
    let n = 200;
    for _ in 0..n {
        let r = replay_run::replay(s.clone(), &choices, AfterChoices::Pause).unwrap();
        assert_eq!(r.stop, Stop::Finished);
    }
    let per = start.elapsed().as_secs_f64() / n as f64;
    let r = replay_run::replay(s.clone(), &choices, AfterChoices::Pause).unwrap();
    assert_eq!(mean_jct(&r.sim), (r.sim.summary().jobs_completed, r.sim.summary().avg_jct_s), "the summary's mean JCT");
    eprintln!("challenge: a full replay of {} decisions takes {:.1} µs", choices.len(), per * 1e6);
    let ranking = c.end.unwrap().ranking();
    eprintln!("challenge: mean JCT, tight play and the rivals: {ranking:?}");
}

#[test]
fn the_rivals_figures_are_the_cores() {
    for (policy, jct) in RIVALS {
        let mut sim = proxima_core::session::Session::of_one(scenario().unwrap(), policy).unwrap().simulation(0);
        assert_eq!(sim.run().avg_jct_s, jct, "{policy}");
    }
}

#[test]
fn the_scenario_is_the_clis() {
    use proxima_core::inputs::{build_scenario, ScenarioInput, TopologyInput, TraceInput};
    let input = ScenarioInput::new(
        TopologyInput::Argument(TOPOLOGY.into()),
        TraceInput::File { name: TRACE_NAME.into(), text: TRACE.into() },
        SEED,
    );
    let cli = build_scenario(&input).unwrap();
    let page = scenario().unwrap();
    assert_eq!(format!("{:?}", page.jobs), format!("{:?}", cli.jobs));
    assert_eq!(format!("{:?}", page.comm), format!("{:?}", cli.comm));
    assert_eq!(format!("{:?}", page.tenants), format!("{:?}", cli.tenants));
    assert_eq!(page.topology.gpu_count(), cli.topology.gpu_count());
}
