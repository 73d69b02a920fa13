//! The guided introduction: a tiny hand-made trace on the `teaching` cluster, run for real
//! under four policies in the worker, and the numbers the walk-through quotes, read from
//! those runs. Nothing here is canned: change the trace and the text follows.
//!
//! The trace repeats one situation ([`EPISODES`] times, [`EPISODE_S`] apart). Four
//! ResNet-18 jobs of 3 GPUs start at once and take one server each, leaving one GPU free
//! per server: four free GPUs, all in different servers. Ten seconds later a VGG-16 job
//! asks for 4 GPUs. It can start at once spread over four servers in two racks, or wait
//! for the short ResNet-18 job, whose server frees up 120 s into the episode.

use crate::eventlog::PlaybackLog;
use crate::protocol::{PolicyResult, RunRequest, TopologyInput, TraceInput};
use proxima_core::event::{PolicyNote, SimEvent};

/// How many times the situation repeats: the tuner needs 20 waits at a tier before it
/// trusts what it saw, so a few more than that.
pub const EPISODES: u32 = 30;
/// Seconds between episodes: every job of one episode has ended before the next starts.
pub const EPISODE_S: u32 = 4000;
/// When the short job ends and its server frees up, in seconds into an episode.
pub const SHORT_JOB_S: u32 = 120;
/// When the sensitive job arrives, in seconds into an episode.
pub const SENSITIVE_AT_S: u32 = 10;
/// Its run time at a server-local placement.
pub const SENSITIVE_S: u32 = 1800;

/// The cluster of the introduction.
pub const TOPOLOGY: &str = "teaching";

/// The introduction's cluster as its story was written: the `teaching` preset's links, with
/// the calibrated NCCL-over-TCP efficiencies and the built-in model catalogue rather than
/// the RDMA fabric's (whose A100 catalogue has no ResNet-18), so that the numbers it quotes
/// stay those of its trace.
pub fn topology_spec() -> proxima_core::topology::TopologySpec {
    let mut spec = proxima_core::topology::resolve_topology_arg(TOPOLOGY).expect("a preset").spec().clone();
    spec.collective = None;
    spec.gpu = None;
    spec
}

/// The policies it compares, in the order the steps use them.
pub const POLICIES: [&str; 5] = [
    "consolidate",
    "dally:preempt=off,autotune=off",
    "dally:preempt=off,autotune=off,timers=60/30",
    "dally:preempt=off,timers=30/15",
    "dally:preempt=off",
];

/// The trace, in Proxima's CSV format.
pub fn trace_csv() -> String {
    let mut out = String::from("id,submit_s,gpus,model,duration_s\n");
    for e in 0..EPISODES {
        let t = e * EPISODE_S;
        out += &format!("e{e}-short,{t},3,resnet18,{SHORT_JOB_S}\n");
        for b in 1..=3 {
            out += &format!("e{e}-long{b},{t},3,resnet18,3000\n");
        }
        out += &format!("e{e}-vgg16,{},4,vgg16,{SENSITIVE_S}\n", t + SENSITIVE_AT_S);
    }
    out
}

/// The run the introduction asks the worker for.
pub fn request(run_id: u32) -> RunRequest {
    RunRequest {
        run_id,
        topology: TopologyInput::Spec(topology_spec()),
        trace: TraceInput::File { name: "introduction.csv".into(), text: trace_csv() },
        seed: 1,
        mix: None,
        policies: POLICIES.iter().map(|p| p.to_string()).collect(),
    }
}

/// The sensitive job of episode `e` (jobs are numbered in submission order, five per
/// episode, the sensitive one last).
pub fn sensitive_job(e: u32) -> u32 {
    e * 5 + 4
}

/// What one policy did with the sensitive jobs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyFacts {
    pub policy: String,
    /// Per episode: the sensitive job's wait, its tier's name, and its completion time
    /// (JCT), in seconds.
    pub waited_s: Vec<f64>,
    pub tier: Vec<String>,
    pub jct_s: Vec<f64>,
    /// Its slowdown at its placement (run time over ideal run time).
    pub slowdown: Vec<f64>,
    /// The delay timer changes: (seconds, tier, old, new).
    pub timer_changes: Vec<(f64, u8, f64, f64)>,
}

