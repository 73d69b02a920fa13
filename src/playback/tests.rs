//! Playback against the engine itself: frames at any instant, the player, the grid.

use super::grid::Rect;
use super::*;
use crate::eventlog::{PlaybackLog, Recorder};
use crate::Shared;
use proxima_core::engine::Simulation;
use proxima_core::policy::resolve_policy;
use proxima_core::scenario::Scenario;
use proxima_core::topology::{resolve_topology_arg, NodeKind};
use proxima_core::trace::synthetic;
use proxima_core::workload::{ModelMix, WorkloadOptions};

/// A run's playback and, for checking, the engine's own state at some instants.
fn playback(
    topology: &str,
    jobs: u32,
    load: f64,
    policy: &str,
    probes: &[u64],
) -> (Playback, Vec<(u64, Vec<u32>, usize)>) {
    let topo = resolve_topology_arg(topology).unwrap();
    let trace = synthetic::generate(
        &synthetic::parse(&format!("synthetic:jobs={jobs},load={load},seed=5")).unwrap(),
        topo.gpu_count(),
    );
    let catalog = proxima_core::model::Catalog::built_in();
    let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let scenario = Scenario::from_trace(topo.clone(), &trace, &options, "t").unwrap();
    playback_of(scenario, policy, probes)
}

/// The introduction's trace, where a sensitive job waits for a server every episode.
fn intro_playback(policy: &str) -> Playback {
    let scenario = crate::worker::build_request_scenario(&crate::tour::request(1)).unwrap();
    playback_of(scenario, policy, &[]).0
}

fn playback_of(
    scenario: proxima_core::scenario::Scenario,
    policy: &str,
    probes: &[u64],
) -> (Playback, Vec<(u64, Vec<u32>, usize)>) {
    let topo = scenario.topology.clone();
    let mut sim = Simulation::new(scenario, resolve_policy(policy).unwrap());
    let mut rec = Recorder::default();
    // The engine's view at each probe: owner per GPU and queue length.
    let mut truth = Vec::new();
    for &p in probes {
        while sim.next_time().is_some_and(|t| t.0 <= p) {
            sim.step_observed(&mut [&mut rec]);
        }
        let mut owner = vec![NO_JOB; topo.gpu_count() as usize];
        let mut queued = 0;
        for (j, r) in sim.runs().iter().enumerate() {
            for g in &r.gpus {
                owner[g.0 as usize] = j as u32;
            }
            if r.status == proxima_core::scenario::JobStatus::Queued {
                queued += 1;
            }
        }
        truth.push((p, owner, queued));
    }
    sim.run_observed(&mut [&mut rec]);
    let bytes = rec.finish(&sim, sim.now());
    let log = PlaybackLog::decode(&bytes).unwrap();
    (Playback::new(log, Shared::new(topo)).unwrap(), truth)
}

#[test]
fn state_at_matches_the_engine_at_every_probe() {
    let probes: Vec<u64> = (1..40).map(|k| k * 3_000_000_000).collect();
    let (pb, truth) = playback("teaching", 400, 1.3, "dally", &probes);
    assert!(pb.log.events.len() > 1024, "enough events for several checkpoints: {}", pb.log.events.len());
    for (t, owner, queued) in &truth {
        let f = pb.state_at(*t);
        assert_eq!(&f.gpu_owner, owner, "GPUs at {t}");
        assert_eq!(f.queue.len(), *queued, "queue at {t}");
        // Every running job holds exactly its GPUs.
        for (&job, r) in &f.running {
            for g in pb.placed_gpus(r.placed) {
                assert_eq!(f.gpu_owner[g.0 as usize], job);
            }
        }
    }
}

#[test]
fn advancing_and_scrubbing_give_the_same_frames() {
    let (pb, _) = playback("teaching", 300, 1.2, "dally", &[]);
    let end = pb.end_us();
    let mut f = pb.state_at(0);
    let step = end / 97;
    let mut t = 0;
    while t < end {
        t = (t + step).min(end);
        f = pb.advance(&f, t);
        assert_eq!(f, pb.state_at(t), "at {t}");
    }
    // Backwards too.
    let back = pb.advance(&f, end / 3);
    assert_eq!(back, pb.state_at(end / 3));
    // At the end nothing runs or waits and everything arrived completed.
    let last = pb.state_at(end);
    assert!(last.running.is_empty() && last.queue.is_empty());
    assert_eq!(last.completed + last.rejected, 300);
    assert!(last.link_load.iter().all(|&l| l == 0), "every ring released its links");
}

