//! The walk-through: what each step says, with the numbers its runs produced, and which
//! run it plays from when.

use super::{sensitive_job, PolicyFacts, EPISODES, EPISODE_S, SENSITIVE_AT_S, SHORT_JOB_S};

/// How many steps the walk-through has.
pub const STEPS: usize = 5;

/// One step of the walk-through: what it says and which run it shows, from when.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub title: String,
    pub paragraphs: Vec<String>,
    /// The run to play (an index into [`POLICIES`]).
    pub policy: usize,
    pub start_s: f64,
    /// Playback speed, simulated seconds per second.
    pub speed: f64,
    /// The job to select.
    pub job: Option<u32>,
}

fn secs(s: f64) -> String {
    if s >= 600.0 {
        format!("{s:.0} s ({})", crate::numbers::duration(s))
    } else {
        format!("{} s", (s * 10.0).round() / 10.0)
    }
}

fn percent(better: f64, than: f64) -> f64 {
    ((1.0 - better / than) * 100.0).round()
}

/// The steps, with the numbers the runs produced.
pub fn steps(f: &[PolicyFacts]) -> Vec<Step> {
    let [consolidate, wait, short, tuned, from_default] = [&f[0], &f[1], &f[2], &f[3], &f[4]];
    vec![
        situation(),
        take_what_is_free(consolidate),
        wait_for_a_server(wait, consolidate),
        a_timer_too_short(short, consolidate),
        the_tuner(tuned, wait, from_default),
    ]
}

/// The cluster and the trace, before anything happens.
fn situation() -> Step {
    let job = sensitive_job(0);
    Step {
        title: "The situation".into(),
        paragraphs: vec![
            "The cluster is the teaching preset: 16 GPUs in 2 racks of 2 servers with 4 GPUs each. Inside a server GPUs exchange gradients over NVLink; between servers over 200 Gb/s links; between racks over uplinks oversubscribed 2:1.".into(),
            format!("At 0 s four ResNet-18 jobs of 3 GPUs start, one per server, so the 4 GPUs left free are in 4 different servers. At {SENSITIVE_AT_S} s job {job}, a VGG-16 training job, asks for 4 GPUs. At {SHORT_JOB_S} s the shortest ResNet-18 job ends and frees its server."),
            "Every number in this tour comes from real runs of the simulator on this trace, just now, in your browser.".into(),
        ],
        policy: 0,
        start_s: 5.0,
        speed: 10.0,
        job: None,
    }
}

/// `consolidate` places the sensitive job at once, spread out.
fn take_what_is_free(consolidate: &PolicyFacts) -> Step {
    let job = sensitive_job(0);
    Step {
        title: "Take what is free now".into(),
        paragraphs: vec![format!(
            "consolidate (the usual consolidating scheduler) starts job {job} at once on the 4 free GPUs, one per server, across both racks: a {} placement. Its gradients now cross the network every iteration, so it runs {:.2}× slower than inside one server, and it completes {} after it was submitted.",
            consolidate.tier[0], consolidate.slowdown[0], secs(consolidate.jct_s[0])
        )],
        policy: 0,
        start_s: SENSITIVE_AT_S as f64,
        speed: 10.0,
        job: Some(job),
    }
}

/// Dally with fixed timers waits for a server, against spreading out.
fn wait_for_a_server(wait: &PolicyFacts, consolidate: &PolicyFacts) -> Step {
    let job = sensitive_job(0);
    let gain = percent(wait.jct_s[0], consolidate.jct_s[0]);
    Step {
        title: "Wait for a server".into(),
        paragraphs: vec![
            format!(
                "Dally with delay timers (300 s for a server, 150 s for a rack; here without preemption or tuning) knows VGG-16 is network-sensitive and keeps job {job} waiting for a server-local placement: watch its countdown ring in the queue."
            ),
            format!(
                "At {SHORT_JOB_S} s the short job ends. Job {job} waited {} and gets a {} placement. It completes {} after submission, waiting included: {}",
                secs(wait.waited_s[0]),
                wait.tier[0],
                secs(wait.jct_s[0]),
                if gain > 0.0 { format!("{gain:.0}% sooner than spread out.") } else { format!("{:.0}% later than spread out.", -gain) }
            ),
        ],
        policy: 1,
        start_s: SENSITIVE_AT_S as f64,
        speed: 10.0,
        job: Some(job),
    }
}