impl PolicyFacts {
    /// The first episode from which every sensitive job got a server of its own.
    pub fn settled_from(&self) -> Option<usize> {
        let last_bad = self.tier.iter().rposition(|t| t != "server");
        match last_bad {
            None => Some(0),
            Some(i) if i + 1 < self.tier.len() => Some(i + 1),
            Some(_) => None,
        }
    }

    /// The server timer's changes.
    pub fn server_timer_changes(&self) -> Vec<(f64, f64, f64)> {
        self.timer_changes.iter().filter(|c| c.1 == 0).map(|c| (c.0, c.2, c.3)).collect()
    }
}

/// Reads what a policy did with the sensitive jobs from its result: `jobs.csv` for
/// waits, tiers and completion times, the playback log for the timer changes.
pub fn facts_of(result: &PolicyResult) -> Result<PolicyFacts, String> {
    let mut f = PolicyFacts { policy: result.policy.clone(), ..PolicyFacts::default() };
    let mut lines = result.jobs_csv.lines();
    let header: Vec<&str> = lines.next().ok_or("jobs.csv is empty")?.split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).ok_or(format!("jobs.csv has no column {name}"));
    let (id, queue, jct, tier, slowdown) = (col("id")?, col("queue_s")?, col("jct_s")?, col("tier")?, col("slowdown")?);
    let sensitive: Vec<u32> = (0..EPISODES).map(sensitive_job).collect();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let Some(job) = cells.get(id).and_then(|c| c.parse::<u32>().ok()) else { continue };
        if !sensitive.contains(&job) {
            continue;
        }
        let number = |i: usize| {
            cells
                .get(i)
                .and_then(|c| c.parse::<f64>().ok())
                .ok_or(format!("jobs.csv: job {job} has no number in column {}", header[i]))
        };
        f.waited_s.push(number(queue)?);
        f.jct_s.push(number(jct)?);
        f.slowdown.push(number(slowdown)?);
        f.tier.push(cells.get(tier).unwrap_or(&"").to_string());
    }
    let log = PlaybackLog::from_base64(&result.playback)?;
    for (t, e) in log.times.iter().zip(&log.events) {
        if let SimEvent::Policy { note: PolicyNote::TimerChanged { tier, old_s, new_s, .. } } = e {
            f.timer_changes.push((*t as f64 / 1e6, tier.0, *old_s, *new_s));
        }
    }
    Ok(f)
}