#[test]
fn countdowns_run_down_and_reasons_count_down_with_them() {
    let pb = intro_playback("dally");
    // Find a job that waits with a timer.
    let (i, job, left) = pb
        .log
        .events
        .iter()
        .enumerate()
        .find_map(|(i, e)| match e {
            SimEvent::Waiting { job, reason: Reason::WaitingForTier { left_s, .. } } if *left_s > 10.0 => {
                Some((i, job.0, *left_s))
            }
            _ => None,
        })
        .expect("a job waits for a tighter tier");
    let t0 = pb.log.times[i];
    let f = pb.state_at(t0);
    let c = pb.countdowns(&f).into_iter().find(|c| c.job == job).expect("its timer runs");
    assert!((c.left_s - left).abs() < 1e-3 && (c.total_s - left).abs() < 1e-3);
    let later = pb.state_at(t0 + 5_000_000);
    let c5 = pb.countdowns(&later).into_iter().find(|c| c.job == job).expect("still waiting 5 s later");
    assert!((c5.left_s - (left - 5.0)).abs() < 1e-3, "{c5:?}");
    assert_eq!(c5.total_s, c.total_s);
    match pb.job_now(&later, job) {
        JobNow::Queued { reason: Some(r @ Reason::WaitingForTier { left_s, .. }), .. } => {
            assert!((left_s - (left - 5.0)).abs() < 1e-3);
            assert!(
                r.describe(&pb.topo)
                    .starts_with("waiting for a server-local placement, timer 295 s left; best now: cluster"),
                "{}",
                r.describe(&pb.topo)
            );
            // The page writes the same sentence with durations as people read them.
            let text = super::queries::reason_text(&r, &pb.topo);
            assert!(
                text.starts_with("waiting for a server-local placement, timer 4.9") && text.contains(" min left;"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    // When the server frees at 120 s the job is placed and its timer is gone.
    let placed = pb.state_at(crate::tour::SHORT_JOB_S as u64 * 1_000_000);
    assert!(pb.countdowns(&placed).is_empty());
    assert!(matches!(pb.job_now(&placed, job), JobNow::Running { tier: Tier(0), .. }));
    let text = pb.topo.tier_name(c.wanted).to_string();
    assert_eq!(text, "server");
}

#[test]
fn jobs_are_followed_from_submission_to_completion() {
    let (pb, _) = playback("teaching", 100, 0.8, "consolidate", &[]);
    let history = pb.job_history(7);
    assert!(history.len() >= 3);
    let submit = pb.log.times[history[0] as usize];
    assert_eq!(pb.job_now(&pb.state_at(submit.saturating_sub(1)), 7), JobNow::NotSubmitted);
    let done = pb.log.times[*history.last().unwrap() as usize];
    assert_eq!(pb.job_now(&pb.state_at(done), 7), JobNow::Completed { at_us: done });
    let placed = history.iter().find(|&&i| matches!(pb.log.events[i as usize], SimEvent::Placed { .. })).unwrap();
    match pb.job_now(&pb.state_at(pb.log.times[*placed as usize]), 7) {
        JobNow::Running { gpus, .. } => assert_eq!(gpus.len() as u32, pb.log.jobs[7].gpus),
        other => panic!("{other:?}"),
    }
    assert!(pb.job_history(100_000).is_empty());
}

#[test]
fn preemptions_and_timer_changes_are_marked() {
    let (pb, _) = playback("teaching", 600, 1.5, "dally", &[]);
    let end = pb.state_at(pb.end_us());
    let marked = pb.marks.iter().filter(|m| m.kind == MarkKind::Preempted).count() as u32;
    assert_eq!(marked, end.preemptions);
    let steps = pb.timer_steps();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0][0], (0.0, 300.0));
    let changes = pb.marks.iter().filter(|m| m.kind == MarkKind::TimerChanged).count();
    assert_eq!(steps.iter().map(|s| s.len() - 2).sum::<usize>(), changes);
    assert_eq!(end.timers, steps.iter().map(|s| s.last().unwrap().1).collect::<Vec<_>>());
    let recent = pb.recent_marks(&end, 3);
    assert!(recent.len() <= 3 && recent.windows(2).all(|w| w[0].time_us >= w[1].time_us));
}

#[test]
fn the_player_plays_steps_seeks_and_stops_at_the_end() {
    let (pb, _) = playback("teaching", 60, 0.8, "dally", &[]);
    let pb = Shared::new(pb);
    let p = Player::new(pb.clone(), 0.0, None);
    assert!(!p.playing && p.time_s() == 0.0);
    assert!(p.speed * 120.0 >= p.end_s(), "the default speed plays the run in two minutes");
    let p = p.apply(PlayerAction::Tick(16.0));
    assert_eq!(p.time_s(), 0.0, "paused: ticks do nothing");
    let p = p.apply(PlayerAction::TogglePlay).apply(PlayerAction::SetSpeed(1000.0)).apply(PlayerAction::Tick(100.0));
    assert_eq!(p.frame.time_us, 100_000_000);
    // A long pause in ticks (a hidden tab) moves at most 250 ms worth.
    let p = p.apply(PlayerAction::Tick(10_000.0));
    assert_eq!(p.frame.time_us, 350_000_000);
    let p = p.apply(PlayerAction::StepNext);
    assert!(!p.playing);
    assert_eq!(Some(p.frame.time_us), pb.next_event_after(350_000_000));
    let before = p.frame.time_us;
    let p = p.apply(PlayerAction::StepBack);
    assert!(p.frame.time_us < before);
    let p = p.apply(PlayerAction::Seek(1e12));
    assert_eq!(p.frame.time_us, pb.end_us());
    let p = p.apply(PlayerAction::TogglePlay);
    assert!(p.playing && p.frame.time_us == 0, "play at the end starts over");
    let near_end = p.end_s() - 0.01;
    let p = p.apply(PlayerAction::Seek(near_end)).apply(PlayerAction::Tick(200.0));
    assert!(!p.playing, "stops at the end");
    // Selecting by GPU.
    let busy = (0..pb.log.events.len()).find_map(|i| match &pb.log.events[i] {
        SimEvent::Placed { job, gpus, .. } => Some((pb.log.times[i], job.0, gpus[0].0)),
        _ => None,
    });
    let (t, job, gpu) = busy.unwrap();
    let p = p.apply(PlayerAction::Seek(t as f64 / 1e6)).apply(PlayerAction::SelectGpu(gpu));
    assert_eq!(p.selected, Some(job));
    let free = p.frame.gpu_owner.iter().position(|&o| o == NO_JOB);
    if let Some(g) = free {
        assert_eq!(p.apply(PlayerAction::SelectGpu(g as u32)).selected, None);
    }
}

#[test]
fn the_grid_holds_every_gpu_and_finds_it_again() {
    for (name, cell) in [("teaching", 34.0), ("n32g4", 14.0), ("oversub-2048", 7.0)] {
        let topo = resolve_topology_arg(name).unwrap();
        let grid = Grid::new(&topo, 900.0);
        assert_eq!(grid.cell, cell);
        assert_eq!(grid.gpus.len() as u32, topo.gpu_count());
        assert!(grid.width <= 900.0 + 1.0, "{name}: {} wide", grid.width);
        for (g, r) in grid.gpus.iter().enumerate() {
            assert!(r.w > 0.0, "{name}: GPU {g} placed");
            let (x, y) = r.centre();
            assert_eq!(grid.gpu_at(x, y), Some(g as u32), "{name}: GPU {g}");
        }
        // Cells do not overlap.
        let mut cells: Vec<&Rect> = grid.gpus.iter().collect();
        cells.sort_by(|a, b| (a.y, a.x).partial_cmp(&(b.y, b.x)).unwrap());
        for w in cells.windows(2) {
            assert!(w[0].y != w[1].y || w[0].x + w[0].w <= w[1].x, "{name}: overlap");
        }
    }
    let topo = resolve_topology_arg("teaching").unwrap();
    let grid = Grid::new(&topo, 900.0);
    assert_eq!(grid.groups.len(), 2);
    assert_eq!(grid.server_centres(&[GpuId(0), GpuId(1)]).len(), 1);
    assert_eq!(
        grid.server_centres(&[GpuId(0), GpuId(4), GpuId(8), GpuId(12)]).len(),
        4,
        "a scattered job has a centre per server"
    );
}

#[test]
fn switching_the_watched_run_or_showing_another_keeps_the_time() {
    let (a, _) = playback("teaching", 200, 1.5, "dally", &[]);
    let (b, _) = playback("teaching", 200, 1.5, "consolidate", &[]);
    let (a, b) = (Shared::new(a), Shared::new(b));
    let t = a.end_us().min(b.end_us()) / 2;
    let p = Player::new(a.clone(), 0.0, Some(3)).apply(PlayerAction::Seek(t as f64 / 1e6));
    let p = p.apply(PlayerAction::Watch(b.clone()));
    assert_eq!(p.frame.time_us, t, "the watched run changed, not the time");
    assert_eq!(*p.frame, b.state_at(t));
    assert_eq!(p.selected, Some(3));
    let p = p.apply(PlayerAction::Compare(Some(a.clone())));
    let (_, other) = p.other.clone().unwrap();
    assert_eq!((p.frame.time_us, other.time_us), (t, t));
    assert_eq!(p.end_us(), a.end_us().max(b.end_us()));
    // Both move together, forward and back.
    let p = p.apply(PlayerAction::TogglePlay).apply(PlayerAction::SetSpeed(1000.0)).apply(PlayerAction::Tick(100.0));
    let (_, other) = p.other.clone().unwrap();
    assert_eq!(other.time_us, p.frame.time_us);
    assert_eq!(*other, a.state_at(p.frame.time_us));
    let p = p.apply(PlayerAction::StepBack);
    assert_eq!(p.other.as_ref().unwrap().1.time_us, p.frame.time_us);
    assert!(p.apply(PlayerAction::Compare(None)).other.is_none());
}

#[test]
fn the_scene_draws_the_editors_graph_or_racks_and_finds_every_gpu() {
    use super::scene::{Scene, SceneKind};
    let teaching = Shared::new(resolve_topology_arg("teaching").unwrap());
    let graph = Scene::graph(&teaching, &Default::default()).expect("the editor draws every GPU");
    assert_eq!(Scene::new(&teaching, 1000.0, &Default::default()).kind, SceneKind::Graph);
    let big = Shared::new(resolve_topology_arg("oversub-2048").unwrap());
    assert_eq!(Scene::new(&big, 1000.0, &Default::default()).kind, SceneKind::Racks);
    for scene in [graph, Scene::racks(&teaching), Scene::racks(&big)] {
        for (g, r) in scene.gpus.iter().enumerate() {
            assert!(r.w > 0.0);
            let (x, y) = r.centre();
            assert_eq!(scene.gpu_at(x, y), Some(g as u32));
        }
        // Every link of the cluster between switches and servers is drawn once.
        let drawn = scene.links.iter().filter(|l| l.link.is_some()).count();
        let inter = scene.links.len();
        assert!(drawn > 0 && drawn <= inter);
    }
    let graph = Scene::graph(&teaching, &Default::default()).unwrap();
    let server_links = teaching.links().iter().filter(|l| teaching.node(l.child).kind != NodeKind::Gpu).count();
    assert_eq!(graph.links.iter().filter(|l| l.link.is_some()).count(), server_links);
    // Scattered jobs: one count per pair of racks, whatever the number of GPUs.
    let racks = Scene::racks(&teaching);
    let spread: Vec<GpuId> = vec![GpuId(0), GpuId(1), GpuId(8), GpuId(9)];
    let local: Vec<GpuId> = vec![GpuId(0), GpuId(4)];
    let pairs = racks.rack_pairs([spread.as_slice(), spread.as_slice(), local.as_slice()].into_iter());
    assert_eq!(pairs.into_iter().collect::<Vec<_>>(), vec![((0, 1), 2)]);
    assert_eq!(racks.server_groups(&spread).len(), 2);
}

#[test]
fn by_tenant_every_running_job_wears_its_tenants_look() {
    let topo = resolve_topology_arg("teaching").unwrap();
    let mut trace =
        synthetic::generate(&synthetic::parse("synthetic:jobs=150,load=1.2,seed=5").unwrap(), topo.gpu_count());
    proxima_core::trace::tenant_mix::assign(&mut trace, 3, 5);
    let catalog = proxima_core::model::Catalog::built_in();
    let options = WorkloadOptions { seed: 1, skip: 0, limit: None, mix: ModelMix::default_for(&catalog) };
    let scenario = Scenario::from_trace(topo, &trace, &options, "t").unwrap();
    let jobs = scenario.jobs.clone();
    let (pb, _) = playback_of(scenario, "fifo", &[]);
    assert_eq!(pb.log.tenants, ["t1", "t2", "t3"]);
    assert_eq!(pb.tenants_shown(), [0, 1, 2]);
    assert_eq!(pb.tenant_jobs.iter().sum::<u32>(), 150);
    // Half-way through, jobs of each tenant run: by tenant they look alike, by job not.
    let frame = pb.state_at(pb.end_us() / 2);
    let mut seen: BTreeMap<u32, colours::Look> = BTreeMap::new();
    for &job in frame.running.keys() {
        let tenant = jobs[job as usize].tenant.0;
        assert_eq!(pb.tenant_of(job), tenant);
        let look = pb.look(job, colours::ColourBy::Tenant);
        assert_eq!(look, colours::tenant_look(tenant));
        assert_eq!(*seen.entry(tenant).or_insert(look), look, "tenant {tenant}");
        assert_eq!(pb.look(job, colours::ColourBy::Job).rgb, colours::job_rgb(job));
    }
    assert!(frame.running.len() >= 2, "{} running", frame.running.len());
    // A trace without tenants has one, and nothing to tell apart.
    let single = playback("teaching", 30, 0.8, "fifo", &[]).0;
    assert_eq!(single.tenants_shown(), [0]);
    assert_eq!(single.log.tenants, ["default"]);
}

#[test]
fn player_keys_leave_fields_and_buttons_their_own_keys() {
    use super::controls::key_action;
    assert_eq!(key_action(" ", "DIV", 90.0), Some(PlayerAction::TogglePlay));
    assert_eq!(key_action("End", "DIV", 90.0), Some(PlayerAction::Seek(90.0)));
    assert_eq!(key_action("ArrowLeft", "CANVAS", 90.0), Some(PlayerAction::StepBack));
    // A focused button presses itself with Space; a field keeps arrows and Home for editing.
    assert_eq!(key_action(" ", "BUTTON", 90.0), None);
    assert_eq!(key_action("ArrowRight", "INPUT", 90.0), None);
    assert_eq!(key_action("Home", "SELECT", 90.0), None);
    // Escape clears the selection from anywhere in the player.
    assert_eq!(key_action("Escape", "INPUT", 90.0), Some(PlayerAction::Select(None)));
    assert_eq!(key_action("x", "DIV", 90.0), None);
    // W goes to the next wait; P toggles projector mode; neither in a field.
    assert_eq!(key_action("w", "DIV", 90.0), Some(PlayerAction::NextWait));
    assert_eq!(key_action("w", "INPUT", 90.0), None);
    // Space plays on the time slider (no text to type there); its arrows stay the slider's.
    assert_eq!(key_action(" ", "RANGE", 90.0), Some(PlayerAction::TogglePlay));
    assert_eq!(key_action("ArrowRight", "RANGE", 90.0), None);
    assert_eq!(key_action(" ", "INPUT", 90.0), None);
    assert!(super::view::projector_key("p", "CANVAS") && super::view::projector_key("P", "DIV"));
    assert!(!super::view::projector_key("p", "INPUT") && !super::view::projector_key("p", "TEXTAREA"));
}

#[test]
fn the_tuners_evidence_reads_in_durations() {
    use super::queries::evidence;
    use proxima_core::event::TimerEvidence;
    let e = TimerEvidence {
        successes: 12,
        samples: 40,
        rate: 0.004,
        gain: 241_954.0,
        competitors_now: 3,
        mean_competitors: 1.5,
        best_t: 300.0,
        best_net: 18.0,
    };
    let text = evidence(&e);
    assert!(text.starts_with("12 of the last 40 waits found a placement"), "{text}");
    assert!(text.contains("2.8 d of run time") && text.contains("a cap of 5 min"), "{text}");
    assert!(!text.contains("241954"), "no raw seconds: {text}");
    // The files keep the tuner's own sentence.
    assert!(e.to_string().contains("mean gain 241954 s"));
}

#[test]
fn the_schedulers_reasons_read_in_durations() {
    use proxima_core::cluster::JobId;
    use proxima_core::event::Reason;
    use proxima_core::topology::Tier;
    let topo = resolve_topology_arg("teaching").unwrap();
    let preempted = Reason::PreemptedFor { for_job: JobId(7), tier: Tier(0), gain_s: 241_954.0, cost_s: 90.0 };
    let text = super::queries::reason_text(&preempted, &topo);
    assert_eq!(text, "preempted so that job 7 gets a server placement (gain 2.8 d > cost 1.5 min)");
    // The files (and the CLI) keep the seconds.
    assert_eq!(
        preempted.describe(&topo),
        "preempted so that job 7 gets a server placement (gain 241954 s > cost 90 s)"
    );
}

#[test]
fn a_waiting_job_is_a_ghost_over_the_gpus_it_declines_with_its_countdown() {
    let pb = intro_playback("dally");
    let (i, job, left) = pb
        .log
        .events
        .iter()
        .enumerate()
        .find_map(|(i, e)| match e {
            SimEvent::Waiting { job, reason: Reason::WaitingForTier { left_s, best_now: Some(_), .. } }
                if *left_s > 10.0 =>
            {
                Some((i, job.0, *left_s))
            }
            _ => None,
        })
        .expect("a job declines a placement and waits");
    let t0 = pb.log.times[i];
    // "Next wait" goes there (or to an earlier one), and a ghost is drawn there.
    let first = pb.next_wait_after(0).expect("a wait");
    assert!(first <= t0 && !pb.ghosts(&pb.state_at(first)).is_empty());
    if let Some(w) = pb.next_wait_after(t0) {
        assert!(w > t0 && !pb.ghosts(&pb.state_at(w)).is_empty());
    }
    let player = Player::new(Shared::new(intro_playback("dally")), 0.0, None).apply(PlayerAction::NextWait);
    assert_eq!(player.frame.time_us, first);
    let f = pb.state_at(t0);
    let ghosts = pb.ghosts(&f);
    let g = ghosts.iter().find(|g| g.job == job).expect("its ghost");
    assert_eq!(g.gpus.len() as u32, pb.log.jobs[job as usize].gpus);
    assert!(g.gpus.iter().all(|x| f.gpu_owner[x.0 as usize] == NO_JOB), "a ghost covers free GPUs only");
    assert!(g.tier > g.wanted, "it declines a looser placement than it waits for");
    assert!((g.left_s - left).abs() < 1e-3 && g.since_us == t0);
    // Ghosts never overlap.
    let mut seen = std::collections::BTreeSet::new();
    assert!(ghosts.iter().flat_map(|g| &g.gpus).all(|x| seen.insert(x.0)));
    // The countdown runs with the playhead.
    let later = pb.state_at(t0 + 5_000_000);
    let g5 = pb.ghosts(&later).into_iter().find(|g| g.job == job).expect("still waiting 5 s later");
    assert!((g5.left_s - (left - 5.0)).abs() < 1e-3, "{g5:?}");
    let attr = narrate::ghosts_attr(std::slice::from_ref(&g5));
    assert!(attr.starts_with(&format!("job:{job},left:{:.1},at:", left - 5.0)), "{attr}");
    assert_eq!(
        narrate::queue_attr(&pb.queue_row(&later)).split(';').find(|q| q.starts_with(&format!("{job}:"))),
        Some(format!("{job}:{:.1}", left - 5.0).as_str())
    );

    // The subtitle says it in words.
    let s = pb.subtitle(&f).expect("a decision");
    assert_eq!(s.time_us, t0);
    assert!(s.jobs.contains(&job));
    let n = pb.log.jobs[job as usize].gpus;
    assert!(
        s.text.contains(&format!("job {job} declines {n} GPUs {} (", narrate::spread(&pb.topo, g.tier)))
            && s.text.contains("× slower) and waits up to 300 s for one server"),
        "{}",
        s.text
    );
    // What the ghost means, in words, as the playhead runs.
    let said = pb.narration(&later);
    assert_eq!(said.ghost_jobs.first(), Some(&job));
    assert_eq!(said.now.as_deref(), Some(pb.ghost_sentence(&g5).as_str()),);
    let text = pb.ghost_sentence(&g5);
    assert!(
        text.starts_with(&format!("job {job} declines {n} free GPUs {} (", narrate::spread(&pb.topo, g5.tier)))
            && text
                .ends_with(&format!("× slower) and waits up to {} more for one server", narrate::seconds(left - 5.0))),
        "{text}"
    );
    // Once the server frees, it is placed there: no ghost, and the subtitle says so.
    let placed_at = pb
        .job_history(job)
        .iter()
        .map(|&i| i as usize)
        .find(|&i| matches!(pb.log.events[i], SimEvent::Placed { .. }))
        .expect("placed");
    let placed = pb.state_at(pb.log.times[placed_at]);
    assert!(pb.ghosts(&placed).iter().all(|g| g.job != job));
    let s = pb.subtitle(&placed).unwrap();
    assert!(s.text.contains(&format!("job {job} got its {n} GPUs in one server after waiting")), "{}", s.text);
}

#[test]
fn decisions_and_countdowns_in_words() {
    use narrate::seconds;
    assert_eq!(seconds(300.0), "300 s");
    assert_eq!(seconds(182.3), "183 s");
    assert_eq!(seconds(1200.0), "20 min");
    assert_eq!(seconds(f64::INFINITY), "no limit");
    let (pb, _) = playback("teaching", 600, 1.5, "dally", &[]);
    // Every decision has a sentence naming its job; arrivals and completions have none.
    for (i, e) in pb.log.events.iter().enumerate() {
        let s = pb.decision_sentence(i as u32);
        match e {
            SimEvent::Arrived { .. } | SimEvent::Completed { .. } | SimEvent::RateChanged { .. } => {
                assert!(s.is_none())
            }
            SimEvent::Policy { .. } => assert!(s.unwrap().starts_with("the ")),
            SimEvent::Preempted { job, reason: Reason::PreemptedFor { for_job, .. }, .. } => {
                assert!(s.unwrap().starts_with(&format!("job {} preempted for job {}", job.0, for_job.0)))
            }
            _ => assert!(s.unwrap().starts_with("job "), "{e:?}"),
        }
    }
    // A subtitle tells at most two decisions of its instant and counts the rest.
    let mut told = 0;
    for k in 1..50 {
        let f = pb.state_at(pb.end_us() * k / 50);
        if let Some(s) = pb.subtitle(&f) {
            told += 1;
            assert!(s.time_us <= f.time_us && !s.text.is_empty());
            let decisions = (0..pb.log.events.len())
                .filter(|&i| pb.log.times[i] == s.time_us && pb.decision_sentence(i as u32).is_some())
                .count();
            assert_eq!(s.text.contains(" more decision"), decisions > 2, "{}", s.text);
        }
    }
    assert!(told > 40, "a decision before most instants: {told}");
}

#[test]
fn job_numbers_go_on_the_widest_row_of_a_jobs_cells_never_between() {
    let topo = resolve_topology_arg("racks=2,servers=4,gpus=4,oversub=32,fabric=tcp").unwrap();
    let scene = super::scene::Scene::racks(&Shared::new(topo));
    let ids = |v: &[u32]| v.iter().map(|&g| GpuId(g)).collect::<Vec<_>>();
    // GPUs 0, 2 and 3 of the first server (another job holds GPU 1): the number goes on 2-3.
    let spots = scene.label_spots(&ids(&[0, 2, 3]));
    assert_eq!(spots.len(), 1);
    let (c2, c3) = (scene.gpus[2], scene.gpus[3]);
    assert_eq!(spots[0], Rect { x: c2.x, y: c2.y, w: c3.x + c3.w - c2.x, h: c2.h });
    assert!(spots[0].x > scene.gpus[1].x + scene.gpus[1].w, "not over GPU 1");
    // One spot per server, in server order.
    let spots = scene.label_spots(&ids(&[4, 5, 0]));
    assert_eq!(spots.len(), 2);
    assert_eq!(spots[0], scene.gpus[0]);
    assert_eq!(spots[1].w, scene.gpus[5].x + scene.gpus[5].w - scene.gpus[4].x);
}

/// The page's first run (the default scenario, built as the worker builds it).
fn first_run_playback(policy: &str) -> Playback {
    let (mut request, _) = crate::state::State::default().run_request(1).expect("the default scenario runs");
    request.policies = vec![policy.to_string()];
    playback_of(crate::worker::build_request_scenario(&request).unwrap(), policy, &[]).0
}

#[test]
fn the_first_moment_of_the_first_run_is_a_job_declining_free_gpus() {
    let pb = first_run_playback("dally");
    let m = pb.first_moment().expect("dally declines free GPUs in the first run");
    assert_eq!(m.kind, "waiting");
    // It is the first instant a ghost appears: "Next wait" from time 0 goes there.
    assert_eq!(pb.next_wait(0), Ok(m.time_us));
    let frame = pb.state_at(m.time_us);
    let ghosts = pb.ghosts(&frame);
    let g = ghosts.iter().find(|g| g.job == m.job).expect("the moment's job has a ghost");
    assert!(g.tier > g.wanted && g.left_s > 0.0, "{g:?}");
    assert!(pb.countdowns(&frame).iter().any(|c| c.job == m.job), "job {} has a timer", m.job);
    let said = pb.narration(&frame).now.expect("the subtitle says it");
    assert!(said.starts_with(&format!("job {} declines", m.job)), "{said}");
    // The first run's dally declines free GPUs in its own events too (`best_now`), more
    // than once (scripts/first-run-search.py: 4 times, seed 1), and every decline is a
    // stop of "Next wait".
    let declared = pb
        .log
        .events
        .iter()
        .filter(|e| matches!(e, SimEvent::Waiting { reason: Reason::WaitingForTier { best_now: Some(_), .. }, .. }))
        .count();
    assert!(declared >= 2, "{declared} waits decline free GPUs");
    // From the last decline on there is no later one, and the button says so.
    let last = pb.declines().last().unwrap().time_us;
    assert_eq!(pb.next_wait(last), Err(crate::playback::narrate::NO_LATER_WAIT));
    // fifo never waits under a timer: "Next wait" says so from any time.
    let fifo = first_run_playback("fifo");
    assert_eq!(fifo.next_wait(0), Err(crate::playback::narrate::NO_WAIT_IN_RUN));
    assert_eq!(fifo.first_moment(), None);
}

#[test]
fn without_a_decline_the_first_moment_is_the_first_wait_or_preemption() {
    // The lessons' cluster, loaded: dally waits and preempts there, declining nothing.
    let (pb, _) = playback(crate::scenario::defaults::DEFAULT_TOPOLOGY, 300, 0.9, "dally", &[]);
    let m = pb.first_moment().expect("dally waits or preempts on a loaded cluster");
    assert!(m.time_us > 0);
    let first = pb.log.events.iter().position(|e| {
        matches!(
            e,
            SimEvent::Waiting { reason: Reason::WaitingForTier { .. }, .. }
                | SimEvent::Preempted { reason: Reason::PreemptedFor { .. }, .. }
        )
    });
    match pb.declines().first() {
        Some(d) => assert_eq!((d.time_us, d.job), (m.time_us, m.job)),
        None => assert_eq!(pb.log.times[first.unwrap()], m.time_us),
    }
    let frame = pb.state_at(m.time_us);
    match m.kind {
        "waiting" => assert!(pb.countdowns(&frame).iter().any(|c| c.job == m.job), "job {} has a timer", m.job),
        "preempted" => assert!(frame.preemptions > 0),
        other => panic!("kind {other}"),
    }
    assert_eq!(playback(crate::scenario::defaults::DEFAULT_TOPOLOGY, 300, 0.9, "fifo", &[]).0.first_moment(), None);
}

#[test]
fn jobs_are_coloured_by_tenant_only_when_two_tenants_are_shown() {
    use super::colours::ColourBy;
    use super::view::colouring;
    assert_eq!(colouring(ColourBy::Tenant, 2, Some("a")), (ColourBy::Tenant, None));
    assert_eq!(colouring(ColourBy::Job, 3, None), (ColourBy::Job, None));
    let (by, why) = colouring(ColourBy::Tenant, 1, Some("research"));
    assert_eq!(by, ColourBy::Job, "one tenant: by job, whatever was chosen");
    assert!(why.unwrap().starts_with("Every job of this run belongs to one tenant (research)"));
    let (_, why) = colouring(ColourBy::Job, 0, None);
    assert!(why.unwrap().contains("one tenant (default)"));
}