/// Timers shorter than the server takes to free: the wait is lost.
fn a_timer_too_short(short: &PolicyFacts, consolidate: &PolicyFacts) -> Step {
    let job = sensitive_job(0);
    let free_at = SHORT_JOB_S as f64;
    let loss = percent(short.jct_s[0], consolidate.jct_s[0]);
    Step {
        title: "A timer too short".into(),
        paragraphs: vec![format!(
            "Now the timers are 60 s for a server and 30 s for a rack, and no job has completed yet from which Dally could estimate how long this one will run, so nothing cuts them short. Job {job} waits {}, gives up {} before the server frees, and takes a {} placement anyway: it completes after {}, {} A timer is worth its wait only if a tight placement tends to appear within it.",
            secs(short.waited_s[0]),
            secs((free_at - SENSITIVE_AT_S as f64 - short.waited_s[0]).max(0.0)),
            short.tier[0],
            secs(short.jct_s[0]),
            if loss < 0.0 { format!("{:.0}% later than if it had not waited at all.", -loss) } else { format!("{loss:.0}% sooner than not waiting.") }
        )],
        policy: 2,
        start_s: SENSITIVE_AT_S as f64,
        speed: 10.0,
        job: Some(job),
    }
}

/// The auto-tuner over repeated episodes, from short timers and from the default 300 s.
fn the_tuner(tuned: &PolicyFacts, wait: &PolicyFacts, from_default: &PolicyFacts) -> Step {
    let changes = tuned.server_timer_changes();
    let settled = tuned.settled_from();
    let spread = tuned.tier.iter().take_while(|t| *t != "server").count();
    let mut paragraphs = vec![format!(
        "So what should the timer be? The same situation repeats {EPISODES} times, {EPISODE_S} s apart, and Dally starts with timers of 30 s (server) and 15 s (rack) and tunes them from what it observes, never from the future. For the first {spread} episodes job after job gives up after {} and spreads out, completing in {}.",
        secs(tuned.waited_s[0]),
        secs(tuned.jct_s[0])
    )];
    if changes.is_empty() {
        paragraphs.push("In this run the tuner did not move the server timer.".into());
    } else {
        let list: Vec<String> = changes
            .iter()
            .map(|(t, old, new)| format!("{} → {} at {}", secs(*old), secs(*new), crate::numbers::duration(*t)))
            .collect();
        paragraphs.push(format!(
            "Once it has seen enough waits, the tuner moves the server timer: {}. {}",
            list.join(", then "),
            match settled {
                Some(e) => format!(
                    "From episode {} on, every VGG-16 job waits for its server and completes in {}.",
                    e + 1,
                    secs(tuned.jct_s[e])
                ),
                None => "Even so, some sensitive jobs still spread out at the end of the run.".into(),
            }
        ));
        let last = changes.last().map(|c| c.2).unwrap_or(0.0);
        let from_300: Vec<String> = from_default
            .server_timer_changes()
            .iter()
            .map(|(_, old, new)| format!("{} → {}", secs(*old), secs(*new)))
            .collect();
        paragraphs.push(format!(
            "Its final {} is {} the {} a server takes to free up here: found from the run's own history, not set by hand. {}",
            secs(last),
            if last >= wait.waited_s[0] { "just above" } else { "below" },
            secs(wait.waited_s[0]),
            if from_300.is_empty() {
                "Started at the default 300 s, the tuner kept it there.".to_string()
            } else {
                format!("Started at the default 300 s instead, it comes down: {}.", from_300.join(", then "))
            }
        ));
    }
    let first_change = changes.first().map(|c| c.0).unwrap_or(0.0);
    Step {
        title: "The auto-tuner finds a good timer".into(),
        paragraphs,
        policy: 3,
        start_s: (first_change - 2.0 * EPISODE_S as f64).max(0.0),
        speed: 600.0,
        job: settled.map(|e| sensitive_job(e as u32)),
    }
}