/// The numbers of the walk-through, one [`PolicyFacts`] per policy in [`POLICIES`] order.
pub fn facts(results: &[PolicyResult]) -> Result<Vec<PolicyFacts>, String> {
    if results.len() != POLICIES.len() {
        return Err(format!("{} of {} runs finished", results.len(), POLICIES.len()));
    }
    let facts = results.iter().map(facts_of).collect::<Result<Vec<_>, _>>()?;
    if facts.iter().any(|f| f.jct_s.len() != EPISODES as usize) {
        return Err("a sensitive job of the introduction did not complete".into());
    }
    Ok(facts)
}

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
        format!("{s:.0} s ({})", crate::charts::duration(s))
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
    let job = sensitive_job(0);
    let free_at = SHORT_JOB_S as f64;
    let mut out = vec![Step {
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
    }];
    out.push(Step {
        title: "Take what is free now".into(),
        paragraphs: vec![format!(
            "consolidate (the usual consolidating scheduler) starts job {job} at once on the 4 free GPUs, one per server, across both racks: a {} placement. Its gradients now cross the network every iteration, so it runs {:.2}× slower than inside one server, and it completes {} after it was submitted.",
            consolidate.tier[0], consolidate.slowdown[0], secs(consolidate.jct_s[0])
        )],
        policy: 0,
        start_s: SENSITIVE_AT_S as f64,
        speed: 10.0,
        job: Some(job),
    });
    let gain = percent(wait.jct_s[0], consolidate.jct_s[0]);
    out.push(Step {
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
    });
    let loss = percent(short.jct_s[0], consolidate.jct_s[0]);
    out.push(Step {
        title: "A timer too short".into(),
        paragraphs: vec![format!(
            "Now the server timer is 60 s. Job {job} waits {}, gives up {} before the server frees, and takes a {} placement anyway: it completes after {}, {} A timer is worth its wait only if a tight placement tends to appear within it.",
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
    });
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
            .map(|(t, old, new)| format!("{} → {} at {}", secs(*old), secs(*new), crate::charts::duration(*t)))
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
    out.push(Step {
        title: "The auto-tuner finds a good timer".into(),
        paragraphs,
        policy: 3,
        start_s: (first_change - 2.0 * EPISODE_S as f64).max(0.0),
        speed: 600.0,
        job: settled.map(|e| sensitive_job(e as u32)),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FromWorker;

    fn results() -> Vec<PolicyResult> {
        let mut out = Vec::new();
        crate::runner::run_request(&request(1), &|| 0.0, &mut |m| {
            if let FromWorker::PolicyDone { result, .. } = m {
                out.push(*result);
            }
        });
        out
    }

    /// The story the walk-through tells must be what the runs do.
    #[test]
    fn the_runs_tell_the_story() {
        let f = facts(&results()).unwrap();
        let [consolidate, wait, short, tuned, from_default] = [&f[0], &f[1], &f[2], &f[3], &f[4]];
        // Consolidate starts it at once, spread, slower.
        assert_eq!(consolidate.waited_s[0], 0.0);
        assert_eq!(consolidate.tier[0], "cluster");
        assert!(consolidate.slowdown[0] > 1.2, "{}", consolidate.slowdown[0]);
        // Waiting for the server that frees at 120 s pays.
        assert_eq!(wait.tier[0], "server");
        assert_eq!(wait.waited_s[0], (SHORT_JOB_S - SENSITIVE_AT_S) as f64);
        assert_eq!(wait.jct_s[0], (SHORT_JOB_S - SENSITIVE_AT_S + SENSITIVE_S) as f64);
        assert!(wait.jct_s[0] < consolidate.jct_s[0]);
        // A 60 s timer gives up before the server frees: worse than not waiting at all.
        assert_eq!(short.tier[0], "cluster");
        assert!(short.waited_s[0] >= 60.0 && short.waited_s[0] < 61.0, "{}", short.waited_s[0]);
        assert!(short.jct_s[0] > consolidate.jct_s[0]);
        // The tuner, starting at 30 s, raises the server timer past the 110 s wait.
        assert!(tuned.tier[0] != "server");
        let settled = tuned.settled_from().expect("the tuner finds a timer that works");
        assert!(settled < EPISODES as usize - 3, "settled at episode {settled}");
        let last_server = *tuned.server_timer_changes().last().unwrap();
        assert!(last_server.2 >= (SHORT_JOB_S - SENSITIVE_AT_S) as f64, "{last_server:?}");
        assert_eq!(tuned.jct_s[EPISODES as usize - 1], wait.jct_s[0]);
        assert!(consolidate.timer_changes.is_empty() && wait.timer_changes.is_empty());
        // Started at 300 s, the tuner comes down to a value that still waits long enough.
        let down = from_default.server_timer_changes();
        assert!(down.first().unwrap().1 == 300.0 && down.last().unwrap().2 >= wait.waited_s[0], "{down:?}");
        assert!(from_default.tier.iter().all(|t| t == "server"));
    }

    #[test]
    fn the_steps_quote_the_runs() {
        let f = facts(&results()).unwrap();
        let steps = steps(&f);
        assert_eq!(steps.len(), STEPS);
        let text = |i: usize| steps[i].paragraphs.join(" ");
        assert!(text(1).contains("a cluster placement") && text(1).contains("1.58× slower"), "{}", text(1));
        assert!(text(2).contains("waited 110 s") && text(2).contains("% sooner than spread out"), "{}", text(2));
        assert!(text(3).contains("later than if it had not waited"), "{}", text(3));
        assert!(text(4).contains("30 s → 60 s") && text(4).contains("60 s → 120 s"), "{}", text(4));
        assert!(text(4).contains("Started at the default 300 s instead, it comes down: 300 s → 150 s"), "{}", text(4));
        assert_eq!(steps[2].policy, 1);
        assert_eq!(steps[2].job, Some(4));
        assert!(steps[4].job.is_some());
    }

    #[test]
    fn missing_runs_are_an_error() {
        let r = results();
        assert!(facts(&r[..2]).is_err());
    }
}
