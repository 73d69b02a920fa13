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

/// The policies it compares, in the order the steps use them.
pub const POLICIES: [&str; 4] = [
    "consolidate",
    "dally:preempt=off,autotune=off",
    "dally:preempt=off,autotune=off,timers=60/30",
    "dally:preempt=off,timers=30/15",
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
        topology: TopologyInput::Arg(TOPOLOGY.into()),
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
        let number = |i: usize| cells.get(i).and_then(|c| c.parse::<f64>().ok()).ok_or(format!("jobs.csv: job {job} has no number in column {}", header[i]));
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
        let [consolidate, wait, short, tuned] = [&f[0], &f[1], &f[2], &f[3]];
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
    }

    #[test]
    fn missing_runs_are_an_error() {
        let r = results();
        assert!(facts(&r[..2]).is_err());
    }
}
